//! The built `pace-hook` binary, run as Claude Code runs it: a fresh process
//! per event, the event on stdin, the answer in the exit code and stderr.
//! Every test has its own state directory and config, and cross-process
//! behaviour is tested with real concurrent processes.
//!
//! Timing assertions are lower bounds (a gap is never shorter than the
//! interval), which a busy machine cannot break; where a test needs an upper
//! bound it is a generous timeout that only catches a wedged gate.

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
    sync::atomic::{AtomicU32, Ordering},
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_pace-hook");

/// A state directory, a config, and a way to feed events to the binary.
struct Gate {
    dir: PathBuf,
}

impl Gate {
    fn new(config: &str) -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "pace-hook-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("config.toml"), config).unwrap();
        Self { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    fn command(&self) -> Command {
        let mut c = Command::new(BIN);
        c.env("PACE_HOOK_HOME", self.home())
            .env("PACE_HOOK_CONFIG", self.dir.join("config.toml"))
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn spawn(&self, event: &Value) -> Child {
        self.spawn_bytes(serde_json::to_vec(event).unwrap())
    }

    fn spawn_bytes(&self, bytes: Vec<u8>) -> Child {
        let mut child = self.command().spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // Write from a thread: a big event must not deadlock against a full pipe.
        thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        child
    }

    /// Run one event to completion (at most `limit`).
    fn run(&self, event: &Value) -> Output {
        finish(self.spawn(event), Duration::from_secs(30))
    }

    fn log(&self) -> Vec<Value> {
        let text = fs::read_to_string(self.home().join("gate.log")).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn events(&self, kind: &str) -> Vec<Value> {
        self.log()
            .into_iter()
            .filter(|r| r["event"] == kind)
            .collect()
    }

    fn record(&self, kind: &str, call: &str) -> Value {
        self.events(kind)
            .into_iter()
            .find(|r| r["call"] == call)
            .unwrap_or_else(|| panic!("no {kind} record for {call} in {:#?}", self.log()))
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Wait for `child`, killing it and failing the test if it outlives `limit`.
fn finish(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("pace-hook still running after {limit:?}: the gate is wedged");
        }
        thread::sleep(Duration::from_millis(5));
    }
    child.wait_with_output().unwrap()
}

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{name}.json"));
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The event with tool_use_id `id`, from a session of its own: each call in
/// these tests is its own agent unless a test puts two in one session.
fn with_id(mut event: Value, id: &str) -> Value {
    event["tool_use_id"] = json!(id);
    event["session_id"] = json!(format!("session-{id}"));
    event
}

fn in_session(mut event: Value, session: &str) -> Value {
    event["session_id"] = json!(session);
    event
}

fn pre_navigate(id: &str, url: &str, tab: u32) -> Value {
    let mut e = with_id(fixture("PreToolUse.navigate"), id);
    e["tool_input"] = json!({"url": url, "tabId": tab});
    e
}

fn post_navigate(id: &str) -> Value {
    with_id(fixture("PostToolUse.navigate"), id)
}

fn pre_click(id: &str, tab: u32) -> Value {
    let mut e = with_id(fixture("PreToolUse.navigate"), id);
    e["tool_name"] = json!("mcp__claude-in-chrome__computer");
    e["tool_input"] = json!({"action": "left_click", "coordinate": [5, 5], "tabId": tab});
    e
}

fn post_of(pre: &Value, kind: &str) -> Value {
    let mut e = pre.clone();
    e["hook_event_name"] = json!(kind);
    match kind {
        "PostToolUse" => e["tool_response"] = json!([{"type": "text", "text": "Clicked"}]),
        _ => e["error"] = json!("Error: element not found"),
    }
    e
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited by a signal")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ts(r: &Value) -> u64 {
    r["ts"].as_u64().unwrap()
}

fn assert_pass(o: &Output) {
    assert_eq!(code(o), 0, "stderr: {}", stderr(o));
    assert!(
        o.stdout.is_empty(),
        "stdout: {:?}",
        String::from_utf8_lossy(&o.stdout)
    );
}

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

    let batch = gate.run(&fixture("PreToolUse.browser_batch"));
    assert_eq!(code(&batch), 2);
    assert_eq!(
        stderr(&batch),
        "pace-hook blocked `browser_batch`: browser_batch runs 2 actions (computer left_click, find) in one call, with no gap between the requests they make. Send each action as its own tool call; pace-hook then spaces the requests to each site 300 ms apart, from the end of one to the start of the next.\n"
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
        json!(["example.com", "social"])
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
    assert_eq!(gate.record("admit", "a")["sites"], json!(["social"]));
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
        .filter(|r| r["event"] == "admit" && r["call"] != "opener")
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
    assert!(err.contains("the most it may (max_wait), and the site was still busy; example.com should be free in 1 min"), "{err}");
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
        err.contains("1 other call is still ahead of it")
            || err.contains("the site was still busy"),
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
    assert!(gate.events("admit").iter().all(|r| r["call"] != "doomed"));
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
    assert_pass(&gate.run(&fixture("PreToolUse.stdio-mode")));
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
    assert_eq!(tabs["tabs"]["9"]["hosts"], json!(["big.example.org"]));
}

#[test]
fn corrupt_state_blocks_then_heals() {
    let gate = Gate::new("interval = \"200ms\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("nav")));
    let state = gate.home().join("sites/example.com/state.json");
    fs::write(&state, b"{\"site\": \"example.com\", \"last_fin").unwrap();

    let out = gate.run(&pre_navigate("after", "https://example.com/", 1));
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("was unreadable, so the site was treated as busy"),
        "{err}"
    );
    assert!(err.ends_with("retry in 200 ms. Retry the call.\n"), "{err}");
    let moved = fs::read_dir(gate.home().join("sites/example.com"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("state.json.corrupt-")
        })
        .count();
    assert_eq!(moved, 1);

    // Healed: the next call waits one interval and goes.
    assert_pass(&gate.run(&pre_navigate("retry", "https://example.com/", 1)));
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
        err.contains("not-a-dir/home/") && err.contains("Not a directory"),
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
        "pace-hook: unknown command `--frobnicate`; see `pace-hook --help`\n"
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
        stdout.contains("1 gaps, smallest 3,000 ms, 1 under the interval"),
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

/// example.com used and finished; the configured site zz-busy (busy.test) in
/// flight, with no Post, under `hold`. Interval 50 ms.
fn one_site_free_one_busy(hold: &str, max_wait: &str) -> Gate {
    let gate = Gate::new(&format!(
        "interval = \"50ms\"\nin_flight_hold = \"{hold}\"\nmax_wait = \"{max_wait}\"\n[[site]]\nname = \"zz-busy\"\ndomains = [\"busy.test\"]\n"
    ));
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("nav")));
    assert_pass(&gate.run(&pre_navigate("busy", "https://busy.test/", 2)));
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
    assert!(stderr(&out).contains("on zz-busy"), "{}", stderr(&out));
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
    // zz-busy is in flight (no Post): free again 300 ms + 50 ms from now.
    let gate = one_site_free_one_busy("300ms", "5s");
    // The click (unknown tab) takes example.com at once, then waits for zz-busy
    // longer than example.com's 300 ms hold.
    let click = pre_click("click", 99);
    let waiting = gate.spawn(&click);
    thread::sleep(Duration::from_millis(150));
    let other = gate.spawn(&pre_navigate("other", "https://example.com/x", 3));
    assert_pass(&finish(waiting, Duration::from_secs(20)));
    // Well inside the click's 300 ms hold, so that only the Post can free example.com.
    thread::sleep(Duration::from_millis(50));
    assert_pass(&gate.run(&post_of(&click, "PostToolUse")));
    assert_pass(&finish(other, Duration::from_secs(20)));
    // The other navigation could not slip in while the click was still waiting.
    let click_end = ts(&gate.record("finish", "click"));
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
    // Parsed configs are cached; an edit (even one that keeps the size) must
    // not be hidden by the cache.
    let gate = Gate::new("interval = \"1h\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    assert_eq!(gate.record("admit", "a")["interval_ms"], 3_600_000);
    fs::write(gate.dir.join("config.toml"), "interval = \"1ms\"\n").unwrap();
    assert_pass(&finish(
        gate.spawn(&pre_navigate("b", "https://example.com/", 1)),
        Duration::from_secs(10),
    ));
    assert_eq!(gate.record("admit", "b")["interval_ms"], 1);
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
        "interval = \"10ms\"\n[[site]]\nname = \"social\"\ndomains = [\"example.social\"]\n",
    )
    .unwrap();
    assert_pass(&gate.run(&pre_click("click", 1)));
    assert_eq!(gate.record("admit", "click")["sites"], json!(["social"]));
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
