//! The post's scenario and the scripts it blocks: a navigation, a click, a
//! screenshot, a batch; a script with two fetches; a script nested deeper than
//! any stack.

use super::*;

/// The post's hand-fed test: a navigation, a click on that tab, a screenshot,
/// a browser_batch.
#[test]
fn the_posts_scenario_paces_skips_and_blocks() {
    let gate = Gate::new("interval = \"300ms\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/a", 1)));
    assert_pass(&gate.run(&post_navigate("nav")));
    let click = pre_click("click", 1);
    assert_pass(&gate.run(&click));

    // The click counts against the tab's site, from the navigation's finish.
    let nav_end = ts(&gate.record("finish", "nav"));
    let admit = gate.record("admit", "click");
    assert_eq!(admit["sites"], json!(["example.com"]));
    assert!(
        ts(&admit) >= nav_end + 300,
        "click admitted {} ms after the navigation ended",
        ts(&admit) - nav_end
    );

    // While the click is in flight, a screenshot passes at once.
    let shot = with_id(fixture("PostToolUse.computer-screenshot"), "shot");
    let mut shot_pre = shot.clone();
    shot_pre["hook_event_name"] = json!("PreToolUse");
    shot_pre.as_object_mut().unwrap().remove("tool_response");
    assert_pass(&finish(gate.spawn(&shot_pre), Duration::from_secs(5)));
    assert_eq!(gate.record("skip", "shot")["reason"], "takes a screenshot");

    assert_pass(&gate.run(&post_of(&click, "PostToolUse")));

    // The post's batch (a click and a find) holds one paced action: it is
    // paced as that click, not blocked.
    let click_end = ts(&gate.record("finish", "click"));
    let batch = with_id(fixture("PreToolUse.browser_batch"), "batch1");
    assert_pass(&gate.run(&batch));
    let admit = gate.record("admit", "batch1");
    assert_eq!(admit["tool"], "browser_batch computer left_click");
    assert!(ts(&admit) >= click_end + 300);
    assert_pass(&gate.run(&post_of(&batch, "PostToolUse")));

    // Two paced actions in one batch have no gap between them: blocked.
    let mut two = with_id(fixture("PreToolUse.browser_batch"), "batch2");
    two["tool_input"]["actions"][1] = json!({"name": "computer", "input": {"action": "left_click", "coordinate": [9, 9], "tabId": 1}});
    let out = gate.run(&two);
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "pace-hook blocked `browser_batch`: browser_batch runs 2 actions (computer left_click, computer left_click) in one call, with no gap between the requests they make. Send each action as its own tool call; pace-hook then spaces the requests to each site 300 ms apart, from the end of one to the start of the next.\n"
    );
}

#[test]
fn script_with_two_fetches_is_blocked_with_its_reason() {
    let gate = Gate::new("");
    let out = gate.run(&fixture("PreToolUse.javascript_tool"));
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "pace-hook blocked `javascript_tool`: the script can start more than one request: `fetch` at 1:7 and `fetch` at 1:49 both run. Make one request per javascript_tool call, with no loop or callback around it; pace-hook then spaces the requests to each site 10 s apart, from the end of one to the start of the next.\n"
    );
    assert!(gate.events("admit").is_empty());
}

#[test]
fn a_deeply_nested_script_is_analysed_whatever_the_stack_limit() {
    // A short script is analysed on the main thread when its stack may grow
    // far enough, else on a thread of its own; either way a deep one must
    // not overflow a stack (that aborts, and an abort lets the call
    // through). 500 levels fit the main thread's default 8 MiB in a debug
    // build; under a 1 MiB limit they go to the thread.
    let gate = Gate::new("interval = \"0ms\"\n");
    let mut js = with_id(fixture("PreToolUse.javascript_tool"), "deep");
    js["tool_input"]["text"] = json!(format!("{}x", "!".repeat(500)));
    for limit in ["", "ulimit -s 1024; "] {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("{limit}exec \"$0\""))
            .arg(BIN)
            .env("PACE_HOOK_HOME", gate.home())
            .env("PACE_HOOK_CONFIG", gate.dir.join("config.toml"))
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&serde_json::to_vec(&js).unwrap()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert_eq!(code(&out), 0, "limit {limit:?}: {}", stderr(&out));
        js["tool_use_id"] = json!("deep-again");
    }
}
