//! `status`, `doctor` and `gaps --svg` through the built binary: status
//! against a live gate with real waiting processes, doctor on each broken
//! setup (a temp HOME and project per test), and the timeline parsed as XML.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::*;

/// A gate with a user home and a project of its own, for `doctor`.
struct Setup {
    gate: Gate,
}

impl Setup {
    fn new(config: &str) -> Self {
        let s = Self {
            gate: Gate::new(config),
        };
        fs::create_dir_all(s.user().join(".claude")).unwrap();
        fs::create_dir_all(s.project().join(".claude")).unwrap();
        s
    }

    fn user(&self) -> PathBuf {
        self.gate.dir.join("user")
    }

    fn project(&self) -> PathBuf {
        self.gate.dir.join("project")
    }

    fn project_settings(&self) -> PathBuf {
        self.project().join(".claude").join("settings.json")
    }

    /// `pace-hook ARGS` as a user runs it in the project.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = self.gate.command();
        c.args(args)
            .env("HOME", self.user())
            .env("CLAUDE_PROJECT_DIR", self.project())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("PACE_HOOK_BACKEND")
            .current_dir(self.project())
            .stdin(Stdio::null());
        c
    }

    fn doctor(&self) -> (i32, String) {
        let out = self.command(&["doctor"]).output().unwrap();
        (
            code(&out),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }

    fn write_settings(&self, settings: &Value) {
        fs::write(
            self.project_settings(),
            serde_json::to_string_pretty(settings).unwrap(),
        )
        .unwrap();
    }
}

/// Settings with one entry per event, as the README shows them.
fn settings(matcher: &str, command: &str, timeout: Option<u64>) -> Value {
    let mut handler = json!({"type": "command", "command": command});
    if let Some(t) = timeout {
        handler["timeout"] = json!(t);
    }
    let entry = json!([{"matcher": matcher, "hooks": [handler]}]);
    json!({
        "permissions": {"allow": ["Read"]},
        "hooks": {
            "PreToolUse": entry,
            "PostToolUse": entry,
            "PostToolUseFailure": entry,
            "Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}]
        }
    })
}

fn clean() -> Value {
    settings("mcp__.*|WebFetch|WebSearch|^Bash$", BIN, Some(300))
}

/// The lines of doctor's output that report a problem.
fn problems(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with('✗')).collect()
}

/// The one problem line that contains `needle`.
fn problem<'a>(stdout: &'a str, needle: &str) -> &'a str {
    let found: Vec<&str> = problems(stdout)
        .into_iter()
        .filter(|l| l.contains(needle))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "no single ✗ line with {needle:?} in:\n{stdout}"
    );
    found[0]
}

fn pace_and_finish(gate: &Gate, id: &str) {
    assert_pass(&gate.run(&pre_navigate(id, "https://example.com/a", 1)));
    assert_pass(&gate.run(&post_navigate(id)));
}

fn status_json(s: &Setup) -> Value {
    let out = s.command(&["status", "--json"]).output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn status_shows_calls_in_flight_and_callers_queued() {
    let s = Setup::new("interval = \"1s\"\nin_flight_hold = \"20s\"\nmax_wait = \"15s\"\n");
    let gate = &s.gate;
    // One call admitted and never finished: it holds the site for 20 s.
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/a", 1)));
    let waiters = [
        gate.spawn(&pre_navigate("b", "https://example.com/b", 2)),
        gate.spawn(&pre_navigate("c", "https://example.com/c", 3)),
    ];
    let start = Instant::now();
    let status = loop {
        let status = status_json(&s);
        if status["sites"][0]["queued"] == 2 {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the waiters never queued: {status:#}"
        );
        thread::sleep(Duration::from_millis(50));
    };
    let state_file = gate.home().join("sites/example.com/state.json");
    let state_before = fs::read(&state_file).unwrap();

    assert_eq!(status["version"], 1);
    assert_eq!(status["state_found"], true);
    assert_eq!(status["config"]["interval_ms"], 1000);
    let site = &status["sites"][0];
    assert_eq!(site["site"], "example.com");
    assert_eq!(site["interval_ms"], 1000);
    assert_eq!(site["due"], false);
    assert_eq!(site["last_finish_ms"], Value::Null);
    let call = &site["in_flight"][0];
    assert!(is_call(call, "a"), "{call}");
    assert_eq!(call["tool"], "navigate");
    assert_eq!(call["session"], "session-a");
    assert_eq!(call["waiting_for_other_sites"], false);
    let started = call["started_ms"].as_u64().unwrap();
    let until = call["hold_until_ms"].as_u64().unwrap();
    assert_eq!(until - started, 20_000);
    assert_eq!(site["next_start_ms"].as_u64(), Some(until + 1_000));
    assert_eq!(site["backoff"], Value::Null);
    assert_eq!(site["budget"], Value::Null);
    let chrome = &status["browsers"][0];
    assert_eq!(chrome["browser"], "chrome");
    assert_eq!(chrome["tabs"][0]["id"], "1");
    assert_eq!(chrome["tabs"][0]["hosts"], json!(["example.com"]));

    let out = s.command(&["status"]).output().unwrap();
    assert_eq!(code(&out), 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\nexample.com\n  next start    "), "{text}");
    assert!(
        text.contains("  in flight     navigate session-a#a, session session-a, since "),
        "{text}"
    );
    assert!(text.contains("  queued        2 callers\n"), "{text}");
    assert!(text.contains("    tab 1: example.com; "), "{text}");
    // Reading changed nothing.
    assert_eq!(fs::read(&state_file).unwrap(), state_before);
    for mut w in waiters {
        let _ = w.kill();
        let _ = w.wait();
    }
}

#[test]
fn a_killed_waiter_is_not_queued_in_status_or_doctor() {
    let s = Setup::new("interval = \"1s\"\nin_flight_hold = \"20s\"\nmax_wait = \"15s\"\n");
    s.write_settings(&clean());
    let gate = &s.gate;
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/a", 1)));
    let mut waiter = gate.spawn(&pre_navigate("b", "https://example.com/b", 2));
    let start = Instant::now();
    while status_json(&s)["sites"][0]["queued"] != 1 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the waiter never queued"
        );
        thread::sleep(Duration::from_millis(50));
    }
    // SIGKILL: no chance to remove its ticket, which stays until the next
    // caller clears it; but nobody waits there any more.
    waiter.kill().unwrap();
    waiter.wait().unwrap();
    let queue = gate.home().join("sites/example.com/queue");
    assert_eq!(
        fs::read_dir(&queue).unwrap().count(),
        1,
        "the ticket is left"
    );
    assert_eq!(status_json(&s)["sites"][0]["queued"], 0);
    let out = s.command(&["status"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  queued        none\n"), "{text}");
    let (_, doctor) = s.doctor();
    assert!(
        doctor.contains("✓ queues: none stuck (0 caller(s) waiting on 1 site(s))"),
        "{doctor}"
    );
}

#[test]
fn gaps_reads_without_making_the_state_dir_and_names_a_site_it_has_not_seen() {
    let s = Setup::new("interval = \"1s\"\n");
    let out = s.command(&["gaps"]).output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "no gate log in files in `{}` yet\n",
            s.gate.home().display()
        )
    );
    assert!(!s.gate.home().exists(), "gaps made the state directory");

    pace_and_finish(&s.gate, "a");
    let out = s
        .command(&["gaps", "--site", "nosuch.example"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "no calls to nosuch.example in the gate log; it has example.com\n"
    );
}

#[test]
fn status_on_a_new_state_dir_says_so_and_makes_nothing() {
    let s = Setup::new("");
    let out = s.command(&["status"]).output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no gate state yet"), "{text}");
    let status = status_json(&s);
    assert_eq!(status["version"], 1);
    assert_eq!(status["state_found"], false);
    assert_eq!(status["sites"], json!([]));
    assert!(!s.gate.home().exists(), "status made the state directory");
}

#[test]
fn status_and_doctor_show_a_preset_and_whose_values_hold() {
    let s = Setup::new(
        "interval = \"200ms\"\n[[site]]\nname = \"gh\"\npreset = \"github\"\nbudget = \"100/1h\"\n",
    );
    let expected = "site `gh` uses preset `github`: interval 1 s (the preset's; yours: 200 ms), budget 100 per 60 min (yours); the tools of MCP servers named like `github` are paced on it; github publishes: no more than 80 content-generating requests per minute and no more than 500 per hour";
    let out = s.command(&["status"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("\n  {expected}")), "{text}");
    let status = status_json(&s);
    assert!(
        status["config"]["presets"][0]
            .as_str()
            .unwrap()
            .starts_with(expected),
        "{status}"
    );
    s.write_settings(&settings(
        "mcp__.*|WebFetch|WebSearch|^Bash$",
        BIN,
        Some(300),
    ));
    let (_, out) = s.doctor();
    assert!(out.contains(&format!("✓ {expected}")), "{out}");
    assert!(
        out.contains(
            "source https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api"
        ),
        "{out}"
    );
    // The gate paces github.com at the preset's second, not the 200 ms.
    let gate = &s.gate;
    for id in ["g1", "g2"] {
        assert_pass(&gate.run(&pre_navigate(id, "https://api.github.com/x", 1)));
        assert_pass(&gate.run(&post_navigate(id)));
    }
    // On github.com's own finish: g1's result also revealed example.com,
    // whose finish is stamped after it (the record's ts is the last).
    let finish = gate.record("finish", "g1");
    let at = finish["sites"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s == "github.com")
        .unwrap();
    let finished = finish["finished_ms"][at].as_u64().unwrap();
    let gap = ts(&gate.record("admit", "g2")) - finished;
    assert!(gap >= 1_000, "{gap} {:#?}", gate.log());
}

/// A call of GitHub's MCP server, which names no URL: `create_issue` on
/// `server`, made after the call `after` (to be seen in the gate log).
fn github_mcp(id: &str, server: &str, tool: &str) -> Value {
    let mut e = pre_navigate(id, "https://unused.example/", 1);
    e["tool_name"] = json!(format!("mcp__{server}__{tool}"));
    e["tool_input"] = json!({"owner": "o", "repo": "r", "title": "t", "body": "b"});
    e
}

#[test]
fn a_preset_paces_its_services_own_mcp_server_on_the_site() {
    let s = Setup::new("interval = \"200ms\"\n[[site]]\nname = \"gh\"\npreset = \"github\"\n");
    let gate = &s.gate;
    // Two servers named like GitHub's, one a user's own spelling.
    let calls = [
        github_mcp("m1", "github", "create_issue"),
        github_mcp("m2", "GitHub-MCP", "add_issue_comment"),
    ];
    for call in &calls {
        assert_pass(&gate.run(call));
        assert_pass(&gate.run(&post_of(call, "PostToolUse")));
    }
    let admit = gate.record("admit", "m2");
    // The site's every domain, as for a request to github.com itself.
    assert_eq!(
        admit["sites"],
        json!(["github.com", "githubusercontent.com"]),
        "{:#?}",
        gate.log()
    );
    let finish = gate.record("finish", "m1");
    let gap = ts(&admit) - finish["finished_ms"][0].as_u64().unwrap();
    assert!(gap >= 1_000, "{gap} {:#?}", gate.log());
    // Without the preset the same call names no site: it passes, logged
    // as unknown.
    let bare = Setup::new("interval = \"200ms\"\n");
    assert_pass(&bare.gate.run(&github_mcp("u1", "github", "create_issue")));
    assert_eq!(
        bare.gate.record("unknown", "u1")["tool"],
        "mcp__github__create_issue"
    );
}

#[test]
fn a_tool_rules_site_paces_a_tool_that_names_no_url_there() {
    let s = Setup::new(
        "interval = \"200ms\"\n[[site]]\nname = \"lin\"\ndomains = [\"linear.app\"]\ninterval = \"1s\"\n\n[[tool]]\nmatch = \"mcp__linear__.*\"\nclass = \"pace\"\nsite = \"lin\"\n",
    );
    let call = github_mcp("l1", "linear", "create_issue");
    assert_pass(&s.gate.run(&call));
    assert_eq!(
        s.gate.record("admit", "l1")["sites"],
        json!(["linear.app"]),
        "{:#?}",
        s.gate.log()
    );
}

#[test]
fn status_names_unknown_tools_and_how_to_declare_them() {
    let s = Setup::new("");
    let mut e = pre_navigate("u", "https://example.com/", 1);
    e["tool_name"] = json!("mcp__browserbase__navigate");
    assert_pass(&s.gate.run(&e));
    let status = status_json(&s);
    assert_eq!(
        status["unknown_tools"][0]["tool"],
        "mcp__browserbase__navigate"
    );
    assert_eq!(status["unknown_tools"][0]["calls"], 1);
    let out = s.command(&["status"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("    [[tool]]\n    match = \"mcp__browserbase__navigate\"\n"),
        "{text}"
    );
}

#[test]
fn doctor_passes_a_clean_setup() {
    let s = Setup::new("");
    s.write_settings(&clean());
    // With state, a log and a tab map, so every check has something to read.
    pace_and_finish(&s.gate, "a");
    let (code, out) = s.doctor();
    assert_eq!(code, 0, "{out}");
    assert!(problems(&out).is_empty(), "{out}");
    for needle in [
        "✓ PreToolUse: a pace-hook entry (matcher `mcp__.*|WebFetch|WebSearch|^Bash$`",
        "✓ PostToolUseFailure: a pace-hook entry",
        "✓ claude-in-chrome: all 20 tools reach pace-hook on all three events",
        "✓ Playwright MCP: all",
        "✓ timeouts: 300 s, above max_wait (4 min 30 s)",
        "is executable",
        "✓ backend: files in",
        "✓ queues: none stuck",
        "✓ unknown tools: none",
    ] {
        assert!(out.contains(needle), "{needle:?} missing from:\n{out}");
    }
    assert!(out.ends_with("all well: pace-hook paces every web tool it knows\n"));
}

/// Issue 18: `interval = "0s"` is accepted (calls still go one at a time),
/// but spaces nothing; doctor says so, as status does.
#[test]
fn doctor_flags_an_interval_of_zero() {
    let s = Setup::new("interval = \"0s\"\n");
    s.write_settings(&clean());
    let (code, out) = s.doctor();
    assert_eq!(code, 1, "{out}");
    problem(
        &out,
        "`interval` is 0: a call to a site starts as soon as the previous one ends",
    );
}

#[test]
fn doctor_finds_an_event_with_no_pace_hook_entry() {
    let s = Setup::new("");
    let mut settings = clean();
    settings["hooks"]
        .as_object_mut()
        .unwrap()
        .remove("PostToolUseFailure");
    s.write_settings(&settings);
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    let line = problem(&out, "PostToolUseFailure: no pace-hook entry");
    assert!(
        line.contains("add {\"matcher\": \"mcp__.*|WebFetch|WebSearch|^Bash$\""),
        "{line}"
    );
    assert!(
        line.contains("to `hooks.PostToolUseFailure` in `"),
        "{line}"
    );
}

#[test]
fn doctor_finds_a_matcher_that_matches_no_tool() {
    let s = Setup::new("");
    s.write_settings(&settings("mcp__claude-in-chrome", BIN, Some(300)));
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    assert_eq!(
        problems(&out)
            .iter()
            .filter(|l| l.contains("matcher `mcp__claude-in-chrome` in `")
                && l.contains("matches no tool pace-hook paces")
                && l.contains("write `mcp__claude-in-chrome__.*`"))
            .count(),
        3,
        "{out}"
    );
}

#[test]
fn doctor_says_when_the_shell_is_left_out() {
    // The matcher `install` wrote before the shell profile: every browser
    // tool, and no `Bash`, so the agent's `curl` passes unpaced.
    let s = Setup::new("");
    s.write_settings(&settings("mcp__.*|WebFetch|WebSearch", BIN, Some(300)));
    let (code, out) = s.doctor();
    assert_eq!(code, 1, "{out}");
    let line = problem(
        &out,
        "the shell (Bash): none of its tools reach pace-hook on PreToolUse, PostToolUse, PostToolUseFailure",
    );
    assert!(
        line.contains("a call that misses PreToolUse passes unpaced")
            && line.contains("use matcher `mcp__.*|WebFetch|WebSearch|^Bash$` (or add `Bash`)"),
        "{line}"
    );
    // `BashOutput` is not `Bash`: an exact list must name the tool itself.
    s.write_settings(&settings("mcp__.*|WebFetch|BashOutput", BIN, Some(300)));
    let (_, out) = s.doctor();
    problem(&out, "the shell (Bash): none of its tools reach pace-hook");
    s.write_settings(&settings("mcp__.*|WebFetch|^Bash$", BIN, Some(300)));
    let (_, out) = s.doctor();
    assert!(
        out.contains("✓ the shell (Bash): its tool reaches pace-hook on all three events"),
        "{out}"
    );
}

#[test]
fn doctor_finds_a_matcher_that_misses_a_profiles_tools() {
    let s = Setup::new("");
    let mut settings = settings("mcp__claude-in-chrome__.*|WebFetch", BIN, Some(300));
    // And one family only partly on one event.
    settings["hooks"]["PostToolUse"][0]["matcher"] =
        json!("mcp__claude-in-chrome__(navigate|computer)|WebFetch");
    s.write_settings(&settings);
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    assert!(
        out.contains("✓ WebFetch: its tool reaches pace-hook"),
        "{out}"
    );
    let line = problem(
        &out,
        "Playwright MCP: none of its tools reach pace-hook on PreToolUse, PostToolUse, PostToolUseFailure",
    );
    assert!(
        line.contains("use matcher `mcp__.*|WebFetch|WebSearch|^Bash$`"),
        "{line}"
    );
    let line = problem(
        &out,
        "claude-in-chrome: 18 of its 20 tools miss it on PostToolUse",
    );
    assert!(
        line.contains("`mcp__claude-in-chrome__javascript_tool`"),
        "{line}"
    );
}

#[test]
fn doctor_finds_a_timeout_at_or_under_max_wait() {
    let s = Setup::new("");
    let mut short = clean();
    short["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = json!(270);
    s.write_settings(&short);
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    let line = problem(&out, "PreToolUse in `");
    assert!(
        line.contains("has timeout 270 s at or under max_wait (4 min 30 s)"),
        "{line}"
    );
    assert!(line.contains("set \"timeout\": 300"), "{line}");

    // No timeout is Claude Code's 600 s, under a max_wait of 11 minutes.
    let s = Setup::new("max_wait = \"11m\"\nstale_after = \"20m\"\n");
    s.write_settings(&settings("mcp__.*|WebFetch|WebSearch|^Bash$", BIN, None));
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    assert_eq!(
        problems(&out)
            .iter()
            .filter(|l| l.contains(
                "has no timeout, so Claude Code's default 600 s, at or under max_wait (11 min)"
            ) && l.contains("set \"timeout\": 690"))
            .count(),
        3,
        "{out}"
    );
}

#[test]
fn doctor_finds_a_command_that_is_missing_or_not_executable() {
    let s = Setup::new("");
    s.write_settings(&settings(
        "mcp__.*|WebFetch|WebSearch|^Bash$",
        "/nonexistent/bin/pace-hook",
        Some(300),
    ));
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    let line = problem(&out, "command `/nonexistent/bin/pace-hook`");
    assert!(
        line.contains("`/nonexistent/bin/pace-hook` does not exist; Claude Code would let every call through unpaced"),
        "{line}"
    );
    assert!(line.contains(&format!("use `{BIN}`")), "{line}");

    let copy = s.project().join("pace-hook");
    fs::write(&copy, "#!/bin/sh\n").unwrap();
    fs::set_permissions(&copy, fs::Permissions::from_mode(0o644)).unwrap();
    s.write_settings(&settings(
        "mcp__.*|WebFetch|WebSearch|^Bash$",
        "\"$CLAUDE_PROJECT_DIR\"/pace-hook",
        Some(300),
    ));
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    let line = problem(&out, "is not an executable file");
    assert!(
        line.contains(&format!("(run `chmod +x {}`)", copy.display())),
        "{line}"
    );

    s.write_settings(&settings(
        "mcp__.*|WebFetch|WebSearch|^Bash$",
        &format!("{BIN} 2>/dev/null"),
        Some(300),
    ));
    let (_, out) = s.doctor();
    let line = problem(&out, "runs pace-hook with `2>/dev/null` after it");
    assert!(line.contains("the hook takes no arguments"), "{line}");
}

#[test]
fn doctor_finds_a_config_error() {
    let s = Setup::new("interval = \"fast\"\n");
    s.write_settings(&clean());
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    let line = problem(&out, "`interval`: `fast` is not a duration");
    assert!(line.contains("line 1"), "{line}");
    assert!(
        line.contains("until then every paced call is blocked"),
        "{line}"
    );
}

#[test]
fn doctor_finds_a_state_dir_others_can_write() {
    let s = Setup::new("");
    s.write_settings(&clean());
    pace_and_finish(&s.gate, "a");
    fs::set_permissions(s.gate.home(), fs::Permissions::from_mode(0o777)).unwrap();
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    let line = problem(&out, "the state directory `");
    assert!(
        line.contains("can be written by anyone (mode 777)"),
        "{line}"
    );
    assert!(
        line.contains(&format!("run `chmod go-w {}`", s.gate.home().display())),
        "{line}"
    );
}

#[test]
fn doctor_finds_a_stuck_queue() {
    let s = Setup::new("max_wait = \"30s\"\n");
    s.write_settings(&clean());
    pace_and_finish(&s.gate, "a");
    // A caller that joined the queue ten minutes ago and is still alive:
    // past max_wait it should have given up; it is stuck.
    let mut stuck = Command::new("sleep").arg("60").spawn().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let arrived = now - 600_000;
    let queue = s.gate.home().join("sites/example.com/queue");
    fs::write(
        queue.join(format!("{:020}-{}-{arrived}", arrived * 1000, stuck.id())),
        "",
    )
    .unwrap();
    let (code, out) = s.doctor();
    let _ = stuck.kill();
    let _ = stuck.wait();
    assert_eq!(code, 1);
    let line = problem(&out, "queue of example.com: a caller (process ");
    assert!(
        line.contains("longer than max_wait (30 s): it should have given up"),
        "{line}"
    );
    assert!(line.contains(&format!("(`kill {}`)", stuck.id())), "{line}");
}

#[test]
fn doctor_finds_an_unreachable_backend() {
    let s = Setup::new("");
    s.write_settings(&clean());
    fs::create_dir_all(s.gate.home()).unwrap();
    fs::set_permissions(s.gate.home(), fs::Permissions::from_mode(0o700)).unwrap();
    // Where the sites go, a file: the store cannot read its state.
    fs::write(s.gate.home().join("sites"), "").unwrap();
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    let line = problem(&out, "backend cannot be read: ");
    assert!(line.contains("sites` is not a directory"), "{line}");
    assert!(line.contains("every paced call is blocked"), "{line}");
}

#[test]
fn doctor_finds_tools_no_profile_or_rule_knows() {
    let s = Setup::new("");
    s.write_settings(&clean());
    let mut e = pre_navigate("u", "https://example.com/", 1);
    e["tool_name"] = json!("mcp__browserbase__navigate");
    assert_pass(&s.gate.run(&e));
    let (code, out) = s.doctor();
    assert_eq!(code, 1);
    let line = problem(
        &out,
        "unknown tools passed unpaced: `mcp__browserbase__navigate` (1 call(s)",
    );
    assert!(
        line.contains("`[[tool]] match = \"mcp__browserbase__navigate\" class = \"pace\""),
        "{line}"
    );
    // Declared, it is known.
    fs::write(
        s.gate.dir.join("config.toml"),
        "[[tool]]\nmatch = \"mcp__browserbase__navigate\"\nclass = \"pace\"\nurl = \"/url\"\n",
    )
    .unwrap();
    let (code, out) = s.doctor();
    assert_eq!(code, 0, "{out}");
}

#[test]
fn gaps_svg_draws_every_call_by_session_and_the_short_gap_in_red() {
    let gate = Gate::new("");
    fs::create_dir_all(gate.home()).unwrap();
    let lines = [
        json!({"ts": 1000, "event": "admit", "pid": 1, "session": "s-one", "sites": ["a.com"], "tool": "navigate", "call": "s-one#x", "interval_ms": 10000, "hold_ms": 120000}),
        json!({"ts": 2000, "event": "finish", "pid": 2, "session": "s-one", "sites": ["a.com"], "tool": "navigate", "call": "s-one#x"}),
        // 3 s after the finish: short.
        json!({"ts": 5000, "event": "admit", "pid": 3, "session": "s<two>", "sites": ["a.com"], "tool": "computer left_click", "call": "s<two>#y", "interval_ms": 10000, "hold_ms": 120000, "waited_ms": 2500}),
        json!({"ts": 6000, "event": "finish", "pid": 4, "session": "s<two>", "sites": ["a.com"], "tool": "computer left_click", "call": "s<two>#y"}),
        // Waited its turn; no finish ever came.
        json!({"ts": 16000, "event": "admit", "pid": 5, "session": "s-one", "sites": ["a.com", "b.org"], "tool": "javascript_tool", "call": "s-one#z", "intervals_ms": [10000, 10000], "hold_ms": 30000, "waited_ms": 9000}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(gate.home().join("gate.log"), text).unwrap();
    let svg_path = gate.dir.join("timeline.svg");
    let out = gate
        .command()
        .args(["gaps", "--svg"])
        .arg(&svg_path)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("3,000 ms (interval 10 s)  SHORT"),
        "{stdout}"
    );

    let text = fs::read_to_string(&svg_path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("the timeline is well-formed XML");
    let svg = doc.root_element();
    assert_eq!(svg.tag_name().name(), "svg");
    assert_eq!(
        svg.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let has_class = |n: &roxmltree::Node, c: &str| {
        n.attribute("class")
            .is_some_and(|v| v.split(' ').any(|x| x == c))
    };
    let title_of = |n: roxmltree::Node| -> String {
        n.children()
            .find(|c| c.has_tag_name("title"))
            .and_then(|t| t.text())
            .unwrap_or("")
            .to_owned()
    };
    // A bar per admitted call and site: x and y on a.com, z on both.
    let bars: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && has_class(n, "call"))
        .collect();
    assert_eq!(bars.len(), 4);
    let titles: Vec<String> = bars.iter().map(|b| title_of(b.parent().unwrap())).collect();
    for call in ["call s-one#x", "call s<two>#y", "call s-one#z"] {
        assert!(
            titles.iter().any(|t| t.contains(call)),
            "{call}: {titles:#?}"
        );
    }
    assert!(
        titles
            .iter()
            .any(|t| t.contains("no finish recorded: held until")),
        "{titles:#?}"
    );
    // Sessions in distinct colours, with a legend.
    let legend: Vec<(String, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && has_class(n, "session"))
        .map(|g| {
            let fill = g
                .children()
                .find(|c| c.has_tag_name("rect"))
                .and_then(|r| r.attribute("fill"))
                .unwrap()
                .to_owned();
            (g.attribute("data-session").unwrap().to_owned(), fill)
        })
        .collect();
    assert_eq!(legend.len(), 2, "{legend:?}");
    assert_eq!(legend[0].0, "s-one");
    assert_eq!(legend[1].0, "s<two>");
    assert_ne!(legend[0].1, legend[1].1);
    let fill_of_bar = |call: &str| {
        bars.iter()
            .find(|b| title_of(b.parent().unwrap()).contains(call))
            .and_then(|b| b.attribute("fill"))
            .unwrap()
            .to_owned()
    };
    assert_eq!(fill_of_bar("s-one#x"), legend[0].1);
    assert_eq!(fill_of_bar("s<two>#y"), legend[1].1);
    // The waits, shaded and named by cause: y and z on a.com waited out
    // the interval after the call before; z on b.org, which nothing held,
    // has nothing to name.
    let causes: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && has_class(n, "wait"))
        .map(|n| n.attribute("data-cause").unwrap())
        .collect();
    assert_eq!(causes, ["interval", "interval", ""]);
    let labels: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && has_class(n, "wait"))
        .filter_map(|n| n.children().find(|c| c.has_tag_name("text")))
        .filter_map(|t| t.text())
        .collect();
    assert_eq!(labels, ["interval", "interval"]);
    // The one short gap, in red, on a.com.
    let short: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && has_class(n, "short-gap"))
        .collect();
    assert_eq!(short.len(), 1);
    assert_eq!(short[0].attribute("fill"), Some("#d62728"));
    let lane = short[0].ancestors().find(|a| has_class(a, "lane")).unwrap();
    assert_eq!(lane.attribute("data-site"), Some("a.com"));
    assert!(title_of(short[0].parent().unwrap()).contains("gap 3,000 ms, interval 10 s"));
    // Labels on a time axis.
    assert!(
        doc.descendants()
            .filter(|n| n.has_tag_name("text") && n.text().is_some_and(|t| t.starts_with("00:00:")))
            .count()
            >= 3
    );
}
