//! Each client's events, as its source or a real run gives them, through
//! the same `hook::handle` the binary runs (in-process, on the fake clock
//! and the in-memory store), answered in the client's own form.

use serde_json::{Value, json};

use super::{Answer, Client, Reply};
use crate::{
    config::Config,
    exit::Exit,
    hook::{Outcome, context::Memory, handle},
    pacing::{
        clock::Clock,
        log::{Kind, Record},
    },
    store::Queue,
};

const T0: u64 = 1_800_000_000_000;

/// Every client but Claude Code, whose events `hook::tests` covers.
const OTHERS: [Client; 5] = [
    Client::Codex,
    Client::Gemini,
    Client::Copilot,
    Client::VsCode,
    Client::Cline,
];

fn fixtures(client: Client) -> Value {
    let text = match client {
        Client::Gemini => include_str!("../../../tests/fixtures/clients/gemini.json"),
        Client::Copilot => include_str!("../../../tests/fixtures/clients/copilot.json"),
        Client::Cline => include_str!("../../../tests/fixtures/clients/cline.json"),
        Client::VsCode => include_str!("../../../tests/fixtures/clients/vscode.json"),
        Client::Codex | Client::ClaudeCode => {
            return json!({
                "pre_navigate": serde_json::from_str::<Value>(include_str!("../../../tests/fixtures/codex-0.169.0-pre-navigate.json")).unwrap(),
                "post_navigate": serde_json::from_str::<Value>(include_str!("../../../tests/fixtures/codex-0.169.0-post-navigate.json")).unwrap(),
                "pre_evaluate": serde_json::from_str::<Value>(include_str!("../../../tests/fixtures/codex-0.169.0-pre-evaluate-blocked.json")).unwrap(),
            });
        }
    };
    serde_json::from_str(text).expect("a fixture file")
}

fn config(interval_ms: u64) -> Config {
    let mut c = Config::default();
    c.interval_ms = interval_ms;
    c.hold_ms = 120_000;
    c
}

/// One event of `client`, as the hook command runs it: read, bounded by the
/// client's timeout, handled, answered.
fn answer(ctx: &Memory, client: Client, event: &Value) -> Answer {
    let mut e = client
        .read(event.to_string().as_bytes())
        .unwrap_or_else(|err| panic!("{client:?} reads {event}: {err}"));
    e.max_wait_ms = client.max_wait_ms(None);
    let kind = Some(&e.kind);
    match handle(ctx, &e, ctx.clock.mono()).unwrap_or_else(|f| panic!("{f:?}")) {
        Outcome::Pass => client.answer(kind, Reply::Pass),
        Outcome::Tell(t) => client.answer(kind, Reply::Tell(&t)),
        Outcome::Waited { user, model } => client.answer(
            kind,
            Reply::Waited {
                user: &user,
                model: &model,
            },
        ),
        Outcome::Block(m) => client.answer(kind, Reply::Block(&m)),
    }
}

fn of_kind(records: &[Record], kind: Kind) -> Vec<Record> {
    records
        .iter()
        .filter(|r| r.event == kind)
        .cloned()
        .collect()
}

/// What the client reads as "go on": nothing (or Cline's `cancel: false`),
/// or, after a wait, the note of it in the fields the client has for one.
fn passed(client: Client, a: &Answer) {
    let plain = match client {
        Client::Cline => Answer {
            stdout: Some("{\"cancel\":false}\n".to_owned()),
            stderr: None,
            exit: Exit::Success,
        },
        _ => Answer::exit(Exit::Success),
    };
    if *a == plain {
        return;
    }
    assert_eq!(
        (a.exit, &a.stderr),
        (Exit::Success, &None),
        "{client:?}: {a:?}"
    );
    let out: Value = serde_json::from_str(a.stdout.as_deref().unwrap_or("null"))
        .unwrap_or_else(|e| panic!("{client:?}: {e}: {a:?}"));
    let keys: Vec<&str> = out
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let allowed: &[&str] = match client {
        Client::Cline => &["cancel", "contextModification"],
        Client::Gemini => &["systemMessage"],
        Client::Copilot => &[],
        _ => &["hookSpecificOutput", "systemMessage"],
    };
    assert!(
        !keys.is_empty() && keys.iter().all(|k| allowed.contains(k)),
        "{client:?}: {a:?}"
    );
    if client == Client::Cline {
        assert_eq!(out["cancel"], false, "{a:?}");
    }
    let note = out["systemMessage"]
        .as_str()
        .or(out["contextModification"].as_str())
        .unwrap_or_default();
    assert!(note.contains("waited"), "{client:?}: {a:?}");
}

/// What the client reads as a refusal, and its reason.
fn refused(client: Client, a: &Answer) -> String {
    match client {
        Client::Copilot | Client::Cline => {
            assert_eq!(a.exit, Exit::Success, "{client:?} refuses on exit 0 only");
            assert_eq!(a.stderr, None);
            let v: Value = serde_json::from_str(a.stdout.as_deref().expect("JSON")).unwrap();
            let (flag, reason) = if client == Client::Copilot {
                assert_eq!(v["permissionDecision"], "deny");
                ("permissionDecision", "permissionDecisionReason")
            } else {
                assert_eq!(v["cancel"], true);
                ("cancel", "errorMessage")
            };
            assert_eq!(
                v.as_object().unwrap().len(),
                2,
                "{flag} and its reason, nothing more: {v}"
            );
            v[reason].as_str().unwrap().to_owned()
        }
        _ => {
            assert_eq!(a.exit, Exit::Block, "{client:?}");
            assert_eq!(a.stdout, None);
            a.stderr.clone().expect("a reason on stderr")
        }
    }
}

/// Pass, skip, pace and block, one client at a time.
fn lifecycle(client: Client) {
    let f = fixtures(client);
    let ctx = Memory::new(config(10_000), T0);
    // Skip: a read of the page passes at once, uncounted.
    if let Some(snapshot) = f.get("pre_snapshot") {
        passed(client, &answer(&ctx, client, snapshot));
        let skips = of_kind(&ctx.store.records(), Kind::Skip);
        assert_eq!(skips.len(), 1, "{client:?}: {:#?}", ctx.store.records());
    }
    // Pace: a navigation, its end, and the next one an interval later.
    passed(client, &answer(&ctx, client, &f["pre_navigate"]));
    ctx.clock.advance(700);
    passed(client, &answer(&ctx, client, &f["post_navigate"]));
    ctx.clock.advance(1_000);
    let again = f["pre_navigate"]
        .to_string()
        .replace("call_e2e_00_00", "call_e2e_01_00");
    passed(
        client,
        &answer(&ctx, client, &serde_json::from_str(&again).unwrap()),
    );
    let records = ctx.store.records();
    let admits = of_kind(&records, Kind::Admit);
    let finish = of_kind(&records, Kind::Finish);
    assert_eq!(admits.len(), 2, "{client:?}: {records:#?}");
    assert_eq!(admits[1].sites, ["example.com"]);
    assert_eq!(
        finish[0].ts,
        T0 + 700,
        "the Post ended the call: {records:#?}"
    );
    assert_eq!(
        admits[1].ts,
        finish[0].ts + 10_000,
        "{client:?}: {records:#?}"
    );
    // Block: a script that fetches twice.
    let reason = refused(client, &answer(&ctx, client, &f["pre_evaluate"]));
    assert!(
        reason.starts_with(
            "pace-hook blocked `browser_evaluate`: the script can start more than one request"
        ),
        "{client:?}: {reason}"
    );
}

#[test]
fn gemini_events_pass_skip_pace_and_block() {
    lifecycle(Client::Gemini);
}

#[test]
fn copilot_events_pass_skip_pace_and_block() {
    lifecycle(Client::Copilot);
}

#[test]
fn cline_events_pass_skip_pace_and_block() {
    lifecycle(Client::Cline);
}

#[test]
fn vscode_events_pass_skip_pace_and_block() {
    lifecycle(Client::VsCode);
}

#[test]
fn codex_events_as_captured_pace_and_block() {
    lifecycle(Client::Codex);
}

/// Each client's shell reaches the hook (install's matchers cover it) and
/// is read as Claude Code's `Bash`: two requests in one command are
/// refused in the client's own form.
#[test]
fn each_client_s_shell_is_read_as_claude_code_s_bash() {
    let two = "curl -s https://a.example/1 && curl -s https://a.example/2";
    for (client, event) in [
        (
            Client::Codex,
            json!({"session_id": "x", "turn_id": "t", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": two}}),
        ),
        (
            Client::Gemini,
            json!({"session_id": "g", "hook_event_name": "BeforeTool", "timestamp": "t", "tool_name": "run_shell_command", "tool_input": {"command": two, "description": "fetch"}}),
        ),
        (
            Client::Copilot,
            json!({"sessionId": "c", "timestamp": 1, "cwd": "/w", "toolName": "bash", "toolArgs": json!({"command": two}).to_string()}),
        ),
        (
            Client::VsCode,
            json!({"session_id": "v", "hook_event_name": "PreToolUse", "timestamp": "t", "tool_name": "run_in_terminal", "tool_input": {"command": two, "explanation": "fetch", "isBackground": false}}),
        ),
        (
            Client::Cline,
            json!({"hookName": "PreToolUse", "taskId": "t", "preToolUse": {"toolName": "execute_command", "parameters": {"command": two, "requires_approval": "false"}}}),
        ),
    ] {
        let ctx = Memory::new(config(10_000), T0);
        let reason = refused(client, &answer(&ctx, client, &event));
        assert!(
            reason.contains("more than one request"),
            "{client:?}: {reason}"
        );
    }
}

#[test]
fn a_tool_that_is_no_web_tool_passes_untouched_in_every_client() {
    let ctx = Memory::new(config(10_000), T0);
    for (client, event) in [
        (
            Client::Gemini,
            json!({"session_id": "g", "hook_event_name": "BeforeTool", "timestamp": "t", "tool_name": "read_file", "tool_input": {"absolute_path": "/w/a"}}),
        ),
        (
            Client::Copilot,
            json!({"sessionId": "c", "timestamp": 1, "cwd": "/w", "toolName": "bash", "toolArgs": "{\"command\":\"ls\"}"}),
        ),
        (
            Client::Cline,
            json!({"hookName": "PreToolUse", "taskId": "t", "preToolUse": {"toolName": "read_file", "parameters": {"path": "a"}}}),
        ),
    ] {
        passed(client, &answer(&ctx, client, &event));
    }
    assert!(ctx.store.records().is_empty(), "{:#?}", ctx.store.records());
}

#[test]
fn each_client_s_own_web_tools_are_paced_on_the_urls_they_fetch() {
    let cases = [
        (
            Client::Gemini,
            "pre_web_fetch",
            vec!["example.com", "example.org"],
        ),
        (Client::Copilot, "pre_web_fetch", vec!["example.org"]),
        (Client::Cline, "pre_web_fetch", vec!["example.org"]),
        (
            Client::Cline,
            "pre_fetch_web_content",
            vec!["example.net", "example.org"],
        ),
        (Client::Cline, "pre_browser_launch", vec!["example.com"]),
        (
            Client::VsCode,
            "pre_fetch_webpage",
            vec!["example.net", "example.org"],
        ),
    ];
    for (client, name, sites) in cases {
        let ctx = Memory::new(config(10_000), T0);
        passed(client, &answer(&ctx, client, &fixtures(client)[name]));
        let admits = of_kind(&ctx.store.records(), Kind::Admit);
        assert_eq!(admits.len(), 1, "{client:?} {name}");
        assert_eq!(admits[0].sites, sites, "{client:?} {name}");
    }
    // Two URLs of one site in one Gemini fetch reach it with no gap.
    let ctx = Memory::new(config(10_000), T0);
    let f = fixtures(Client::Gemini);
    let reason = refused(
        Client::Gemini,
        &answer(&ctx, Client::Gemini, &f["pre_web_fetch_twice"]),
    );
    assert!(
        reason.contains("several URLs on example.com in one call"),
        "{reason}"
    );
    // A search reaches no site pace-hook spaces.
    passed(
        Client::Gemini,
        &answer(&ctx, Client::Gemini, &f["pre_search"]),
    );
    assert_eq!(of_kind(&ctx.store.records(), Kind::Skip).len(), 1);
}

#[test]
fn copilot_s_vscode_shaped_events_read_the_same() {
    let ctx = Memory::new(config(10_000), T0);
    let f = fixtures(Client::Copilot);
    passed(
        Client::Copilot,
        &answer(&ctx, Client::Copilot, &f["pre_vscode_shape"]),
    );
    let admits = of_kind(&ctx.store.records(), Kind::Admit);
    assert_eq!(admits[0].sites, ["example.com"]);
    assert_eq!(admits[0].session.as_deref(), Some("cop-2"));
}

#[test]
fn the_fields_tell_the_client_when_no_flag_does() {
    let first = |c: Client| fixtures(c)["pre_navigate"].to_string();
    for client in OTHERS {
        assert_eq!(Client::detect(first(client).as_bytes()), client);
    }
    let claude = include_str!("../../../tests/fixtures/PreToolUse.navigate.json");
    assert_eq!(Client::detect(claude.as_bytes()), Client::ClaudeCode);
    assert_eq!(Client::detect(b"{not json"), Client::ClaudeCode);
    // The one-pass reading tells the same client, and reads the event as
    // that client's reader does.
    for client in OTHERS {
        let bytes = first(client);
        let (told, read) = Client::read_unnamed(bytes.as_bytes());
        assert_eq!(told, client);
        let own = client
            .read(bytes.as_bytes())
            .expect("its own reader reads it");
        let read = read.expect("read");
        assert_eq!(
            (read.tool_name, read.kind, read.tool_input),
            (own.tool_name, own.kind, own.tool_input),
            "{client:?}"
        );
    }
    let (told, read) = Client::read_unnamed(claude.as_bytes());
    assert_eq!(told, Client::ClaudeCode);
    assert_eq!(read.unwrap().tool_name, "mcp__claude-in-chrome__navigate");
    let (told, read) = Client::read_unnamed(b"{not json");
    assert_eq!(told, Client::ClaudeCode);
    assert!(read.is_err());
    for c in super::ALL {
        assert_eq!(Client::from_name(c.name()), Some(c));
    }
}

#[test]
fn a_30_s_client_under_contention_is_refused_before_its_timeout_saying_when() {
    // Copilot CLI gives a hook 30 s; the config would let a call wait 270 s.
    let ctx = Memory::new(config(10_000), T0);
    let f = fixtures(Client::Copilot);
    passed(
        Client::Copilot,
        &answer(&ctx, Client::Copilot, &f["pre_navigate"]),
    );
    // Another agent's call is already waiting its turn there.
    let other = ctx.store.process();
    let far = ctx.clock.mono().after(std::time::Duration::from_secs(600));
    let _waiting = other
        .join_queue("example.com", far)
        .unwrap()
        .expect("first in the queue");
    let arrived = ctx.clock.mono();
    let late = json!({"sessionId": "cop-other", "timestamp": 1, "cwd": "/w",
        "toolName": "playwright-browser_navigate", "toolArgs": {"url": "https://example.com/b"}});
    let reason = refused(Client::Copilot, &answer(&ctx, Client::Copilot, &late));
    let took = ctx.clock.mono().since(arrived);
    assert!(
        took.as_millis() < 30_000,
        "answered after {took:?}, past Copilot's 30 s"
    );
    assert_eq!(
        Some(took.as_millis() as u64),
        Client::Copilot.max_wait_ms(None)
    );
    assert!(
        reason.contains("(the most it may wait is 15 s, under the agent's hook timeout), and 1 other call is still ahead of it; example.com should be free in "),
        "{reason}"
    );
    // An installed timeout of 60 s gives it longer, never more than the
    // config's max_wait.
    assert_eq!(Client::Copilot.max_wait_ms(Some(60_000)), Some(45_000));
    assert_eq!(Client::Codex.max_wait_ms(None), Some(585_000));
    // Claude Code's timeout is the one install wrote above max_wait.
    assert_eq!(Client::ClaudeCode.max_wait_ms(None), None);
    assert_eq!(Client::ClaudeCode.max_wait_ms(Some(30_000)), Some(15_000));
}

#[test]
fn a_busy_site_past_a_30_s_client_s_limit_is_refused_at_once() {
    let mut c = config(40_000);
    c.max_wait_ms = 270_000;
    let ctx = Memory::new(c, T0);
    let f = fixtures(Client::Cline);
    passed(
        Client::Cline,
        &answer(&ctx, Client::Cline, &f["pre_navigate"]),
    );
    ctx.clock.advance(700);
    passed(
        Client::Cline,
        &answer(&ctx, Client::Cline, &f["post_navigate"]),
    );
    let before = ctx.clock.mono();
    let reason = refused(
        Client::Cline,
        &answer(&ctx, Client::Cline, &f["pre_navigate"]),
    );
    assert_eq!(ctx.clock.mono(), before, "nothing waited");
    assert!(
        reason.contains("example.com should be free in 40 s at the earliest"),
        "{reason}"
    );
}

/// Codex's PreToolUse and PostToolUse output schemas
/// (`codex-rs/hooks/schema/generated/*.command.output.schema.json`) allow
/// these fields and no others, and its parser refuses some of what they
/// allow (`codex-rs/hooks/src/engine/output_parser.rs`).
fn codex_accepts(kind: &str, out: &Value) -> Result<(), String> {
    let top: &[&str] = match kind {
        "PreToolUse" => &[
            "continue",
            "hookSpecificOutput",
            "stopReason",
            "suppressOutput",
            "systemMessage",
            "decision",
            "reason",
        ],
        _ => &[
            "continue",
            "decision",
            "hookSpecificOutput",
            "reason",
            "stopReason",
            "suppressOutput",
            "systemMessage",
        ],
    };
    let specific: &[&str] = match kind {
        "PreToolUse" => &[
            "additionalContext",
            "hookEventName",
            "permissionDecision",
            "permissionDecisionReason",
            "updatedInput",
        ],
        _ => &[
            "additionalContext",
            "hookEventName",
            "updatedMCPToolOutput",
            "updatedToolOutput",
        ],
    };
    let o = out.as_object().ok_or("not an object")?;
    for k in o.keys() {
        if !top.contains(&k.as_str()) {
            return Err(format!("unknown field {k}"));
        }
    }
    if let Some(h) = o.get("hookSpecificOutput") {
        let h = h.as_object().ok_or("hookSpecificOutput is not an object")?;
        for k in h.keys() {
            if !specific.contains(&k.as_str()) {
                return Err(format!("unknown hookSpecificOutput field {k}"));
            }
        }
        if h.get("hookEventName").and_then(Value::as_str) != Some(kind) {
            return Err("hookEventName missing or wrong".into());
        }
        match h.get("permissionDecision").and_then(Value::as_str) {
            Some("allow") if !h.contains_key("updatedInput") => {
                return Err("allow without updatedInput".into());
            }
            Some("ask") => return Err("ask".into()),
            Some("deny")
                if h.get("permissionDecisionReason")
                    .and_then(Value::as_str)
                    .is_none_or(|r| r.trim().is_empty()) =>
            {
                return Err("deny without a reason".into());
            }
            _ => {}
        }
    }
    if kind == "PreToolUse"
        && (o.get("continue") == Some(&Value::Bool(false))
            || o.contains_key("stopReason")
            || o.get("suppressOutput") == Some(&Value::Bool(true)))
    {
        return Err("continue:false, stopReason or suppressOutput on a Pre".into());
    }
    Ok(())
}

#[test]
fn every_codex_answer_fits_its_schema_and_parser() {
    use crate::hook::event::EventKind;
    for (kind, name) in [
        (EventKind::PreToolUse, "PreToolUse"),
        (EventKind::PostToolUse, "PostToolUse"),
    ] {
        for reply in [
            Reply::Pass,
            Reply::Tell("a site asked for less"),
            Reply::Block("no"),
            Reply::PostFailed("lost"),
        ] {
            let a = Client::Codex.answer(Some(&kind), reply);
            if let Some(out) = &a.stdout {
                let v: Value = serde_json::from_str(out).expect("one JSON object");
                codex_accepts(name, &v).unwrap_or_else(|e| panic!("{reply:?} on {name}: {e}: {v}"));
            }
            if a.exit == Exit::Block {
                assert!(
                    a.stderr.as_deref().is_some_and(|s| !s.trim().is_empty()),
                    "exit 2 needs stderr"
                );
            }
        }
    }
    // The checker itself refuses what Codex refuses.
    assert!(codex_accepts("PreToolUse", &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})).is_err());
    assert!(codex_accepts("PreToolUse", &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}})).is_err());
    assert!(codex_accepts("PreToolUse", &json!({"continue": false})).is_err());
    assert!(codex_accepts("PreToolUse", &json!({"extra": 1})).is_err());
    // An empty reason still blocks: Codex needs stderr to be non-empty.
    let a = Client::Codex.answer(None, Reply::Block(" "));
    assert!(a.stderr.is_some_and(|s| !s.trim().is_empty()));
}

#[test]
fn notes_for_the_model_go_where_each_client_reads_them() {
    use crate::hook::event::EventKind;
    let pre = Some(&EventKind::PreToolUse);
    let post = Some(&EventKind::PostToolUse);
    let out = |c: Client, k, r| c.answer(k, r).stdout;
    assert_eq!(
        out(Client::Gemini, post, Reply::Tell("x")).as_deref(),
        Some(
            "{\"hookSpecificOutput\":{\"additionalContext\":\"x\",\"hookEventName\":\"AfterTool\"}}\n"
        )
    );
    assert_eq!(
        out(Client::Gemini, pre, Reply::Tell("x")).as_deref(),
        Some("{\"systemMessage\":\"x\"}\n")
    );
    assert_eq!(
        out(Client::Cline, post, Reply::Tell("x")).as_deref(),
        Some("{\"cancel\":false,\"contextModification\":\"x\"}\n")
    );
    // Copilot CLI reads nothing of a command hook's but the decision.
    assert_eq!(
        Client::Copilot.answer(post, Reply::Tell("x")),
        Answer::exit(Exit::Success)
    );
    assert_eq!(
        out(Client::VsCode, pre, Reply::Tell("x")).as_deref(),
        Some(
            "{\"hookSpecificOutput\":{\"additionalContext\":\"x\",\"hookEventName\":\"PreToolUse\"}}\n"
        )
    );
    // A Post that could not be recorded blocks nothing anywhere.
    for c in super::ALL {
        let a = c.answer(post, Reply::PostFailed("lost"));
        assert_eq!(a.exit, Exit::Failure, "{c:?}");
        assert_eq!(a.stderr.as_deref(), Some("lost"));
    }
}

#[test]
fn urls_are_found_wherever_they_stand_in_a_prompt() {
    let (urls, odd) = super::urls_in(
        "see (https://a.example/x), HTTP://B.example/y; and ftp://c.example/ and \"https://d.example/z\"",
    );
    assert_eq!(
        urls,
        [
            "https://a.example/x",
            "HTTP://B.example/y",
            "https://d.example/z"
        ]
    );
    assert!(!odd);
    assert!(super::urls_in("go to ://x.example").1);
    assert_eq!(super::urls_in("none here").0.len(), 0);
}

#[test]
fn mcp_names_split_where_a_profile_knows_the_tool() {
    assert_eq!(
        super::mcp_name("chrome-devtools-navigate_page", '-'),
        "mcp__chrome-devtools__navigate_page"
    );
    assert_eq!(
        super::mcp_name("my_playwright_browser_navigate", '_'),
        "mcp__my_playwright__browser_navigate"
    );
    assert_eq!(
        super::mcp_name("weather-get_forecast", '-'),
        "mcp__weather__get_forecast"
    );
    assert_eq!(super::mcp_name("solo", '-'), "mcp__solo__solo");
}

#[test]
fn gemini_s_parallel_calls_in_one_session_do_not_end_each_other() {
    // Gemini CLI runs a turn's calls at once: a second navigation to the
    // site must wait for the first one's end, not end it.
    let ctx = Memory::new(config(10_000), T0);
    let f = fixtures(Client::Gemini);
    passed(
        Client::Gemini,
        &answer(&ctx, Client::Gemini, &f["pre_navigate"]),
    );
    let other = f["pre_navigate"]
        .to_string()
        .replace("https://example.com/a", "https://www.example.com/b");
    let other: Value = serde_json::from_str(&other).unwrap();
    let reason = refused(Client::Gemini, &answer(&ctx, Client::Gemini, &other));
    assert!(
        reason.contains("under the agent's hook timeout"),
        "{reason}"
    );
    let state = ctx.store.peek("example.com").expect("a state");
    assert_eq!(
        state.in_flight.len(),
        1,
        "the first call still holds the site"
    );
    assert!(of_kind(&ctx.store.records(), Kind::Finish).is_empty());
    // Its own Post, and no other, ends it.
    ctx.clock.advance(1_000);
    passed(
        Client::Gemini,
        &answer(&ctx, Client::Gemini, &f["post_navigate"]),
    );
    let finish = of_kind(&ctx.store.records(), Kind::Finish);
    assert_eq!(finish.len(), 1);
    assert!(ctx.store.peek("example.com").unwrap().in_flight.is_empty());
}

#[test]
fn every_cut_of_every_client_s_event_is_refused_and_none_panics() {
    for client in OTHERS {
        let f = fixtures(client);
        for (name, event) in f.as_object().unwrap() {
            if name.starts_with('_') {
                continue;
            }
            let bytes = event.to_string().into_bytes();
            client
                .read(&bytes)
                .unwrap_or_else(|e| panic!("{client:?} {name}: {e}"));
            for cut in 0..bytes.len() {
                let part = &bytes[..cut];
                assert!(
                    client.read(part).is_err(),
                    "{client:?} {name} cut at {cut} was read"
                );
                let _ = client.looks_like_post(part);
                let _ = Client::detect(part);
            }
        }
    }
}

#[test]
fn a_lone_surrogate_in_a_result_does_not_make_the_event_unreadable() {
    let post = br#"{"hookName":"PostToolUse","taskId":"t","postToolUse":{"toolName":"web_fetch","parameters":{"url":"https://example.org/"},"result":"cut \ud83d","success":true}}"#;
    let e = Client::Cline.read(post).expect("read");
    assert_eq!(e.response_texts, ["cut \u{fffd}"]);
    let gemini = br#"{"hook_event_name":"AfterTool","session_id":"s","tool_name":"web_fetch","tool_input":{"prompt":"https://example.org/"},"tool_response":{"llmContent":"x \udc00"}}"#;
    assert!(Client::Gemini.read(gemini).is_ok());
}
