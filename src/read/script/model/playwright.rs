//! Playwright's objects on its server: the `page`, its context, the
//! request API, navigation, the actions that can submit a form or follow a
//! link, and the code it runs in the page.

use super::*;

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(&["page"], SERVER, Def::Obj(Obj::Page)),
        Row(&["context"], SERVER, Def::Obj(Obj::BrowserContext)),
    ],
    members: &[
        (Obj::Page, Row(&["request"], ANYWHERE, Def::Obj(Obj::ApiRequest))),
        (Obj::BrowserContext, Row(&["request"], ANYWHERE, Def::Obj(Obj::ApiRequest))),
        (Obj::ApiRequest, Row(&["get", "post", "put", "patch", "delete", "head", "fetch"], ANYWHERE, Def::Sink(sink!("`request`")))),
        (Obj::ApiRequest, Row(&["newContext"], ANYWHERE, Def::Effect(Effect::Returns(Obj::ApiRequest)))),
    ],
    // On any object of the server side: Playwright's methods are on pages,
    // frames, locators and element handles alike. (`reload` is the page's
    // too; the navigation row names it for every object.)
    any: &[
        Row(&["goto"], SERVER, Def::Sink(sink!("`page.goto`"))),
        Row(&["goBack"], SERVER, Def::Sink(sink!("`page.goBack`"))),
        Row(&["goForward"], SERVER, Def::Sink(sink!("`page.goForward`"))),
        Row(&["dblclick"], SERVER, Def::Sink(sink!("`dblclick`"))),
        Row(&["tap"], SERVER, Def::Sink(sink!("`tap`"))),
        Row(&["fill"], SERVER, Def::Sink(sink!("`fill`"))),
        Row(&["press"], SERVER, Def::Sink(sink!("`press`"))),
        Row(&["pressSequentially"], SERVER, Def::Sink(sink!("`pressSequentially`"))),
        Row(&["type"], SERVER, Def::Sink(sink!("`type`"))),
        Row(&["insertText"], SERVER, Def::Sink(sink!("`insertText`"))),
        Row(&["check"], SERVER, Def::Sink(sink!("`check`"))),
        Row(&["uncheck"], SERVER, Def::Sink(sink!("`uncheck`"))),
        Row(&["setChecked"], SERVER, Def::Sink(sink!("`setChecked`"))),
        Row(&["selectOption"], SERVER, Def::Sink(sink!("`selectOption`"))),
        Row(&["setInputFiles"], SERVER, Def::Sink(sink!("`setInputFiles`"))),
        Row(&["dragTo"], SERVER, Def::Sink(sink!("`dragTo`"))),
        Row(&["dragAndDrop"], SERVER, Def::Sink(sink!("`dragAndDrop`"))),
        Row(&["setContent"], SERVER, Def::Effect(Effect::Markup("`page.setContent`", 0))),
        Row(&["addScriptTag"], SERVER, Def::Opaque("`page.addScriptTag`, whose script the analysis does not read")),
        Row(&["addStyleTag"], SERVER, Def::Sink(sink!("`page.addStyleTag`"))),
        // They wait for a navigation; they start none.
        Row(&["waitForURL", "waitForNavigation", "waitForLoadState"], SERVER, Def::Inert),
        Row(&["evaluate", "evaluateAll", "evaluateHandle"], SERVER, Def::Effect(Effect::RunsInPage(0))),
        Row(&["$eval", "$$eval"], SERVER, Def::Effect(Effect::RunsInPage(1))),
        Row(&["addInitScript"], SERVER, Def::Effect(Effect::RunsInEveryPage)),
        Row(&["request"], SERVER, Def::Obj(Obj::ApiRequest)),
        Row(&["context"], SERVER, Def::Effect(Effect::Returns(Obj::BrowserContext))),
        Row(&["newPage", "mainFrame", "page"], SERVER, Def::Effect(Effect::Returns(Obj::Page))),
    ],
};

/// The function sent to run on the server is called with the `page`.
pub(super) fn first_argument(env: Env) -> Option<Def> {
    (env == Env::PlaywrightServer).then_some(Def::Obj(Obj::Page))
}
