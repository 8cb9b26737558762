//! The page: the global object and its frames, `document`, elements, the
//! markup and attributes that load, timers, `console`.

use super::*;

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(names!["window", "self", "globalThis", "top", "parent", "frames", "opener", "content"], ANYWHERE, Def::Global),
        Row(names!["document"], ANYWHERE, Def::Obj(Obj::Document)),
        Row(names!["setTimeout"], ANYWHERE, Def::Effect(Effect::Timer("`setTimeout`"))),
        Row(names!["setInterval"], ANYWHERE, Def::Effect(Effect::Timer("`setInterval`"))),
        Row(names!["Image"], ANYWHERE, Def::Effect(Effect::NewElement("img", None))),
        // `new Audio(url)` starts loading; `new Image(w, h)` takes sizes.
        Row(names!["Audio"], ANYWHERE, Def::Effect(Effect::NewElement("audio", Some(sink!("`new Audio`"))))),
        Row(names!["URL", "webkitURL"], ANYWHERE, Def::Obj(Obj::Url)),
        Row(names!["getComputedStyle"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Style))),
        // The source's `url(…)`s count where the face is made.
        Row(names!["FontFace"], ANYWHERE, Def::Effect(Effect::CssThen(1, Obj::FontFace))),
    ],
    members: &[
        (Obj::Document, Row(names!["defaultView"], ANYWHERE, Def::Global)),
        (Obj::Document, Row(names!["write", "writeln"], ANYWHERE, Def::Effect(Effect::Markup("`document.write`", 0)))),
        (Obj::Document, Row(names!["createElement"], ANYWHERE, Def::Effect(Effect::CreatesElement(0)))),
        (Obj::Document, Row(names!["createElementNS"], ANYWHERE, Def::Effect(Effect::CreatesElement(1)))),
        (Obj::Document, Row(names!["createAttribute"], ANYWHERE, Def::Effect(Effect::CreatesAttribute(0)))),
        (Obj::Document, Row(names!["createAttributeNS"], ANYWHERE, Def::Effect(Effect::CreatesAttribute(1)))),
        (Obj::Attributes, Row(names!["getNamedItem"], ANYWHERE, Def::Effect(Effect::CreatesAttribute(0)))),
        (Obj::Attributes, Row(names!["getNamedItemNS"], ANYWHERE, Def::Effect(Effect::CreatesAttribute(1)))),
        (Obj::Attributes, Row(names!["item"], ANYWHERE, Def::Effect(Effect::CreatesAttribute(usize::MAX)))),
        (Obj::Attributes, Row(names!["setNamedItem", "setNamedItemNS"], ANYWHERE, Def::Effect(Effect::SetsAttributeNode("`attributes.setNamedItem`")))),
        (Obj::Attributes, Row(names!["removeNamedItem", "removeNamedItemNS", "length"], ANYWHERE, Def::Inert)),
        (Obj::Url, Row(names!["createObjectURL"], ANYWHERE, Def::Effect(Effect::MakesBlobUrl))),
        (Obj::Document, Row(names!["createTextNode"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Text)))),
        (Obj::Document, Row(names!["createTreeWalker", "createNodeIterator"], ANYWHERE, Def::Effect(Effect::WalksNodes(Obj::TextWalker)))),
        (Obj::TextWalker, Row(names!["currentNode", "referenceNode", "root"], ANYWHERE, Def::Obj(Obj::Text))),
        (Obj::TextWalker, Row(names!["nextNode", "previousNode", "firstChild", "lastChild", "nextSibling", "previousSibling", "parentNode"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Text)))),
        // Numbers: a rectangle's or a style's `top` is no window.
        (Obj::Rect, Row(names!["top"], ANYWHERE, Def::Inert)),
        (Obj::Rects, Row(names!["item"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Rect)))),
        (Obj::Style, Row(names!["top"], ANYWHERE, Def::Inert)),
        // The request of its source, counted where the face was made.
        (Obj::FontFace, Row(names!["load"], ANYWHERE, Def::Inert)),
    ],
    any: &[
        Row(names!["document", "ownerDocument", "contentDocument"], ANYWHERE, Def::Obj(Obj::Document)),
        Row(names!["defaultView", "contentWindow", "window", "self", "top", "parent", "opener", "frames", "globalThis"], ANYWHERE, Def::Global),
        Row(names!["click"], ANYWHERE, Def::Sink(sink!("`click`"))),
        Row(names!["submit"], ANYWHERE, Def::Sink(sink!("`submit`"))),
        Row(names!["requestSubmit"], ANYWHERE, Def::Sink(sink!("`requestSubmit`"))),
        Row(names!["dispatchEvent"], ANYWHERE, Def::Effect(Effect::Dispatches(sink!("`dispatchEvent`")))),
        Row(names!["load"], ANYWHERE, Def::Sink(sink!("`load`"))),
        Row(names!["insertAdjacentHTML"], ANYWHERE, Def::Effect(Effect::Markup("`insertAdjacentHTML`", 1))),
        Row(names!["setHTMLUnsafe"], ANYWHERE, Def::Effect(Effect::Markup("`setHTMLUnsafe`", 0))),
        Row(names!["createContextualFragment"], ANYWHERE, Def::Effect(Effect::Markup("`createContextualFragment`", 0))),
        Row(names!["setAttribute"], ANYWHERE, Def::Effect(Effect::SetsAttribute { what: "setAttribute", name_at: 0 })),
        // `setAttributeNS(ns, name, value)` has the name second.
        Row(names!["setAttributeNS"], ANYWHERE, Def::Effect(Effect::SetsAttribute { what: "setAttribute", name_at: 1 })),
        Row(names!["getAttributeNode"], ANYWHERE, Def::Effect(Effect::CreatesAttribute(0))),
        Row(names!["getAttributeNodeNS"], ANYWHERE, Def::Effect(Effect::CreatesAttribute(1))),
        Row(names!["setAttributeNode", "setAttributeNodeNS"], ANYWHERE, Def::Effect(Effect::SetsAttributeNode("`setAttributeNode`"))),
        Row(names!["attributes"], ANYWHERE, Def::Obj(Obj::Attributes)),
        Row(names!["write", "writeln"], PAGE, Def::Effect(Effect::Markup("`document.write`", 0))),
        Row(names!["execCommand"], ANYWHERE, Def::Effect(Effect::Commands(&Commands { what: "`execCommand`", markup: &[("inserthtml", 2, "`execCommand('insertHTML')`")] }))),
        Row(names!["parseFromString"], ANYWHERE, Def::Effect(Effect::ParsesMarkup("`parseFromString`"))),
        Row(names!["style"], ANYWHERE, Def::Obj(Obj::Style)),
        Row(names!["getBoundingClientRect"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Rect))),
        Row(names!["getClientRects"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Rects))),
    ],
};

/// `console`'s methods print what they are given.
pub(super) fn reads_only(name: &str) -> bool {
    matches!(
        name,
        "log" | "info" | "warn" | "error" | "debug" | "dir" | "table"
    )
}

/// Events are made with `{ view: window }`.
pub(super) fn window_key(name: &str) -> bool {
    name == "view"
}

/// A window's indexed properties are its frames' windows (`window[0]`).
pub(in crate::read::script) fn is_frame_index(name: &str) -> bool {
    name.parse::<u32>().is_ok()
}

/// An event handler's property or attribute: `onclick`, `onerror`.
pub(in crate::read::script) fn is_event_handler(name: &str) -> bool {
    name.starts_with("on")
}

/// Tags whose `src` or `data` runs a document or script (`""`: a tag the
/// analysis does not know).
const CODE_TAGS: Names = names!["script", "iframe", "frame", "embed", "object", ""];

/// Whether the URL assigned to `name` on an element of `tag` (`""`: not
/// known) is a document or script that runs.
pub(in crate::read::script) fn loads_document(name: &str, tag: &str) -> bool {
    matches!(name, "src" | "data") && CODE_TAGS.contains(tag)
}

/// Whether an element of `tag` (`""`: not known) runs its text as code.
pub(in crate::read::script) fn text_is_code(tag: &str) -> bool {
    tag == "script" || tag.is_empty()
}

/// Methods that insert nodes (text among them) into an element.
pub(in crate::read::script) fn inserts_children(name: &str) -> bool {
    matches!(
        name,
        "append"
            | "appendChild"
            | "prepend"
            | "insertBefore"
            | "replaceChildren"
            | "insertAdjacentText"
    )
}

/// Methods that put nodes into a document, where an inert document's
/// nodes start loading (`append`, `adoptNode`).
pub(in crate::read::script) fn inserts_nodes(name: &str) -> bool {
    inserts_children(name)
        || matches!(
            name,
            "replaceChild"
                | "replaceWith"
                | "after"
                | "before"
                | "adoptNode"
                | "importNode"
                | "insertAdjacentElement"
                | "insertNode"
                | "surroundContents"
                | "html"
                | "appendTo"
                | "prependTo"
                | "insertAfter"
        )
}

/// An element's `attributes`, whose every other member is an attribute
/// node (`el.attributes.src`, `el.attributes[0]`).
pub(in crate::read::script) fn is_attribute_map(obj: Obj) -> bool {
    obj == Obj::Attributes
}

/// The members of an attribute node that set its value.
pub(in crate::read::script) fn sets_attribute_value(name: &str) -> bool {
    matches!(name, "value" | "nodeValue" | "textContent")
}

/// The argument of a function that is a namespace (a name written as a
/// URL, not a site): `createElementNS(ns, tag)`, `setAttributeNS(ns, …)`.
pub(in crate::read::script) fn namespace_at(effect: Effect) -> Option<usize> {
    match effect {
        Effect::CreatesElement(1) | Effect::CreatesAttribute(1) => Some(0),
        Effect::SetsAttribute { name_at: 1, .. } => Some(0),
        _ => None,
    }
}

/// A property of the page's objects that holds a handler of the page's
/// (`btn.onclick`): calling it runs code the page wrote. All lower case
/// and five letters or more, so jQuery's `on` and `one` are not ones.
pub(in crate::read::script) fn is_page_handler(name: &str) -> bool {
    name.len() >= 5 && name.starts_with("on") && name.bytes().all(|b| b.is_ascii_lowercase())
}

/// A handler of the page's, called: what it does is the page's code, a
/// possible request each time.
pub(in crate::read::script) const PAGE_HANDLER: &Sink =
    sink!("a call of an event handler of the page's");

/// Names of properties whose assignment makes an element load a URL.
const URL_PROPERTIES: Names = names![
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

/// Properties whose assignment inserts markup.
const MARKUP_PROPERTIES: Names = names!["innerHTML", "outerHTML", "srcdoc"];

/// Properties whose assignment sets a script's code.
const CODE_PROPERTIES: Names = names!["text", "textContent", "innerText"];

/// Whether assigning to `name` inserts markup.
pub(in crate::read::script) fn inserts_markup(name: &str) -> bool {
    MARKUP_PROPERTIES.contains(name)
}

/// Whether the value assigned to `name` is a URL something loads or
/// navigates to, on some object (the walk checks it for code).
pub(in crate::read::script) fn url_assigned(name: &str) -> bool {
    name == "location" || URL_PROPERTIES.contains(name)
}

/// Properties that make no request on an element of this tag, though they
/// would on others: a link's `href` waits for a click, a form's `action` for
/// a submit.
fn inert_property(tag: &str, name: &str) -> bool {
    matches!(
        (tag, name),
        ("a" | "area" | "base", "href") | ("form", "action") | ("button" | "input", "formAction")
    )
}

/// What assigning to a property does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::read::script) enum Assigned {
    /// Nothing the model knows of.
    Nothing,
    /// Starts a request, so named.
    Request(String),
    /// Inserts the value as markup, by this name.
    Markup(String),
    /// Sets code the analysis does not read, so named.
    Code(String),
    /// A property the model does not know, of what may be an element: a
    /// possible request, so named.
    Unknown(String),
}

/// Properties of elements and nodes whose assignment loads nothing,
/// whatever the element: text, form state, presentation, accessibility.
/// Not among them: `rel`, `media`, `sizes`, `loading`, `crossOrigin` (a
/// link or an image fetches again), a media element's `currentTime` and
/// `preload` (a seek or a preload fetches), `style` (CSS, whose `url(…)`s
/// load).
const INERT_PROPERTIES: Names = names![
    "textContent",
    "innerText",
    "outerText",
    "nodeValue",
    "value",
    "valueAsNumber",
    "valueAsDate",
    "checked",
    "selected",
    "selectedIndex",
    "defaultValue",
    "defaultChecked",
    "defaultSelected",
    "indeterminate",
    "disabled",
    "hidden",
    "className",
    "id",
    "title",
    "lang",
    "dir",
    "tabIndex",
    "accessKey",
    "contentEditable",
    "draggable",
    "spellcheck",
    "placeholder",
    "readOnly",
    "required",
    "name",
    "type",
    "alt",
    "width",
    "height",
    "colSpan",
    "rowSpan",
    "open",
    "returnValue",
    "cancelBubble",
    "autofocus",
    "multiple",
    "min",
    "max",
    "step",
    "maxLength",
    "minLength",
    "pattern",
    "htmlFor",
    "noValidate",
    "target",
    "download",
    "hreflang",
    "volume",
    "muted",
    "playbackRate",
    "loop",
    "controls",
    "role",
    "ariaLabel",
    "ariaHidden",
    "ariaExpanded",
    "ariaSelected",
    "ariaChecked",
    "ariaPressed",
    "ariaDisabled",
    "translate",
    "inert",
    "popover",
    "inputMode",
    "enterKeyHint",
    "autocomplete",
    "label",
    "text",
    "caption",
    "length",
    "decoding",
];

/// Properties whose assignment scrolls: a lazy page loads as it scrolls.
const SCROLL_PROPERTIES: Names = names!["scrollTop", "scrollLeft"];

/// Assigning to `name` on an element the script made (`Some(tag)`, `""`
/// when the tag is not known) or on an object the analysis cannot name
/// (`None`): what the model knows, else a possible request.
pub(in crate::read::script) fn assigned_element(tag: Option<&str>, name: &str) -> Assigned {
    assigned_known(tag, name).unwrap_or_else(|| {
        // An element of a tag that loads nothing whatever its attributes
        // (a link, a cell, a `div`) loads nothing through a property either.
        let inert_tag = tag.is_some_and(|t| !t.is_empty() && !super::markup::loads_anything(t));
        if SCROLL_PROPERTIES.contains(name) {
            Assigned::Request(format!(
                "assignment to `.{name}`, a scroll (a lazy or infinite-scroll page loads as it scrolls)"
            ))
        } else if inert_tag || INERT_PROPERTIES.contains(name) || is_event_handler(name) {
            Assigned::Nothing
        } else {
            Assigned::Unknown(format!(
                "assignment to `.{name}`, a property the model does not know"
            ))
        }
    })
}

/// What assigning to `name` is known to do on an element (of `tag`, if
/// known): `None` for a property in no list.
fn assigned_known(tag: Option<&str>, name: &str) -> Option<Assigned> {
    if let Some(tag) = tag {
        if inert_property(tag, name) {
            return Some(Assigned::Nothing);
        }
        if text_is_code(tag) && (CODE_PROPERTIES.contains(name) || inserts_markup(name)) {
            return Some(Assigned::Code(format!(
                "assignment to `.{name}` of a created script"
            )));
        }
    }
    if url_assigned(name) {
        Some(Assigned::Request(format!("assignment to `.{name}`")))
    } else if inserts_markup(name) {
        Some(Assigned::Markup(format!("`{name}`")))
    } else {
        None
    }
}

/// What an attribute is, for `setAttribute`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum Attribute {
    /// A URL the element loads or navigates to.
    Url,
    /// A frame's document, as markup.
    Markup,
    /// An event handler, as a string of code.
    Handler,
    /// CSS, whose `url(…)`s load.
    Style,
    /// Known to load nothing.
    Inert,
    /// Not known to the model: a possible request.
    Unknown,
}

/// Attributes known to load nothing, whatever their value (besides
/// `data-*` and `aria-*`). Not among them: those whose change makes an
/// image or a picture's source choose and fetch again (`loading`,
/// `crossorigin`, `referrerpolicy`, `sizes`, `media`), which count as
/// possible requests.
const INERT_ATTRIBUTES: Names = names![
    "class",
    "id",
    "title",
    "alt",
    "role",
    "name",
    "value",
    "placeholder",
    "disabled",
    "checked",
    "selected",
    "readonly",
    "required",
    "hidden",
    "tabindex",
    "for",
    "lang",
    "dir",
    "width",
    "height",
    "contenteditable",
    "draggable",
    "spellcheck",
    "autocomplete",
    "min",
    "max",
    "step",
    "maxlength",
    "minlength",
    "colspan",
    "rowspan",
    "open",
    "label",
    "multiple",
    "pattern",
    "size",
    "cols",
    "rows",
    "wrap",
    "translate",
    "inert",
    "download",
    "target",
    "accesskey",
    "autofocus",
    "slot",
    "part",
    "nonce",
    "headers",
    "scope",
    "abbr",
    "datetime",
    "start",
    "reversed",
    "span",
    "align",
    "valign",
    "color",
    "bgcolor",
    "border",
    "cellpadding",
    "cellspacing",
    "nowrap",
    "decoding",
    // Loading depends on them only with a URL, which is counted where it is set.
    "rel",
    "type",
    "method",
    "enctype",
    "accept",
    "async",
    "defer",
    "charset",
    "sandbox",
    "allow",
    "frameborder",
    "scrolling",
    "integrity",
    // SVG's geometry and paint that takes no URL.
    "r",
    "cx",
    "cy",
    "rx",
    "ry",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "d",
    "points",
    "viewbox",
    "transform",
    "opacity",
    "stroke-width",
    "stroke-dasharray",
    "stroke-linecap",
    "stroke-linejoin",
    "fill-opacity",
    "stroke-opacity",
    "font-size",
    "font-family",
    "text-anchor",
    "dominant-baseline",
    "preserveaspectratio",
    "xmlns",
];

/// Attributes whose value is CSS, or a presentation attribute that takes a
/// `url(…)` (SVG's paint, filters, masks).
const STYLE_ATTRIBUTES: Names = names![
    "style",
    "fill",
    "stroke",
    "filter",
    "mask",
    "clip-path",
    "marker-start",
    "marker-mid",
    "marker-end",
    "cursor",
];

/// Attributes whose value is a URL the element loads or navigates to.
const URL_ATTRIBUTES: Names = names![
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
    "lowsrc",
    "dynsrc",
    "archive",
    "classid",
    "manifest",
    "icon",
    "longdesc",
];

/// What the attribute `name` (lower case) is.
pub(in crate::read::script) fn attribute(name: &str) -> Attribute {
    if URL_ATTRIBUTES.contains(name) {
        Attribute::Url
    } else if name == "srcdoc" {
        Attribute::Markup
    } else if INERT_ATTRIBUTES.contains(name)
        || name.starts_with("data-")
        || name.starts_with("aria-")
    {
        Attribute::Inert
    } else if is_event_handler(name) {
        Attribute::Handler
    } else if STYLE_ATTRIBUTES.contains(name) {
        Attribute::Style
    } else {
        Attribute::Unknown
    }
}

/// Names of element properties that load a URL (`URL_PROPERTIES`) and are
/// CSS properties too: on a style they are CSS, whose `url(…)`s count.
const CSS_LIKE_URLS: Names = names!["background"];

/// Assigning to `name` on a style: a CSS property loads only through its
/// `url(…)`s, which the walk counts in the value; any other name is read as
/// on an element (a page object may hold anything under `style`).
fn assigned_style(name: &str) -> Assigned {
    if CSS_LIKE_URLS.contains(name) {
        Assigned::Nothing
    } else {
        assigned_known(None, name).unwrap_or(Assigned::Nothing)
    }
}

/// Assigning to `name` on the known object `obj`, where it is read as on
/// an element (a style) or is a string of the page's (a `dataset`); `None`
/// for the other objects.
pub(in crate::read::script) fn assigned_member(obj: Obj, name: &str) -> Option<Assigned> {
    match obj {
        Obj::Style => Some(assigned_style(name)),
        Obj::Strings => Some(Assigned::Nothing),
        _ => None,
    }
}

/// Properties whose accessors only change a form control's state: a
/// framework's way to fill an input (React's native `value` setter) loads
/// nothing through them.
const FORM_STATE: Names = names![
    "value",
    "checked",
    "selected",
    "selectedIndex",
    "indeterminate",
    "defaultValue",
    "defaultChecked",
];

/// Whether the getter and setter of property `name` are known to load
/// nothing.
pub(in crate::read::script) fn inert_accessor(name: &str) -> bool {
    FORM_STATE.contains(name)
}

/// How a filter that shows text nodes only is written, as
/// `createTreeWalker`'s `whatToShow`: `NodeFilter.SHOW_TEXT`, or its value.
pub(in crate::read::script) fn text_only_filter(member: Option<&str>, number: Option<f64>) -> bool {
    member == Some("SHOW_TEXT") || number == Some(4.0)
}

/// Events whose dispatch by a script has no default action that loads
/// anything, by constructor and type: a script's event is untrusted, and
/// only a click (a `MouseEvent` or `PointerEvent` of type `click`)
/// activates a link or a submit button. What the page's own listeners do
/// with them is the page's code, as with any change the script makes.
const INERT_EVENTS: Names = names![
    "Event",
    "InputEvent",
    "FocusEvent",
    "KeyboardEvent",
    "CustomEvent",
    "UIEvent",
];
const INERT_EVENT_TYPES: Names = names![
    "input",
    "change",
    "beforeinput",
    "focus",
    "blur",
    "focusin",
    "focusout",
    "keydown",
    "keyup",
    "keypress",
    "compositionstart",
    "compositionend",
];

/// Whether dispatching `new <constructor>('<kind>', …)` (or, with no
/// constructor, an event named `kind`) loads nothing.
pub(in crate::read::script) fn inert_event(constructor: Option<&str>, kind: &str) -> bool {
    constructor.is_none_or(|c| INERT_EVENTS.contains(c)) && INERT_EVENT_TYPES.contains(kind)
}

/// A list of rectangles holds rectangles (`getClientRects()[0]`).
pub(super) fn item_of(obj: Obj) -> Option<Obj> {
    (obj == Obj::Rects).then_some(Obj::Rect)
}

/// The tag of every element the CSS selector `selector` matches, when it
/// names one (`'a'`, `'table a[href]'`, `'#nav > a.link'`, `'a, area'` is
/// none): the type selector of the last compound of each of its selectors,
/// all alike. A selector with escapes, namespaces or pseudo-elements names
/// none.
pub(in crate::read::script) fn selected_tag(selector: &str) -> Option<String> {
    // Attribute selectors (`[href^="http"]`) are dropped: their values may
    // hold commas and spaces.
    let mut plain = String::with_capacity(selector.len());
    let mut depth = 0u32;
    for c in selector.chars() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            '\\' | '|' | '(' | ')' | '"' | '\'' => return None,
            _ => plain.push(c),
        }
    }
    if depth > 0 || plain.contains("::") {
        return None;
    }
    let mut tag: Option<String> = None;
    for part in plain.split(',') {
        let last = part
            .rsplit([' ', '>', '+', '~', '\t', '\n'])
            .find(|s| !s.is_empty())?;
        let name: String = last
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        let name = name.to_ascii_lowercase();
        match &tag {
            Some(t) if *t != name => return None,
            _ => tag = Some(name),
        }
    }
    tag
}

/// Methods of a list of elements (a `NodeList`, an array made from one)
/// that call their callback with each element.
const ITERATES_ELEMENTS: Names = names![
    "forEach",
    "map",
    "filter",
    "some",
    "every",
    "find",
    "findLast",
    "findIndex",
    "findLastIndex",
    "flatMap",
];

/// Methods of an array of elements that give some of the same elements
/// (`filter`, `slice`), and `Array.from` of one list.
const KEEPS_ELEMENTS: Names = names![
    "filter",
    "slice",
    "toSorted",
    "toReversed",
    "reverse",
    "sort",
    "from",
];

/// Whether `name` calls its callback with each element of its list.
pub(in crate::read::script) fn iterates_elements(name: &str) -> bool {
    ITERATES_ELEMENTS.contains(name)
}

/// Whether `name` gives elements of the list it is called on (or, for
/// `from`, of its one argument).
pub(in crate::read::script) fn keeps_elements(name: &str) -> bool {
    KEEPS_ELEMENTS.contains(name)
}
