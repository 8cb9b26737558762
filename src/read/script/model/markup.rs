//! Markup: which elements and attributes load what once the markup is in a
//! document, from the HTML Standard (and SVG's), one row per element and
//! attribute. The markup reader ([`crate::read::script`]'s `markup`) applies
//! the table; an attribute in no row loads nothing (a `class`, a `title`),
//! but a `javascript:` URL in any attribute, an event handler (`on…`) on any
//! element and a `style` anywhere are read wherever they are.

/// What an attribute's value does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum Fetch {
    /// A URL (or a `srcset` list, of which one is taken) loaded once the
    /// element is in a document; a `data:` one loads nothing from a site.
    Url,
    /// A document loaded into the element (a frame, an object): a `data:`
    /// one is read as markup, a `javascript:` one runs.
    Frame,
    /// A script loaded and run: a `data:` one is read as JavaScript.
    Script,
    /// The element's document, as markup (`srcdoc`).
    Document,
    /// A URL loaded only when the user acts (a link's click, a form's
    /// submit): nothing when the markup is inserted.
    OnAction,
    /// The base URL of the URLs after it: relative URLs go to its site.
    Base,
    /// A refresh (`<meta http-equiv=refresh content>`): a navigation, or a
    /// reload, when the element is inserted.
    Refresh,
}

/// When a row holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum When {
    /// Whenever the attribute is there and not empty.
    Always,
    /// When the element's `type` is this, ignoring ASCII case.
    Type(&'static str),
    /// When the element's `http-equiv` is this, ignoring ASCII case.
    HttpEquiv(&'static str),
    /// When some keyword of its `rel` loads ([`rel_loads`]).
    RelLoads,
    /// When the element has no `srcdoc` (a frame's `srcdoc` wins over its
    /// `src`).
    NoSrcdoc,
    /// When the URL is not a reference into the same document (`#id`).
    External,
    /// When the element animates a URL attribute (SVG's `<set
    /// attributeName=href>`): the values it sets load.
    AnimatesUrl,
}

/// One attribute of some elements: `Load(tags, attribute, what, when,
/// slot)`. Tags and attributes are in lower case, as the tokenizer gives
/// them (SVG's `feImage` is `feimage`). Rows of one element with the same
/// slot are one load between them (`img`'s `src` and `srcset` load one
/// image); other slots load apart (`video`'s `src` and `poster`: two).
pub(in crate::read::script) struct Load(
    pub(in crate::read::script) Names,
    pub(in crate::read::script) &'static str,
    pub(in crate::read::script) Fetch,
    pub(in crate::read::script) When,
    pub(in crate::read::script) u8,
);

use crate::names::{Names, names};
use Fetch::*;
use When::*;

/// What loads, per element and attribute (HTML Standard, "fetching" in each
/// element's section; SVG 2 for `image`, `use`, `feImage`, `script`).
#[rustfmt::skip]
pub(in crate::read::script) const LOADS: &[Load] = &[
    Load(names!["img"], "src", Url, Always, 0),
    Load(names!["img"], "srcset", Url, Always, 0),
    // `<picture>`'s `<source srcset>` only offers candidates to its `<img>`,
    // which loads one; `<source src>` is a media element's resource.
    Load(names!["source"], "src", Url, Always, 0),
    Load(names!["video"], "src", Url, Always, 0),
    Load(names!["video"], "poster", Url, Always, 1),
    Load(names!["audio"], "src", Url, Always, 0),
    Load(names!["track"], "src", Url, Always, 0),
    Load(names!["iframe"], "src", Frame, NoSrcdoc, 0),
    Load(names!["iframe"], "srcdoc", Document, Always, 0),
    Load(names!["frame"], "src", Frame, Always, 0),
    Load(names!["portal"], "src", Frame, Always, 0),
    Load(names!["object"], "data", Frame, Always, 0),
    Load(names!["embed"], "src", Frame, Always, 0),
    Load(names!["script"], "src", Script, Always, 0),
    // SVG's `<script>` names its file with `href`.
    Load(names!["script"], "href", Script, Always, 0),
    Load(names!["script"], "xlink:href", Script, Always, 0),
    Load(names!["link"], "href", Url, RelLoads, 0),
    Load(names!["link"], "imagesrcset", Url, RelLoads, 0),
    Load(names!["input"], "src", Url, Type("image"), 0),
    Load(names!["meta"], "content", Refresh, HttpEquiv("refresh"), 0),
    Load(names!["base"], "href", Base, Always, 0),
    Load(names!["a", "area"], "href", OnAction, Always, 0),
    Load(names!["a", "area"], "ping", OnAction, Always, 0),
    Load(names!["form"], "action", OnAction, Always, 0),
    Load(names!["button", "input"], "formaction", OnAction, Always, 0),
    // The legacy `background` image of `body`, `table`, `td`, `th`.
    Load(names!["body", "table", "thead", "tbody", "tfoot", "tr", "td", "th"], "background", Url, Always, 1),
    // SVG: an image, a `use` of another file's element, a filter's image,
    // a script.
    Load(names!["image", "feimage"], "href", Url, Always, 0),
    Load(names!["image", "feimage"], "xlink:href", Url, Always, 0),
    Load(names!["use"], "href", Url, External, 0),
    Load(names!["use"], "xlink:href", Url, External, 0),
    // SMIL sets an image's `href` to each value it animates through.
    Load(names!["set", "animate"], "to", Url, AnimatesUrl, 0),
    Load(names!["animate"], "from", Url, AnimatesUrl, 1),
    Load(names!["animate"], "values", Url, AnimatesUrl, 2),
];

/// Whether some attribute of an element of `tag` loads when it is set
/// (a link's `href`, a form's `action` wait for the user: they do not).
pub(in crate::read::script) fn loads_anything(tag: &str) -> bool {
    LOADS
        .iter()
        .any(|Load(tags, _, fetch, _, _)| *fetch != OnAction && tags.contains(tag))
}

/// Elements whose text is code or CSS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum Text {
    /// JavaScript, run when the element has no `src` and a JavaScript
    /// `type` ([`runs_as_script`]).
    Script,
    /// A style sheet.
    Css,
}

/// The elements whose text the reader reads (`<script>`, `<style>`, in
/// HTML and in SVG).
pub(in crate::read::script) const TEXTS: &[(&str, Text)] =
    &[("script", Text::Script), ("style", Text::Css)];

/// What an element's text is, if the reader reads it.
pub(in crate::read::script) fn text_of(tag: &str) -> Option<Text> {
    TEXTS.iter().find(|(t, _)| *t == tag).map(|(_, x)| *x)
}

/// `rel` keywords that load nothing when a `<link>` is inserted (HTML's
/// link types that are only annotations, and `dns-prefetch`, which asks
/// DNS, not the site). A `<link>` with any other keyword (`stylesheet`,
/// `icon`, `preload`, `prefetch`, `modulepreload`, `preconnect`,
/// `manifest`, one this list does not know) counts as a load.
const REL_INERT: Names = names![
    "alternate",
    "author",
    "bookmark",
    "canonical",
    "dns-prefetch",
    "external",
    "help",
    "license",
    "me",
    "next",
    "nofollow",
    "noopener",
    "noreferrer",
    "opener",
    "pingback",
    "prev",
    "search",
    "tag",
    "privacy-policy",
    "terms-of-service",
];

/// Whether a `<link rel>` loads something: some keyword is not known to be
/// inert. (`alternate stylesheet` loads: `stylesheet` is a keyword.)
pub(in crate::read::script) fn rel_loads(rel: &str) -> bool {
    rel.split_ascii_whitespace()
        .any(|k| !REL_INERT.iter().any(|i| i.eq_ignore_ascii_case(k)))
}

/// `type`s of a `<script>` whose text runs as JavaScript: none, empty, a
/// JavaScript MIME type (HTML's list) or `module`. Any other (`text/html`,
/// `application/json`, `importmap`) is a data block, which runs nothing
/// (`speculationrules` is read apart: it prefetches).
pub(in crate::read::script) fn runs_as_script(kind: Option<&str>) -> bool {
    const JS: Names = names![
        "",
        "module",
        "application/ecmascript",
        "application/javascript",
        "application/x-ecmascript",
        "application/x-javascript",
        "text/ecmascript",
        "text/javascript",
        "text/javascript1.0",
        "text/javascript1.1",
        "text/javascript1.2",
        "text/javascript1.3",
        "text/javascript1.4",
        "text/javascript1.5",
        "text/jscript",
        "text/livescript",
        "text/x-ecmascript",
        "text/x-javascript",
    ];
    let kind = kind.map_or("", |k| k.trim_matches(|c: char| c.is_ascii_whitespace()));
    JS.iter().any(|j| j.eq_ignore_ascii_case(kind))
}

/// A `<script type>` whose text makes the browser prefetch or prerender the
/// URLs it lists.
pub(in crate::read::script) fn speculation_rules(kind: Option<&str>) -> bool {
    kind.is_some_and(|k| k.trim().eq_ignore_ascii_case("speculationrules"))
}

/// Event handlers that run once for what the element loads: a request in
/// one adds one. Any other handler (`onclick`, `onmouseover`) may run any
/// number of times.
pub(in crate::read::script) fn handler_runs_once(name: &str) -> bool {
    matches!(name, "onload" | "onerror")
}

/// Whether an element of `tag` (lower case) leaves HTML's foreign content
/// (SVG, MathML) when it starts there: the HTML Standard's list of tags that
/// break out ("any other start tag" in foreign content keeps it foreign).
/// `font` breaks out only with `color`, `face` or `size`.
pub(in crate::read::script) fn breaks_out(tag: &str) -> bool {
    const OUT: Names = names![
        "b",
        "big",
        "blockquote",
        "body",
        "br",
        "center",
        "code",
        "dd",
        "div",
        "dl",
        "dt",
        "em",
        "embed",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "head",
        "hr",
        "i",
        "img",
        "li",
        "listing",
        "menu",
        "meta",
        "nobr",
        "ol",
        "p",
        "pre",
        "ruby",
        "s",
        "small",
        "span",
        "strong",
        "strike",
        "sub",
        "sup",
        "table",
        "tt",
        "u",
        "ul",
        "var",
    ];
    OUT.contains(tag)
}

/// SVG and MathML elements inside which markup is HTML again (HTML
/// integration points and MathML text integration points).
pub(in crate::read::script) fn integration_point(tag: &str) -> bool {
    matches!(
        tag,
        "foreignobject" | "desc" | "title" | "mi" | "mo" | "mn" | "ms" | "mtext"
    )
}

/// How the tokenizer reads the text of an HTML element of `tag` (the tree
/// builder switches it): `None` for markup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum TextState {
    /// Text with character references (`textarea`, `title`).
    Rcdata,
    /// Text up to the element's end tag (`style`, `xmp`, `iframe`,
    /// `noembed`, `noframes`, and `noscript` where scripts run).
    Rawtext,
    /// A script's text.
    ScriptData,
    /// Text to the end of the input (`plaintext`).
    Plaintext,
}

/// The text state an HTML start tag `tag` switches to; `scripting` when
/// scripts run where the markup goes (a page, not a `DOMParser` document).
pub(in crate::read::script) fn text_state(tag: &str, scripting: bool) -> Option<TextState> {
    Some(match tag {
        "textarea" | "title" => TextState::Rcdata,
        "style" | "xmp" | "iframe" | "noembed" | "noframes" => TextState::Rawtext,
        "noscript" if scripting => TextState::Rawtext,
        "script" => TextState::ScriptData,
        "plaintext" => TextState::Plaintext,
        _ => return None,
    })
}

/// Whether markup inserted by `label` goes on where the last left off: a
/// document's parser, fed by `document.write`, reads each write after the
/// one before.
pub(in crate::read::script) fn markup_continues(label: &str) -> bool {
    label == "`document.write`"
}

/// Whether markup inserted by `label` is parsed as a fragment into the page
/// (`innerHTML`, `outerHTML`, `insertAdjacentHTML`, `setHTMLUnsafe`), whose
/// scripts the HTML Standard marks already started: they neither run nor
/// load. `document.write`, `createContextualFragment` (its scripts run once
/// inserted), jQuery's insertions (jQuery runs them itself), `srcdoc` and
/// `setContent` (documents) run theirs.
pub(in crate::read::script) fn fragment_parsed(label: &str) -> bool {
    matches!(
        label,
        "`innerHTML`" | "`outerHTML`" | "`insertAdjacentHTML`" | "`setHTMLUnsafe`"
    )
}

/// Whether a `javascript:` URL in attribute `attr` of `<tag>` runs only when
/// the element is activated (a link's on a click, a form's on a submit),
/// not when the markup is inserted (a frame's runs at once).
pub(in crate::read::script) fn runs_on_activation(tag: &str, attr: &str) -> bool {
    matches!(
        (tag, attr),
        ("a" | "area", "href" | "xlink:href")
            | ("form", "action")
            | ("button" | "input", "formaction")
    )
}
