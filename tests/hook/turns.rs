//! Holds, finishes and turns across real processes: a missing Post, the same
//! agent's next call, failures, concurrent callers in arrival order, max_wait,
//! a killed waiter, several sites taken in order, configs that disagree,
//! `pace-hook run` and `gaps`.

use super::*;

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
fn a_damaged_config_cache_is_read_again_from_the_toml_and_written_whole() {
    // An event reads the parsed copy of the config in place, a page at a
    // time: a page that fails its check is never trusted. The lookup reads
    // the TOML again, paces as the TOML says, and the copy is written again.
    let gate = Gate::new(
        "interval = \"0ms\"\n[[site]]\nname = \"two\"\ndomains = [\"two.test\", \"two-cdn.test\"]\ninterval = \"50ms\"\n",
    );
    assert_pass(&gate.run(&pre_navigate("a", "https://www.two.test/", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    let copies: Vec<PathBuf> = fs::read_dir(gate.home().join("config-cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    let whole = fs::read(&copies[0]).unwrap();
    const PAGE: usize = 4096;
    assert!(whole.len() >= 5 * PAGE && whole.len().is_multiple_of(PAGE));
    // One bit of every page after the head, in place: the same file, the
    // same size, the config unchanged.
    let mut damaged = whole.clone();
    for page in 1..whole.len() / PAGE {
        damaged[page * PAGE + 5] ^= 1;
    }
    fs::write(&copies[0], &damaged).unwrap();
    assert_pass(&gate.run(&pre_navigate("b", "https://www.two.test/", 1)));
    let b = gate.record("admit", "b");
    assert_eq!(b["sites"], json!(["two-cdn.test", "two.test"]));
    assert_eq!(b["interval_ms"], 50);
    assert_eq!(fs::read(&copies[0]).unwrap(), whole);
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
