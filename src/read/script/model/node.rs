//! Node, beside Playwright on its server: its ways to load a module or
//! native code, which run code the analysis does not see.

use super::*;

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(names!["require"], SERVER, Def::Opaque("`require`")),
        Row(names!["process"], SERVER, Def::Opaque("Node's `process`")),
    ],
    members: &[],
    // `process.mainModule.require`, `process.binding`.
    any: &[Row(names!["require", "binding", "_linkedBinding", "dlopen"], SERVER, Def::Opaque("a Node module or binding"))],
};

/// Whether `import(name)` of a name that is not a URL loads a module of
/// the environment's own (`import('node:fs')`), which the analysis does
/// not see.
pub(in crate::read::script) fn imports_modules(env: Env) -> bool {
    env == Env::PlaywrightServer
}

/// How the model reads such an import.
pub(in crate::read::script) const MODULE_IMPORT: &str = "`import()` of a Node module";
