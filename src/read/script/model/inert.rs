//! What ordinary scripts call that loads nothing: the language's own
//! objects and methods, the DOM's reads and the state it changes without a
//! fetch, `console`, `performance`, storage, Playwright's reads. A method
//! or a global of page data in no row of any table counts as a possible
//! request (the policy in [`super`]); these rows are what keeps the
//! ordinary from counting.
//!
//! Not here, because they can load: a scroll (`scrollBy`, `scrollTo`,
//! `scrollIntoView`, a write to `scrollTop`: a lazy or infinite-scroll page
//! fetches as it comes into view, so one scroll is one possible request and
//! a loop of them blocks); `cloneNode` (a clone of an image fetches its
//! source); `animate` (keyframes may hold a `url(…)`); `hover` on the
//! Playwright server (a page's handlers may prefetch); `defineProperty`
//! (it can set `src` on an element).

use super::*;

/// A scroll: a lazy-loading or infinite-scroll page loads as content comes
/// into view.
pub(super) const SCROLL: &Sink =
    sink!("a scroll (a lazy or infinite-scroll page loads as it scrolls)");

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        // ECMAScript's global functions and constructors (`Object`,
        // `Promise`, `Reflect` are known objects in `language`).
        Row(names![
            "parseInt", "parseFloat", "isNaN", "isFinite", "Number", "String", "Boolean", "Array",
            "JSON", "Math", "Date", "Intl", "RegExp", "Map", "Set", "WeakMap", "WeakSet", "WeakRef",
            "Symbol", "BigInt", "Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError",
            "AggregateError", "encodeURIComponent", "encodeURI",
            "escape", "structuredClone", "queueMicrotask", "Uint8Array", "Int8Array",
            "Uint16Array", "Int16Array", "Uint32Array", "Int32Array", "Float32Array", "Float64Array",
            "Uint8ClampedArray", "BigInt64Array", "BigUint64Array", "ArrayBuffer", "DataView",
            "TextEncoder", "TextDecoder", "Infinity", "NaN", "Proxy", "Atomics", "Iterator",
            "console", "performance", "clearTimeout", "clearInterval",
        ], ANYWHERE, Def::Inert),
        // The page's globals that read or print.
        Row(names![
            "alert", "confirm", "prompt", "requestAnimationFrame",
            "cancelAnimationFrame", "requestIdleCallback", "cancelIdleCallback", "btoa", "getSelection", "matchMedia", "innerWidth",
            "innerHeight", "outerWidth", "outerHeight", "scrollX", "scrollY", "pageXOffset",
            "pageYOffset", "devicePixelRatio", "screen", "crypto",
            "CSS", "Node", "Element", "HTMLElement", "HTMLInputElement", "HTMLTextAreaElement",
            "HTMLSelectElement", "HTMLAnchorElement", "HTMLImageElement", "HTMLFormElement",
            "HTMLButtonElement", "HTMLTableElement", "HTMLTableRowElement", "HTMLCollection",
            "NodeList", "Event", "CustomEvent", "MouseEvent", "KeyboardEvent", "InputEvent",
            "FocusEvent", "PointerEvent", "UIEvent", "NodeFilter", "XPathResult", "DOMParser",
            "MutationObserver", "IntersectionObserver", "ResizeObserver", "AbortController",
            "AbortSignal", "URLSearchParams", "FormData", "Headers", "Blob", "File", "FileReader",
            "DOMRect", "Range", "Selection", "customElements", "isSecureContext", "visualViewport",
            "Option", "name", "origin", "closed", "AudioContext", "OfflineAudioContext",
        ], PAGE, Def::Inert),
        Row(names!["scroll", "scrollTo", "scrollBy"], PAGE, Def::Sink(SCROLL)),
        Row(names!["localStorage", "sessionStorage"], PAGE, Def::Obj(Obj::Strings)),
    ],
    members: &[
        // An `XMLHttpRequest`'s set-up: its `send` is the request.
        // `history`'s entries of the same document.
        (Obj::History, Row(names!["pushState", "replaceState", "state", "length", "scrollRestoration"], ANYWHERE, Def::Inert)),
        (Obj::Xhr, Row(names!["open", "setRequestHeader", "getResponseHeader", "getAllResponseHeaders", "overrideMimeType", "abort"], ANYWHERE, Def::Inert)),
    ],
    any: &[
        // Arrays and iterators (`reduce` is an accumulator, `join` and
        // `concat` build strings: `language`).
        Row(names![
            "map", "filter", "forEach", "find", "findIndex", "findLast", "findLastIndex", "some",
            "every", "flat", "flatMap", "slice", "splice", "join", "includes", "indexOf",
            "lastIndexOf", "sort", "toSorted", "reverse", "toReversed", "toSpliced",
            "push", "pop", "shift", "unshift", "at", "entries", "keys", "values", "length",
            "from", "of", "isArray", "with", "next", "prototype",
        ], ANYWHERE, Def::Inert),
        // Strings, numbers, dates, regular expressions.
        Row(names![
            "trim", "trimStart", "trimEnd", "toLowerCase", "toUpperCase", "toLocaleLowerCase",
            "toLocaleUpperCase", "split", "replace", "replaceAll", "match", "matchAll", "search",
            "startsWith", "endsWith", "padStart", "padEnd", "repeat", "substring", "substr",
            "charAt", "charCodeAt", "codePointAt", "normalize", "localeCompare", "toString",
            "toLocaleString", "valueOf", "raw", "toFixed",
            "toPrecision", "toExponential", "isInteger", "isSafeInteger", "parseFloat", "parseInt",
            "test", "exec", "now", "getTime", "getFullYear", "getMonth", "getDate", "getDay",
            "getHours", "getMinutes", "getSeconds", "getMilliseconds", "getTimezoneOffset",
            "toISOString", "toLocaleDateString", "toLocaleTimeString", "toDateString",
            "toTimeString", "toUTCString", "toJSON", "setFullYear", "setMonth", "setDate",
            "setHours", "setMinutes", "setSeconds", "setMilliseconds", "setTime", "getUTCFullYear",
            "getUTCMonth", "getUTCDate", "getUTCDay", "getUTCHours", "getUTCMinutes", "UTC",
        ], ANYWHERE, Def::Inert),
        // `Object`, `JSON`, `Math`, `Intl`, `Promise`'s statics, `Map`,
        // `Set`, `Symbol`.
        Row(names![
            "fromEntries", "freeze", "isFrozen", "seal", "isSealed", "create", "getPrototypeOf",
            "hasOwn", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
            "getOwnPropertyNames", "getOwnPropertySymbols", "groupBy", "is", "parse", "stringify",
            "abs", "ceil", "floor", "round", "trunc", "max", "min", "pow", "sqrt", "cbrt", "random",
            "sign", "log", "log2", "log10", "exp", "hypot", "sin", "cos", "tan", "atan", "atan2",
            "PI", "NumberFormat", "DateTimeFormat", "RelativeTimeFormat", "PluralRules",
            "Collator", "ListFormat", "Segmenter", "DisplayNames", "format", "formatToParts",
            "formatRange", "resolvedOptions", "compare", "select", "segment", "all", "allSettled",
            "race", "any", "resolve", "reject", "withResolvers", "then", "catch", "finally", "get",
            "set", "has", "delete", "add", "clear", "size", "getAll", "iterator", "asyncIterator",
            "description",
        ], ANYWHERE, Def::Inert),
        // `console`, `performance`, storage, crypto, a clipboard, text
        // codecs, a response's body, streams.
        Row(names![
            "pipe", "pipeTo", "pipeThrough", "getReader", "getWriter", "releaseLock",
            "info", "warn", "error", "debug", "dir", "table", "group", "groupCollapsed", "groupEnd",
            "time", "timeEnd", "timeLog", "count", "trace", "assert", "mark", "measure",
            "getEntries", "getEntriesByType", "getEntriesByName", "getItem", "setItem",
            "removeItem", "key", "randomUUID", "getRandomValues", "digest", "writeText", "readText",
            "encode", "decode", "json", "text", "blob", "arrayBuffer", "formData", "clone",
        ], ANYWHERE, Def::Inert),
        // The DOM's reads: attributes, queries, geometry, the tree.
        Row(names![
            "getAttribute", "getAttributeNS", "getAttributeNames", "hasAttribute",
            "hasAttributeNS", "hasAttributes", "removeAttribute", "removeAttributeNS",
            "matches", "getElementById", "getElementsByClassName", "getElementsByName", "getRootNode",
            "contains", "compareDocumentPosition", "isEqualNode", "isSameNode", "hasChildNodes",
            "elementFromPoint", "elementsFromPoint", "snapshotItem", "iterateNext",
            "hasFocus", "getSelection", "getRangeAt", "createRange", "selectNodeContents",
            "selectNode", "setStart", "setEnd", "setStartBefore", "setStartAfter", "setEndBefore",
            "setEndAfter", "collapse", "removeAllRanges", "addRange", "getPropertyValue",
            "getPropertyPriority", "textContent", "innerText", "classList", "item",
            "namedItem", "toggle", "supports", "escape", "checkVisibility",
        ], ANYWHERE, Def::Inert),
        // The DOM's changes that fetch nothing: state, focus, selection,
        // events, observers, nodes moved or made (an element a script
        // creates counts where its URL or markup is set).
        Row(names![
            "focus", "blur", "setSelectionRange", "setRangeText", "checkValidity",
            "reportValidity", "setCustomValidity", "showPicker", "reset", "remove", "removeChild",
            "toggleAttribute", "setProperty", "removeProperty", "addEventListener",
            "removeEventListener", "preventDefault", "stopPropagation", "stopImmediatePropagation",
            "composedPath", "observe", "unobserve", "disconnect", "takeRecords", "abort",
            "appendChild", "insertBefore", "replaceChildren",
            "insertAdjacentText", "insertAdjacentElement", "replaceChild", "adoptNode", "importNode", "createDocumentFragment", "createComment",
            "createEvent", "attachShadow", "insertRow", "insertCell", "deleteRow",
            "deleteCell", "showModal", "show", "createHTMLDocument",
        ], ANYWHERE, Def::Inert),
        // jQuery's reads and state (its insertions and `attr` are
        // `libraries`).
        Row(names![
            "each", "val", "data", "addClass", "removeClass", "toggleClass", "hasClass",
            "hide", "first", "last", "eq", "parents", "children", "siblings",
            "prev", "toArray", "index", "on", "off", "one", "ready", "width", "height", "offset",
            "position", "serialize", "serializeArray", "not", "end", "addBack", "removeData",
            "appendTo", "prependTo", "insertAfter",
        ], PAGE, Def::Inert),
        Row(names!["dataset"], ANYWHERE, Def::Obj(Obj::Strings)),
        // Queries: elements of the tag their selector names.
        Row(names!["querySelector", "querySelectorAll", "closest", "getElementsByTagName"], ANYWHERE, Def::Effect(Effect::Selects(0))),
        // XPath's `document.evaluate` and an array's `fill`, in the page
        // (on the Playwright server they run code and type).
        Row(names!["evaluate", "fill"], PAGE, Def::Inert),
        // A response's or a request's `Headers`, whose `get` reads (on the
        // Playwright server `headers()` is a read: below); `document.fonts`,
        // to which adding a face loads nothing (its `load` counts).
        Row(names!["headers", "fonts"], PAGE, Def::Inert),
        // A URL's `URLSearchParams`.
        Row(names!["searchParams"], ANYWHERE, Def::Inert),
        Row(names!["scroll", "scrollTo", "scrollBy", "scrollIntoView", "scrollIntoViewIfNeeded"], ANYWHERE, Def::Sink(SCROLL)),
        // Playwright's reads and waits, on pages, frames, locators and
        // handles.
        Row(names![
            "locator", "getByRole", "getByText", "getByLabel", "getByPlaceholder", "getByTestId",
            "getByAltText", "getByTitle", "first", "last", "nth", "and", "or", "inputValue",
            "innerHTML", "isVisible", "isHidden", "isChecked", "isEnabled", "isDisabled",
            "isEditable", "allTextContents", "allInnerTexts", "waitForSelector",
            "waitForTimeout", "waitFor", "waitForEvent", "waitForResponse", "waitForRequest",
            "title", "url", "content", "screenshot", "frame", "frameLocator",
            "contentFrame", "boundingBox", "setViewportSize", "viewportSize", "on", "once", "off",
            "$", "$$", "jsonValue", "status", "statusText", "ok", "headers", "allHeaders",
            "headerValue", "body", "finished", "method", "postData", "postDataJSON",
            "resourceType", "response", "failure", "isNavigationRequest", "write", "asElement", "dispose", "pages", "cookies", "bringToFront",
            "isClosed", "route", "unroute", "newCDPSession", "detach", "ownerFrame", "parentFrame", "childFrames", "name",
        ], SERVER, Def::Inert),
    ],
};

/// Methods known to call a function handed to them (an array's iteration,
/// a promise's callbacks, a frame or an event's): a method of the page the
/// model does not know, handed to one, is called, and counts as a possible
/// request each time.
const CALL_BACK: Names = names![
    "forEach",
    "map",
    "filter",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "some",
    "every",
    "flatMap",
    "sort",
    "toSorted",
    "reduce",
    "reduceRight",
    "then",
    "catch",
    "finally",
    "each",
    "requestAnimationFrame",
    "requestIdleCallback",
    "queueMicrotask",
    "addEventListener",
    "on",
    "one",
    "setTimeout",
    "setInterval",
];

/// Whether a call of `name` calls the functions handed to it.
pub(super) fn calls_back(name: &str) -> bool {
    CALL_BACK.contains(name)
}

/// Names the language's collections, iterators and lists share with the
/// verbs of a page's own client, store or router: `map.get(k)` reads, but
/// `api.get(u)`, `store.set(k, v)`, `cart.clear()`, `pager.next()` and
/// `router.push(p)` may each fetch. Called on page data the model cannot
/// name (`Value::Unlisted`), one is a
/// possible request; on what the script made or the model knows, the rows
/// above hold.
const PAGE_VERBS: Names = names!["get", "set", "delete", "add", "clear", "next", "push"];

/// Whether `name` may be the page's own request verb rather than a
/// collection's method.
pub(super) fn page_verb(name: &str) -> bool {
    PAGE_VERBS.contains(name)
}

/// Names of the language's functions that give the items of the array or
/// object they are handed or called on, or arrays of them
/// (`Object.values(o)`, `fs.slice()`, `fs.at(0)`).
const GIVES_ITEMS: Names = names![
    "values",
    "entries",
    "from",
    "of",
    "assign",
    "fromEntries",
    "slice",
    "concat",
    "filter",
    "flat",
    "reverse",
    "sort",
    "splice",
    "toReversed",
    "toSorted",
    "toSpliced",
    "with",
    "at",
    "find",
    "findLast",
    "pop",
    "shift",
    "get",
    "map",
    "flatMap"
];

/// Whether a call of `name` may give items of what it is handed.
pub(super) fn gives_items(name: &str) -> bool {
    GIVES_ITEMS.contains(name)
}

/// The language's constructors of collections: `new Map()` is the script's
/// own data, whose `get` gives back what the script `set`.
const COLLECTIONS: Names = names!["Map", "Set", "WeakMap", "WeakSet", "Array", "Object"];

/// Whether `new` of `name` makes a collection of the script's own.
pub(super) fn makes_collection(name: &str) -> bool {
    COLLECTIONS.contains(name)
}
