//! The platform model: what the names a script reaches mean for requests,
//! one file per platform, apart from the walk that applies them.
//!
//! - [`language`]: ECMAScript's own objects (`Reflect`, `Promise`,
//!   `Object`, `eval`, a function's `call`/`apply`/`bind`);
//! - [`dom`]: the page: the global object, `document`, elements, markup,
//!   attributes and the properties that load, timers, `console`;
//! - [`navigation`]: `location`, `history`, the Navigation API,
//!   `window.open`;
//! - [`network`]: `fetch`, `XMLHttpRequest`, beacons, sockets, workers,
//!   caches, `import()`;
//! - [`libraries`]: axios and jQuery;
//! - [`playwright`]: Playwright's `page`, its context and request API, its
//!   actions (on the Playwright server);
//! - [`node`]: Node's module loaders (on the Playwright server).
//!
//! Each platform is a [`Platform`]: three tables of [`Row`]s, for the
//! global object's properties, for members of the known objects ([`Obj`]),
//! and for members of objects the analysis cannot name, judged by the name
//! alone. A row says what a name is: a [`Sink`] (a function that starts a
//! request, with its label, whether it loads code, what it returns), code
//! the analysis cannot see, a known object, a function with an [`Effect`]
//! of its own, or [`Def::Inert`], known to start nothing. A name in no row
//! is not known to the model: its lookup is `None`. No name is in two rows
//! of the same table that hold in the same environment (a test checks), so
//! the order of the platforms does not matter.
//!
//! # The policy
//!
//! 1. An operation whose effect the model does not know counts as a
//!    possible request: a call on a receiver the walk cannot name whose
//!    callback count it cannot know, a write to an unknown property of an
//!    object that may be an element, code the walk cannot see.
//! 2. Two possible requests, or one in a loop or in a callback called an
//!    unknown number of times, block, with the line and column and what was
//!    not known; code the walk cannot see blocks on its own (opaque).
//! 3. What the model knows to load nothing counts nothing.
//!
//! How the walk applies it, by rule:
//! - (1) A page's own handler called (`btn.onclick()`), an attribute in no
//!   list (`setAttribute('source', u)`, an attribute node's value), a
//!   DevTools command in no list, a write through a name the walk cannot
//!   read onto what may be an element: each one possible request.
//!   `this` is what each call gives (a page object in a callback), and a
//!   `.then` is a promise's only where no object of the script's may own it.
//! - (1) Opaque: `eval` and its kin, markup or CSS the walk cannot read put
//!   in the page (a `DOMParser` document's nodes among it), attribute
//!   nodes and commands it cannot read, code strings it cannot fold.
//! - (3) Known to load nothing: `Def::Inert` rows, the attributes and
//!   DevTools commands listed as inert, a style colour, text appended by
//!   the DOM's own `append`, an inert document until its nodes are put in
//!   the page; a style's CSS properties but for their `url(…)`s, a
//!   rectangle's or a style's `top` (a number, not a window), a text node's
//!   `data`, a form control's accessors (React's native `value` setter),
//!   an input, change, focus or key event dispatched or triggered (only a
//!   click activates), and an accumulator made by a literal that `reduce`
//!   hands back. Each beside a hostile row of `tests/fixtures/scripts.toml`
//!   that still counts, and checked with the ordinary corpus
//!   (`tests/fixtures/ordinary.toml`) in Chromium by `tests/chromium.rs`.
//! - (1) Text made at run time from what the analysis cannot read, or by
//!   a function it does not fold (`atob(x)`, `'…'.split('')`), may be any
//!   URL: a script that makes a request beside it is paced against every
//!   known site ([`TextOp`]); known input folds to its text and its site.
//! - (1) A function value handed to jQuery's `attr`, `prop` or `css` is
//!   called for each matched element: once per element (one value set on
//!   all of them is one fetch). A route's handler runs for every request
//!   it matches: what `route.fulfill`'s markup loads repeats.
//! - (1) A hole in markup built at run time counts where it can hold code
//!   or markup (a tag or attribute name, after `=` unquoted, a handler, a
//!   live script, a frame's URL); where text or a quoted value goes it
//!   holds text read at run time, unless the script holds elsewhere a
//!   string that loads as markup (which could reach it).
//! - (3) Scripts inserted by the fragment parser (`innerHTML`) do not run;
//!   a link's `javascript:` URL runs on a click, so it counts only beside a
//!   request of the script's own; Playwright's input actions of one call
//!   are one possible request together, as one `browser_fill_form` is.
//! - (1) A member of page data (an element, a list, the global object,
//!   `document`, a known object) whose name is in no table is
//!   `Value::Unlisted`: calling it, constructing it, or handing it to a
//!   method that calls back ([`calls_back`]) is a possible request each
//!   time; reading it is page data. A write to a property in no list on
//!   what may be an element is one too (`dom::assigned_element`), unless
//!   the element's tag is known and loads nothing whatever its attributes
//!   (a link, a cell). A scroll is one: lazy and infinite-scroll pages load
//!   as they scroll.
//! - (1) A name the language's collections share with a page's client,
//!   store or router (`get`, `set`, `next`, `push`: [`page_verb`]) called
//!   on page data the model cannot name is the page's own method
//!   (`window.api.get(u)`); a page's method the script stores in an object
//!   of its own and calls back from there (`o.f = el.loadMore; o.f()`)
//!   counts each call, however it comes out: read out, destructured, given
//!   to the array's callbacks ([`gives_items`], a `for … of`); so do the
//!   items of a page's own list (`window.handlers.forEach(h => h())`).
//! - (3) What ordinary scripts call that loads nothing is in the inert
//!   tables of [`inert`] (`getAttribute`, `closest`, `rows.map`, `Intl`,
//!   `console`, Playwright's reads); queries give elements of the tag their
//!   selector names ([`selected_tag`]), which lists of them keep.
//!
//! The walk names no API: where it needs a platform fact (which methods
//! call their callbacks once, which properties load, what an attribute
//! does) it asks a function here.

use super::Env;
use crate::names::{Names, names};

mod dom;
mod index;
mod inert;
mod language;
mod libraries;
pub(super) mod markup;
mod navigation;
mod network;
mod node;
mod playwright;

#[cfg(test)]
mod tests;

/// What a sink runs at the URL it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Loads {
    /// Nothing (an image, a navigation): only `javascript:` URLs run code.
    No,
    /// A frame or a script element: `data:` and `blob:` URLs run the
    /// script's own code.
    FromMadeUrls,
    /// A worker or an import: so does any URL the analysis cannot read.
    Always,
}

/// What calling a sink gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Returns {
    /// Page data; a new object the script made when constructed with `new`.
    Data,
    /// A window (`window.open`): the global object of another page.
    Window,
}

/// A function that starts one request each time it is called or
/// constructed.
#[derive(Debug, Eq)]
pub(super) struct Sink {
    /// How the model reads it: "`fetch`".
    pub(super) label: &'static str,
    /// What it runs at the URL of its first argument.
    pub(super) loads: Loads,
    /// What the call gives.
    pub(super) returns: Returns,
    /// An input action (Playwright's `fill`): those of one call count as
    /// one possible request together, as `browser_fill_form`'s fields do.
    pub(super) input: bool,
}

impl PartialEq for Sink {
    /// The same row, or rows alike: the walk compares values often, and
    /// most comparisons of sinks are of one row with itself.
    fn eq(&self, other: &Sink) -> bool {
        std::ptr::eq(self, other)
            || (self.label == other.label
                && self.loads == other.loads
                && self.returns == other.returns
                && self.input == other.input)
    }
}

/// A sink, for a row: `sink!("`fetch`")`, with `loads Always` or `returns
/// Window` where the defaults (`Loads::No`, `Returns::Data`) do not hold.
macro_rules! sink {
    ($label:literal, input) => {
        &Sink {
            label: $label,
            loads: Loads::No,
            returns: Returns::Data,
            input: true,
        }
    };
    ($label:literal) => {
        sink!($label, loads No, returns Data)
    };
    ($label:literal, loads $loads:ident) => {
        sink!($label, loads $loads, returns Data)
    };
    ($label:literal, returns $returns:ident) => {
        sink!($label, loads No, returns $returns)
    };
    ($label:literal, loads $loads:ident, returns $returns:ident) => {
        &Sink {
            label: $label,
            loads: Loads::$loads,
            returns: Returns::$returns,
            input: false,
        }
    };
}
use sink;

/// Browser, library and Playwright objects that lead to requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Obj {
    Location,
    Document,
    Navigator,
    ServiceWorkers,
    History,
    Navigation,
    Caches,
    Xhr,
    Reflect,
    Promise,
    /// `Object`, for `Object.assign`.
    Object,
    /// `URL`, for `URL.createObjectURL`.
    Url,
    Axios,
    JQuery,
    Page,
    BrowserContext,
    ApiRequest,
    /// An element's `attributes`: each member an attribute node.
    Attributes,
    /// A service worker registration's `backgroundFetch`.
    BackgroundFetch,
    /// Playwright's `page.mouse`.
    Mouse,
    /// Playwright's `page.keyboard`.
    Keyboard,
    /// An element's `style` or a computed style: CSS, whose `url(…)`s are
    /// counted where they are written.
    Style,
    /// What `getBoundingClientRect` gives: numbers (its `top` is no window).
    Rect,
    /// A `new FontFace(family, source)`, whose source's `url(…)`s are
    /// counted where it is made: its `load` is that request.
    FontFace,
    /// A text node: its `data` is text, not an `<object>`'s URL.
    Text,
    /// A `TreeWalker` or `NodeIterator` that shows text nodes only.
    TextWalker,
    /// What `getClientRects` gives: a list of rectangles.
    Rects,
    /// An object whose every property is a string of the page's: an
    /// element's `dataset`, `localStorage`: writing one loads nothing.
    Strings,
}

/// Known functions whose effect depends on their arguments; the walk
/// applies each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Effect {
    /// Gives this known object (`new XMLHttpRequest()`, `caches.open(name)`,
    /// `page.context()`).
    Returns(Obj),
    /// An element of the tag in argument `.0` (`document.createElement(tag)`,
    /// `createElementNS(ns, tag)`, whose namespace is a name, not a site).
    CreatesElement(usize),
    /// An attribute node named by argument `.0` (`createAttribute(name)`,
    /// `getAttributeNode(name)`; `usize::MAX`: a name not given).
    CreatesAttribute(usize),
    /// Puts the attribute node in argument 0 on the element
    /// (`setAttributeNode`), named `.0`.
    SetsAttributeNode(&'static str),
    /// An element of this tag (`new Image()`); with arguments, the sink
    /// starts (`new Audio(url)`).
    NewElement(&'static str, Option<&'static Sink>),
    /// Inserts the markup at argument `.1` and after, named `.0`.
    Markup(&'static str, usize),
    /// Sets the attribute named at argument `name_at` to the value after
    /// it; `what` names the function in messages.
    SetsAttribute { what: &'static str, name_at: usize },
    /// Runs a function later, or a string as code (`setTimeout`).
    Timer(&'static str),
    /// The sink once per argument, each a URL of code (`importScripts`);
    /// the last word names what is loaded.
    LoadsEachArgument(&'static Sink, &'static str),
    /// The sink once per element of a list argument (`cache.addAll(urls)`,
    /// `backgroundFetch.fetch(id, urls)`); a string there is one.
    LoadsEachListed(&'static Listed),
    /// Inserts each argument, named `.0`: markup when it is a string
    /// (jQuery's `append`, `$(…)`), a node otherwise; with `.1`, a value
    /// the analysis cannot read is markup too (`html(x)`).
    InsertsContent(&'static str, bool),
    /// With at least `.0` arguments the sink starts; with fewer it gives
    /// the object (`document.open`).
    OpensWith(usize, &'static Sink, Obj),
    /// Calls (or constructs) argument 0 once (`Reflect.apply`); `how`
    /// completes "… at 1:10" for the other arguments, which escape.
    CallsArgument { construct: bool, how: &'static str },
    /// Reads member argument 1 of argument 0 (`Reflect.get`).
    GetsMember,
    /// Assigns argument 2 to member argument 1 of argument 0
    /// (`Reflect.set`).
    SetsMember,
    /// The function (or string of code) at this argument runs once in the
    /// page (Playwright's `evaluate`).
    RunsInPage(usize),
    /// Argument 0 runs in every page the context loads (`addInitScript`).
    RunsInEveryPage,
    /// The function (or string of code) at this argument runs in the page
    /// again and again until it gives a true value (`waitForFunction`).
    PollsInPage(usize),
    /// A DevTools protocol command, named in argument 0 with its
    /// parameters in argument 1 (a CDP session's `send`); a `send` of
    /// anything else is this sink.
    Devtools(&'static Sink),
    /// Copies the properties of arguments 1… onto argument 0, as if
    /// assigned (`Object.assign`).
    CopiesProperties(&'static str),
    /// Sets properties of page objects: `(name, value)` or an object of
    /// them (jQuery's `attr`).
    SetsProperties(&'static str),
    /// Gives a `blob:` URL to data the script made (`URL.createObjectURL`).
    MakesBlobUrl,
    /// Parses markup into an inert document (`DOMParser`): literal markup
    /// is parsed to be inserted, and counts.
    ParsesMarkup(&'static str),
    /// Runs the command named in argument 0 (`execCommand`).
    Commands(&'static Commands),
    /// Starts nothing: a promise's `resolve` and `reject`.
    Nothing,
    /// Dispatches the event at argument 0: the sink, unless the event is
    /// made there as one whose default action loads nothing
    /// ([`inert_event`]: `new Event('input')`), or named by such a type
    /// (jQuery's `trigger('input')`).
    Dispatches(&'static Sink),
    /// The descriptor of property argument 1 of argument 0
    /// (`Object.getOwnPropertyDescriptor`): page data when the property's
    /// accessors are known to load nothing ([`inert_accessor`]), else code
    /// the analysis cannot see, so named (a `src` setter loads).
    DescribesProperty(&'static str),
    /// Calls argument 0 any number of times, its first argument argument 1
    /// or what the last call returned (`reduce`'s accumulator).
    Accumulates,
    /// The CSS at argument `.0` loads its `url(…)`s; gives `.1` (`new
    /// FontFace(family, source)`).
    CssThen(usize, Obj),
    /// The elements that match the CSS selector at argument `.0`
    /// (`querySelectorAll('table a')`): elements of one tag when the
    /// selector names it ([`selected_tag`]), else page data.
    Selects(usize),
    /// A walker over nodes (`createTreeWalker(root, whatToShow)`): `.0` when
    /// argument 1 shows text only ([`text_only_filter`]), else page data.
    WalksNodes(Obj),
    /// Answers a routed request with a response of the script's (Playwright's
    /// `route.fulfill(options)`): a document when its type is markup, which
    /// loads what its markup names each time it answers a navigation.
    Fulfills,
    /// Sets CSS properties of page elements: `(name, value)` or an object
    /// of them (jQuery's `css`), a value a function called for each.
    SetsStyle,
    /// Makes text from its receiver and arguments ([`TextOp`]): folded
    /// where they are known, so a URL spelled so still names its site.
    Text(TextOp),
}

/// How a function makes text (`String.prototype.concat`, `atob`, a known
/// string's own methods). Text it makes from what the analysis cannot read,
/// or that it does not fold, may be any URL: a script that makes a request
/// beside it is paced against every known site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextOp {
    /// The receiver, then each argument (`concat`, also through `.call`
    /// and `.apply`).
    Concat,
    /// Decodes its argument, or its arguments' character codes.
    Decodes(Decoding),
    /// A method of a known string (`toLowerCase`, `split`, `replace`),
    /// named where it is called.
    Method,
}

/// What a decoder reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decoding {
    /// `atob`: base64, each byte a character.
    Base64,
    /// `decodeURIComponent`: every `%XX`, as UTF-8.
    Component,
    /// `decodeURI`: the `%XX` of characters that are not reserved in a URL.
    Uri,
    /// `unescape`: `%XX` and `%uXXXX`.
    Unescape,
    /// `String.fromCharCode`: UTF-16 code units.
    CharCodes,
    /// `String.fromCodePoint`: code points.
    CodePoints,
}

/// A list of requests in one argument, behind a reference to keep
/// [`Effect`] small.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Listed {
    /// What starts them.
    pub(super) sink: &'static Sink,
    /// What they are, in messages: "URLs".
    pub(super) things: &'static str,
    /// The argument that lists them.
    pub(super) at: usize,
}

/// Commands run by name (`execCommand('insertHTML', _, html)`), behind a
/// reference to keep [`Effect`], and so every value, small.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Commands {
    /// The function, in messages.
    pub(super) what: &'static str,
    /// The commands that insert markup: the name (lower case), the markup's
    /// argument, and how the model reads it.
    pub(super) markup: &'static [(&'static str, usize, &'static str)],
}

/// What a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Def {
    /// The global object: `window`, `top`, a frame's `contentWindow`.
    Global,
    /// A known object.
    Obj(Obj),
    /// A function that starts a request.
    Sink(&'static Sink),
    /// A function that runs code the analysis cannot see, as the model
    /// reads it (`` `eval` ``).
    Opaque(&'static str),
    /// A function with an effect of its own.
    Effect(Effect),
    /// Known to start nothing.
    Inert,
}

/// One row of a table: the names it holds for, the environment it holds in
/// (`None`: both), and what they are.
pub(super) struct Row(pub(super) Names, pub(super) Option<Env>, pub(super) Def);

/// Only in a page.
const PAGE: Option<Env> = Some(Env::Page);
/// Only on the Playwright server.
const SERVER: Option<Env> = Some(Env::PlaywrightServer);
/// In both.
const ANYWHERE: Option<Env> = None;

/// What one platform knows.
pub(super) struct Platform {
    /// Properties of the global object.
    globals: &'static [Row],
    /// Members of the known objects.
    members: &'static [(Obj, Row)],
    /// Members of any object the analysis cannot name (page data, an
    /// element, a parameter), by name alone.
    any: &'static [Row],
}

const PLATFORMS: &[&Platform] = &[
    &language::PLATFORM,
    &dom::PLATFORM,
    &navigation::PLATFORM,
    &network::PLATFORM,
    &libraries::PLATFORM,
    &playwright::PLATFORM,
    &node::PLATFORM,
    &inert::PLATFORM,
];

/// The slot of `env` in a pair by environment (`Env::Page`, then
/// `Env::PlaywrightServer`).
const fn slot(env: Env) -> usize {
    match env {
        Env::Page => 0,
        Env::PlaywrightServer => 1,
    }
}

use index::{Index, Table, capacity, count};

static GLOBAL_NAMES: Index<{ capacity(count(Table::Globals)) }> = Index::build(Table::Globals);
static MEMBER_NAMES: Index<{ capacity(count(Table::Members)) }> = Index::build(Table::Members);
static ANY_NAMES: Index<{ capacity(count(Table::Any)) }> = Index::build(Table::Any);

/// A set of names that may be in a table, two bits each ([`slots`]): most names
/// a script reads are in no table (`length`, `textContent`, `map`), and the
/// filter turns them away without scanning the tables, which a match over
/// the names did as fast.
struct Filter([u64; WORDS]);

/// Where `name` falls in a [`Filter`]: two bits, from its length and its
/// first three and last two bytes, mixed. Of the 1,700 names of the
/// benchmark's scripts and the fixture table that are in no table, 3 pass
/// the filter of `any`.
#[inline]
const fn slots(name: &[u8]) -> (usize, usize) {
    const fn at(name: &[u8], i: usize) -> u64 {
        if i < name.len() { name[i] as u64 } else { 0 }
    }
    let n = name.len();
    let h = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ at(name, 0).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ at(name, 1).wrapping_mul(0x1656_67B1_9E37_79F9)
        ^ at(name, 2).wrapping_mul(0x27D4_EB2F_1656_67C5)
        ^ at(name, n.wrapping_sub(2)).wrapping_mul(0xFF51_AFD7_ED55_8CCD)
        ^ at(name, n.wrapping_sub(1)).wrapping_mul(0x85EB_CA77_C2B2_AE63);
    let bits = 64 * WORDS as u64;
    (((h >> 40) % bits) as usize, ((h >> 20) % bits) as usize)
}

/// The size of a [`Filter`], in 64-bit words.
const WORDS: usize = 64;

impl Filter {
    /// The filter of `table` over every platform, from the rows the index
    /// is built from.
    const fn of(table: Table) -> Filter {
        let mut bits = [0u64; WORDS];
        let mut p = 0;
        while p < PLATFORMS.len() {
            let mut r = 0;
            while r < index::rows_in(PLATFORMS[p], table) {
                let names = index::row_of(PLATFORMS[p], table, r).0.0;
                let (mut n, mut start) = (0, names.start());
                while n < names.len() {
                    let (name, next) = names.get_at(n, start);
                    let (a, b) = slots(name.as_bytes());
                    bits[a / 64] |= 1 << (a % 64);
                    bits[b / 64] |= 1 << (b % 64);
                    (n, start) = (n + 1, next);
                }
                r += 1;
            }
            p += 1;
        }
        Filter(bits)
    }

    #[inline]
    fn may_hold(&self, name: &str) -> bool {
        let (a, b) = slots(name.as_bytes());
        self.0[a / 64] & (1 << (a % 64)) != 0 && self.0[b / 64] & (1 << (b % 64)) != 0
    }
}

static GLOBALS: Filter = Filter::of(Table::Globals);
static MEMBERS: Filter = Filter::of(Table::Members);
static ANY: Filter = Filter::of(Table::Any);

/// The global object's property `name`, where the code runs in `env`.
/// (The filter is inlined where the walk looks a name up, the scan not.)
#[inline]
pub(super) fn global(name: &str, env: Env) -> Option<Def> {
    if !GLOBALS.may_hold(name) {
        return None;
    }
    scan_globals(name, env)
}

#[inline(never)]
fn scan_globals(name: &str, env: Env) -> Option<Def> {
    GLOBAL_NAMES.get(Table::Globals, None, name, env)
}

/// Member `name` of the known object `obj`; `None` when the object has no
/// row for it and the name alone decides ([`by_name`]).
#[inline]
pub(super) fn member(obj: Obj, name: &str, env: Env) -> Option<Def> {
    if !MEMBERS.may_hold(name) {
        return None;
    }
    scan_members(obj, name, env)
}

#[inline(never)]
fn scan_members(obj: Obj, name: &str, env: Env) -> Option<Def> {
    MEMBER_NAMES.get(Table::Members, Some(obj), name, env)
}

/// Member `name` of an object the analysis cannot name, judged by the name
/// alone.
#[inline]
pub(super) fn by_name(name: &str, env: Env) -> Option<Def> {
    if !ANY.may_hold(name) {
        return None;
    }
    scan_any(name, env)
}

#[inline(never)]
fn scan_any(name: &str, env: Env) -> Option<Def> {
    ANY_NAMES.get(Table::Any, None, name, env)
}

/// The arguments the platform gives the script's function when it is sent
/// as one: Playwright's `page` first on its server.
pub(super) fn first_argument(env: Env) -> Option<Def> {
    playwright::first_argument(env)
}

/// Member `name` of an object made by a literal.
pub(super) fn plain_member(name: &str) -> Option<Def> {
    language::plain_member(name)
}

/// How the model reads a known object's name.
pub(super) fn obj_name(obj: Obj) -> &'static str {
    match obj {
        Obj::Location => "`location`",
        Obj::Document => "`document`",
        Obj::Navigator => "`navigator`",
        Obj::ServiceWorkers => "`navigator.serviceWorker`",
        Obj::History => "`history`",
        Obj::Navigation => "`navigation`",
        Obj::Caches => "`caches`",
        Obj::Xhr => "an `XMLHttpRequest`",
        Obj::Reflect => "`Reflect`",
        Obj::Promise => "`Promise`",
        Obj::Object => "`Object`",
        Obj::Url => "`URL`",
        Obj::Axios => "`axios`",
        Obj::JQuery => "`jQuery`",
        Obj::Page => "`page`",
        Obj::BrowserContext => "a browser context",
        Obj::ApiRequest => "`request`",
        Obj::Attributes => "an element's `attributes`",
        Obj::BackgroundFetch => "`backgroundFetch`",
        Obj::Mouse => "`page.mouse`",
        Obj::Keyboard => "`page.keyboard`",
        Obj::Style => "a style",
        Obj::Rect => "a rectangle",
        Obj::FontFace => "a `FontFace`",
        Obj::Text => "a text node",
        Obj::TextWalker => "a walker over text nodes",
        Obj::Rects => "a list of rectangles",
        Obj::Strings => "an element's `dataset` or storage",
    }
}

/// Objects whose methods start requests and which code the analysis does
/// not see could call, if handed one (`History.prototype.back.call(history)`).
/// `document` is handed to page functions too often (`document.evaluate(x,
/// document)`) and its requests go through markup and elements, which are
/// counted where they are made; Playwright's objects are handed to helpers.
pub(super) fn unsafe_to_hand_over(obj: Obj) -> bool {
    matches!(
        obj,
        Obj::Location
            | Obj::Navigator
            | Obj::ServiceWorkers
            | Obj::History
            | Obj::Navigation
            | Obj::Caches
            | Obj::Xhr
    )
}

/// Objects that can reach a request: a computed member of one with a key the
/// analysis cannot read is opaque.
pub(super) fn reaches_requests(obj: Obj) -> bool {
    !matches!(
        obj,
        Obj::Promise
            | Obj::Object
            | Obj::Url
            | Obj::Style
            | Obj::Rect
            | Obj::Rects
            | Obj::Text
            | Obj::Strings
    )
}

/// What the indexed members of a known list are (`rects[0]`).
pub(super) fn item_of(obj: Obj) -> Option<Obj> {
    dom::item_of(obj)
}

/// The sink that calling the object itself starts (`axios(config)`; its
/// argument is a request's settings, not a URL).
pub(super) fn called(obj: Obj) -> Option<&'static Sink> {
    libraries::called(obj)
}

/// What calling the object itself does, when it is not a sink (`$(markup)`).
pub(super) fn called_effect(obj: Obj) -> Option<Effect> {
    libraries::called_effect(obj)
}

/// Whether constructing the object runs its first argument once, handing
/// it functions that start nothing (`new Promise(executor)`).
pub(super) fn runs_executor(obj: Obj) -> bool {
    language::runs_executor(obj)
}

/// Methods of any object that call each function given them once, with the
/// object (a promise's `then`, `catch`, `finally`).
pub(super) fn calls_back_once(name: &str) -> bool {
    language::calls_back_once(name)
}

/// Methods that call the functions handed to them (`forEach`, `then`,
/// `requestAnimationFrame`).
pub(super) fn calls_back(name: &str) -> bool {
    inert::calls_back(name)
}

/// Whether a call of `name` on page data the model cannot name may be the
/// page's own request (`api.get(u)`), though the name is a collection's.
pub(super) fn page_verb(name: &str) -> bool {
    inert::page_verb(name)
}

/// Whether a call of `name` may give the items of the array or object it
/// is handed or called on (`Object.values(o)`, `fs.at(0)`).
pub(super) fn gives_items(name: &str) -> bool {
    inert::gives_items(name)
}

/// Whether `new` of `name` makes a collection of the script's own
/// (`new Map()`).
pub(super) fn makes_collection(name: &str) -> bool {
    inert::makes_collection(name)
}

/// Whether a callback of `name` is given the item second (`reduce`).
pub(super) fn reduces(name: &str) -> bool {
    language::accumulates(name)
}

/// Functions to which the global object may be passed safely: they only
/// read its keys or print it.
pub(super) fn reads_only(name: &str) -> bool {
    language::reads_only(name) || dom::reads_only(name) || libraries::wraps(name)
}

/// An object literal's key under which the global object is handed over
/// safely (`{ view: window }`, how events are made).
pub(super) fn window_key(name: &str) -> bool {
    dom::window_key(name)
}

pub(super) use dom::{
    Assigned, Attribute, PAGE_HANDLER, assigned_element, assigned_member, attribute,
    inert_accessor, inert_event, inserts_children, inserts_markup, inserts_nodes, is_attribute_map,
    is_event_handler, is_frame_index, is_page_handler, iterates_elements, keeps_elements,
    loads_document, namespace_at, selected_tag, sets_attribute_value, text_is_code,
    text_only_filter, url_assigned,
};
pub(super) use language::{
    Builder, FnMember, Given, UNDEFINED, decode, fold_method, function_member, is_callee,
    is_constructor, string_builder, string_member,
};
pub(super) use libraries::style_may_load;
pub(super) use markup::{fragment_parsed, markup_continues};
pub(super) use navigation::{assigned_global, assigned_obj};
pub(super) use network::IMPORT;
pub(super) use node::{MODULE_IMPORT, imports_modules};
pub(super) use playwright::{Devtools, devtools, markup_file};
