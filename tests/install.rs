//! `pace-hook install` and `uninstall` through the built binary, on settings
//! files laid out the ways hand-kept files are, in a temporary home and
//! project per test; and the plugin's launcher, run by a real `sh`.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::*;

/// A home, a project and a config of their own.
struct Setup {
    dir: PathBuf,
}

impl Setup {
    fn new(config: &str) -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "pace-hook-install-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("home")).unwrap();
        fs::create_dir_all(dir.join("project")).unwrap();
        fs::write(dir.join("config.toml"), config).unwrap();
        // Canonical, as the binary reports the paths it writes.
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

    fn settings(&self) -> PathBuf {
        self.project().join(".claude").join("settings.json")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env("HOME", self.home())
            .env("CLAUDE_PROJECT_DIR", self.project())
            .env("PACE_HOOK_CONFIG", self.dir.join("config.toml"))
            .env("PACE_HOOK_HOME", self.dir.join("state"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// How the output names the default max_wait, read from this config.
    fn max_wait_from(&self) -> String {
        format!("270 s, from `{}`", self.dir.join("config.toml").display())
    }

    /// The backups of the project's settings: files whose names start
    /// with `settings.json.bak-`, in the home's settings backups.
    fn backups(&self) -> Vec<PathBuf> {
        backups_of(&self.home(), &self.settings())
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// The backups of `settings` that install and uninstall made under `home`:
/// in `~/.local/state/pace-hook/settings-backups/`, at the file's own path.
fn backups_of(home: &Path, settings: &Path) -> Vec<PathBuf> {
    let name = settings.file_name().unwrap().to_string_lossy().into_owned();
    let dir = home
        .join(".local/state/pace-hook/settings-backups")
        .join(settings.parent().unwrap().strip_prefix("/").unwrap());
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| {
                    p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with(&format!("{name}.bak-"))
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn exe() -> String {
    fs::canonicalize(BIN).unwrap().display().to_string()
}

/// What install and uninstall print after their first line, for a binary
/// in cargo's target directory.
fn runs_line(max_wait: &str) -> String {
    format!(
        "  it runs `{exe}` for tools matching `mcp__.*|WebFetch|WebSearch|^Bash$`, with a timeout of 300 s (max_wait is {max_wait})\n  note: `{exe}` is a cargo build output, which `cargo clean` deletes; a hook whose program is gone lets every call through. Install it with `cargo install --locked --path .` and run that `pace-hook install`\n",
        exe = exe()
    )
}

/// Settings files as people keep them: every one must come back byte for
/// byte after install and uninstall.
const ODD_FILES: &[(&str, &str)] = &[
    ("empty object", "{}\n"),
    ("no trailing newline", "{\n  \"model\": \"opus\"\n}"),
    (
        "tabs",
        "{\n\t\"model\": \"opus\",\n\t\"env\": {\n\t\t\"A\": \"1\"\n\t}\n}\n",
    ),
    (
        "crlf",
        "{\r\n    \"model\": \"opus\",\r\n    \"permissions\": {\r\n        \"allow\": [\"Bash(ls)\"]\r\n    }\r\n}\r\n",
    ),
    (
        "compact",
        r#"{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}"#,
    ),
    (
        "other hooks in the same events",
        r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "audit-bash", "timeout": 5 }]
      }
    ],
    "PostToolUse": [ { "matcher": "Edit|Write", "hooks": [ { "type": "command", "command": "fmt" } ] } ],
    "Notification": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]
  },
  "statusLine": { "type": "command", "command": "~/bin/status" }
}
"#,
    ),
    // Claude Code's parser reads a lone surrogate escape; serde_json does
    // not (issue 16): the file is edited around it.
    ("a lone surrogate", "{\n  \"model\": \"\\ud800\"\n}\n"),
    // Claude Code strips a leading BOM and reads the file: it stays.
    ("byte order mark", "\u{feff}{\n  \"model\": \"opus\"\n}\n"),
];

#[test]
fn install_then_uninstall_gives_back_each_file_byte_for_byte() {
    for (what, original) in ODD_FILES {
        let s = Setup::new("");
        fs::create_dir_all(s.settings().parent().unwrap()).unwrap();
        fs::write(s.settings(), original).unwrap();

        let out = s.run(&["install"]);
        assert_eq!(code(&out), 0, "{what}: {}", stderr(&out));
        let installed = fs::read_to_string(s.settings()).unwrap();
        let readable = installed
            .trim_start_matches('\u{feff}')
            .replace("\\ud800", "\\ufffd");
        let value: Value =
            serde_json::from_str(&readable).unwrap_or_else(|e| panic!("{what}: {e}\n{installed}"));
        for event in ["PreToolUse", "PostToolUse", "PostToolUseFailure"] {
            let ours: Vec<&Value> = value["hooks"][event]
                .as_array()
                .unwrap()
                .iter()
                .filter(|g| g["hooks"][0]["command"] == exe())
                .collect();
            assert_eq!(
                ours,
                [&json!({
                    "matcher": "mcp__.*|WebFetch|WebSearch|^Bash$",
                    "hooks": [{"type": "command", "command": exe(), "timeout": 300}]
                })],
                "{what}: {event}"
            );
        }
        // The backup holds the file as it was.
        let backups = s.backups();
        assert_eq!(backups.len(), 1, "{what}");
        assert_eq!(
            fs::read_to_string(&backups[0]).unwrap(),
            *original,
            "{what}"
        );

        let out = s.run(&["uninstall"]);
        assert_eq!(code(&out), 0, "{what}: {}", stderr(&out));
        assert_eq!(
            fs::read_to_string(s.settings()).unwrap(),
            *original,
            "{what}: after install it was\n{installed}"
        );
        assert_eq!(s.backups().len(), 2, "{what}");
    }
}

#[test]
fn install_says_what_it_did_and_where_the_backup_is() {
    let s = Setup::new("");
    fs::create_dir_all(s.settings().parent().unwrap()).unwrap();
    fs::write(s.settings(), "{}\n").unwrap();
    let out = s.run(&["install"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let backup = &s.backups()[0];
    assert_eq!(
        stdout(&out),
        format!(
            "installed pace-hook in `{}` (the project's settings): PreToolUse added, PostToolUse added, PostToolUseFailure added\n  the file as it was is saved in `{}`\n{}",
            s.settings().display(),
            backup.display(),
            runs_line(&s.max_wait_from())
        )
    );
    let out = s.run(&["uninstall"]);
    assert_eq!(
        stdout(&out),
        format!(
            "removed pace-hook from `{}` (the project's settings): PreToolUse removed, PostToolUse removed, PostToolUseFailure removed\n  the file as it was is saved in `{}`\n",
            s.settings().display(),
            s.backups()[1].display()
        )
    );
}

#[test]
fn install_and_uninstall_leave_no_backup_in_the_project() {
    // A project kept in git: the settings file is tracked, and nothing
    // install or uninstall leaves may show up as untracked.
    let s = Setup::new("");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-C"])
            .arg(s.project())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    git(&["init", "-q"]);
    fs::create_dir_all(s.settings().parent().unwrap()).unwrap();
    fs::write(s.settings(), "{\n  \"model\": \"opus\"\n}\n").unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "settings"]);
    assert_eq!(code(&s.run(&["install"])), 0);
    assert_eq!(
        git(&["status", "--porcelain"]),
        " M .claude/settings.json\n"
    );
    assert_eq!(code(&s.run(&["uninstall"])), 0);
    assert_eq!(git(&["status", "--porcelain"]), "");
    // The copies are kept, out of the project, 0600 in a 0700 directory.
    let backups = s.backups();
    assert_eq!(backups.len(), 2);
    assert_eq!(
        fs::read_to_string(&backups[0]).unwrap(),
        "{\n  \"model\": \"opus\"\n}\n"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&backups[0]), 0o600);
    assert_eq!(mode(backups[0].parent().unwrap()), 0o700);
}

#[test]
fn installing_twice_changes_nothing_the_second_time() {
    let s = Setup::new("");
    assert_eq!(code(&s.run(&["install"])), 0);
    let first = fs::read(s.settings()).unwrap();
    let out = s.run(&["install"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "pace-hook is already installed in `{}` (the project's settings); nothing changed\n{}",
            s.settings().display(),
            runs_line(&s.max_wait_from())
        )
    );
    assert_eq!(fs::read(s.settings()).unwrap(), first);
    assert!(s.backups().is_empty(), "no change, no backup");
}

#[test]
fn a_missing_file_and_its_directory_are_created() {
    let s = Setup::new("");
    let out = s.run(&["install"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\n  the file did not exist and was created\n"),
        "{}",
        stdout(&out)
    );
    assert!(s.backups().is_empty());
    let out = s.run(&["uninstall"]);
    assert_eq!(code(&out), 0);
    assert_eq!(fs::read_to_string(s.settings()).unwrap(), "{}\n");
}

#[test]
fn a_timeout_at_or_under_max_wait_and_its_margin_is_refused() {
    let s = Setup::new("max_wait = \"100s\"\n");
    let config = s.dir.join("config.toml");
    for timeout in ["100", "114"] {
        let out = s.run(&["install", "--timeout", timeout]);
        assert_eq!(code(&out), 2, "{timeout}");
        assert_eq!(
            stderr(&out),
            format!(
                "pace-hook: `--timeout {timeout}` is too short: a call may wait up to max_wait (100 s, from `{}`) and Claude Code lets a call through when its hook times out; use `--timeout 115` or more, or lower max_wait\n",
                config.display()
            )
        );
        assert!(!s.settings().exists(), "nothing written");
    }
    let out = s.run(&["install", "--timeout", "115"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let value: Value = serde_json::from_slice(&fs::read(s.settings()).unwrap()).unwrap();
    assert_eq!(value["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 115);
}

#[test]
fn the_default_timeout_is_refused_under_a_longer_max_wait() {
    let s = Setup::new("max_wait = \"5m\"\n");
    let out = s.run(&["install"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with(
            "pace-hook: the default timeout (300 s) is too short: a call may wait up to max_wait (300 s, from `"
        ),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).ends_with("use `--timeout 315` or more, or lower max_wait\n"));
}

#[test]
fn invalid_json_is_refused_and_left_untouched() {
    let cases = [
        (
            "{\n  \"model\": \"opus\",\n}\n",
            "is not valid JSON (trailing comma at line 3 column 1); fix it (Claude Code ignores a settings file it cannot read), then run `pace-hook install` again",
        ),
        (
            "{\n  // mine\n  \"model\": \"opus\"\n}\n",
            "has a comment at line 2, column 3; remove the comments: Claude Code reads settings as plain JSON and ignores a file that has any, then run `pace-hook install` again",
        ),
        (
            "{\"hooks\": []}",
            "has an array at `hooks` where Claude Code expects an object of hook events (`{\"PreToolUse\": [...]}`); correct `hooks`, then run `pace-hook install` again",
        ),
        (
            "{\"hooks\": {\"PostToolUseFailure\": \"pace-hook\"}}",
            "has a string at `hooks.PostToolUseFailure` where Claude Code expects an array of matcher groups (`[{\"matcher\": …, \"hooks\": [...]}]`); correct `hooks.PostToolUseFailure`, then run `pace-hook install` again",
        ),
    ];
    for (text, message) in cases {
        let s = Setup::new("");
        fs::create_dir_all(s.settings().parent().unwrap()).unwrap();
        fs::write(s.settings(), text).unwrap();
        let out = s.run(&["install"]);
        assert_eq!(code(&out), 1, "{text}");
        assert_eq!(
            stderr(&out),
            format!(
                "pace-hook: `{}` {message}. The file was left as it was\n",
                s.settings().display()
            )
        );
        assert_eq!(stdout(&out), "");
        assert_eq!(fs::read_to_string(s.settings()).unwrap(), text);
        assert!(s.backups().is_empty());
        // Uninstall refuses the same way.
        let out = s.run(&["uninstall"]);
        assert_eq!(code(&out), 1, "{text}");
        assert_eq!(fs::read_to_string(s.settings()).unwrap(), text);
    }
}

#[test]
fn user_scope_writes_under_home() {
    let s = Setup::new("");
    let user = s.home().join(".claude").join("settings.json");
    let out = s.run(&["install", "--user"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(&format!(
            "installed pace-hook in `{}` (your user settings): ",
            user.display()
        )),
        "{}",
        stdout(&out)
    );
    assert!(user.exists());
    assert!(
        !s.project().join(".claude").exists(),
        "the project is not touched"
    );
    fs::write(&user, "{\n  \"model\": \"opus\"\n}\n").unwrap();
    assert_eq!(code(&s.run(&["install", "--user"])), 0);
    assert_eq!(code(&s.run(&["uninstall", "--user"])), 0);
    assert_eq!(
        fs::read_to_string(&user).unwrap(),
        "{\n  \"model\": \"opus\"\n}\n"
    );
    assert_eq!(backups_of(&s.home(), &user).len(), 2);
}

#[test]
fn local_scope_and_the_current_directory_as_the_project() {
    let s = Setup::new("");
    let out = s
        .command(&["install", "--local"])
        .env_remove("CLAUDE_PROJECT_DIR")
        .current_dir(s.project())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let local = s.project().join(".claude").join("settings.local.json");
    assert!(local.exists());
    assert!(!s.settings().exists());
}

#[test]
fn uninstall_when_nothing_is_installed_says_so_and_touches_nothing() {
    let s = Setup::new("");
    let out = s.run(&["uninstall"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        stdout(&out),
        format!(
            "pace-hook is not installed in `{}` (the project's settings: no such file); nothing changed\n",
            s.settings().display()
        )
    );
    assert!(!s.settings().exists());

    let text = "{\n  \"hooks\": {\n    \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]}]\n  }\n}";
    fs::create_dir_all(s.settings().parent().unwrap()).unwrap();
    fs::write(s.settings(), text).unwrap();
    let out = s.run(&["uninstall"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        stdout(&out),
        format!(
            "pace-hook is not installed in `{}` (the project's settings); nothing changed\n",
            s.settings().display()
        )
    );
    assert_eq!(fs::read_to_string(s.settings()).unwrap(), text);
    assert!(s.backups().is_empty());
}

#[test]
fn a_project_directory_that_does_not_exist_is_not_made() {
    let s = Setup::new("");
    let missing = s.dir.join("no-such-project");
    let out = s
        .command(&["install"])
        .env("CLAUDE_PROJECT_DIR", &missing)
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!(
            "pace-hook: `{}` is in a project directory that does not exist; check $CLAUDE_PROJECT_DIR, or run pace-hook from the project without it. The file was left as it was\n",
            missing.join(".claude/settings.json").display()
        )
    );
    assert!(!missing.exists());
}

#[test]
fn a_settings_file_that_is_a_link_stays_a_link() {
    let s = Setup::new("");
    let dotfiles = s.dir.join("dotfiles-settings.json");
    fs::write(&dotfiles, "{}\n").unwrap();
    fs::create_dir_all(s.settings().parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&dotfiles, s.settings()).unwrap();
    assert_eq!(code(&s.run(&["install"])), 0);
    assert!(
        fs::symlink_metadata(s.settings())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        fs::read_to_string(&dotfiles)
            .unwrap()
            .contains("PreToolUse")
    );
    assert_eq!(code(&s.run(&["uninstall"])), 0);
    assert_eq!(fs::read_to_string(&dotfiles).unwrap(), "{}\n");
}

#[test]
fn usage_errors_exit_2() {
    let s = Setup::new("");
    for args in [
        &["install", "--user", "--local"][..],
        &["install", "--timeout", "five"],
        &["uninstall", "--timeout", "300"],
        &["install", "--global"],
    ] {
        let out = s.run(args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(stderr(&out).starts_with("pace-hook: "), "{args:?}");
    }
    assert!(!s.settings().exists());
}

/// The plugin's launcher, run by `sh` as Claude Code runs the hook command,
/// in a directory of its own with a PATH that holds only what the test puts
/// there.
struct Launcher {
    dir: PathBuf,
}

impl Launcher {
    fn new() -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "pace-hook-launcher-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        for d in ["home", "path", "data"] {
            fs::create_dir_all(dir.join(d)).unwrap();
        }
        fs::write(dir.join("config.toml"), "interval = \"200ms\"\n").unwrap();
        Self { dir }
    }

    fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("plugin/hooks/pace-hook-launcher")
    }

    fn command(&self) -> Command {
        // By its path: the PATH below is the hook's, not where sh lives.
        let mut c = Command::new("/bin/sh");
        c.arg(Self::script())
            .env_clear()
            .env("PATH", self.dir.join("path"))
            .env("HOME", self.dir.join("home"))
            .env("CLAUDE_PLUGIN_DATA", self.dir.join("data"))
            .env("PACE_HOOK_CONFIG", self.dir.join("config.toml"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn run(&self, c: &mut Command, input: &[u8]) -> Output {
        let mut child = c.spawn().unwrap();
        // The launcher may exit without reading (no pace-hook to read it).
        let _ = child.stdin.take().unwrap().write_all(input);
        finish(child, Duration::from_secs(30))
    }

    /// A stand-in `pace-hook` at `path` that answers `--version` as
    /// pace-hook does, then reports what it got and exits 7.
    fn fake(&self, path: &Path) {
        self.executable(
            path,
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'pace-hook 0.1.0'; exit 0; fi\nread -r line\necho \"home=$PACE_HOOK_HOME args=$* stdin=$line\"\nexit 7\n",
        );
    }

    /// An executable file at `path` with `text`.
    fn executable(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }
}

impl Drop for Launcher {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn the_launcher_blocks_with_how_to_install_when_pace_hook_is_missing() {
    let l = Launcher::new();
    let out = l.run(&mut l.command(), b"{}\n");
    assert_eq!(code(&out), 2, "127 would let the call run");
    assert_eq!(
        stderr(&out),
        "pace-hook: blocked, because the pace-hook program this plugin runs is not installed (not on PATH, not in ~/.cargo/bin), and an unpaced call could get the account suspended; tell the user to install it with `cargo install --locked --path <pace-hook checkout>` (see its README), then retry.\n"
    );
    assert_eq!(stdout(&out), "");
}

#[test]
fn the_launcher_passes_the_exit_code_and_leaves_the_state_dir_alone() {
    let l = Launcher::new();
    l.fake(&l.dir.join("path").join("pace-hook"));
    let out = l.run(&mut l.command(), b"event\n");
    assert_eq!(code(&out), 7, "{}", stderr(&out));
    // Not the plugin's data directory: the gate is the machine's.
    assert_eq!(stdout(&out), "home= args= stdin=event\n");
    let out = l.run(l.command().env("PACE_HOOK_HOME", "/elsewhere"), b"event\n");
    assert_eq!(stdout(&out), "home=/elsewhere args= stdin=event\n");
}

/// Issue 16's "Around the gate": what the launcher finds must be pace-hook.
#[test]
fn the_launcher_blocks_when_what_it_finds_is_not_pace_hook() {
    let l = Launcher::new();
    let bin = l.dir.join("path").join("pace-hook");
    let cases: [(&str, &[u8]); 5] = [
        ("an empty file", b""),
        ("garbage", b"\x7fELF\x02\x01\x01garbage\n"),
        (
            "another program called pace-hook",
            b"#!/bin/sh\necho 'pace-hook: a tool for pacing hikes'\nexit 0\n",
        ),
        ("a program that answers nothing", b"#!/bin/sh\nexit 0\n"),
        (
            "a version check that fails",
            b"#!/bin/sh\necho 'pace-hook 0.1.0'\nexit 1\n",
        ),
    ];
    for (what, bytes) in cases {
        l.executable(&bin, "");
        fs::write(&bin, bytes).unwrap();
        let out = l.run(&mut l.command(), b"{}\n");
        assert_eq!(code(&out), 2, "{what}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            format!(
                "pace-hook: blocked, because `{}`, the pace-hook program this plugin found, does not answer `--version` as pace-hook does (it is another program, or a broken copy), and an unpaced call could get the account suspended; tell the user to reinstall it with `cargo install --locked --path <pace-hook checkout>` (see its README), then retry.\n",
                bin.display()
            ),
            "{what}"
        );
        assert_eq!(stdout(&out), "", "{what}");
    }
}

#[test]
fn the_launcher_finds_pace_hook_in_cargos_bin_and_paces_through_it() {
    let l = Launcher::new();
    let cargo_bin = l.dir.join("home").join(".cargo").join("bin");
    fs::create_dir_all(&cargo_bin).unwrap();
    std::os::unix::fs::symlink(fs::canonicalize(BIN).unwrap(), cargo_bin.join("pace-hook"))
        .unwrap();
    // Claude Code makes the data directory with the user's umask: under
    // umask 002 it is group-writable, which must not block anything.
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(l.dir.join("data"), fs::Permissions::from_mode(0o775)).unwrap();
    let event = serde_json::to_vec(&pre_navigate("nav", "https://example.com/", 1)).unwrap();
    let out = l.run(&mut l.command(), &event);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The gate is the machine's default one, where `run` and `status` look.
    let log = fs::read_to_string(l.dir.join("home/.cache/pace-hook/gate.log")).unwrap();
    assert!(log.contains("\"event\":\"admit\""), "{log}");
    assert!(fs::read_dir(l.dir.join("data")).unwrap().next().is_none());

    // CARGO_HOME moves cargo's bin; a failure of pace-hook's own passes
    // through as itself (2 blocks).
    let moved = l.dir.join("cargo-home");
    l.fake(&moved.join("bin").join("pace-hook"));
    let out = l.run(l.command().env("CARGO_HOME", &moved), b"x\n");
    assert_eq!(code(&out), 7);
    let out = l.run(&mut l.command(), b"not json");
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).starts_with("pace-hook"), "{}", stderr(&out));
}
