//! The coding agents pace-hook answers, one file each: how the client's
//! events read (their fields, their event names, their tool names), how it
//! is answered (exactly the fields it knows, nothing more), and how long it
//! lets a hook run. Everything below this module sees one [`HookEvent`] in
//! Claude Code's terms, whoever sent it: the hook, the readers and the gate
//! are client-blind, and every client's sessions key the same-agent rule as
//! Claude Code's do.
//!
//! ## Which client: the installed command says it
//!
//! The command each client's hook file holds names the client:
//! `pace-hook --client codex` (and `--timeout SECONDS` where install sets
//! one). The fields alone are the fallback for a bare `pace-hook`, which is
//! what Claude Code's settings have always held. A flag, not detection, is
//! what decides, for three reasons:
//! - An event that cannot be read must still be refused in its client's own
//!   form. Cline and Copilot CLI let the call run on any exit code that is
//!   not 0 with their JSON, so without the flag a truncated or garbled event
//!   would be answered the Claude way and the call would pass unpaced.
//! - VS Code's events have Claude Code's shape (so does Copilot CLI's when a
//!   hook file names its events in PascalCase), but VS Code gives a hook 30 s
//!   where Claude Code gives 600 s: only the command line can say which
//!   timeout applies, and a wait that outlives it lets the call through.
//! - A field is what a client sends today; a hook file is what the user
//!   installed. The flag cannot drift with a client's next release.
//!
//! Without the flag, [`Client::detect`] reads the fields: Cline's `hookName`,
//! Copilot CLI's camelCase `toolName`, Gemini CLI's `BeforeTool`/`AfterTool`,
//! Codex's `turn_id`, VS Code's `timestamp` beside `hook_event_name`; else
//! Claude Code.
//!
//! ## How long: under the client's own timeout
//!
//! A client kills a hook at its timeout and then runs the call, unpaced. So
//! an event carries [`HookEvent::max_wait_ms`]: the client's timeout (the
//! installed one when the command gives it, else the client's default) less
//! [`SLACK_MS`]. A bare `pace-hook` (Claude Code's settings, whose timeout
//! install sets above `max_wait`) keeps the config's `max_wait` alone. The hook waits at most the smaller of that and the config's
//! `max_wait`, and past it denies the call saying when the site is free.
//!
//! ## What was checked where
//! - Claude Code: real runs of 2.1.332 (the captured payloads in `tests/fixtures/`).
//! - Codex CLI: real runs of 0.169.0 (the captured `codex-0.169.0-*`
//!   payloads); its output schema and parser (`codex-rs/hooks`: additional
//!   properties refused; `allow` without `updatedInput`, `ask`, a deny
//!   without a reason, `continue: false`, `stopReason`, `suppressOutput`
//!   refused on a Pre).
//! - Gemini CLI: its source (`packages/core/src/hooks`: `BeforeTool`,
//!   `AfterTool`, `mcp_context`; exit 2 blocks with stderr as the reason;
//!   60000 ms default timeout; MCP tools named `mcp_<server>_<tool>`, older
//!   releases `<server>__<tool>`; `web_fetch` takes its URLs in `prompt`, or
//!   one `url` in its direct mode; `google_web_search`).
//! - Copilot CLI: its hooks reference (camelCase payloads without an event
//!   name, `toolArgs`, `toolResult`; a deny is `permissionDecision: "deny"`
//!   with a reason on stdout; a non-zero exit or a timeout is logged and the
//!   call runs; `timeoutSec`, default 30; `web_fetch`; MCP tools named
//!   `<server>-<tool>`).
//! - VS Code: its hooks reference (Claude Code's fields and answers, exit 2
//!   blocks; `timeout` in seconds, default 30).
//! - Cline: its source (`hook-factory.ts`, `hooks-adapter.ts`, `hooks.proto`:
//!   `{clineVersion, hookName, timestamp, taskId, preToolUse: {toolName,
//!   parameters}}` with every parameter a string; JSON on stdout is obeyed
//!   whatever the exit code, a non-zero exit without it lets the call run;
//!   `cancel: true` stops the task with `errorMessage`; 30 s timeout; tools
//!   `web_fetch{url}`, `fetch_web_content{requests}`, `web_search`,
//!   `browser_action`, `use_mcp_tool`, `access_mcp_resource`, and MCP tools
//!   as `<server>__<tool>` in its SDK agent).

mod claude;
mod cline;
mod codex;
mod copilot;
mod gemini;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value};

use crate::{
    error::{Error, Result},
    exit::Exit,
    hook::event::{EventKind, HookEvent, Marks},
    read::profile,
};

/// The time a hook keeps for itself between giving up its wait and being
/// killed: leaving the queue and giving back its sites, each under a site
/// lock with the store's bookkeeping deadline (10 s), then the log line and
/// the answer, on a machine that may be loaded. The same margin `install`
/// keeps between `max_wait` and Claude Code's timeout.
pub(crate) const SLACK_MS: u64 = crate::store::file::LOCK_WAIT.as_millis() as u64 + 5_000;

/// A coding agent that runs pace-hook as a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Client {
    /// Claude Code (`--client claude`, or no flag).
    ClaudeCode,
    /// OpenAI Codex CLI.
    Codex,
    /// Google Gemini CLI.
    Gemini,
    /// GitHub Copilot CLI.
    Copilot,
    /// VS Code's agent hooks.
    VsCode,
    /// Cline.
    Cline,
}

/// Every client, in the order the help lists them.
pub(crate) const ALL: [Client; 6] = [
    Client::ClaudeCode,
    Client::Codex,
    Client::Gemini,
    Client::Copilot,
    Client::VsCode,
    Client::Cline,
];

/// What the hook answers, before it is put in a client's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reply<'a> {
    /// Let the call go on; say nothing.
    Pass,
    /// Let the call go on, and tell the model this.
    Tell(&'a str),
    /// The call waited for its turn and goes on now: tell the user `user`
    /// and the model `model`, where the client has a place for each.
    Waited {
        /// For the person watching the session.
        user: &'a str,
        /// For the model.
        model: &'a str,
    },
    /// Refuse the call (a Pre, or an event that may be one); the text is
    /// for the model.
    Block(&'a str),
    /// A Post whose end could not be recorded: the call ran; say so
    /// without blocking anything.
    PostFailed(&'a str),
}

/// An answer in a client's form: what to write where, and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    /// The JSON line for stdout, if any.
    pub(crate) stdout: Option<String>,
    /// The text for stderr, if any.
    pub(crate) stderr: Option<String>,
    /// How the process ends.
    pub(crate) exit: Exit,
}

impl Answer {
    fn exit(exit: Exit) -> Self {
        Self {
            stdout: None,
            stderr: None,
            exit,
        }
    }

    fn stdout(json: Value) -> Self {
        Self {
            stdout: Some(format!("{json}\n")),
            stderr: None,
            exit: Exit::Success,
        }
    }

    fn stderr(text: &str, exit: Exit) -> Self {
        Self {
            // Codex blocks on exit 2 only when stderr is not empty.
            stderr: Some(if text.trim().is_empty() {
                "pace-hook blocked this call.".to_owned()
            } else {
                text.to_owned()
            }),
            stdout: None,
            exit,
        }
    }
}

impl Client {
    /// The name `--client` takes.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
            Client::Copilot => "copilot",
            Client::VsCode => "vscode",
            Client::Cline => "cline",
        }
    }

    /// The client `--client NAME` names.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        ALL.into_iter().find(|c| c.name() == name)
    }

    /// How long the client lets a hook run when its hook file sets no
    /// timeout.
    pub(crate) fn default_timeout_ms(self) -> u64 {
        match self {
            Client::ClaudeCode | Client::Codex => 600_000,
            Client::Gemini => 60_000,
            Client::Copilot | Client::VsCode | Client::Cline => 30_000,
        }
    }

    /// The longest an event may wait for its turn under a hook timeout of
    /// `timeout_ms` (the client's default when `None`). `None` for Claude
    /// Code without one: `install` writes its timeout at least [`SLACK_MS`]
    /// above `max_wait` and `doctor` checks it, so there the config rules,
    /// as it always has.
    pub(crate) fn max_wait_ms(self, timeout_ms: Option<u64>) -> Option<u64> {
        if self == Client::ClaudeCode && timeout_ms.is_none() {
            return None;
        }
        Some(
            timeout_ms
                .unwrap_or_else(|| self.default_timeout_ms())
                .saturating_sub(SLACK_MS),
        )
    }

    /// The client whose fields `bytes` have, for a command without
    /// `--client`. Bytes that do not parse are Claude Code's, whose answer
    /// (exit 2) blocks in every client that reads exit codes.
    pub(crate) fn detect(bytes: &[u8]) -> Self {
        #[derive(serde::Deserialize)]
        #[allow(non_snake_case)]
        struct Probe {
            hook_event_name: Option<String>,
            hookName: Option<serde::de::IgnoredAny>,
            toolName: Option<serde::de::IgnoredAny>,
            turn_id: Option<serde::de::IgnoredAny>,
            timestamp: Option<serde::de::IgnoredAny>,
        }
        let Ok(p) = serde_json::from_slice::<Probe>(bytes) else {
            return Client::ClaudeCode;
        };
        Self::of_marks(&Marks {
            event_name: p.hook_event_name,
            hook_name: p.hookName.is_some(),
            tool_name_camel: p.toolName.is_some(),
            turn_id: p.turn_id.is_some(),
            timestamp: p.timestamp.is_some(),
        })
    }

    /// The client whose event has `marks` (see [`Client::detect`]).
    pub(crate) fn of_marks(m: &Marks) -> Self {
        match m.event_name.as_deref() {
            _ if m.hook_name => Client::Cline,
            None if m.tool_name_camel => Client::Copilot,
            Some("BeforeTool" | "AfterTool") => Client::Gemini,
            Some(_) if m.turn_id => Client::Codex,
            Some(_) if m.timestamp => Client::VsCode,
            _ => Client::ClaudeCode,
        }
    }

    /// The client that sent `bytes` to a command that names this one.
    /// Copilot CLI and VS Code read the same hook files (`.github/hooks/`,
    /// in Copilot CLI's camelCase names), so `install` writes one command
    /// for both, `--client copilot`: Copilot CLI then sends its camelCase
    /// payload, with no event name, and VS Code its own, which has
    /// `hook_event_name`. Any other flag is taken at its word.
    pub(crate) fn for_event(self, bytes: &[u8]) -> Self {
        if self != Client::Copilot {
            return self;
        }
        #[derive(serde::Deserialize)]
        struct Probe {
            hook_event_name: Option<serde::de::IgnoredAny>,
        }
        match serde_json::from_slice::<Probe>(bytes) {
            Ok(Probe {
                hook_event_name: Some(_),
            }) => Client::VsCode,
            _ => self,
        }
    }

    /// Read an event whose client no flag named: one parse as Claude Code's
    /// shape, whose marks tell the client; another client's own reader only
    /// when the marks name one that reads differently. So a Claude Code
    /// event (a 2 MB screenshot's Post among them) is parsed once.
    pub(crate) fn read_unnamed(bytes: &[u8]) -> (Self, Result<HookEvent>) {
        let (claude, marks) = HookEvent::parse_marked(bytes);
        let client = match &marks {
            Some(m) => Self::of_marks(m),
            None => Self::detect(bytes),
        };
        match client {
            Client::ClaudeCode | Client::Codex => (client, claude),
            other => (other, other.read(bytes)),
        }
    }

    /// Read one event of this client into pace-hook's terms.
    pub(crate) fn read(self, bytes: &[u8]) -> Result<HookEvent> {
        match self {
            Client::ClaudeCode | Client::Codex => HookEvent::parse(bytes),
            Client::VsCode => claude::read_vscode(bytes),
            Client::Gemini => gemini::read(bytes),
            Client::Copilot => copilot::read(bytes),
            Client::Cline => cline::read(bytes),
        }
    }

    /// Whether bytes that do not parse say they are a Post (the call ran).
    pub(crate) fn looks_like_post(self, bytes: &[u8]) -> bool {
        use crate::hook::event::key_value_starts;
        match self {
            Client::Gemini => key_value_starts(bytes, "hook_event_name", "AfterTool"),
            Client::Cline => key_value_starts(bytes, "hookName", "PostToolUse"),
            _ => crate::hook::event::looks_like_post(bytes),
        }
    }

    /// Whether refusing a Post does more than show a message: Cline stops
    /// the whole task on `cancel`. An event that cannot be read but says
    /// in its structure (which its client writes, not the model) that it
    /// is a Post is then answered as a Post that could not be recorded.
    pub(crate) fn refusing_a_post_stops_work(self) -> bool {
        self == Client::Cline
    }

    /// [`Client::answer`], for an event whose command named `flag`: a VS
    /// Code event that reached `--client copilot` (their shared file, see
    /// [`Client::for_event`]) is refused in both forms at once, Copilot
    /// CLI's top-level `permissionDecision` and VS Code's
    /// `hookSpecificOutput`, exit 0: whichever of the two sent it, the call
    /// is denied (a Copilot CLI file named in PascalCase sends VS Code's
    /// shape too, and ignores exit codes).
    pub(crate) fn answer_as(
        self,
        flag: Option<Client>,
        kind: Option<&EventKind>,
        reply: Reply<'_>,
    ) -> Answer {
        match reply {
            Reply::Block(text) if self == Client::VsCode && flag == Some(Client::Copilot) => {
                copilot::joint_block(kind, text)
            }
            _ => self.answer(kind, reply),
        }
    }

    /// `reply` to an event of `kind` (`None`: an event that could not be
    /// read), in exactly this client's form.
    pub(crate) fn answer(self, kind: Option<&EventKind>, reply: Reply<'_>) -> Answer {
        match self {
            // Codex reads Claude Code's answers, as far as pace-hook gives
            // them (see `codex`).
            Client::ClaudeCode | Client::VsCode | Client::Codex => claude::answer(kind, reply),
            Client::Gemini => gemini::answer(kind, reply),
            Client::Copilot => copilot::answer(kind, reply),
            Client::Cline => cline::answer(kind, reply),
        }
    }
}

/// Claude Code's name for an event kind, as its `hookSpecificOutput` says.
fn claude_name(kind: Option<&EventKind>) -> &'static str {
    match kind {
        Some(EventKind::PreToolUse) | None => "PreToolUse",
        Some(EventKind::PostToolUseFailure) => "PostToolUseFailure",
        Some(_) => "PostToolUse",
    }
}

/// The parts of one tool event, in Claude Code's terms, as a client's
/// reader found them.
#[derive(Debug, Default)]
struct Parts {
    kind: String,
    session: Option<String>,
    agent: Option<String>,
    tool: Option<String>,
    input: Option<Value>,
    id: Option<String>,
    response: Option<Value>,
    error: Option<String>,
}

impl Parts {
    /// The event these parts make.
    fn event(self) -> Result<HookEvent> {
        let mut e = Map::new();
        e.insert("hook_event_name".into(), Value::String(self.kind));
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                e.insert(k.into(), v);
            }
        };
        put("session_id", self.session.map(Value::String));
        put("agent_id", self.agent.map(Value::String));
        put("tool_name", self.tool.map(Value::String));
        put("tool_input", self.input);
        put("tool_use_id", self.id.map(Value::String));
        put("tool_response", self.response);
        put("error", self.error.map(Value::String));
        HookEvent::from_value(Value::Object(e))
    }
}

/// The call id of an event whose client sends none (Gemini CLI, Copilot
/// CLI, Cline): its tool and input as the client gave them, which its Pre
/// and its Post share, so the Post finishes the very call its Pre admitted.
/// Two calls of one session alike in both are read as one (as a Pre sent
/// twice is): the second is not held back behind the first.
fn call_id(tool: &str, input: Option<&Value>) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    tool.hash(&mut h);
    input.map(Value::to_string).unwrap_or_default().hash(&mut h);
    format!("h{:016x}", h.finish())
}

/// The JSON object of a client's event.
fn object(bytes: &[u8]) -> Result<Map<String, Value>> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::EmptyInput);
    }
    let parsed = match serde_json::from_slice::<Value>(bytes) {
        // A lone UTF-16 surrogate (page text cut mid-emoji, as Node writes
        // it) is read as U+FFFD, as Claude Code's events are.
        Err(e) if e.is_syntax() => {
            let fixed = crate::hook::event::replace_lone_surrogates(bytes);
            if fixed == bytes {
                Err(e)
            } else {
                serde_json::from_slice::<Value>(&fixed)
            }
        }
        other => other,
    };
    match parsed {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(Error::BadEvent {
            message: "the hook event is not a JSON object".to_owned(),
        }),
        Err(e) => Err(Error::BadEvent {
            message: e.to_string(),
        }),
    }
}

/// A string field of `m`, if it is one and not blank.
fn text(m: &Map<String, Value>, key: &str) -> Option<String> {
    m.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned)
}

/// A tool's arguments as an object: an object as it is, a string holding a
/// JSON object parsed (Copilot's `toolArgs` may be one), nothing for none.
/// Anything else is not an input pace-hook can read, and is refused.
fn arguments(v: Option<&Value>) -> Result<Value> {
    match v {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(Value::Object(m)) => Ok(Value::Object(m.clone())),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(Value::Object(Map::new())),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => Ok(Value::Object(m)),
            _ => Err(Error::MissingField {
                field: "tool_input",
            }),
        },
        Some(_) => Err(Error::MissingField {
            field: "tool_input",
        }),
    }
}

/// An MCP tool named `<prefix><server><sep><tool>`, where the separator may
/// also stand inside the server's name (Gemini's and VS Code's `mcp_` with
/// `_`, Copilot's `<server>-<tool>`): read as `mcp__<server>__<tool>`, at the
/// first split whose tool a profile knows, else at the first separator.
fn mcp_name(rest: &str, sep: char) -> String {
    let splits: Vec<usize> = rest.match_indices(sep).map(|(i, _)| i).collect();
    let at = |i: usize| format!("mcp__{}__{}", &rest[..i], &rest[i + sep.len_utf8()..]);
    splits
        .iter()
        .filter(|&&i| i > 0 && i + sep.len_utf8() < rest.len())
        .map(|&i| at(i))
        .find(|name| profile::find(name).is_some())
        .or_else(|| {
            splits
                .iter()
                .find(|&&i| i > 0 && i + sep.len_utf8() < rest.len())
                .map(|&i| at(i))
        })
        // No separator: a server of that name with a tool of that name, so
        // that it reads as an MCP tool (paced on the URLs it is handed)
        // rather than as one of Claude Code's own.
        .unwrap_or_else(|| format!("mcp__{rest}__{rest}"))
}

/// Every absolute `http(s)` URL in `text`, wherever it stands (Gemini's
/// `web_fetch` prompt): each one is a request. Whether some text could be a
/// URL its tool would read that this does not: then the caller paces the
/// call against every known site.
fn urls_in(text: &str) -> (Vec<String>, bool) {
    let lower = text.to_ascii_lowercase();
    let mut urls = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find("://") {
        let colon = from + at;
        // The scheme: the letters right before `://`.
        let start = lower[..colon]
            .rfind(|c: char| !c.is_ascii_alphanumeric() && c != '+' && c != '-' && c != '.')
            .map_or(0, |i| i + 1);
        let end = text[colon..]
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '<' || c == '>')
            .map_or(text.len(), |i| colon + i);
        let scheme = &lower[start..colon];
        if scheme.ends_with("http") || scheme.ends_with("https") {
            let s = if scheme.ends_with("https") {
                colon - 5
            } else {
                colon - 4
            };
            urls.push(
                text[s..end]
                    .trim_end_matches(|c: char| ")],.;!?".contains(c))
                    .to_owned(),
            );
        } else if scheme.is_empty() {
            // `://host` with no scheme: not a URL the tool fetches, but not
            // one pace-hook can rule out either.
            return (urls, true);
        }
        from = end.max(colon + 3);
    }
    (urls, false)
}

/// The input of [`profile::webfetch::URLS_TOOL`] for a fetch of `urls`.
fn urls_input(urls: Vec<String>, unreadable: bool, label: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("urls".into(), urls.into());
    m.insert("unreadable".into(), unreadable.into());
    m.insert("label".into(), label.into());
    m
}
