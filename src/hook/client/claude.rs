//! Claude Code, and VS Code's agent hooks, which take Claude Code's events
//! and answers.
//!
//! Claude Code: exit 2 blocks and shows stderr to the model; exit 0 with
//! `hookSpecificOutput.additionalContext` tells the model without blocking;
//! any other exit lets the call run. Its tools are its own (`WebFetch`,
//! `WebSearch`, which have a profile) and MCP tools as
//! `mcp__<server>__<tool>`.
//!
//! VS Code reads the same exit codes and the same JSON (its `ChatHookResult`:
//! exit 2 is "a blocking error shown to the model"), with a 30 s default
//! timeout (`timeout`, in seconds). Its own web tools (the Copilot Chat
//! extension's `toolNames.ts`) are `fetch_webpage` (`{urls, query}`, also
//! known by its contributed name `copilot_fetchWebPage`) and
//! `open_simple_browser` (`{url}`). Its MCP tools are read as
//! `mcp_<server>_<tool>`, a naming not yet seen in a real run; its newer
//! integrated-browser tools are not read yet.

use super::{Answer, Reply, claude_name, mcp_name, urls_input};
use crate::{
    error::Result,
    exit::Exit,
    hook::event::{EventKind, HookEvent},
    read::profile::{self, webfetch::URLS_TOOL},
};

pub(super) fn answer(kind: Option<&EventKind>, reply: Reply<'_>) -> Answer {
    match reply {
        Reply::Pass => Answer::exit(Exit::Success),
        Reply::Tell(text) => Answer::stdout(serde_json::json!({
            "hookSpecificOutput": {"hookEventName": claude_name(kind), "additionalContext": text}
        })),
        // Only the fields Claude Code's hook output schema has (2.1.332:
        // `systemMessage` at the top, `hookSpecificOutput` with
        // `hookEventName` and `additionalContext`; Codex's schema allows
        // the same): a field a client does not know can fail the hook.
        Reply::Waited { user, model } => Answer::stdout(serde_json::json!({
            "systemMessage": user,
            "hookSpecificOutput": {"hookEventName": claude_name(kind), "additionalContext": model}
        })),
        Reply::Block(text) => Answer::stderr(text, Exit::Block),
        Reply::PostFailed(text) => Answer::stderr(text, Exit::Failure),
    }
}

/// A VS Code event: Claude Code's fields, with VS Code's tool names read
/// into pace-hook's.
pub(super) fn read_vscode(bytes: &[u8]) -> Result<HookEvent> {
    let mut event = HookEvent::parse(bytes)?;
    let input = &event.tool_input;
    let renamed = match event.tool_name.as_str() {
        "fetch_webpage" | "copilot_fetchWebPage" => {
            let urls = profile::strings_at(input, "urls");
            let unreadable = urls.as_ref().is_none_or(Vec::is_empty);
            let input = urls_input(urls.unwrap_or_default(), unreadable, "fetch_webpage");
            Some((URLS_TOOL.to_owned(), input))
        }
        "open_simple_browser" => Some(("WebFetch".to_owned(), input.clone())),
        // Its terminal, `{command, explanation, isBackground}`: read as
        // Claude Code's `Bash`.
        "run_in_terminal" => Some(("Bash".to_owned(), input.clone())),
        name if name.starts_with("mcp_") && !name.starts_with("mcp__") => {
            Some((mcp_name(&name["mcp_".len()..], '_'), input.clone()))
        }
        _ => None,
    };
    if let Some((name, input)) = renamed {
        event.tool_name = name;
        event.tool_input = input;
    }
    Ok(event)
}
