//! Cline (3.36 and later). Each hook is an executable named after its event
//! (`.clinerules/hooks/PreToolUse`, `PostToolUse`), given `{clineVersion,
//! hookName, timestamp, taskId, workspaceRoots, userId, model, preToolUse:
//! {toolName, parameters}}` (a Post: `postToolUse: {toolName, parameters,
//! result, success, executionTimeMs}`). Every parameter is a string: what
//! is not one arrives JSON-encoded. No call id (one is made of the tool and
//! its parameters); the task is the session.
//!
//! It obeys the JSON on stdout whatever the exit code, and lets the call run
//! on a non-zero exit without it. `{"cancel": true, "errorMessage": …}`
//! refuses the call, and stops the task with that message: the one refusal
//! there is. `contextModification` reaches the model. So every answer is
//! that JSON with exit 0. Its timeout is fixed at 30 s
//! (`HOOK_EXECUTION_TIMEOUT_MS`).
//!
//! Its tools: `web_fetch` (`{url}`, read as `WebFetch`), its SDK agent's
//! `fetch_web_content` (`{requests: [{url, prompt}]}`, a fetch of every
//! URL), `web_search`, `browser_action` (`launch` with a `url`, then
//! `click`, `type`, `scroll_*`, `close` on its one page: read as a
//! Puppeteer browser of the task's), `use_mcp_tool` (`{server_name,
//! tool_name, arguments}`), `access_mcp_resource` (`{server_name, uri}`),
//! and in its SDK agent MCP tools named `<server>__<tool>`.

use serde_json::{Map, Value};

use super::{Answer, Parts, Reply, arguments, call_id, object, text, urls_input};
use crate::{
    error::{Error, Result},
    exit::Exit,
    hook::event::{EventKind, HookEvent},
    read::profile::webfetch::URLS_TOOL,
};

pub(super) fn answer(_: Option<&EventKind>, reply: Reply<'_>) -> Answer {
    match reply {
        Reply::Pass => Answer::stdout(serde_json::json!({"cancel": false})),
        Reply::Tell(text) => {
            Answer::stdout(serde_json::json!({"cancel": false, "contextModification": text}))
        }
        Reply::Waited { model, .. } => {
            Answer::stdout(serde_json::json!({"cancel": false, "contextModification": model}))
        }
        Reply::Block(text) => Answer::stdout(serde_json::json!({
            "cancel": true,
            "errorMessage": if text.trim().is_empty() { "pace-hook blocked this call." } else { text },
        })),
        Reply::PostFailed(text) => Answer::stderr(text, Exit::Failure),
    }
}

pub(super) fn read(bytes: &[u8]) -> Result<HookEvent> {
    let m = object(bytes)?;
    let name = text(&m, "hookName").ok_or(Error::MissingField {
        field: "hook_event_name",
    })?;
    let mut parts = Parts {
        session: text(&m, "taskId"),
        ..Parts::default()
    };
    let data = match name.as_str() {
        "PreToolUse" => m.get("preToolUse"),
        "PostToolUse" => m.get("postToolUse"),
        _ => {
            parts.kind = name;
            return parts.event();
        }
    };
    let data = data
        .and_then(Value::as_object)
        .ok_or(Error::MissingField { field: "tool_name" })?;
    let tool = text(data, "toolName").ok_or(Error::MissingField { field: "tool_name" })?;
    let params = match data.get("parameters") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p.iter().map(|(k, v)| (k.clone(), decoded(v))).collect(),
        Some(_) => {
            return Err(Error::MissingField {
                field: "tool_input",
            });
        }
    };
    // One tool per message: the task's calls run one after another, so the
    // task is the agent of the same-agent rule.
    parts.id = Some(call_id(&tool, Some(&Value::Object(params.clone()))));
    let (tool, input) = tool_of(&tool, params)?;
    parts.tool = Some(tool);
    parts.input = Some(Value::Object(input));
    let result = data
        .get("result")
        .and_then(Value::as_str)
        .map(str::to_owned);
    parts.kind = if name == "PreToolUse" {
        "PreToolUse".to_owned()
    } else if data.get("success") == Some(&Value::Bool(false)) {
        parts.error = Some(result.unwrap_or_default());
        "PostToolUseFailure".to_owned()
    } else {
        parts.response = result.map(Value::String);
        "PostToolUse".to_owned()
    };
    parts.event()
}

/// A parameter as its tool sees it: a string that holds a JSON object or
/// array is that value (Cline encodes them so); any other string is itself.
fn decoded(v: &Value) -> Value {
    match v {
        Value::String(s) if s.trim_start().starts_with(['{', '[']) => {
            serde_json::from_str(s).unwrap_or_else(|_| v.clone())
        }
        other => other.clone(),
    }
}

/// A Cline tool in pace-hook's names.
fn tool_of(tool: &str, input: Map<String, Value>) -> Result<(String, Map<String, Value>)> {
    let object = |v: Value| match v {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    Ok(match tool {
        "web_fetch" => ("WebFetch".to_owned(), input),
        "web_search" => ("WebSearch".to_owned(), input),
        // `{command, requires_approval}` (`ClineDefaultTool.BASH`): read as
        // Claude Code's `Bash`.
        "execute_command" => ("Bash".to_owned(), input),
        "fetch_web_content" => {
            let requests = input.get("requests").and_then(Value::as_array);
            let urls: Vec<String> = requests
                .map(|a| {
                    a.iter()
                        .filter_map(|r| r.get("url").and_then(Value::as_str))
                        .map(|u| u.trim().to_owned())
                        .collect()
                })
                .unwrap_or_default();
            let unreadable = requests.is_none_or(|a| a.len() != urls.len());
            (
                URLS_TOOL.to_owned(),
                urls_input(urls, unreadable, "fetch_web_content"),
            )
        }
        "browser_action" => {
            let action = input.get("action").and_then(Value::as_str).unwrap_or("");
            let (what, input) = match (action, input.get("url")) {
                ("launch", Some(url)) => (
                    "puppeteer_navigate",
                    object(serde_json::json!({"url": url})),
                ),
                // Clicks, typing, scrolls, and anything else on its page.
                _ => ("puppeteer_click", input),
            };
            (format!("mcp__cline-browser__{what}"), input)
        }
        "use_mcp_tool" => {
            let server = text(&input, "server_name");
            let name = text(&input, "tool_name");
            let (Some(server), Some(name)) = (server, name) else {
                return Err(Error::MissingField { field: "tool_name" });
            };
            let args = arguments(input.get("arguments"))?;
            (format!("mcp__{server}__{name}"), object(args))
        }
        "access_mcp_resource" => {
            let server = text(&input, "server_name").unwrap_or_default();
            (format!("mcp__{server}__access_mcp_resource"), input)
        }
        t if !t.starts_with("mcp__")
            && t.split_once("__")
                .is_some_and(|(s, r)| !s.is_empty() && !r.is_empty()) =>
        {
            (format!("mcp__{t}"), input)
        }
        t => (t.to_owned(), input),
    })
}
