//! What an expression can evaluate to, as far as requests go, and what the
//! browser's and Playwright's objects hold under each name.
//!
//! Values are tracked only where they matter: the global object, the
//! functions that start requests, the objects that reach them (`location`,
//! `navigator`, an `XMLHttpRequest`, Playwright's `page`), the script's own
//! functions, and strings whose text is known. Everything else is
//! [`Value::Unknown`]: page data, whose methods are the page's business —
//! except that a method with a request's name (`send`, `click`, `submit`, …)
//! is taken to be one on any object the analysis cannot name, so an alias it
//! lost track of still counts.

use super::Env;

/// One thing an expression may evaluate to.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    /// Page data or anything else the analysis does not follow.
    Unknown,
    /// A member read through a key the analysis could not fold (`obj[k]`):
    /// possibly any method, so calling it is opaque.
    Dyn,
    /// More possible values than the analysis keeps: treated as anything.
    Any,
    /// A string whose text is known.
    Str(String),
    /// The global object: `window`, `self`, `globalThis`, `top`, `frames[0]`…
    Global,
    /// An object made by a literal (`{}`, `[]`): nothing of the page behind it.
    Plain,
    /// An element the script created, by tag (`""` when the tag is unknown).
    Element(String),
    /// A known object of the browser or of Playwright.
    Obj(Obj),
    /// A function that starts one request each time it is called or
    /// constructed, named as the model reads it (`` `fetch` ``).
    Sink(&'static str),
    /// A function that runs code the analysis cannot see (`` `eval` ``).
    Opaque(&'static str),
    /// A known function with a rule of its own.
    Special(Special),
    /// A function of the script, by the offset where it starts.
    Func(u32),
    /// `f.call` or `f.apply`: calling it calls `f` once.
    Via(Box<Value>),
    /// `f.bind`: calling it gives `f` back.
    BindOf(Box<Value>),
    /// The `arguments` object of the function at this offset.
    Arguments(u32),
}

/// Browser and Playwright objects that lead to requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

/// Known functions whose effect depends on their arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Special {
    /// `new XMLHttpRequest()`: an object, no request until `send`.
    XhrCtor,
    /// `document.createElement(tag)`.
    CreateElement,
    /// `new Image()`, `new Audio()`: an element of this tag.
    NewElement(&'static str),
    /// `document.write(html)`, `insertAdjacentHTML(pos, html)`,
    /// `setHTMLUnsafe(html)`, `createContextualFragment(html)`: markup at
    /// argument `.0`.
    Markup(&'static str, usize),
    /// `setAttribute(name, value)`.
    SetAttribute,
    /// `setTimeout` / `setInterval`: a function runs later, a string is eval.
    Timer(&'static str),
    /// `importScripts(a, b, …)`: one request per argument.
    ImportScripts,
    /// `cache.addAll([a, b, …])`: one request per URL.
    CacheAddAll,
    /// `caches.open(name)`: a cache.
    CachesOpen,
    /// `document.open(url, name, features)`: `window.open` with three arguments.
    DocumentOpen,
    /// `Reflect.apply(f, this, args)`: calls `f` once.
    ReflectApply,
    /// `Reflect.construct(f, args)`: constructs `f` once.
    ReflectConstruct,
    /// `Reflect.get(obj, key)`: reads `obj[key]`.
    ReflectGet,
    /// `axios.create()`: another axios.
    AxiosCreate,
    /// Playwright's `evaluate` family: the function (or string) at argument
    /// `.0` runs once in the page.
    Evaluate(usize),
    /// Playwright's `addInitScript`: runs in every page the context loads.
    InitScript,
    /// `Object.assign(target, …sources)`: copies properties, `src` too.
    ObjectAssign,
    /// jQuery's `attr` / `prop`: `attr('src', u)` or `attr({ src: u })`.
    Attr,
    /// `Reflect.set(obj, key, value)`: assigns.
    ReflectSet,
    /// `URL.createObjectURL(blob)`: a `blob:` URL to code or data the
    /// script made.
    BlobUrl,
    /// `document.execCommand('insertHTML', _, html)`.
    ExecCommand,
    /// `DOMParser`'s `parseFromString(html)`: an inert document, whose
    /// nodes load once moved into the page.
    ParseHtml,
    /// A function the platform hands the script that starts nothing: a
    /// promise's `resolve` and `reject`.
    Resolve,
    /// A method returning this known object (`page.context()`,
    /// `context.newPage()`).
    Returns(Obj),
}

/// Values an expression may have. The empty set is "no value yet": a
/// variable nothing has been assigned to (`undefined`), or a parameter no
/// call has reached. Values from outside the analysis are explicit
/// [`Value::Unknown`]s, so sets only grow as the analysis learns.
///
/// The flag is set once the set has dropped its known strings for
/// [`Value::Unknown`] (past [`CAP`]); from then on a known string added is
/// that `Unknown`. Without it, a variable assigned more than [`CAP`] strings
/// dropped them, grew again with the next round's, dropped them again, and
/// never settled, so the analysis gave up on it.
#[derive(Debug, Clone, Default)]
pub(super) struct Vals(Small, bool);

impl PartialEq for Vals {
    fn eq(&self, other: &Vals) -> bool {
        self.0.as_slice() == other.0.as_slice()
    }
}

/// The values of a set, kept inline while there is at most one: most sets
/// hold one value (page data, a known object), and a set is cloned on every
/// read of a variable. In a `Vec` each of those was an allocation, a fifth
/// of the analysis of a 10 KB script (callgrind).
#[derive(Debug, Clone, Default)]
enum Small {
    #[default]
    Empty,
    One(Value),
    Many(Vec<Value>),
}

impl Small {
    fn as_slice(&self) -> &[Value] {
        match self {
            Small::Empty => &[],
            Small::One(v) => std::slice::from_ref(v),
            Small::Many(vs) => vs,
        }
    }

    fn push(&mut self, v: Value) {
        *self = match std::mem::take(self) {
            Small::Empty => Small::One(v),
            Small::One(a) => Small::Many(vec![a, v]),
            Small::Many(mut vs) => {
                vs.push(v);
                Small::Many(vs)
            }
        };
    }

    fn retain(&mut self, keep: impl Fn(&Value) -> bool) {
        match self {
            Small::Empty => {}
            Small::One(v) => {
                if !keep(v) {
                    *self = Small::Empty;
                }
            }
            Small::Many(vs) => vs.retain(|v| keep(v)),
        }
    }

    fn contains(&self, v: &Value) -> bool {
        self.as_slice().contains(v)
    }

    fn len(&self) -> usize {
        self.as_slice().len()
    }
}

/// How many values a set keeps before it gives up and holds [`Value::Any`].
const CAP: usize = 16;

impl Vals {
    /// No value.
    pub(super) fn none() -> Vals {
        Vals(Small::Empty, false)
    }

    /// A value from outside the analysis.
    pub(super) fn unknown() -> Vals {
        Vals::of(Value::Unknown)
    }

    /// Exactly `v`.
    pub(super) fn of(v: Value) -> Vals {
        Vals(Small::One(v), false)
    }

    /// The values.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Value> {
        self.0.as_slice().iter()
    }

    /// Add `v`; true if the set grew. Past [`CAP`] known strings are
    /// dropped first (they start nothing), then everything becomes
    /// [`Value::Any`].
    pub(super) fn add(&mut self, v: Value) -> bool {
        let v = if self.1 && matches!(v, Value::Str(_)) {
            Value::Unknown
        } else {
            v
        };
        if self.0.contains(&v) || self.0.contains(&Value::Any) {
            return false;
        }
        if self.0.len() >= CAP {
            let before = self.0.len();
            self.0.retain(|x| !matches!(x, Value::Str(_)));
            if self.0.len() < before {
                self.1 = true;
                let grew = !self.0.contains(&Value::Unknown);
                if grew {
                    self.0.push(Value::Unknown);
                }
                return self.add(if matches!(v, Value::Str(_)) {
                    Value::Unknown
                } else {
                    v
                }) || grew;
            }
            self.0 = Small::One(Value::Any);
            return true;
        }
        self.0.push(v);
        true
    }

    /// Add every value of `other`; true if the set grew.
    pub(super) fn join(&mut self, other: &Vals) -> bool {
        let mut grew = false;
        for v in other.0.as_slice() {
            grew |= self.add(v.clone());
        }
        grew
    }

    /// The text, if this is one known string.
    pub(super) fn as_str(&self) -> Option<&str> {
        match self.0.as_slice() {
            [Value::Str(s)] => Some(s),
            _ => None,
        }
    }

    /// True if every value is a known string (and there is one at least).
    pub(super) fn all_strings(&self) -> bool {
        let vs = self.0.as_slice();
        !vs.is_empty() && vs.iter().all(|v| matches!(v, Value::Str(_)))
    }
}

/// The global object's property `name`.
pub(super) fn global(name: &str, env: Env) -> Option<Value> {
    use Value::*;
    Some(match name {
        "window" | "self" | "globalThis" | "top" | "parent" | "frames" | "opener" | "content" => {
            Global
        }
        "fetch" => Sink("`fetch`"),
        "fetchLater" => Sink("`fetchLater`"),
        "open" => Sink("`window.open`"),
        "WebSocket" => Sink("`new WebSocket`"),
        "EventSource" => Sink("`new EventSource`"),
        "Worker" => Sink("`new Worker`"),
        "SharedWorker" => Sink("`new SharedWorker`"),
        "XMLHttpRequest" => Special(self::Special::XhrCtor),
        "importScripts" => Special(self::Special::ImportScripts),
        "setTimeout" => Special(self::Special::Timer("`setTimeout`")),
        "setInterval" => Special(self::Special::Timer("`setInterval`")),
        "Image" => Special(self::Special::NewElement("img")),
        "Audio" => Special(self::Special::NewElement("audio")),
        "eval" => Opaque("`eval`"),
        "Function" => Opaque("`Function`"),
        "location" => Obj(self::Obj::Location),
        "document" => Obj(self::Obj::Document),
        "navigator" => Obj(self::Obj::Navigator),
        "history" => Obj(self::Obj::History),
        "navigation" => Obj(self::Obj::Navigation),
        "caches" => Obj(self::Obj::Caches),
        "Reflect" => Obj(self::Obj::Reflect),
        "Promise" => Obj(self::Obj::Promise),
        "Object" => Obj(self::Obj::Object),
        "URL" | "webkitURL" => Obj(self::Obj::Url),
        "axios" => Obj(self::Obj::Axios),
        "$" | "jQuery" => Obj(self::Obj::JQuery),
        "page" if env == Env::PlaywrightServer => Obj(self::Obj::Page),
        "context" if env == Env::PlaywrightServer => Obj(self::Obj::BrowserContext),
        "require" if env == Env::PlaywrightServer => Opaque("`require`"),
        "process" if env == Env::PlaywrightServer => Opaque("Node's `process`"),
        _ => return None,
    })
}

/// Member `name` of an object the analysis cannot name (page data, an
/// element, a parameter): judged by the name alone.
pub(super) fn by_name(name: &str, env: Env) -> Value {
    use Value::*;
    match name {
        "location" => Obj(self::Obj::Location),
        "document" | "ownerDocument" | "contentDocument" => Obj(self::Obj::Document),
        "defaultView" | "contentWindow" | "window" | "self" | "top" | "parent" | "opener"
        | "frames" | "globalThis" => Global,
        "navigator" => Obj(self::Obj::Navigator),
        "history" => Obj(self::Obj::History),
        "serviceWorker" => Obj(self::Obj::ServiceWorkers),
        "fetch" => Sink("`fetch`"),
        "fetchLater" => Sink("`fetchLater`"),
        "sendBeacon" => Sink("`navigator.sendBeacon`"),
        "send" => Sink("`XMLHttpRequest.send`"),
        "click" => Sink("`click`"),
        "submit" => Sink("`submit`"),
        "requestSubmit" => Sink("`requestSubmit`"),
        "dispatchEvent" => Sink("`dispatchEvent`"),
        "load" => Sink("`load`"),
        "getJSON" => Sink("`getJSON`"),
        "getScript" => Sink("`getScript`"),
        "ajax" => Sink("`ajax`"),
        "importScripts" => Special(self::Special::ImportScripts),
        "addAll" => Special(self::Special::CacheAddAll),
        "insertAdjacentHTML" => Special(self::Special::Markup("`insertAdjacentHTML`", 1)),
        "setHTMLUnsafe" => Special(self::Special::Markup("`setHTMLUnsafe`", 0)),
        "createContextualFragment" => {
            Special(self::Special::Markup("`createContextualFragment`", 0))
        }
        "setAttribute" | "setAttributeNS" => Special(self::Special::SetAttribute),
        // History's and the Navigation API's methods live on their
        // prototypes: `History.prototype.back.call(history)`.
        "back" => Sink("`history.back`"),
        "forward" => Sink("`history.forward`"),
        "go" => Sink("`history.go`"),
        "navigate" => Sink("`navigation.navigate`"),
        "traverseTo" => Sink("`navigation.traverseTo`"),
        "reload" => Sink("`reload`"),
        "write" | "writeln" if env == Env::Page => {
            Special(self::Special::Markup("`document.write`", 0))
        }
        "attr" | "prop" => Special(self::Special::Attr),
        "execCommand" => Special(self::Special::ExecCommand),
        "parseFromString" => Special(self::Special::ParseHtml),
        "__lookupSetter__" | "__lookupGetter__" => Opaque(DESCRIPTOR),
        // Node's ways to load a module or native code: `process.mainModule
        // .require`, `process.binding`.
        "require" | "binding" | "_linkedBinding" | "dlopen" if env == Env::PlaywrightServer => {
            Opaque("a Node module or binding")
        }
        _ if env == Env::PlaywrightServer => playwright_action(name).unwrap_or(Unknown),
        _ => Unknown,
    }
}

/// Playwright methods, on any object of the server side, that may make a
/// request: navigation, and actions that can submit a form or follow a link.
fn playwright_action(name: &str) -> Option<Value> {
    use Value::*;
    Some(match name {
        "goto" => Sink("`page.goto`"),
        "reload" => Sink("`page.reload`"),
        "goBack" => Sink("`page.goBack`"),
        "goForward" => Sink("`page.goForward`"),
        "dblclick" => Sink("`dblclick`"),
        "tap" => Sink("`tap`"),
        "fill" => Sink("`fill`"),
        "press" => Sink("`press`"),
        "pressSequentially" => Sink("`pressSequentially`"),
        "type" => Sink("`type`"),
        "insertText" => Sink("`insertText`"),
        "check" => Sink("`check`"),
        "uncheck" => Sink("`uncheck`"),
        "setChecked" => Sink("`setChecked`"),
        "selectOption" => Sink("`selectOption`"),
        "setInputFiles" => Sink("`setInputFiles`"),
        "dragTo" => Sink("`dragTo`"),
        "dragAndDrop" => Sink("`dragAndDrop`"),
        "setContent" => Special(self::Special::Markup("`page.setContent`", 0)),
        "addScriptTag" => Opaque("`page.addScriptTag`, whose script the analysis does not read"),
        "addStyleTag" => Sink("`page.addStyleTag`"),
        "waitForURL" | "waitForNavigation" | "waitForLoadState" => return None,
        "evaluate" | "evaluateAll" | "evaluateHandle" => Special(self::Special::Evaluate(0)),
        "$eval" | "$$eval" => Special(self::Special::Evaluate(1)),
        "addInitScript" => Special(self::Special::InitScript),
        "request" => Obj(self::Obj::ApiRequest),
        "context" => Special(self::Special::Returns(self::Obj::BrowserContext)),
        "newPage" | "mainFrame" | "page" => Special(self::Special::Returns(self::Obj::Page)),
        _ => return None,
    })
}

/// Member `name` of a known object; `None` when the object has no rule for
/// it and the name alone decides.
pub(super) fn member(obj: Obj, name: &str) -> Option<Value> {
    use Value::*;
    Some(match (obj, name) {
        (self::Obj::Location, "assign") => Sink("`location.assign`"),
        (self::Obj::Location, "replace") => Sink("`location.replace`"),
        (self::Obj::Location, "reload") => Sink("`location.reload`"),
        (self::Obj::Document, "location") => Obj(self::Obj::Location),
        (self::Obj::Document, "defaultView") => Global,
        (self::Obj::Document, "write" | "writeln") => {
            Special(self::Special::Markup("`document.write`", 0))
        }
        (self::Obj::Document, "createElement" | "createElementNS") => {
            Special(self::Special::CreateElement)
        }
        (self::Obj::Document, "open") => Special(self::Special::DocumentOpen),
        (self::Obj::Navigator, "sendBeacon") => Sink("`navigator.sendBeacon`"),
        (self::Obj::Navigator, "serviceWorker") => Obj(self::Obj::ServiceWorkers),
        (self::Obj::ServiceWorkers, "register") => Sink("`navigator.serviceWorker.register`"),
        (self::Obj::History, "back") => Sink("`history.back`"),
        (self::Obj::History, "forward") => Sink("`history.forward`"),
        (self::Obj::History, "go") => Sink("`history.go`"),
        (self::Obj::Navigation, "navigate") => Sink("`navigation.navigate`"),
        (self::Obj::Navigation, "reload") => Sink("`navigation.reload`"),
        (self::Obj::Navigation, "back") => Sink("`navigation.back`"),
        (self::Obj::Navigation, "forward") => Sink("`navigation.forward`"),
        (self::Obj::Navigation, "traverseTo") => Sink("`navigation.traverseTo`"),
        (self::Obj::Caches, "add") => Sink("`cache.add`"),
        (self::Obj::Caches, "open") => Special(self::Special::CachesOpen),
        (self::Obj::Xhr, "send") => Sink("`XMLHttpRequest.send`"),
        (self::Obj::Object, "assign") => Special(self::Special::ObjectAssign),
        (
            self::Obj::Object | self::Obj::Reflect,
            "getOwnPropertyDescriptor" | "getOwnPropertyDescriptors",
        ) => Opaque(DESCRIPTOR),
        (self::Obj::Reflect, "set") => Special(self::Special::ReflectSet),
        (self::Obj::Url, "createObjectURL") => Special(self::Special::BlobUrl),
        (self::Obj::Reflect, "apply") => Special(self::Special::ReflectApply),
        (self::Obj::Reflect, "construct") => Special(self::Special::ReflectConstruct),
        (self::Obj::Reflect, "get") => Special(self::Special::ReflectGet),
        (
            self::Obj::Axios,
            "request" | "get" | "delete" | "head" | "options" | "post" | "put" | "patch"
            | "postForm" | "putForm" | "patchForm",
        ) => Sink("`axios`"),
        (self::Obj::Axios, "create") => Special(self::Special::AxiosCreate),
        (self::Obj::JQuery, "get" | "post" | "ajax" | "getJSON" | "getScript" | "load") => {
            Sink("`jQuery` request")
        }
        (self::Obj::Page | self::Obj::BrowserContext, "request") => Obj(self::Obj::ApiRequest),
        (self::Obj::ApiRequest, "get" | "post" | "put" | "patch" | "delete" | "head" | "fetch") => {
            Sink("`request`")
        }
        (self::Obj::ApiRequest, "newContext") => {
            Special(self::Special::Returns(self::Obj::ApiRequest))
        }
        _ => return None,
    })
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
    !matches!(obj, Obj::Promise | Obj::Object | Obj::Url)
}

/// What reading a property's descriptor is, as the model reads it: the
/// setter it gives (`src`'s, say) starts requests the analysis cannot see.
const DESCRIPTOR: &str = "a property descriptor's getter or setter (such as `src`'s)";

/// Sinks that load code: given a `data:` or `blob:` URL, or one the analysis
/// cannot read, they run code it does not see.
pub(super) const LOADS_CODE: &[&str] = &[
    "`new Worker`",
    "`new SharedWorker`",
    "`navigator.serviceWorker.register`",
    "`importScripts`",
    "`import()`",
];

/// Tags whose `src` or `data` runs a document or script.
pub(super) const CODE_TAGS: &[&str] = &["script", "iframe", "frame", "embed", "object", ""];

/// Properties that make no request on an element of this tag, though they
/// would on others: a link's `href` waits for a click, a form's `action` for
/// a submit.
pub(super) fn inert_property(tag: &str, name: &str) -> bool {
    matches!(
        (tag, name),
        ("a" | "area" | "base", "href") | ("form", "action") | ("button" | "input", "formAction")
    )
}

/// Names of properties whose assignment makes an element load a URL.
pub(super) const URL_PROPERTIES: &[&str] = &[
    "src",
    "href",
    "action",
    "formAction",
    "data",
    "srcset",
    "poster",
    "background",
    "codebase",
    "ping",
];

/// `location`'s properties whose assignment navigates (`hash` does not).
pub(super) const LOCATION_PROPERTIES: &[&str] = &[
    "href", "search", "pathname", "host", "hostname", "port", "protocol",
];

/// Properties whose assignment inserts markup.
pub(super) const MARKUP_PROPERTIES: &[&str] = &["innerHTML", "outerHTML", "srcdoc"];

/// Properties whose assignment sets a script's code.
pub(super) const CODE_PROPERTIES: &[&str] = &["text", "textContent", "innerText"];

/// Functions to which the global object may be passed safely: they only read
/// its keys or print it.
pub(super) const READS_ONLY: &[&str] = &[
    "keys",
    "getOwnPropertyNames",
    "ownKeys",
    "log",
    "info",
    "warn",
    "error",
    "debug",
    "dir",
    "table",
    "stringify",
    "is",
    "isArray",
    "String",
    "Boolean",
];
