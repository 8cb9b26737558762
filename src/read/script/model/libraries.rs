//! The libraries agents find on pages and call: axios and jQuery.

use super::*;

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(names!["axios"], ANYWHERE, Def::Obj(Obj::Axios)),
        Row(names!["$", "jQuery"], ANYWHERE, Def::Obj(Obj::JQuery)),
    ],
    members: &[
        (Obj::Axios, Row(names!["request", "get", "delete", "head", "options", "post", "put", "patch", "postForm", "putForm", "patchForm"], ANYWHERE, Def::Sink(AXIOS))),
        (Obj::Axios, Row(names!["create"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Axios)))),
        (Obj::JQuery, Row(names!["get", "post", "ajax", "getJSON", "getScript", "load"], ANYWHERE, Def::Sink(sink!("`jQuery` request")))),
        (Obj::JQuery, Row(names!["globalEval"], ANYWHERE, Def::Opaque("`jQuery.globalEval`"))),
    ],
    any: &[
        Row(names!["getJSON"], ANYWHERE, Def::Sink(sink!("`getJSON`"))),
        Row(names!["getScript"], ANYWHERE, Def::Sink(sink!("`getScript`"))),
        Row(names!["ajax"], ANYWHERE, Def::Sink(sink!("`ajax`"))),
        // `attr('src', u)` or `attr({ src: u })`. One URL set on every
        // matched element is fetched once (Chromium: four images given one
        // new `src`, even uncacheable, made one request); a function value
        // is called for each element and may give each its own: four.
        Row(names!["attr", "prop"], ANYWHERE, Def::Effect(Effect::SetsProperties("`attr`"))),
        // `css('background-image', v)` or `css({ … })`: the same, for CSS.
        Row(names!["css"], ANYWHERE, Def::Effect(Effect::SetsStyle)),
        // jQuery reads a string as markup; the DOM's own `append`, `after`…
        // insert it as text, which counts nothing.
        Row(names!["append", "prepend", "after", "before", "replaceWith", "wrap", "wrapAll", "wrapInner"], ANYWHERE, Def::Effect(Effect::InsertsContent("jQuery's insertion", false))),
        Row(names!["html"], ANYWHERE, Def::Effect(Effect::InsertsContent("jQuery's `html`", true))),
        // They run the page's handlers for the event.
        // An input or change event triggered loads nothing, as dispatched.
        Row(names!["trigger", "triggerHandler"], ANYWHERE, Def::Effect(Effect::Dispatches(sink!("jQuery's `trigger`")))),
    ],
};

/// `axios(config)` and its methods.
const AXIOS: &Sink = sink!("`axios`");

/// `axios(config)` itself starts a request.
pub(super) fn called(obj: Obj) -> Option<&'static Sink> {
    (obj == Obj::Axios).then_some(AXIOS)
}

/// `$(markup)` makes elements, which load what they name at once (an
/// image's `src`); `$(selector)` and `$(element)` load nothing.
pub(super) fn called_effect(obj: Obj) -> Option<Effect> {
    (obj == Obj::JQuery).then_some(Effect::InsertsContent("`$(…)`", false))
}

/// jQuery wraps what it is given, the global object too (`$(window)`,
/// `$(this)` in a callback): its methods are then judged by name.
pub(super) fn wraps(name: &str) -> bool {
    matches!(name, "$" | "jQuery")
}

/// Whether the CSS property `name` (`background-image`, `backgroundImage`)
/// may hold a `url(…)`: given a value the analysis cannot read from a
/// function, it may load.
pub(in crate::read::script) fn style_may_load(name: &str) -> bool {
    let flat: String = name
        .chars()
        .filter(|c| *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    name.starts_with("--")
        || [
            "background",
            "image",
            "mask",
            "cursor",
            "content",
            "liststyle",
            "filter",
            "shapeoutside",
            "clippath",
            "offsetpath",
            "src",
        ]
        .iter()
        .any(|p| flat.contains(p))
}
