//! Tools no profile owns: those nobody knows, and those the config declares
//! with `[[tool]]` rules.

use super::*;

/// Issue 8: with a broad matcher (`mcp__.*`), a tool of a server no profile
/// knows passed with nothing in the gate log; issue 16: one handed a URL
/// most likely fetches it. It is paced on the URL's site, its Post records
/// the finish, and its line names the whole tool, for `status` to say how to
/// declare it.
#[test]
fn a_tool_nobody_knows_handed_a_url_is_paced_there_and_logged_by_its_full_name() {
    let gate = Gate::new("");
    assert_pass(&gate.run(&fixture("PreToolUse.stdio-mode")));
    let unknown = gate.events("unknown");
    assert_eq!(unknown.len(), 1, "{:#?}", gate.log());
    assert_eq!(unknown[0]["tool"], "mcp__chromemock__navigate");
    let admits = gate.events("admit");
    assert_eq!(admits.len(), 1, "{:#?}", gate.log());
    assert_eq!(admits[0]["sites"], json!(["example.com"]));
    let mut post = fixture("PreToolUse.stdio-mode");
    post["hook_event_name"] = json!("PostToolUse");
    post["tool_response"] = json!([{"type": "text", "text": "ok"}]);
    assert_pass(&gate.run(&post));
    let finishes = gate.events("finish");
    assert_eq!(finishes.len(), 1, "{:#?}", gate.log());
    assert_eq!(finishes[0]["sites"], json!(["example.com"]));
}

/// A tool nobody knows that is handed no URL (an issue tracker's) passes,
/// logged, as before.
#[test]
fn a_tool_nobody_knows_handed_no_url_passes_and_is_logged() {
    let gate = Gate::new("");
    let mut pre = fixture("PreToolUse.stdio-mode");
    pre["tool_name"] = json!("mcp__tracker__create_issue");
    pre["tool_input"] = json!({"title": "x"});
    assert_pass(&gate.run(&pre));
    let log = gate.log();
    assert_eq!(log.len(), 1, "{log:#?}");
    assert_eq!(log[0]["event"], "unknown");
}

const TOOLS: &str = r#"interval = "10ms"
[[site]]
name = "bb"
domains = ["browserbase.example"]

[[tool]]
match = "mcp__browserbase__navigate"
class = "pace"
url = "/url"

[[tool]]
match = "mcp__browserbase__(act|extract)"
class = "pace"

[[tool]]
match = "mcp__browserbase__observe"
class = "skip"

[[tool]]
match = "mcp__browser-use__retry_with_browser_use_agent"
class = "block"
reason = "it hands the whole job to an agent whose requests pace-hook cannot space; drive the browser one step per call instead."

[[tool]]
match = "mcp__browserbase__evaluate"
class = "pace"
code = "/script"

[[tool]]
match = "mcp__playwright__browser_future_tool"
class = "pace"
"#;

#[test]
fn declared_tools_are_paced_skipped_and_blocked_as_the_config_says() {
    let gate = Gate::new(TOOLS);
    // Pace with a URL: that URL's site; its Post finishes the call.
    let nav = call(
        "mcp__browserbase__navigate",
        json!({"url": "https://shop.example/cart"}),
        "nav",
        "A",
    );
    assert_pass(&gate.run(&nav));
    assert_eq!(sites(&gate, "nav"), json!(["shop.example"]));
    assert_pass(&gate.run(&answer(&nav, "Navigated")));
    gate.record("finish", "nav");
    // Pace without a URL, on a server no profile knows: every known site.
    let act = call(
        "mcp__browserbase__act",
        json!({"action": "click the checkout button"}),
        "act",
        "B",
    );
    assert_pass(&gate.run(&act));
    assert_eq!(
        sites(&gate, "act"),
        json!(["browserbase.example", "shop.example"])
    );
    assert_pass(&gate.run(&answer(&act, "Clicked the checkout button")));
    gate.record("finish", "act");
    // Skip.
    let observe = call("mcp__browserbase__observe", json!({}), "obs", "A");
    assert_pass(&gate.run(&observe));
    assert_eq!(
        gate.record("skip", "obs")["reason"],
        "declared `skip` by a [[tool]] rule"
    );
    // Block, with the user's reason.
    let agent = call(
        "mcp__browser-use__retry_with_browser_use_agent",
        json!({"task": "buy it"}),
        "agent",
        "A",
    );
    let out = gate.run(&agent);
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "pace-hook blocked `retry_with_browser_use_agent`: it hands the whole job to an agent whose requests pace-hook cannot space; drive the browser one step per call instead (the user's pace-hook config blocks `mcp__browser-use__retry_with_browser_use_agent`).\n"
    );
    // Code: analysed as a page script.
    let two = call(
        "mcp__browserbase__evaluate",
        json!({"script": "fetch('/a'); fetch('/b')"}),
        "two",
        "A",
    );
    assert_eq!(code(&gate.run(&two)), 2);
    let one = call(
        "mcp__browserbase__evaluate",
        json!({"script": "await fetch('https://api.example/x')"}),
        "one",
        "C",
    );
    assert_pass(&gate.run(&one));
    assert!(
        sites(&gate, "one")
            .as_array()
            .unwrap()
            .contains(&json!("api.example"))
    );
}

#[test]
fn a_declared_tool_of_a_known_server_is_paced_on_its_current_page() {
    let gate = Gate::new(TOOLS);
    run_call(&gate, &event_in("PostToolUse.browser_navigate", "nav", "A"));
    let future = call(
        "mcp__playwright__browser_future_tool",
        json!({}),
        "future",
        "A",
    );
    assert_pass(&gate.run(&future));
    assert_eq!(sites(&gate, "future"), json!(["example.com"]));
}

#[test]
fn a_bad_config_blocks_an_open_tool_but_not_a_listed_read() {
    let gate = Gate::new("[[tool]]\nmatch = \"mcp__x__.*\"\nclass = \"later\"\n");
    let open = call("mcp__x__go", json!({}), "go", "A");
    let out = gate.run(&open);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("class `later`"), "{}", stderr(&out));
    let read = call("mcp__playwright__browser_snapshot", json!({}), "snap", "A");
    assert_pass(&gate.run(&read));
}

// ---------------------------------------------------------------------
// Issue 10: listening to the site, budgets and jitter.
