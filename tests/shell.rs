//! Claude Code's `Bash` tool through the built binary, as Claude Code sends
//! its events: PreToolUse with `{command, description}`, PostToolUse with
//! `{stdout, stderr, interrupted, isImage, noOutputExpected}` (issue 19).

#![allow(missing_docs)]

mod common;

use std::process::Command;

use serde_json::{Value, json};

use common::*;

/// The Bash Pre event running `command`, as call `id` of `session`.
fn bash(command: &str, id: &str, session: &str) -> Value {
    let mut e = fixture("PreToolUse.Bash");
    e["tool_input"]["command"] = json!(command);
    e["tool_use_id"] = json!(id);
    e["session_id"] = json!(session);
    e
}

/// Its PostToolUse, with `stdout` and `stderr`.
fn bash_post(pre: &Value, stdout: &str, stderr_: &str) -> Value {
    let mut e = fixture("PostToolUse.Bash");
    e["tool_input"] = pre["tool_input"].clone();
    e["tool_use_id"] = pre["tool_use_id"].clone();
    e["session_id"] = pre["session_id"].clone();
    e["tool_response"]["stdout"] = json!(stdout);
    e["tool_response"]["stderr"] = json!(stderr_);
    e
}

#[test]
fn a_shell_command_without_a_request_passes_and_leaves_no_line() {
    let gate = Gate::new("interval = \"10s\"\n");
    assert_pass(&gate.run(&bash("ls -la && cargo test 2>&1 | tail -3", "b1", "A")));
    assert_pass(&gate.run(&bash_post(&bash("ls -la", "b1", "A"), "ok", "")));
    assert!(gate.log().is_empty(), "{:?}", gate.log());
    // Neither read any state: the Post of a call that was never paced has
    // nothing to finish.
    assert!(!gate.home().exists());
    // Once the gate has state (a paced call made it)…
    let curl = bash("curl -s https://example.com/", "b0", "A");
    assert_pass(&gate.run(&curl));
    assert_pass(&gate.run(&bash_post(&curl, "", "")));
    // …a command parsed that makes no request: a skip line, like a browser read.
    assert_pass(&gate.run(&bash("echo 'see https://example.com/'", "b2", "A")));
    assert_eq!(
        gate.record("skip", "b2")["reason"],
        "a shell command that makes no request"
    );
}

#[test]
fn two_curls_in_a_row_are_spaced_from_the_first_ones_finish() {
    let gate = Gate::new("interval = \"400ms\"\n");
    let first = bash("curl -s https://example.com/api/items | jq .", "c1", "A");
    assert_pass(&gate.run(&first));
    assert_eq!(gate.record("admit", "c1")["sites"], json!(["example.com"]));
    assert_eq!(gate.record("admit", "c1")["tool"], "Bash");
    assert_pass(&gate.run(&bash_post(&first, "{}", "")));
    let end = ts(&gate.record("finish", "c1"));
    // The next one, from another session, another spelling.
    let second = bash("\\curl -sS 'https://api.example.com/v2'", "c2", "B");
    assert_pass(&gate.run(&second));
    assert!(ts(&gate.record("admit", "c2")) >= end + 400);
    assert_pass(&gate.run(&bash_post(&second, "{}", "")));
    gate.record("finish", "c2");
}

#[test]
fn a_loop_of_curls_is_blocked_before_anything_runs() {
    let gate = Gate::new("interval = \"2s\"\n");
    let out = gate.run(&bash(
        "for u in $(cat users.txt); do curl -s -X POST \"https://social.example/api/follow/$u\"; done",
        "l1",
        "A",
    ));
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "pace-hook blocked `Bash`: the command can make more than one request: `curl` at 1:31 runs inside a `for` loop. Make one request per Bash call (one `curl` or `wget` with one URL, with no loop, `xargs`, `&` or `--retry` around it), or wrap each request of a loop or script in `pace-hook run --site SITE -- …` (or use the library) so that each one waits its turn; pace-hook then spaces the requests to each site 2 s apart, from the end of one to the start of the next.\n"
    );
    let block = gate.record("block", "l1");
    assert!(block["reason"].as_str().unwrap().contains("`for` loop"));
    assert!(gate.events("admit").is_empty());
}

#[test]
fn a_url_built_at_run_time_is_paced_on_every_known_site() {
    let gate = Gate::new("interval = \"200ms\"\n");
    for (id, url) in [("k1", "https://a.example/"), ("k2", "https://b.example/")] {
        let pre = bash(&format!("curl -s {url}"), id, "A");
        assert_pass(&gate.run(&pre));
        assert_pass(&gate.run(&bash_post(&pre, "", "")));
    }
    let pre = bash("curl -s \"$BASE/x\"", "k3", "A");
    assert_pass(&gate.run(&pre));
    assert_eq!(
        gate.record("admit", "k3")["sites"],
        json!(["a.example", "b.example"])
    );
}

#[test]
fn a_429_that_curl_printed_holds_the_site_back_and_tells_the_model() {
    let gate = Gate::new("interval = \"100ms\"\n");
    let pre = bash("curl -si https://example.com/api", "r1", "A");
    assert_pass(&gate.run(&pre));
    let out = gate.run(&bash_post(
        &pre,
        "HTTP/2 429 \r\ncontent-type: text/plain\r\nretry-after: 3\r\n\r\nslow down\n",
        "",
    ));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let answer: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.starts_with(
            "example.com answered 429 Too Many Requests; pace-hook holds its next call back until"
        ) && context.contains("(in 3 s), as its Retry-After asked"),
        "{context}"
    );
    assert_eq!(gate.events("backoff").len(), 1);
    let end = ts(&gate.record("finish", "r1"));
    let next = bash("curl -s https://example.com/api", "r2", "B");
    assert_pass(&gate.run(&next));
    assert!(ts(&gate.record("admit", "r2")) >= end + 3_000);
}

#[test]
fn a_script_run_by_name_passes_and_status_shows_it() {
    let gate = Gate::new("interval = \"1s\"\n");
    assert_pass(&gate.run(&bash("python3 scrape.py --pages 10", "p1", "A")));
    let line = gate.events("unknown");
    assert_eq!(line.len(), 1, "{line:?}");
    assert_eq!(line[0]["tool"], "Bash");
    let out = Command::new(env!("CARGO_BIN_EXE_pace-hook"))
        .arg("status")
        .env("PACE_HOOK_HOME", gate.home())
        .env("PACE_HOOK_CONFIG", gate.dir.join("config.toml"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("passed unseen (pace-hook could not see into what ran, so its requests were not paced)\n  Bash: runs `python3 scrape.py` by name, which pace-hook cannot see into"),
        "{text}"
    );
}

#[test]
fn a_command_that_does_not_parse_is_blocked() {
    let gate = Gate::new("");
    let out = gate.run(&bash("curl \"https://example.com/", "u1", "A"));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("pace-hook blocked `Bash`: the command runs what pace-hook cannot count requests in: the command does not parse as bash"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_deeply_nested_command_blocks_instead_of_crashing() {
    // brush's parser recurses once per level: the stack the walk runs on
    // grows with the command, so this is read (and blocked), never a crash
    // that would exit with a code Claude Code lets through.
    let gate = Gate::new("");
    let deep = format!(
        "{}curl https://example.com/{}",
        "( ".repeat(3000),
        " )".repeat(3000)
    );
    let out = gate.run(&bash(&deep, "d1", "A"));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let subs = format!(
        "echo {}curl https://example.com/{}",
        "$(".repeat(200),
        ")".repeat(200)
    );
    let out = gate.run(&bash(&subs, "d2", "A"));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nested more than 8 deep"),
        "{}",
        stderr(&out)
    );
}
