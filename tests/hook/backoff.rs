//! What sites say about the pace: 429s with and without Retry-After, backoffs
//! by hand, budgets, jitter.

use super::*;

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
    let backoffs = gate.events("backoff");
    assert_eq!(backoffs.len(), 1);
    // The log says until when, for the timeline to name the wait.
    let set = ts(&backoffs[0]);
    assert_eq!(backoffs[0]["until_ms"].as_u64(), Some(set + 2_000));
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
    // Each record says until when the site is held back; a clear, now.
    let until: Vec<u64> = gate
        .events("backoff")
        .iter()
        .map(|r| r["until_ms"].as_u64().unwrap() - ts(r))
        .collect();
    assert_eq!(until, [1_500, 3_600_000, 0]);
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
