//! pace-hook's Claude Code plugin through the real `claude plugin` commands
//! (the CLI pinned in `tests/e2e/package.json`, 2.1.332), in a temporary
//! home per test: where Claude Code loads the plugin from, what happens when
//! that place moves, `install --plugin`, two routes at once, and the gate the
//! plugin's hook shares with `pace-hook run`.
//!
//! Where Claude Code's behaviour is the question, Claude Code answers it:
//! `claude plugin list --json` says where a plugin is read from and whether
//! it loads, and doctor must agree. The hook is then run as Claude Code runs
//! it: the command in the plugin's `hooks.json`, through `sh`, from the
//! folder Claude Code reports, with `CLAUDE_PLUGIN_ROOT` set to it.
//!
//! These never skip: without the CLI they fail, saying how to get it
//! (`npm ci --prefix tests/e2e`, or `PACE_HOOK_CLAUDE` naming a `claude`).

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::*;

/// The real `claude`.
fn claude() -> PathBuf {
    let pinned = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/e2e/node_modules/@anthropic-ai/claude-code/bin/claude.exe");
    let path = std::env::var_os("PACE_HOOK_CLAUDE")
        .map(PathBuf::from)
        .unwrap_or(pinned);
    assert!(
        path.is_file(),
        "the Claude Code CLI is not installed for these tests: run `npm ci --prefix tests/e2e` (it pins @anthropic-ai/claude-code), or set PACE_HOOK_CLAUDE to a `claude` binary; looked at `{}`",
        path.display()
    );
    path
}

/// A home, a project, a PATH with `claude` and `pace-hook` on it, and a
/// checkout of the plugin's marketplace (the repository's files).
struct Machine {
    dir: PathBuf,
}

impl Machine {
    fn new(config: &str) -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "pace-hook-plugin-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        for d in ["home", "project", "bin"] {
            fs::create_dir_all(dir.join(d)).unwrap();
        }
        let dir = fs::canonicalize(&dir).unwrap();
        fs::write(dir.join("config.toml"), config).unwrap();
        std::os::unix::fs::symlink(claude(), dir.join("bin/claude")).unwrap();
        std::os::unix::fs::symlink(fs::canonicalize(BIN).unwrap(), dir.join("bin/pace-hook"))
            .unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        for file in [
            ".claude-plugin/marketplace.json",
            "plugin/.claude-plugin/plugin.json",
            "plugin/hooks/hooks.json",
            "plugin/hooks/pace-hook-launcher",
        ] {
            let to = dir.join("checkout").join(file);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(repo.join(file), &to).unwrap();
        }
        Self { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    fn checkout(&self) -> PathBuf {
        self.dir.join("checkout")
    }

    fn path_var(&self) -> String {
        format!("{}:/usr/bin:/bin", self.dir.join("bin").display())
    }

    /// `program ARGS` as the user runs it in the project.
    fn command(&self, program: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(program);
        c.args(args)
            .env("HOME", self.home())
            .env("PATH", self.path_var())
            .env("CLAUDE_PROJECT_DIR", self.dir.join("project"))
            .env("PACE_HOOK_CONFIG", self.dir.join("config.toml"))
            // Claude Code sends nothing anywhere with these.
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env_remove("PACE_HOOK_HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CLAUDE_CODE_PLUGIN_CACHE_DIR")
            .env_remove("CARGO_HOME")
            .current_dir(self.dir.join("project"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn claude(&self, args: &[&str]) -> Output {
        let out = finish(
            self.command(&self.dir.join("bin/claude"), args)
                .spawn()
                .unwrap(),
            Duration::from_secs(120),
        );
        assert_eq!(
            code(&out),
            0,
            "claude {args:?}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        out
    }

    fn pace_hook(&self, args: &[&str]) -> Output {
        finish(
            self.command(Path::new(BIN), args).spawn().unwrap(),
            Duration::from_secs(60),
        )
    }

    /// What `claude plugin list --json` says of pace-hook's plugin.
    fn listed(&self) -> Option<Value> {
        let out = self.claude(&["plugin", "list", "--json"]);
        let all: Value = serde_json::from_slice(&out.stdout).unwrap();
        all.as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == "pace-hook@pace-hook")
            .cloned()
    }

    fn doctor(&self) -> (i32, String) {
        let out = self.pace_hook(&["doctor"]);
        (code(&out), stdout(&out))
    }

    /// Run one hook event as Claude Code runs the plugin's hook: the
    /// command of `hooks.json` in `root`, by `sh`, with `CLAUDE_PLUGIN_ROOT`.
    fn plugin_hook(&self, root: &Path, event: &Value) -> Output {
        let hooks: Value =
            serde_json::from_slice(&fs::read(root.join("hooks/hooks.json")).unwrap()).unwrap();
        let name = event["hook_event_name"].as_str().unwrap();
        let command = hooks["hooks"][name][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        let mut c = self.command(Path::new("/bin/sh"), &["-c", command]);
        c.env("CLAUDE_PLUGIN_ROOT", root)
            .env(
                "CLAUDE_PLUGIN_DATA",
                self.home().join(".claude/plugins/data/pace-hook-pace-hook"),
            )
            .stdin(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&serde_json::to_vec(event).unwrap())
            .unwrap();
        finish(child, Duration::from_secs(60))
    }

    /// The gate log of the machine's default state directory.
    fn log(&self) -> Vec<Value> {
        fs::read_to_string(self.home().join(".cache/pace-hook/gate.log"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn problems(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with('✗')).collect()
}

#[test]
fn a_plugin_added_from_a_checkout_stops_when_it_moves_and_doctor_says_so() {
    let m = Machine::new("");
    let checkout = m.checkout();
    m.claude(&["plugin", "marketplace", "add", checkout.to_str().unwrap()]);
    m.claude(&["plugin", "install", "pace-hook@pace-hook"]);
    // Claude Code reads a directory marketplace in place, not its cache.
    let listed = m.listed().unwrap();
    assert_eq!(listed["enabled"], true, "{listed}");
    assert_eq!(
        listed["readFromFolder"],
        checkout.join("plugin").display().to_string()
    );
    let (rc, out) = m.doctor();
    assert_eq!(rc, 0, "{out}");
    assert!(
        out.contains(&format!(
            "✓ plugin pace-hook@pace-hook: enabled in `{}`, loads in place from a directory marketplace: moving or deleting that directory stops it",
            m.home().join(".claude/settings.json").display()
        )),
        "{out}"
    );
    assert!(
        out.contains("✓ PreToolUse: a pace-hook entry (matcher `mcp__.*|WebFetch|WebSearch` in `"),
        "{out}"
    );
    assert!(out.contains("the launcher runs `"), "{out}");

    let moved = m.dir.join("moved");
    fs::rename(&checkout, &moved).unwrap();
    let listed = m.listed().unwrap();
    assert_eq!(
        listed["errors"],
        json!(["Marketplace pace-hook failed to load: cache-miss"]),
        "{listed}"
    );
    let (rc, out) = m.doctor();
    assert_eq!(rc, 1, "{out}");
    let bad = problems(&out);
    assert!(
        bad[0].starts_with(&format!(
            "✗ plugin pace-hook@pace-hook: enabled in `{}`, but Claude Code cannot load it: its marketplace is the directory `{}`, which Claude Code reads in place, and `{}` is gone (moved or deleted)",
            m.home().join(".claude/settings.json").display(),
            checkout.display(),
            checkout.join(".claude-plugin/marketplace.json").display()
        )),
        "{out}"
    );
    assert!(
        bad[0]
            .ends_with("Run `pace-hook install --plugin`, which places the plugin where it lasts"),
        "{out}"
    );
    assert!(
        out.contains("✗ PreToolUse: no pace-hook entry, so nothing is paced"),
        "{out}"
    );
}

#[test]
fn install_plugin_places_it_where_it_lasts_and_the_checkout_can_go() {
    let m = Machine::new("");
    let checkout = m.checkout();
    // The route the README gave before: a marketplace from the checkout.
    m.claude(&["plugin", "marketplace", "add", checkout.to_str().unwrap()]);
    m.claude(&["plugin", "install", "pace-hook@pace-hook"]);

    let out = m.pace_hook(&["install", "--plugin"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let lasting = m.home().join(".local/share/pace-hook/claude-plugin");
    assert!(
        stdout(&out).starts_with(&format!(
            "placed pace-hook's Claude Code plugin in `{}`, where it lasts",
            lasting.display()
        )),
        "{}",
        stdout(&out)
    );
    fs::remove_dir_all(&checkout).unwrap();
    let listed = m.listed().unwrap();
    assert_eq!(listed["enabled"], true, "{listed}");
    assert_eq!(listed.get("errors"), None, "{listed}");
    assert_eq!(
        listed["readFromFolder"],
        lasting.join("plugin").display().to_string()
    );
    let (rc, out) = m.doctor();
    assert_eq!(rc, 0, "{out}");
    assert!(
        out.contains("loads in place from pace-hook's own directory, where it lasts"),
        "{out}"
    );

    // Installing again changes nothing Claude Code minds.
    let out = m.pace_hook(&["install", "--plugin"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        m.listed().unwrap()["readFromFolder"],
        listed["readFromFolder"]
    );

    // And it comes out again.
    let out = m.pace_hook(&["uninstall", "--plugin"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(m.listed(), None);
    assert!(!lasting.exists());
    let out = m.pace_hook(&["uninstall", "--plugin"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        stdout(&out),
        "the plugin pace-hook@pace-hook is not installed in Claude Code\n"
    );
}

#[test]
fn the_plugin_and_install_user_together_are_flagged_both_ways() {
    let m = Machine::new("");
    let out = m.pace_hook(&["install", "--plugin"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(!stdout(&out).contains("warning"), "{}", stdout(&out));

    let out = m.pace_hook(&["install", "--user"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let root = m.home().join(".local/share/pace-hook/claude-plugin/plugin");
    assert!(
        stdout(&out).contains(&format!(
            "  warning: the plugin pace-hook@pace-hook (from `{}`) runs pace-hook too; with both, pace-hook runs twice on every call",
            root.display()
        )),
        "{}",
        stdout(&out)
    );
    let (rc, out) = m.doctor();
    assert_eq!(rc, 1, "{out}");
    let user = m.home().join(".claude/settings.json");
    for event in ["PreToolUse", "PostToolUse", "PostToolUseFailure"] {
        let line = format!(
            "✗ {event}: pace-hook runs 2 times on each call, from `{}` and plugin pace-hook@pace-hook (from `{}`); keep one route (`pace-hook uninstall --user` or `claude plugin uninstall pace-hook@pace-hook`): two must be kept in step (program, timeout, matcher), and the gate takes every call's second check as a duplicate",
            user.display(),
            root.display()
        );
        assert!(out.contains(&line), "{line}\nmissing from:\n{out}");
    }

    // The other way round: the plugin installed over `install --user`.
    let out = m.pace_hook(&["install", "--plugin"]);
    assert!(
        stdout(&out).contains(&format!(
            "  warning: `{}` (your user settings) runs pace-hook too; with both, pace-hook runs twice on every call",
            user.display()
        )),
        "{}",
        stdout(&out)
    );
    assert_eq!(code(&m.pace_hook(&["uninstall", "--user"])), 0);
    let (rc, out) = m.doctor();
    assert_eq!(rc, 0, "{out}");
}

#[test]
fn the_plugins_hook_and_pace_hook_run_share_one_gate() {
    let m = Machine::new("interval = \"1500ms\"\n");
    let out = m.pace_hook(&["install", "--plugin"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let root = PathBuf::from(m.listed().unwrap()["readFromFolder"].as_str().unwrap());
    // Claude Code made the plugin's data directory group-writable (umask
    // 002): it is not the gate, so nothing blocks on it.
    let data = m.home().join(".claude/plugins/data/pace-hook-pace-hook");
    fs::create_dir_all(&data).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&data, fs::Permissions::from_mode(0o775)).unwrap();

    let pre = pre_navigate("agent", "https://example.com/a", 1);
    let out = m.plugin_hook(&root, &pre);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = m.plugin_hook(&root, &post_navigate("agent"));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // A script right after the agent's call waits for the site's turn.
    let out = m.pace_hook(&["run", "--site", "example.com", "--", "true"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    let starts: Vec<u64> = m
        .log()
        .iter()
        .filter(|r| r["event"] == "admit")
        .map(ts)
        .collect();
    assert_eq!(starts.len(), 2, "{:?}", m.log());
    assert!(starts[1] - starts[0] >= 1500, "{starts:?}");
    let out = m.pace_hook(&["gaps", "--site", "example.com"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let status = m.pace_hook(&["status", "--json"]);
    assert!(
        stdout(&status).contains("example.com"),
        "{}",
        stdout(&status)
    );
    assert!(
        fs::read_dir(&data).unwrap().next().is_none(),
        "nothing in the plugin's data"
    );
}
