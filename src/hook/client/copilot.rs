//! GitHub Copilot CLI. A hook file names its events in camelCase
//! (`preToolUse`, `postToolUse`, `postToolUseFailure`) and then gets
//! camelCase payloads with no event name: `{sessionId, timestamp, cwd,
//! toolName, toolArgs}`, `toolArgs` an object or a JSON string, a Post
//! adding `toolResult: {resultType, textResultForLlm}` or, on failure,
//! `error`. Named in PascalCase (`PreToolUse`), the events come in VS Code's
//! snake_case (`hook_event_name`, `session_id`, `tool_name`, `tool_input`,
//! `tool_result: {result_type, text_result_for_llm}`). Both are read. No
//! event carries a call id: one is made of the tool and its arguments.
//!
//! A deny is `{"permissionDecision": "deny", "permissionDecisionReason":
//! …}` on stdout (the reason reaches the agent). A non-zero exit or a
//! timeout is logged and skipped, and the call runs: so every refusal,
//! failures included, is that JSON with exit 0. Nothing else it reads
//! reaches the model from a command hook, so a note is not sent. Its
//! timeout is `timeoutSec`, 30 by default.
//!
//! Its own tools are snake_case words (`bash`, `view`, `web_fetch`, …);
//! `web_fetch` (`{url}`) is read as `WebFetch`. MCP tools are named
//! `<server>-<tool>`, so a name with a `-` is an MCP tool.

use serde_json::Value;

use super::{Answer, Parts, Reply, arguments, call_id, mcp_name, object, text};
use crate::{
    error::{Error, Result},
    exit::Exit,
    hook::event::{EventKind, HookEvent},
};

pub(super) fn answer(_: Option<&EventKind>, reply: Reply<'_>) -> Answer {
    match reply {
        Reply::Pass | Reply::Tell(_) | Reply::Waited { .. } => Answer::exit(Exit::Success),
        Reply::Block(text) => Answer::stdout(serde_json::json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": if text.trim().is_empty() { "pace-hook blocked this call." } else { text },
        })),
        Reply::PostFailed(text) => Answer::stderr(text, Exit::Failure),
    }
}

/// A refusal both Copilot CLI and VS Code read as a deny (see
/// `Client::answer_as`).
pub(super) fn joint_block(kind: Option<&EventKind>, text: &str) -> Answer {
    let reason = if text.trim().is_empty() {
        "pace-hook blocked this call."
    } else {
        text
    };
    Answer::stdout(serde_json::json!({
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
        "hookSpecificOutput": {
            "hookEventName": super::claude_name(kind),
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        },
    }))
}

pub(super) fn read(bytes: &[u8]) -> Result<HookEvent> {
    let m = object(bytes)?;
    let snake = m.contains_key("hook_event_name");
    let (tool_key, args_key, result_key, type_key, llm_key, session_key) = if snake {
        (
            "tool_name",
            "tool_input",
            "tool_result",
            "result_type",
            "text_result_for_llm",
            "session_id",
        )
    } else {
        (
            "toolName",
            "toolArgs",
            "toolResult",
            "resultType",
            "textResultForLlm",
            "sessionId",
        )
    };
    let result = m.get(result_key).filter(|v| !v.is_null());
    let result_text = result
        .and_then(|r| r.get(llm_key))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let ok = result
        .and_then(|r| r.get(type_key))
        .and_then(Value::as_str)
        .is_none_or(|t| t == "success");
    let error = m.get("error").filter(|v| !v.is_null()).map(|e| match e {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    let kind = match text(&m, "hook_event_name") {
        Some(k) => k,
        None if error.is_some() => "PostToolUseFailure".to_owned(),
        None if result.is_some() => "PostToolUse".to_owned(),
        // A Pre, or an event that says nothing of what it is: read as the
        // one that can be refused.
        None => "PreToolUse".to_owned(),
    };
    let kind = if kind == "PostToolUse" && !ok {
        "PostToolUseFailure".to_owned()
    } else {
        kind
    };
    let mut parts = Parts {
        session: text(&m, session_key),
        ..Parts::default()
    };
    if !matches!(
        kind.as_str(),
        "PreToolUse" | "PostToolUse" | "PostToolUseFailure"
    ) {
        parts.kind = kind;
        return parts.event();
    }
    let tool = text(&m, tool_key).ok_or(Error::MissingField { field: "tool_name" })?;
    let input = arguments(m.get(args_key))?;
    // Whether Copilot CLI runs a turn's calls one after another is not
    // known: each call is an agent of its own, so that one call's start
    // never ends another that may still run.
    let id = call_id(&tool, Some(&input));
    parts.agent = Some(format!("call-{id}"));
    parts.id = Some(id);
    parts.tool = Some(tool_of(&tool));
    parts.input = Some(input);
    if kind == "PostToolUseFailure" {
        parts.error = error.or(result_text);
    } else if let Some(t) = result_text {
        parts.response = Some(Value::String(t));
    }
    parts.kind = kind;
    parts.event()
}

/// A Copilot tool in pace-hook's names.
fn tool_of(tool: &str) -> String {
    match tool {
        "web_fetch" => "WebFetch".to_owned(),
        // Its shell, `{command, …}`: read as Claude Code's `Bash`.
        "bash" => "Bash".to_owned(),
        t if t.contains('-') => mcp_name(t, '-'),
        t => t.to_owned(),
    }
}
