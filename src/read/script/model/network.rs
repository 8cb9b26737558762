//! Requests a script makes itself: `fetch`, `XMLHttpRequest`, beacons,
//! sockets and event streams, workers and service workers, caches, and
//! the code it imports.

use super::*;

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(names!["fetch"], ANYWHERE, Def::Sink(sink!("`fetch`"))),
        Row(names!["fetchLater"], ANYWHERE, Def::Sink(sink!("`fetchLater`"))),
        Row(names!["WebSocket"], ANYWHERE, Def::Sink(sink!("`new WebSocket`"))),
        Row(names!["EventSource"], ANYWHERE, Def::Sink(sink!("`new EventSource`"))),
        Row(names!["WebTransport"], ANYWHERE, Def::Sink(sink!("`new WebTransport`"))),
        Row(names!["WebSocketStream"], ANYWHERE, Def::Sink(sink!("`new WebSocketStream`"))),
        Row(names!["Worker"], ANYWHERE, Def::Sink(sink!("`new Worker`", loads Always))),
        Row(names!["SharedWorker"], ANYWHERE, Def::Sink(sink!("`new SharedWorker`", loads Always))),
        // An object, no request until `send`.
        Row(names!["XMLHttpRequest"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Xhr))),
        Row(names!["importScripts"], ANYWHERE, Def::Effect(IMPORT_SCRIPTS)),
        Row(names!["caches"], ANYWHERE, Def::Obj(Obj::Caches)),
        Row(names!["navigator"], ANYWHERE, Def::Obj(Obj::Navigator)),
    ],
    members: &[
        (Obj::Navigator, Row(names!["sendBeacon"], ANYWHERE, Def::Sink(sink!("`navigator.sendBeacon`")))),
        (Obj::Navigator, Row(names!["serviceWorker"], ANYWHERE, Def::Obj(Obj::ServiceWorkers))),
        (Obj::ServiceWorkers, Row(names!["register"], ANYWHERE, Def::Sink(sink!("`navigator.serviceWorker.register`", loads Always)))),
        (Obj::Caches, Row(names!["add"], ANYWHERE, Def::Sink(sink!("`cache.add`")))),
        (Obj::Caches, Row(names!["open"], ANYWHERE, Def::Effect(Effect::Returns(Obj::Caches)))),
        (Obj::Xhr, Row(names!["send"], ANYWHERE, Def::Sink(sink!("`XMLHttpRequest.send`")))),
        // `fetch(id, requests, options)`: one download of many requests.
        (Obj::BackgroundFetch, Row(names!["fetch"], ANYWHERE, Def::Effect(Effect::LoadsEachListed(&Listed { sink: sink!("`backgroundFetch.fetch`"), things: "requests", at: 1 })))),
    ],
    any: &[
        Row(names!["navigator"], ANYWHERE, Def::Obj(Obj::Navigator)),
        Row(names!["serviceWorker"], ANYWHERE, Def::Obj(Obj::ServiceWorkers)),
        Row(names!["fetch"], ANYWHERE, Def::Sink(sink!("`fetch`"))),
        Row(names!["fetchLater"], ANYWHERE, Def::Sink(sink!("`fetchLater`"))),
        Row(names!["sendBeacon"], ANYWHERE, Def::Sink(sink!("`navigator.sendBeacon`"))),
        Row(names!["send"], PAGE, Def::Sink(SEND)),
        Row(names!["importScripts"], ANYWHERE, Def::Effect(IMPORT_SCRIPTS)),
        Row(names!["addModule"], ANYWHERE, Def::Sink(sink!("worklet `addModule`", loads Always))),
        Row(names!["addAll"], ANYWHERE, Def::Effect(Effect::LoadsEachListed(&Listed { sink: sink!("`cache.addAll`"), things: "URLs", at: 0 }))),
        Row(names!["backgroundFetch"], ANYWHERE, Def::Obj(Obj::BackgroundFetch)),
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
