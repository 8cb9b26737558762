//! Issue 7, through the built binary: the failure paths around the gate
//! that let a call through or wedge a site, each reproduced and shown closed.
//! Hostile inputs, a hostile state directory, processes killed and stopped,
//! clocks that disagree, writes that fail.

mod common;

use common::*;

fn in_session(mut event: Value, session: &str) -> Value {
    event["session_id"] = json!(session);
    event
}

fn signal(child: &Child, sig: libc::c_int) {
    // SAFETY: a plain signal to a child we spawned and have not reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, sig) };
}

/// Write one event to a spawned hook's stdin and close it.
fn feed(child: &mut Child, event: &Value) {
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&serde_json::to_vec(event).unwrap())
        .unwrap();
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn two_clicks(id: &str) -> Value {
    let mut two = with_id(fixture("PreToolUse.browser_batch"), id);
    two["tool_input"]["actions"][1] = json!({"name": "computer", "input": {"action": "left_click", "coordinate": [9, 9], "tabId": 1}});
    two
}

#[test]
fn two_sessions_reusing_a_call_id_are_two_calls() {
    let gate = Gate::new("interval = \"200ms\"\nin_flight_hold = \"2s\"\nmax_wait = \"20s\"\n");
    let a = in_session(pre_navigate("call_0", "https://example.com/", 1), "A");
    let b = in_session(pre_navigate("call_0", "https://example.com/", 2), "B");
    assert_pass(&gate.run(&a));
    let waiting = gate.spawn(&b);
    thread::sleep(Duration::from_millis(300));
    let mut post_a = in_session(post_navigate("call_0"), "A");
    post_a["tool_input"] = a["tool_input"].clone();
    assert_pass(&gate.run(&post_a));
    assert_pass(&finish(waiting, Duration::from_secs(20)));
    let admits = gate.events("admit");
    assert_eq!(admits.len(), 2, "{admits:#?}");
    let a_end = ts(&gate.events("finish")[0]);
    assert!(
        ts(&admits[1]) >= a_end + 200,
        "B went before A's finish + interval"
    );
    // A's Post again (late, or from a second settings file) does not end
    // B's call: a third session still waits for B's hold.
    assert_pass(&gate.run(&post_a));
    let c = in_session(pre_navigate("call_0", "https://example.com/", 3), "C");
    assert_pass(&finish(gate.spawn(&c), Duration::from_secs(20)));
    let admits = gate.events("admit");
    assert!(ts(&admits[2]) >= ts(&admits[1]) + 2_000 + 200);
}

#[test]
fn a_group_one_project_defines_meets_the_other_projects_calls() {
    let gate = Gate::new(
        "interval = \"50ms\"\n[[site]]\nname = \"social\"\ndomains = [\"example.social\", \"cdn.example-social.net\"]\ninterval = \"1s\"\n",
    );
    assert_pass(&gate.run(&pre_navigate("a", "https://cdn.example-social.net/x", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    // The other project knows no such group.
    fs::write(gate.dir.join("config.toml"), "interval = \"50ms\"\n").unwrap();
    assert_pass(&finish(
        gate.spawn(&pre_navigate("b", "https://example.social/", 2)),
        Duration::from_secs(10),
    ));
    let b = gate.record("admit", "b");
    assert_eq!(b["sites"], json!(["example.social"]));
    // a's finish on example.social itself (its two sites are written one
    // after the other, each with its own time).
    let a = gate.record("finish", "a");
    let i = a["sites"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s == "example.social")
        .unwrap();
    assert!(ts(&b) >= a["finished_ms"][i].as_u64().unwrap() + 1_000);
    assert_eq!(code(&gate.command().arg("gaps").output().unwrap()), 0);
}

/// A blocked call, with stderr closed, full, or a pipe nobody reads: the exit
/// code is the block's, whatever became of the message.
#[test]
fn a_failing_stderr_does_not_change_the_exit_code() {
    use std::os::unix::process::CommandExt;
    let gate = Gate::new("");
    let event = serde_json::to_vec(&two_clicks("b")).unwrap();
    let run = |setup: &dyn Fn(&mut Command)| {
        let mut c = gate.command();
        setup(&mut c);
        let mut child = c.spawn().unwrap();
        drop(child.stderr.take());
        // A panicking hook may exit before it reads: the write can fail.
        let _ = child.stdin.take().unwrap().write_all(&event);
        child.wait().unwrap().code()
    };
    assert_eq!(
        run(&|c| {
            c.stderr(fs::File::create("/dev/full").unwrap());
        }),
        Some(2)
    );
    assert_eq!(
        run(&|c| {
            // SAFETY: close(2) in the child before exec.
            unsafe {
                c.pre_exec(|| {
                    libc::close(2);
                    Ok(())
                });
            }
        }),
        Some(2)
    );
    // A pipe whose reader left (dropped above before the write).
    assert_eq!(run(&|_| {}), Some(2));
    // And a panic, with stderr full.
    assert_eq!(
        run(&|c| {
            c.env("PACE_HOOK_DEBUG_PANIC", "1")
                .stderr(fs::File::create("/dev/full").unwrap());
        }),
        Some(2)
    );
}

#[test]
fn a_ticket_that_cannot_be_removed_is_passed_over_not_spun_on() {
    let gate = Gate::new("interval = \"10ms\"\nmax_wait = \"3s\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    // A directory where a ticket goes, ahead of everyone.
    let queue = gate.home().join("sites/example.com/queue");
    fs::create_dir(queue.join("00000000000000000001-1-1")).unwrap();
    let started = Instant::now();
    assert_pass(&finish(
        gate.spawn(&pre_navigate("b", "https://example.com/", 1)),
        Duration::from_secs(10),
    ));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_config_that_is_not_a_regular_file_is_refused_not_waited_on() {
    let gate = Gate::new("");
    let fifo = gate.dir.join("fifo.toml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let started = Instant::now();
    let mut cmd = gate.command();
    cmd.env("PACE_HOOK_CONFIG", &fifo);
    let mut child = cmd.spawn().unwrap();
    feed(&mut child, &pre_navigate("a", "https://example.com/", 1));
    let out = finish(child, Duration::from_secs(10));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// Make the file at `path` run on past pace-hook's read limit (64 MiB),
/// sparse, so it costs no disk.
fn plant_huge(path: &Path) {
    let f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.set_len((64 << 20) + 1).unwrap();
}

#[test]
fn files_too_large_to_be_a_config_or_a_state_block_the_call_never_let_it_through() {
    // A config: refused, and said so.
    let gate = Gate::new("interval = \"10ms\"\n");
    plant_huge(&gate.dir.join("config.toml"));
    let out = gate.run(&pre_navigate("a", "https://example.com/", 1));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("larger than 64 MiB"),
        "{}",
        stderr(&out)
    );

    // A site's state: the site counts as busy, and the file is set aside.
    let gate = Gate::new("interval = \"10ms\"\nmax_wait = \"1s\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    let site = gate.home().join("sites/example.com");
    plant_huge(&site.join("state.json"));
    let out = gate.run(&pre_navigate("b", "https://example.com/", 2));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("unreadable"), "{}", stderr(&out));
    assert!(fs::metadata(site.join("state.json")).unwrap().len() < 1024);
    let out = gate.run(&pre_navigate("c", "https://example.com/", 3));
    assert_eq!(code(&out), 2, "still busy: {}", stderr(&out));
    assert!(stderr(&out).contains("waited"), "{}", stderr(&out));
}

#[test]
fn a_post_with_a_lone_surrogate_is_recorded() {
    let gate = Gate::new("interval = \"10ms\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    let post = serde_json::to_string(&post_navigate("nav"))
        .unwrap()
        .replace("Navigated to", "Cut mid-emoji \\ud83d here; navigated to");
    let out = finish(gate.spawn_bytes(post.into_bytes()), Duration::from_secs(10));
    assert_pass(&out);
    gate.record("finish", "nav");
}

#[test]
fn an_unreadable_post_never_says_the_call_was_blocked() {
    let gate = Gate::new("");
    let out = finish(
        gate.spawn_bytes(
            br#"{"hook_event_name": "PostToolUse", "tool_name": "x", "tool_response": [1,"#
                .to_vec(),
        ),
        Duration::from_secs(10),
    );
    let err = stderr(&out);
    assert!(!err.contains("blocked"), "{err}");
    assert!(err.contains("The call itself ran"), "{err}");
}

#[test]
fn a_killed_multi_site_waiter_frees_the_sites_it_held() {
    // example.com free, zz-busy.test in flight for a minute. A click on an
    // unknown tab takes example.com and waits for zz-busy.test; it is killed.
    let gate = Gate::new("interval = \"50ms\"\nin_flight_hold = \"60s\"\nmax_wait = \"60s\"\n");
    assert_pass(&gate.run(&pre_navigate("nav", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("nav")));
    assert_pass(&gate.run(&pre_navigate("busy", "https://zz-busy.test/", 2)));
    let mut waiter = gate.spawn(&pre_click("click", 99));
    thread::sleep(Duration::from_millis(500));
    let state = fs::read_to_string(gate.home().join("sites/example.com/state.json")).unwrap();
    assert!(
        state.contains("lease"),
        "the waiter holds example.com: {state}"
    );
    waiter.kill().unwrap();
    waiter.wait().unwrap();
    let started = Instant::now();
    assert_pass(&finish(
        gate.spawn(&pre_navigate("next", "https://example.com/", 3)),
        Duration::from_secs(30),
    ));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_stopped_head_of_the_queue_loses_its_place_within_seconds() {
    let gate = Gate::new("interval = \"100ms\"\nin_flight_hold = \"1s\"\nmax_wait = \"40s\"\n");
    assert_pass(&gate.run(&pre_navigate("busy", "https://example.com/", 1)));
    // The head of the queue, then stopped (Ctrl-Z on its session).
    let head = gate.spawn(&pre_navigate("head", "https://example.com/", 2));
    thread::sleep(Duration::from_millis(300));
    signal(&head, libc::SIGSTOP);
    let started = Instant::now();
    let next = gate.spawn(&pre_navigate("next", "https://example.com/", 3));
    let out = finish(next, Duration::from_secs(30));
    assert_pass(&out);
    // Not stale_after (15 min): the lease time and the site's own wait.
    assert!(
        started.elapsed() < Duration::from_secs(12),
        "{:?}",
        started.elapsed()
    );
    // Continued, the stopped caller queues again and is paced after it.
    signal(&head, libc::SIGCONT);
    assert_pass(&finish(head, Duration::from_secs(40)));
    let admits = gate.events("admit");
    let (n, h) = (gate.record("admit", "next"), gate.record("admit", "head"));
    assert!(ts(&h) >= ts(&n) + 1_000 + 100, "{admits:#?}");
}

#[test]
fn a_clock_ahead_then_back_costs_at_most_hold_plus_interval() {
    // A finish written by a process whose clock read an hour ahead.
    let gate = Gate::new("interval = \"300ms\"\nin_flight_hold = \"2s\"\n");
    let ahead = |e: &Value| {
        let mut c = gate.command();
        c.env("PACE_HOOK_TEST_CLOCK_OFFSET_MS", "3600000");
        let mut child = c.spawn().unwrap();
        feed(&mut child, e);
        finish(child, Duration::from_secs(10))
    };
    assert_pass(&ahead(&pre_navigate("a", "https://example.com/", 1)));
    assert_pass(&ahead(&post_navigate("a")));
    let started = Instant::now();
    assert_pass(&finish(
        gate.spawn(&pre_navigate("b", "https://example.com/", 1)),
        Duration::from_secs(30),
    ));
    assert!(started.elapsed() < Duration::from_millis(2_300 + 1_000));
}

#[test]
fn a_failure_after_admission_takes_the_hold_back() {
    let gate = Gate::new("interval = \"100ms\"\nin_flight_hold = \"60s\"\n");
    fs::create_dir_all(gate.home().join("tabs.lock")).unwrap();
    let out = gate.run(&pre_navigate("a", "https://example.com/", 1));
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("tabs.lock"), "{}", stderr(&out));
    assert!(stderr(&out).contains("remove"), "{}", stderr(&out));
    // Nothing was sent, and the site is not held for a minute.
    let mut no_tab = pre_navigate("b", "https://example.com/", 1);
    no_tab["tool_input"] = json!({"url": "https://example.com/"});
    let started = Instant::now();
    assert_pass(&finish(gate.spawn(&no_tab), Duration::from_secs(30)));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_post_whose_tab_map_fails_says_the_finish_was_recorded() {
    let gate = Gate::new("interval = \"100ms\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/x", 1)));
    fs::remove_file(gate.home().join("tabs.lock")).unwrap();
    fs::create_dir(gate.home().join("tabs.lock")).unwrap();
    // The result shows the tab somewhere new, so the map must change.
    let mut post = post_navigate("a");
    post["tool_input"] = json!({"url": "https://example.com/x", "tabId": 1});
    post["tool_response"][1]["text"] = json!(
        "\n\nTab Context:\n- Available tabs:\n  \u{2022} tabId 1: \"R\" (\"https://other.org/\")"
    );
    let out = gate.run(&post);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.contains("recorded the end of `navigate` but could not update its tab map"),
        "{err}"
    );
    assert!(!err.contains("held") && !err.contains("blocked"), "{err}");
    gate.record("finish", "a");
}

#[test]
fn tampered_state_fails_closed_names_the_fix_and_heals_where_it_can() {
    let gate = Gate::new("interval = \"10ms\"\nin_flight_hold = \"500ms\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    let site = gate.home().join("sites/example.com");

    // state.json a directory: blocked as lost, set aside, healed busy.
    fs::remove_file(site.join("state.json")).unwrap();
    fs::create_dir(site.join("state.json")).unwrap();
    let out = gate.run(&pre_navigate("b", "https://example.com/", 1));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("unreadable"), "{}", stderr(&out));
    assert!(site.join("state.json").is_file());
    assert_pass(&gate.run(&pre_navigate("c", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("c")));

    // The queue a file: set aside and remade.
    fs::remove_dir_all(site.join("queue")).unwrap();
    fs::write(site.join("queue"), b"x").unwrap();
    assert_pass(&gate.run(&pre_navigate("d", "https://example.com/", 1)));
    assert!(site.join("queue").is_dir());
    assert_pass(&gate.run(&post_navigate("d")));

    // The lock a directory: blocked, saying what to remove.
    fs::remove_file(site.join("lock")).unwrap();
    fs::create_dir(site.join("lock")).unwrap();
    let out = gate.run(&pre_navigate("e", "https://example.com/", 1));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains(&format!("remove `{}`", site.join("lock").display())),
        "{}",
        stderr(&out)
    );
    fs::remove_dir(site.join("lock")).unwrap();

    // An agent's slot a directory: set aside (only that agent writes it).
    let slot = gate.home().join("agents/session-f");
    fs::create_dir_all(&slot).unwrap();
    assert_pass(&gate.run(&pre_navigate("f", "https://example.com/", 1)));
    assert!(slot.is_file());

    // tabs.json a directory: tabs read as unknown, and it is set aside.
    fs::remove_file(gate.home().join("tabs.json")).ok();
    fs::create_dir_all(gate.home().join("tabs.json")).unwrap();
    assert_pass(&gate.run(&post_navigate("f")));
    assert!(gate.home().join("tabs.json").is_file());
}

#[test]
fn links_planted_in_the_state_directory_are_never_followed() {
    use std::os::unix::fs::symlink;
    let gate = Gate::new("interval = \"10ms\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    let target = gate.dir.join("precious");
    fs::write(&target, b"precious").unwrap();
    let home = gate.home();
    // gate.log: the call still passes (the log is best effort), nothing is
    // appended to the target.
    fs::remove_file(home.join("gate.log")).unwrap();
    symlink(&target, home.join("gate.log")).unwrap();
    assert_pass(&gate.run(&pre_navigate("b", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("b")));
    fs::remove_file(home.join("gate.log")).unwrap();
    // An agent's slot: blocked.
    symlink(&target, home.join("agents/session-c")).unwrap();
    let out = gate.run(&pre_navigate("c", "https://example.com/", 1));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    // A call record of a call without a session: blocked.
    let mut no_session = pre_navigate("d", "https://example.com/", 1);
    no_session.as_object_mut().unwrap().remove("session_id");
    fs::create_dir_all(home.join("calls")).unwrap();
    symlink(&target, home.join("calls/%23d.json")).unwrap();
    assert_eq!(code(&gate.run(&no_session)), 2);
    // A site's state: set aside as lost, the link itself, never its target.
    let state = home.join("sites/example.com/state.json");
    fs::remove_file(&state).unwrap();
    symlink(&target, &state).unwrap();
    assert_eq!(
        code(&gate.run(&pre_navigate("e", "https://example.com/", 1))),
        2
    );
    assert!(
        !fs::symlink_metadata(&state)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // A whole directory replaced by a link.
    fs::rename(home.join("sites"), gate.dir.join("sites-real")).unwrap();
    symlink(gate.dir.join("sites-real"), home.join("sites")).unwrap();
    let out = gate.run(&pre_navigate("f", "https://example.com/", 1));
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_eq!(fs::read(&target).unwrap(), b"precious");
}

#[test]
fn a_state_directory_others_can_write_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let gate = Gate::new("");
    fs::create_dir_all(gate.home()).unwrap();
    fs::set_permissions(gate.home(), fs::Permissions::from_mode(0o775)).unwrap();
    let out = gate.run(&pre_navigate("a", "https://example.com/", 1));
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("can be written by its group (mode 775)"),
        "{err}"
    );
    assert!(
        err.contains(&format!("run `chmod go-w {}`", gate.home().display())),
        "{err}"
    );
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        // Root can hand it to someone else: then it is not ours.
        fs::set_permissions(gate.home(), fs::Permissions::from_mode(0o700)).unwrap();
        let c = std::ffi::CString::new(gate.home().to_str().unwrap()).unwrap();
        // SAFETY: a valid path; 65534 is nobody.
        assert_eq!(unsafe { libc::chown(c.as_ptr(), 65534, 65534) }, 0);
        let out = gate.run(&pre_navigate("a", "https://example.com/", 1));
        assert_eq!(code(&out), 2);
        assert!(
            stderr(&out).contains("belongs to user id 65534"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn files_the_gate_makes_are_private() {
    let gate = Gate::new("interval = \"10ms\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    let home = gate.home();
    for file in [
        "gate.log",
        "tabs.json",
        "sites/example.com/state.json",
        "sites/example.com/lock",
        "agents/session-a",
    ] {
        assert_eq!(mode(&home.join(file)), 0o600, "{file}");
    }
    for dir in [
        "",
        "sites",
        "sites/example.com",
        "sites/example.com/queue",
        "agents",
    ] {
        assert_eq!(mode(&home.join(dir)), 0o700, "{dir}");
    }
}

#[test]
fn a_duplicate_hook_is_no_short_gap_in_gaps() {
    let gate = Gate::new("interval = \"100ms\"\nin_flight_hold = \"60s\"\nmax_wait = \"5s\"\n");
    let pre = pre_navigate("nav", "https://example.com/", 1);
    assert_pass(&gate.run(&pre));
    assert_pass(&gate.run(&pre));
    assert_pass(&gate.run(&post_navigate("nav")));
    assert_pass(&gate.run(&pre_navigate("next", "https://example.com/", 1)));
    let out = gate.command().arg("gaps").output().unwrap();
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn a_state_whose_heal_fails_stays_busy_until_the_heal_is_written() {
    let gate = Gate::new("interval = \"10ms\"\nin_flight_hold = \"1s\"\n");
    assert_pass(&gate.run(&pre_navigate("a", "https://example.com/", 1)));
    assert_pass(&gate.run(&post_navigate("a")));
    let site = gate.home().join("sites/example.com");
    fs::write(site.join("state.json"), b"{\"site\": \"exa").unwrap();
    // The heal cannot be written: its copy and its temp file are taken by
    // directories (as a full disk would refuse them).
    let mut cmd = gate.command();
    let mut child = cmd.spawn().unwrap();
    let pid = child.id();
    // The temp name carries the pid, so plant it after the spawn and before
    // the event arrives.
    fs::create_dir(site.join(format!(".state.json.tmp{pid}"))).unwrap();
    feed(&mut child, &pre_navigate("b", "https://example.com/", 1));
    let out = finish(child, Duration::from_secs(10));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    // Still unreadable: the next call is blocked too, never let through.
    assert_eq!(
        fs::read(site.join("state.json")).unwrap(),
        b"{\"site\": \"exa"
    );
    assert_eq!(
        code(&gate.run(&pre_navigate("c", "https://example.com/", 1))),
        2
    );
    // That call healed it: the one after waits out the hold and goes.
    assert_pass(&gate.run(&pre_navigate("d", "https://example.com/", 1)));
}

#[cfg(target_os = "linux")]
#[test]
fn a_hook_started_without_stdout_or_stderr_keeps_its_files_off_their_numbers() {
    use std::os::unix::process::CommandExt;
    let gate = Gate::new("interval = \"3s\"\nin_flight_hold = \"5s\"\nmax_wait = \"20s\"\n");
    let a = pre_navigate("a", "https://example.com/", 1);
    assert_pass(&gate.run(&a));
    assert_pass(&gate.run(&post_of(&a, "PostToolUse")));
    // A client (or a shell) that starts the hook with descriptors 1 and 2
    // closed. The call waits its turn with the gate's files open: any of
    // them given number 1 or 2 would receive what the hook writes to its
    // stdout and stderr.
    let mut cmd = gate.command();
    // SAFETY: `close` is async-signal-safe; nothing else runs in the child.
    unsafe {
        cmd.pre_exec(|| {
            libc::close(1);
            libc::close(2);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    feed(&mut child, &pre_navigate("b", "https://example.com/", 1));
    thread::sleep(Duration::from_millis(1_000));
    let fds = format!("/proc/{}/fd", child.id());
    let open: Vec<_> = fs::read_dir(&fds)
        .unwrap()
        .map(|e| fs::read_link(e.unwrap().path()).unwrap())
        .collect();
    assert!(
        open.iter().any(|p| p.starts_with(gate.home())),
        "the waiting hook holds none of the gate's files: {open:?}"
    );
    for fd in [1, 2] {
        assert_eq!(
            fs::read_link(format!("{fds}/{fd}")).unwrap(),
            Path::new("/dev/null"),
            "descriptor {fd}"
        );
    }
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(gate.events("admit").len(), 2);
}

#[test]
fn a_blocked_call_whose_client_stopped_reading_still_exits_2() {
    let gate = Gate::new("");
    // stderr is a pipe nobody reads any more: writing the reason fails with
    // EPIPE. Killed by SIGPIPE instead, the hook would not exit 2, and a
    // client reads any other end as "run the call".
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = gate.command().stderr(writer).spawn().unwrap();
    feed(&mut child, &two_clicks("a"));
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(2), "{status:?}");
}
