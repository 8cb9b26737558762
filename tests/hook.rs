//! The built `pace-hook` binary, run as Claude Code runs it: a fresh process
//! per event, the event on stdin, the answer in the exit code and stderr.
//! Every test has its own state directory and config, and cross-process
//! behaviour is tested with real concurrent processes.
//!
//! Timing assertions are lower bounds (a gap is never shorter than the
//! interval), which a busy machine cannot break; where a test needs an upper
//! bound it is a generous timeout that only catches a wedged gate.

mod common;

use common::*;

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

#[test]
fn missing_post_holds_the_site_for_hold_plus_interval() {
    let gate = Gate::new("interval = \"200ms\"\nin_flight_hold = \"700ms\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    // No Post for the navigation: the click waits for its hold, then the interval.
    assert_pass(&gate.run(&pre_click("click", 1)));
    let start = ts(&gate.record("admit", "nav"));
    let click = ts(&gate.record("admit", "click"));
    assert!(
        click >= start + 900,
        "click admitted {} ms after the navigation began",
        click - start
    );
}

#[test]
fn same_agents_next_call_ends_a_call_that_got_no_post() {
    // A navigation refused after the hook admitted it (another hook, the
    // permission prompt) gets no Post. The same agent's next call shows it is
    // over, so it waits one interval, not the 30 s hold.
    let gate = Gate::new("interval = \"200ms\"\nin_flight_hold = \"30s\"\n");
    assert_pass(&gate.run(&in_session(
        pre_navigate("nav", "https://example.com/", 1),
        "agent",
    )));
    let started = Instant::now();
    let next = in_session(pre_click("click", 1), "agent");
    assert_pass(&finish(gate.spawn(&next), Duration::from_secs(20)));
    assert!(started.elapsed() < Duration::from_secs(20));
    let ended = gate.record("finish", "nav");
    assert_eq!(
        ended["reason"],
        "no Post came; ended by the agent's next call"
    );
    assert!(ts(&gate.record("admit", "click")) >= ts(&ended) + 200);
}

#[test]
fn post_tool_use_failure_records_a_real_finish() {
    // A long hold: if the failure were not recorded, the next call would wait 30 s.
    let gate = Gate::new("interval = \"200ms\"\nin_flight_hold = \"30s\"\n");
    let first = pre_click("first", 1);
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("nav")));
    assert_pass(&gate.run(&first));
    assert_pass(&gate.run(&post_of(&first, "PostToolUseFailure")));
    let failed_end = ts(&gate.record("finish", "first"));
    let started = Instant::now();
    assert_pass(&finish(
        gate.spawn(&pre_click("second", 1)),
        Duration::from_secs(20),
    ));
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(ts(&gate.record("admit", "second")) >= failed_end + 200);
}

#[test]
fn unknown_tab_is_counted_against_every_known_site() {
    let gate = Gate::new(
        "interval = \"100ms\"\n[[site]]\nname = \"social\"\ndomains = [\"example.social\"]\n",
    );
    assert_pass(&gate.run(&pre_navigate("nav", "https://www.example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("nav")));
    assert_pass(&gate.run(&pre_click("click", 42)));
    assert_eq!(
        gate.record("admit", "click")["sites"],
        json!(["example.com", "example.social"])
    );
}

#[test]
fn tab_context_from_any_result_teaches_the_tab_map() {
    let gate = Gate::new("interval = \"50ms\"\n");
    // A screenshot's result lists tab 1 on example.com.
    assert_pass(&gate.run(&with_id(fixture("PostToolUse.computer-screenshot"), "shot")));
    assert_pass(&gate.run(&pre_click("click", 1)));
    assert_eq!(
        gate.record("admit", "click")["sites"],
        json!(["example.com"])
    );
}

#[test]
fn configured_site_and_registrable_domain_key_the_gate() {
    let gate = Gate::new(
        "interval = \"50ms\"\n[[site]]\nname = \"social\"\ndomains = [\"example.social\"]\ninterval = \"300ms\"\n",
    );
    assert_pass(&gate.run(&pre_navigate("a", "m.example.social/feed", 1)));
    assert_pass(&gate.run(&pre_navigate("b", "https://api.example.co.uk/x", 2)));
    // Keyed by registrable domain whatever the config says, so a process
    // without this [[site]] still meets this one on example.social.
    assert_eq!(
        gate.record("admit", "a")["sites"],
        json!(["example.social"])
    );
    assert_eq!(gate.record("admit", "a")["interval_ms"], 300);
    assert_eq!(gate.record("admit", "b")["sites"], json!(["example.co.uk"]));
}

/// Ten processes on one site: never closer than the interval, admitted in
/// the order they queued.
#[test]
fn concurrent_processes_are_spaced_and_admitted_in_arrival_order() {
    let gate = Gate::new("interval = \"100ms\"\nin_flight_hold = \"10s\"\n");
    // Hold the site so every caller below has to queue.
    assert_pass(&gate.run(&pre_navigate("opener", "https://example.com/", 1)));
    let callers: Vec<_> = (0..10)
        .map(|i| {
            let pre = pre_navigate(&format!("c{i}"), "https://example.com/", 1);
            let child = gate.spawn(&pre);
            // Stagger arrivals a little so that arrival order is well defined.
            thread::sleep(Duration::from_millis(20));
            (pre, child)
        })
        .collect();
    thread::sleep(Duration::from_millis(200));
    assert_pass(&gate.run(&post_navigate("opener")));
    let gate = &gate;
    thread::scope(|s| {
        for (pre, child) in callers {
            s.spawn(move || {
                assert_pass(&finish(child, Duration::from_secs(60)));
                assert_pass(&gate.run(&post_of(&pre, "PostToolUse")));
            });
        }
    });

    let log = gate.log();
    let mut admits: Vec<&Value> = log
        .iter()
        .filter(|r| r["event"] == "admit" && !is_call(r, "opener"))
        .collect();
    admits.sort_by_key(|r| ts(r));
    assert_eq!(admits.len(), 10);
    // FIFO: queue tickets, taken in arrival order, rise in admission order.
    let tickets: Vec<u64> = admits
        .iter()
        .map(|r| r["tickets"][0].as_u64().expect("every caller queued"))
        .collect();
    let mut sorted = tickets.clone();
    sorted.sort();
    assert_eq!(tickets, sorted, "admitted out of arrival order");
    // Spacing: each admission at least the interval after the previous finish.
    let finishes: Vec<u64> = log
        .iter()
        .filter(|r| r["event"] == "finish")
        .map(ts)
        .collect();
    for a in &admits {
        let prev = finishes
            .iter()
            .filter(|&&f| f <= ts(a))
            .max()
            .copied()
            .unwrap();
        assert!(
            ts(a) >= prev + 100,
            "{} admitted {} ms after a finish",
            a["call"],
            ts(a) - prev
        );
    }
    // And the binary's own check agrees.
    let gaps = gate.command().arg("gaps").output().unwrap();
    assert_eq!(code(&gaps), 0, "{}", String::from_utf8_lossy(&gaps.stdout));
}

#[test]
fn waiting_past_max_wait_blocks_with_a_reason() {
    let gate = Gate::new("interval = \"10s\"\nin_flight_hold = \"60s\"\nmax_wait = \"500ms\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    let out = gate.run(&pre_navigate("late", "https://example.com/b", 1));
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.starts_with("pace-hook blocked `navigate` on example.com: it waited "),
        "{err}"
    );
    assert!(err.contains("(the most it may wait is max_wait, 500 ms), and the site is still busy; example.com should be free in 1 min"), "{err}");
    assert!(err.ends_with("then retry this call.\n"), "{err}");
    assert_eq!(gate.events("give_up").len(), 1);
    // The one that gave up left no place in the queue behind it.
    let queue = gate.home().join("sites/example.com/queue");
    assert_eq!(fs::read_dir(queue).unwrap().count(), 0);
}

#[test]
fn waiter_behind_others_says_how_many_are_ahead() {
    let gate = Gate::new("interval = \"10s\"\nin_flight_hold = \"60s\"\nmax_wait = \"1500ms\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    let first = gate.spawn(&pre_navigate("w1", "https://example.com/", 1));
    thread::sleep(Duration::from_millis(300));
    let second = gate.spawn(&pre_navigate("w2", "https://example.com/", 1));
    let first = finish(first, Duration::from_secs(20));
    let second = finish(second, Duration::from_secs(20));
    assert_eq!(code(&first), 2);
    assert_eq!(code(&second), 2);
    let err = stderr(&second);
    assert!(
        err.contains("1 other call is still ahead of it") || err.contains("the site is still busy"),
        "{err}"
    );
}

#[test]
fn waiter_killed_in_the_queue_does_not_wedge_the_site() {
    let gate = Gate::new("interval = \"100ms\"\nin_flight_hold = \"20s\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    let mut doomed = gate.spawn(&pre_navigate("doomed", "https://example.com/", 1));
    thread::sleep(Duration::from_millis(300));
    let behind = gate.spawn(&pre_navigate("behind", "https://example.com/", 1));
    thread::sleep(Duration::from_millis(300));
    doomed.kill().unwrap(); // SIGKILL
    doomed.wait().unwrap();
    assert_pass(&gate.run(&post_navigate("nav")));
    // Without reclaiming the dead place, `behind` would wait out its max_wait.
    assert_pass(&finish(behind, Duration::from_secs(15)));
    assert!(gate.events("admit").iter().all(|r| !is_call(r, "doomed")));
}

/// `pace-hook run --site example.com -- sleep SECONDS`, returned once the
/// gate has admitted it.
fn run_sleep_once_admitted(gate: &Gate, seconds: &str) -> Child {
    let mut run = gate.command();
    run.args(["run", "--site", "example.com", "--", "sleep", seconds])
        .stdin(Stdio::null());
    let run = run.spawn().unwrap();
    let start = Instant::now();
    while gate.events("admit").is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "run was never admitted"
        );
        thread::sleep(Duration::from_millis(10));
    }
    run
}

#[test]
fn run_killed_while_in_flight_holds_the_site_only_for_its_hold() {
    let gate = Gate::new("interval = \"100ms\"\nin_flight_hold = \"1s\"\n");
    // Kill it mid-flight, once admitted.
    let mut run = run_sleep_once_admitted(&gate, "30");
    run.kill().unwrap();
    run.wait().unwrap();
    let held_from = ts(&gate.events("admit")[0]);
    assert_pass(&finish(
        gate.spawn(&pre_navigate("next", "https://example.com/", 1)),
        Duration::from_secs(15),
    ));
    assert!(ts(&gate.record("admit", "next")) >= held_from + 1_100);
}

#[test]
fn run_shares_the_gate_and_passes_the_exit_code_through() {
    let gate = Gate::new("interval = \"300ms\"\n");
    let out = gate
        .command()
        .args([
            "run",
            "--site",
            "https://www.example.com/api",
            "--",
            "sh",
            "-c",
            "exit 7",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(code(&out), 7, "{}", stderr(&out));
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    let run_end = ts(&gate.events("finish")[0]);
    assert_eq!(gate.events("finish")[0]["sites"], json!(["example.com"]));
    assert!(ts(&gate.record("admit", "nav")) >= run_end + 300);
}

#[test]
fn garbage_and_empty_stdin_block() {
    let gate = Gate::new("");
    for (input, message) in [
        (
            &b""[..],
            "pace-hook blocked this call because it could not pace it safely: stdin was empty; expected one hook event as JSON. Retrying will not help: tell the user, so they can fix pace-hook's setup.\n",
        ),
        (
            &b"{\"hook_event_name\": \"PreToolUse\", \"tool_name\": \"x\""[..],
            "pace-hook blocked this call because it could not pace it safely: the hook event on stdin is not valid JSON: EOF while parsing an object at line 1 column 50. Retrying will not help: tell the user, so they can fix pace-hook's setup.\n",
        ),
        (
            &b"\xff\xfe garbage"[..],
            "pace-hook blocked this call because it could not pace it safely: the hook event on stdin is not valid JSON: expected value at line 1 column 1. Retrying will not help: tell the user, so they can fix pace-hook's setup.\n",
        ),
    ] {
        let out = finish(gate.spawn_bytes(input.to_vec()), Duration::from_secs(10));
        assert_eq!(code(&out), 2);
        assert_eq!(stderr(&out), message);
    }
}

#[test]
fn missing_fields_block() {
    let gate = Gate::new("");
    let out = gate.run(&json!({"hook_event_name": "PreToolUse", "tool_input": {}}));
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("the hook event has no usable `tool_name` field"));
}

#[test]
fn oversized_stdin_blocks() {
    let gate = Gate::new("");
    let out = finish(
        gate.spawn_bytes(vec![b' '; 65 * 1024 * 1024]),
        Duration::from_secs(30),
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("larger than 64 MiB"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn tools_it_does_not_pace_pass_silently_and_write_nothing() {
    let gate = Gate::new("");
    let bash = json!({"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "b1"});
    assert_pass(&gate.run(&bash));
    assert!(
        !gate.home().exists(),
        "state was written for a tool pace-hook does not pace"
    );
}

#[test]
fn post_with_a_multi_megabyte_screenshot_is_handled() {
    let gate = Gate::new("");
    let mut event = with_id(fixture("PostToolUse.computer-screenshot"), "big");
    event["tool_response"][1]["source"]["data"] = json!("A".repeat(5 * 1024 * 1024));
    event["tool_response"][3]["text"] = json!(
        "\n\nTab Context:\n- Available tabs:\n  • tabId 9: \"Big\" (\"https://big.example.org/x\")"
    );
    assert_pass(&gate.run(&event));
    let tabs: Value =
        serde_json::from_str(&fs::read_to_string(gate.home().join("tabs.json")).unwrap()).unwrap();
    assert_eq!(
        tabs["tabs"]["chrome#9"]["hosts"],
        json!(["big.example.org"])
    );
}

#[test]
fn corrupt_state_blocks_then_heals() {
    let gate = Gate::new("interval = \"200ms\"\nin_flight_hold = \"1s\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("nav")));
    let state = gate.home().join("sites/example.com/state.json");
    fs::write(&state, b"{\"site\": \"example.com\", \"last_fin").unwrap();

    let out = gate.run(&pre_navigate("after", "https://example.com/", 1));
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("was unreadable, so the site counts as busy (a call may have been in flight); it was reset to stay busy for 1.2 s"),
        "{err}"
    );
    assert!(err.ends_with("Retry the call after that wait.\n"), "{err}");
    let moved = fs::read_dir(gate.home().join("sites/example.com"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("state.json.lost-")
        })
        .count();
    assert_eq!(moved, 1);

    // Healed as busy for a hold and an interval: the next call waits that
    // out and goes.
    let healed = std::time::Instant::now();
    assert_pass(&gate.run(&pre_navigate("retry", "https://example.com/", 1)));
    assert!(healed.elapsed() >= Duration::from_millis(1_000));
}

#[test]
fn unwritable_state_dir_blocks() {
    let gate = Gate::new("");
    let file = gate.dir.join("not-a-dir");
    fs::write(&file, "").unwrap();
    let out = gate
        .command()
        .env("PACE_HOOK_HOME", file.join("home"))
        .stdin(Stdio::piped())
        .spawn()
        .map(|mut c| {
            c.stdin
                .take()
                .unwrap()
                .write_all(&serde_json::to_vec(&pre_navigate("n", "example.com", 1)).unwrap())
                .unwrap();
            c.wait_with_output().unwrap()
        })
        .unwrap();
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.starts_with(
            "pace-hook blocked `navigate` because it could not pace it safely: could not "
        ),
        "{err}"
    );
    assert!(
        err.contains("not-a-dir/home`") && err.contains("Not a directory"),
        "{err}"
    );
}

#[test]
fn bad_config_blocks_and_names_file_and_line() {
    let gate = Gate::new(
        "interval = \"10s\"\n[[site]]\nname = \"social\"\ndomains = [\"example.social\"]\nintervall = \"30s\"\n",
    );
    let out = gate.run(&pre_navigate("n", "example.com", 1));
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "config `{}` line 5:",
            gate.dir.join("config.toml").display()
        )),
        "{err}"
    );
    assert!(err.contains("intervall"), "{err}");
}

#[test]
fn usage_errors_block_rather_than_exit_1() {
    let gate = Gate::new("");
    let out = gate
        .command()
        .arg("--frobnicate")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "pace-hook: unexpected argument '--frobnicate' found\n\nUsage: pace-hook [COMMAND]\n\nFor more information, try '--help'.\n"
    );
}

#[test]
fn navigation_to_a_page_on_no_site_is_not_paced() {
    let gate = Gate::new("interval = \"1h\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_pass(&finish(
        gate.spawn(&pre_navigate("b", "about:blank", 1)),
        Duration::from_secs(10),
    ));
    assert_eq!(gate.record("skip", "b")["reason"], "reaches no site");
}

#[test]
fn gaps_exits_1_when_a_gap_is_short() {
    let gate = Gate::new("");
    fs::create_dir_all(gate.home()).unwrap();
    let lines = [
        json!({"ts": 1000, "event": "admit", "pid": 1, "sites": ["a.com"], "tool": "navigate", "call": "x", "interval_ms": 10000, "hold_ms": 120000}),
        json!({"ts": 2000, "event": "finish", "pid": 2, "sites": ["a.com"], "tool": "navigate", "call": "x"}),
        json!({"ts": 5000, "event": "admit", "pid": 3, "sites": ["a.com"], "tool": "navigate", "call": "y", "interval_ms": 10000, "hold_ms": 120000}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(gate.home().join("gate.log"), text).unwrap();
    let out = gate
        .command()
        .arg("gaps")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("3,000 ms (interval 10 s)  SHORT"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 gap, smallest 3,000 ms, 1 under the interval"),
        "{stdout}"
    );
}

#[test]
fn run_keeps_its_site_held_while_the_command_outlasts_the_hold() {
    let gate = Gate::new("interval = \"100ms\"\nin_flight_hold = \"300ms\"\n");
    let run = run_sleep_once_admitted(&gate, "1.5");
    // Long past the 300 ms hold, the command is still running: the navigation
    // must wait for its end, not for the hold.
    assert_pass(&finish(
        gate.spawn(&pre_navigate("nav", "https://example.com/", 1)),
        Duration::from_secs(20),
    ));
    assert_eq!(code(&finish(run, Duration::from_secs(20))), 0);
    let run_end = ts(&gate.events("finish")[0]);
    assert!(ts(&gate.record("admit", "nav")) >= run_end + 100);
}

#[test]
fn a_second_hook_for_the_same_call_does_not_wait_behind_the_first() {
    // pace-hook installed in two settings files runs twice for one call.
    let gate = Gate::new("interval = \"100ms\"\nin_flight_hold = \"60s\"\nmax_wait = \"5s\"\n");
    let pre = pre_navigate("nav", "https://example.com/", 1);
    assert_pass(&gate.run(&pre));
    assert_pass(&gate.run(&pre));
    assert_eq!(gate.events("admit").len(), 2);
    assert!(gate.events("give_up").is_empty());
}

/// example.com used and finished; zz-busy.test in flight, with no Post,
/// under `hold`. Interval 50 ms.
fn one_site_free_one_busy(hold: &str, max_wait: &str) -> Gate {
    let gate = Gate::new(&format!(
        "interval = \"50ms\"\nin_flight_hold = \"{hold}\"\nmax_wait = \"{max_wait}\"\n"
    ));
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("nav")));
    assert_pass(&gate.run(&pre_navigate("busy", "https://zz-busy.test/", 2)));
    gate
}

#[test]
fn giving_up_on_one_site_releases_the_sites_already_taken() {
    // example.com is free; zz-busy is in flight for a minute. A click on an
    // unknown tab needs both, in sorted order: it takes example.com, then
    // gives up on zz-busy.
    let gate = one_site_free_one_busy("60s", "400ms");
    let out = gate.run(&pre_click("click", 99));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("on zz-busy.test"), "{}", stderr(&out));
    let state: Value = serde_json::from_str(
        &fs::read_to_string(gate.home().join("sites/example.com/state.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        state["in_flight"],
        json!([]),
        "the blocked call still holds example.com"
    );
}

#[test]
fn script_fetching_another_site_waits_for_that_site_too() {
    let gate = Gate::new("interval = \"50ms\"\n");
    assert_pass(&gate.run(&with_id(fixture("PostToolUse.computer-screenshot"), "shot")));
    let mut js = with_id(fixture("PreToolUse.javascript_tool"), "js");
    js["tool_input"]["text"] =
        json!("const r = await fetch('https://api.other.org/items'); await r.json()");
    assert_pass(&gate.run(&js));
    assert_eq!(
        gate.record("admit", "js")["sites"],
        json!(["example.com", "other.org"])
    );
}

#[test]
fn a_site_taken_while_waiting_for_another_stays_held_until_the_call_goes() {
    // zz-busy is in flight (no Post): free again 2 s + 50 ms from now.
    let gate = one_site_free_one_busy("2s", "10s");
    // The click (unknown tab) takes example.com at once, then waits for zz-busy
    // as long as example.com's own hold would last.
    let click = pre_click("click", 99);
    let waiting = gate.spawn(&click);
    thread::sleep(Duration::from_millis(300));
    let other = gate.spawn(&pre_navigate("other", "https://example.com/x", 3));
    assert_pass(&finish(waiting, Duration::from_secs(20)));
    // Well inside the click's 2 s hold, even on a loaded machine, so that
    // only the Post can free example.com.
    thread::sleep(Duration::from_millis(50));
    assert_pass(&gate.run(&post_of(&click, "PostToolUse")));
    assert_pass(&finish(other, Duration::from_secs(20)));
    // The other navigation could not slip in while the click was still waiting.
    // The gap counts from the click's finish on example.com: the Post stamps
    // each site as it writes it, and the line's `ts` is the last of them.
    let click = gate.record("finish", "click");
    let at = click["sites"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s == "example.com")
        .unwrap();
    let click_end = click["finished_ms"][at].as_u64().unwrap();
    assert!(ts(&gate.record("admit", "other")) >= click_end + 50);
}

#[test]
fn a_panic_blocks_the_call_with_one_line() {
    let gate = Gate::new("");
    let mut cmd = gate.command();
    cmd.env("PACE_HOOK_DEBUG_PANIC", "1");
    let mut child = cmd.spawn().unwrap();
    // The panic comes before stdin is read, so the write may meet a closed pipe.
    let _ = child.stdin.take().unwrap().write_all(b"{}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "pace-hook blocked this call because it could not pace it safely: internal error (panic): PACE_HOOK_DEBUG_PANIC is set. Retrying will not help: tell the user, so they can fix pace-hook's setup.\n"
    );
}

#[test]
fn an_edited_config_takes_effect_on_the_next_event() {
    // Parsed configs are cached; an edit, even one that keeps the size,
    // must not be hidden by the cache.
    let gate = Gate::new("interval = \"50ms\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    assert_eq!(gate.record("admit", "a")["interval_ms"], 50);
    fs::write(gate.dir.join("config.toml"), "interval = \"1.5s\"\n").unwrap();
    assert_pass(&finish(
        gate.spawn(&pre_navigate("b", "https://example.com/", 1)),
        Duration::from_secs(10),
    ));
    let b = gate.record("admit", "b");
    assert_eq!(b["interval_ms"], 1_500);
    assert!(ts(&b) >= ts(&gate.record("finish", "a")) + 1_500);
    fs::write(
        gate.dir.join("config.toml"),
        "interval = \"1h\"\nbogus = 1\n",
    )
    .unwrap();
    assert_eq!(
        code(&gate.run(&pre_navigate("c", "https://example.com/", 1))),
        2
    );
}

#[test]
fn a_shorter_interval_in_another_config_still_waits_the_longer_one() {
    // Two projects share one state directory; one paces example.com at
    // 1.5 s, the other at 10 ms. The strictest interval of the calls
    // before holds whoever asks next.
    let gate = Gate::new("interval = \"1.5s\"\n");
    assert_pass(&gate.run(&pre_navigate("slow", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("slow")));
    fs::write(gate.dir.join("config.toml"), "interval = \"10ms\"\n").unwrap();
    assert_pass(&finish(
        gate.spawn(&pre_navigate("fast", "https://example.com/", 1)),
        Duration::from_secs(10),
    ));
    let fast = gate.record("admit", "fast");
    assert!(ts(&fast) >= ts(&gate.record("finish", "slow")) + 1_500);
    let gaps = gate.command().arg("gaps").output().unwrap();
    assert_eq!(code(&gaps), 0, "{}", String::from_utf8_lossy(&gaps.stdout));
    assert!(
        String::from_utf8_lossy(&gaps.stdout).contains("(interval 1.5 s)"),
        "{}",
        String::from_utf8_lossy(&gaps.stdout)
    );
}

#[test]
fn the_state_dir_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let gate = Gate::new("");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    for dir in ["", "sites", "sites/example.com", "agents"] {
        let mode = fs::metadata(gate.home().join(dir))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "{dir}");
    }
}

#[test]
fn a_post_is_recorded_even_while_the_config_is_broken() {
    let gate = Gate::new("interval = \"50ms\"\nin_flight_hold = \"1h\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    fs::write(gate.dir.join("config.toml"), "interval = \"oops\"\n").unwrap();
    assert_pass(&gate.run(&post_navigate("nav")));
    gate.record("finish", "nav");
    // Once fixed, the next call waits for the recorded finish, not the hour.
    fs::write(
        gate.dir.join("config.toml"),
        "interval = \"50ms\"\nin_flight_hold = \"1h\"\n",
    )
    .unwrap();
    assert_pass(&finish(
        gate.spawn(&pre_navigate("next", "https://example.com/", 1)),
        Duration::from_secs(10),
    ));
}

#[test]
fn a_site_added_to_the_config_applies_to_tabs_already_known() {
    let gate = Gate::new("interval = \"10ms\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://m.example.social/", 1)));
    let mut post = post_navigate("nav");
    post["tool_input"]["url"] = json!("https://m.example.social/");
    post["tool_response"][1]["text"] = json!(
        "\n\nTab Context:\n- Available tabs:\n  \u{2022} tabId 1: \"Feed\" (\"https://m.example.social/\")"
    );
    assert_pass(&gate.run(&post));
    fs::write(
        gate.dir.join("config.toml"),
        "interval = \"10ms\"\n[[site]]\nname = \"social\"\ndomains = [\"example.social\"]\ninterval = \"300ms\"\n",
    )
    .unwrap();
    assert_pass(&gate.run(&pre_click("click", 1)));
    // The tab map keeps hosts, so the site's [[site]] entry applies at once:
    // its interval, on the domain's own key.
    let click = gate.record("admit", "click");
    assert_eq!(click["sites"], json!(["example.social"]));
    assert_eq!(click["interval_ms"], 300);
}

#[test]
fn calls_without_a_session_are_finished_by_their_post() {
    let gate = Gate::new("interval = \"100ms\"\nin_flight_hold = \"1h\"\n");
    let mut pre = pre_navigate("nav", "https://example.com/", 1);
    pre.as_object_mut().unwrap().remove("session_id");
    let mut post = post_navigate("nav");
    post.as_object_mut().unwrap().remove("session_id");
    assert_pass(&gate.run(&pre));
    assert_pass(&gate.run(&post));
    let end = ts(&gate.record("finish", "nav"));
    assert_pass(&finish(
        gate.spawn(&pre_navigate("next", "https://example.com/", 1)),
        Duration::from_secs(10),
    ));
    assert!(ts(&gate.record("admit", "next")) >= end + 100);
}

// ---------------------------------------------------------------------
// Issue 8: every browser and web tool. Fixtures name the server version
// their results are shaped after (`_note`).

/// Issue 6: every spelling of a URL that the browser accepts keys as the
/// site the browser reaches.
#[test]
fn url_spellings_the_browser_accepts_key_as_the_site_it_reaches() {
    let gate = Gate::new("interval = \"1ms\"\n");
    let cases: &[(&str, &str)] = &[
        ("https://exa\tmple.com/", "example.com"),
        ("https://exam\nple.com/", "example.com"),
        ("https://ex%61mple.com/", "example.com"),
        ("https:///example.com/", "example.com"),
        ("https:////example.com/", "example.com"),
        ("https:example.com/", "example.com"),
        ("https:/example.com/", "example.com"),
        ("https:\\\\example.com\\", "example.com"),
        ("https://WWW.Example.COM./a", "example.com"),
        ("https://bücher.de/", "xn--bcher-kva.de"),
        ("https://xn--bcher-kva.de/", "xn--bcher-kva.de"),
        ("https://ｅｘａｍｐｌｅ．ｃｏｍ/", "example.com"),
        ("https://example。com/", "example.com"),
        ("http://2130706433/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://0x7f.0.0.1/", "127.0.0.1"),
        ("http://[0:0:0:0:0:0:0:1]/", "::1"),
        ("example.com/?next=https://other.org/", "example.com"),
        ("localhost:3000/x", "localhost"),
    ];
    for (i, (url, key)) in cases.iter().enumerate() {
        let id = format!("u{i}");
        assert_pass(&gate.run(&pre_navigate(&id, url, 1)));
        assert_eq!(
            gate.record("admit", &id)["sites"],
            json!([key]),
            "{url:?} should key as {key}"
        );
        let mut post = post_navigate(&id);
        post["tool_input"]["url"] = json!(url);
        assert_pass(&gate.run(&post));
    }
}

#[test]
fn a_url_that_cannot_be_read_is_paced_against_every_known_site() {
    let gate = Gate::new("interval = \"1ms\"\n");
    for (id, url) in [("a", "https://a.example/"), ("b", "https://b.example/")] {
        assert_pass(&gate.run(&pre_navigate(id, url, 1)));
        assert_pass(&gate.run(&post_navigate(id)));
    }
    assert_pass(&gate.run(&pre_navigate("bad", "https://exa mple.com/", 2)));
    let sites = gate.record("admit", "bad")["sites"].clone();
    for key in ["a.example", "b.example"] {
        assert!(sites.as_array().unwrap().contains(&json!(key)), "{sites}");
    }
}

#[test]
fn a_page_on_no_site_is_proved_so_and_passes() {
    let gate = Gate::new("interval = \"1ms\"\n");
    for url in ["about:blank", "chrome://newtab/", "file:///tmp/x.html"] {
        let id = format!("n-{}", url.len());
        assert_pass(&gate.run(&pre_navigate(&id, url, 1)));
        assert!(
            gate.events("admit").iter().all(|r| !is_call(r, &id)),
            "{url} was paced"
        );
    }
}

#[test]
fn a_javascript_url_is_a_script_and_a_data_url_a_document() {
    let gate = Gate::new("interval = \"1ms\"\n");
    let out = gate.run(&pre_navigate("js", "javascript:fetch('/a');fetch('/b')", 1));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert_pass(&gate.run(&pre_navigate(
        "doc",
        "data:text/html,<img src=\"https://other.org/x.png\">",
        1,
    )));
    assert_eq!(gate.record("admit", "doc")["sites"], json!(["other.org"]));
}

#[test]
fn back_and_forward_are_paced_on_every_site_in_the_tabs_history() {
    let gate = Gate::new("interval = \"1ms\"\n");
    for (id, url) in [("a", "https://a.example/"), ("b", "https://b.example/")] {
        assert_pass(&gate.run(&pre_navigate(id, url, 5)));
        let mut post = post_navigate(id);
        post["tool_input"] = json!({"url": url, "tabId": 5});
        post["tool_response"][1]["text"] = json!(format!(
            "\n\nTab Context:\n- Available tabs:\n  \u{2022} tabId 5: \"T\" (\"{url}\")"
        ));
        assert_pass(&gate.run(&post));
    }
    assert_pass(&gate.run(&pre_navigate("back", "back", 5)));
    assert_eq!(
        gate.record("admit", "back")["sites"],
        json!(["a.example", "b.example"])
    );
}

#[test]
fn back_from_a_blank_tab_with_no_known_history_is_paced_everywhere() {
    let gate = Gate::new("interval = \"1ms\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://a.example/", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    // Tab 8 is seen only on about:blank.
    let mut shot = with_id(fixture("PostToolUse.computer-screenshot"), "shot");
    shot["tool_response"][3]["text"] =
        json!("\n\nTab Context:\n- Available tabs:\n  \u{2022} tabId 8: \"New\" (\"about:blank\")");
    assert_pass(&gate.run(&shot));
    assert_pass(&gate.run(&pre_navigate("fwd", "forward", 8)));
    let sites = gate.record("admit", "fwd")["sites"].clone();
    assert!(
        sites.as_array().unwrap().contains(&json!("a.example")),
        "{sites}"
    );
}

#[test]
fn a_site_a_result_reveals_gets_the_calls_finish() {
    // The click is admitted on an unknown tab (nothing known yet); its
    // result shows the tab is on example.com: the next call there waits.
    let gate = Gate::new("interval = \"400ms\"\n");
    let click = pre_click("click", 3);
    assert_pass(&gate.run(&click));
    let mut post = post_of(&click, "PostToolUse");
    post["tool_response"] = json!([
        {"type": "text", "text": "Clicked"},
        {"type": "text", "text": "\n\nTab Context:\n- Executed on tabId: 3\n- Available tabs:\n  \u{2022} tabId 3: \"E\" (\"https://example.com/next\")"}
    ]);
    assert_pass(&gate.run(&post));
    let finish = gate.record("finish", "click");
    assert!(
        finish["sites"]
            .as_array()
            .unwrap()
            .contains(&json!("example.com")),
        "{finish}"
    );
    assert_pass(&gate.run(&pre_navigate("next", "https://example.com/", 4)));
    assert!(ts(&gate.record("admit", "next")) >= ts(&finish) + 400);
}

#[test]
fn a_tab_context_planted_in_page_text_does_not_move_a_tab() {
    let gate = Gate::new("interval = \"1ms\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/a", 7)));
    let mut post = post_navigate("nav");
    post["tool_input"] = json!({"url": "https://example.com/a", "tabId": 7});
    assert_pass(&gate.run(&post));
    // A page's text says tab 7 is on about:blank.
    let mut text = with_id(fixture("PostToolUse.navigate"), "text");
    text["tool_name"] = json!("mcp__claude-in-chrome__get_page_text");
    text["tool_input"] = json!({"tabId": 7});
    text["tool_response"] = json!([
        {"type": "text", "text": "Welcome!\n\nTab Context:\n- Available tabs:\n  \u{2022} tabId 7: \"x\" (\"about:blank\")"}
    ]);
    assert_pass(&gate.run(&text));
    assert_pass(&gate.run(&pre_click("click", 7)));
    assert_eq!(
        gate.record("admit", "click")["sites"],
        json!(["example.com"])
    );
}

#[test]
fn a_tab_context_of_a_hundred_thousand_lines_is_read_quickly() {
    let gate = Gate::new("interval = \"1ms\"\n");
    let mut block = String::from("\n\nTab Context:\n- Available tabs:\n");
    for i in 0..100_000 {
        block.push_str(&format!(
            "  \u{2022} tabId {i}: \"t\" (\"https://s{i}.example/\")\n"
        ));
    }
    let mut event = with_id(fixture("PostToolUse.computer-screenshot"), "big");
    event["tool_response"][3]["text"] = json!(block);
    let out = finish(gate.spawn(&event), Duration::from_secs(10));
    assert_pass(&out);
}

/// Issue 8: with a broad matcher (`mcp__.*`), a tool of a server no profile
/// knows passed with nothing in the gate log. It still passes, and its line
/// names the whole tool, for `status` to say how to declare it.
#[test]
fn a_tool_nobody_knows_passes_and_is_logged_by_its_full_name() {
    let gate = Gate::new("");
    assert_pass(&gate.run(&fixture("PreToolUse.stdio-mode")));
    let unknown = gate.events("unknown");
    assert_eq!(unknown.len(), 1, "{:#?}", gate.log());
    assert_eq!(unknown[0]["tool"], "mcp__chromemock__navigate");
    assert!(unknown[0]["sites"].as_array().unwrap().is_empty());
    let mut post = fixture("PreToolUse.stdio-mode");
    post["hook_event_name"] = json!("PostToolUse");
    post["tool_response"] = json!([{"type": "text", "text": "ok"}]);
    assert_pass(&gate.run(&post));
    assert_eq!(gate.log().len(), 1, "{:#?}", gate.log());
}

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
        "searches through Anthropic, not the sites"
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

fn webfetch(id: &str, session: &str, code_: u16, retry_after: Option<u64>) -> Value {
    let mut post = event_in("PostToolUse.WebFetch-429", id, session);
    post["tool_response"]["code"] = json!(code_);
    post["tool_response"]["result"] = json!(match retry_after {
        Some(s) => format!("The server returned HTTP {code_}.\nRetry-After: {s}\n"),
        None => format!("The server returned HTTP {code_}.\n"),
    });
    post
}

/// Run the Pre and the Post of a WebFetch; the Post's stdout.
fn fetch(gate: &Gate, post: &Value) -> String {
    assert_pass(&gate.run(&pre_of(post)));
    let out = gate.run(post);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_429_with_retry_after_holds_the_site_back_and_tells_the_model() {
    let gate = Gate::new("interval = \"100ms\"\n");
    let told = fetch(&gate, &webfetch("a", "A", 429, Some(2)));
    let answer: Value = serde_json::from_str(&told).expect("JSON on stdout");
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    assert!(
        context.starts_with(
            "example.com answered 429 Too Many Requests; pace-hook holds its next call back until"
        ),
        "{context}"
    );
    assert!(
        context.contains("(in 2 s), as its Retry-After asked"),
        "{context}"
    );
    let end = ts(&gate.record("finish", "a"));
    // Another session's fetch waits out the Retry-After, not the interval.
    fetch(&gate, &webfetch("b", "B", 200, None));
    assert!(ts(&gate.record("admit", "b")) >= end + 2_000);
    assert_eq!(gate.events("backoff").len(), 1);
}

#[test]
fn a_429_without_retry_after_doubles_and_a_success_resets_it() {
    let gate = Gate::new("interval = \"200ms\"\n");
    fetch(&gate, &webfetch("a", "A", 429, None));
    let a = ts(&gate.record("finish", "a"));
    fetch(&gate, &webfetch("b", "A", 503, None));
    let b = gate.record("admit", "b");
    // The first push-back: one interval.
    assert!(ts(&b) >= a + 200);
    let b_end = ts(&gate.record("finish", "b"));
    // The second in a row: twice the interval.
    fetch(&gate, &webfetch("c", "A", 200, None));
    assert!(ts(&gate.record("admit", "c")) >= b_end + 400);
    // After a success, the doubling starts again from one interval.
    fetch(&gate, &webfetch("d", "A", 429, None));
    let d_end = ts(&gate.record("finish", "d"));
    fetch(&gate, &webfetch("e", "A", 200, None));
    let e = ts(&gate.record("admit", "e"));
    assert!(e >= d_end + 200, "{}", e - d_end);
    assert!(
        e < d_end + 400 + 300,
        "the doubling was not reset: {} ms",
        e - d_end
    );
}

#[test]
fn backoff_by_hand_holds_a_site_back_and_clear_ends_it() {
    let gate = Gate::new("interval = \"10ms\"\nmax_wait = \"30s\"\n");
    let out = gate
        .command()
        .args(["backoff", "--site", "example.com", "--for", "1500ms"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("example.com held back until "));
    let started = Instant::now();
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert!(started.elapsed() >= Duration::from_millis(1_400));
    assert_pass(&gate.run(&post_navigate("a")));
    let out = gate
        .command()
        .args(["backoff", "--site", "example.com", "--for", "1h"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    let out = gate
        .command()
        .args(["backoff", "--site", "https://www.example.com/x", "--clear"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "example.com: backoff cleared\n"
    );
    let started = Instant::now();
    assert_pass(&gate.run(&pre_navigate("b", "https://example.com/", 1)));
    assert!(started.elapsed() < Duration::from_secs(5));
    // Neither --for nor --clear: a usage error.
    let out = gate
        .command()
        .args(["backoff", "--site", "x.com"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
}

#[test]
fn a_spent_budget_blocks_at_once_across_processes_and_says_when() {
    let gate = Gate::new(
        "interval = \"10ms\"\n[[site]]\nname = \"api\"\ndomains = [\"example.com\"]\nbudget = \"2/1h\"\n",
    );
    for (id, session) in [("a", "A"), ("b", "B")] {
        let pre = in_session(pre_navigate(id, "https://example.com/", 1), session);
        assert_pass(&gate.run(&pre));
        let mut post = in_session(post_navigate(id), session);
        post["tool_input"] = pre["tool_input"].clone();
        assert_pass(&gate.run(&post));
    }
    let started = Instant::now();
    let out = gate.run(&in_session(
        pre_navigate("c", "https://example.com/", 1),
        "C",
    ));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "a budget is not waited on"
    );
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.starts_with("pace-hook blocked `navigate`: the budget for example.com (2 calls per 60 min) is spent; the next call there is allowed at "),
        "{err}"
    );
    assert!(
        err.contains("in 60 min") || err.contains("in 59 min"),
        "{err}"
    );
}

#[test]
fn jitter_adds_a_random_extra_to_the_interval() {
    let gate = Gate::new("interval = \"100ms\"\njitter = \"300ms\"\n");
    let mut gaps = Vec::new();
    for i in 0..6 {
        let id = format!("j{i}");
        assert_pass(&gate.run(&pre_navigate(&id, "https://example.com/", 1)));
        if i > 0 {
            let prev = format!("j{}", i - 1);
            gaps.push(ts(&gate.record("admit", &id)) - ts(&gate.record("finish", &prev)));
        }
        assert_pass(&gate.run(&post_navigate(&id)));
    }
    assert!(gaps.iter().all(|g| *g >= 100), "{gaps:?}");
    assert!(gaps.iter().all(|g| *g <= 100 + 300 + 500), "{gaps:?}");
    // Five draws from 0..=300 ms all under 30 ms: one chance in 100,000.
    assert!(gaps.iter().any(|g| *g >= 130), "no jitter at all: {gaps:?}");
}
