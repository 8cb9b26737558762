//! A broken config through the built binary, as a user meets it: the
//! model's block message on a paced call (exact stderr, since the model
//! reads it and the user fixes the file from it), and `status`, which exits
//! 1 and says that every paced call is blocked.

mod common;

use common::*;

/// What a navigation's Pre writes to stderr under `config`, with the
/// config's path written as `CONFIG`; the call must be blocked.
fn blocked(config: &str) -> String {
    let gate = Gate::new(config);
    let out = gate.run(&pre_navigate("c", "https://example.com/", 1));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let path = gate.dir.join("config.toml");
    stderr(&out).replace(&path.display().to_string(), "CONFIG")
}

/// The block message around `problem`.
fn message(problem: &str) -> String {
    format!(
        "pace-hook blocked `navigate` because it could not pace it safely: config `CONFIG` {problem}. Retrying will not help: tell the user, so they can fix pace-hook's setup.\n"
    )
}

#[test]
fn a_duration_written_as_a_number_says_to_add_a_unit() {
    assert_eq!(
        blocked("interval = 10\n"),
        message(
            "line 1: `interval = 10` is a number; a duration is a string with its unit: write `interval = \"10s\"` (or ms, m, h)"
        )
    );
    assert_eq!(
        blocked("[[site]]\nname = \"a\"\ndomains = [\"a.test\"]\njitter = 0.5\n"),
        message(
            "line 4: `jitter = 0.5` is a number; a duration is a string with its unit: write `jitter = \"0.5s\"` (or ms, m, h)"
        )
    );
    // A number inside a list is said as such.
    assert_eq!(
        blocked("[[site]]\nname = \"a\"\ndomains = [\"a.test\", 7]\n"),
        message("line 3: `domains` holds the number 7 where a string goes: write it in quotes")
    );
    assert_eq!(
        blocked("budget = 300\n"),
        message(
            "line 1: `budget = 300` is a number; a budget is a string of calls per window: write e.g. `budget = \"300/24h\"`"
        )
    );
}

#[test]
fn a_single_bracket_table_says_to_double_it() {
    assert_eq!(
        blocked("interval = \"1s\"\n[tool]\nmatch = \"mcp__x__.*\"\nclass = \"skip\"\n"),
        message(
            "line 2: `[tool]` opens one table; each `tool` entry is its own `[[tool]]`, with double brackets"
        )
    );
    assert_eq!(
        blocked("[site]\nname = \"a\"\n"),
        message(
            "line 1: `[site]` opens one table; each `site` entry is its own `[[site]]`, with double brackets"
        )
    );
}

#[test]
fn a_key_set_twice_is_named() {
    assert_eq!(
        blocked("interval = \"1s\"\nmax_wait = \"60s\"\ninterval = \"2s\"\n"),
        message("line 3: `interval` is set twice here; keep one")
    );
    assert_eq!(
        blocked("[[site]]\nname = \"a\"\nname = \"b\"\n"),
        message("line 3: `name` is set twice here; keep one")
    );
}

#[test]
fn a_negative_duration_says_it_is_negative() {
    assert_eq!(
        blocked("interval = \"-5s\"\n"),
        message("line 1: `interval`: `-5s` is negative; a duration is 0 or longer, e.g. \"5s\"")
    );
}

#[test]
fn an_unknown_key_gets_the_nearest_known_one() {
    assert_eq!(
        blocked("intervall = \"5s\"\n"),
        message(
            "line 1: unknown key `intervall`: did you mean `interval`? (known here: `interval`, `in_flight_hold`, `max_wait`, `stale_after`, `jitter`, `budget`, `max_backoff`, `backend`, `on_backend_error`, `site`, `tool`)"
        )
    );
    assert_eq!(
        blocked("[[site]]\nname = \"a\"\ndomain = [\"a.test\"]\n"),
        message(
            "line 3: unknown key `domain`: did you mean `domains`? (known here: `name`, `domains`, `interval`, `jitter`, `budget`, `preset`)"
        )
    );
    // Nothing near: no guess.
    assert_eq!(
        blocked("[[tool]]\nmatch = \"x\"\nclass = \"skip\"\nwhy = \"no\"\n"),
        message(
            "line 4: unknown key `why` (known here: `match`, `class`, `url`, `code`, `reason`, `site`)"
        )
    );
}

/// `pace-hook status` under `config`: its exit code and stdout.
fn status(config: &str) -> (i32, String, String) {
    let gate = Gate::new(config);
    let out = gate.command().arg("status").output().unwrap();
    let path = gate.dir.join("config.toml").display().to_string();
    let text = String::from_utf8_lossy(&out.stdout).replace(&path, "CONFIG");
    (code(&out), text, stderr(&out))
}

#[test]
fn status_with_a_broken_config_says_calls_are_blocked_and_exits_1() {
    let (code, out, err) = status("interval = 10\n");
    assert_eq!(code, 1, "{out}{err}");
    let lines: Vec<&str> = out.lines().skip(1).take(2).collect();
    assert_eq!(
        lines,
        [
            "config `CONFIG` line 1: `interval = 10` is a number; a duration is a string with its unit: write `interval = \"10s\"` (or ms, m, h)",
            "  every call pace-hook paces is blocked until this is fixed; below, the defaults stand in for it",
        ]
    );
}

#[test]
fn status_warns_that_an_interval_of_zero_leaves_no_gap() {
    // Allowed (calls still go one at a time; backoffs and budgets hold),
    // but said, since nothing spaces the calls.
    let (code, out, err) = status("interval = \"0s\"\n");
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out.lines().skip(1).take(2).collect();
    assert_eq!(
        lines,
        [
            "config: `CONFIG` (interval 0 ms, in_flight_hold 2 min, max_wait 4 min 30 s)",
            "  warning: `interval` is 0: a call to a site starts as soon as the previous one ends, with no gap; set the gap you want (the default is 10 s)",
        ]
    );
    let (_, out, _) = status("interval = \"1ms\"\n");
    assert!(!out.contains("warning"), "{out}");
}
