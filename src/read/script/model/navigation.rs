//! Moving a window to another document: `location`, `history`, the
//! Navigation API, `window.open` and `document.open` with a URL.

use super::*;

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(names!["open"], ANYWHERE, Def::Sink(sink!("`window.open`", returns Window))),
        Row(names!["location"], ANYWHERE, Def::Obj(Obj::Location)),
        Row(names!["history"], ANYWHERE, Def::Obj(Obj::History)),
        Row(names!["navigation"], ANYWHERE, Def::Obj(Obj::Navigation)),
    ],
    members: &[
        (Obj::Location, Row(names!["assign"], ANYWHERE, Def::Sink(sink!("`location.assign`")))),
        (Obj::Location, Row(names!["replace"], ANYWHERE, Def::Sink(sink!("`location.replace`")))),
        (Obj::Location, Row(names!["reload"], ANYWHERE, Def::Sink(sink!("`location.reload`")))),
        (Obj::Document, Row(names!["location"], ANYWHERE, Def::Obj(Obj::Location))),
        // `document.open(url, name, features)` is `window.open`.
        (Obj::Document, Row(names!["open"], ANYWHERE, Def::Effect(Effect::OpensWith(3, sink!("`document.open`", returns Window), Obj::Document)))),
        (Obj::History, Row(names!["back"], ANYWHERE, Def::Sink(sink!("`history.back`")))),
        (Obj::History, Row(names!["forward"], ANYWHERE, Def::Sink(sink!("`history.forward`")))),
        (Obj::History, Row(names!["go"], ANYWHERE, Def::Sink(sink!("`history.go`")))),
        (Obj::Navigation, Row(names!["navigate"], ANYWHERE, Def::Sink(sink!("`navigation.navigate`")))),
        (Obj::Navigation, Row(names!["reload"], ANYWHERE, Def::Sink(sink!("`navigation.reload`")))),
        (Obj::Navigation, Row(names!["back"], ANYWHERE, Def::Sink(sink!("`navigation.back`")))),
        (Obj::Navigation, Row(names!["forward"], ANYWHERE, Def::Sink(sink!("`navigation.forward`")))),
        (Obj::Navigation, Row(names!["traverseTo"], ANYWHERE, Def::Sink(sink!("`navigation.traverseTo`")))),
    ],
    any: &[
        Row(names!["location"], ANYWHERE, Def::Obj(Obj::Location)),
        Row(names!["history"], ANYWHERE, Def::Obj(Obj::History)),
        // History's and the Navigation API's methods live on their
        // prototypes: `History.prototype.back.call(history)`.
        Row(names!["back"], ANYWHERE, Def::Sink(sink!("`history.back`"))),
        Row(names!["forward"], ANYWHERE, Def::Sink(sink!("`history.forward`"))),
        Row(names!["go"], ANYWHERE, Def::Sink(sink!("`history.go`"))),
        Row(names!["navigate"], ANYWHERE, Def::Sink(sink!("`navigation.navigate`"))),
        Row(names!["traverseTo"], ANYWHERE, Def::Sink(sink!("`navigation.traverseTo`"))),
        Row(names!["reload"], ANYWHERE, Def::Sink(sink!("`reload`"))),
    ],
};

/// `location`'s properties whose assignment navigates (`hash` does not).
const LOCATION_PROPERTIES: Names = names![
    "href", "search", "pathname", "host", "hostname", "port", "protocol",
];

/// The request assigning to the global `name` (written as a literal)
/// starts: `location = u` navigates. `None`: the value lands on the global
/// object, where page code can reach it.
pub(in crate::read::script) fn assigned_global(name: &str) -> Option<String> {
    (name == "location").then(|| "assignment to `location`".to_owned())
}

/// The request assigning to member `name` of a known object starts.
pub(in crate::read::script) fn assigned_obj(obj: Obj, name: &str) -> Option<String> {
    match obj {
        Obj::Location if LOCATION_PROPERTIES.contains(name) => {
            Some(format!("assignment to `location.{name}`"))
        }
        Obj::Document if name == "location" => Some("assignment to `document.location`".to_owned()),
        _ => None,
    }
}
