//! Requests a script makes itself: `fetch`, `XMLHttpRequest`, beacons,
//! sockets and event streams, workers and service workers, caches, and
//! the code it imports.

use super::*;

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(&["fetch"], ANYWHERE, Def::Sink(sink!("`fetch`"))),
        Row(&["fetchLater"], ANYWHERE, Def::Sink(sink!("`fetchLater`"))),
        Row(&["WebSocket"], ANYWHERE, Def::Sink(sink!("`new WebSocket`"))),
        Row(&["EventSource"], ANYWHERE, Def::Sink(sink!("`new EventSource`"))),
        Row(&["WebTransport"], ANYWHERE, Def::Sink(sink!("`new WebTransport`"))),
        Row(&["WebSocketStream"], ANYWHERE, Def::Sink(sink!("`new WebSocketStream`"))),
        Row(&["Worker"], ANYWHERE, Def::Sink(sink!("`new Worker`", loads Always))),
        Row(&["SharedWorker"], ANYWHERE, Def::Sink(sink!("`new SharedWorker`", loads Always))),
        // An object, no request until `send`.
        Row(&["XMLHttpRequest"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Xhr))),
        Row(&["importScripts"], ANYWHERE, Def::Effect(IMPORT_SCRIPTS)),
        Row(&["caches"], ANYWHERE, Def::Obj(Obj::Caches)),
        Row(&["navigator"], ANYWHERE, Def::Obj(Obj::Navigator)),
    ],
    members: &[
        (Obj::Navigator, Row(&["sendBeacon"], ANYWHERE, Def::Sink(sink!("`navigator.sendBeacon`")))),
        (Obj::Navigator, Row(&["serviceWorker"], ANYWHERE, Def::Obj(Obj::ServiceWorkers))),
        (Obj::ServiceWorkers, Row(&["register"], ANYWHERE, Def::Sink(sink!("`navigator.serviceWorker.register`", loads Always)))),
        (Obj::Caches, Row(&["add"], ANYWHERE, Def::Sink(sink!("`cache.add`")))),
        (Obj::Caches, Row(&["open"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Caches)))),
        (Obj::Xhr, Row(&["send"], ANYWHERE, Def::Sink(sink!("`XMLHttpRequest.send`")))),
        // `fetch(id, requests, options)`: one download of many requests.
        (Obj::BackgroundFetch, Row(&["fetch"], ANYWHERE, Def::Effect(Effect::LoadsEachListed(sink!("`backgroundFetch.fetch`"), "requests", 1)))),
    ],
    any: &[
        Row(&["navigator"], ANYWHERE, Def::Obj(Obj::Navigator)),
        Row(&["serviceWorker"], ANYWHERE, Def::Obj(Obj::ServiceWorkers)),
        Row(&["fetch"], ANYWHERE, Def::Sink(sink!("`fetch`"))),
        Row(&["fetchLater"], ANYWHERE, Def::Sink(sink!("`fetchLater`"))),
        Row(&["sendBeacon"], ANYWHERE, Def::Sink(sink!("`navigator.sendBeacon`"))),
        Row(&["send"], PAGE, Def::Sink(SEND)),
        Row(&["importScripts"], ANYWHERE, Def::Effect(IMPORT_SCRIPTS)),
        Row(&["addModule"], ANYWHERE, Def::Sink(sink!("worklet `addModule`", loads Always))),
        Row(&["addAll"], ANYWHERE, Def::Effect(Effect::LoadsEachListed(sink!("`cache.addAll`"), "URLs", 0))),
        Row(&["backgroundFetch"], ANYWHERE, Def::Obj(Obj::BackgroundFetch)),
    ],
};

/// A request's `send`; on the Playwright server a CDP session's `send` is
/// read by its command (`playwright`).
pub(super) const SEND: &Sink = sink!("`XMLHttpRequest.send`");

/// `importScripts(a, b, …)`: one script per argument.
const IMPORT_SCRIPTS: Effect =
    Effect::LoadsEachArgument(sink!("`importScripts`", loads Always), "scripts");

/// `import(url)`, the syntax: a module, and the modules it imports.
pub(in crate::read::script) const IMPORT: &Sink = sink!("`import()`", loads Always);
