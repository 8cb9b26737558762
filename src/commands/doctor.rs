//! `pace-hook doctor`: is pace-hook set up so that it paces? It reads the
//! settings files Claude Code reads for this project, the config, the state
//! directory, the backend and the gate log, and says for each check, on one
//! line, ✓ or ✗ with the fix.
//!
//! What Claude Code does with the settings is taken from
//! `shared/protocol.md`: user (`~/.claude/settings.json`, or
//! `$CLAUDE_CONFIG_DIR/settings.json`), project
//! (`$CLAUDE_PROJECT_DIR/.claude/settings.json`, else the current
//! directory's) and local (`.claude/settings.local.json`) merge; a hook
//! entry runs for the tools its matcher matches ([`crate::read::matcher`]); a
//! command hook with no `timeout` is killed after 600 s, and a killed hook
//! lets its call run unpaced.
//!
//! It judges every route by which Claude Code runs pace-hook at once: the
//! settings files' entries and the hooks of every enabled plugin (read where
//! Claude Code loads it from, [`crate::commands::plugin`]). None is a
//! problem, one is the setup, two on one event run pace-hook twice and are
//! flagged; pace-hook's plugin that Claude Code cannot load is a problem of
//! its own, since Claude Code says nothing about it when a session starts.
//! A hook's command is read by [`settings::invocation`], the reading
//! `install` uses.
//!
//! Invariant: doctor writes nothing. It reads the state through the
//! [`crate::store::Store`] trait's looks, the file store's queue directory
//! through [`crate::state_dir::Dir`], and the config fresh from its file.

use std::{
    collections::BTreeSet,
    ffi::OsString,
    fmt::Write as _,
    path::{Path, PathBuf},
};

use serde_json::Value;

mod agents;

use crate::{
    commands::{
        plugin,
        settings::{self, EVENTS, Invocation, Runs},
    },
    config::{Backend, Config},
    duration::format_duration,
    exit::Exit,
    pacing::clock::{Clock, EpochMs, SystemClock},
    pacing::when,
    read::matcher::{MATCHER, is_exact_list, matcher_matches},
    read::profile::FAMILIES,
    store::LEASE_TTL,
};

/// Claude Code's timeout for a command hook that gives none, in seconds.
pub(crate) const DEFAULT_TIMEOUT_S: f64 = 600.0;

/// One check's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Check {
    /// Whether all is well.
    pub(crate) ok: bool,
    /// What was found; for a problem, with its fix.
    pub(crate) text: String,
}

impl Check {
    fn ok(text: impl Into<String>) -> Self {
        Self {
            ok: true,
            text: text.into(),
        }
    }

    fn bad(text: impl Into<String>) -> Self {
        Self {
            ok: false,
            text: text.into(),
        }
    }
}

/// Where to look, so that tests (and users with unusual layouts) can say.
#[derive(Debug, Clone)]
pub(crate) struct Places {
    /// The user's Claude Code directory (`~/.claude`).
    pub(crate) user_dir: Option<PathBuf>,
    /// The project directory.
    pub(crate) project_dir: Option<PathBuf>,
    /// `PATH`, as hooks get it.
    pub(crate) path_var: Option<OsString>,
    /// This binary, for fixes that name it.
    pub(crate) exe: Option<PathBuf>,
    /// The user's home, where the other agents keep their files.
    pub(crate) home: Option<PathBuf>,
}

impl Places {
    /// The places of this process's environment, found as `install` finds
    /// them.
    pub(crate) fn from_env() -> Self {
        Self {
            user_dir: settings::claude_home().ok(),
            project_dir: settings::project_dir().ok(),
            path_var: std::env::var_os("PATH"),
            exe: std::env::current_exe().ok(),
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
        }
    }
}

/// One settings file Claude Code reads.
#[derive(Debug)]
struct SettingsFile {
    path: PathBuf,
    json: Option<Value>,
}

/// A way Claude Code runs pace-hook: a settings file, or a plugin.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Route {
    /// Entries in this settings file.
    Settings(PathBuf),
    /// The hooks of this enabled plugin, which runs from this folder.
    Plugin { id: String, root: PathBuf },
}

impl Route {
    fn describe(&self) -> String {
        match self {
            Route::Settings(path) => format!("`{}`", path.display()),
            Route::Plugin { id, root } => format!("plugin {id} (from `{}`)", root.display()),
        }
    }

    /// How to take this route away.
    fn removal(&self) -> String {
        match self {
            Route::Settings(path) => {
                let scope = settings::files(
                    settings::claude_home().ok().as_deref(),
                    settings::project_dir().ok().as_deref(),
                )
                .into_iter()
                .find(|(_, p)| p == path)
                .map(|(s, _)| s);
                match scope {
                    Some(settings::Scope::User) => "`pace-hook uninstall --user`".to_owned(),
                    Some(settings::Scope::Local) => "`pace-hook uninstall --local`".to_owned(),
                    Some(settings::Scope::Project) => "`pace-hook uninstall`".to_owned(),
                    None => format!("removing its entries from `{}`", path.display()),
                }
            }
            Route::Plugin { id, .. } => format!("`claude plugin uninstall {id}`"),
        }
    }
}

/// A pace-hook command hook, as a settings file or a plugin declares it.
#[derive(Debug, Clone)]
struct Entry {
    event: &'static str,
    /// The file it is in: a settings file, or a plugin's `hooks.json`.
    file: PathBuf,
    route: Route,
    matcher: String,
    command: String,
    invocation: Invocation,
    timeout: Option<Value>,
}

impl Entry {
    /// `${CLAUDE_PLUGIN_ROOT}` for a plugin's hook.
    fn plugin_root(&self) -> Option<&Path> {
        match &self.route {
            Route::Plugin { root, .. } => Some(root),
            Route::Settings(_) => None,
        }
    }
}

/// `pace-hook doctor`: print every check; exit 0 only when all pass.
pub(crate) fn run() -> Exit {
    let checks = checks(&Places::from_env(), SystemClock.now_floor());
    let mut out = String::new();
    for c in &checks {
        let _ = writeln!(out, "{} {}", if c.ok { "✓" } else { "✗" }, c.text);
    }
    let problems = checks.iter().filter(|c| !c.ok).count();
    match problems {
        0 => out.push_str("all well: pace-hook paces every web tool it knows\n"),
        1 => out.push_str("1 problem\n"),
        n => {
            let _ = writeln!(out, "{n} problems");
        }
    }
    crate::commands::print(&out);
    if problems == 0 {
        Exit::Success
    } else {
        Exit::Failure
    }
}

/// Every check, in order: settings, plugins, hook entries, config, state,
/// backend, queues, unknown tools.
pub(crate) fn checks(places: &Places, now: EpochMs) -> Vec<Check> {
    let mut out = Vec::new();
    let (config, config_check) = config_check(places);
    let files = settings_files(places, &mut out);
    let mut entries = entries(&files);
    plugin_entries(places, &mut entries, &mut out);
    hook_checks(&files, &entries, &config, places, &mut out);
    agents::checks(places, &config, &mut out);
    out.extend(config_check);
    for p in &config.presets {
        out.push(Check::ok(crate::config::preset::describe(p)));
    }
    state_checks(&config, now, &mut out);
    out
}

/// The config's line, and one more for each thing it allows but likely
/// does not mean (an `interval` of 0 spaces nothing).
fn config_check(places: &Places) -> (Config, Vec<Check>) {
    match Config::read_for(places.project_dir.as_deref()) {
        Ok(c) => {
            let what = match &c.source {
                Some(p) => format!("config `{}`", p.display()),
                None => "config: no file, the defaults".to_owned(),
            };
            let check = Check::ok(format!(
                "{what}: interval {}, in_flight_hold {}, max_wait {}",
                format_duration(c.interval_ms),
                format_duration(c.hold_ms),
                format_duration(c.max_wait_ms)
            ));
            let mut checks = vec![check];
            checks.extend(c.warnings().into_iter().map(Check::bad));
            (c, checks)
        }
        Err(e) => (
            Config::default(),
            vec![Check::bad(format!(
                "{e}: fix it; until then every paced call is blocked (the checks below use the defaults)"
            ))],
        ),
    }
}

/// The settings files that exist, read; a line for those that cannot be.
fn settings_files(places: &Places, out: &mut Vec<Check>) -> Vec<SettingsFile> {
    let paths = settings::files(places.user_dir.as_deref(), places.project_dir.as_deref());
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut read = Vec::new();
    let mut missing = Vec::new();
    for (_, path) in paths {
        match std::fs::read_to_string(&path) {
            // Read as Claude Code reads it (`settings::parse`): a BOM makes
            // the file unreadable to it, a lone surrogate escape does not.
            Ok(text) => match settings::parse(&settings::Format::CLAUDE, &text) {
                Ok(json) => {
                    read.push(format!("`{}`", path.display()));
                    files.push(SettingsFile {
                        path,
                        json: Some(json.unwrap_or_else(|| serde_json::json!({}))),
                    });
                }
                Err(p) if p.problem.starts_with("is not valid JSON") => {
                    problems.push(Check::bad(format!(
                        "settings `{}` {}: fix it; Claude Code cannot read its hooks either",
                        path.display(),
                        p.problem
                    )))
                }
                Err(p) => problems.push(Check::bad(format!(
                    "settings `{}` {}: Claude Code ignores it; {}",
                    path.display(),
                    p.problem,
                    p.fix
                ))),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                missing.push(format!("`{}`", path.display()));
                files.push(SettingsFile { path, json: None });
            }
            Err(e) => problems.push(Check::bad(format!(
                "settings `{}` cannot be read ({e}): make it readable",
                path.display()
            ))),
        }
    }
    let mut text = if read.is_empty() {
        "settings: no settings file found".to_owned()
    } else {
        format!("settings: read {}", read.join(", "))
    };
    if !missing.is_empty() {
        let _ = write!(text, "; not present: {}", missing.join(", "));
    }
    out.push(Check::ok(text));
    out.extend(problems);
    files
}

/// The pace-hook command hooks the settings files declare.
fn entries(files: &[SettingsFile]) -> Vec<Entry> {
    let mut out = Vec::new();
    for f in files {
        if let Some(hooks) = f.json.as_ref().and_then(|j| j.get("hooks")) {
            hook_entries(hooks, &f.path, &Route::Settings(f.path.clone()), &mut out);
        }
    }
    out
}

/// The pace-hook command hooks of one `hooks` object.
fn hook_entries(hooks: &Value, file: &Path, route: &Route, out: &mut Vec<Entry>) {
    for event in EVENTS {
        let Some(groups) = hooks.get(event).and_then(Value::as_array) else {
            continue;
        };
        for group in groups {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
                continue;
            };
            for h in handlers {
                let Some(invocation) = settings::invocation(h) else {
                    continue;
                };
                out.push(Entry {
                    event,
                    file: file.to_owned(),
                    route: route.clone(),
                    matcher: matcher.clone(),
                    command: h["command"].as_str().unwrap_or_default().to_owned(),
                    invocation,
                    timeout: h.get("timeout").cloned(),
                });
            }
        }
    }
}

/// The plugins the settings enable: each one's pace-hook hooks become
/// entries; pace-hook's plugin that Claude Code cannot load is a problem.
fn plugin_entries(places: &Places, entries: &mut Vec<Entry>, out: &mut Vec<Check>) {
    let plugins = match plugin::enabled(places.user_dir.as_deref(), places.project_dir.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            out.push(Check::bad(format!(
                "plugins: {e}, so doctor cannot tell whether a plugin runs pace-hook; fix or move it aside"
            )));
            return;
        }
    };
    for p in plugins {
        let folder = match &p.loads {
            Ok(f) => f,
            Err(why) if p.is_pace_hook() => {
                out.push(Check::bad(format!(
                    "plugin {}: enabled in `{}`, but Claude Code cannot load it: {why}; no call is paced through it, with no word from Claude Code. Run `pace-hook install --plugin`, which places the plugin where it lasts",
                    p.id,
                    p.enabled_in.display()
                )));
                continue;
            }
            Err(_) => continue,
        };
        let hooks_json = folder.root.join("hooks").join("hooks.json");
        let route = Route::Plugin {
            id: p.id.clone(),
            root: folder.root.clone(),
        };
        let before = entries.len();
        match std::fs::read_to_string(&hooks_json)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        {
            Some(json) => {
                if let Some(hooks) = json.get("hooks") {
                    hook_entries(hooks, &hooks_json, &route, entries);
                }
            }
            None if p.is_pace_hook() => out.push(Check::bad(format!(
                "plugin {}: `{}` is missing or not JSON, so the plugin runs no hook; run `pace-hook install --plugin`",
                p.id,
                hooks_json.display()
            ))),
            None => {}
        }
        if entries.len() > before {
            let lasts = if !folder.in_place {
                "from Claude Code's copy in its cache".to_owned()
            } else if plugin::lasting_dir().is_ok_and(|d| folder.root.starts_with(d)) {
                "in place from pace-hook's own directory, where it lasts".to_owned()
            } else {
                "in place from a directory marketplace: moving or deleting that directory stops it with no word from Claude Code (`pace-hook install --plugin` places it where it lasts)".to_owned()
            };
            out.push(Check::ok(format!(
                "plugin {}: enabled in `{}`, loads {lasts} (`{}`)",
                p.id,
                p.enabled_in.display(),
                folder.root.display()
            )));
        }
    }
}

/// `$VAR`, `${VAR}` and a leading `~` expanded: `CLAUDE_PROJECT_DIR` as the
/// project, `CLAUDE_PLUGIN_ROOT` as the plugin's folder, the rest from the
/// environment.
fn expand(word: &str, places: &Places, plugin_root: Option<&Path>) -> String {
    let var = |name: &str| -> String {
        if name == "CLAUDE_PROJECT_DIR"
            && let Some(p) = &places.project_dir
        {
            return p.display().to_string();
        }
        if name == "CLAUDE_PLUGIN_ROOT"
            && let Some(r) = plugin_root
        {
            return r.display().to_string();
        }
        std::env::var(name).unwrap_or_default()
    };
    let mut out = String::new();
    let mut rest = word;
    if let Some(r) = rest.strip_prefix('~')
        && (r.is_empty() || r.starts_with('/'))
    {
        out.push_str(&var("HOME"));
        rest = r;
    }
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(braced) = after.strip_prefix('{')
            && let Some(end) = braced.find('}')
        {
            out.push_str(&var(&braced[..end]));
            rest = &braced[end + 1..];
            continue;
        }
        let end = after
            .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .unwrap_or(after.len());
        if end == 0 {
            out.push('$');
        } else {
            out.push_str(&var(&after[..end]));
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The file to suggest adding entries to: where pace-hook already is, else
/// the project's settings, else the user's.
fn home_file(entries: &[Entry], places: &Places) -> Option<PathBuf> {
    entries
        .iter()
        .find(|e| matches!(e.route, Route::Settings(_)))
        .map(|e| e.file.clone())
        .or_else(|| {
            places
                .project_dir
                .as_ref()
                .map(|p| p.join(".claude").join("settings.json"))
        })
        .or_else(|| places.user_dir.as_ref().map(|u| u.join("settings.json")))
}

/// The hook timeout to suggest: above `max_wait` with room, at least 300 s.
fn suggested_timeout(config: &Config) -> u64 {
    (config.max_wait_ms / 1_000 + 30).max(300)
}

fn entry_json(config: &Config, places: &Places) -> String {
    let command = places
        .exe
        .as_ref()
        .map_or("pace-hook".to_owned(), |p| p.display().to_string());
    format!(
        r#"{{"matcher": "{MATCHER}", "hooks": [{{"type": "command", "command": {}, "timeout": {}}}]}}"#,
        serde_json::to_string(&command).expect("a string serializes"),
        suggested_timeout(config)
    )
}

fn hook_checks(
    files: &[SettingsFile],
    entries: &[Entry],
    config: &Config,
    places: &Places,
    out: &mut Vec<Check>,
) {
    for f in files {
        if f.json
            .as_ref()
            .and_then(|j| j.get("disableAllHooks"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            out.push(Check::bad(format!(
                "`disableAllHooks` is true in `{}`: no hook runs, pace-hook included; remove it",
                f.path.display()
            )));
        }
    }
    let target = home_file(entries, places)
        .map_or("your settings".to_owned(), |p| format!("`{}`", p.display()));
    for event in EVENTS {
        let mine: Vec<&Entry> = entries.iter().filter(|e| e.event == event).collect();
        if mine.is_empty() {
            let why = match event {
                "PreToolUse" => "nothing is paced",
                "PostToolUse" => {
                    "no call's finish is recorded, and each holds its site for in_flight_hold"
                }
                _ => {
                    "a failed call's finish is not recorded, and it holds its site for in_flight_hold"
                }
            };
            out.push(Check::bad(format!(
                "{event}: no pace-hook entry, so {why}; add {} to `hooks.{event}` in {target}",
                entry_json(config, places)
            )));
            continue;
        }
        let routes: BTreeSet<&Route> = mine.iter().map(|e| &e.route).collect();
        if routes.len() > 1 {
            let list: Vec<String> = routes.iter().map(|r| r.describe()).collect();
            let fixes: Vec<String> = routes.iter().map(|r| r.removal()).collect();
            out.push(Check::bad(format!(
                "{event}: pace-hook runs {} times on each call, from {}; keep one route ({}): two must be kept in step (program, timeout, matcher), and the gate takes every call's second check as a duplicate",
                routes.len(),
                list.join(" and "),
                fixes.join(" or ")
            )));
            continue;
        }
        let list: Vec<String> = mine
            .iter()
            .map(|e| format!("matcher `{}` in `{}`", e.matcher, e.file.display()))
            .collect();
        out.push(Check::ok(format!(
            "{event}: a pace-hook entry ({})",
            list.join("; ")
        )));
    }
    if entries.is_empty() {
        return;
    }
    command_checks(entries, places, out);
    timeout_checks(entries, config, out);
    matcher_checks(entries, config, out);
}

/// Each distinct command: found, executable, and run with no arguments;
/// for the plugin's launcher, the launcher and the program it finds.
fn command_checks(entries: &[Entry], places: &Places, out: &mut Vec<Check>) {
    let mut seen = BTreeSet::new();
    let exe = places
        .exe
        .as_ref()
        .map_or("the full path of pace-hook".to_owned(), |p| {
            format!("`{}`", p.display())
        });
    for e in entries {
        if !seen.insert((e.file.clone(), e.command.clone())) {
            continue;
        }
        let events: Vec<&str> = entries
            .iter()
            .filter(|o| o.file == e.file && o.command == e.command)
            .map(|o| o.event)
            .collect();
        let whose = format!("({}, `{}`)", events.join(", "), e.file.display());
        let run = &e.invocation;
        if !run.is_bare() {
            let around = if run.rest.is_empty() {
                "settings before it".to_owned()
            } else {
                format!("`{}` after it", run.rest.join(" "))
            };
            out.push(Check::bad(format!(
                "command `{}` {whose} runs pace-hook with {around}: the hook takes no arguments and its exit code and stderr must reach Claude Code as they are; make the command just {exe}",
                e.command,
            )));
            continue;
        }
        let path = expand(&run.path, places, e.plugin_root());
        let found = match run.runs {
            Runs::Program => resolve(&path, places),
            Runs::Launcher => launcher(&path, places),
        };
        match found {
            Ok(text) => out.push(Check::ok(format!("command `{}` {whose}: {text}", e.command))),
            Err(problem) => out.push(Check::bad(format!(
                "command `{}` {whose}: {problem}; Claude Code would let every call through unpaced (a missing command exits 127); use {exe}",
                e.command
            ))),
        }
    }
}

/// The plugin's launcher at `path`, and the program it would run: on PATH,
/// else in cargo's bin directory, answering as pace-hook does.
fn launcher(path: &str, places: &Places) -> Result<String, String> {
    if !Path::new(path).is_file() {
        return Err(format!("the launcher `{path}` does not exist"));
    }
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .map(|c| c.join("bin").join("pace-hook"));
    let program = which("pace-hook", places).or(cargo_bin.filter(|p| p.is_file() && executable(p)));
    let Some(program) = program else {
        // The launcher blocks every call then, with how to install it.
        return Err(format!(
            "the launcher `{path}` finds no pace-hook program (not on PATH, not in cargo's bin), so it blocks every call; install it with `cargo install --locked --path <pace-hook checkout>`"
        ));
    };
    let answer = std::process::Command::new(&program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !answer.starts_with("pace-hook ") {
        return Err(format!(
            "the launcher `{path}` finds `{}`, which does not answer `--version` as pace-hook does, so the launcher blocks every call; reinstall pace-hook there",
            program.display()
        ));
    }
    Ok(format!(
        "the launcher runs `{}` ({})",
        program.display(),
        answer.trim()
    ))
}

/// `program` on PATH as hooks get it.
fn which(program: &str, places: &Places) -> Option<PathBuf> {
    std::env::split_paths(places.path_var.as_ref()?)
        .map(|d| d.join(program))
        .find(|c| c.is_file() && executable(c))
}

/// Where `program` is, if it is an executable file (said as a check's
/// text); else what is wrong.
fn resolve(program: &str, places: &Places) -> Result<String, String> {
    let candidates: Vec<PathBuf> = if program.contains('/') {
        let p = PathBuf::from(program);
        vec![match (&places.project_dir, p.is_relative()) {
            (Some(dir), true) => dir.join(p),
            _ => p,
        }]
    } else {
        places
            .path_var
            .as_ref()
            .map(|v| std::env::split_paths(v).map(|d| d.join(program)).collect())
            .unwrap_or_default()
    };
    let mut found_unexecutable = None;
    for c in &candidates {
        match std::fs::metadata(c) {
            Ok(m) if m.is_file() && executable(c) => {
                return Ok(format!("`{}` is executable", c.display()));
            }
            Ok(_) => {
                found_unexecutable.get_or_insert(c.clone());
            }
            Err(_) => {}
        }
    }
    match (found_unexecutable, program.contains('/')) {
        (Some(p), _) => Err(format!(
            "`{}` is not an executable file (run `chmod +x {}`)",
            p.display(),
            p.display()
        )),
        (None, true) => Err(format!("`{program}` does not exist")),
        (None, false) => Err(format!("`{program}` is not on PATH")),
    }
}

fn executable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::X_OK) == 0 }
}

/// Every entry's timeout is above `max_wait`: a hook still waiting at its
/// timeout is killed, and the call runs unpaced.
fn timeout_checks(entries: &[Entry], config: &Config, out: &mut Vec<Check>) {
    let max_wait = format_duration(config.max_wait_ms);
    let fix = suggested_timeout(config);
    let mut bad = false;
    for e in entries {
        let secs = match &e.timeout {
            None => DEFAULT_TIMEOUT_S,
            Some(v) => match v.as_f64() {
                Some(s) if s > 0.0 => s,
                _ => {
                    bad = true;
                    out.push(Check::bad(format!(
                        "{} timeout `{v}` in `{}` is not a number of seconds: set \"timeout\": {fix}",
                        e.event,
                        e.file.display()
                    )));
                    continue;
                }
            },
        };
        if secs * 1_000.0 <= config.max_wait_ms as f64 {
            bad = true;
            let given = if e.timeout.is_none() {
                format!("no timeout, so Claude Code's default {DEFAULT_TIMEOUT_S} s,")
            } else {
                format!("timeout {secs} s")
            };
            out.push(Check::bad(format!(
                "{} in `{}` has {given} at or under max_wait ({max_wait}): Claude Code kills a hook at its timeout and runs the call unpaced; set \"timeout\": {fix}, or a shorter max_wait",
                e.event,
                e.file.display()
            )));
        }
    }
    if !bad {
        let mut given: Vec<String> = entries
            .iter()
            .map(|e| match &e.timeout {
                None => format!("{DEFAULT_TIMEOUT_S} s (the default)"),
                Some(v) => format!("{v} s"),
            })
            .collect();
        given.dedup();
        out.push(Check::ok(format!(
            "timeouts: {}, above max_wait ({max_wait})",
            given.join(", ")
        )));
    }
}

/// Each matcher reaches some tool pace-hook paces, and every family's
/// tools reach pace-hook on every event.
fn matcher_checks(entries: &[Entry], config: &Config, out: &mut Vec<Check>) {
    for e in entries {
        let reaches_family = FAMILIES
            .iter()
            .flat_map(|f| f.tools.iter())
            .any(|t| matcher_matches(&e.matcher, t));
        if reaches_family || reaches_declared(&e.matcher, config) {
            continue;
        }
        let fix = exact_server_name(&e.matcher).map_or(
            format!("use `{MATCHER}`, which covers every tool pace-hook knows"),
            |server| {
                format!(
                    "a matcher of only letters, digits, `_`, `-` and `|` names whole tools, so `{server}` is no tool; write `{server}__.*` (or `{MATCHER}`)"
                )
            },
        );
        out.push(Check::bad(format!(
            "{} matcher `{}` in `{}` matches no tool pace-hook paces: {fix}",
            e.event,
            e.matcher,
            e.file.display()
        )));
    }
    for family in FAMILIES {
        let mut none: Vec<&str> = Vec::new();
        let mut some: Vec<String> = Vec::new();
        let mut missed: Vec<&str> = Vec::new();
        for event in EVENTS {
            let left: Vec<&str> = family
                .tools
                .iter()
                .filter(|t| {
                    !entries
                        .iter()
                        .any(|e| e.event == event && matcher_matches(&e.matcher, t))
                })
                .collect();
            if !left.is_empty() {
                missed.push(event);
            }
            if left.len() == family.tools.len() {
                none.push(event);
            } else if !left.is_empty() {
                let mut names: Vec<String> =
                    left.iter().take(3).map(|t| format!("`{t}`")).collect();
                if left.len() > 3 {
                    names.push("…".to_owned());
                }
                some.push(format!(
                    "{} of its {} tools miss it on {event} ({})",
                    left.len(),
                    family.tools.len(),
                    names.join(", ")
                ));
            }
        }
        if none.is_empty() && some.is_empty() {
            let tools = match family.tools.len() {
                1 => "its tool reaches".to_owned(),
                n => format!("all {n} tools reach"),
            };
            out.push(Check::ok(format!(
                "{}: {tools} pace-hook on all three events",
                family.name
            )));
            continue;
        }
        let missed_pre = missed.contains(&"PreToolUse");
        let missed_post = missed.iter().any(|e| *e != "PreToolUse");
        let mut found = some;
        if !none.is_empty() {
            found.insert(
                0,
                format!("none of its tools reach pace-hook on {}", none.join(", ")),
            );
        }
        let why = match (missed_pre, missed_post) {
            (true, true) => {
                "a call that misses PreToolUse passes unpaced, and one that misses a Post holds its site for in_flight_hold"
            }
            (true, false) => "a call that misses PreToolUse passes unpaced",
            _ => "a call that misses a Post holds its site for in_flight_hold",
        };
        out.push(Check::bad(format!(
            "{}: {}; {why}: use matcher `{MATCHER}` (or add `{}`) on all three events",
            family.name,
            found.join("; "),
            family.matcher
        )));
    }
}

/// Whether `matcher` reaches a tool a `[[tool]]` rule declares: a literal
/// prefix of the rule's pattern, with a tool name after it, is matched.
fn reaches_declared(matcher: &str, config: &Config) -> bool {
    config.tools.iter().any(|rule| {
        let prefix: String = rule
            .pattern
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
            .collect();
        prefix.starts_with("mcp__")
            && (matcher_matches(matcher, &rule.pattern)
                || matcher_matches(matcher, &format!("{prefix}tool")))
    })
}

/// In an exact-list matcher, a name that is an MCP server's prefix
/// (`mcp__claude-in-chrome`): no tool is named that.
fn exact_server_name(matcher: &str) -> Option<&str> {
    if !is_exact_list(matcher) {
        return None;
    }
    matcher
        .split(['|', ','])
        .map(str::trim)
        .find(|n| n.strip_prefix("mcp__").is_some_and(|s| !s.contains("__")))
}

/// The state directory, the backend, the queues and the gate log.
fn state_checks(config: &Config, now: EpochMs, out: &mut Vec<Check>) {
    let root = match crate::state_dir::default_root() {
        Ok(r) => r,
        Err(e) => {
            out.push(Check::bad(format!("state directory: {e}")));
            return;
        }
    };
    let exists = root.exists();
    let dir = if exists {
        match crate::state_dir::Dir::open_root(&root, false) {
            Ok(d) => {
                let subs = d.names().unwrap_or_default();
                let mut bad = false;
                for name in subs {
                    let is_dir = d
                        .stat(&name)
                        .is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFDIR);
                    if is_dir && let Err(e) = d.sub(&name, false) {
                        bad = true;
                        out.push(Check::bad(e.to_string()));
                    }
                }
                if !bad {
                    out.push(Check::ok(format!(
                        "state directory `{}`: yours, and nobody else can write to it",
                        root.display()
                    )));
                }
                Some(d)
            }
            Err(e) => {
                out.push(Check::bad(e.to_string()));
                None
            }
        }
    } else {
        out.push(Check::ok(format!(
            "state directory `{}` does not exist yet: the first paced call makes it, private",
            root.display()
        )));
        None
    };
    if config.backend == Backend::File {
        if !exists {
            out.push(Check::ok("backend: files, made on first use"));
            return;
        }
        if dir.is_none() {
            // The file store is that directory: its problem is said above.
            return;
        }
    }
    let store = match crate::store::open(config) {
        Ok(s) => s,
        Err(e) => {
            out.push(backend_problem(config, &e));
            return;
        }
    };
    let sites = match store.known_sites() {
        Ok(s) => s,
        Err(e) => {
            out.push(backend_problem(config, &e));
            return;
        }
    };
    out.push(Check::ok(format!(
        "backend: {}: read, {} site(s) known",
        store.describe(),
        sites.len()
    )));
    queue_checks(store.as_ref(), &sites, dir.as_ref(), config, now, out);
    match store.read_log() {
        Ok((records, _)) => {
            let unknown = crate::commands::status::unknown_tools(&records, config);
            if unknown.is_empty() {
                out.push(Check::ok(
                    "unknown tools: none in the gate log that no profile or [[tool]] rule knows",
                ));
            } else {
                let list: Vec<String> = unknown
                    .iter()
                    .map(|t| {
                        format!(
                            "`{}` ({} call(s), last {})",
                            t.tool,
                            t.calls,
                            when::relative(t.last_ms, now)
                        )
                    })
                    .collect();
                let first = serde_json::to_string(&unknown[0].tool).expect("a string serializes");
                let config_file = config
                    .source
                    .as_ref()
                    .map_or("the config".to_owned(), |p| format!("`{}`", p.display()));
                out.push(Check::bad(format!(
                    "unknown tools passed unpaced: {}; declare each in {config_file} with a rule such as `[[tool]] match = {first} class = \"pace\" url = \"/url\"` (or class \"skip\" / \"block\"); `pace-hook status` prints one for each",
                    list.join(", ")
                )));
            }
        }
        Err(e) => out.push(Check::bad(format!(
            "gate log: {e}: make it readable, or move it aside"
        ))),
    }
}

fn backend_problem(config: &Config, e: &crate::error::Error) -> Check {
    let fix = match &config.backend {
        Backend::File => "fix the state directory as the message says".to_owned(),
        Backend::Redis(_) => "start the Redis server or point `backend` at one that runs (with `on_backend_error = \"local\"`, calls are paced on this machine alone meanwhile)".to_owned(),
    };
    Check::bad(format!(
        "backend cannot be read: {e}; until it can, every paced call is blocked: {fix}"
    ))
}

/// A queue is stuck when a caller has waited past `max_wait` (it should
/// have given up and been blocked), or callers wait while the site has been
/// due for longer than a waiter takes to wake.
fn queue_checks(
    store: &dyn crate::store::Store,
    sites: &[String],
    dir: Option<&crate::state_dir::Dir>,
    config: &Config,
    now: EpochMs,
    out: &mut Vec<Check>,
) {
    let mut stuck = false;
    let mut waiting = 0;
    for site in sites {
        let request = match crate::gate::requests::for_key(config, site) {
            Ok(r) => r,
            Err(e) => {
                out.push(Check::bad(format!("queue of {site}: {e}")));
                continue;
            }
        };
        // The head wakes within milliseconds of the site being due; jitter
        // and a lapsed lease (a waiter stopped, then reclaimed) add to it.
        let slack = LEASE_TTL.as_millis() as u64 + request.jitter_ms;
        let places: Option<Vec<(u32, EpochMs)>> = match (dir, config.backend == Backend::File) {
            (Some(d), true) => crate::store::file::queue_places(d, site).ok(),
            _ => None,
        };
        let live: Vec<(u32, EpochMs)> = places
            .as_ref()
            .map(|p| p.iter().copied().filter(|(pid, _)| alive(*pid)).collect())
            .unwrap_or_default();
        let queued = match &places {
            Some(_) => live.len(),
            None => store.queue_len(site).unwrap_or(0),
        };
        waiting += queued;
        let limit = config.max_wait_ms.saturating_add(slack);
        if let Some((pid, since)) = live
            .iter()
            .copied()
            .filter(|(_, since)| now.saturating_sub(*since) > limit)
            .min_by_key(|(_, since)| *since)
        {
            stuck = true;
            out.push(Check::bad(format!(
                "queue of {site}: a caller (process {pid}) has waited since {}, longer than max_wait ({}): it should have given up and been blocked, so it is stuck, and every caller behind it waits; end it (`kill {pid}`)",
                when::at(since, now),
                format_duration(config.max_wait_ms)
            )));
            continue;
        }
        if queued == 0 {
            continue;
        }
        let Ok(Some(state)) = store.site_state(site) else {
            continue;
        };
        let ready = state.ready_at(&request.policy).unwrap_or(0);
        if now.saturating_sub(ready) > slack && ready <= now {
            stuck = true;
            out.push(Check::bad(format!(
                "queue of {site}: {queued} caller(s) wait, but the site has been due since {}: the caller at the head is stopped (Ctrl-Z) or hung; resume or end it (the next caller passes over it after {} without progress), unless its config sets a longer interval than this one",
                when::at(ready, now),
                format_duration(LEASE_TTL.as_millis() as u64)
            )));
        }
    }
    if !stuck {
        out.push(Check::ok(format!(
            "queues: none stuck ({} caller(s) waiting on {} site(s))",
            waiting,
            sites.len()
        )));
    }
}

/// Whether process `pid` exists (it may be another user's).
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let found = unsafe { libc::kill(pid, 0) } == 0;
    found || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_dir_is_expanded_in_a_command() {
        let places = Places {
            user_dir: None,
            project_dir: Some(PathBuf::from("/p")),
            path_var: None,
            exe: None,
            home: None,
        };
        assert_eq!(
            expand("${CLAUDE_PROJECT_DIR}/bin/pace-hook", &places, None),
            "/p/bin/pace-hook"
        );
        assert_eq!(expand("$CLAUDE_PROJECT_DIR/x", &places, None), "/p/x");
        assert_eq!(expand("a$", &places, None), "a$");
        assert_eq!(
            expand(
                "${CLAUDE_PLUGIN_ROOT}/hooks/x",
                &places,
                Some(Path::new("/r"))
            ),
            "/r/hooks/x"
        );
    }

    #[test]
    fn a_server_name_in_an_exact_list_is_found() {
        assert_eq!(
            exact_server_name("mcp__claude-in-chrome|WebFetch"),
            Some("mcp__claude-in-chrome")
        );
        assert_eq!(exact_server_name("mcp__claude-in-chrome__navigate"), None);
        assert_eq!(exact_server_name("mcp__.*"), None);
    }

    #[test]
    fn a_matcher_for_a_declared_server_reaches_its_tools() {
        let config = Config::parse(
            "[[tool]]\nmatch = \"mcp__browserbase__(act|navigate)\"\nclass = \"pace\"\n",
            Path::new("/c.toml"),
        )
        .unwrap();
        assert!(reaches_declared("mcp__browserbase__.*", &config));
        assert!(!reaches_declared("mcp__other__.*", &config));
    }
}
