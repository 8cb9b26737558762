//! Moving a window to another document: `location`, `history`, the
//! Navigation API, `window.open` and `document.open` with a URL.

use super::*;

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(&["open"], ANYWHERE, Def::Sink(sink!("`window.open`", returns Window))),
        Row(&["location"], ANYWHERE, Def::Obj(Obj::Location)),
        Row(&["history"], ANYWHERE, Def::Obj(Obj::History)),
        Row(&["navigation"], ANYWHERE, Def::Obj(Obj::Navigation)),
    ],
    members: &[
        (Obj::Location, Row(&["assign"], ANYWHERE, Def::Sink(sink!("`location.assign`")))),
        (Obj::Location, Row(&["replace"], ANYWHERE, Def::Sink(sink!("`location.replace`")))),
        (Obj::Location, Row(&["reload"], ANYWHERE, Def::Sink(sink!("`location.reload`")))),
        (Obj::Document, Row(&["location"], ANYWHERE, Def::Obj(Obj::Location))),
        // `document.open(url, name, features)` is `window.open`.
        (Obj::Document, Row(&["open"], ANYWHERE, Def::Effect(Effect::OpensWith(3, sink!("`document.open`", returns Window), Obj::Document)))),
        (Obj::History, Row(&["back"], ANYWHERE, Def::Sink(sink!("`history.back`")))),
        (Obj::History, Row(&["forward"], ANYWHERE, Def::Sink(sink!("`history.forward`")))),
        (Obj::History, Row(&["go"], ANYWHERE, Def::Sink(sink!("`history.go`")))),
        (Obj::Navigation, Row(&["navigate"], ANYWHERE, Def::Sink(sink!("`navigation.navigate`")))),
        (Obj::Navigation, Row(&["reload"], ANYWHERE, Def::Sink(sink!("`navigation.reload`")))),
        (Obj::Navigation, Row(&["back"], ANYWHERE, Def::Sink(sink!("`navigation.back`")))),
        (Obj::Navigation, Row(&["forward"], ANYWHERE, Def::Sink(sink!("`navigation.forward`")))),
        (Obj::Navigation, Row(&["traverseTo"], ANYWHERE, Def::Sink(sink!("`navigation.traverseTo`")))),
    ],
    any: &[
        Row(&["location"], ANYWHERE, Def::Obj(Obj::Location)),
        Row(&["history"], ANYWHERE, Def::Obj(Obj::History)),
        // History's and the Navigation API's methods live on their
        // prototypes: `History.prototype.back.call(history)`.
        Row(&["back"], ANYWHERE, Def::Sink(sink!("`history.back`"))),
        Row(&["forward"], ANYWHERE, Def::Sink(sink!("`history.forward`"))),
        Row(&["go"], ANYWHERE, Def::Sink(sink!("`history.go`"))),
        Row(&["navigate"], ANYWHERE, Def::Sink(sink!("`navigation.navigate`"))),
        Row(&["traverseTo"], ANYWHERE, Def::Sink(sink!("`navigation.traverseTo`"))),
        Row(&["reload"], ANYWHERE, Def::Sink(sink!("`reload`"))),
    ],
};

/// `location`'s properties whose assignment navigates (`hash` does not).
const LOCATION_PROPERTIES: &[&str] = &[
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
        Obj::Location if LOCATION_PROPERTIES.contains(&name) => {
            Some(format!("assignment to `location.{name}`"))
        }
        Obj::Document if name == "location" => Some("assignment to `document.location`".to_owned()),
        _ => None,
    }
}
