//! Google Gemini CLI: `BeforeTool` and `AfterTool` events with
//! `session_id`, `timestamp`, `tool_name`, `tool_input`, and `mcp_context:
//! {server_name, tool_name, …}` for an MCP tool; no call id (one is made
//! of the tool and its input, which its Pre and Post share). `AfterTool`
//! carries `tool_response: {llmContent, returnDisplay, error?}`.
//!
//! MCP tools are named `mcp_<server>_<tool>` (releases before that,
//! `<server>__<tool>`): `mcp_context` gives the server and the tool apart,
//! and without it the name is split where a profile knows the tool.
//! `web_fetch` takes up to 20 URLs inside its `prompt` text (or one `url`
//! in its direct mode): every absolute URL there is a request.
//! `google_web_search` asks Google's search, not the sites.
//!
//! Exit 2 blocks and sends stderr to the model as the reason; exit 1 is a
//! warning; JSON on stdout may say `decision`, `reason`, `systemMessage`
//! (to the user) and, after a tool, `hookSpecificOutput.additionalContext`
//! (appended to the result the model reads). Its timeout is `timeout` in
//! milliseconds, 60000 by default.

use serde_json::{Map, Value};

use super::{Answer, Parts, Reply, call_id, mcp_name, object, text, urls_in, urls_input};
use crate::{
    error::{Error, Result},
    exit::Exit,
    hook::event::{EventKind, HookEvent},
    read::profile::webfetch::URLS_TOOL,
};

pub(super) fn answer(kind: Option<&EventKind>, reply: Reply<'_>) -> Answer {
    match reply {
        Reply::Pass => Answer::exit(Exit::Success),
        // Before a tool there is no field for the model but the deny's
        // reason; the user sees a system message.
        Reply::Tell(text) if matches!(kind, Some(EventKind::PreToolUse) | None) => {
            Answer::stdout(serde_json::json!({"systemMessage": text}))
        }
        Reply::Tell(text) => Answer::stdout(serde_json::json!({
            "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": text}
        })),
        // Before a tool only the user can be told.
        Reply::Waited { user, .. } => Answer::stdout(serde_json::json!({"systemMessage": user})),
        Reply::Block(text) => Answer::stderr(text, Exit::Block),
        Reply::PostFailed(text) => Answer::stderr(text, Exit::Failure),
    }
}

pub(super) fn read(bytes: &[u8]) -> Result<HookEvent> {
    let m = object(bytes)?;
    let name = text(&m, "hook_event_name").ok_or(Error::MissingField {
        field: "hook_event_name",
    })?;
    let response = m.get("tool_response").filter(|v| !v.is_null());
    let failed = response
        .and_then(|r| r.get("error"))
        .is_some_and(|e| !e.is_null());
    let kind = match name.as_str() {
        "BeforeTool" => "PreToolUse",
        "AfterTool" if failed => "PostToolUseFailure",
        "AfterTool" => "PostToolUse",
        other => other,
    };
    let mut parts = Parts {
        kind: kind.to_owned(),
        session: text(&m, "session_id"),
        ..Parts::default()
    };
    if kind == name {
        // Not a tool event: nothing more is read.
        return parts.event();
    }
    let tool = text(&m, "tool_name").ok_or(Error::MissingField { field: "tool_name" })?;
    let input = match m.get("tool_input") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(i)) => i.clone(),
        Some(_) => {
            return Err(Error::MissingField {
                field: "tool_input",
            });
        }
    };
    // Gemini CLI runs a turn's tool calls in parallel (its scheduler
    // batches every call not marked `wait_for_previous`), so each call is
    // an agent of its own: one call's start says nothing of another's end.
    let id = call_id(&tool, Some(&Value::Object(input.clone())));
    parts.agent = Some(format!("call-{id}"));
    parts.id = Some(id);
    let (tool, input) = tool_of(&tool, input, m.get("mcp_context"));
    parts.tool = Some(tool);
    parts.input = Some(Value::Object(input));
    if let Some(r) = response {
        let texts = llm_texts(r.get("llmContent"));
        if failed {
            let e = &r["error"];
            let message = e
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| e.to_string(), str::to_owned);
            parts.error = Some(
                std::iter::once(message)
                    .chain(texts)
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        } else {
            parts.response = Some(Value::Array(
                texts
                    .into_iter()
                    .map(|t| serde_json::json!({"type": "text", "text": t}))
                    .collect(),
            ));
        }
    }
    parts.event()
}

/// A Gemini tool in pace-hook's names.
fn tool_of(
    tool: &str,
    input: Map<String, Value>,
    mcp: Option<&Value>,
) -> (String, Map<String, Value>) {
    if let Some(ctx) = mcp.and_then(Value::as_object)
        && let (Some(server), Some(name)) = (text(ctx, "server_name"), text(ctx, "tool_name"))
    {
        return (format!("mcp__{server}__{name}"), input);
    }
    match tool {
        "web_fetch" => {
            let mut urls = Vec::new();
            let mut unreadable = false;
            if let Some(url) = input.get("url").and_then(Value::as_str) {
                urls.push(url.trim().to_owned());
            }
            match input.get("prompt") {
                Some(Value::String(p)) => {
                    let (found, odd) = urls_in(p);
                    urls.extend(found);
                    unreadable |= odd;
                }
                None | Some(Value::Null) => {}
                Some(_) => unreadable = true,
            }
            (
                URLS_TOOL.to_owned(),
                urls_input(urls, unreadable, "web_fetch"),
            )
        }
        "google_web_search" => ("WebSearch".to_owned(), input),
        // `{command, description, dir_path, is_background}`
        // (`SHELL_PARAM_COMMAND`): read as Claude Code's `Bash`.
        "run_shell_command" => ("Bash".to_owned(), input),
        t if t.starts_with("mcp__") => (t.to_owned(), input),
        t if t.starts_with("mcp_") => (mcp_name(&t["mcp_".len()..], '_'), input),
        // Before the `mcp_` prefix: `<server>__<tool>`.
        t if t.contains("__") => (format!("mcp__{t}"), input),
        t => (t.to_owned(), input),
    }
}

/// The texts of `llmContent`: a string, a part `{text}`, or a list of them.
fn llm_texts(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a.iter().flat_map(|p| llm_texts(Some(p))).collect(),
        Some(Value::Object(o)) => o
            .get("text")
            .and_then(Value::as_str)
            .map(|t| vec![t.to_owned()])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
