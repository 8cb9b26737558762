//! A paced wait, told: after a PreToolUse waited for its site's turn, the
//! hook answers with a `systemMessage` for the user and `additionalContext`
//! for the model (which site, how long, why), in only the fields Claude
//! Code's hook output schema has. A call admitted at once says nothing.

mod common;

use common::*;

/// The hook's JSON answer, parsed.
fn answer(out: &Output) -> Value {
    assert_eq!(code(out), 0, "{}", stderr(out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&out.stdout)))
}

/// The answer holds exactly the fields Claude Code 2.1.332 reads for a
/// PreToolUse command hook that lets the call go on (its schema: top-level
/// `systemMessage`, `hookSpecificOutput` with `hookEventName` and
/// `additionalContext`); nothing that could decide the call for it.
fn assert_known_fields(a: &Value) {
    let top: Vec<&String> = a.as_object().unwrap().keys().collect();
    assert_eq!(top, ["hookSpecificOutput", "systemMessage"], "{a}");
    let inner: Vec<&String> = a["hookSpecificOutput"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(inner, ["additionalContext", "hookEventName"], "{a}");
    assert_eq!(a["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert!(a["systemMessage"].as_str().unwrap().len() < 4000);
    assert!(!a["systemMessage"].as_str().unwrap().contains('\n'));
}

#[test]
fn a_call_that_waited_for_the_interval_says_which_site_how_long_and_why() {
    let gate = Gate::new("interval = \"1500ms\"\n");
    // Admitted at once: the hook's stdout stays empty.
    assert_silent(&gate.run(&pre_navigate("a", "https://example.com/1", 1)));
    assert_silent(&gate.run(&post_navigate("a")));
    let a = answer(&gate.run(&pre_navigate("b", "https://example.com/2", 1)));
    assert_known_fields(&a);
    let user = a["systemMessage"].as_str().unwrap();
    assert!(
        user.starts_with("pace-hook: `navigate` waited 1."),
        "{user}"
    );
    assert!(
        user.ends_with(" s for example.com's turn: its last call ended less than 1.5 s ago (interval: from the end of one call to the start of the next)"),
        "{user}"
    );
    let model = a["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        model.starts_with("pace-hook paced this call: `navigate` waited 1."),
        "{model}"
    );
    assert!(
        model.contains("The call then went ahead; there is nothing to retry."),
        "{model}"
    );
    let waited = gate.record("admit", "b")["waited_ms"].as_u64().unwrap();
    assert!(waited >= 1000, "{waited}");
}

#[test]
fn a_call_held_by_a_backoff_says_so() {
    let gate = Gate::new("interval = \"10ms\"\n");
    let out = gate
        .command()
        .args(["backoff", "--site", "example.com", "--for", "1500ms"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let a = answer(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_known_fields(&a);
    let user = a["systemMessage"].as_str().unwrap();
    assert!(
        user.contains("for example.com's turn: example.com is backing off (it answered 429, or was held back by hand) until "),
        "{user}"
    );
}

#[test]
fn a_call_that_queued_behind_another_says_so() {
    let gate = Gate::new("interval = \"1200ms\"\n");
    assert_silent(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_silent(&gate.run(&post_navigate("a")));
    // Two more at once, in other sessions: the second queues behind the first.
    let b = gate.spawn(&in_session(
        pre_navigate("b", "https://example.com/", 1),
        "B",
    ));
    thread::sleep(Duration::from_millis(300));
    let c = gate.spawn(&in_session(
        pre_navigate("c", "https://example.com/", 1),
        "C",
    ));
    let b = finish(b, Duration::from_secs(30));
    assert_known_fields(&answer(&b));
    // b's hold lapses only after in_flight_hold: finish it so c can go.
    assert_silent(&gate.run(&in_session(post_navigate("b"), "B")));
    let c = answer(&finish(c, Duration::from_secs(30)));
    assert_known_fields(&c);
    let user = c["systemMessage"].as_str().unwrap();
    assert!(
        user.contains("example.com's turn: another call to it was ahead (in flight or queued), and each starts at least 1.2 s after the one before ends (interval)"),
        "{user}"
    );
}
