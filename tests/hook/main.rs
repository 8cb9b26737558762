//! The built `pace-hook` binary, run as Claude Code runs it: a fresh process
//! per event, the event on stdin, the answer in the exit code and stderr.
//! Every test has its own state directory and config, and cross-process
//! behaviour is tested with real concurrent processes.
//!
//! Timing assertions are lower bounds (a gap is never shorter than the
//! interval), which a busy machine cannot break; where a test needs an upper
//! bound it is a generous timeout that only catches a wedged gate.
//!
//! One binary, one file per topic; the helpers they share are below.

#[path = "../common/mod.rs"]
mod common;

mod backoff;
mod documents;
mod failures;
mod profiles;
mod scenario;
mod sites;
mod tools;
mod turns;

use common::*;

/// Fixture `name` as call `id` of session `session`.
fn event_in(name: &str, id: &str, session: &str) -> Value {
    let mut e = fixture(name);
    e["tool_use_id"] = json!(id);
    e["session_id"] = json!(session);
    e
}

/// A PreToolUse of `tool` with `input`, as call `id` of `session`.
fn call(tool: &str, input: Value, id: &str, session: &str) -> Value {
    let mut e = event_in("PreToolUse.browser_navigate", id, session);
    e["tool_name"] = json!(tool);
    e["tool_input"] = input;
    e.as_object_mut().unwrap().remove("mcp_server");
    e
}

/// The PreToolUse of a Post event.
fn pre_of(post: &Value) -> Value {
    let mut e = post.clone();
    e["hook_event_name"] = json!("PreToolUse");
    let o = e.as_object_mut().unwrap();
    o.remove("tool_response");
    o.remove("duration_ms");
    e
}

/// The PostToolUse of `pre` whose result is the text block `text`.
fn answer(pre: &Value, text: &str) -> Value {
    let mut e = pre.clone();
    e["hook_event_name"] = json!("PostToolUse");
    e["tool_response"] = json!([{"type": "text", "text": text}]);
    e
}

/// Run a Pre and its Post, both passing.
fn run_call(gate: &Gate, post: &Value) {
    assert_pass(&gate.run(&pre_of(post)));
    assert_pass(&gate.run(post));
}

fn sites(gate: &Gate, id: &str) -> Value {
    gate.record("admit", id)["sites"].clone()
}
