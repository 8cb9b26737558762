//! Helpers shared by the integration tests: a state directory and config
//! per test, and events fed to the built binary the way Claude Code feeds a
//! command hook.
#![allow(dead_code, unreachable_pub)]

use std::sync::atomic::{AtomicU32, Ordering};
pub use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
    thread,
    time::{Duration, Instant},
};

pub use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_pace-hook");

/// A state directory, a config, and a way to feed events to the binary.
pub struct Gate {
    pub dir: PathBuf,
}

impl Gate {
    pub fn new(config: &str) -> Self {
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

    pub fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    pub fn command(&self) -> Command {
        let mut c = Command::new(BIN);
        c.env("PACE_HOOK_HOME", self.home())
            .env("PACE_HOOK_CONFIG", self.dir.join("config.toml"))
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    pub fn spawn(&self, event: &Value) -> Child {
        self.spawn_bytes(serde_json::to_vec(event).unwrap())
    }

    pub fn spawn_bytes(&self, bytes: Vec<u8>) -> Child {
        let mut child = self.command().spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // Write from a thread: a big event must not deadlock against a full pipe.
        thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        child
    }

    /// Run one event to completion (at most `limit`).
    pub fn run(&self, event: &Value) -> Output {
        finish(self.spawn(event), Duration::from_secs(30))
    }

    pub fn log(&self) -> Vec<Value> {
        let text = fs::read_to_string(self.home().join("gate.log")).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub fn events(&self, kind: &str) -> Vec<Value> {
        self.log()
            .into_iter()
            .filter(|r| r["event"] == kind)
            .collect()
    }

    pub fn record(&self, kind: &str, call: &str) -> Value {
        self.events(kind)
            .into_iter()
            .find(|r| is_call(r, call))
            .unwrap_or_else(|| panic!("no {kind} record for {call} in {:#?}", self.log()))
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Whether log record `r` is of the call with `tool_use_id` `id` (the gate
/// keys calls by session and agent as well).
pub fn is_call(r: &Value, id: &str) -> bool {
    r["call"]
        .as_str()
        .is_some_and(|c| c == id || c.ends_with(&format!("#{id}")))
}

/// Wait for `child`, killing it and failing the test if it outlives `limit`.
pub fn finish(mut child: Child, limit: Duration) -> Output {
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

pub fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{name}.json"));
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The event with tool_use_id `id`, from a session of its own: each call in
/// these tests is its own agent unless a test puts two in one session.
pub fn with_id(mut event: Value, id: &str) -> Value {
    event["tool_use_id"] = json!(id);
    event["session_id"] = json!(format!("session-{id}"));
    event
}

pub fn in_session(mut event: Value, session: &str) -> Value {
    event["session_id"] = json!(session);
    event
}

pub fn pre_navigate(id: &str, url: &str, tab: u32) -> Value {
    let mut e = with_id(fixture("PreToolUse.navigate"), id);
    e["tool_input"] = json!({"url": url, "tabId": tab});
    e
}

pub fn post_navigate(id: &str) -> Value {
    with_id(fixture("PostToolUse.navigate"), id)
}

pub fn pre_click(id: &str, tab: u32) -> Value {
    let mut e = with_id(fixture("PreToolUse.navigate"), id);
    e["tool_name"] = json!("mcp__claude-in-chrome__computer");
    e["tool_input"] = json!({"action": "left_click", "coordinate": [5, 5], "tabId": tab});
    e
}

pub fn post_of(pre: &Value, kind: &str) -> Value {
    let mut e = pre.clone();
    e["hook_event_name"] = json!(kind);
    match kind {
        "PostToolUse" => e["tool_response"] = json!([{"type": "text", "text": "Clicked"}]),
        _ => e["error"] = json!("Error: element not found"),
    }
    e
}

pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited by a signal")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn ts(r: &Value) -> u64 {
    r["ts"].as_u64().unwrap()
}

/// The call goes on: exit 0, and nothing on stdout but, for a call that
/// waited a second or more for its turn, the answer that tells the wait
/// (tests/waits.rs checks that answer; [`assert_silent`] wants nothing).
pub fn assert_pass(o: &Output) {
    assert_admitted(o);
}

/// The call goes on and the hook says nothing at all.
pub fn assert_silent(o: &Output) {
    assert_eq!(code(o), 0, "stderr: {}", stderr(o));
    assert!(
        o.stdout.is_empty(),
        "stdout: {:?}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// The call goes on after waiting for its turn: exit 0, and stdout either
/// empty or the hook's answer telling the wait (a call that waited a second
/// or more says so, see tests/waits.rs).
pub fn assert_admitted(o: &Output) {
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
