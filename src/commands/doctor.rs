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

use crate::{
    config::{Backend, Config},
    duration::format_duration,
    exit::Exit,
    pacing::clock::{Clock, EpochMs, SystemClock},
    pacing::when,
    read::matcher::{MATCHER, is_exact_list, matcher_matches},
    read::profile::FAMILIES,
    store::LEASE_TTL,
};

/// The events pace-hook must be hooked on.
pub(crate) const EVENTS: [&str; 3] = ["PreToolUse", "PostToolUse", "PostToolUseFailure"];

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
}

impl Places {
    /// The places of this process's environment.
    pub(crate) fn from_env() -> Self {
        let user_dir = std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|h| !h.is_empty())
                    .map(|h| Path::new(&h).join(".claude"))
            });
        Self {
            user_dir,
            project_dir: Config::project_dir(),
            path_var: std::env::var_os("PATH"),
            exe: std::env::current_exe().ok(),
        }
    }
}

/// One settings file Claude Code reads.
#[derive(Debug)]
struct SettingsFile {
    path: PathBuf,
    json: Option<Value>,
}

/// A pace-hook command hook, as a settings file declares it.
#[derive(Debug, Clone)]
struct Entry {
    event: &'static str,
    file: PathBuf,
    matcher: String,
    command: String,
    args: Vec<String>,
    timeout: Option<Value>,
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

/// Every check, in order: settings, hook entries, config, state, backend,
/// queues, unknown tools.
pub(crate) fn checks(places: &Places, now: EpochMs) -> Vec<Check> {
    let mut out = Vec::new();
    let (config, config_check) = config_check(places);
    let files = settings_files(places, &mut out);
    let entries = entries(&files, places);
    hook_checks(&files, &entries, &config, places, &mut out);
    out.push(config_check);
    for p in &config.presets {
        out.push(Check::ok(crate::config::preset::describe(p)));
    }
    state_checks(&config, now, &mut out);
    out
}

fn config_check(places: &Places) -> (Config, Check) {
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
            (c, check)
        }
        Err(e) => (
            Config::default(),
            Check::bad(format!(
                "{e}: fix it; until then every paced call is blocked (the checks below use the defaults)"
            )),
        ),
    }
}

/// The settings files that exist, read; a line for those that cannot be.
fn settings_files(places: &Places, out: &mut Vec<Check>) -> Vec<SettingsFile> {
    let mut paths: Vec<PathBuf> = Vec::new();
    if let Some(u) = &places.user_dir {
        paths.push(u.join("settings.json"));
    }
    if let Some(p) = &places.project_dir {
        paths.push(p.join(".claude").join("settings.json"));
        paths.push(p.join(".claude").join("settings.local.json"));
    }
    // A project in the home directory reads the user file once.
    let mut seen = BTreeSet::new();
    paths.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut read = Vec::new();
    let mut missing = Vec::new();
    for path in paths {
        match std::fs::read_to_string(&path) {
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(json) if json.is_object() => {
                    read.push(format!("`{}`", path.display()));
                    files.push(SettingsFile {
                        path,
                        json: Some(json),
                    });
                }
                Ok(_) => problems.push(Check::bad(format!(
                    "settings `{}` is not a JSON object: Claude Code ignores it; make it `{{\"hooks\": {{…}}}}`",
                    path.display()
                ))),
                Err(e) => problems.push(Check::bad(format!(
                    "settings `{}` is not valid JSON ({e}): fix it; Claude Code cannot read its hooks either",
                    path.display()
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

/// The pace-hook command hooks the files declare.
fn entries(files: &[SettingsFile], places: &Places) -> Vec<Entry> {
    let mut out = Vec::new();
    for f in files {
        let Some(hooks) = f.json.as_ref().and_then(|j| j.get("hooks")) else {
            continue;
        };
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
                    if h.get("type").and_then(Value::as_str) != Some("command") {
                        continue;
                    }
                    let Some(command) = h.get("command").and_then(Value::as_str) else {
                        continue;
                    };
                    let args: Vec<String> = h
                        .get("args")
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .map(|v| v.as_str().map_or(v.to_string(), str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default();
                    let entry = Entry {
                        event,
                        file: f.path.clone(),
                        matcher: matcher.clone(),
                        command: command.to_owned(),
                        args,
                        timeout: h.get("timeout").cloned(),
                    };
                    if is_pace_hook(&entry, places) {
                        out.push(entry);
                    }
                }
            }
        }
    }
    out
}

/// Whether an entry runs pace-hook: its program's file name starts with
/// `pace-hook` (the binary, or a plugin's `pace-hook-launcher`).
fn is_pace_hook(entry: &Entry, places: &Places) -> bool {
    program_of(entry, places).is_some_and(|(program, _)| {
        Path::new(&program)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("pace-hook"))
    })
}

/// The program an entry runs and the words after it: in exec form
/// (`args` given) the command itself, else the command's shell words.
fn program_of(entry: &Entry, places: &Places) -> Option<(String, Vec<String>)> {
    if !entry.args.is_empty() {
        return Some((expand(&entry.command, places), entry.args.clone()));
    }
    let words = shell_words(&entry.command)?;
    let mut words = words.into_iter().skip_while(|(w, _)| is_assignment(w));
    let (program, end) = words.next()?;
    let rest = entry.command[end..].trim();
    Some((
        expand(&program, places),
        if rest.is_empty() {
            Vec::new()
        } else {
            vec![rest.to_owned()]
        },
    ))
}

/// `NAME=value`, a variable set for the command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name
                .chars()
                .enumerate()
                .all(|(i, c)| c == '_' || c.is_ascii_alphabetic() || i > 0 && c.is_ascii_digit())
    })
}

/// A shell command's words, as far as `doctor` needs them, each with the
/// byte offset where it ends: quotes and backslashes are honoured; each of
/// `;&|<>()` outside quotes is a word of its own (so `pace-hook || true`
/// has words after its program). `None` for an unbalanced quote.
fn shell_words(command: &str) -> Option<Vec<(String, usize)>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.char_indices().peekable();
    let end = |chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>| {
        chars.peek().map_or(command.len(), |(i, _)| *i)
    };
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()?.1 {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()?.1 {
                        '"' => break,
                        '\\' => word.push(chars.next()?.1),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?.1);
            }
            ';' | '&' | '|' | '<' | '>' | '(' | ')' => {
                if in_word {
                    words.push((std::mem::take(&mut word), i));
                    in_word = false;
                }
                words.push((c.to_string(), i + 1));
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push((std::mem::take(&mut word), i));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
        if in_word && chars.peek().is_none() {
            words.push((std::mem::take(&mut word), end(&mut chars)));
            in_word = false;
        }
    }
    Some(words)
}

/// `$VAR`, `${VAR}` and a leading `~` expanded: `CLAUDE_PROJECT_DIR` as the
/// project, the rest from the environment.
fn expand(word: &str, places: &Places) -> String {
    let var = |name: &str| -> String {
        if name == "CLAUDE_PROJECT_DIR"
            && let Some(p) = &places.project_dir
        {
            return p.display().to_string();
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
        .first()
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
        } else {
            let list: Vec<String> = mine
                .iter()
                .map(|e| format!("matcher `{}` in `{}`", e.matcher, e.file.display()))
                .collect();
            out.push(Check::ok(format!(
                "{event}: a pace-hook entry ({})",
                list.join("; ")
            )));
        }
    }
    if entries.is_empty() {
        return;
    }
    command_checks(entries, places, out);
    timeout_checks(entries, config, out);
    matcher_checks(entries, config, out);
}

/// Each distinct command: found, executable, and run with no arguments.
fn command_checks(entries: &[Entry], places: &Places, out: &mut Vec<Check>) {
    let mut seen = BTreeSet::new();
    let exe = places
        .exe
        .as_ref()
        .map_or("the full path of pace-hook".to_owned(), |p| {
            format!("`{}`", p.display())
        });
    for e in entries {
        if !seen.insert((e.command.clone(), e.args.clone())) {
            continue;
        }
        let events: Vec<&str> = entries
            .iter()
            .filter(|o| o.command == e.command && o.args == e.args)
            .map(|o| o.event)
            .collect();
        let whose = format!("({}, `{}`)", events.join(", "), e.file.display());
        let Some((program, rest)) = program_of(e, places) else {
            out.push(Check::bad(format!(
                "command `{}` {whose} cannot be read (an unbalanced quote): make it just {exe}",
                e.command
            )));
            continue;
        };
        if !rest.is_empty() {
            out.push(Check::bad(format!(
                "command `{}` {whose} runs pace-hook with `{}` after it: the hook takes no arguments and its exit code and stderr must reach Claude Code as they are; make the command just {exe}",
                e.command,
                rest.join(" ")
            )));
            continue;
        }
        match resolve(&program, places) {
            Ok(path) => out.push(Check::ok(format!(
                "command `{}` {whose}: `{}` is executable",
                e.command,
                path.display()
            ))),
            Err(problem) => out.push(Check::bad(format!(
                "command `{}` {whose}: {problem}; Claude Code would let every call through unpaced (a missing command exits 127); use {exe}",
                e.command
            ))),
        }
    }
}

/// Where `program` is, if it is an executable file; else what is wrong.
fn resolve(program: &str, places: &Places) -> Result<PathBuf, String> {
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
            Ok(m) if m.is_file() && executable(c) => return Ok(c.clone()),
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
            .flat_map(|f| f.tools)
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
                .copied()
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
            out.push(Check::ok(format!(
                "{}: all {} tools reach pace-hook on all three events",
                family.name,
                family.tools.len()
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
        let request = crate::gate::requests::for_key(config, site);
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
    fn shell_words_keep_quotes_and_split_operators() {
        let words = |c: &str| -> Vec<String> {
            shell_words(c)
                .unwrap()
                .into_iter()
                .map(|(w, _)| w)
                .collect()
        };
        assert_eq!(
            words(r#""$CLAUDE_PROJECT_DIR/bin/pace-hook""#),
            ["$CLAUDE_PROJECT_DIR/bin/pace-hook"]
        );
        assert_eq!(words("pace-hook||true"), ["pace-hook", "|", "|", "true"]);
        assert_eq!(
            words(r"RUST_LOG=x '/a b/pace-hook' 2>/dev/null"),
            ["RUST_LOG=x", "/a b/pace-hook", "2", ">", "/dev/null"]
        );
        assert_eq!(shell_words("'open"), None);
    }

    #[test]
    fn what_follows_the_program_is_quoted_as_written() {
        let entry = |command: &str| Entry {
            event: "PreToolUse",
            file: PathBuf::from("/s.json"),
            matcher: String::new(),
            command: command.to_owned(),
            args: Vec::new(),
            timeout: None,
        };
        let places = Places {
            user_dir: None,
            project_dir: None,
            path_var: None,
            exe: None,
        };
        assert_eq!(
            program_of(&entry("X=1 pace-hook 2>/dev/null || true"), &places),
            Some((
                "pace-hook".to_owned(),
                vec!["2>/dev/null || true".to_owned()]
            ))
        );
        assert_eq!(
            program_of(&entry("'/a b/pace-hook'"), &places),
            Some(("/a b/pace-hook".to_owned(), Vec::new()))
        );
    }

    #[test]
    fn the_project_dir_is_expanded_in_a_command() {
        let places = Places {
            user_dir: None,
            project_dir: Some(PathBuf::from("/p")),
            path_var: None,
            exe: None,
        };
        assert_eq!(
            expand("${CLAUDE_PROJECT_DIR}/bin/pace-hook", &places),
            "/p/bin/pace-hook"
        );
        assert_eq!(expand("$CLAUDE_PROJECT_DIR/x", &places), "/p/x");
        assert_eq!(expand("a$", &places), "a$");
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
