//! The walk over the syntax tree that counts requests.
//!
//! Each function's body is walked once where it is defined, giving a
//! summary (how many requests one call makes, what it returns); a call adds
//! its callee's summary. Variables are keyed by their declaration, hold every
//! value assigned to them anywhere, and the whole walk repeats until no
//! variable, return value or summary grows, so the order of definitions and
//! assignments does not matter and recursion counts as many.

use std::{
    borrow::Cow,
    collections::{BTreeMap, HashMap},
};

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
    url::{self, Named, Part},
    value::{self, Obj, Special, Vals, Value},
};

/// What to analyse.
pub(super) enum Root<'a> {
    /// The wrapper function around a script body.
    Body(&'a Function<'a>),
    /// A lone function expression, called once.
    Function(&'a Expression<'a>),
}

/// How many times the walk may repeat before the analysis gives up.
const MAX_ROUNDS: usize = 12;

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

/// Names declared in one block or function.
struct Scope<'a> {
    names: HashMap<&'a str, u32>,
    function: bool,
}

impl Scope<'_> {
    fn new(function: bool) -> Self {
        Scope {
            names: HashMap::new(),
            function,
        }
    }
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

impl Key<'_> {
    fn shown(&self) -> &str {
        match self {
            Key::Name(n, _) => n,
            Key::Unreadable => "[…]",
            Key::Private => "#…",
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

/// Where a call is and what it is called.
struct CallSite {
    at: u32,
    name: String,
    receiver: Vals,
    new: bool,
}

/// The analysis of one script.
pub(super) struct Walker<'a, 'p> {
    env: Env,
    positions: &'p Positions,
    base: u32,
    depth: u32,
    scopes: Vec<Scope<'a>>,
    fns: Vec<FnCtx>,
    /// Later declarations of a name already declared in the same scope
    /// (`var x; var x`) stand for the first.
    aliases: HashMap<u32, u32>,
    bindings: HashMap<u32, Vals>,
    globals: HashMap<String, Vals>,
    summaries: HashMap<u32, Summary>,
    nodes: HashMap<u32, FnNode<'a>>,
    requests: BTreeMap<(u32, String), Found>,
    opaque: BTreeMap<(u32, String), Found>,
    urls: BTreeMap<(u32, String), ()>,
    unknown_hosts: BTreeMap<(u32, String), Found>,
    /// Above zero while walking the parts of a string being concatenated:
    /// only the whole string is checked for a URL.
    concat: u32,
    changed: bool,
}

impl<'a, 'p> Walker<'a, 'p> {
    pub(super) fn new(env: Env, positions: &'p Positions, base: u32, depth: u32) -> Self {
        Walker {
            env,
            positions,
            base,
            depth,
            scopes: Vec::new(),
            fns: Vec::new(),
            aliases: HashMap::new(),
            bindings: HashMap::new(),
            globals: HashMap::new(),
            summaries: HashMap::new(),
            nodes: HashMap::new(),
            requests: BTreeMap::new(),
            opaque: BTreeMap::new(),
            urls: BTreeMap::new(),
            unknown_hosts: BTreeMap::new(),
            concat: 0,
            changed: false,
        }
    }

    /// Walk until nothing changes, then report.
    pub(super) fn run(mut self, root: Root<'a>) -> Analysis {
        let env = self.env;
        let mut cost = Cost::Zero;
        for round in 0..MAX_ROUNDS {
            self.changed = false;
            self.env = env;
            // What a round finds holds only once the values have settled:
            // keep the last round's.
            self.requests.clear();
            self.opaque.clear();
            self.urls.clear();
            self.unknown_hosts.clear();
            self.scopes = vec![Scope::new(true)];
            self.fns.clear();
            cost = self.root(&root);
            if !self.changed {
                break;
            }
            if round + 1 == MAX_ROUNDS {
                self.opaque(
                    "code whose values did not settle after many passes",
                    self.base,
                );
            }
        }
        let count = match cost {
            Cost::Zero => Count::Zero,
            Cost::One(_) => Count::One,
            Cost::Many(why) => Count::Many { why },
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
        if self.env == Env::PlaywrightServer {
            args[0].vals = Vals::of(Value::Obj(Obj::Page));
        }
        let site = |at| CallSite {
            at,
            name: String::new(),
            receiver: Vals::unknown(),
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
                for v in vals.iter().cloned().collect::<Vec<_>>() {
                    let (_, c) = self.apply(&v, &args, &site(e.span().start), false);
                    once = once.or(c);
                }
                cost = cost.then(once);
                cost
            }
        }
    }

    // ---- places and findings ----

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
        Cost::One(Run { at: offset, text })
    }

    /// Code the analysis cannot see runs at `offset`.
    fn opaque(&mut self, what: &str, offset: u32) {
        let found = self.found(what, offset);
        self.opaque
            .entry((offset, what.to_owned()))
            .or_insert(found);
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
        }
    }

    // ---- scopes and bindings ----

    fn declare(&mut self, name: &'a str, id: u32, function_scope: bool) {
        let scope = if function_scope {
            self.scopes
                .iter_mut()
                .rev()
                .find(|s| s.function)
                .expect("the root scope is a function scope")
        } else {
            self.scopes.last_mut().expect("a scope is open")
        };
        match scope.names.get(name) {
            Some(&first) if first != id => {
                self.aliases.insert(id, first);
            }
            Some(_) => {}
            None => {
                scope.names.insert(name, id);
            }
        }
    }

    fn lookup(&self, name: &str) -> Option<u32> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.names.get(name).copied())
    }

    fn binding_id(&self, id: u32) -> u32 {
        self.aliases.get(&id).copied().unwrap_or(id)
    }

    fn join_binding(&mut self, id: u32, vals: &Vals) {
        let id = self.binding_id(id);
        if vals.iter().next().is_none() {
            // The binding holds `undefined`: nothing the analysis follows.
            self.bindings.entry(id).or_default();
            return;
        }
        let entry = self.bindings.entry(id).or_default();
        if entry.join(vals) {
            self.changed = true;
        }
    }

    fn join_global(&mut self, name: &str, vals: &Vals) {
        let entry = self.globals.entry(name.to_owned()).or_default();
        if entry.join(vals) {
            self.changed = true;
        }
    }

    /// The value of identifier `name`, read at `span`.
    fn read(&mut self, name: &str) -> Vals {
        if let Some(id) = self.lookup(name) {
            return self.bindings.get(&id).cloned().unwrap_or_default();
        }
        if name == "undefined" {
            return Vals::none();
        }
        if name == "arguments"
            && let Some(ctx) = self.fns.iter_mut().rev().find(|f| !f.arrow)
        {
            ctx.uses_arguments = true;
            return Vals::of(Value::Arguments(ctx.id));
        }
        self.global_member(name)
    }

    fn global_member(&self, name: &str) -> Vals {
        let mut out = Vals::none();
        if let Some(v) = value::global(name, self.env) {
            out.add(v);
        }
        if let Some(user) = self.globals.get(name) {
            out.join(user);
        }
        if out.iter().next().is_none() {
            // The page's own globals.
            out.add(Value::Unknown);
        }
        out
    }

    /// Declare the names of a block's `let`, `const`, `class` and function
    /// declarations, and give each function declaration its value.
    fn hoist_block(&mut self, stmts: &'a [Statement<'a>]) {
        for s in stmts {
            match s {
                Statement::VariableDeclaration(d) if !d.kind.is_var() => {
                    let mut names = Vec::new();
                    for decl in &d.declarations {
                        collect_names(&decl.id, &mut names);
                    }
                    for (n, id) in names {
                        self.declare(n, id, false);
                    }
                }
                Statement::FunctionDeclaration(f) => {
                    if let Some(id) = &f.id {
                        self.declare(id.name.as_str(), id.span.start, false);
                        self.join_binding(id.span.start, &Vals::of(Value::Func(f.span.start)));
                    }
                }
                Statement::ClassDeclaration(c) => {
                    if let Some(id) = &c.id {
                        self.declare(id.name.as_str(), id.span.start, false);
                    }
                }
                _ => {}
            }
        }
    }

    /// Declare the `var`s of a function body, and (as sloppy mode does) the
    /// function declarations in its nested blocks.
    fn hoist_vars(&mut self, stmts: &'a [Statement<'a>]) {
        let mut collector = VarCollector { names: Vec::new() };
        for s in stmts {
            if !matches!(s, Statement::FunctionDeclaration(_)) {
                collector.visit_statement(s);
            }
        }
        for (n, id) in collector.names {
            self.declare(n, id, true);
        }
    }

    /// Bind the names in `pattern` to `vals`. With `eval`, computed keys and
    /// defaults are walked too (a declaration); without, they are skipped (a
    /// call passing arguments in).
    fn bind(&mut self, pattern: &'a BindingPattern<'a>, vals: &Vals, eval: bool) -> Cost {
        match pattern {
            BindingPattern::BindingIdentifier(b) => {
                self.join_binding(b.span.start, vals);
                Cost::Zero
            }
            BindingPattern::ObjectPattern(o) => {
                let mut cost = Cost::Zero;
                for p in &o.properties {
                    let (key, c) = self.property_key(&p.key, p.computed, eval);
                    cost = cost.then(c);
                    let sub = self.get(vals, &key, p.span.start);
                    cost = cost.then(self.bind(&p.value, &sub, eval));
                }
                if let Some(rest) = &o.rest {
                    cost = cost.then(self.bind(&rest.argument, vals, eval));
                }
                cost
            }
            BindingPattern::ArrayPattern(a) => {
                let mut cost = Cost::Zero;
                for p in a.elements.iter().flatten() {
                    cost = cost.then(self.bind(p, &Vals::unknown(), eval));
                }
                if let Some(rest) = &a.rest {
                    cost = cost.then(self.bind(&rest.argument, &Vals::unknown(), eval));
                }
                cost
            }
            BindingPattern::AssignmentPattern(a) => {
                let mut vals = vals.clone();
                let mut cost = Cost::Zero;
                if eval {
                    let (d, c) = self.expr(&a.right);
                    vals.join(&d);
                    cost = c;
                }
                cost.then(self.bind(&a.left, &vals, eval))
            }
        }
    }

    fn declare_pattern(&mut self, pattern: &'a BindingPattern<'a>) {
        let mut names = Vec::new();
        collect_names(pattern, &mut names);
        for (n, id) in names {
            self.declare(n, id, false);
        }
    }

    /// A property key: its name, and the cost of computing it.
    fn property_key(
        &mut self,
        key: &'a PropertyKey<'a>,
        computed: bool,
        eval: bool,
    ) -> (Key<'a>, Cost) {
        match key {
            PropertyKey::StaticIdentifier(id) => {
                (Key::Name(Cow::Borrowed(id.name.as_str()), true), Cost::Zero)
            }
            PropertyKey::PrivateIdentifier(_) => (Key::Private, Cost::Zero),
            _ => {
                let e = key.to_expression();
                if !computed {
                    return (
                        literal_key(e).map_or(Key::Unreadable, |k| Key::Name(k, true)),
                        Cost::Zero,
                    );
                }
                if !eval {
                    return (
                        literal_key(e).map_or(Key::Unreadable, |k| Key::Name(k, true)),
                        Cost::Zero,
                    );
                }
                let (v, c) = self.expr(e);
                (self.key_of(e, &v), c)
            }
        }
    }

    fn key_of(&self, e: &'a Expression<'a>, v: &Vals) -> Key<'a> {
        if let Some(k) = literal_key(e) {
            return Key::Name(k, true);
        }
        match v.as_str() {
            Some(s) => Key::Name(Cow::Owned(s.to_owned()), false),
            None => Key::Unreadable,
        }
    }

    // ---- functions ----

    /// Walk a function where it is defined, update its summary, and give its
    /// value.
    fn define(&mut self, node: FnNode<'a>) -> Value {
        let id = node.id();
        self.nodes.insert(id, node);
        self.fns.push(FnCtx {
            id,
            arrow: matches!(node, FnNode::Arrow(_)),
            returns: Vals::none(),
            uses_arguments: false,
        });
        self.scopes.push(Scope::new(true));
        if let FnNode::Function(f) = node
            && f.r#type == FunctionType::FunctionExpression
            && let Some(name) = &f.id
        {
            self.declare(name.name.as_str(), name.span.start, false);
            self.join_binding(name.span.start, &Vals::of(Value::Func(id)));
        }
        let params = node.params();
        for p in &params.items {
            self.declare_pattern(&p.pattern);
        }
        if let Some(rest) = &params.rest {
            self.declare_pattern(&rest.rest.argument);
        }
        let mut cost = Cost::Zero;
        for p in &params.items {
            let mut vals = Vals::none();
            if let Some(init) = &p.initializer {
                let (v, c) = self.expr(init);
                cost = cost.then(c);
                vals = v;
            }
            cost = cost.then(self.bind(&p.pattern, &vals, true));
        }
        match node {
            FnNode::Function(f) => {
                if let Some(body) = &f.body {
                    cost = cost.then(self.function_body(&body.statements));
                }
            }
            FnNode::Arrow(a) => match &a.body {
                ArrowFunctionBody::FunctionBody(body) => {
                    cost = cost.then(self.function_body(&body.statements));
                }
                body => {
                    let e = body.to_expression();
                    let (v, c) = self.expr(e);
                    cost = cost.then(c);
                    let ctx = self.fns.last_mut().expect("a function is open");
                    ctx.returns.join(&v);
                }
            },
        }
        self.scopes.pop();
        let ctx = self.fns.pop().expect("pushed above");
        match self.summaries.get_mut(&id) {
            None => {
                self.summaries.insert(
                    id,
                    Summary {
                        cost,
                        returns: ctx.returns,
                        uses_arguments: ctx.uses_arguments,
                    },
                );
                self.changed = true;
            }
            Some(s) => {
                if cost.level() > s.cost.level() {
                    self.changed = true;
                }
                if cost.level() >= s.cost.level() {
                    s.cost = cost;
                }
                if s.returns.join(&ctx.returns) {
                    self.changed = true;
                }
                if ctx.uses_arguments && !s.uses_arguments {
                    s.uses_arguments = true;
                    self.changed = true;
                }
            }
        }
        Value::Func(id)
    }

    fn function_body(&mut self, stmts: &'a [Statement<'a>]) -> Cost {
        self.hoist_vars(stmts);
        self.hoist_block(stmts);
        self.statements(stmts)
    }

    /// Call the script's function `id` with `args` from `site`.
    fn call_func(
        &mut self,
        id: u32,
        args: &[Arg<'a>],
        site: &CallSite,
        through: bool,
    ) -> (Vals, Cost) {
        let Some(node) = self.nodes.get(&id).copied() else {
            return (Vals::unknown(), Cost::Zero);
        };
        let params = node.params();
        let spread_at = args.iter().position(|a| a.spread).unwrap_or(args.len());
        let uses_arguments = self.summaries.get(&id).is_some_and(|s| s.uses_arguments);
        let mut cost = Cost::Zero;
        for (i, p) in params.items.iter().enumerate() {
            let vals = if i < spread_at {
                args.get(i).map(|a| a.vals.clone()).unwrap_or_default()
            } else {
                Vals::unknown()
            };
            cost = cost.then(self.bind(&p.pattern, &vals, false));
        }
        // Arguments the parameters do not name can still be reached, through
        // `arguments` or a rest parameter: they escape.
        let named = if uses_arguments {
            0
        } else {
            params.items.len().min(spread_at)
        };
        for a in args.iter().skip(named) {
            let how = How::new(
                "runs as an argument of `{name}` ({at}), which the analysis follows only through named parameters",
                &site.name,
                site.at,
            );
            cost = cost.then(self.escape(&a.vals, site.at, &how, false));
        }
        let Some(summary) = self.summaries.get(&id) else {
            return (Vals::unknown(), cost);
        };
        // An async function or a generator returns an object of the
        // platform's, whatever its `return` says.
        let mut returns = summary.returns.clone();
        returns.add(Value::Unknown);
        let mut once = summary.cost.clone();
        if through && !site.name.is_empty() {
            once = once.through(|| format!("through `{}` at {}", site.name, self.pos(site.at)));
        }
        (returns, cost.then(once))
    }

    /// A value goes where the analysis cannot follow it: code it does not
    /// model may call it any number of times. `how` completes "`fetch` at
    /// 1:10 …".
    fn escape(&mut self, vals: &Vals, at: u32, how: &How<'_>, reads_only: bool) -> Cost {
        let mut cost = Cost::Zero;
        for v in vals.iter().cloned().collect::<Vec<_>>() {
            cost = cost.or(self.escape_one(&v, at, how, reads_only));
        }
        cost
    }

    fn escape_one(&mut self, v: &Value, at: u32, how: &How<'_>, reads_only: bool) -> Cost {
        let opaque_what = |this: &Self, w: &str| {
            format!(
                "{w}, which {}",
                how.render(this).trim_start_matches("runs as ")
            )
        };
        match v {
            Value::Sink(label) => self.request(label, at).repeated(|| how.render(self)),
            Value::Func(id) => {
                // Code the analysis does not see may call it with anything.
                if let Some(node) = self.nodes.get(id).copied() {
                    for p in &node.params().items {
                        self.bind(&p.pattern, &Vals::unknown(), false);
                    }
                }
                self.summaries
                    .get(id)
                    .map_or(Cost::Zero, |s| s.cost.clone())
                    .repeated(|| how.render(self))
            }
            Value::Via(inner) | Value::BindOf(inner) => self.escape_one(inner, at, how, reads_only),
            Value::Opaque(label) => {
                let what = opaque_what(self, label);
                self.opaque(&what, at);
                Cost::Zero
            }
            Value::Special(s) => match s {
                Special::ImportScripts => self
                    .request("`importScripts`", at)
                    .repeated(|| how.render(self)),
                Special::CacheAddAll => self
                    .request("`cache.addAll`", at)
                    .repeated(|| how.render(self)),
                Special::Timer(label) | Special::Markup(label, _) => {
                    let what = opaque_what(self, label);
                    self.opaque(&what, at);
                    Cost::Zero
                }
                Special::SetAttribute
                | Special::ReflectSet
                | Special::ExecCommand
                | Special::ReflectApply
                | Special::ReflectConstruct
                | Special::ReflectGet
                | Special::Evaluate(_)
                | Special::InitScript
                | Special::DocumentOpen => {
                    let what = opaque_what(self, "a function that can start requests");
                    self.opaque(&what, at);
                    Cost::Zero
                }
                Special::XhrCtor
                | Special::Resolve
                | Special::BlobUrl
                | Special::ParseHtml
                | Special::ObjectAssign
                | Special::Attr
                | Special::CreateElement
                | Special::NewElement(_)
                | Special::CachesOpen
                | Special::AxiosCreate
                | Special::Returns(_) => Cost::Zero,
            },
            Value::Obj(Obj::Axios) => self.request("`axios`", at).repeated(|| how.render(self)),
            Value::Global if !reads_only => {
                let what = opaque_what(self, "the global object");
                self.opaque(&what, at);
                Cost::Zero
            }
            Value::Any => {
                let what = opaque_what(self, "a value the analysis lost track of");
                self.opaque(&what, at);
                Cost::Zero
            }
            _ => Cost::Zero,
        }
    }

    // ---- statements ----

    fn statements(&mut self, stmts: &'a [Statement<'a>]) -> Cost {
        let mut cost = Cost::Zero;
        for s in stmts {
            cost = cost.then(self.statement(s));
        }
        cost
    }

    fn block(&mut self, stmts: &'a [Statement<'a>]) -> Cost {
        self.scopes.push(Scope::new(false));
        self.hoist_block(stmts);
        let cost = self.statements(stmts);
        self.scopes.pop();
        cost
    }

    fn looped(&self, kind: &'static str, at: u32) -> impl FnOnce() -> String + '_ {
        move || How::new("runs inside a `{name}` loop ({at})", kind, at).render(self)
    }

    fn statement(&mut self, s: &'a Statement<'a>) -> Cost {
        match s {
            Statement::BlockStatement(b) => self.block(&b.body),
            Statement::BreakStatement(_)
            | Statement::ContinueStatement(_)
            | Statement::DebuggerStatement(_)
            | Statement::EmptyStatement(_) => Cost::Zero,
            Statement::DoWhileStatement(d) => {
                let body = self.statement(&d.body);
                let (_, test) = self.expr(&d.test);
                body.then(test)
                    .repeated(self.looped("do … while", d.span.start))
            }
            Statement::ExpressionStatement(e) => self.expr(&e.expression).1,
            Statement::ForInStatement(f) => {
                self.for_each(&f.left, &f.right, &f.body, "for … in", f.span.start)
            }
            Statement::ForOfStatement(f) => {
                self.for_each(&f.left, &f.right, &f.body, "for … of", f.span.start)
            }
            Statement::ForStatement(f) => {
                self.scopes.push(Scope::new(false));
                let mut cost = Cost::Zero;
                match &f.init {
                    Some(ForStatementInit::VariableDeclaration(d)) => {
                        if !d.kind.is_var() {
                            for decl in &d.declarations {
                                self.declare_pattern(&decl.id);
                            }
                        }
                        cost = self.variable_declaration(d);
                    }
                    Some(init) => cost = self.expr(init.to_expression()).1,
                    None => {}
                }
                let mut each = Cost::Zero;
                if let Some(t) = &f.test {
                    each = each.then(self.expr(t).1);
                }
                each = each.then(self.statement(&f.body));
                if let Some(u) = &f.update {
                    each = each.then(self.expr(u).1);
                }
                self.scopes.pop();
                cost.then(each.repeated(self.looped("for", f.span.start)))
            }
            Statement::IfStatement(i) => {
                let (_, test) = self.expr(&i.test);
                let then = self.statement(&i.consequent);
                let otherwise = i
                    .alternate
                    .as_ref()
                    .map_or(Cost::Zero, |a| self.statement(a));
                test.then(then.or(otherwise))
            }
            Statement::LabeledStatement(l) => self.statement(&l.body),
            Statement::ReturnStatement(r) => match &r.argument {
                Some(a) => {
                    let (v, c) = self.expr(a);
                    if let Some(ctx) = self.fns.last_mut() {
                        ctx.returns.join(&v);
                    }
                    c
                }
                None => Cost::Zero,
            },
            Statement::SwitchStatement(s) => self.switch(s),
            Statement::ThrowStatement(t) => {
                let (v, c) = self.expr(&t.argument);
                let how = How::at("runs after being thrown ({at})", t.span.start);
                c.then(self.escape(&v, t.span.start, &how, false))
            }
            Statement::TryStatement(t) => {
                let mut cost = self.block(&t.block.body);
                if let Some(h) = &t.handler {
                    self.scopes.push(Scope::new(false));
                    if let Some(p) = &h.param {
                        self.declare_pattern(&p.pattern);
                        cost = cost.then(self.bind(&p.pattern, &Vals::unknown(), true));
                    }
                    cost = cost.then(self.block(&h.body.body));
                    self.scopes.pop();
                }
                if let Some(f) = &t.finalizer {
                    cost = cost.then(self.block(&f.body));
                }
                cost
            }
            Statement::WhileStatement(w) => {
                let (_, test) = self.expr(&w.test);
                let body = self.statement(&w.body);
                test.then(body).repeated(self.looped("while", w.span.start))
            }
            Statement::WithStatement(w) => {
                self.opaque("`with`", w.span.start);
                let (_, c) = self.expr(&w.object);
                c.then(self.statement(&w.body))
            }
            Statement::VariableDeclaration(d) => self.variable_declaration(d),
            Statement::FunctionDeclaration(f) => {
                self.define(FnNode::Function(f));
                Cost::Zero
            }
            Statement::ClassDeclaration(c) => self.class(c),
            _ => {
                self.opaque("syntax pace-hook does not read", s.span().start);
                Cost::Zero
            }
        }
    }

    fn variable_declaration(&mut self, d: &'a VariableDeclaration<'a>) -> Cost {
        let mut cost = Cost::Zero;
        for decl in &d.declarations {
            let vals = match &decl.init {
                Some(init) => {
                    let (v, c) = self.expr(init);
                    cost = cost.then(c);
                    v
                }
                None => Vals::unknown(),
            };
            cost = cost.then(self.bind(&decl.id, &vals, true));
        }
        cost
    }

    fn for_each(
        &mut self,
        left: &'a ForStatementLeft<'a>,
        right: &'a Expression<'a>,
        body: &'a Statement<'a>,
        kind: &'static str,
        at: u32,
    ) -> Cost {
        self.scopes.push(Scope::new(false));
        let (_, once) = self.expr(right);
        let mut each = Cost::Zero;
        match left {
            ForStatementLeft::VariableDeclaration(d) => {
                for decl in &d.declarations {
                    if !d.kind.is_var() {
                        self.declare_pattern(&decl.id);
                    }
                    each = each.then(self.bind(&decl.id, &Vals::unknown(), true));
                }
            }
            target => {
                each = each.then(self.assign(target.to_assignment_target(), &Vals::unknown(), at));
            }
        }
        each = each.then(self.statement(body));
        self.scopes.pop();
        once.then(each.repeated(self.looped(kind, at)))
    }

    fn switch(&mut self, s: &'a SwitchStatement<'a>) -> Cost {
        let (_, mut cost) = self.expr(&s.discriminant);
        self.scopes.push(Scope::new(false));
        for case in &s.cases {
            self.hoist_block(&case.consequent);
        }
        let mut bodies = Vec::new();
        for case in &s.cases {
            if let Some(t) = &case.test {
                cost = cost.then(self.expr(t).1);
            }
            bodies.push((self.statements(&case.consequent), ends(&case.consequent)));
        }
        self.scopes.pop();
        // Each case runs on into the next until one ends in `break`,
        // `return`, `throw` or `continue`.
        let mut best = Cost::Zero;
        for start in 0..bodies.len() {
            let mut run = Cost::Zero;
            for (body, ends) in &bodies[start..] {
                run = run.then(body.clone());
                if *ends {
                    break;
                }
            }
            best = best.or(run);
        }
        cost.then(best)
    }

    fn class(&mut self, c: &'a Class<'a>) -> Cost {
        let mut cost = Cost::Zero;
        let at = c.span.start;
        if let Some(h) = &c.heritage {
            let (v, hc) = self.expr(&h.expression);
            let how = How::at("runs as a class's parent ({at})", at);
            cost = cost.then(hc).then(self.escape(&v, at, &how, false));
        }
        self.scopes.push(Scope::new(false));
        for el in &c.body.body {
            match el {
                ClassElement::MethodDefinition(m) => {
                    cost = cost.then(self.property_key(&m.key, m.computed, true).1);
                    let f = self.define(FnNode::Function(&m.value));
                    let how = How::at(
                        "runs in a class method ({at}), whose calls the analysis does not follow",
                        m.span.start,
                    );
                    cost = cost.then(self.escape(&Vals::of(f), m.span.start, &how, false));
                }
                ClassElement::PropertyDefinition(p) => {
                    cost = cost.then(self.property_key(&p.key, p.computed, true).1);
                    if let Some(v) = &p.value {
                        cost = cost.then(self.field(v, p.r#static, p.span.start));
                    }
                }
                ClassElement::AccessorProperty(p) => {
                    cost = cost.then(self.property_key(&p.key, p.computed, true).1);
                    if let Some(v) = &p.value {
                        cost = cost.then(self.field(v, p.r#static, p.span.start));
                    }
                }
                ClassElement::StaticBlock(b) => {
                    self.scopes.push(Scope::new(true));
                    cost = cost.then(self.function_body(&b.body));
                    self.scopes.pop();
                }
                ClassElement::TSIndexSignature(_) => {}
            }
        }
        self.scopes.pop();
        cost
    }

    fn field(&mut self, v: &'a Expression<'a>, is_static: bool, at: u32) -> Cost {
        let (vals, c) = self.expr(v);
        let c = if is_static {
            c
        } else {
            c.repeated(|| {
                How::at("runs each time its class is constructed ({at})", at).render(self)
            })
        };
        let how = How::at(
            "is stored in a class field ({at}), where the analysis cannot follow it",
            at,
        );
        c.then(self.escape(&vals, at, &how, false))
    }

    // ---- expressions ----

    fn expr(&mut self, e: &'a Expression<'a>) -> (Vals, Cost) {
        match e {
            Expression::BooleanLiteral(_)
            | Expression::NullLiteral(_)
            | Expression::NumericLiteral(_)
            | Expression::BigIntLiteral(_)
            | Expression::RegExpLiteral(_)
            | Expression::ImportMeta(_)
            | Expression::NewTarget(_)
            | Expression::Super(_) => (Vals::unknown(), Cost::Zero),
            Expression::StringLiteral(s) => {
                let text = s.value.as_str().to_owned();
                self.note_string(&[Part::Lit(text.clone())], s.span);
                (Vals::of(Value::Str(text)), Cost::Zero)
            }
            Expression::TemplateLiteral(t) => self.template(t),
            Expression::Identifier(id) => (self.read(id.name.as_str()), Cost::Zero),
            Expression::ThisExpression(_) => (Vals::of(Value::Global), Cost::Zero),
            Expression::ArrayExpression(a) => {
                let mut cost = Cost::Zero;
                let how = How::at(
                    "is stored in an array ({at}), where the analysis cannot follow it",
                    a.span.start,
                );
                for el in &a.elements {
                    let e = match el {
                        ArrayExpressionElement::SpreadElement(s) => &s.argument,
                        ArrayExpressionElement::Elision(_) => continue,
                        other => other.to_expression(),
                    };
                    let (v, c) = self.expr(e);
                    cost = cost
                        .then(c)
                        .then(self.escape(&v, e.span().start, &how, false));
                }
                (Vals::of(Value::Plain), cost)
            }
            Expression::ArrowFunctionExpression(a) => {
                (Vals::of(self.define(FnNode::Arrow(a))), Cost::Zero)
            }
            Expression::FunctionExpression(f) => {
                (Vals::of(self.define(FnNode::Function(f))), Cost::Zero)
            }
            Expression::AssignmentExpression(a) => self.assignment(a),
            Expression::AwaitExpression(a) => self.expr(&a.argument),
            Expression::BinaryExpression(b) => {
                if b.operator == BinaryOperator::Addition {
                    self.concatenation(e, b)
                } else {
                    let (_, l) = self.expr(&b.left);
                    let (_, r) = self.expr(&b.right);
                    (Vals::unknown(), l.then(r))
                }
            }
            Expression::CallExpression(c) => self.call(&c.callee, &c.arguments, c.span, false),
            Expression::ChainExpression(c) => match &c.expression {
                ChainElement::CallExpression(call) => {
                    self.call(&call.callee, &call.arguments, call.span, false)
                }
                ChainElement::TSNonNullExpression(t) => self.expr(&t.expression),
                other => self.member(other.to_member_expression()),
            },
            Expression::ClassExpression(c) => (Vals::unknown(), self.class(c)),
            Expression::ConditionalExpression(c) => {
                let (_, test) = self.expr(&c.test);
                let (mut v, a) = self.expr(&c.consequent);
                let (w, b) = self.expr(&c.alternate);
                v.join(&w);
                (v, test.then(a.or(b)))
            }
            Expression::ImportExpression(i) => self.import(i),
            Expression::LogicalExpression(l) => {
                let (mut v, a) = self.expr(&l.left);
                let (w, b) = self.expr(&l.right);
                v.join(&w);
                (v, a.then(b))
            }
            Expression::NewExpression(n) => self.call(&n.callee, &n.arguments, n.span, true),
            Expression::ObjectExpression(o) => self.object(o),
            Expression::ParenthesizedExpression(p) => self.expr(&p.expression),
            Expression::SequenceExpression(s) => {
                let mut cost = Cost::Zero;
                let mut last = Vals::unknown();
                for e in &s.expressions {
                    let (v, c) = self.expr(e);
                    cost = cost.then(c);
                    last = v;
                }
                (last, cost)
            }
            Expression::TaggedTemplateExpression(t) => self.tagged(t),
            Expression::UnaryExpression(u) => (Vals::unknown(), self.expr(&u.argument).1),
            Expression::UpdateExpression(u) => {
                let cost = match u.argument.as_member_expression() {
                    Some(m) => self.member_parts(m).2,
                    None => Cost::Zero,
                };
                (Vals::unknown(), cost)
            }
            Expression::YieldExpression(y) => match &y.argument {
                Some(a) => {
                    let (v, c) = self.expr(a);
                    let how = How::at("runs after being yielded ({at})", y.span.start);
                    (
                        Vals::unknown(),
                        c.then(self.escape(&v, y.span.start, &how, false)),
                    )
                }
                None => (Vals::unknown(), Cost::Zero),
            },
            Expression::PrivateInExpression(p) => (Vals::unknown(), self.expr(&p.right).1),
            Expression::StaticMemberExpression(_)
            | Expression::ComputedMemberExpression(_)
            | Expression::PrivateFieldExpression(_) => self.member(e.to_member_expression()),
            _ => {
                self.opaque("syntax pace-hook does not read", e.span().start);
                (Vals::unknown(), Cost::Zero)
            }
        }
    }

    fn template(&mut self, t: &'a TemplateLiteral<'a>) -> (Vals, Cost) {
        let mut parts = Vec::new();
        let mut cost = Cost::Zero;
        for (i, q) in t.quasis.iter().enumerate() {
            match &q.value.cooked {
                Some(s) => push_lit(&mut parts, s.as_str()),
                None => parts.push(Part::Hole),
            }
            if let Some(e) = t.expressions.get(i) {
                self.concat += 1;
                let (v, c) = self.expr(e);
                self.concat -= 1;
                cost = cost.then(c);
                match v.as_str() {
                    Some(s) => push_lit(&mut parts, s),
                    None => parts.push(Part::Hole),
                }
            }
        }
        self.note_string(&parts, t.span);
        (string_value(&parts), cost)
    }

    fn concatenation(
        &mut self,
        e: &'a Expression<'a>,
        b: &'a BinaryExpression<'a>,
    ) -> (Vals, Cost) {
        let root = self.concat == 0;
        self.concat += 1;
        let (_, l) = self.expr(&b.left);
        let (_, r) = self.expr(&b.right);
        self.concat -= 1;
        if !root {
            return (Vals::unknown(), l.then(r));
        }
        let mut parts = Vec::new();
        self.shape(e, &mut parts);
        self.note_string(&parts, b.span);
        (string_value(&parts), l.then(r))
    }

    /// The known and unknown parts of a string expression, without walking
    /// it for requests (the caller did).
    fn shape(&self, e: &'a Expression<'a>, parts: &mut Vec<Part>) {
        match e {
            Expression::StringLiteral(s) => push_lit(parts, s.value.as_str()),
            Expression::NumericLiteral(n) => push_lit(parts, &n.value.to_string()),
            Expression::ParenthesizedExpression(p) => self.shape(&p.expression, parts),
            Expression::BinaryExpression(b) if b.operator == BinaryOperator::Addition => {
                self.shape(&b.left, parts);
                self.shape(&b.right, parts);
            }
            Expression::TemplateLiteral(t) => {
                for (i, q) in t.quasis.iter().enumerate() {
                    match &q.value.cooked {
                        Some(s) => push_lit(parts, s.as_str()),
                        None => parts.push(Part::Hole),
                    }
                    if let Some(e) = t.expressions.get(i) {
                        self.shape(e, parts);
                    }
                }
            }
            Expression::Identifier(id) => {
                let known = self
                    .lookup(id.name.as_str())
                    .and_then(|b| self.bindings.get(&b))
                    .and_then(|v| v.as_str().map(str::to_owned));
                match known {
                    Some(s) => push_lit(parts, &s),
                    None => parts.push(Part::Hole),
                }
            }
            _ => parts.push(Part::Hole),
        }
    }

    fn member(&mut self, m: &'a MemberExpression<'a>) -> (Vals, Cost) {
        let (obj, key, cost) = self.member_parts(m);
        (self.get(&obj, &key, m.span().start), cost)
    }

    fn member_parts(&mut self, m: &'a MemberExpression<'a>) -> (Vals, Key<'a>, Cost) {
        match m {
            MemberExpression::StaticMemberExpression(s) => {
                let (o, c) = self.expr(&s.object);
                (
                    o,
                    Key::Name(Cow::Borrowed(s.property.name.as_str()), true),
                    c,
                )
            }
            MemberExpression::ComputedMemberExpression(c) => {
                let (o, c1) = self.expr(&c.object);
                let (k, c2) = self.expr(&c.expression);
                (o, self.key_of(&c.expression, &k), c1.then(c2))
            }
            MemberExpression::PrivateFieldExpression(p) => {
                let (o, c) = self.expr(&p.object);
                (o, Key::Private, c)
            }
        }
    }

    /// Member `key` of `obj`, read at `at`.
    fn get(&mut self, obj: &Vals, key: &Key<'a>, at: u32) -> Vals {
        let mut out = Vals::none();
        for v in obj.iter().cloned().collect::<Vec<_>>() {
            let got = self.get_one(&v, key, at);
            out.join(&got);
        }
        out
    }

    fn get_one(&mut self, v: &Value, key: &Key<'a>, at: u32) -> Vals {
        let env = self.env;
        let one = Vals::of;
        match (v, key) {
            (_, Key::Private) => Vals::unknown(),
            // `x.constructor.constructor` is `Function`, which runs a string.
            (_, Key::Name(n, _)) if n == "constructor" => one(Value::Opaque(
                "a call of a `.constructor` (it can be `Function`)",
            )),
            (Value::Global, Key::Name(n, true)) => {
                if n.parse::<u32>().is_ok() {
                    one(Value::Global)
                } else {
                    self.global_member(n)
                }
            }
            (Value::Global, _) => {
                self.opaque(
                    "a member of the global object read through a computed name (`window[…]`)",
                    at,
                );
                Vals::none()
            }
            (Value::Obj(o), Key::Name(n, _)) => {
                one(value::member(*o, n).unwrap_or_else(|| value::by_name(n, env)))
            }
            (Value::Obj(o), Key::Unreadable) => {
                if value::reaches_requests(*o) {
                    self.opaque(
                        "a member of a browser object read through a computed name",
                        at,
                    );
                    return Vals::none();
                }
                one(Value::Dyn)
            }
            (Value::Unknown | Value::Element(_) | Value::Dyn, Key::Name(n, _)) => {
                one(value::by_name(n, env))
            }
            (Value::Unknown | Value::Element(_) | Value::Dyn, Key::Unreadable) => one(Value::Dyn),
            (Value::Any, _) => one(Value::Any),
            (Value::Plain | Value::Str(_), _) => Vals::unknown(),
            (
                Value::Sink(_)
                | Value::Opaque(_)
                | Value::Special(_)
                | Value::Func(_)
                | Value::Via(_)
                | Value::BindOf(_),
                Key::Name(n, _),
            ) => match n.as_ref() {
                "call" | "apply" => one(Value::Via(Box::new(v.clone()))),
                "bind" => one(Value::BindOf(Box::new(v.clone()))),
                _ => Vals::unknown(),
            },
            (Value::Func(_), Key::Unreadable) => one(Value::Dyn),
            (
                Value::Sink(_)
                | Value::Opaque(_)
                | Value::Special(_)
                | Value::Via(_)
                | Value::BindOf(_),
                Key::Unreadable,
            ) => {
                self.opaque(
                    "a member of a function that starts requests, read through a computed name",
                    at,
                );
                Vals::none()
            }
            (Value::Arguments(id), Key::Name(n, _)) if n == "callee" => one(Value::Func(*id)),
            (Value::Arguments(_), _) => Vals::unknown(),
        }
    }

    fn object(&mut self, o: &'a ObjectExpression<'a>) -> (Vals, Cost) {
        let mut cost = Cost::Zero;
        for p in &o.properties {
            match p {
                ObjectPropertyKind::ObjectProperty(p) => {
                    let (key, c) = self.property_key(&p.key, p.computed, true);
                    cost = cost.then(c);
                    let (v, c) = self.expr(&p.value);
                    cost = cost.then(c);
                    let at = p.span.start;
                    let how = match p.kind {
                        PropertyKind::Get | PropertyKind::Set => {
                            How::at("runs as a getter or setter ({at})", at)
                        }
                        PropertyKind::Init if p.method => How::at(
                            "runs as an object's method ({at}), whose calls the analysis does not follow",
                            at,
                        ),
                        PropertyKind::Init => How::at(
                            "is stored in an object ({at}), where the analysis cannot follow it",
                            at,
                        ),
                    };
                    // `{ view: window }` is how events are made; a window
                    // stored under any other name is lost track of.
                    let reads_only = matches!(&key, Key::Name(n, _) if n == "view");
                    cost = cost.then(self.escape(&v, at, &how, reads_only));
                }
                ObjectPropertyKind::SpreadProperty(s) => {
                    let (v, c) = self.expr(&s.argument);
                    let how = How::at(
                        "is copied into an object ({at}), where the analysis cannot follow it",
                        s.span.start,
                    );
                    cost = cost
                        .then(c)
                        .then(self.escape(&v, s.span.start, &how, false));
                }
            }
        }
        (Vals::of(Value::Plain), cost)
    }

    fn import(&mut self, i: &'a ImportExpression<'a>) -> (Vals, Cost) {
        let (v, mut cost) = self.expr(&i.source);
        if let Some(o) = &i.options {
            cost = cost.then(self.expr(o).1);
        }
        if v.all_strings() {
            self.code_url(&v, "`import()`", i.span.start, LoadsCode::Always);
            cost = cost.then(self.request("`import()`", i.span.start));
        } else {
            self.opaque(
                "`import()` of a module the analysis cannot read",
                i.span.start,
            );
        }
        (Vals::unknown(), cost)
    }

    fn tagged(&mut self, t: &'a TaggedTemplateExpression<'a>) -> (Vals, Cost) {
        let (fvals, receiver, name, mut cost) = self.callee(&t.tag);
        let mut args = vec![Arg {
            vals: Vals::of(Value::Plain),
            spread: false,
            expr: None,
        }];
        for e in &t.quasi.expressions {
            let (v, c) = self.expr(e);
            cost = cost.then(c);
            args.push(Arg {
                vals: v,
                spread: false,
                expr: Some(e),
            });
        }
        let site = CallSite {
            at: t.span.start,
            name,
            receiver,
            new: false,
        };
        let (v, c) = self.apply_all(&fvals, &args, &site);
        (v, cost.then(c))
    }

    /// The callee's values, the receiver's if it is a member, its name for
    /// messages, and the cost of reaching it.
    fn callee(&mut self, callee: &'a Expression<'a>) -> (Vals, Vals, String, Cost) {
        let callee = match callee {
            Expression::ParenthesizedExpression(p) => &p.expression,
            other => other,
        };
        match callee.as_member_expression() {
            Some(m) => {
                let (obj, key, cost) = self.member_parts(m);
                let f = self.get(&obj, &key, m.span().start);
                (f, obj, key.shown().to_owned(), cost)
            }
            None => {
                let (f, cost) = self.expr(callee);
                let name = match callee {
                    Expression::Identifier(id) => id.name.as_str().to_owned(),
                    _ => "the function".to_owned(),
                };
                (f, Vals::unknown(), name, cost)
            }
        }
    }

    fn call(
        &mut self,
        callee: &'a Expression<'a>,
        arguments: &'a [Argument<'a>],
        span: Span,
        new: bool,
    ) -> (Vals, Cost) {
        let (fvals, receiver, name, mut cost) = self.callee(callee);
        // Playwright's `evaluate` runs its function in the page.
        let in_page = fvals.iter().find_map(|v| match v {
            Value::Special(Special::Evaluate(i)) => Some(*i),
            Value::Special(Special::InitScript) => Some(0),
            _ => None,
        });
        // A function written in place as the argument of code the analysis
        // does not see gets unknown arguments: bind them before its body is
        // walked, which saves the walk a round.
        let escapes = !matches!(name.as_str(), "then" | "catch" | "finally")
            && fvals.iter().any(|v| match v {
                Value::Obj(Obj::Promise) => !new,
                Value::Obj(_)
                | Value::Unknown
                | Value::Dyn
                | Value::Any
                | Value::Global
                | Value::Element(_)
                | Value::Plain
                | Value::Str(_) => true,
                _ => false,
            });
        let mut args = Vec::with_capacity(arguments.len());
        for (i, a) in arguments.iter().enumerate() {
            if escapes {
                let params = match a {
                    Argument::ArrowFunctionExpression(f) => Some(&f.params),
                    Argument::FunctionExpression(f) => Some(&f.params),
                    _ => None,
                };
                for p in params.iter().flat_map(|p| &p.items) {
                    self.bind(&p.pattern, &Vals::unknown(), false);
                }
            }
            let env = self.env;
            if in_page == Some(i) {
                self.env = Env::Page;
            }
            let (e, spread) = match a {
                Argument::SpreadElement(s) => (&s.argument, true),
                other => (other.to_expression(), false),
            };
            let (v, c) = self.expr(e);
            self.env = env;
            cost = cost.then(c);
            args.push(Arg {
                vals: v,
                spread,
                expr: Some(e),
            });
        }
        let site = CallSite {
            at: span.start,
            name,
            receiver,
            new,
        };
        let (v, c) = self.apply_all(&fvals, &args, &site);
        (v, cost.then(c))
    }

    /// Call one of `fvals`: the largest count among them.
    fn apply_all(&mut self, fvals: &Vals, args: &[Arg<'a>], site: &CallSite) -> (Vals, Cost) {
        let mut out = Vals::none();
        let mut cost = Cost::Zero;
        for f in fvals.iter().cloned().collect::<Vec<_>>() {
            let (v, c) = self.apply(&f, args, site, true);
            out.join(&v);
            cost = cost.or(c);
        }
        (out, cost)
    }

    fn apply(
        &mut self,
        f: &Value,
        args: &[Arg<'a>],
        site: &CallSite,
        through: bool,
    ) -> (Vals, Cost) {
        let at = site.at;
        match f {
            Value::Sink(label) => {
                if let Some(first) = args.first() {
                    let loads = if value::LOADS_CODE.contains(label) {
                        LoadsCode::Always
                    } else {
                        LoadsCode::No
                    };
                    self.code_url(&first.vals, label, at, loads);
                }
                let c = self.request(label, at);
                let ret = if *label == "`window.open`" {
                    Value::Global
                } else if site.new {
                    Value::Plain
                } else {
                    Value::Unknown
                };
                (Vals::of(ret), c)
            }
            Value::Opaque(label) => {
                self.opaque(label, at);
                (Vals::unknown(), Cost::Zero)
            }
            Value::Func(id) => self.call_func(*id, args, site, through),
            Value::Via(inner) => {
                let rest = args.get(1..).unwrap_or(&[]);
                let site = CallSite {
                    at,
                    name: site.name.clone(),
                    receiver: Vals::unknown(),
                    new: false,
                };
                self.apply(inner, rest, &site, through)
            }
            Value::BindOf(inner) => {
                let how = How::at("is bound as an argument ({at})", at);
                let mut cost = Cost::Zero;
                for a in args.iter().skip(1) {
                    cost = cost.then(self.escape(&a.vals, at, &how, false));
                }
                (Vals::of((**inner).clone()), cost)
            }
            Value::Special(s) => self.special(*s, args, site),
            Value::Obj(Obj::Axios) => (Vals::unknown(), self.request("`axios`", at)),
            Value::Obj(Obj::Promise) if site.new => {
                let resolve = Vals::of(Value::Special(Special::Resolve));
                let (_, c) = self.call_once(args.first(), &resolve, site);
                (Vals::unknown(), c)
            }
            Value::Dyn | Value::Any => {
                self.opaque("a call of a function read through a computed name", at);
                let cost = self.escape_args(args, site);
                (Vals::unknown(), cost)
            }
            _ => {
                if !site.new && matches!(site.name.as_str(), "then" | "catch" | "finally") {
                    let receiver = site.receiver.clone();
                    let mut cost = Cost::Zero;
                    for a in args {
                        let (_, c) = self.call_once(Some(a), &receiver, site);
                        cost = cost.or(c);
                    }
                    return (receiver, cost);
                }
                let cost = self.escape_args(args, site);
                (Vals::unknown(), cost)
            }
        }
    }

    /// Call the function in `arg` once, with `param` as its first argument.
    fn call_once(&mut self, arg: Option<&Arg<'a>>, param: &Vals, site: &CallSite) -> (Vals, Cost) {
        let Some(arg) = arg else {
            return (Vals::unknown(), Cost::Zero);
        };
        let args = [Arg {
            vals: param.clone(),
            spread: false,
            expr: None,
        }];
        let mut out = Vals::none();
        let mut cost = Cost::Zero;
        let inner = CallSite {
            at: site.at,
            name: site.name.clone(),
            receiver: Vals::unknown(),
            new: false,
        };
        for f in arg.vals.iter().cloned().collect::<Vec<_>>() {
            let (v, c) = match f {
                // Page data passed where a function goes: the page's code.
                Value::Unknown
                | Value::Str(_)
                | Value::Plain
                | Value::Element(_)
                | Value::Global => (Vals::unknown(), Cost::Zero),
                f => self.apply(&f, &args, &inner, false),
            };
            out.join(&v);
            cost = cost.or(c);
        }
        (out, cost)
    }

    fn escape_args(&mut self, args: &[Arg<'a>], site: &CallSite) -> Cost {
        let reads_only = value::READS_ONLY.contains(&site.name.as_str());
        let how = How::new(
            "runs as a callback passed to `{name}` ({at})",
            &site.name,
            site.at,
        );
        let mut cost = Cost::Zero;
        for a in args {
            let at = a.expr.map_or(site.at, |e| e.span().start);
            cost = cost.then(self.escape(&a.vals, at, &how, reads_only));
            if let Some(e) = a.expr {
                cost = cost.then(self.css(e, at));
            }
        }
        cost
    }

    /// A string that, as CSS, loads something (`url(…)`, `@import`), handed to
    /// the page at `at`: a style, `setProperty`, `insertRule`.
    fn css(&mut self, e: &'a Expression<'a>, at: u32) -> Cost {
        let mut parts = Vec::new();
        self.shape(e, &mut parts);
        let loads = parts
            .iter()
            .any(|p| matches!(p, Part::Lit(s) if markup::css_loads(s)));
        if loads {
            self.request("CSS that loads a `url(…)`", at)
        } else {
            Cost::Zero
        }
    }

    fn special(&mut self, s: Special, args: &[Arg<'a>], site: &CallSite) -> (Vals, Cost) {
        let at = site.at;
        let unknown = Vals::unknown;
        match s {
            Special::XhrCtor => (Vals::of(Value::Obj(Obj::Xhr)), Cost::Zero),
            Special::CreateElement => {
                let tag = args
                    .first()
                    .and_then(|a| a.vals.as_str())
                    .map(str::to_ascii_lowercase)
                    .unwrap_or_default();
                (Vals::of(Value::Element(tag)), Cost::Zero)
            }
            Special::NewElement(tag) => {
                // `new Audio(url)` starts loading; `new Image(w, h)` takes sizes.
                let cost = if tag == "audio" && !args.is_empty() {
                    self.request("`new Audio`", at)
                } else {
                    Cost::Zero
                };
                (Vals::of(Value::Element(tag.to_owned())), cost)
            }
            Special::Markup(label, index) => {
                let mut cost = Cost::Zero;
                for a in args.iter().skip(index) {
                    cost = cost.then(self.markup(&a.vals, label, at));
                }
                if args.len() <= index {
                    self.opaque(&format!("{label} with markup the analysis cannot read"), at);
                }
                (unknown(), cost)
            }
            Special::SetAttribute => {
                // `setAttributeNS(ns, name, value)` has the name second.
                let name_at = if site.name == "setAttributeNS" { 1 } else { 0 };
                let name = args
                    .get(name_at)
                    .and_then(|a| a.vals.as_str())
                    .map(str::to_ascii_lowercase);
                let cost = match name.as_deref() {
                    Some(n) if URL_ATTRIBUTES.contains(&n) => {
                        let what = format!("`setAttribute('{n}')`");
                        if let Some(v) = args.get(name_at + 1) {
                            self.code_url(&v.vals, &what, at, LoadsCode::FromMadeUrls);
                        }
                        self.request(&what, at)
                    }
                    Some("srcdoc") => match args.get(name_at + 1) {
                        Some(a) => self.markup(&a.vals, "`setAttribute('srcdoc')`", at),
                        None => Cost::Zero,
                    },
                    Some(n) if n.starts_with("on") => {
                        self.opaque(
                            &format!("`setAttribute('{n}')`, an event handler written as a string"),
                            at,
                        );
                        Cost::Zero
                    }
                    Some(_) => Cost::Zero,
                    None => {
                        self.opaque("`setAttribute` with a name the analysis cannot read", at);
                        Cost::Zero
                    }
                };
                (unknown(), cost)
            }
            Special::Timer(label) => {
                let mut cost = Cost::Zero;
                // A string is code to run; only a value known to be a
                // function is not one.
                if let Some(first) = args.first() {
                    let function = !first.spread
                        && first.vals.iter().all(|v| {
                            matches!(
                                v,
                                Value::Func(_)
                                    | Value::Sink(_)
                                    | Value::Via(_)
                                    | Value::BindOf(_)
                                    | Value::Special(_)
                                    | Value::Opaque(_)
                            )
                        });
                    if !function {
                        self.opaque(&format!("{label} with what may be a string of code"), at);
                    }
                }
                let how = How::new("runs as a {name} callback ({at})", label, at);
                for a in args {
                    let a_at = a.expr.map_or(at, |e| e.span().start);
                    cost = cost.then(self.escape(&a.vals, a_at, &how, false));
                }
                (unknown(), cost)
            }
            Special::ImportScripts => {
                for a in args {
                    self.code_url(&a.vals, "`importScripts`", at, LoadsCode::Always);
                }
                let cost = self.counted(
                    "`importScripts`",
                    args.len(),
                    args.iter().any(|a| a.spread),
                    at,
                    "scripts",
                );
                (unknown(), cost)
            }
            Special::CacheAddAll => {
                let n = match args.first().and_then(|a| a.expr) {
                    Some(Expression::ArrayExpression(a))
                        if !a
                            .elements
                            .iter()
                            .any(|e| matches!(e, ArrayExpressionElement::SpreadElement(_))) =>
                    {
                        Some(a.elements.len())
                    }
                    _ => None,
                };
                let cost = self.counted("`cache.addAll`", n.unwrap_or(2), n.is_none(), at, "URLs");
                (unknown(), cost)
            }
            Special::CachesOpen => (Vals::of(Value::Obj(Obj::Caches)), Cost::Zero),
            Special::DocumentOpen => {
                if args.len() >= 3 {
                    (Vals::of(Value::Global), self.request("`document.open`", at))
                } else {
                    (Vals::of(Value::Obj(Obj::Document)), Cost::Zero)
                }
            }
            Special::ReflectApply | Special::ReflectConstruct => {
                let mut out = Vals::none();
                let mut cost = Cost::Zero;
                let inner = CallSite {
                    at,
                    name: site.name.clone(),
                    receiver: unknown(),
                    new: s == Special::ReflectConstruct,
                };
                if let Some(target) = args.first() {
                    for f in target.vals.iter().cloned().collect::<Vec<_>>() {
                        let (v, c) = self.apply(&f, &[], &inner, true);
                        out.join(&v);
                        cost = cost.or(c);
                    }
                }
                let how = How::new(
                    "runs as an argument of `Reflect.{name}` ({at})",
                    &site.name,
                    at,
                );
                for a in args.iter().skip(1) {
                    cost = cost.then(self.escape(&a.vals, at, &how, false));
                }
                (out, cost)
            }
            Special::ReflectGet => {
                let (Some(obj), Some(key)) = (args.first(), args.get(1)) else {
                    return (unknown(), Cost::Zero);
                };
                let key = match key.expr {
                    Some(e) => self.key_of(e, &key.vals),
                    None => Key::Unreadable,
                };
                (self.get(&obj.vals, &key, at), Cost::Zero)
            }
            Special::AxiosCreate => (Vals::of(Value::Obj(Obj::Axios)), Cost::Zero),
            Special::Evaluate(index) => {
                let cost = self.in_page(args.get(index), site);
                (unknown(), cost)
            }
            Special::InitScript => {
                let cost = self.in_page(args.first(), site);
                let cost = cost.repeated(|| {
                    How::at("runs in every page the context loads ({at})", at).render(self)
                });
                (unknown(), cost)
            }
            Special::Returns(o) => (Vals::of(Value::Obj(o)), Cost::Zero),
            Special::Resolve => (unknown(), Cost::Zero),
            Special::ReflectSet => {
                let (Some(obj), Some(key)) = (args.first(), args.get(1)) else {
                    return (unknown(), Cost::Zero);
                };
                let key = match key.expr {
                    Some(e) => self.key_of(e, &key.vals),
                    None => Key::Unreadable,
                };
                let vals = args.get(2).map_or_else(Vals::none, |a| a.vals.clone());
                (unknown(), self.set(&obj.vals, &key, &vals, at))
            }
            Special::BlobUrl => (Vals::of(Value::Str("blob:".to_owned())), Cost::Zero),
            Special::ExecCommand => {
                let command = args
                    .first()
                    .and_then(|a| a.vals.as_str())
                    .map(str::to_ascii_lowercase);
                let cost = match command.as_deref() {
                    Some("inserthtml") => match args.get(2) {
                        Some(html) => self.markup(&html.vals, "`execCommand('insertHTML')`", at),
                        None => Cost::Zero,
                    },
                    Some(_) => Cost::Zero,
                    None => {
                        self.opaque("`execCommand` with a command the analysis cannot read", at);
                        Cost::Zero
                    }
                };
                (unknown(), cost)
            }
            Special::ParseHtml => {
                // Literal markup is parsed to be put in the page; markup read
                // from elsewhere (a fetched page) is parsed to be read.
                let cost = match args.first() {
                    Some(html) if html.vals.all_strings() => {
                        self.markup(&html.vals, "`parseFromString`", at)
                    }
                    _ => Cost::Zero,
                };
                (unknown(), cost)
            }
            Special::ObjectAssign => {
                let Some(target) = args.first() else {
                    return (unknown(), Cost::Zero);
                };
                let plain = target.vals.iter().all(|v| matches!(v, Value::Plain));
                let mut cost = Cost::Zero;
                if !plain {
                    for a in &args[1..] {
                        cost = cost.then(self.copied_keys(&target.vals, a, "`Object.assign`", at));
                    }
                }
                (target.vals.clone(), cost)
            }
            Special::Attr => {
                let cost = match args {
                    [one] if one.vals.all_strings() => Cost::Zero,
                    [one] => self.copied_keys(&Vals::unknown(), one, "`attr`", at),
                    [name, value, ..] => match name.vals.as_str() {
                        Some(n) => {
                            let key = Key::Name(Cow::Owned(n.to_owned()), false);
                            self.set(&Vals::unknown(), &key, &value.vals, at)
                        }
                        None => {
                            self.opaque(
                                &format!("`{}` with a name the analysis cannot read", site.name),
                                at,
                            );
                            Cost::Zero
                        }
                    },
                    [] => Cost::Zero,
                };
                (unknown(), cost)
            }
        }
    }

    /// Properties of the object `source` copied onto `target` by `how`: each
    /// is set as if assigned; an object the analysis cannot read is opaque.
    fn copied_keys(&mut self, target: &Vals, source: &Arg<'a>, how: &str, at: u32) -> Cost {
        let Some(Expression::ObjectExpression(o)) = source.expr.filter(|_| !source.spread) else {
            self.opaque(
                &format!("{how} onto a page object from an object the analysis cannot read"),
                at,
            );
            return Cost::Zero;
        };
        let mut cost = Cost::Zero;
        for p in &o.properties {
            let ObjectPropertyKind::ObjectProperty(p) = p else {
                self.opaque(
                    &format!("{how} onto a page object from an object the analysis cannot read"),
                    at,
                );
                continue;
            };
            let key = match &p.key {
                PropertyKey::StaticIdentifier(id) => {
                    Key::Name(Cow::Borrowed(id.name.as_str()), true)
                }
                k => k
                    .as_expression()
                    .and_then(literal_key)
                    .map_or(Key::Unreadable, |n| Key::Name(n, true)),
            };
            let mut parts = Vec::new();
            self.shape(&p.value, &mut parts);
            let vals = string_value(&parts);
            cost = cost.then(self.set(target, &key, &vals, p.span.start));
        }
        cost
    }

    /// `what` at `at` starts `n` requests (many if `spread`).
    fn counted(&mut self, what: &str, n: usize, spread: bool, at: u32, things: &str) -> Cost {
        if n == 0 && !spread {
            return Cost::Zero;
        }
        let one = self.request(what, at);
        if n == 1 && !spread {
            return one;
        }
        let amount = if spread {
            "a list of".to_owned()
        } else {
            n.to_string()
        };
        Cost::Many(format!(
            "{what} at {} loads {amount} {things}",
            self.pos(at)
        ))
    }

    /// Code passed to Playwright to run in the page, once.
    fn in_page(&mut self, arg: Option<&Arg<'a>>, site: &CallSite) -> Cost {
        let at = site.at;
        let Some(arg) = arg else {
            return Cost::Zero;
        };
        let mut cost = Cost::Zero;
        for v in arg.vals.iter().cloned().collect::<Vec<_>>() {
            let c = match v {
                Value::Str(code) => self.nested(&code, site),
                Value::Func(_) | Value::Via(_) | Value::BindOf(_) | Value::Sink(_) => {
                    self.call_once(Some(arg), &Vals::unknown(), site).1
                }
                _ => {
                    self.opaque(
                        &format!("`{}` of code the analysis cannot read", site.name),
                        at,
                    );
                    Cost::Zero
                }
            };
            cost = cost.or(c);
        }
        cost
    }

    /// A string of code run in the page, analysed on its own.
    fn nested(&mut self, code: &str, site: &CallSite) -> Cost {
        let at = site.at;
        let whose = format!("in the code passed to `{}` at {}", site.name, self.pos(at));
        if self.depth >= MAX_NESTING {
            self.opaque(&format!("code nested too deep {whose}"), at);
            return Cost::Zero;
        }
        match super::analyse_nested(code, Env::Page, self.depth + 1) {
            Err(failure) => {
                self.opaque(
                    &format!("code that does not parse ({}) {whose}", failure.message),
                    at,
                );
                Cost::Zero
            }
            Ok(inner) => {
                for f in &inner.opaque {
                    self.opaque(&format!("{} {whose}", f.what), at);
                }
                for u in inner.urls {
                    self.urls.insert((at, u), ());
                }
                for f in &inner.unknown_hosts {
                    let what = format!("{} {whose}", f.what);
                    let found = self.found(&what, at);
                    self.unknown_hosts.insert((at, what), found);
                }
                let mut first = None;
                for f in &inner.requests {
                    let c = self.request(&format!("{} {whose}", f.what), at);
                    first.get_or_insert(c);
                }
                match inner.count {
                    Count::Zero => Cost::Zero,
                    Count::One => first.unwrap_or(Cost::Zero),
                    Count::Many { why } => Cost::Many(format!("{whose}, {why}")),
                }
            }
        }
    }

    /// A `javascript:` URL among `vals`, given to `what`, runs code.
    /// Where `loads_code` (a worker, a script, a frame), a `data:` or
    /// `blob:` URL runs code the script wrote, and, for workers and
    /// imports, any URL the analysis cannot read may be one.
    fn code_url(&mut self, vals: &Vals, what: &str, at: u32, loads_code: LoadsCode) {
        let scheme = |s: &str| -> String {
            s.trim_start_matches(|c: char| c <= ' ')
                .chars()
                .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
                .take_while(|c| *c != ':')
                .take(16)
                .collect::<String>()
                .to_ascii_lowercase()
        };
        let mut javascript = false;
        let mut made = false;
        let mut unread = false;
        for v in vals.iter() {
            match v {
                Value::Str(s) => match scheme(s).as_str() {
                    "javascript" if s.contains(':') => javascript = true,
                    "data" | "blob" if s.contains(':') => made = true,
                    _ => {}
                },
                _ => unread = true,
            }
        }
        if javascript {
            self.opaque(
                &format!("{what} with a `javascript:` URL, which runs code"),
                at,
            );
        }
        if made && loads_code != LoadsCode::No {
            self.opaque(
                &format!(
                    "{what} with a `data:` or `blob:` URL, which runs code the analysis cannot see"
                ),
                at,
            );
        }
        if unread && loads_code == LoadsCode::Always {
            self.opaque(
                &format!("{what} with a URL the analysis cannot read, whose code it cannot see"),
                at,
            );
        }
    }

    /// Markup with values `vals` inserted by `label` at `at`.
    fn markup(&mut self, vals: &Vals, label: &str, at: u32) -> Cost {
        if !vals.all_strings() {
            self.opaque(&format!("{label} with markup the analysis cannot read"), at);
            return Cost::Zero;
        }
        if vals
            .iter()
            .any(|v| matches!(v, Value::Str(s) if markup::runs_code(s)))
        {
            self.opaque(
                &format!("{label} with markup that runs code (an inline handler, a `javascript:` URL or a script)"),
                at,
            );
        }
        let n = vals
            .iter()
            .map(|v| match v {
                Value::Str(s) => markup::loads(s),
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        let what = format!("markup that loads a resource, inserted by {label}");
        match n {
            0 => Cost::Zero,
            1 => self.request(&what, at),
            n => {
                self.request(&what, at);
                Cost::Many(format!(
                    "{label} at {} inserts markup that loads {n} resources",
                    self.pos(at)
                ))
            }
        }
    }

    // ---- assignments ----

    fn assignment(&mut self, a: &'a AssignmentExpression<'a>) -> (Vals, Cost) {
        let (rhs, cost) = self.expr(&a.right);
        let stored = match a.operator {
            AssignmentOperator::Assign
            | AssignmentOperator::LogicalAnd
            | AssignmentOperator::LogicalOr
            | AssignmentOperator::LogicalNullish => rhs.clone(),
            // `+=` and the like store a new number or string.
            _ => Vals::unknown(),
        };
        let mut c = self.assign(&a.left, &stored, a.span.start);
        // Markup counts its own `url(`s.
        let markup = matches!(
            a.left.as_member_expression().and_then(MemberExpression::static_property_name),
            Some(n) if value::MARKUP_PROPERTIES.contains(&n)
        );
        if a.left.as_member_expression().is_some() && !markup {
            c = c.then(self.css(&a.right, a.span.start));
        }
        (rhs, cost.then(c))
    }

    fn assign(&mut self, target: &'a AssignmentTarget<'a>, vals: &Vals, at: u32) -> Cost {
        match target {
            AssignmentTarget::AssignmentTargetIdentifier(id) => {
                self.assign_name(id.name.as_str(), vals, id.span.start)
            }
            AssignmentTarget::StaticMemberExpression(_)
            | AssignmentTarget::ComputedMemberExpression(_)
            | AssignmentTarget::PrivateFieldExpression(_) => {
                let m = target.to_member_expression();
                let (obj, key, cost) = self.member_parts(m);
                cost.then(self.set(&obj, &key, vals, m.span().start))
            }
            AssignmentTarget::ArrayAssignmentTarget(a) => {
                let mut cost = Cost::Zero;
                for el in a.elements.iter().flatten() {
                    cost = cost.then(self.assign_maybe_default(el, &Vals::unknown(), at));
                }
                if let Some(rest) = &a.rest {
                    cost = cost.then(self.assign(&rest.target, &Vals::unknown(), at));
                }
                cost
            }
            AssignmentTarget::ObjectAssignmentTarget(o) => {
                let mut cost = Cost::Zero;
                for p in &o.properties {
                    match p {
                        AssignmentTargetProperty::AssignmentTargetPropertyIdentifier(pi) => {
                            let name = pi.binding.name.as_str();
                            let mut v = self.get(
                                vals,
                                &Key::Name(Cow::Borrowed(name), true),
                                pi.span.start,
                            );
                            if let Some(init) = &pi.init {
                                let (d, c) = self.expr(init);
                                v.join(&d);
                                cost = cost.then(c);
                            }
                            cost = cost.then(self.assign_name(name, &v, pi.span.start));
                        }
                        AssignmentTargetProperty::AssignmentTargetPropertyProperty(pp) => {
                            let (key, c) = self.property_key(&pp.name, pp.computed, true);
                            cost = cost.then(c);
                            let v = self.get(vals, &key, pp.span.start);
                            cost = cost.then(self.assign_maybe_default(
                                &pp.binding,
                                &v,
                                pp.span.start,
                            ));
                        }
                    }
                }
                if let Some(rest) = &o.rest {
                    cost = cost.then(self.assign(&rest.target, vals, at));
                }
                cost
            }
            _ => {
                self.opaque("syntax pace-hook does not read", at);
                Cost::Zero
            }
        }
    }

    fn assign_maybe_default(
        &mut self,
        t: &'a AssignmentTargetMaybeDefault<'a>,
        vals: &Vals,
        at: u32,
    ) -> Cost {
        match t {
            AssignmentTargetMaybeDefault::AssignmentTargetWithDefault(d) => {
                let (dv, c) = self.expr(&d.init);
                let mut v = vals.clone();
                v.join(&dv);
                c.then(self.assign(&d.binding, &v, at))
            }
            other => self.assign(other.to_assignment_target(), vals, at),
        }
    }

    fn assign_name(&mut self, name: &str, vals: &Vals, at: u32) -> Cost {
        if let Some(id) = self.lookup(name) {
            self.join_binding(id, vals);
            return Cost::Zero;
        }
        // A global: `location = u` navigates; anything else lands on the
        // global object, where page code can reach it.
        self.set(
            &Vals::of(Value::Global),
            &Key::Name(Cow::Owned(name.to_owned()), true),
            vals,
            at,
        )
    }

    /// Store `vals` in member `key` of `obj` at `at`.
    fn set(&mut self, obj: &Vals, key: &Key<'a>, vals: &Vals, at: u32) -> Cost {
        let shown = key.shown();
        let how = if shown.starts_with("on") {
            How::new("runs as an event handler (`.{name}` at {at})", shown, at)
        } else {
            How::new(
                "is stored in `.{name}` ({at}), where the analysis cannot follow it",
                shown,
                at,
            )
        };
        let mut cost = Cost::Zero;
        if let Key::Name(n, _) = key
            && (n == "location" || value::URL_PROPERTIES.contains(&n.as_ref()))
        {
            let frame_or_script = matches!(n.as_ref(), "src" | "data")
                && obj.iter().any(|v| match v {
                    Value::Element(tag) => value::CODE_TAGS.contains(&tag.as_str()),
                    Value::Unknown | Value::Dyn | Value::Any => true,
                    _ => false,
                });
            let loads = if frame_or_script {
                LoadsCode::FromMadeUrls
            } else {
                LoadsCode::No
            };
            self.code_url(vals, &format!("assignment to `.{n}`"), at, loads);
        }
        for v in obj.iter().cloned().collect::<Vec<_>>() {
            let c = match (&v, key) {
                (_, Key::Private) => Cost::Zero,
                (Value::Element(tag), Key::Name(n, _)) if value::inert_property(tag, n) => Cost::Zero,
                (Value::Global, Key::Name(n, true)) => {
                    if n == "location" {
                        self.request("assignment to `location`", at)
                    } else {
                        self.join_global(n, vals);
                        Cost::Zero
                    }
                }
                (Value::Global, _) => {
                    self.opaque("assignment to a member of the global object through a computed name", at);
                    Cost::Zero
                }
                (Value::Obj(Obj::Location), Key::Name(n, _)) => {
                    if value::LOCATION_PROPERTIES.contains(&n.as_ref()) {
                        self.request(&format!("assignment to `location.{n}`"), at)
                    } else {
                        Cost::Zero
                    }
                }
                (Value::Obj(Obj::Document), Key::Name(n, _)) if n == "location" => {
                    self.request("assignment to `document.location`", at)
                }
                (Value::Obj(o), Key::Unreadable) if value::reaches_requests(*o) => {
                    self.opaque("assignment to a member of a browser object through a computed name", at);
                    Cost::Zero
                }
                (Value::Unknown | Value::Element(_) | Value::Dyn | Value::Any, Key::Name(n, _)) => {
                    let n = n.as_ref();
                    if value::URL_PROPERTIES.contains(&n) {
                        self.request(&format!("assignment to `.{n}`"), at)
                    } else if n == "location" {
                        self.request("assignment to `.location`", at)
                    } else if value::MARKUP_PROPERTIES.contains(&n) {
                        self.markup(vals, &format!("`{n}`"), at)
                    } else {
                        if value::CODE_PROPERTIES.contains(&n)
                            && matches!(&v, Value::Element(t) if t == "script" || t.is_empty())
                        {
                            self.opaque(&format!("assignment to `.{n}` of a created script"), at);
                        }
                        Cost::Zero
                    }
                }
                (Value::Unknown | Value::Element(_) | Value::Dyn | Value::Any, Key::Unreadable) => {
                    self.request("assignment to a member whose name the analysis cannot read (it may be `src`)", at)
                }
                _ => Cost::Zero,
            };
            cost = cost.or(c);
        }
        cost.then(self.escape(vals, at, &how, false))
    }
}

/// Whether a URL sink runs the code at the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LoadsCode {
    /// No (an image, a navigation): only `javascript:` URLs run code.
    No,
    /// A frame or a script element: `data:` and `blob:` URLs run the
    /// script's own code.
    FromMadeUrls,
    /// A worker or an import: so does any URL the analysis cannot read.
    Always,
}

/// Attributes whose value is a URL the element loads or navigates to.
const URL_ATTRIBUTES: &[&str] = &[
    "src",
    "href",
    "xlink:href",
    "action",
    "formaction",
    "data",
    "srcset",
    "imagesrcset",
    "poster",
    "background",
    "codebase",
    "ping",
];

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

fn push_lit(parts: &mut Vec<Part>, s: &str) {
    if let Some(Part::Lit(last)) = parts.last_mut() {
        last.push_str(s);
    } else {
        parts.push(Part::Lit(s.to_owned()));
    }
}

fn string_value(parts: &[Part]) -> Vals {
    match parts {
        [] => Vals::of(Value::Str(String::new())),
        [Part::Lit(s)] => Vals::of(Value::Str(s.clone())),
        _ => Vals::unknown(),
    }
}

/// The names a pattern declares, with the offsets that identify them.
fn collect_names<'a>(pattern: &BindingPattern<'a>, out: &mut Vec<(&'a str, u32)>) {
    match pattern {
        BindingPattern::BindingIdentifier(b) => out.push((b.name.as_str(), b.span.start)),
        BindingPattern::ObjectPattern(o) => {
            for p in &o.properties {
                collect_names(&p.value, out);
            }
            if let Some(r) = &o.rest {
                collect_names(&r.argument, out);
            }
        }
        BindingPattern::ArrayPattern(a) => {
            for p in a.elements.iter().flatten() {
                collect_names(p, out);
            }
            if let Some(r) = &a.rest {
                collect_names(&r.argument, out);
            }
        }
        BindingPattern::AssignmentPattern(a) => collect_names(&a.left, out),
    }
}

/// The `var`s of a function body and the function declarations in its
/// nested blocks, without entering nested functions or classes.
struct VarCollector<'a> {
    names: Vec<(&'a str, u32)>,
}

impl<'a> Visit<'a> for VarCollector<'a> {
    fn visit_variable_declaration(&mut self, it: &VariableDeclaration<'a>) {
        if it.kind.is_var() {
            for d in &it.declarations {
                collect_names(&d.id, &mut self.names);
            }
        }
        walk::walk_variable_declaration(self, it);
    }

    fn visit_function(&mut self, it: &Function<'a>, _flags: ScopeFlags) {
        if it.r#type == FunctionType::FunctionDeclaration
            && let Some(id) = &it.id
        {
            self.names.push((id.name.as_str(), id.span.start));
        }
    }

    fn visit_arrow_function_expression(&mut self, _it: &ArrowFunctionExpression<'a>) {}

    fn visit_class(&mut self, _it: &Class<'a>) {}
}
