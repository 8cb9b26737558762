//! Playwright's objects on its server: the `page`, its context, the
//! request API, navigation, the actions that can submit a form or follow a
//! link, and the code it runs in the page.

use super::*;

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(names!["page"], SERVER, Def::Obj(Obj::Page)),
        Row(names!["context"], SERVER, Def::Obj(Obj::BrowserContext)),
    ],
    members: &[
        // The button's release is the click; a key's press is where Enter
        // submits a form or follows a link.
        (Obj::Mouse, Row(names!["up"], SERVER, Def::Sink(sink!("`mouse.up`, a click")))),
        (Obj::Mouse, Row(names!["down", "move", "wheel"], SERVER, Def::Inert)),
        (Obj::Keyboard, Row(names!["down"], SERVER, Def::Sink(sink!("`keyboard.down`, a key that can submit or follow a link")))),
        (Obj::Keyboard, Row(names!["up"], SERVER, Def::Inert)),
        (Obj::Page, Row(names!["request"], ANYWHERE, Def::Obj(Obj::ApiRequest))),
        (Obj::BrowserContext, Row(names!["request"], ANYWHERE, Def::Obj(Obj::ApiRequest))),
        (Obj::ApiRequest, Row(names!["get", "post", "put", "patch", "delete", "head", "fetch"], ANYWHERE, Def::Sink(sink!("`request`")))),
        (Obj::ApiRequest, Row(names!["newContext"], ANYWHERE, Def::Effect(Effect::Returns(Obj::ApiRequest)))),
    ],
    // On any object of the server side: Playwright's methods are on pages,
    // frames, locators and element handles alike. (`reload` is the page's
    // too; the navigation row names it for every object.)
    any: &[
        Row(names!["goto"], SERVER, Def::Sink(sink!("`page.goto`"))),
        Row(names!["goBack"], SERVER, Def::Sink(sink!("`page.goBack`"))),
        Row(names!["goForward"], SERVER, Def::Sink(sink!("`page.goForward`"))),
        Row(names!["dblclick"], SERVER, Def::Sink(sink!("`dblclick`"))),
        Row(names!["tap"], SERVER, Def::Sink(sink!("`tap`"))),
        // Input actions: what `browser_fill_form` does field by field; those
        // of one call count as one possible request (the page's handlers
        // may fetch), and a click or key after them as another.
        Row(names!["fill"], SERVER, Def::Sink(sink!("`fill`", input))),
        Row(names!["press"], SERVER, Def::Sink(sink!("`press`"))),
        Row(names!["pressSequentially"], SERVER, Def::Sink(sink!("`pressSequentially`"))),
        Row(names!["type"], SERVER, Def::Sink(sink!("`type`"))),
        Row(names!["insertText"], SERVER, Def::Sink(sink!("`insertText`"))),
        Row(names!["check"], SERVER, Def::Sink(sink!("`check`", input))),
        Row(names!["uncheck"], SERVER, Def::Sink(sink!("`uncheck`", input))),
        Row(names!["setChecked"], SERVER, Def::Sink(sink!("`setChecked`", input))),
        Row(names!["selectOption"], SERVER, Def::Sink(sink!("`selectOption`", input))),
        Row(names!["setInputFiles"], SERVER, Def::Sink(sink!("`setInputFiles`"))),
        Row(names!["dragTo"], SERVER, Def::Sink(sink!("`dragTo`"))),
        Row(names!["dragAndDrop"], SERVER, Def::Sink(sink!("`dragAndDrop`"))),
        Row(names!["setContent"], SERVER, Def::Effect(Effect::Markup("`page.setContent`", 0))),
        Row(names!["addScriptTag"], SERVER, Def::Opaque("`page.addScriptTag`, whose script the analysis does not read")),
        Row(names!["addStyleTag"], SERVER, Def::Sink(sink!("`page.addStyleTag`"))),
        // They wait for a navigation; they start none.
        Row(names!["waitForURL", "waitForNavigation", "waitForLoadState"], SERVER, Def::Inert),
        Row(names!["evaluate", "evaluateAll", "evaluateHandle"], SERVER, Def::Effect(Effect::RunsInPage(0))),
        // Polled until it gives a true value: any number of times.
        Row(names!["waitForFunction"], SERVER, Def::Effect(Effect::PollsInPage(0))),
        Row(names!["mouse"], SERVER, Def::Obj(Obj::Mouse)),
        Row(names!["keyboard"], SERVER, Def::Obj(Obj::Keyboard)),
        // A CDP session's command, or a socket's message.
        Row(names!["send"], SERVER, Def::Effect(Effect::Devtools(super::network::SEND))),
        Row(names!["$eval", "$$eval"], SERVER, Def::Effect(Effect::RunsInPage(1))),
        Row(names!["addInitScript"], SERVER, Def::Effect(Effect::RunsInEveryPage)),
        // A route's answer: markup is a document whose subresources load
        // (the route's handler runs for every request it matches).
        Row(names!["fulfill"], SERVER, Def::Effect(Effect::Fulfills)),
        Row(names!["request"], SERVER, Def::Obj(Obj::ApiRequest)),
        Row(names!["context"], SERVER, Def::Effect(Effect::Returns(Obj::BrowserContext))),
        Row(names!["newPage", "mainFrame", "page"], SERVER, Def::Effect(Effect::Returns(Obj::Page))),
    ],
};

/// What a DevTools protocol command does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum Devtools {
    /// Runs the page code in this parameter; with `true`, in every page
    /// the target loads.
    Runs(&'static str, bool),
    /// Starts a request, or acts as a user would (a click, a key).
    Request,
    /// Runs code the analysis does not read.
    Opaque,
    /// Known to start nothing: it reads, or sets how the browser behaves.
    Inert,
    /// Not known to the model: a possible request.
    Unknown,
}

/// Commands that read the page or set how the browser behaves.
const INERT_DEVTOOLS: Names = names![
    "Page.captureScreenshot",
    "Page.getLayoutMetrics",
    "Page.getFrameTree",
    "Page.printToPDF",
    "DOM.getDocument",
    "DOM.querySelector",
    "DOM.querySelectorAll",
    "DOM.getOuterHTML",
    "DOM.describeNode",
    "DOM.getBoxModel",
    "DOM.resolveNode",
    "Accessibility.getFullAXTree",
    "Accessibility.getPartialAXTree",
    "Performance.getMetrics",
    "Network.getCookies",
    "Network.getAllCookies",
    "Network.getResponseBody",
    "Network.setCacheDisabled",
    "Network.emulateNetworkConditions",
    "Network.setExtraHTTPHeaders",
    "Network.setUserAgentOverride",
    "Browser.getVersion",
    "Runtime.getProperties",
    "Runtime.releaseObject",
    "Storage.getCookies",
];

/// Commands that start a request or act as a user would.
const REQUEST_DEVTOOLS: Names = names![
    "Page.navigate",
    "Page.reload",
    "Page.navigateToHistoryEntry",
    "Target.createTarget",
    "Network.loadNetworkResource",
    "Input.dispatchMouseEvent",
    "Input.dispatchKeyEvent",
    "Input.dispatchTouchEvent",
    "Input.insertText",
    "Input.dispatchDragEvent",
];

/// What the command `method` (`Domain.command`) does.
pub(in crate::read::script) fn devtools(method: &str) -> Devtools {
    match method {
        "Runtime.evaluate" => Devtools::Runs("expression", false),
        "Runtime.callFunctionOn" => Devtools::Runs("functionDeclaration", false),
        "Page.addScriptToEvaluateOnNewDocument" => Devtools::Runs("source", true),
        "Runtime.compileScript" | "Runtime.runScript" | "Page.setDocumentContent" => {
            Devtools::Opaque
        }
        m if m.starts_with("Debugger.") => Devtools::Opaque,
        m if REQUEST_DEVTOOLS.contains(m) => Devtools::Request,
        m if INERT_DEVTOOLS.contains(m)
            || m.ends_with(".enable")
            || m.ends_with(".disable")
            || m.starts_with("Emulation.")
            || m.starts_with("Overlay.")
            || m.starts_with("Log.") =>
        {
            Devtools::Inert
        }
        _ => Devtools::Unknown,
    }
}

/// The function sent to run on the server is called with the `page`.
pub(super) fn first_argument(env: Env) -> Option<Def> {
    (env == Env::PlaywrightServer).then_some(Def::Obj(Obj::Page))
}

/// Whether a file served by `route.fulfill({ path })` is markup, by its
/// name's extension (Playwright types it so).
pub(in crate::read::script) fn markup_file(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".html", ".htm", ".xhtml", ".svg", ".xml", ".shtml"]
        .iter()
        .any(|e| lower.ends_with(e))
}
