//! The walk over the syntax tree that counts requests.
//!
//! Each function's body is walked once per round, giving a summary (how
//! many requests one call makes, what it returns); a call adds its callee's
//! summary. A function expression is walked where it is written; a function
//! declaration at the first call that sees it, after the call has bound its
//! parameters, or else when its scope closes ([`Walker::settle`]). Variables are keyed by their declaration, hold every
//! value assigned to them anywhere, and the whole walk repeats until no
//! variable, return value or summary grows, so the order of definitions and
//! assignments does not matter and recursion counts as many. What a round
//! finds (requests, opaque places, URLs) is kept from the last round only,
//! when every value has settled.
//!
//! A round after which nothing grew is the fixpoint, but the walk stops one
//! round earlier when it can: a round none of whose reads of what persists
//! between rounds (a binding, a global, a summary, a function's node, an
//! alias) was changed later in the same round read every value in its final
//! state. The next round would then start from those values, add only what
//! they already hold (joins are idempotent), read them unchanged, and so
//! find exactly what this round found and change nothing; see [`Reads`].
//! Most scripts settle in one round this way instead of two.
//!
//! The walk is split by what it reads: [`statement`]s, [`expression`]s,
//! [`call`]s, [`assign`]ments, the script's own [`function`]s, and the
//! [`scope`]s that say which declaration a name means.

use std::{
    borrow::Cow,
    cell::{Cell, RefCell},
    collections::{BTreeMap, HashMap, HashSet, hash_map::RandomState},
    hash::{BuildHasher, BuildHasherDefault, Hash, Hasher},
};

use rustc_hash::FxBuildHasher;

use oxc_ast::ast::*;
use oxc_ast_visit::{Visit, walk};
use oxc_span::{GetSpan, Span};
use oxc_syntax::{
    operator::{AssignmentOperator, BinaryOperator},
    scope::ScopeFlags,
};

use super::{
    Analysis, Count, Env, Found, MAX_NESTING, Positions,
    cost::{Cost, Run},
    markup,
    model::{self, Effect, Loads},
    url::{self, Named, Part},
    value::{Vals, Value},
};

mod assign;
mod call;
mod expression;
mod function;
mod scope;
mod statement;

/// What to analyse.
#[derive(Clone, Copy)]
pub(super) enum Root<'a> {
    /// The wrapper function around a script body.
    Body(&'a Function<'a>),
    /// A lone function expression, called once.
    Function(&'a Expression<'a>),
}

/// How many times the walk may repeat before the analysis gives up.
const MAX_ROUNDS: usize = 12;

#[cfg(test)]
thread_local! {
    /// How many rounds this thread's last walk took.
    pub(super) static ROUNDS: Cell<usize> = const { Cell::new(0) };
}

/// A function of the script.
#[derive(Clone, Copy)]
enum FnNode<'a> {
    Function(&'a Function<'a>),
    Arrow(&'a ArrowFunctionExpression<'a>),
}

impl<'a> FnNode<'a> {
    fn id(self) -> u32 {
        match self {
            FnNode::Function(f) => f.span.start,
            FnNode::Arrow(a) => a.span.start,
        }
    }

    fn params(self) -> &'a FormalParameters<'a> {
        match self {
            FnNode::Function(f) => &f.params,
            FnNode::Arrow(a) => &a.params,
        }
    }
}

/// What one call of a function does.
#[derive(Debug, Clone)]
struct Summary {
    cost: Cost,
    returns: Vals,
    uses_arguments: bool,
}

/// The function being walked.
struct FnCtx {
    id: u32,
    arrow: bool,
    returns: Vals,
    uses_arguments: bool,
}

/// A map keyed by offsets into the script or ids made from them. FxHash
/// rather than SipHash (a fifth of the walk's hashing cost went to these
/// maps): the keys are at most the script's length, so however a script
/// places its declarations it cannot make more of them collide than fit in
/// it.
type OffsetMap<V> = HashMap<u32, V, FxBuildHasher>;

/// What this round of the walk has read of the state kept between rounds,
/// so that a write can tell whether it changes a value the round already
/// used: then the round saw a value before its final state, is stale, and
/// another round must run. Reads of bindings, summaries, function nodes
/// and aliases are noted by key; reads of user globals (rare) as one flag.
#[derive(Default)]
struct Reads {
    /// One bit per kind of state and offset into the parsed text: a read
    /// is noted on every use of a name, and a hash set's insert there was
    /// 3 % of the walk of 100 KB (callgrind).
    bits: Vec<Cell<u64>>,
    /// Keys past the bits' end (that of `lost_this`, at `u32::MAX`).
    keys: RefCell<HashSet<u64, FxBuildHasher>>,
    globals: Cell<bool>,
    /// A `.then` was taken for a promise's ([`Walker::own_then`]).
    then: Cell<bool>,
    /// Nodes were put into the page ([`Walker::unread_document`]).
    unread_document: Cell<bool>,
    /// What the round asked of [`StoredPage`]: each growth there makes the
    /// round stale only if an answer it gave may change.
    stored: StoredReads,
}

/// What a round was told "no" by the page data stored in the script's
/// objects ([`Walker::stored_page`], [`Walker::stored_any`]): the stores
/// only grow, so a "yes" stays one, and a growth makes the round stale only
/// if it turns a "no" it gave into a "yes". Ordinary scripts keep page data
/// in their objects (`{ link: a.href }`) and read members of them
/// everywhere: one flag for every question made such scripts walk twice.
#[derive(Default)]
struct StoredReads {
    /// Names denied, one bit per [`name_bit`].
    names: Cell<u64>,
    /// An item denied, read through an index.
    items: Cell<bool>,
    /// A question any growth answers otherwise: whether anything was
    /// stored, a member read through a key the analysis cannot read.
    all: Cell<bool>,
}

/// The bit of `name` in [`StoredReads::names`]: names that share one make
/// a round stale for each other, which only costs a round.
fn name_bit(name: &str) -> u64 {
    let b = name.as_bytes();
    let first = usize::from(b.first().copied().unwrap_or(0));
    let last = usize::from(b.last().copied().unwrap_or(0));
    let mix = b.len() ^ (first << 2) ^ (last << 4);
    1 << (mix % 64)
}

/// The keys under which the script stored page data the model cannot name
/// in objects of its own ([`Walker::stored_page`]).
#[derive(Default)]
struct StoredPage {
    /// By name (`{ f: el.loadMore }`, `o.f = el.m`).
    names: Vec<Box<str>>,
    /// A bit per name in `names` ([`name_bit`]): most members read are
    /// none of them, and are told so without a compare.
    name_bits: u64,
    /// In an array, under an index or under a key the analysis cannot read
    /// (`[el.loadMore]`, `fs[0] = el.m`, `o[k] = el.m`): called back
    /// through an index or a computed key.
    items: bool,
    /// Members of page data copied in (`{ ...window.api }`): under any name.
    any: bool,
}

impl StoredPage {
    /// Whether anything was stored, under any key.
    fn holds_any(&self) -> bool {
        self.any || self.items || !self.names.is_empty()
    }

    /// Whether `n` is one of the names stored under.
    fn has_name(&self, n: &str, bit: u64) -> bool {
        self.name_bits & bit != 0 && self.names.iter().any(|m| **m == *n)
    }
}

/// The kinds of state a round reads by key.
#[derive(Clone, Copy)]
enum Kept {
    Binding,
    Summary,
    Node,
    Alias,
    /// What `this` is in a function.
    This,
}

/// How many kinds of [`Kept`] there are.
const KEPT_KINDS: u64 = 5;

impl Reads {
    /// For a text of `len` bytes: offsets up to `len` have their bits.
    fn for_text(len: usize) -> Reads {
        let words = (len as u64 + 1) * KEPT_KINDS / 64 + 1;
        Reads {
            bits: (0..words).map(|_| Cell::new(0)).collect(),
            ..Reads::default()
        }
    }

    fn key(kind: Kept, id: u32) -> u64 {
        ((kind as u64) << 32) | u64::from(id)
    }

    /// The word and bit of `kind` at `id`, if it has one.
    fn bit(&self, kind: Kept, id: u32) -> Option<(&Cell<u64>, u64)> {
        let slot = u64::from(id) * KEPT_KINDS + kind as u64;
        let word = self.bits.get(usize::try_from(slot / 64).ok()?)?;
        Some((word, 1 << (slot % 64)))
    }

    fn note(&self, kind: Kept, id: u32) {
        match self.bit(kind, id) {
            Some((word, bit)) => word.set(word.get() | bit),
            None => {
                self.keys.borrow_mut().insert(Self::key(kind, id));
            }
        }
    }

    fn seen(&self, kind: Kept, id: u32) -> bool {
        match self.bit(kind, id) {
            Some((word, bit)) => word.get() & bit != 0,
            None => self.keys.borrow().contains(&Self::key(kind, id)),
        }
    }

    fn clear(&self) {
        for word in &self.bits {
            word.set(0);
        }
        self.keys.borrow_mut().clear();
        self.globals.set(false);
        self.then.set(false);
        self.unread_document.set(false);
        self.stored.names.set(0);
        self.stored.items.set(false);
        self.stored.all.set(false);
    }
}

/// A name of the script with its hash, computed once per lookup by the
/// walker's keyed (SipHash) hasher, so that looking a name up through
/// every open scope hashes it once. The scopes' tables take the hash as it
/// is: a script's names still cannot be chosen to collide.
#[derive(Clone, Copy)]
struct Name<'a> {
    hash: u64,
    text: &'a str,
}

impl PartialEq for Name<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.text == other.text
    }
}

impl Eq for Name<'_> {}

impl Hash for Name<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// The hasher of [`Name`]s: their hash, already computed.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn write(&mut self, bytes: &[u8]) {
        // Only `Name::hash` feeds this hasher, through `write_u64`.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A scope's names and their declarations.
type ScopeNames<'a> = HashMap<Name<'a>, u32, BuildHasherDefault<Prehashed>>;

/// Names declared in one block or function.
struct Scope<'a> {
    names: ScopeNames<'a>,
    function: bool,
    /// Which scope this is, among all opened this round.
    serial: u32,
    /// Function declarations of this scope whose bodies have not been
    /// walked yet this round ([`Walker::settle`]).
    pending: Vec<u32>,
}

/// A member's key.
#[derive(Debug, Clone)]
enum Key<'a> {
    /// A name; `true` when written as a literal, `false` when folded from
    /// an expression.
    Name(Cow<'a, str>, bool),
    /// A key the analysis cannot read.
    Unreadable,
    /// A `#private` field: the class's own business.
    Private,
}

impl<'a> Key<'a> {
    fn shown(&self) -> &str {
        match self {
            Key::Name(n, _) => n,
            Key::Unreadable => "[…]",
            Key::Private => "#…",
        }
    }

    /// [`Self::shown`], kept.
    fn into_shown(self) -> Cow<'a, str> {
        match self {
            Key::Name(n, _) => n,
            Key::Unreadable => Cow::Borrowed("[…]"),
            Key::Private => Cow::Borrowed("#…"),
        }
    }
}

/// How a value escapes or a request repeats, completing "`fetch` at 1:10
/// …": a template with `{name}` and `{at}`, rendered only when a message
/// needs it (finding a line and column costs a scan of the line).
#[derive(Clone, Copy)]
struct How<'s> {
    text: &'static str,
    name: &'s str,
    at: u32,
}

impl<'s> How<'s> {
    fn new(text: &'static str, name: &'s str, at: u32) -> Self {
        How { text, name, at }
    }

    fn at(text: &'static str, at: u32) -> Self {
        How { text, name: "", at }
    }

    fn render(&self, w: &Walker<'_, '_>) -> String {
        self.text
            .replace("{name}", self.name)
            .replace("{at}", &w.pos(self.at))
    }
}

/// One argument of a call.
struct Arg<'a> {
    vals: Vals,
    spread: bool,
    expr: Option<&'a Expression<'a>>,
}

/// Where a call is and what it is called: the name as written in the
/// script, borrowed from it (a call's name was an allocation).
struct CallSite<'a> {
    at: u32,
    name: Cow<'a, str>,
    receiver: Vals,
    new: bool,
}

/// The analysis of one script.
pub(super) struct Walker<'a, 'p> {
    env: Env,
    positions: &'p Positions<'p>,
    base: u32,
    depth: u32,
    scopes: Vec<Scope<'a>>,
    /// Name tables of closed scopes, emptied, for the next scopes to open:
    /// a block's table otherwise cost an allocation and its growth.
    spare: Vec<ScopeNames<'a>>,
    fns: Vec<FnCtx>,
    /// Emptied argument lists of calls walked, for the next calls: a
    /// call's list otherwise cost an allocation.
    arg_lists: Vec<Vec<Arg<'a>>>,
    /// Later declarations of a name already declared in the same scope
    /// (`var x; var x`) stand for the first.
    aliases: OffsetMap<u32>,
    bindings: OffsetMap<Vals>,
    globals: HashMap<String, Vals>,
    summaries: OffsetMap<Summary>,
    nodes: OffsetMap<FnNode<'a>>,
    /// What `this` may be in each of the script's functions: the receivers
    /// of its calls, the global object for a plain call, what `.call` or
    /// `.bind` gave, a page object for code the analysis does not see.
    this_of: OffsetMap<Vals>,
    /// The script's object and class methods: reached through their
    /// object, which the walk does not follow, `o.m.call(x)` gives them a
    /// `this` of the caller's choosing, so each also holds `lost_this`.
    methods: HashSet<u32, FxBuildHasher>,
    /// What `.call`, `.apply` or `.bind` of a function the walk lost track
    /// of was given as `this`.
    lost_this: Vals,
    /// The script gives some object a `then`, `catch` or `finally` of its
    /// own, so a `.then` is not known to be a promise's.
    own_then: bool,
    /// The script parses markup it cannot read into an inert document
    /// (`DOMParser`), whose nodes load once put in the page.
    unread_document: bool,
    /// A function escaping now is an object's or a class's method: its
    /// `this` is that object, not a page object.
    method_this: bool,
    /// Where the script stores page data the model cannot name in an
    /// object or array of its own (`{ f: el.loadMore }`, `[el.loadMore]`,
    /// `o.f = el.m`), which the walk does not follow: a member called back
    /// from one of its objects (`o.f()`, `fs[0]()`) may be that page method.
    stored_page: StoredPage,
    /// The keyed hasher of names ([`Name`]).
    names: RandomState,
    requests: BTreeMap<(u32, String), Found>,
    opaque: BTreeMap<(u32, String), Found>,
    urls: BTreeMap<(u32, String), ()>,
    unknown_hosts: BTreeMap<(u32, String), Found>,
    /// The code walked, for the one look at all of its strings that
    /// markup built at run time needs ([`Walker::loading_literals`]).
    root: Option<Root<'a>>,
    /// Where each string of the script that as markup loads or runs
    /// something is, found the first time markup with holes is read.
    loading_literals: Option<Vec<Span>>,
    /// The expression whose value is the markup being inserted, while an
    /// assignment or call inserts it, with where that is: read with its
    /// holes when its text is not all known.
    markup_expr: Option<(u32, &'a Expression<'a>)>,
    /// What the code of the links the script inserts does when one is
    /// activated (a `javascript:` URL): nothing until a click, which a
    /// script that makes any request of its own may make.
    dormant: Cost,
    /// Text made at run time from what the analysis cannot read or does
    /// not fold (`atob(x)`, `'…'.split('')`): it may be any URL, so a
    /// script that also makes a request names an unknown host.
    made_text: BTreeMap<(u32, String), Found>,
    /// The text a call made, where it is one known string, by the offset
    /// of the call: part of a concatenation around it
    /// (`'https://o.org'.slice(0, 8) + h`).
    folded: OffsetMap<String>,
    /// Above zero while walking the parts of a string being concatenated:
    /// only the whole string is checked for a URL.
    concat: u32,
    /// Scopes opened this round, for [`Scope::serial`].
    opened: u32,
    /// Function declarations by offset, this round: where each was
    /// declared (the scope's index and serial, and the environment) while
    /// its body waits to be walked, `None` once it has been.
    declared: OffsetMap<Option<(usize, u32, Env)>>,
    /// Something kept between rounds grew this round.
    changed: bool,
    reads: Reads,
    /// Something this round had already read changed after the read.
    stale: bool,
    /// `this` is an element (an event handler's code), not the global
    /// object.
    element_this: bool,
}

impl<'a, 'p> Walker<'a, 'p> {
    pub(super) fn new(env: Env, positions: &'p Positions<'p>, base: u32, depth: u32) -> Self {
        Walker {
            env,
            positions,
            base,
            depth,
            scopes: Vec::new(),
            spare: Vec::new(),
            fns: Vec::new(),
            arg_lists: Vec::new(),
            aliases: OffsetMap::default(),
            // Sized for the script, from what 100 KB of ordinary code
            // holds, so that they do not grow (and rehash) a dozen times.
            bindings: OffsetMap::with_capacity_and_hasher(positions.len() / 64, FxBuildHasher),
            globals: HashMap::new(),
            summaries: OffsetMap::default(),
            nodes: OffsetMap::default(),
            this_of: OffsetMap::default(),
            methods: HashSet::default(),
            lost_this: Vals::none(),
            own_then: false,
            unread_document: false,
            method_this: false,
            stored_page: StoredPage::default(),
            names: RandomState::new(),
            requests: BTreeMap::new(),
            opaque: BTreeMap::new(),
            urls: BTreeMap::new(),
            unknown_hosts: BTreeMap::new(),
            root: None,
            loading_literals: None,
            markup_expr: None,
            dormant: Cost::Zero,
            made_text: BTreeMap::new(),
            folded: OffsetMap::default(),
            concat: 0,
            opened: 0,
            declared: OffsetMap::default(),
            changed: false,
            // The parsed text: the code, and the wrapper around a body.
            reads: Reads::for_text(positions.len() + base as usize + 64),
            stale: false,
            element_this: false,
        }
    }

    /// The walker of an event handler's code: `this` is its element.
    pub(super) fn element_this(mut self, yes: bool) -> Self {
        self.element_this = yes;
        self
    }

    /// Walk until nothing changes, then report.
    pub(super) fn run(mut self, root: Root<'a>) -> Analysis {
        self.root = Some(root);
        let env = self.env;
        let mut cost = Cost::Zero;
        for round in 0..MAX_ROUNDS {
            self.changed = false;
            self.stale = false;
            self.reads.clear();
            self.env = env;
            // What a round finds holds only once the values have settled:
            // keep the last round's.
            self.requests.clear();
            self.opaque.clear();
            self.urls.clear();
            self.unknown_hosts.clear();
            self.made_text.clear();
            self.folded.clear();
            self.dormant = Cost::Zero;
            while let Some(scope) = self.scopes.pop() {
                self.spare_names(scope.names);
            }
            self.opened = 0;
            self.declared.clear();
            self.open_scope(true);
            self.fns.clear();
            cost = self.root(&root);
            #[cfg(test)]
            ROUNDS.set(round + 1);
            if !self.changed || !self.stale {
                break;
            }
            if round + 1 == MAX_ROUNDS {
                self.opaque(
                    "code whose values did not settle after many passes",
                    self.base,
                );
            }
        }
        self.finish(cost)
    }

    /// What a document's markup (`html`, which `label` names) loads and
    /// runs, as one analysis.
    /// `data_base`: a `data:` document, whose relative URLs load nothing.
    pub(super) fn document(mut self, html: &str, label: &str, data_base: bool) -> Analysis {
        self.open_scope(true);
        let read = if data_base {
            markup::read_data_document(html)
        } else {
            markup::read(html, markup::Into::Page)
        };
        let cost = self.markup_read(read, label, self.base, false);
        self.finish(cost)
    }

    fn finish(mut self, cost: Cost) -> Analysis {
        if !self.requests.is_empty() {
            let made = std::mem::take(&mut self.made_text);
            self.unknown_hosts.extend(made);
        }
        // A link's code runs on a click: with no request of its own the
        // script clicks nothing; with one, it may be that click. Code
        // nested in code hands its links to the code around it.
        let dormant = std::mem::replace(&mut self.dormant, Cost::Zero);
        let (cost, dormant) = match dormant {
            Cost::Zero => (cost, Count::Zero),
            _ if self.depth > 0 => (cost, count_of(dormant)),
            _ if self.requests.is_empty() => (cost, Count::Zero),
            one @ Cost::One(_) => (cost.then(one), Count::Zero),
            many => (many, Count::Zero),
        };
        let count = match cost {
            Cost::Zero => Count::Zero,
            Cost::One(_) => Count::One,
            Cost::Many(why) => Count::Many { why: *why },
        };
        let mut urls: Vec<String> = Vec::new();
        for (_, u) in self.urls.keys() {
            if !urls.contains(u) {
                urls.push(u.clone());
            }
        }
        Analysis {
            requests: self.requests.into_values().collect(),
            count,
            opaque: self.opaque.into_values().collect(),
            urls,
            unknown_hosts: self.unknown_hosts.into_values().collect(),
            dormant,
        }
    }

    fn root(&mut self, root: &Root<'a>) -> Cost {
        // The function is called with arguments the analysis does not see
        // (DevTools' and Playwright's element arguments), Playwright's `page`
        // first on the server.
        let mut args: Vec<Arg<'a>> = (0..4)
            .map(|_| Arg {
                vals: Vals::unknown(),
                spread: false,
                expr: None,
            })
            .collect();
        if let Some(first) = model::first_argument(self.env) {
            args[0].vals = Vals::of(Value::from(first));
        }
        // Called plainly, in sloppy mode: `this` is the global object.
        let site = |at| CallSite {
            at,
            name: Cow::Borrowed(""),
            receiver: Vals::of(Value::Global),
            new: false,
        };
        match root {
            Root::Body(f) => {
                let wrapper = self.define(FnNode::Function(f));
                let (_, mut cost) = self.apply(&wrapper, &[], &site(f.span.start), false);
                if let Some(inner) = lone_function(f) {
                    let (_, c) = self.apply(&Value::Func(inner), &args, &site(inner), false);
                    cost = cost.then(c);
                }
                cost
            }
            Root::Function(e) => {
                let (vals, mut cost) = self.expr(e);
                let mut once = Cost::Zero;
                for v in vals.iter() {
                    let (_, c) = self.apply(v, &args, &site(e.span().start), false);
                    once = once.or(c);
                }
                cost = cost.then(once);
                cost
            }
        }
    }

    fn pos(&self, offset: u32) -> String {
        self.positions.label(offset.saturating_sub(self.base))
    }

    fn found(&self, what: &str, offset: u32) -> Found {
        let (line, column) = self.positions.at(offset.saturating_sub(self.base));
        Found {
            what: what.to_owned(),
            line,
            column,
        }
    }

    /// A request starts at `offset`.
    fn request(&mut self, what: &str, offset: u32) -> Cost {
        let found = self.found(what, offset);
        let text = format!("{what} at {}:{}", found.line, found.column);
        self.requests
            .entry((offset, what.to_owned()))
            .or_insert(found);
        Cost::one(Run {
            at: offset,
            text,
            input: false,
        })
    }

    /// Code the analysis cannot see runs at `offset`.
    fn opaque(&mut self, what: &str, offset: u32) {
        let found = self.found(what, offset);
        self.opaque
            .entry((offset, what.to_owned()))
            .or_insert(found);
    }

    /// A string written whole in the script (a literal) is at `span`:
    /// [`Self::note_string`] of its one part, without making the part when
    /// the text has no `:`, `/` or `\` (which [`url::named`] turns away
    /// first).
    fn note_literal(&mut self, text: &str, span: Span) {
        if self.concat == 0 && text.contains([':', '/', '\\']) {
            self.note_string(&[Part::Lit(text.to_owned())], span);
        }
    }

    /// A whole string, as far as it is known, is at `span`.
    fn note_string(&mut self, parts: &[Part], span: Span) {
        if self.concat > 0 {
            return;
        }
        match url::named(parts) {
            Named::Nothing => {}
            Named::Url(u) => {
                self.urls.insert((span.start, u), ());
            }
            Named::UnknownHost(shown) => {
                let what = format!("`{shown}`");
                let found = self.found(&what, span.start);
                self.unknown_hosts.insert((span.start, what), found);
            }
            Named::Behind(u, shown) => {
                self.urls.insert((span.start, u), ());
                let what = format!("`{shown}`");
                let found = self.found(&what, span.start);
                self.unknown_hosts.insert((span.start, what), found);
            }
        }
    }
}

impl Walker<'_, '_> {
    /// A string of the script that is not itself a URL may still hold one:
    /// a JSON text (`'"https://other.org/x"'`), a percent-encoded URL, a
    /// sentence. It is read as a `data:` document's text is
    /// ([`crate::read::url::absolute_urls_in`]), and every site in it counts,
    /// whatever the script does with the string.
    fn note_embedded(&mut self, text: &str, at: u32) {
        if !(text.contains("//") || text.contains(['%', '\\', '&'])) {
            return;
        }
        if url::named(&[Part::Lit(text.to_owned())]) != Named::Nothing {
            return;
        }
        for u in crate::read::url::absolute_urls_in(text) {
            self.urls.insert((at, u), ());
        }
    }
}

/// A cost as the analysis reports it.
fn count_of(cost: Cost) -> Count {
    match cost {
        Cost::Zero => Count::Zero,
        Cost::One(_) => Count::One,
        Cost::Many(why) => Count::Many { why: *why },
    }
}

/// The function a script body consists of, if it is only that: `() => …`,
/// `function () { … }` or `function f() { … }`, as Playwright and DevTools
/// send it.
fn lone_function(wrapper: &Function<'_>) -> Option<u32> {
    let body = wrapper.body.as_ref()?;
    match body.statements.as_slice() {
        [Statement::ExpressionStatement(e)] => match &e.expression {
            Expression::ArrowFunctionExpression(a) => Some(a.span.start),
            Expression::FunctionExpression(f) => Some(f.span.start),
            _ => None,
        },
        [Statement::FunctionDeclaration(f)] => Some(f.span.start),
        _ => None,
    }
}

/// True if a `case` body cannot run on into the next case.
fn ends(stmts: &[Statement<'_>]) -> bool {
    match stmts.last() {
        Some(Statement::BreakStatement(b)) => b.label.is_none(),
        Some(
            Statement::ReturnStatement(_)
            | Statement::ThrowStatement(_)
            | Statement::ContinueStatement(_),
        ) => true,
        Some(Statement::BlockStatement(b)) => ends(&b.body),
        _ => false,
    }
}

/// A key written as a literal: `'fetch'`, `0`, `` `fetch` ``.
fn literal_key<'a>(e: &'a Expression<'a>) -> Option<Cow<'a, str>> {
    match e {
        Expression::StringLiteral(s) => Some(Cow::Borrowed(s.value.as_str())),
        Expression::NumericLiteral(n) => Some(Cow::Owned(n.value.to_string())),
        Expression::TemplateLiteral(t) if t.expressions.is_empty() => t
            .quasis
            .first()
            .and_then(|q| q.value.cooked.as_ref())
            .map(|s| Cow::Borrowed(s.as_str())),
        _ => None,
    }
}

/// Add known text to a string's parts.
fn push_lit(parts: &mut Vec<Part>, s: &str) {
    if let Some(Part::Lit(last)) = parts.last_mut() {
        last.push_str(s);
    } else {
        parts.push(Part::Lit(s.to_owned()));
    }
}

/// A string's value: its text when every part is known.
fn string_value(parts: &[Part]) -> Vals {
    match parts {
        [] => Vals::of(Value::Str(String::new())),
        [Part::Lit(s)] => Vals::of(Value::Str(s.clone())),
        _ => Vals::unknown(),
    }
}
