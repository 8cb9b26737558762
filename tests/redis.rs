//! The built `pace-hook` on the Redis store, run as Claude Code runs it, with
//! a real `redis-server` per test: started on a free loopback port with
//! persistence off, killed after. Several "machines" are separate state
//! directories (no shared disk) pointed at one server, some with their
//! clocks shifted by minutes.
//!
//! These never skip: a machine without `redis-server` fails them, with a
//! message saying how to install it. Timing assertions are lower bounds
//! (a gap is never shorter than the interval), with generous upper bounds
//! only to catch a wedged gate.
#![cfg(feature = "redis")]

use std::{
    fs,
    io::Write as _,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
    sync::atomic::{AtomicU32, Ordering},
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

#[path = "common/redis_server.rs"]
mod redis_server;
use redis_server::{Server, free_port};

const BIN: &str = env!("CARGO_BIN_EXE_pace-hook");

/// One machine: its own state directory and config, a backend URL, and a
/// clock offset.
struct Machine {
    dir: PathBuf,
    backend: String,
    offset_ms: i64,
}

impl Machine {
    fn new(config: &str, backend: &str) -> Self {
        Self::with_offset(config, backend, 0)
    }

    fn with_offset(config: &str, backend: &str, offset_ms: i64) -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "pace-hook-redis-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("config.toml"), config).unwrap();
        Self {
            dir,
            backend: backend.to_owned(),
            offset_ms,
        }
    }

    fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    fn command(&self) -> Command {
        let mut c = Command::new(BIN);
        c.env("PACE_HOOK_HOME", self.home())
            .env("PACE_HOOK_CONFIG", self.dir.join("config.toml"))
            .env("PACE_HOOK_BACKEND", &self.backend)
            .env("PACE_HOOK_TEST_CLOCK_OFFSET_MS", self.offset_ms.to_string())
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn spawn(&self, event: &Value) -> Child {
        let mut child = self.command().spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let bytes = serde_json::to_vec(event).unwrap();
        thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        child
    }

    fn run(&self, event: &Value) -> Output {
        finish(self.spawn(event), Duration::from_secs(30))
    }

    /// This machine's own gate log.
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
            .find(|r| is_call(r, call))
            .unwrap_or_else(|| panic!("no {kind} record for {call} in {:#?}", self.log()))
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn is_call(r: &Value, id: &str) -> bool {
    r["call"]
        .as_str()
        .is_some_and(|c| c == id || c.ends_with(&format!("#{id}")))
}

/// Wait for `child`, killing it and failing the test if it outlives `limit`.
fn finish(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("pace-hook still running after {limit:?}: the gate is wedged");
        }
        thread::sleep(Duration::from_millis(2));
    }
    child.wait_with_output().unwrap()
}

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{name}.json"));
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The event with tool_use_id `id`, from a session of its own.
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

/// The call goes on: exit 0, stdout empty or the answer that tells a wait.
fn assert_pass(o: &Output) {
    assert_eq!(code(o), 0, "stderr: {}", stderr(o));
    if !o.stdout.is_empty() {
        let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(
            answer["systemMessage"]
                .as_str()
                .is_some_and(|m| m.contains(" waited ")),
            "stdout: {answer}"
        );
    }
}

/// One line, naming the server.
fn assert_one_line_about(err: &str, server: &str) {
    assert!(
        err.ends_with('\n') && err.matches('\n').count() == 1,
        "{err:?}"
    );
    assert!(err.contains(&format!("`{server}`")), "{err}");
}

const INTERVAL_MS: u64 = 300;

#[test]
fn the_gap_counts_from_the_finish_and_a_post_overwrites_the_hold() {
    let server = Server::start();
    let m = Machine::new(
        "interval = \"300ms\"\nin_flight_hold = \"30s\"\n",
        &server.url(),
    );
    assert_pass(&m.run(&pre_navigate("nav", "https://example.com/", 1)));
    let post_started = Instant::now();
    assert_pass(&m.run(&post_navigate("nav")));
    // Without the Post's finish, the click would wait out the 30 s hold.
    let click = finish(m.spawn(&pre_click("click", 1)), Duration::from_secs(20));
    let exited = post_started.elapsed();
    assert_pass(&click);
    assert!(exited >= Duration::from_millis(INTERVAL_MS), "{exited:?}");
    let end = ts(&m.record("finish", "nav"));
    let admit = ts(&m.record("admit", "click"));
    assert!(
        admit >= end + INTERVAL_MS,
        "admitted {} ms after the finish",
        admit - end
    );
}

#[test]
fn a_server_on_a_unix_socket_is_the_same_gate() {
    // `redis+unix://`: no TCP between the hook and a server on its machine.
    let socket = std::env::temp_dir().join(format!("pace-hook-redis-{}.sock", std::process::id()));
    let socket_arg = socket.to_string_lossy().into_owned();
    let server = Server::start_with(&["--unixsocket", &socket_arg]);
    let over_tcp = Machine::new("interval = \"300ms\"\n", &server.url());
    let over_socket = Machine::new(
        "interval = \"300ms\"\n",
        &format!("redis+unix://{socket_arg}"),
    );
    assert_pass(&over_socket.run(&pre_navigate("a", "https://example.com/", 1)));
    let post_started = Instant::now();
    assert_pass(&over_socket.run(&post_navigate("a")));
    // The other machine, over TCP, waits the interval after that finish.
    assert_pass(&over_tcp.run(&in_session(
        pre_navigate("b", "https://example.com/", 2),
        "other-agent",
    )));
    assert!(post_started.elapsed() >= Duration::from_millis(INTERVAL_MS));
    let end = ts(&over_socket.record("finish", "a"));
    assert!(ts(&over_tcp.record("admit", "b")) >= end + INTERVAL_MS);
    let _ = fs::remove_file(&socket);
}

#[test]
fn post_tool_use_failure_overwrites_the_hold_too() {
    let server = Server::start();
    let m = Machine::new(
        "interval = \"200ms\"\nin_flight_hold = \"30s\"\n",
        &server.url(),
    );
    let first = pre_click("first", 1);
    assert_pass(&m.run(&pre_navigate("nav", "https://example.com/", 1)));
    assert_pass(&m.run(&post_navigate("nav")));
    assert_pass(&m.run(&first));
    assert_pass(&m.run(&post_of(&first, "PostToolUseFailure")));
    let failed_end = ts(&m.record("finish", "first"));
    assert_eq!(m.record("finish", "first")["reason"], "failed");
    let started = Instant::now();
    assert_pass(&finish(
        m.spawn(&pre_click("second", 1)),
        Duration::from_secs(20),
    ));
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(ts(&m.record("admit", "second")) >= failed_end + 200);
}

#[test]
fn the_same_agents_next_call_ends_a_call_that_got_no_post() {
    let server = Server::start();
    let m = Machine::new(
        "interval = \"200ms\"\nin_flight_hold = \"30s\"\n",
        &server.url(),
    );
    assert_pass(&m.run(&in_session(
        pre_navigate("nav", "https://example.com/", 1),
        "agent",
    )));
    let started = Instant::now();
    let next = in_session(pre_click("click", 1), "agent");
    assert_pass(&finish(m.spawn(&next), Duration::from_secs(20)));
    assert!(started.elapsed() < Duration::from_secs(20));
    let ended = m.record("finish", "nav");
    assert_eq!(
        ended["reason"],
        "no Post came; ended by the agent's next call"
    );
    assert!(ts(&m.record("admit", "click")) >= ts(&ended) + 200);
}

/// Two machines, one with its clock five minutes slow and the other five
/// minutes fast, take turns on one site with eight agents: every gap holds
/// as seen from outside, and callers are admitted in the order they came.
#[test]
fn two_machines_with_skewed_clocks_share_one_fifo_gate() {
    let server = Server::start();
    let config = "interval = \"300ms\"\nin_flight_hold = \"20s\"\nmax_wait = \"60s\"\n";
    let machines = [
        Machine::with_offset(config, &server.url(), -300_000),
        Machine::with_offset(config, &server.url(), 300_000),
    ];
    // Hold the site so every caller below has to queue.
    assert_pass(&machines[0].run(&pre_navigate("opener", "https://example.com/", 1)));
    let mut redis = server.client();
    let mut waiting: Vec<(usize, Value, Child)> = (0..8)
        .map(|i| {
            let pre = pre_navigate(&format!("c{i}"), "https://example.com/", 1);
            let child = machines[i % 2].spawn(&pre);
            // Arrival order is well defined once each caller has its place
            // in the queue (a fixed stagger is not, on a loaded machine).
            let joined = Instant::now();
            while redis::cmd("ZCARD")
                .arg("pace-hook:queue:example.com")
                .query::<usize>(&mut redis)
                .unwrap()
                < i + 1
            {
                assert!(
                    joined.elapsed() < Duration::from_secs(30),
                    "c{i} never queued"
                );
                thread::sleep(Duration::from_millis(2));
            }
            (i, pre, child)
        })
        .collect();
    thread::sleep(Duration::from_millis(300));
    // The opener's Post comes from the other machine: the record is shared.
    let mut post_started = Instant::now();
    assert_pass(&machines[1].run(&post_navigate("opener")));

    let mut order = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !waiting.is_empty() {
        assert!(Instant::now() < deadline, "the gate is wedged: {order:?}");
        let Some(k) = waiting
            .iter_mut()
            .position(|(_, _, c)| c.try_wait().unwrap().is_some())
        else {
            thread::sleep(Duration::from_millis(1));
            continue;
        };
        let since_post = post_started.elapsed();
        let (i, pre, child) = waiting.remove(k);
        assert_pass(&child.wait_with_output().unwrap());
        // Seen from outside: the caller was let go no sooner than the
        // interval after the previous Post began (its finish is later).
        assert!(
            since_post >= Duration::from_millis(INTERVAL_MS),
            "c{i} went {since_post:?} after the previous Post began"
        );
        order.push(i);
        post_started = Instant::now();
        assert_pass(&machines[i % 2].run(&post_of(&pre, "PostToolUse")));
    }
    assert_eq!(
        order,
        (0..8).collect::<Vec<_>>(),
        "admitted out of arrival order"
    );

    // Inside: both machines' logs carry the server's times, so they merge.
    let mut log: Vec<Value> = machines.iter().flat_map(|m| m.log()).collect();
    log.sort_by_key(ts);
    let admits: Vec<&Value> = log
        .iter()
        .filter(|r| r["event"] == "admit" && !is_call(r, "opener"))
        .collect();
    assert_eq!(admits.len(), 8);
    let tickets: Vec<u64> = admits
        .iter()
        .map(|r| r["tickets"][0].as_u64().expect("every caller queued"))
        .collect();
    assert!(tickets.is_sorted(), "tickets out of order: {tickets:?}");
    for a in &admits {
        let prev = log
            .iter()
            .filter(|r| r["event"] == "finish" && ts(r) <= ts(a))
            .map(ts)
            .max()
            .unwrap();
        assert!(ts(a) >= prev + INTERVAL_MS, "{a}");
    }
    // And `gaps` on either machine reads every machine's admissions from
    // the server's stream.
    let gaps = machines[0].command().arg("gaps").output().unwrap();
    let report = String::from_utf8_lossy(&gaps.stdout);
    assert_eq!(code(&gaps), 0, "{report}");
    for i in 0..8 {
        assert!(
            report.contains(&format!("#c{i}")),
            "c{i} missing from {report}"
        );
    }
}

#[test]
fn waiting_past_max_wait_blocks_with_a_reason_and_leaves_the_queue() {
    let server = Server::start();
    let m = Machine::new(
        "interval = \"10s\"\nin_flight_hold = \"60s\"\nmax_wait = \"500ms\"\n",
        &server.url(),
    );
    assert_pass(&m.run(&pre_navigate("nav", "https://example.com/", 1)));
    let out = m.run(&pre_navigate("late", "https://example.com/b", 1));
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.starts_with("pace-hook blocked `navigate` on example.com: it waited "),
        "{err}"
    );
    assert!(err.contains("(the most it may wait is max_wait, 500 ms), and the site is still busy; example.com should be free in 1 min"), "{err}");
    assert_eq!(m.events("give_up").len(), 1);
    let n: u64 = redis::cmd("ZCARD")
        .arg("pace-hook:queue:example.com")
        .query(&mut server.client())
        .unwrap();
    assert_eq!(n, 0, "the one that gave up left its place behind");
}

/// Redis dies while callers wait: each is blocked with the server's name,
/// none is let through. Back, empty: a fresh gate, noted in the log, and
/// calls flow with nothing repaired by hand.
#[test]
fn redis_down_blocks_the_waiters_and_back_empty_is_a_fresh_gate() {
    let mut server = Server::start();
    let m = Machine::new(
        "interval = \"200ms\"\nin_flight_hold = \"60s\"\nmax_wait = \"60s\"\n",
        &server.url(),
    );
    assert_pass(&m.run(&pre_navigate("opener", "https://example.com/", 1)));
    let waiters: Vec<Child> = (0..3)
        .map(|i| {
            let c = m.spawn(&pre_navigate(&format!("w{i}"), "https://example.com/", 1));
            thread::sleep(Duration::from_millis(50));
            c
        })
        .collect();
    thread::sleep(Duration::from_millis(500));
    server.kill();
    let killed = Instant::now();
    for w in waiters {
        let out = finish(w, Duration::from_secs(15));
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        let err = stderr(&out);
        assert_one_line_about(&err, &server.url());
        assert!(
            err.starts_with("pace-hook blocked `navigate` because it could not pace it safely: the gate's Redis server"),
            "{err}"
        );
    }
    assert!(killed.elapsed() < Duration::from_secs(10));
    assert_eq!(m.events("admit").len(), 1, "only the opener was admitted");

    server.restart();
    // The opener's 60 s hold went with the data: the next call goes at once.
    let started = Instant::now();
    assert_pass(&m.run(&pre_navigate("after", "https://example.com/", 1)));
    assert!(started.elapsed() < Duration::from_secs(5));
    let notes = m.events("backend");
    assert!(
        notes.iter().any(|r| r["reason"]
            .as_str()
            .unwrap()
            .contains("holds none of the gate's state this machine saw there last")),
        "{notes:#?}"
    );
    // The opener's Post finds a fresh gate too, and is recorded there.
    assert_pass(&m.run(&post_navigate("opener")));
}

#[test]
fn waiters_killed_or_stopped_lose_their_places_and_wedge_nothing() {
    let server = Server::start();
    let m = Machine::new(
        "interval = \"200ms\"\nin_flight_hold = \"30s\"\nmax_wait = \"60s\"\n",
        &server.url(),
    );
    assert_pass(&m.run(&pre_navigate("opener", "https://example.com/", 1)));
    let mut doomed = m.spawn(&pre_navigate("doomed", "https://example.com/", 1));
    thread::sleep(Duration::from_millis(200));
    let stopped = m.spawn(&pre_navigate("stopped", "https://example.com/", 1));
    thread::sleep(Duration::from_millis(200));
    let behind = m.spawn(&pre_navigate("behind", "https://example.com/", 1));
    thread::sleep(Duration::from_millis(500));
    doomed.kill().unwrap(); // SIGKILL
    doomed.wait().unwrap();
    // SAFETY: signalling a child of ours that is still running.
    assert_eq!(unsafe { libc::kill(stopped.id() as i32, libc::SIGSTOP) }, 0);
    let released = Instant::now();
    assert_pass(&m.run(&post_navigate("opener")));
    // Both places ahead of `behind` lapse within the lease's time to live.
    assert_pass(&finish(behind, Duration::from_secs(20)));
    assert!(
        released.elapsed() < Duration::from_secs(12),
        "{:?}",
        released.elapsed()
    );
    assert!(m.events("admit").iter().all(|r| !is_call(r, "doomed")));
    assert!(m.events("admit").iter().all(|r| !is_call(r, "stopped")));

    // Continued, the stopped one finds its place gone, queues again, and
    // goes in its turn after `behind`.
    assert_pass(&m.run(&post_navigate("behind")));
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(stopped.id() as i32, libc::SIGCONT) }, 0);
    assert_pass(&finish(stopped, Duration::from_secs(20)));
    let behind_end = ts(&m.record("finish", "behind"));
    assert!(ts(&m.record("admit", "stopped")) >= behind_end + 200);
    assert_pass(&m.run(&post_navigate("stopped")));
    // Nothing left behind in the queue.
    assert_pass(&finish(
        m.spawn(&pre_navigate("last", "https://example.com/", 1)),
        Duration::from_secs(10),
    ));
    assert!(m.record("admit", "last")["tickets"][0].is_u64());
}

/// A Pre whose backend cannot be used is blocked at once, with one line
/// that names the server and never its password.
fn blocked_quickly(backend: &str) -> String {
    let m = Machine::new("", backend);
    let started = Instant::now();
    let out = finish(
        m.spawn(&pre_navigate("n", "https://example.com/", 1)),
        Duration::from_secs(20),
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let err = stderr(&out);
    assert!(
        err.ends_with('\n') && err.matches('\n').count() == 1,
        "{err:?}"
    );
    assert!(m.events("admit").is_empty());
    err
}

#[test]
fn a_wrong_password_or_a_bad_url_is_a_one_line_error_not_a_hang() {
    let server = Server::start_with(&["--requirepass", "right-horse-battery"]);
    let url = |auth: &str| format!("redis://{auth}127.0.0.1:{}/0", server.port);

    let setup =
        "Retrying will not help: tell the user, who can fix pace-hook's `backend` setting.\n";
    let err = blocked_quickly(&url(":wrong-staple@"));
    assert!(err.contains(&format!("`{}`", url(":***@"))), "{err}");
    assert!(
        err.contains("refused the user or password pace-hook gave"),
        "{err}"
    );
    assert!(!err.contains("wrong-staple"), "{err}");
    assert!(err.ends_with(setup), "{err}");

    let err = blocked_quickly(&url(""));
    assert!(err.contains("refused the user or password"), "{err}");

    let err = blocked_quickly(&format!(
        "redis://:pw-in-bad-url@127.0.0.1:{}/db",
        server.port
    ));
    assert!(
        err.contains("is not a Redis URL pace-hook can use"),
        "{err}"
    );
    assert!(!err.contains("pw-in-bad-url"), "{err}");
    assert!(err.ends_with(setup), "{err}");

    let err = blocked_quickly(&format!("rediss://:pw@127.0.0.1:{}/0", server.port));
    if !cfg!(feature = "redis-tls") {
        assert!(err.contains("needs a pace-hook built with TLS"), "{err}");
    }

    // Nothing listening: the server may come back, so retrying may help.
    let err = blocked_quickly(&format!("redis://127.0.0.1:{}/0", free_port()));
    assert!(err.contains("refused the connection"), "{err}");
    assert!(err.contains("Retry in a minute"), "{err}");

    // Listening, never answering: the command timeout ends it.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let err = blocked_quickly(&format!("redis://127.0.0.1:{port}/0"));
    assert!(err.contains("did not answer within"), "{err}");
    drop(silent);
}

#[test]
fn a_post_that_cannot_reach_redis_exits_1_and_does_not_say_blocked() {
    let mut server = Server::start();
    let m = Machine::new("", &server.url());
    assert_pass(&m.run(&pre_navigate("nav", "https://example.com/", 1)));
    server.kill();
    let out = m.run(&post_navigate("nav"));
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert_one_line_about(&err, &server.url());
    assert!(
        err.starts_with("pace-hook could not record the end of `navigate`"),
        "{err}"
    );
    assert!(!err.contains("blocked"), "{err}");
}

#[test]
fn on_backend_error_local_falls_back_and_tells_the_model() {
    let m = Machine::new(
        "on_backend_error = \"local\"\ninterval = \"200ms\"\n",
        &format!("redis://127.0.0.1:{}/0", free_port()),
    );
    let out = m.run(&pre_navigate("nav", "https://example.com/", 1));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    let note = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        note.starts_with("pace-hook could not use its shared gate (the gate's Redis server"),
        "{note}"
    );
    let fell_back = m.events("backend");
    assert!(
        fell_back[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("fell back to this machine's file gate"),
        "{fell_back:#?}"
    );
    // Paced on this machine's files meanwhile.
    assert!(m.home().join("sites/example.com/state.json").is_file());
    assert_eq!(code(&m.run(&post_navigate("nav"))), 0);
    let next = m.run(&pre_click("click", 1));
    assert_eq!(code(&next), 0);
    assert!(ts(&m.record("admit", "click")) >= ts(&m.record("finish", "nav")) + 200);
}

/// A TCP proxy to `upstream` on a free loopback port that holds every reply
/// from the server back by `delay`: a server that answers each command, but
/// slowly. Runs until the test process ends.
fn slow_proxy(upstream: u16, delay: Duration) -> u16 {
    proxy(upstream, |_| Duration::ZERO, delay)
}

/// A TCP proxy to `upstream` on a free loopback port that holds each read
/// from the client back by what `hold` says of it before the server sees
/// it, and each reply by `reply_delay`. Runs until the test process ends.
fn proxy(upstream: u16, hold: fn(&[u8]) -> Duration, reply_delay: Duration) -> u16 {
    use std::{io::Read as _, net::TcpStream};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Each way: read, wait what `wait` says, pass on.
    type Wait = Box<dyn Fn(&[u8]) -> Duration + Send>;
    let pipe = |mut from: TcpStream, mut to: TcpStream, wait: Wait| {
        thread::spawn(move || {
            let mut buf = [0u8; 64 * 1024];
            while let Ok(n) = from.read(&mut buf) {
                if n == 0 {
                    break;
                }
                thread::sleep(wait(&buf[..n]));
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        });
    };
    thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                continue;
            };
            pipe(
                client.try_clone().unwrap(),
                server.try_clone().unwrap(),
                Box::new(hold),
            );
            pipe(server, client, Box::new(move |_| reply_delay));
        }
    });
    port
}

/// Issue 16: a server that answers every command just inside the command
/// timeout used to hold a waiter for many times `max_wait`, past the slack
/// between `max_wait` and the hook's timeout, so the client killed the hook
/// and ran the call unpaced. Every I/O of a Pre is now bounded by the call's
/// deadline (`max_wait` and a few seconds of grace): the call is blocked,
/// saying why, well before the hook's timeout.
#[test]
fn a_slow_server_cannot_hold_a_pre_past_its_deadline() {
    let server = Server::start();
    let config = "interval = \"60s\"\nin_flight_hold = \"60s\"\nmax_wait = \"2s\"\n";
    let fast = Machine::new(config, &server.url());
    // The site is busy for a minute: the next call must wait, and give up.
    assert_pass(&fast.run(&pre_navigate("opener", "https://example.com/", 1)));
    let port = slow_proxy(server.port, Duration::from_millis(2_500));
    let slow = Machine::new(config, &format!("redis://127.0.0.1:{port}/0"));
    let started = Instant::now();
    let out = finish(
        slow.spawn(&pre_navigate("waiter", "https://example.com/", 1)),
        Duration::from_secs(120),
    );
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // `install` gives the hook max_wait + 15 s before the client kills it.
    assert!(
        took < Duration::from_secs(2 + 15),
        "the Pre took {took:?}, past the hook's timeout: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The 4.8 s wait of BENCHMARKS.md's Redis rows: a waiter admitted while
/// its heartbeat's renewal was still on its way (a slow server, a loaded
/// machine) exited without leaving its queue, because the last writes went
/// out only when the store's shared part was dropped, and the heartbeat
/// thread still held it. Its place then stood in the queue, alive, for its
/// time to live, and the caller behind it waited that out. Now a process
/// leaves its place on exit whatever its heartbeat is doing.
#[test]
fn a_waiter_leaves_its_place_on_exit_while_a_renewal_is_in_flight() {
    let server = Server::start();
    let config = "interval = \"2500ms\"\nin_flight_hold = \"30s\"\nmax_wait = \"60s\"\n";
    // Renewals take 5 s to reach the server: the first, a second after the
    // waiter joins, is still on its way when the waiter goes in at 2.5 s.
    let port = proxy(
        server.port,
        |sent| {
            // A renewal is `PEXPIRE key ms`, on the heartbeat's connection.
            if sent.starts_with(b"*3\r\n$7\r\nPEXPIRE\r\n") {
                Duration::from_secs(5)
            } else {
                Duration::ZERO
            }
        },
        Duration::ZERO,
    );
    let held_up = Machine::new(config, &format!("redis://127.0.0.1:{port}/0"));
    let direct = Machine::new(config, &server.url());
    assert_pass(&direct.run(&pre_navigate("opener", "https://example.com/", 1)));
    assert_pass(&direct.run(&post_navigate("opener")));
    let waiter = finish(
        held_up.spawn(&pre_navigate("waiter", "https://example.com/", 1)),
        Duration::from_secs(30),
    );
    assert_pass(&waiter);
    let ticket = held_up.record("admit", "waiter")["tickets"][0]
        .as_u64()
        .expect("the waiter went in from the queue");
    // Right after its exit: no place of its left in the queue, nor its key.
    let mut c = server.client();
    let queued: Vec<u64> = redis::cmd("ZRANGE")
        .arg("pace-hook:queue:example.com")
        .arg(0)
        .arg(-1)
        .query(&mut c)
        .unwrap();
    assert_eq!(
        queued,
        Vec::<u64>::new(),
        "the waiter's place {ticket} stayed"
    );
    let place: i64 = redis::cmd("EXISTS")
        .arg(format!("pace-hook:place:{ticket}"))
        .query(&mut c)
        .unwrap();
    assert_eq!(place, 0);
}

/// How many scripts the server has run (`FCALL`, or `EVALSHA`/`EVAL` on a
/// server without functions): each is one round trip of a hook's, and the
/// only kind a paced navigate or its Post sends and waits for.
fn scripts_run(server: &Server) -> u64 {
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query(&mut server.client())
        .unwrap();
    info.lines()
        .filter(|l| {
            ["cmdstat_fcall:", "cmdstat_evalsha:", "cmdstat_eval:"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .filter_map(|l| {
            let calls = l.split_once("calls=")?.1;
            calls.split(',').next()?.parse::<u64>().ok()
        })
        .sum()
}

#[test]
fn a_navigate_that_moves_its_tab_and_its_post_take_one_script_each() {
    let server = Server::start();
    let m = Machine::new("interval = \"300ms\"\n", &server.url());
    let navigate = |id: &str, host: &str| {
        let mut pre = pre_navigate(id, &format!("https://{host}/a"), 1);
        let mut post = post_navigate(id);
        post["tool_input"] = pre["tool_input"].clone();
        post["tool_response"][1]["text"] = json!(format!(
            "\n\nTab Context:\n- Available tabs:\n  • tabId 1: \"Page\" (\"https://{host}/a\")"
        ));
        pre["session_id"] = json!("s");
        post["session_id"] = json!("s");
        (pre, post)
    };
    // The first use of the server loads the scripts; counted from after it.
    let (pre, post) = navigate("n0", "a.example");
    assert_pass(&m.run(&pre));
    assert_pass(&m.run(&post));
    for (i, host) in ["b.example", "c.example", "d.example"].iter().enumerate() {
        let (pre, post) = navigate(&format!("n{}", i + 1), host);
        let before = scripts_run(&server);
        assert_pass(&m.run(&pre));
        let pre_scripts = scripts_run(&server) - before;
        assert_pass(&m.run(&post));
        let post_scripts = scripts_run(&server) - before - pre_scripts;
        assert_eq!(
            (pre_scripts, post_scripts),
            (1, 1),
            "navigate {i} to {host}"
        );
    }
    // The notes the scripts left are the map: a click on the tab is paced
    // on the site the last result showed, and only there.
    let click = pre_click("click", 1);
    assert_pass(&m.run(&click));
    let admit = m.record("admit", "click");
    assert_eq!(admit["sites"], json!(["d.example"]), "{admit}");
}
