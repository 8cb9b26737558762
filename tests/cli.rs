//! The command line through the built binary: each subcommand's own help,
//! suggestions, completions and the man page (all from clap), and the exit
//! codes of `pace-hook run`, which follow `env` and `timeout`.

mod common;

use common::*;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn run(gate: &Gate, args: &[&str]) -> Output {
    gate.command()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `pace-hook run --site example.com -- COMMAND`.
fn run_cmd(gate: &Gate, command: &[&str]) -> Output {
    let mut args = vec!["run", "--site", "example.com", "--"];
    args.extend_from_slice(command);
    run(gate, &args)
}

#[test]
fn each_subcommand_prints_its_own_help_and_exits_0() {
    let gate = Gate::new("");
    let mut seen = Vec::new();
    for sub in [
        "install",
        "uninstall",
        "gaps",
        "status",
        "doctor",
        "run",
        "backoff",
        "completions",
        "man",
    ] {
        let out = run(&gate, &[sub, "--help"]);
        assert_eq!(code(&out), 0, "{sub}: {}", stderr(&out));
        let help = stdout(&out);
        assert!(
            help.contains(&format!("Usage: pace-hook {sub}")),
            "{sub}: {help}"
        );
        seen.push(help);
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 9, "every page differs");
    let out = run(&gate, &["--version"]);
    assert_eq!(
        stdout(&out),
        format!("pace-hook {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_misspelt_flag_is_a_usage_error_with_a_suggestion() {
    let gate = Gate::new("");
    let out = run(&gate, &["status", "--jsn"]);
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "pace-hook: unexpected argument '--jsn' found\n\n  tip: a similar argument exists: '--json'\n\nUsage: pace-hook status --json\n\nFor more information, try '--help'.\n"
    );
}

#[test]
fn backoff_for_and_clear_conflict() {
    let gate = Gate::new("");
    let out = run(
        &gate,
        &[
            "backoff",
            "--site",
            "example.com",
            "--for",
            "10m",
            "--clear",
        ],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with(
            "pace-hook: the argument '--for <DURATION>' cannot be used with '--clear'\n"
        ),
        "{}",
        stderr(&out)
    );
    assert!(gate.events("backoff").is_empty());
}

#[test]
fn completions_and_the_man_page_are_printed() {
    let gate = Gate::new("");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(&gate, &["completions", shell]);
        assert_eq!(code(&out), 0, "{shell}: {}", stderr(&out));
        assert!(stdout(&out).contains("backoff"), "{shell}");
    }
    // bash reads what it printed.
    let out = run(&gate, &["completions", "bash"]);
    let check = Command::new("bash")
        .args(["-n", "-c", &stdout(&out)])
        .output()
        .unwrap();
    assert_eq!(code(&check), 0, "{}", stderr(&check));
    let out = run(&gate, &["man"]);
    assert_eq!(code(&out), 0);
    let man = stdout(&out);
    assert!(man.contains(".TH pace-hook 1"), "{man}");
    assert!(man.contains(".SH SUBCOMMANDS"), "{man}");
}

#[test]
fn run_exits_127_126_and_125_as_env_does_and_passes_the_commands_2() {
    let gate = Gate::new("interval = \"10ms\"\n");
    let out = run_cmd(&gate, &["no-such-command-here"]);
    assert_eq!(code(&out), 127, "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("pace-hook: could not run `no-such-command-here`: "),
        "{}",
        stderr(&out)
    );
    let plain = gate.dir.join("plain");
    fs::write(&plain, "not a program").unwrap();
    let out = run_cmd(&gate, &[plain.to_str().unwrap()]);
    assert_eq!(code(&out), 126, "{}", stderr(&out));
    let out = run_cmd(&gate, &["sh", "-c", "exit 2"]);
    assert_eq!(code(&out), 2, "the command's own 2");
    assert_eq!(stderr(&out), "");
    // A state directory others can write: pace-hook cannot pace, so the
    // command does not run, and the code says it was pace-hook.
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(gate.home(), fs::Permissions::from_mode(0o777)).unwrap();
    let marker = gate.dir.join("ran");
    let out = run_cmd(&gate, &["touch", marker.to_str().unwrap()]);
    assert_eq!(code(&out), 125, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("can be written by anyone"),
        "{}",
        stderr(&out)
    );
    assert!(!marker.exists());
    fs::set_permissions(gate.home(), fs::Permissions::from_mode(0o700)).unwrap();
}

#[test]
fn run_shows_its_wait_on_a_terminal_and_nothing_when_stderr_is_not_one() {
    let gate = Gate::new("interval = \"1500ms\"\n");
    assert_eq!(code(&run_cmd(&gate, &["true"])), 0);
    // Under `script`, the command's stdin, stdout and stderr are a terminal.
    let out = Command::new("script")
        .args([
            "-qec",
            &format!("{BIN} run --site example.com -- true"),
            "/dev/null",
        ])
        .env("PACE_HOOK_HOME", gate.home())
        .env("PACE_HOOK_CONFIG", gate.dir.join("config.toml"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let shown = stdout(&out);
    assert!(
        shown.contains("\r\x1b[Kpace-hook: waiting for example.com's turn… "),
        "{shown:?}"
    );
    assert!(shown.contains("\r\x1b[Kpace-hook: waited 1."), "{shown:?}");
    // Piped, as in a script's log: the same wait, and nothing on stderr.
    let out = run_cmd(&gate, &["true"]);
    assert_eq!(code(&out), 0);
    assert_eq!(stderr(&out), "");
    let waits: Vec<u64> = gate
        .events("admit")
        .iter()
        .map(|r| r["waited_ms"].as_u64().unwrap())
        .collect();
    assert!(waits[1] >= 1000 && waits[2] >= 1000, "{waits:?}");
}
