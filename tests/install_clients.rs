//! `pace-hook install --client NAME` and `uninstall --client NAME` through
//! the built binary, one temporary home and project per test: each client's
//! file as its client parses it, a second install that changes nothing, an
//! uninstall that gives the file back byte for byte, a hostile file refused
//! with one line; and Claude Code's settings judged as Claude Code judges
//! them (issue 16).

mod common;

use std::{
    os::unix::fs::PermissionsExt,
    sync::atomic::{AtomicU32, Ordering},
};

use common::*;

struct Setup {
    dir: PathBuf,
}

impl Setup {
    fn new() -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "pace-hook-clients-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("home")).unwrap();
        fs::create_dir_all(dir.join("project")).unwrap();
        fs::write(dir.join("config.toml"), "").unwrap();
        Self {
            dir: fs::canonicalize(&dir).unwrap(),
        }
    }

    fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    fn project(&self) -> PathBuf {
        self.dir.join("project")
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .env("HOME", self.home())
            .env("CLAUDE_PROJECT_DIR", self.project())
            .env("PACE_HOOK_CONFIG", self.dir.join("config.toml"))
            .env("PACE_HOOK_HOME", self.dir.join("state"))
            .env("PATH", "/usr/bin:/bin")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A refusal: exit 1, one line on stderr, the file untouched.
    fn refused(&self, args: &[&str], file: &Path) -> String {
        let before = fs::read(file).ok();
        let out = self.run(args);
        assert_eq!(code(&out), 1, "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert_eq!(fs::read(file).ok(), before, "{args:?} touched the file");
        err
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn exe() -> String {
    fs::canonicalize(BIN).unwrap().display().to_string()
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Install into `original` (`None`: no file), check the result with
/// `check`, install again (nothing changes), uninstall (the original back;
/// from no file, `{}` as Claude Code's settings have always been left, and
/// no file at all for the file pace-hook names after itself).
fn round_trip(
    s: &Setup,
    client: &str,
    scope: &[&str],
    file: &Path,
    original: Option<&str>,
    check: impl Fn(&str),
) {
    if let Some(text) = original {
        write(file, text);
    }
    let mut args = vec!["install", "--client", client];
    args.extend(scope);
    let out = s.ok(&args);
    assert!(out.starts_with("installed pace-hook in "), "{out}");
    let installed = fs::read_to_string(file).unwrap();
    check(&installed);
    let again = s.ok(&args);
    assert!(
        again.starts_with("pace-hook is already installed"),
        "{again}"
    );
    assert_eq!(fs::read_to_string(file).unwrap(), installed);
    args[0] = "uninstall";
    let out = s.ok(&args);
    assert!(out.starts_with("removed pace-hook from "), "{out}");
    match original {
        Some(text) => assert_eq!(fs::read_to_string(file).unwrap(), text),
        None if file.file_name().unwrap() == "pace-hook.json" => {
            assert!(!file.exists(), "{}", fs::read_to_string(file).unwrap())
        }
        None => assert_eq!(fs::read_to_string(file).unwrap(), "{}\n"),
    }
}

#[test]
fn codex_hooks_json_in_the_project_and_the_user_scope() {
    let s = Setup::new();
    let command = format!("{} --client codex --timeout 300", exe());
    let check = |text: &str| {
        let v: Value = serde_json::from_str(text).unwrap();
        // Codex's `HooksFile`: nothing beside `hooks`.
        assert_eq!(v.as_object().unwrap().len(), 1, "{text}");
        for event in ["PreToolUse", "PostToolUse"] {
            let ours: Vec<&Value> = v["hooks"][event]
                .as_array()
                .unwrap()
                .iter()
                .filter(|g| g["hooks"][0]["command"] == command)
                .collect();
            assert_eq!(
                ours,
                [&json!({"matcher": "mcp__.*|WebFetch|WebSearch|^Bash$",
                    "hooks": [{"type": "command", "command": command, "timeout": 300}]})],
                "{event}: {text}"
            );
        }
        assert!(v["hooks"]["PostToolUseFailure"].is_null(), "{text}");
    };
    let other = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"^Bash$\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]}\n    ]\n  }\n}\n";
    round_trip(
        &s,
        "codex",
        &[],
        &s.project().join(".codex/hooks.json"),
        Some(other),
        check,
    );
    round_trip(
        &s,
        "codex",
        &["--user"],
        &s.home().join(".codex/hooks.json"),
        None,
        check,
    );
}

#[test]
fn codex_install_says_what_trust_it_needs() {
    let s = Setup::new();
    let out = s.ok(&["install", "--client", "codex", "--timeout", "60"]);
    assert!(
        out.contains(&format!(
            "  it runs `{} --client codex --timeout 60` for tools matching `mcp__.*|WebFetch|WebSearch|^Bash$`, with a timeout of 60 s: a call waits at most 45 s for its turn (max_wait is 270 s), then is refused with when to retry\n",
            exe()
        )),
        "{out}"
    );
    assert!(
        out.contains("Codex runs a hook only once you trust it"),
        "{out}"
    );
    assert!(out.contains("the project itself is trusted"), "{out}");
}

#[test]
fn codex_refuses_a_file_it_would_not_read() {
    let s = Setup::new();
    let file = s.project().join(".codex/hooks.json");
    write(&file, "{\"hooks\": {}, \"notify\": [\"say\"]}\n");
    let err = s.refused(&["install", "--client", "codex"], &file);
    assert!(
        err.contains("has `notify` beside `hooks`, and Codex CLI reads no hook file"),
        "{err}"
    );
    write(&file, "{\"hooks\": {\"PreToolUse\": \"\\ud800\"}}\n");
    let err = s.refused(&["install", "--client", "codex"], &file);
    assert!(err.contains("is not valid JSON"), "{err}");
    // Another hook's fractional timeout: Codex's `u64` refuses the file.
    write(
        &file,
        "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say\", \"timeout\": 1.5}]}]}}\n",
    );
    let err = s.refused(&["install", "--client", "codex"], &file);
    assert!(
        err.contains("is not a hooks file Codex CLI can read (invalid type: floating point `1.5`"),
        "{err}"
    );
}

#[test]
fn gemini_settings_keep_comments_and_count_milliseconds() {
    let s = Setup::new();
    let original = "{\n  // picked by hand\n  \"model\": {\"name\": \"gemini-2.5-pro\"},\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\"matcher\": \"write_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint\", \"timeout\": 5000}]}\n    ]\n  }\n}\n";
    let command = format!("{} --client gemini --timeout 300", exe());
    round_trip(
        &s,
        "gemini",
        &[],
        &s.project().join(".gemini/settings.json"),
        Some(original),
        |text| {
            assert!(text.contains("// picked by hand"), "{text}");
            let body: String = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            let v: Value = serde_json::from_str(&body).unwrap();
            for event in ["BeforeTool", "AfterTool"] {
                let ours: Vec<&Value> = v["hooks"][event]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|g| g["hooks"][0]["command"] == command)
                    .collect();
                assert_eq!(ours.len(), 1, "{event}: {text}");
                assert_eq!(ours[0]["hooks"][0]["timeout"], 300_000);
                let matcher = ours[0]["matcher"].as_str().unwrap();
                let re = regex_lite::Regex::new(matcher).unwrap();
                for tool in [
                    "web_fetch",
                    "run_shell_command",
                    "mcp_playwright_browser_click",
                ] {
                    assert!(re.is_match(tool), "{matcher} misses {tool}");
                }
            }
        },
    );
    round_trip(
        &s,
        "gemini",
        &["--user"],
        &s.home().join(".gemini/settings.json"),
        None,
        |_| {},
    );
}

#[test]
fn gemini_refuses_a_trailing_comma_it_would_not_read() {
    let s = Setup::new();
    let file = s.project().join(".gemini/settings.json");
    write(&file, "{\"model\": {},}\n");
    let err = s.refused(&["install", "--client", "gemini"], &file);
    assert!(err.contains("is not valid JSON"), "{err}");
}

#[test]
fn copilot_and_vscode_share_one_file_and_one_command() {
    let s = Setup::new();
    let file = s.project().join(".github/hooks/pace-hook.json");
    let command = format!("{} --client copilot --timeout 300", exe());
    let check = |text: &str| {
        let v: Value = serde_json::from_str(text).unwrap();
        assert_eq!(v["version"], 1);
        for event in ["preToolUse", "postToolUse", "postToolUseFailure"] {
            assert_eq!(
                v["hooks"][event],
                json!([{"type": "command", "bash": command, "timeoutSec": 300}]),
                "{text}"
            );
        }
    };
    round_trip(&s, "copilot", &[], &file, None, check);
    round_trip(&s, "vscode", &[], &file, None, check);
    // One installs, the other finds it done.
    s.ok(&["install", "--client", "vscode"]);
    let out = s.ok(&["install", "--client", "copilot"]);
    assert!(out.starts_with("pace-hook is already installed"), "{out}");
    round_trip(
        &s,
        "vscode",
        &["--user"],
        &s.home().join(".copilot/hooks/pace-hook.json"),
        None,
        check,
    );
}

#[test]
fn a_vscode_event_through_the_shared_command_is_refused_in_both_forms() {
    // VS Code sends its own (Claude Code's) shape to the file Copilot CLI
    // reads too: a refusal must deny in VS Code's `hookSpecificOutput` and
    // in Copilot CLI's top-level field, with exit 0.
    let s = Setup::new();
    let event = json!({
        "hook_event_name": "PreToolUse", "session_id": "v", "timestamp": "2026-01-01T00:00:00Z",
        "cwd": "/w", "tool_name": "fetch_webpage",
        "tool_input": {"urls": ["https://a.example/1", "https://a.example/2"], "query": "x"}
    });
    let mut child = Command::new(BIN)
        .args(["--client", "copilot", "--timeout", "30"])
        .env("HOME", s.home())
        .env("PACE_HOOK_CONFIG", s.dir.join("config.toml"))
        .env("PACE_HOOK_HOME", s.dir.join("state"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["permissionDecision"], "deny", "{answer}");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(
        answer["permissionDecisionReason"],
        answer["hookSpecificOutput"]["permissionDecisionReason"]
    );
}

#[test]
fn copilot_refuses_another_version() {
    let s = Setup::new();
    let file = s.project().join(".github/hooks/pace-hook.json");
    write(&file, "{\"version\": 2, \"hooks\": {}}\n");
    let err = s.refused(&["install", "--client", "copilot"], &file);
    assert!(
        err.contains("has `version` 2, where Copilot CLI reads version 1"),
        "{err}"
    );
}

#[test]
fn cline_gets_two_executables_and_keeps_anothers() {
    let s = Setup::new();
    let dir = s.project().join(".clinerules/hooks");
    let out = s.ok(&["install", "--client", "cline"]);
    assert!(out.contains("PreToolUse added, PostToolUse added"), "{out}");
    for event in ["PreToolUse", "PostToolUse"] {
        let path = dir.join(event);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("#!/bin/sh\n"), "{text}");
        assert!(
            text.ends_with(&format!("\nexec {} --client cline\n", exe())),
            "{text}"
        );
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755, "{event}");
        // What Cline runs: the script, handed an unreadable event, answers
        // as pace-hook answers Cline (JSON on stdout, exit 0).
        let run = Command::new(&path)
            .env("PACE_HOOK_HOME", s.dir.join("state"))
            .env("PACE_HOOK_CONFIG", s.dir.join("config.toml"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let answer: Value = serde_json::from_slice(&run.stdout).unwrap_or(Value::Null);
        assert!(answer.get("cancel").is_some(), "{event}: {}", stderr(&run));
    }
    let again = s.ok(&["install", "--client", "cline"]);
    assert!(
        again.starts_with("pace-hook is already installed"),
        "{again}"
    );
    let out = s.ok(&["uninstall", "--client", "cline"]);
    assert!(
        out.contains("PreToolUse removed, PostToolUse removed"),
        "{out}"
    );
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);

    // Another program's hook: refused in one line, left as it is, and
    // uninstall leaves it too.
    write(&dir.join("PreToolUse"), "#!/bin/sh\necho '{}'\n");
    let err = s.refused(&["install", "--client", "cline"], &dir.join("PreToolUse"));
    assert!(err.contains("is another program's Cline hook"), "{err}");
    assert!(!dir.join("PostToolUse").exists());
    let out = s.ok(&["uninstall", "--client", "cline"]);
    assert!(out.contains("is not the script install writes"), "{out}");
    assert!(dir.join("PreToolUse").exists());
}

#[test]
fn a_client_without_the_scope_is_a_usage_error() {
    let s = Setup::new();
    let out = s.run(&["install", "--client", "codex", "--local"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("Codex CLI has no local hook file"));
}

#[test]
fn a_timeout_that_leaves_no_wait_is_refused() {
    let s = Setup::new();
    let out = s.run(&["install", "--client", "gemini", "--timeout", "15"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("leaves no time to wait"),
        "{}",
        stderr(&out)
    );
    assert!(!s.project().join(".gemini").exists());
}

// Claude Code's settings, judged as its parser judges them (issue 16).

#[test]
fn a_bom_is_kept_for_claude_code_and_refused_for_gemini_cli() {
    // Claude Code 2.1.332 reads a user settings file that starts with a
    // BOM (it strips it); Gemini CLI's `JSON.parse(stripJsonComments(…))`
    // throws on one and reads no setting at all.
    let s = Setup::new();
    let file = s.home().join(".claude/settings.json");
    let original = "\u{feff}{\"model\": \"opus\"}\n";
    write(&file, original);
    s.ok(&["install", "--user"]);
    assert!(
        fs::read_to_string(&file)
            .unwrap()
            .starts_with("\u{feff}{\"model\": \"opus\",")
    );
    s.ok(&["uninstall", "--user"]);
    assert_eq!(fs::read_to_string(&file).unwrap(), original);
    let gemini = s.home().join(".gemini/settings.json");
    write(&gemini, "\u{feff}{}\n");
    let err = s.refused(&["install", "--client", "gemini", "--user"], &gemini);
    assert!(
        err.contains("starts with a byte-order mark (U+FEFF), which Gemini CLI's JSON parser rejects: it reads none of the file"),
        "{err}"
    );
}

#[test]
fn disable_all_hooks_is_warned_about() {
    let s = Setup::new();
    write(
        &s.home().join(".claude/settings.json"),
        "{\"disableAllHooks\": true}\n",
    );
    let out = s.ok(&["install"]);
    assert!(
        out.contains(&format!(
            "  warning: `disableAllHooks` is true in `{}`: Claude Code runs no hook, pace-hook included, so nothing is paced; remove it\n",
            s.home().join(".claude/settings.json").display()
        )),
        "{out}"
    );
}

#[test]
fn a_lone_surrogate_in_claude_settings_is_not_refused() {
    let s = Setup::new();
    let file = s.project().join(".claude/settings.json");
    let original = "{\"model\":\"\\ud800\"}";
    write(&file, original);
    s.ok(&["install"]);
    assert!(
        fs::read_to_string(&file)
            .unwrap()
            .starts_with("{\"model\":\"\\ud800\",")
    );
    s.ok(&["uninstall"]);
    assert_eq!(fs::read_to_string(&file).unwrap(), original);
}

// `doctor`, agent by agent.

fn doctor(s: &Setup) -> String {
    let out = s.run(&["doctor"]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"))
}

#[test]
fn doctor_says_no_other_agent_is_here() {
    let s = Setup::new();
    let out = doctor(&s);
    assert!(
        out.contains(
            "✓ other agents not found here: Codex CLI, Gemini CLI, Copilot CLI / VS Code, Cline\n"
        ),
        "{out}"
    );
}

#[test]
fn doctor_flags_an_agent_it_finds_unhooked() {
    let s = Setup::new();
    fs::create_dir_all(s.home().join(".codex")).unwrap();
    let out = doctor(&s);
    assert_eq!(
        line_with(&out, "Codex CLI"),
        format!(
            "✗ Codex CLI (found: `{}`): no hook runs pace-hook, so its calls reach every site unpaced; run `pace-hook install --client codex` (or with --user)",
            s.home().join(".codex").display()
        )
    );
    assert!(
        out.contains("other agents not found here: Gemini CLI, Copilot CLI / VS Code, Cline"),
        "{out}"
    );
}

#[test]
fn doctor_reads_codex_trust_as_codex_keys_it() {
    let s = Setup::new();
    s.ok(&["install", "--client", "codex", "--user"]);
    let file = s.home().join(".codex/hooks.json");
    let out = doctor(&s);
    assert_eq!(
        line_with(&out, "(user): pace-hook on"),
        format!(
            "✓ `{}` (user): pace-hook on PreToolUse, PostToolUse; timeout 5 min, a call waits at most 4 min 30 s (max_wait 4 min 30 s)",
            file.display()
        )
    );
    assert!(
        line_with(&out, "are not trusted").starts_with(&format!(
            "✗ Codex: pace-hook's PreToolUse and PostToolUse hook(s) in `{}` are not trusted",
            file.display()
        )),
        "{out}"
    );
    // The keys Codex 0.171.0's `hooks/list` gives these two hooks.
    fs::write(
        s.home().join(".codex/config.toml"),
        format!(
            "[hooks.state.\"{0}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:x\"\n[hooks.state.\"{0}:post_tool_use:0:0\"]\ntrusted_hash = \"sha256:y\"\n",
            file.display()
        ),
    )
    .unwrap();
    let out = doctor(&s);
    assert!(
        line_with(&out, "Codex: pace-hook's hooks in").starts_with("✓ "),
        "{out}"
    );
}

#[test]
fn doctor_flags_a_timeout_shorter_than_the_wait_the_command_allows() {
    let s = Setup::new();
    s.ok(&["install", "--client", "gemini"]);
    let file = s.project().join(".gemini/settings.json");
    let text = fs::read_to_string(&file)
        .unwrap()
        .replace("300000", "60000");
    fs::write(&file, text).unwrap();
    let out = doctor(&s);
    assert_eq!(
        line_with(&out, "BeforeTool in"),
        format!(
            "✗ BeforeTool in `{}`: timeout 1 min is shorter than the wait the command allows (4 min 30 s) plus 15 s of slack: the agent kills a hook still waiting and runs the call unpaced; run `pace-hook install --client gemini` (it writes the timeout and `--timeout` together)",
            file.display()
        )
    );
    assert!(
        line_with(&out, "trustedFolders.json").starts_with("✗ Gemini CLI: "),
        "{out}"
    );
}

#[test]
fn doctor_flags_a_matcher_that_leaves_the_shell_out_and_a_missing_pre() {
    let s = Setup::new();
    s.ok(&["install", "--client", "codex"]);
    let file = s.project().join(".codex/hooks.json");
    let v: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    let mut post = v["hooks"]["PostToolUse"].clone();
    post[0]["matcher"] = json!("mcp__.*");
    fs::write(&file, json!({"hooks": {"PostToolUse": post}}).to_string()).unwrap();
    let out = doctor(&s);
    assert!(
        line_with(&out, "(project): pace-hook on").starts_with(&format!(
            "✗ `{}` (project): pace-hook on PostToolUse, not on PreToolUse: a call that misses it passes unpaced",
            file.display()
        )),
        "{out}"
    );
    assert_eq!(
        line_with(&out, "leaves out"),
        format!(
            "✗ PostToolUse in `{}`: matcher `mcp__.*` leaves out its shell, which then pass unpaced; run `pace-hook install --client codex`",
            file.display()
        )
    );
    // Pre is missing: the agent counts as not hooked.
    assert!(
        line_with(&out, "Codex CLI (found").contains("no hook runs pace-hook"),
        "{out}"
    );
}

#[test]
fn doctor_reads_a_claude_settings_file_as_claude_code_does() {
    let s = Setup::new();
    let file = s.project().join(".claude/settings.json");
    for text in ["\u{feff}{}\n", "{\"model\": \"\\ud800\"}\n"] {
        write(&file, text);
        let out = doctor(&s);
        assert!(
            line_with(&out, "settings: read").contains(&file.display().to_string()),
            "{text:?}: {out}"
        );
    }
}

#[test]
fn doctor_says_a_gemini_file_with_a_bom_is_not_read() {
    let s = Setup::new();
    s.ok(&["install", "--client", "gemini"]);
    let file = s.project().join(".gemini/settings.json");
    let text = fs::read_to_string(&file).unwrap();
    fs::write(&file, format!("\u{feff}{text}")).unwrap();
    let out = doctor(&s);
    assert_eq!(
        line_with(&out, "byte-order mark"),
        format!(
            "✗ `{}` starts with a byte-order mark (U+FEFF), which Gemini CLI's JSON parser rejects: it reads none of the file; save it as UTF-8 without a BOM",
            file.display()
        )
    );
}

#[test]
fn both_scopes_of_one_agent_are_warned_about_and_flagged() {
    let s = Setup::new();
    s.ok(&["install", "--client", "gemini", "--user"]);
    let out = s.ok(&["install", "--client", "gemini"]);
    assert!(
        out.contains(&format!(
            "  warning: `{}` runs pace-hook too, and Gemini CLI runs both, so pace-hook would run twice on every call: keep one (`pace-hook uninstall --client gemini --user` removes that one)\n",
            s.home().join(".gemini/settings.json").display()
        )),
        "{out}"
    );
    let doc = doctor(&s);
    assert!(
        line_with(&doc, "runs twice")
            .starts_with("✗ Gemini CLI: pace-hook runs twice on each call"),
        "{doc}"
    );
}

#[test]
fn gemini_hooks_turned_off_are_warned_about_and_flagged() {
    let s = Setup::new();
    let user = s.home().join(".gemini/settings.json");
    write(&user, "{\n  \"hooksConfig\": {\"enabled\": false}\n}\n");
    let out = s.ok(&["install", "--client", "gemini"]);
    assert!(
        out.contains(&format!(
            "  warning: `hooksConfig.enabled` is false in `{}`: Gemini CLI runs no hook, pace-hook included, so nothing is paced; remove it\n",
            user.display()
        )),
        "{out}"
    );
    let doc = doctor(&s);
    assert_eq!(
        line_with(&doc, "hooksConfig.enabled"),
        format!(
            "✗ Gemini CLI: `hooksConfig.enabled` is false in `{}`: it runs no hook, pace-hook included; remove it",
            user.display()
        )
    );
}

#[test]
fn doctor_asks_codex_itself_when_it_is_on_path() {
    // A `codex` that answers `app-server`'s `hooks/list` as Codex 0.171.0
    // answered for these very files (captured: a hook trusted before its
    // timeout changed is `modified`, one never trusted is `untrusted`).
    let s = Setup::new();
    s.ok(&["install", "--client", "codex", "--user", "--timeout", "200"]);
    let captured = include_str!("fixtures/clients/codex-0.171.0-hooks-list.json")
        .replace("<HOME>", &s.home().display().to_string())
        .replace("<PROJECT>", &s.project().display().to_string())
        .replace("<EXE>", &exe());
    let bin = s.dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    fs::write(s.dir.join("answer.json"), captured).unwrap();
    write(
        &bin.join("codex"),
        &format!(
            "#!/bin/sh\n[ \"$1\" = app-server ] || exit 2\nread a; read b; read c\ncat '{}'\n",
            s.dir.join("answer.json").display()
        ),
    );
    fs::set_permissions(bin.join("codex"), fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(BIN)
        .arg("doctor")
        .env("HOME", s.home())
        .env("CLAUDE_PROJECT_DIR", s.project())
        .env("PACE_HOOK_CONFIG", s.dir.join("config.toml"))
        .env("PACE_HOOK_HOME", s.dir.join("state"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env_remove("CODEX_HOME")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        line_with(&out, "asked"),
        format!(
            "✗ Codex (`{}`, asked): in `{}`, PreToolUse is modified (changed since it was trusted); PostToolUse is untrusted; Codex runs such a hook not at all (`codex exec` says nothing): start `codex` here and choose \"Trust all and continue\", or trust them in `/hooks`",
            bin.join("codex").display(),
            s.home().join(".codex/hooks.json").display()
        )
    );
    assert!(out.contains("`codex` on PATH"), "{out}");
}

#[test]
fn gemini_hooks_config_disabling_pace_hook_is_warned_about() {
    let s = Setup::new();
    let command = format!("{} --client gemini --timeout 300", exe());
    let user = s.home().join(".gemini/settings.json");
    write(
        &user,
        &format!(
            "{{\"hooksConfig\": {{\"disabled\": [{}]}}}}\n",
            serde_json::to_string(&command).unwrap()
        ),
    );
    let out = s.ok(&["install", "--client", "gemini"]);
    assert!(
        out.contains(&format!(
            "  warning: `hooksConfig.disabled` in `{}` lists `{command}`, so Gemini CLI does not run it; take it out\n",
            user.display()
        )),
        "{out}"
    );
    let doc = doctor(&s);
    assert!(
        line_with(&doc, "hooksConfig.disabled").starts_with("✗ Gemini CLI: "),
        "{doc}"
    );
}
