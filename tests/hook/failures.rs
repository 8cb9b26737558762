//! Every failure blocks, with one line for the model: bad stdin, missing
//! fields, oversized input, corrupt or unwritable state, a bad config, usage
//! errors, a panic; and what still works then.

use super::*;

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
    assert_eq!(
        tabs["tabs"]["chrome#9"]["hosts"],
        json!(["big.example.org"])
    );
}

#[test]
fn corrupt_state_blocks_then_heals() {
    let gate = Gate::new("interval = \"200ms\"\nin_flight_hold = \"1s\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("nav")));
    let state = gate.home().join("sites/example.com/state.json");
    fs::write(&state, b"{\"site\": \"example.com\", \"last_fin").unwrap();

    let out = gate.run(&pre_navigate("after", "https://example.com/", 1));
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("was unreadable, so the site counts as busy (a call may have been in flight); it was reset to stay busy for 1.2 s"),
        "{err}"
    );
    assert!(err.ends_with("Retry the call after that wait.\n"), "{err}");
    let moved = fs::read_dir(gate.home().join("sites/example.com"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("state.json.lost-")
        })
        .count();
    assert_eq!(moved, 1);

    // Healed as busy for a hold and an interval: the next call waits that
    // out and goes.
    let healed = std::time::Instant::now();
    assert_pass(&gate.run(&pre_navigate("retry", "https://example.com/", 1)));
    assert!(healed.elapsed() >= Duration::from_millis(1_000));
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
        err.contains("not-a-dir/home`") && err.contains("Not a directory"),
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
        "pace-hook: unexpected argument '--frobnicate' found\n\nUsage: pace-hook [COMMAND]\n\nFor more information, try '--help'.\n"
    );
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
