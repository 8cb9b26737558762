//! The hook files of every agent `install --client` writes, each read as its
//! own client reads it: where the file is in each scope, its layout (a
//! [`Format`] the settings edits take), the matcher, the timeout's unit, and
//! what the client needs besides the file before the hook runs at all.
//!
//! Checked in each client's source (or, where it has none to read, its
//! documentation), as `hook::client` is:
//! - **Codex CLI** (`codex-rs/hooks/src/engine/discovery.rs`,
//!   `codex-rs/config/src/hook_config.rs`): `hooks.json` in each config
//!   layer's folder, `$CODEX_HOME` (`~/.codex`) for the user and `.codex/`
//!   for a project; read with `serde_json` into a `HooksFile` that is
//!   `deny_unknown_fields` (anything beside `hooks` and the whole file is
//!   ignored, with a warning), handlers tagged by `type`, `timeout` a whole
//!   number of seconds (600 by default). A project's `.codex/` is read only
//!   when the project is trusted (`[projects."<dir>"] trust_level =
//!   "trusted"` in the user's `config.toml`), and **every hook that is not
//!   managed must be trusted too**: its `trusted_hash` under
//!   `[hooks.state."<hooks.json path>:pre_tool_use:<group>:<handler>"]` in
//!   `config.toml` must match the hook as it is now, or it does not run
//!   (`codex exec` says nothing; the TUI asks "Hooks need review", and
//!   `/hooks` lists them). pace-hook does not write that trust: it is
//!   Codex's own review of what runs outside its sandbox, and its hash is
//!   Codex's internal format. `install` says what to do; `doctor` looks for
//!   the recorded trust.
//! - **Gemini CLI** (`packages/cli/src/config/settings.ts`,
//!   `packages/core/src/hooks/`): `settings.json` in `~/.gemini` and
//!   `.gemini/`, read with `JSON.parse(stripJsonComments(text))` (comments
//!   allowed, trailing commas not), `hooks.BeforeTool` / `AfterTool` of
//!   matcher groups whose matcher is a JavaScript regex tested against the
//!   tool's name; `timeout` in milliseconds (60000 by default);
//!   `hooksConfig.enabled: false` runs no hook, `hooksConfig.disabled` lists
//!   hooks (by name or command) that do not run; in a folder that is not
//!   trusted no settings hook runs at all.
//! - **Copilot CLI and VS Code** read the same files: `.github/hooks/*.json`
//!   (`{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash":
//!   …, "timeoutSec": …}]}}`, no matchers: every tool runs the hook), and VS
//!   Code also `~/.copilot/hooks/`. VS Code reads Copilot CLI's camelCase
//!   names as its own events and sends its own (Claude Code's) payloads, so
//!   the one command, `pace-hook --client copilot`, meets both: an event
//!   with `hook_event_name` is VS Code's (`Client::for_event`).
//! - **Cline** (`.clinerules/hooks/README.md`, `core/storage/disk.ts`): an
//!   executable file named after the event in `.clinerules/hooks/` or
//!   `~/Documents/Cline/Hooks/`, one per event and directory; hooks run only
//!   with "Enable Hooks" on in Cline's settings; a fixed 30 s timeout.

use std::path::{Path, PathBuf};

use crate::{
    commands::settings::{self, Format, Schema, Scope},
    error::{Error, Result},
    hook::client::Client,
};

/// Codex CLI's `hooks.json`.
pub(crate) const CODEX: Format = Format {
    name: "Codex CLI",
    events: &["PreToolUse", "PostToolUse"],
    grouped: true,
    command_key: "command",
    timeout_key: "timeout",
    version: None,
    comments: false,
    surrogates: false,
    bom: false,
    only_hooks: true,
    flag: Some("codex"),
    schema: Schema::Codex,
};

/// Gemini CLI's `settings.json`.
pub(crate) const GEMINI: Format = Format {
    name: "Gemini CLI",
    events: &["BeforeTool", "AfterTool"],
    grouped: true,
    command_key: "command",
    timeout_key: "timeout",
    version: None,
    comments: true,
    surrogates: true,
    bom: false,
    only_hooks: false,
    flag: Some("gemini"),
    schema: Schema::Lenient,
};

/// Copilot CLI's (and VS Code's) `.github/hooks/*.json`.
pub(crate) const COPILOT: Format = Format {
    name: "Copilot CLI",
    events: &["preToolUse", "postToolUse", "postToolUseFailure"],
    grouped: false,
    command_key: "bash",
    timeout_key: "timeoutSec",
    version: Some(1),
    comments: false,
    surrogates: true,
    bom: false,
    only_hooks: false,
    flag: Some("copilot"),
    schema: Schema::Lenient,
};

/// Codex's own reading of a `hooks.json`, its serde types mirrored
/// (`codex-rs/config/src/hook_config.rs`, 0.171): nothing beside `hooks`;
/// each known event a list of matcher groups; each handler tagged by
/// `type`, a command's `command` a string and its `timeout` a whole number
/// of seconds. Unknown events and unknown fields are ignored, as there. A
/// file that fails this is ignored by Codex as a whole.
pub(crate) fn codex_reads(text: &str) -> std::result::Result<(), String> {
    use serde::Deserialize;
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct HooksFile {
        #[serde(default)]
        hooks: Events,
    }
    #[derive(Deserialize, Default)]
    #[allow(dead_code, non_snake_case)]
    struct Events {
        #[serde(default)]
        PreToolUse: Vec<Group>,
        #[serde(default)]
        PermissionRequest: Vec<Group>,
        #[serde(default)]
        PostToolUse: Vec<Group>,
        #[serde(default)]
        PreCompact: Vec<Group>,
        #[serde(default)]
        PostCompact: Vec<Group>,
        #[serde(default)]
        SessionStart: Vec<Group>,
        #[serde(default)]
        UserPromptSubmit: Vec<Group>,
        #[serde(default)]
        SubagentStart: Vec<Group>,
        #[serde(default)]
        SubagentStop: Vec<Group>,
        #[serde(default)]
        Stop: Vec<Group>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Group {
        #[serde(default)]
        matcher: Option<String>,
        #[serde(default)]
        hooks: Vec<Handler>,
    }
    #[derive(Deserialize)]
    #[serde(tag = "type")]
    #[allow(dead_code)]
    enum Handler {
        #[serde(rename = "command")]
        Command {
            command: String,
            #[serde(default, rename = "commandWindows", alias = "command_windows")]
            command_windows: Option<String>,
            #[serde(default)]
            timeout: Option<u64>,
            #[serde(default, rename = "async")]
            is_async: bool,
            #[serde(default, rename = "statusMessage")]
            status_message: Option<String>,
        },
        #[serde(rename = "prompt")]
        Prompt {},
        #[serde(rename = "agent")]
        Agent {},
    }
    serde_json::from_str::<HooksFile>(text)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Gemini CLI's tools pace-hook reads (`hook::client::gemini`): MCP tools
/// under both namings, `web_fetch`, `google_web_search`, and its shell.
pub(crate) const GEMINI_MATCHER: &str =
    "^(mcp_.*|.*__.*|web_fetch|google_web_search|run_shell_command)$";

/// Cline's two hooks, the file names it runs.
pub(crate) const CLINE_EVENTS: [&str; 2] = ["PreToolUse", "PostToolUse"];

/// Where one client's hook lives in one scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// A JSON hook file of this format.
    File(PathBuf, Format),
    /// Cline's directory of executables.
    Scripts(PathBuf),
}

impl Place {
    /// The file, or the directory, for messages.
    pub(crate) fn path(&self) -> &Path {
        match self {
            Place::File(p, _) | Place::Scripts(p) => p,
        }
    }
}

/// The client's name for people.
pub(crate) fn title(client: Client) -> &'static str {
    match client {
        Client::ClaudeCode => "Claude Code",
        Client::Codex => "Codex CLI",
        Client::Gemini => "Gemini CLI",
        Client::Copilot => "Copilot CLI",
        Client::VsCode => "VS Code",
        Client::Cline => "Cline",
    }
}

/// The user's home, required.
fn home() -> Result<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| Error::Settings {
            path: PathBuf::from("~"),
            problem: "cannot be found: HOME is not set".into(),
            fix: "set HOME".into(),
        })
}

/// Codex's own directory: `$CODEX_HOME`, else `~/.codex`.
pub(crate) fn codex_home(home: &Path) -> PathBuf {
    std::env::var_os("CODEX_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".codex"))
}

/// The place of `client`'s hook in `scope`, for the project `project` and
/// the home `home`; `None` where the client has no such scope.
pub(crate) fn place_in(client: Client, scope: Scope, home: &Path, project: &Path) -> Option<Place> {
    let file = |p: PathBuf, f: Format| Some(Place::File(p, f));
    match (client, scope) {
        (Client::ClaudeCode, _) => None,
        (Client::Codex, Scope::Project) => file(project.join(".codex").join("hooks.json"), CODEX),
        (Client::Codex, Scope::User) => file(codex_home(home).join("hooks.json"), CODEX),
        (Client::Gemini, Scope::Project) => {
            file(project.join(".gemini").join("settings.json"), GEMINI)
        }
        (Client::Gemini, Scope::User) => file(home.join(".gemini").join("settings.json"), GEMINI),
        (Client::Copilot | Client::VsCode, Scope::Project) => file(
            project.join(".github").join("hooks").join("pace-hook.json"),
            COPILOT,
        ),
        (Client::Copilot | Client::VsCode, Scope::User) => file(
            home.join(".copilot").join("hooks").join("pace-hook.json"),
            COPILOT,
        ),
        (Client::Cline, Scope::Project) => {
            Some(Place::Scripts(project.join(".clinerules").join("hooks")))
        }
        (Client::Cline, Scope::User) => Some(Place::Scripts(
            home.join("Documents").join("Cline").join("Hooks"),
        )),
        (_, Scope::Local) => None,
    }
}

/// The place of `client`'s hook in `scope`, here; an error that says which
/// scopes the client has when it has not this one.
pub(crate) fn place(client: Client, scope: Scope) -> Result<Place> {
    let project = settings::project_dir()?;
    let home = home()?;
    let Some(place) = place_in(client, scope, &home, &project) else {
        return Err(Error::Usage {
            message: format!(
                "{} has no {} hook file: give --project (the default) or --user",
                title(client),
                match scope {
                    Scope::Local => "local",
                    Scope::User => "user",
                    Scope::Project => "project",
                }
            ),
        });
    };
    if scope != Scope::User && !project.is_dir() {
        return Err(Error::Settings {
            path: place.path().to_owned(),
            problem: "is in a project directory that does not exist".into(),
            fix: "check $CLAUDE_PROJECT_DIR, or run pace-hook from the project without it".into(),
        });
    }
    Ok(place)
}

/// What `install` writes for `client`: the matcher (where the format has
/// matchers), the timeout as the file counts it, the command.
pub(crate) fn hook_for(client: Client, exe: &str, timeout_s: u64) -> settings::Hook {
    let (matcher, timeout) = match client {
        Client::Gemini => (GEMINI_MATCHER, timeout_s * 1000),
        _ => (crate::read::matcher::MATCHER, timeout_s),
    };
    settings::Hook {
        matcher: matcher.to_owned(),
        command: command_for(client, exe, Some(timeout_s)),
        timeout,
    }
}

/// The command a hook runs: pace-hook's path as one shell word, the client,
/// and the timeout the file sets (so that the hook waits no longer).
pub(crate) fn command_for(client: Client, exe: &str, timeout_s: Option<u64>) -> String {
    // Copilot CLI's and VS Code's shared file names the one client whose
    // reading covers both (see the module's notes).
    let name = match client {
        Client::VsCode => Client::Copilot.name(),
        c => c.name(),
    };
    let mut command = format!("{} --client {name}", settings::shell_quote(exe));
    if let Some(t) = timeout_s {
        command += &format!(" --timeout {t}");
    }
    command
}

/// The script `install` writes for one of Cline's hooks: `exec`, so that
/// pace-hook's own exit code and output are the hook's.
pub(crate) fn cline_script(exe: &str) -> String {
    format!(
        "#!/bin/sh\n# Written by `pace-hook install --client cline`; `pace-hook uninstall --client cline` removes it.\nexec {}\n",
        command_for(Client::Cline, exe, None)
    )
}

/// Whether `text` is a script `install --client cline` wrote (from any
/// pace-hook path): its two comment lines and an `exec` of a program named
/// `pace-hook` with `--client cline`, nothing else.
pub(crate) fn is_our_cline_script(text: &str) -> bool {
    let mut lines = text.lines();
    let (Some(shebang), Some(comment), Some(exec), None) =
        (lines.next(), lines.next(), lines.next(), lines.next())
    else {
        return false;
    };
    let Some(words) = exec.strip_prefix("exec ").and_then(settings::shell_words) else {
        return false;
    };
    let words: Vec<&str> = words.iter().map(|(w, _)| w.as_str()).collect();
    shebang == "#!/bin/sh"
        && comment.starts_with("# Written by `pace-hook install --client cline`")
        && matches!(words.as_slice(), [program, "--client", "cline"] if program.rsplit('/').next() == Some("pace-hook"))
}

/// What the client needs besides its hook file before the hook runs, for
/// `install`'s output; empty for none.
pub(crate) fn needs(client: Client, place: &Place, scope: Scope) -> Vec<String> {
    match client {
        Client::Codex => {
            let mut out = vec![format!(
                "Codex runs a hook only once you trust it, and then only as it was when trusted: start `codex` here and answer \"Hooks need review\" with \"Trust all and continue\" (or trust them in `/hooks`); until then, and in `codex exec`, pace-hook does not run at all. A changed hook (another timeout, a moved binary) needs trusting again"
            )];
            if scope == Scope::Project {
                out.push(
                    "Codex reads a project's `.codex/` only when the project itself is trusted (it asks when it first starts in it)".to_owned(),
                );
            }
            out
        }
        Client::Gemini => vec![
            "Gemini CLI runs settings hooks only in a folder it trusts (it asks when it first starts in one), and none with `hooksConfig.enabled` false".to_owned(),
        ],
        Client::Copilot | Client::VsCode => {
            let other = if client == Client::Copilot {
                "VS Code"
            } else {
                "Copilot CLI"
            };
            let mut out = vec![format!(
                "{other} reads this file too, and the one command answers each in its own form"
            )];
            if scope == Scope::User {
                out.push(format!(
                    "VS Code reads `{}`'s folder; Copilot CLI reads the hooks of the directory it runs in",
                    place.path().display()
                ));
            }
            out
        }
        Client::Cline => vec![
            "Cline runs hooks only with \"Enable Hooks\" on in its settings (Feature Settings)".to_owned(),
        ],
        Client::ClaudeCode => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_but_claude_has_a_project_and_a_user_place() {
        for client in crate::hook::client::ALL {
            for scope in [Scope::Project, Scope::User] {
                let place = place_in(client, scope, Path::new("/h"), Path::new("/p"));
                assert_eq!(place.is_some(), client != Client::ClaudeCode, "{client:?}");
            }
            assert!(place_in(client, Scope::Local, Path::new("/h"), Path::new("/p")).is_none());
        }
    }

    #[test]
    fn a_cline_script_is_recognised_from_any_path_and_nothing_else_is() {
        assert!(is_our_cline_script(&cline_script("/usr/bin/pace-hook")));
        assert!(is_our_cline_script(&cline_script("/a b/pace-hook")));
        assert!(!is_our_cline_script(&cline_script("/usr/bin/other")));
        let extra = format!("{}curl x\n", cline_script("/usr/bin/pace-hook"));
        assert!(!is_our_cline_script(&extra));
        assert!(!is_our_cline_script(
            "#!/bin/sh\nexec pace-hook --client cline\n"
        ));
    }

    #[test]
    fn the_gemini_matcher_covers_its_web_shell_and_mcp_tools_only() {
        let re = regex_lite::Regex::new(GEMINI_MATCHER).unwrap();
        for t in [
            "web_fetch",
            "google_web_search",
            "run_shell_command",
            "mcp_playwright_browser_navigate",
            "playwright__browser_navigate",
        ] {
            assert!(re.is_match(t), "{t}");
        }
        for t in ["read_file", "write_file", "glob", "web_fetcher"] {
            assert!(!re.is_match(t), "{t}");
        }
    }

    #[test]
    fn codex_reads_what_codex_reads_and_refuses_the_rest() {
        assert!(codex_reads("{}").is_ok());
        assert!(codex_reads(r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 5}]}], "NewEvent": 3}}"#).is_ok());
        for bad in [
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 1.5}]}]}}"#,
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "shell", "command": "x"}]}]}}"#,
            r#"{"hooks": {"PostToolUse": {"matcher": "x"}}}"#,
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}}"#,
            r#"{"hooks": {"PreToolUse": [{"matcher": 3, "hooks": []}]}}"#,
        ] {
            assert!(codex_reads(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_command_names_the_client_and_the_timeout() {
        assert_eq!(
            command_for(Client::Codex, "/b/pace-hook", Some(300)),
            "/b/pace-hook --client codex --timeout 300"
        );
        assert_eq!(
            command_for(Client::VsCode, "/a b/pace-hook", Some(30)),
            "'/a b/pace-hook' --client copilot --timeout 30"
        );
        assert_eq!(
            hook_for(Client::Gemini, "/b/pace-hook", 300).timeout,
            300_000
        );
    }
}
