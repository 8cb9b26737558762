//! Timelines of whole hook events, in-process: the same `hook::handle` the
//! binary runs, on a fake clock and the in-memory store, so that a wait of
//! seconds is a step of the clock and every run is the same.

use std::time::Duration;

use serde_json::{Value, json};

use super::{Outcome, context::Memory, event::HookEvent, handle};
use crate::{
    config::Config,
    pacing::{
        clock::Clock,
        log::{Kind, Record},
    },
    store::Tabs,
};

const T0: u64 = 1_800_000_000_000;

fn config(interval_ms: u64, hold_ms: u64, max_wait_ms: u64) -> Config {
    let mut c = Config::default();
    c.interval_ms = interval_ms;
    c.hold_ms = hold_ms;
    c.max_wait_ms = max_wait_ms;
    c
}

fn event(kind: &str, id: &str, tool: &str, input: Value, extra: Value) -> HookEvent {
    let mut e = json!({
        "session_id": "s1",
        "hook_event_name": kind,
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": id,
    });
    if let (Some(e), Value::Object(extra)) = (e.as_object_mut(), extra) {
        e.extend(extra);
    }
    HookEvent::parse(e.to_string().as_bytes()).expect("a well-formed event")
}

fn run(ctx: &Memory, e: &HookEvent) -> Outcome {
    handle(ctx, e, ctx.clock.mono()).unwrap_or_else(|f| panic!("{f:?}"))
}

const NAVIGATE: &str = "mcp__claude-in-chrome__navigate";

fn navigate(id: &str, url: &str) -> HookEvent {
    event(
        "PreToolUse",
        id,
        NAVIGATE,
        json!({"url": url, "tabId": 1}),
        json!({}),
    )
}

fn navigated(id: &str, url: &str) -> HookEvent {
    let tabs = format!("\n\nTab Context:\n- Available tabs:\n  • tabId 1: \"Page\" (\"{url}\")");
    event(
        "PostToolUse",
        id,
        NAVIGATE,
        json!({"url": url, "tabId": 1}),
        json!({"tool_response": [
            {"type": "text", "text": format!("Navigated to {url}")},
            {"type": "text", "text": tabs},
        ]}),
    )
}

fn of_kind(records: &[Record], kind: Kind) -> Vec<&Record> {
    records.iter().filter(|r| r.event == kind).collect()
}

#[test]
fn a_second_navigate_waits_the_interval_after_the_first_finishes() {
    let ctx = Memory::new(config(10_000, 120_000, 60_000), T0);
    assert_eq!(
        run(&ctx, &navigate("n1", "https://example.com/a")),
        Outcome::Pass
    );
    ctx.clock.advance(700);
    assert_eq!(
        run(&ctx, &navigated("n1", "https://example.com/a")),
        Outcome::Pass
    );
    ctx.clock.advance(1_000);
    // It waited, and says so: to the user and to the model.
    assert_eq!(
        run(&ctx, &navigate("n2", "https://www.example.com/b")),
        Outcome::Waited {
            user: "pace-hook: `navigate` waited 9 s for example.com's turn: its last call ended less than 10 s ago (interval: from the end of one call to the start of the next)".into(),
            model: "pace-hook paced this call: `navigate` waited 9 s for example.com's turn, because its last call ended less than 10 s ago (interval: from the end of one call to the start of the next). The call then went ahead; there is nothing to retry. Calls to other sites are not held by this one.".into(),
        }
    );
    let records = ctx.store.records();
    let admits = of_kind(&records, Kind::Admit);
    let finish = of_kind(&records, Kind::Finish)[0];
    assert_eq!(admits.len(), 2);
    assert_eq!(admits[0].ts, T0);
    assert_eq!(finish.ts, T0 + 700);
    assert_eq!(admits[1].ts, finish.ts + 10_000, "{records:#?}");
    assert_eq!(admits[1].sites, ["example.com"]);
    assert_eq!(admits[1].waited_ms, Some(9_000));
}

/// Run `e` with its process stopped for 1.5 s right after its admission is
/// logged; what it tells the user.
fn held_up(ctx: &Memory, e: &HookEvent) -> String {
    ctx.store
        .stall_after_next(Kind::Admit, Duration::from_millis(1_500));
    let Outcome::Waited { user, .. } = run(ctx, e) else {
        panic!("a call held up 1.5 s says it waited")
    };
    user
}

#[test]
fn a_pre_held_up_past_its_hold_after_admission_queues_again() {
    let ctx = Memory::new(config(2_000, 1_000, 60_000), T0);
    // Stopped right after its admission was logged, for longer than its hold.
    let user = held_up(&ctx, &navigate("n1", "https://example.com/a"));
    assert!(
        user.ends_with("this process was held up getting its turn"),
        "{user}"
    );
    let records = ctx.store.records();
    let kinds: Vec<Kind> = records.iter().map(|r| r.event).collect();
    assert_eq!(
        kinds,
        [Kind::Admit, Kind::Cancel, Kind::Admit],
        "{records:#?}"
    );
    assert_eq!(
        records[1].reason.as_deref(),
        Some("held up after admission past its hold; queued again")
    );
    assert_eq!(records[2].ts, T0 + 1_500);
    let state = ctx.store.peek("example.com").expect("a state");
    assert_eq!(state.in_flight.len(), 1, "only the second admission holds");
    assert_eq!(state.in_flight[0].until_ms, T0 + 1_500 + 1_000);
}

#[test]
fn a_429_with_retry_after_holds_the_next_call_back_and_tells_the_model() {
    let ctx = Memory::new(config(1_000, 120_000, 60_000), T0);
    let input = json!({"url": "https://api.example.com/x", "prompt": "p"});
    let pre = |id: &str| event("PreToolUse", id, "WebFetch", input.clone(), json!({}));
    assert_eq!(run(&ctx, &pre("w1")), Outcome::Pass);
    ctx.clock.advance(200);
    let post = event(
        "PostToolUse",
        "w1",
        "WebFetch",
        input.clone(),
        json!({"tool_response": {
            "bytes": 0, "code": 429, "codeText": "Too Many Requests",
            "result": "The server returned HTTP 429 Too Many Requests.\nRetry-After: 30\n",
            "durationMs": 200, "url": "https://api.example.com/x"
        }}),
    );
    let Outcome::Tell(told) = run(&ctx, &post) else {
        panic!("the model is told of the backoff")
    };
    assert!(
        told.starts_with(
            "example.com answered 429 Too Many Requests; pace-hook holds its next call back until"
        ),
        "{told}"
    );
    let Outcome::Waited { user, .. } = run(&ctx, &pre("w2")) else {
        panic!("the call held back says it waited")
    };
    assert!(
        user.contains("example.com's turn: example.com is backing off (it answered 429, or was held back by hand) until "),
        "{user}"
    );
    let records = ctx.store.records();
    let backoff = of_kind(&records, Kind::Backoff)[0];
    let admits = of_kind(&records, Kind::Admit);
    assert_eq!(backoff.sites, ["example.com"]);
    assert!(
        admits[1].ts >= backoff.ts + 30_000,
        "the Retry-After is kept: {records:#?}"
    );
}

#[test]
fn a_result_s_tab_context_moves_the_tab_map_and_the_next_click_paces_there() {
    let ctx = Memory::new(config(3_000, 120_000, 60_000), T0);
    assert_eq!(
        run(&ctx, &navigate("n1", "https://shop.example.org/")),
        Outcome::Pass
    );
    ctx.clock.advance(100);
    // The page redirected: the result shows the tab on another site.
    assert_eq!(
        run(&ctx, &navigated("n1", "https://news.example.net/landing")),
        Outcome::Pass
    );
    let tabs = ctx.store.tabs().expect("the tab map");
    let entry = tabs.tabs.values().next().expect("tab 1 is known");
    assert_eq!(entry.hosts, ["news.example.net"]);
    let click = event(
        "PreToolUse",
        "c1",
        "mcp__claude-in-chrome__computer",
        json!({"action": "left_click", "coordinate": [10, 10], "tabId": 1}),
        json!({}),
    );
    let Outcome::Waited { user, .. } = run(&ctx, &click) else {
        panic!("the click waited 3 s")
    };
    assert!(user.contains("waited 3 s for example.net's turn"), "{user}");
    let records = ctx.store.records();
    let admits = of_kind(&records, Kind::Admit);
    assert_eq!(admits[1].sites, ["example.net"], "{records:#?}");
    // The site the result revealed counts from this call's finish.
    assert_eq!(admits[1].ts, T0 + 100 + 3_000);
}

#[test]
fn a_call_paced_on_every_known_site_names_the_one_that_held_it_and_counts_the_rest() {
    let ctx = Memory::new(config(10_000, 120_000, 60_000), T0);
    // Five sites with state, long done; then example.com, just done.
    for (i, site) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        let url = format!("https://{site}.test/");
        let id = format!("old{i}");
        assert_eq!(run(&ctx, &navigate(&id, &url)), Outcome::Pass);
        assert_eq!(run(&ctx, &navigated(&id, &url)), Outcome::Pass);
        ctx.clock.advance(10_000);
    }
    assert_eq!(
        run(&ctx, &navigate("n1", "https://example.com/")),
        Outcome::Pass
    );
    assert_eq!(
        run(&ctx, &navigated("n1", "https://example.com/")),
        Outcome::Pass
    );
    ctx.clock.advance(1_000);
    // A script on a tab the map does not know: every known site.
    let script = event(
        "PreToolUse",
        "j1",
        "mcp__claude-in-chrome__javascript_tool",
        json!({"action": "javascript_exec", "tabId": 99, "text": "document.title"}),
        json!({}),
    );
    let Outcome::Waited { user, model } = run(&ctx, &script) else {
        panic!("the script waited for example.com")
    };
    assert_eq!(
        user,
        "pace-hook: `javascript_tool` waited 9 s for example.com's turn (one of the 6 sites it was paced on: a.test, b.test and 4 others): its last call ended less than 10 s ago (interval: from the end of one call to the start of the next)"
    );
    assert_eq!(
        model,
        "pace-hook paced this call: `javascript_tool` waited 9 s for example.com's turn (one of the 6 sites it was paced on: a.test, b.test and 4 others), because its last call ended less than 10 s ago (interval: from the end of one call to the start of the next). The call then went ahead; there is nothing to retry. Calls to sites it was not paced on are not held by this one."
    );
    let records = ctx.store.records();
    let admit = of_kind(&records, Kind::Admit).pop().expect("admitted");
    assert_eq!(admit.sites.len(), 6, "{admit:#?}");
}

#[test]
fn a_wait_with_no_interval_is_not_blamed_on_one() {
    let ctx = Memory::new(config(0, 1_000, 60_000), T0);
    assert_eq!(
        run(&ctx, &navigate("n1", "https://example.com/a")),
        Outcome::Pass
    );
    assert_eq!(
        run(&ctx, &navigated("n1", "https://example.com/a")),
        Outcome::Pass
    );
    // Held up after its admission for longer than its hold: it queues
    // again, having waited, with the site's last finish long before.
    let user = held_up(&ctx, &navigate("n2", "https://example.com/b"));
    assert!(
        user.ends_with("for example.com's turn: another call held it (in flight), or this process was held up getting its turn"),
        "{user}"
    );
}

#[test]
fn a_message_names_a_few_sites_and_counts_the_rest() {
    use super::name_sites;
    assert_eq!(name_sites(&[]), "");
    assert_eq!(name_sites(&["a.test"]), "a.test");
    assert_eq!(name_sites(&["a.test", "b.test"]), "a.test and b.test");
    assert_eq!(
        name_sites(&["a.test", "b.test", "c.test"]),
        "a.test, b.test and c.test"
    );
    assert_eq!(
        name_sites(&["a.test", "b.test", "c.test", "d.test"]),
        "a.test, b.test and 2 others"
    );
    let many: Vec<String> = (0..2_001).map(|i| format!("s{i}.test")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    assert_eq!(name_sites(&many), "s0.test, s1.test and 1,999 others");
    assert_eq!(super::count(999), "999");
    assert_eq!(super::count(1_000), "1,000");
    assert_eq!(super::count(1_234_567), "1,234,567");
}

#[test]
fn a_call_whose_turn_is_further_off_than_max_wait_is_blocked_at_once_saying_when() {
    let ctx = Memory::new(config(10_000, 120_000, 3_000), T0);
    assert_eq!(
        run(&ctx, &navigate("n1", "https://example.com/a")),
        Outcome::Pass
    );
    let Outcome::Block(message) = run(&ctx, &navigate("n2", "https://example.com/b")) else {
        panic!("blocked")
    };
    assert!(
        message.starts_with(
            "pace-hook blocked `navigate` on example.com: it waited 0 ms for its turn (the most it may wait is max_wait, 3 s), and the site is still busy; example.com should be free in 10 s at the earliest."
        ),
        "{message}"
    );
    let records = ctx.store.records();
    assert_eq!(of_kind(&records, Kind::GiveUp).len(), 1);
}

#[test]
fn a_read_only_call_passes_at_once_and_logs_a_skip_without_opening_the_store() {
    let ctx = Memory::new(config(10_000, 120_000, 60_000), T0);
    let read = event(
        "PreToolUse",
        "r1",
        "mcp__claude-in-chrome__get_page_text",
        json!({"tabId": 1}),
        json!({}),
    );
    assert_eq!(run(&ctx, &read), Outcome::Pass);
    let records = ctx.store.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].event, Kind::Skip);
    assert_eq!(ctx.clock.now_floor(), T0, "nothing waited");
}
