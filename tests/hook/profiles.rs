//! Each family of tools through the binary: WebFetch, Playwright, DevTools,
//! Puppeteer, and tab ids that never meet across profiles and sessions.

use super::*;

#[test]
fn webfetch_is_paced_on_its_url_and_its_post_records_the_finish() {
    let gate = Gate::new("interval = \"300ms\"\n");
    let first = event_in("PostToolUse.WebFetch", "f1", "A");
    run_call(&gate, &first);
    assert_eq!(sites(&gate, "f1"), json!(["example.com"]));
    let end = ts(&gate.record("finish", "f1"));
    // The next fetch of the site, from another session, counts from that
    // finish; a 429 is a successful call whose Post finishes it too.
    let second = event_in("PostToolUse.WebFetch-429", "f2", "B");
    assert_pass(&gate.run(&pre_of(&second)));
    assert_eq!(code(&gate.run(&second)), 0);
    assert!(ts(&gate.record("admit", "f2")) >= end + 300);
    gate.record("finish", "f2");
    // WebSearch reaches no site pace-hook spaces.
    assert_pass(&gate.run(&event_in("PreToolUse.WebSearch", "s1", "A")));
    assert_eq!(
        gate.record("skip", "s1")["reason"],
        "searches through the agent's provider, not the sites"
    );
}

#[test]
fn playwright_calls_are_paced_on_the_page_its_navigation_reached() {
    let gate = Gate::new("interval = \"300ms\"\n");
    // By URL.
    run_call(&gate, &event_in("PostToolUse.browser_navigate", "nav", "A"));
    assert_eq!(sites(&gate, "nav"), json!(["example.com"]));
    let end = ts(&gate.record("finish", "nav"));
    // By the current page, which the navigation's Post taught.
    let click = call(
        "mcp__playwright__browser_click",
        json!({"element": "link", "target": "e6"}),
        "click",
        "A",
    );
    assert_pass(&gate.run(&click));
    assert_eq!(sites(&gate, "click"), json!(["example.com"]));
    assert!(ts(&gate.record("admit", "click")) >= end + 300);
    // Reads pass at once.
    let snap = call("mcp__playwright__browser_snapshot", json!({}), "snap", "A");
    assert_pass(&finish(gate.spawn(&snap), Duration::from_secs(5)));
    assert_eq!(
        gate.record("skip", "snap")["reason"],
        "reads the page the browser has"
    );
}

#[test]
fn a_playwright_post_that_moves_the_page_moves_later_calls_with_it() {
    let gate = Gate::new("interval = \"10ms\"\n");
    run_call(&gate, &event_in("PostToolUse.browser_navigate", "nav", "A"));
    // The click leaves example.com for iana.org: paced on example.com,
    // where it was made; its Post shows where the tab is now.
    let click = event_in("PostToolUse.browser_click", "click", "A");
    run_call(&gate, &click);
    assert_eq!(sites(&gate, "click"), json!(["example.com"]));
    let key = call(
        "mcp__playwright__browser_press_key",
        json!({"key": "End"}),
        "key",
        "A",
    );
    assert_pass(&gate.run(&key));
    assert_eq!(sites(&gate, "key"), json!(["iana.org"]));
}

#[test]
fn playwright_tabs_are_learnt_from_a_listing_and_a_select() {
    let gate = Gate::new("interval = \"10ms\"\n");
    run_call(&gate, &event_in("PostToolUse.browser_navigate", "nav", "A"));
    // A select is a read; its Post lists both tabs and makes tab 1 current.
    let select = event_in("PostToolUse.browser_tabs", "sel", "A");
    run_call(&gate, &select);
    assert_eq!(gate.record("skip", "sel")["reason"], "switches tabs");
    let c1 = call(
        "mcp__playwright__browser_click",
        json!({"target": "e1"}),
        "c1",
        "A",
    );
    assert_pass(&gate.run(&c1));
    assert_eq!(sites(&gate, "c1"), json!(["wikipedia.org"]));
    // Back to tab 0, where the listing said example.com is.
    let mut back = select.clone();
    back["tool_use_id"] = json!("sel0");
    back["tool_input"] = json!({"action": "select", "index": 0});
    back["tool_response"] = json!([{"type": "text", "text": "### Result\n- 0: (current) [Example Domain](https://example.com/)\n- 1: [Wikipedia, the free encyclopedia](https://en.wikipedia.org/wiki/Main_Page)"}]);
    run_call(&gate, &back);
    let c2 = call(
        "mcp__playwright__browser_click",
        json!({"target": "e2"}),
        "c2",
        "A",
    );
    assert_pass(&gate.run(&c2));
    assert_eq!(sites(&gate, "c2"), json!(["example.com"]));
}

#[test]
fn an_older_playwright_result_is_read_too() {
    let gate = Gate::new("interval = \"10ms\"\n");
    run_call(
        &gate,
        &event_in("PostToolUse.browser_navigate-0.0.36", "nav", "A"),
    );
    let c = call(
        "mcp__playwright__browser_hover",
        json!({"target": "e3"}),
        "hover",
        "A",
    );
    assert_pass(&gate.run(&c));
    assert_eq!(sites(&gate, "hover"), json!(["example.com"]));
}

#[test]
fn page_text_posing_as_playwright_sections_cannot_move_a_tab_off_its_site() {
    let gate = Gate::new("interval = \"10ms\"\n");
    run_call(&gate, &event_in("PostToolUse.browser_navigate", "nav", "A"));
    // The console holds a planted `### Page` for planted.example, ahead of
    // the server's own section.
    run_call(
        &gate,
        &event_in("PostToolUse.browser_console_messages", "console", "A"),
    );
    let c = call(
        "mcp__playwright__browser_click",
        json!({"target": "e1"}),
        "click",
        "A",
    );
    assert_pass(&gate.run(&c));
    // Still paced on example.com; the planted site is at most added.
    let s = sites(&gate, "click");
    assert!(s.as_array().unwrap().contains(&json!("example.com")), "{s}");
}

#[test]
fn playwright_scripts_with_two_requests_are_blocked() {
    let gate = Gate::new("");
    let eval = call(
        "mcp__playwright__browser_evaluate",
        json!({"function": "async () => [await fetch('/a'), await fetch('/b')]"}),
        "eval",
        "A",
    );
    let out = gate.run(&eval);
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "pace-hook blocked `browser_evaluate`: the script can start more than one request: `fetch` at 1:20 and `fetch` at 1:39 both run. Make one request per browser_evaluate call, with no loop or callback around it; pace-hook then spaces the requests to each site 10 s apart, from the end of one to the start of the next.\n"
    );
    let run = call(
        "mcp__playwright__browser_run_code_unsafe",
        json!({"code": "async (page) => { await page.goto('https://a.example/'); await page.goto('https://b.example/'); }"}),
        "run",
        "A",
    );
    let out = gate.run(&run);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "pace-hook blocked `browser_run_code_unsafe`: the script can start more than one request: `page.goto` at 1:25 and `page.goto` at 1:64 both run. Make one request per browser_run_code_unsafe call, with no loop or callback around it; pace-hook then spaces the requests to each site 10 s apart, from the end of one to the start of the next.\n"
    );
    assert!(gate.events("admit").is_empty());
}

#[test]
fn devtools_calls_are_paced_on_the_selected_page_and_follow_select_page() {
    let gate = Gate::new("interval = \"10ms\"\n");
    // By URL; its Post's listing selects page 1 there.
    run_call(&gate, &event_in("PostToolUse.navigate_page", "nav", "A"));
    assert_eq!(sites(&gate, "nav"), json!(["example.org"]));
    let c1 = call(
        "mcp__chrome-devtools__click",
        json!({"uid": "1_4"}),
        "c1",
        "A",
    );
    assert_pass(&gate.run(&c1));
    assert_eq!(sites(&gate, "c1"), json!(["example.org"]));
    // A listing shows page 2; selecting it is a read, learnt at its Post.
    run_call(&gate, &event_in("PostToolUse.list_pages", "list", "A"));
    let select = event_in("PostToolUse.select_page", "sel", "A");
    assert_pass(&gate.run(&pre_of(&select)));
    assert_eq!(gate.record("skip", "sel")["reason"], "selects a page");
    let c2 = call(
        "mcp__chrome-devtools__fill",
        json!({"uid": "2_1", "value": "x"}),
        "c2",
        "A",
    );
    // Before the Post the selection has not moved.
    assert_pass(&gate.run(&c2));
    assert_eq!(sites(&gate, "c2"), json!(["example.org"]));
    assert_pass(&gate.run(&select));
    let c3 = call(
        "mcp__chrome-devtools__fill",
        json!({"uid": "2_1", "value": "y"}),
        "c3",
        "A",
    );
    assert_pass(&gate.run(&c3));
    assert_eq!(sites(&gate, "c3"), json!(["example.net"]));
}

#[test]
fn a_devtools_select_that_failed_selects_nothing() {
    let gate = Gate::new("interval = \"10ms\"\n");
    run_call(&gate, &event_in("PostToolUse.list_pages", "list", "A"));
    let mut failed = pre_of(&event_in("PostToolUse.select_page", "sel", "A"));
    failed["hook_event_name"] = json!("PostToolUseFailure");
    failed["error"] = json!("No page found");
    assert_pass(&gate.run(&failed));
    let c = call(
        "mcp__chrome-devtools__click",
        json!({"uid": "1_1"}),
        "c",
        "A",
    );
    assert_pass(&gate.run(&c));
    assert_eq!(sites(&gate, "c"), json!(["example.org"]));
}

#[test]
fn devtools_scripts_are_analysed_and_reads_skipped() {
    let gate = Gate::new("");
    let eval = call(
        "mcp__chrome-devtools__evaluate_script",
        json!({"function": "async () => { for (const u of urls) await fetch(u) }"}),
        "eval",
        "A",
    );
    let out = gate.run(&eval);
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "pace-hook blocked `evaluate_script`: the script can start more than one request: `fetch` at 1:43 runs inside a `for … of` loop (1:15). Make one request per evaluate_script call, with no loop or callback around it; pace-hook then spaces the requests to each site 10 s apart, from the end of one to the start of the next.\n"
    );
    let shot = call(
        "mcp__chrome-devtools__take_screenshot",
        json!({}),
        "shot",
        "A",
    );
    assert_pass(&gate.run(&shot));
    assert_eq!(gate.record("skip", "shot")["reason"], "takes a screenshot");
}

/// Issue 17: the first call of a run under the real CLI was DevTools'
/// `list_pages`, a read, and its skip left no line in the gate log, since
/// nothing had made the state directory yet.
#[test]
fn a_skip_before_the_state_directory_exists_writes_its_log_line() {
    let gate = Gate::new("");
    assert!(!gate.home().exists());
    let list = call("mcp__chrome-devtools__list_pages", json!({}), "list", "A");
    assert_pass(&gate.run(&list));
    assert_eq!(gate.record("skip", "list")["reason"], "lists pages");
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&fs::metadata(gate.home()).unwrap().permissions())
            & 0o777;
    assert_eq!(mode, 0o700, "the state directory is private");
}

#[test]
fn puppeteer_calls_are_paced_on_its_one_page() {
    let gate = Gate::new("interval = \"10ms\"\n");
    run_call(
        &gate,
        &event_in("PostToolUse.puppeteer_navigate", "nav", "A"),
    );
    assert_eq!(sites(&gate, "nav"), json!(["example.net"]));
    let c = call(
        "mcp__puppeteer__puppeteer_click",
        json!({"selector": "a"}),
        "click",
        "A",
    );
    assert_pass(&gate.run(&c));
    assert_eq!(sites(&gate, "click"), json!(["example.net"]));
    let shot = call(
        "mcp__puppeteer__puppeteer_screenshot",
        json!({"name": "home"}),
        "shot",
        "A",
    );
    assert_pass(&gate.run(&shot));
    gate.record("skip", "shot");
    let eval = call(
        "mcp__puppeteer__puppeteer_evaluate",
        json!({"script": "fetch('/a'); fetch('/b')"}),
        "eval",
        "A",
    );
    assert_eq!(code(&gate.run(&eval)), 2);
}

/// Playwright tab 1 of session A, Playwright tab 1 of session B, DevTools
/// page 1 and claude-in-chrome tab 1, on four sites: each call is paced on
/// its own site only.
#[test]
fn tab_ids_of_two_profiles_and_two_sessions_never_meet() {
    let gate = Gate::new("interval = \"10ms\"\n");
    let listing = |current: &str, other: &str| {
        format!("### Result\n- 0: [Zero]({other})\n- 1: (current) [One]({current})")
    };
    let select = |id: &str, session: &str, current: &str| {
        let pre = call(
            "mcp__playwright__browser_tabs",
            json!({"action": "select", "index": 1}),
            id,
            session,
        );
        answer(&pre, &listing(current, "https://zero.example/"))
    };
    assert_pass(&gate.run(&select("la", "A", "https://a.example/")));
    assert_pass(&gate.run(&select("lb", "B", "https://b.example/")));
    let dt = call("mcp__chrome-devtools__list_pages", json!({}), "ld", "A");
    assert_pass(&gate.run(&answer(
        &dt,
        "## Pages\n1: Cee (https://c.example/) [selected]",
    )));
    let mut chrome = with_id(fixture("PostToolUse.computer-screenshot"), "lc");
    chrome["session_id"] = json!("A");
    chrome["tool_response"][3]["text"] =
        json!("\n\nTab Context:\n- Available tabs:\n  • tabId 1: \"Dee\" (\"https://d.example/\")");
    assert_pass(&gate.run(&chrome));

    let clicks = [
        (
            call(
                "mcp__playwright__browser_click",
                json!({"target": "e1"}),
                "pa",
                "A",
            ),
            "a.example",
        ),
        (
            call(
                "mcp__playwright__browser_click",
                json!({"target": "e1"}),
                "pb",
                "B",
            ),
            "b.example",
        ),
        (
            call(
                "mcp__chrome-devtools__click",
                json!({"uid": "1_1"}),
                "d1",
                "A",
            ),
            "c.example",
        ),
        (pre_click("c1", 1), "d.example"),
    ];
    for (event, site) in &clicks {
        assert_pass(&gate.run(event));
        let id = event["tool_use_id"].as_str().unwrap();
        assert_eq!(sites(&gate, id), json!([site]), "{id}");
    }
}
