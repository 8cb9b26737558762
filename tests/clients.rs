//! Every client's events, as captured (Codex) or as each client's source
//! and docs define them (`tests/fixtures/clients/`), through the built
//! binary run as each client's hook file runs it: `pace-hook --client NAME`.
//! Each is answered in exactly that client's form.

mod common;
use common::*;

const CLIENTS: [&str; 5] = ["codex", "gemini", "copilot", "vscode", "cline"];

fn fixtures(client: &str) -> Value {
    if client == "codex" {
        return json!({
            "pre_navigate": fixture("codex-0.169.0-pre-navigate"),
            "post_navigate": fixture("codex-0.169.0-post-navigate"),
            "pre_evaluate": fixture("codex-0.169.0-pre-evaluate-blocked"),
        });
    }
    fixture(&format!("clients/{client}"))
}

fn spawn_as(gate: &Gate, args: &[&str], bytes: Vec<u8>) -> Child {
    let mut child = gate.command().args(args).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    child
}

fn run_as(gate: &Gate, args: &[&str], bytes: Vec<u8>) -> Output {
    finish(spawn_as(gate, args, bytes), Duration::from_secs(30))
}

fn hook(gate: &Gate, client: &str, event: &Value) -> Output {
    run_as(
        gate,
        &["--client", client],
        serde_json::to_vec(event).unwrap(),
    )
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The client's "go on".
fn assert_goes_on(client: &str, o: &Output) {
    assert_eq!(code(o), 0, "{client}: {}", stderr(o));
    let expected = if client == "cline" {
        "{\"cancel\":false}\n"
    } else {
        ""
    };
    assert_eq!(stdout(o), expected, "{client}");
    assert!(o.stderr.is_empty(), "{client}: {}", stderr(o));
}

/// The client's refusal; its reason.
fn assert_refused(client: &str, o: &Output) -> String {
    match client {
        "copilot" | "cline" => {
            assert_eq!(code(o), 0, "{client} refuses with exit 0 and JSON");
            assert!(o.stderr.is_empty(), "{client}: {}", stderr(o));
            let v: Value = serde_json::from_str(&stdout(o)).expect("one JSON object");
            let (k, reason) = if client == "copilot" {
                assert_eq!(v["permissionDecision"], "deny", "{v}");
                ("permissionDecision", "permissionDecisionReason")
            } else {
                assert_eq!(v["cancel"], true, "{v}");
                ("cancel", "errorMessage")
            };
            assert_eq!(
                v.as_object().unwrap().len(),
                2,
                "{k} and a reason only: {v}"
            );
            v[reason].as_str().unwrap().to_owned()
        }
        _ => {
            assert_eq!(code(o), 2, "{client}: {}", stdout(o));
            assert!(o.stdout.is_empty(), "{client}: {}", stdout(o));
            let e = stderr(o);
            assert!(!e.trim().is_empty(), "Codex blocks only with stderr");
            e
        }
    }
}

#[test]
fn each_client_is_paced_skipped_and_blocked_in_its_own_form() {
    for client in CLIENTS {
        let gate = Gate::new("interval = \"300ms\"\nin_flight_hold = \"60s\"\n");
        let f = fixtures(client);
        assert_goes_on(client, &hook(&gate, client, &f["pre_navigate"]));
        assert_goes_on(client, &hook(&gate, client, &f["post_navigate"]));
        let again = f["pre_navigate"]
            .to_string()
            .replace("call_e2e_00_00", "call_e2e_01_00");
        assert_goes_on(
            client,
            &hook(&gate, client, &serde_json::from_str(&again).unwrap()),
        );
        let admits = gate.events("admit");
        let finishes = gate.events("finish");
        assert_eq!(admits.len(), 2, "{client}: {:#?}", gate.log());
        assert_eq!(finishes.len(), 1, "{client}: the Post ended the call");
        assert_eq!(admits[1]["sites"], json!(["example.com"]));
        assert!(
            ts(&admits[1]) >= ts(&finishes[0]) + 300,
            "{client}: {:#?}",
            gate.log()
        );
        let reason = assert_refused(client, &hook(&gate, client, &f["pre_evaluate"]));
        assert!(
            reason.starts_with(
                "pace-hook blocked `browser_evaluate`: the script can start more than one request"
            ),
            "{client}: {reason}"
        );
    }
}

#[test]
fn an_event_that_cannot_be_read_is_refused_in_the_client_s_form() {
    let gate = Gate::new("");
    for client in CLIENTS {
        let o = run_as(
            &gate,
            &["--client", client],
            b"{\"hookName\": \"PreToolUse\", ".to_vec(),
        );
        let reason = assert_refused(client, &o);
        assert!(
            reason.starts_with("pace-hook blocked this call because it could not pace it safely"),
            "{client}: {reason}"
        );
    }
}

#[test]
fn a_panic_is_refused_in_the_client_s_form() {
    let gate = Gate::new("");
    for client in CLIENTS {
        let mut c = gate.command();
        c.args(["--client", client])
            .env("PACE_HOOK_DEBUG_PANIC", "1");
        let mut child = c.spawn().unwrap();
        drop(child.stdin.take());
        let o = finish(child, Duration::from_secs(30));
        let reason = assert_refused(client, &o);
        assert!(
            reason.contains("PACE_HOOK_DEBUG_PANIC"),
            "{client}: {reason}"
        );
    }
}

#[test]
fn a_typo_in_the_hook_command_is_refused_in_the_client_s_form() {
    let gate = Gate::new("");
    let o = run_as(
        &gate,
        &["--client", "cline", "--timeout", "soon"],
        b"{}".to_vec(),
    );
    let reason = assert_refused("cline", &o);
    assert!(reason.contains("`--timeout soon`"), "{reason}");
    let o = run_as(&gate, &["--client", "nobody"], b"{}".to_vec());
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("pace-hook knows claude, codex, gemini, copilot, vscode, cline"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_wait_the_client_s_timeout_would_cut_short_is_refused_in_time_saying_when() {
    // The config lets a call wait 270 s; the hook file gives Copilot 16 s,
    // which leaves 1 s to wait after the 15 s pace-hook keeps to answer.
    let gate = Gate::new("interval = \"10s\"\nin_flight_hold = \"60s\"\n");
    let f = fixtures("copilot");
    let args = ["--client", "copilot", "--timeout", "16"];
    let first = run_as(
        &gate,
        &args,
        serde_json::to_vec(&f["pre_navigate"]).unwrap(),
    );
    assert_goes_on("copilot", &first);
    assert_goes_on(
        "copilot",
        &run_as(
            &gate,
            &args,
            serde_json::to_vec(&f["post_navigate"]).unwrap(),
        ),
    );
    let started = Instant::now();
    let late = run_as(
        &gate,
        &args,
        serde_json::to_vec(&f["pre_navigate"]).unwrap(),
    );
    assert!(
        started.elapsed() < Duration::from_secs(16),
        "{:?}",
        started.elapsed()
    );
    let reason = assert_refused("copilot", &late);
    assert!(
        reason.contains("(the most it may wait is 1 s, under the agent's hook timeout)"),
        "{reason}"
    );
    assert!(
        reason.contains("example.com should be free in "),
        "{reason}"
    );
    assert_eq!(gate.events("give_up").len(), 1);
}

#[test]
fn thirty_second_clients_queued_on_a_ten_second_interval_are_answered_before_their_timeout() {
    // Copilot CLI, VS Code and Cline kill a hook at 30 s (and then run the
    // call), so pace-hook waits at most 15 s for them. A call has just
    // finished on example.com, free again in 10 s; three agents of those
    // clients then queue for it at once. The first in the queue gets the
    // site after the interval and finishes at once; the two behind it, whose
    // turn is then 20 s off, are refused before their client's timeout,
    // saying when the site is free, which it then is.
    let gate = Gate::new("interval = \"10s\"\nin_flight_hold = \"60s\"\n");
    let vscode = fixtures("vscode");
    assert_goes_on("vscode", &hook(&gate, "vscode", &vscode["pre_navigate"]));
    assert_goes_on("vscode", &hook(&gate, "vscode", &vscode["post_navigate"]));
    let other = |e: &Value| {
        let mut e = e.clone();
        e["session_id"] = json!("vs-2");
        e["tool_use_id"] = json!("tool-2");
        e
    };
    let queue = [
        ("copilot", fixtures("copilot")),
        ("cline", fixtures("cline")),
        (
            "vscode",
            json!({"pre_navigate": other(&vscode["pre_navigate"]), "post_navigate": other(&vscode["post_navigate"])}),
        ),
    ];
    let (tx, rx) = std::sync::mpsc::channel();
    for (i, (client, f)) in queue.iter().enumerate() {
        let started = Instant::now();
        let child = spawn_as(
            &gate,
            &["--client", client],
            serde_json::to_vec(&f["pre_navigate"]).unwrap(),
        );
        let tx = tx.clone();
        // The client's own timeout: a hook still running then is killed.
        thread::spawn(move || {
            let _ = tx.send((i, finish(child, Duration::from_secs(30)), started.elapsed()));
        });
    }
    let mut admitted = Vec::new();
    let mut refused = Vec::new();
    for _ in 0..queue.len() {
        let (i, o, took) = rx.recv().unwrap();
        let (client, f) = &queue[i];
        assert!(took < Duration::from_secs(30), "{client}: {took:?}");
        // A go-on may carry a note (Cline's after a wait does); a refusal
        // is in the client's form.
        let out = stdout(&o);
        let denied =
            out.contains("\"permissionDecision\":\"deny\"") || out.contains("\"cancel\":true");
        if code(&o) == 0 && !denied {
            assert!(o.stderr.is_empty(), "{client}: {}", stderr(&o));
            assert_goes_on(client, &hook(&gate, client, &f["post_navigate"]));
            admitted.push((client, Instant::now()));
        } else {
            refused.push((client, assert_refused(client, &o), Instant::now()));
        }
    }
    assert_eq!(admitted.len(), 1, "{refused:?}");
    let admit = gate.events("admit");
    let waited = admit.last().unwrap()["waited_ms"].as_u64().unwrap();
    assert!((9_000..15_000).contains(&waited), "{admit:?}");
    assert_eq!(refused.len(), 2);
    assert_eq!(gate.events("give_up").len(), 2);
    let (_, finished) = admitted[0];
    for (client, reason, at) in &refused {
        assert!(
            reason.contains("(the most it may wait is 15 s, under the agent's hook timeout)"),
            "{client}: {reason}"
        );
        // "should be free in N s": the admitted call's finish plus the
        // interval, as seen when the refusal was written.
        let free_in = reason
            .split("example.com should be free in ")
            .nth(1)
            .and_then(|r| r.split(" s at the earliest").next())
            .and_then(|n| n.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("{client}: no time to retry in {reason}"));
        let truth = 10.0 - at.duration_since(finished).as_secs_f64();
        assert!(
            (free_in - truth).abs() <= 1.5,
            "{client}: free in {free_in} s, truly {truth:.1} s: {reason}"
        );
    }
}

#[test]
fn codex_shell_calls_as_captured_are_paced_and_blocked() {
    // Codex 0.171.0's shell tool (`exec_command`) as its hook sees it, from
    // a run of the end-to-end suite: `Bash` with `command`, and a Post whose
    // `tool_response` is the command's output.
    let gate = Gate::new("interval = \"300ms\"\nin_flight_hold = \"60s\"\n");
    let pre = fixture("codex-0.171.0-pre-bash-curl");
    assert_goes_on("codex", &hook(&gate, "codex", &pre));
    assert_goes_on(
        "codex",
        &hook(&gate, "codex", &fixture("codex-0.171.0-post-bash-curl")),
    );
    let again = with_id(pre, "toolu_e2e_cxb_07_0");
    assert_goes_on("codex", &hook(&gate, "codex", &again));
    let (admits, finishes) = (gate.events("admit"), gate.events("finish"));
    assert_eq!(admits.len(), 2, "{:#?}", gate.log());
    assert_eq!(admits[1]["sites"], json!(["example.com"]));
    assert_eq!(finishes.len(), 1, "the Post ended the call");
    assert!(
        ts(&admits[1]) >= ts(&finishes[0]) + 300,
        "{:#?}",
        gate.log()
    );
    let reason = assert_refused(
        "codex",
        &hook(&gate, "codex", &fixture("codex-0.171.0-pre-bash-two-urls")),
    );
    assert!(
        reason.starts_with("pace-hook blocked `Bash`: the command can make more than one request"),
        "{reason}"
    );
}

#[test]
fn without_a_flag_the_fields_tell_the_client() {
    // Cline's own shape, run by a bare `pace-hook`: still its form.
    let gate = Gate::new("");
    let f = fixtures("cline");
    let o = run_as(&gate, &[], serde_json::to_vec(&f["pre_evaluate"]).unwrap());
    assert_refused("cline", &o);
    let f = fixtures("gemini");
    let o = run_as(&gate, &[], serde_json::to_vec(&f["pre_evaluate"]).unwrap());
    assert_refused("gemini", &o);
}

#[test]
fn claude_code_codex_gemini_copilot_and_cline_share_one_gate_and_keep_the_gap() {
    // Five agents at once on one site, each its own process per event,
    // each Post sent once its Pre is admitted: every admission comes an
    // interval after the previous finish, whoever made either.
    let gate = Gate::new("interval = \"400ms\"\nin_flight_hold = \"60s\"\n");
    let claude_pre = with_id(fixture("PreToolUse.browser_navigate"), "claude-1");
    let claude_post = with_id(fixture("PostToolUse.browser_navigate"), "claude-1");
    let mut agents: Vec<(&str, Value, Value)> = vec![("claude", claude_pre, claude_post)];
    for client in ["codex", "gemini", "copilot", "cline"] {
        let f = fixtures(client);
        agents.push((
            client,
            f["pre_navigate"].clone(),
            f["post_navigate"].clone(),
        ));
    }
    thread::scope(|scope| {
        for (client, pre, post) in &agents {
            let gate = &gate;
            scope.spawn(move || {
                let o = hook(gate, client, pre);
                assert_eq!(code(&o), 0, "{client}: {}", stderr(&o));
                thread::sleep(Duration::from_millis(50));
                let o = hook(gate, client, post);
                assert_eq!(code(&o), 0, "{client}: {}", stderr(&o));
            });
        }
    });
    let admits = gate.events("admit");
    let finishes = gate.events("finish");
    assert_eq!(admits.len(), 5, "{:#?}", gate.log());
    assert_eq!(
        finishes.len(),
        5,
        "every Post ended its own call: {:#?}",
        gate.log()
    );
    let mut starts: Vec<u64> = admits.iter().map(ts).collect();
    starts.sort();
    for a in &starts[1..] {
        let prev = finishes.iter().map(ts).filter(|&f| f <= *a).max().unwrap();
        assert!(
            *a >= prev + 400,
            "admitted {} ms after a finish: {:#?}",
            a - prev,
            gate.log()
        );
    }
    let gaps = gate.command().arg("gaps").output().unwrap();
    assert_eq!(code(&gaps), 0, "{}", String::from_utf8_lossy(&gaps.stdout));
}

#[test]
fn an_unreadable_cline_post_does_not_stop_its_task() {
    // Cline stops the whole task on `cancel`; a Post's call already ran.
    let gate = Gate::new("");
    let post = serde_json::to_vec(&fixtures("cline")["post_navigate"]).unwrap();
    let o = run_as(
        &gate,
        &["--client", "cline"],
        post[..post.len() - 3].to_vec(),
    );
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
    assert!(
        stderr(&o).starts_with("pace-hook could not read this PostToolUse event"),
        "{}",
        stderr(&o)
    );
    // A Pre cut short is still refused.
    let pre = serde_json::to_vec(&fixtures("cline")["pre_navigate"]).unwrap();
    let o = run_as(&gate, &["--client", "cline"], pre[..pre.len() - 3].to_vec());
    assert_refused("cline", &o);
}
