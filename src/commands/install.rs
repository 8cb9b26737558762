//! `pace-hook install` and `pace-hook uninstall`: put pace-hook's hooks into
//! a Claude Code settings file, or take them out, without hand-editing JSON.
//!
//! What the edit is lives in [`crate::commands::settings`] (pure, text in and text
//! out); this module does the I/O around it and keeps three promises:
//!
//! - **A file is never left half-written or clobbered.** The new text goes
//!   to a temporary file beside it, is synced, and is renamed over the old
//!   one (over its target, when the settings file is a symbolic link into a
//!   dotfiles repository, so the link stays a link). The file is read again
//!   just before the rename: if Claude Code or an editor changed it
//!   meanwhile, nothing is written.
//! - **A backup comes first.** Before a file that exists is changed, its
//!   bytes are copied to `<name>.bak-<UTC time>`, never over an existing
//!   backup, and the output names the copy. Nothing changed, no backup. The
//!   copies live under pace-hook's own state directory for settings
//!   backups, `$XDG_STATE_HOME/pace-hook/settings-backups/` (by default
//!   `~/.local/state/...`), at the settings file's own absolute path: not
//!   beside the file, where a project's `.claude/` would gain an untracked
//!   file in `git status` with every install and uninstall. One per change,
//!   not one overwritten each time, so any earlier text can be had back;
//!   install and uninstall are rare and a settings file is small. Not the
//!   gate's state directory either: that is a cache (`~/.cache`), which
//!   users clear.
//! - **The timeout outlasts every wait.** Claude Code kills a hook at its
//!   timeout and lets the call run unpaced, so `install` writes a timeout
//!   only if it is at least [`MARGIN_S`] above the `max_wait` of the config
//!   the hook will load.

use std::{
    fs::{self, File, OpenOptions},
    io::{ErrorKind, Write},
    os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt},
    path::{Path, PathBuf},
    time::{SystemTime, UNIX_EPOCH},
};

use crate::{
    commands::{
        clients::{self, Place},
        plugin,
        settings::{self, Change, EVENTS, Format, Hook, Scope},
    },
    config::Config,
    error::{Error, Result},
    hook::client::Client,
    read::matcher::{MATCHER, matcher_matches},
    read::profile,
};

/// The timeout `install` writes unless told otherwise: 30 s above the
/// default `max_wait` (270 s).
pub(crate) const DEFAULT_TIMEOUT_S: u64 = 300;

/// The least gap, in seconds, between `max_wait` and the hook's timeout.
///
/// A call that gives up at `max_wait` still has work to do before it
/// answers: it leaves the queue and gives back any site it took, and each of
/// those takes a site lock with the store's bookkeeping deadline
/// (`LOCK_WAIT`, 10 s) in case a stopped process holds it. Then it writes the
/// log line and its message. The work itself takes milliseconds (a paced
/// call is 0.7–1.6 ms end to end, `docs/BENCHMARKS.md`); the margin is that
/// one lock deadline plus 5 s for a machine under load (the shell that starts
/// the hook, a slow disk), so that pace-hook answers before Claude Code
/// would give up on it even in that case.
pub(crate) const MARGIN_S: u64 = crate::store::file::LOCK_WAIT.as_secs() + 5;

/// Install pace-hook's hooks in `scope`'s settings file with `timeout_s`
/// (default [`DEFAULT_TIMEOUT_S`]), and say what was done.
pub(crate) fn install(scope: Scope, timeout_s: Option<u64>) -> Result<String> {
    let path = scope.path()?;
    let project = settings::project_dir()?;
    let config = Config::discover_for(Some(&project))?;
    let given = timeout_s.is_some();
    let timeout_s = timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
    let max_wait_s = config.max_wait_ms.div_ceil(1000);
    let least_s = max_wait_s + MARGIN_S;
    let source = match &config.source {
        Some(p) => format!("from `{}`", p.display()),
        None => "the default".to_owned(),
    };
    if timeout_s < least_s {
        return Err(Error::TimeoutTooShort {
            timeout_s,
            given,
            least_s,
            max_wait_s,
            source,
        });
    }
    // Unit-tested in `matcher`; asserted here too, next to its one use.
    debug_assert!(profile::examples().all(|tool| matcher_matches(MATCHER, tool)));
    let exe = this_binary()?;
    let hook = Hook {
        matcher: MATCHER.to_owned(),
        command: settings::shell_quote(&exe.to_string_lossy()),
        timeout: timeout_s,
    };
    let before = read(&path)?;
    let edit = settings::install(before.as_deref().unwrap_or(""), &hook)
        .map_err(|p| p.at(&path, "install"))?;
    let mut out = String::new();
    let whose = scope.describe();
    if !edit.changed() {
        out += &format!(
            "pace-hook is already installed in `{}` ({whose}); nothing changed\n",
            path.display()
        );
    } else {
        let backup = write(&path, before.as_deref(), &edit.text)?;
        out += &format!(
            "installed pace-hook in `{}` ({whose}): {}\n",
            path.display(),
            changes(&EVENTS, &edit.changes)
        );
        out += &backed_up(backup.as_deref());
    }
    if let Some(off) = hooks_disabled() {
        out += &format!(
            "  warning: `disableAllHooks` is true in `{}`: Claude Code runs no hook, pace-hook included, so nothing is paced; remove it\n",
            off.display()
        );
    }
    out += &format!(
        "  it runs `{}` for tools matching `{MATCHER}`, with a timeout of {timeout_s} s (max_wait is {max_wait_s} s, {source})\n",
        hook.command,
    );
    out += &other_routes(Some(&path));
    if is_build_output(&exe) {
        out += &format!(
            "  note: `{}` is a cargo build output, which `cargo clean` deletes; a hook whose program is gone lets every call through. Install it with `cargo install --locked --path .` and run that `pace-hook install`\n",
            exe.display()
        );
    }
    Ok(out)
}

/// `install --client NAME`: pace-hook's hooks in that client's hook file
/// of `scope`, with the same promises as Claude Code's (a splice that keeps
/// every other byte, a backup, nothing done twice, a one-line refusal of
/// what cannot be edited safely).
pub(crate) fn install_client(
    client: Client,
    scope: Scope,
    timeout_s: Option<u64>,
) -> Result<String> {
    if client == Client::ClaudeCode {
        return install(scope, timeout_s);
    }
    let place = clients::place(client, scope)?;
    let project = settings::project_dir()?;
    let config = Config::discover_for(Some(&project))?;
    let exe = this_binary()?;
    let exe_text = exe.to_string_lossy().into_owned();
    let title = clients::title(client);
    let whose = match scope {
        Scope::User => "your user hooks",
        _ => "the project's hooks",
    };
    let max_wait_s = config.max_wait_ms.div_ceil(1000);
    let mut out = String::new();
    let (changed, timeout_line) = match &place {
        Place::File(path, format) => {
            let timeout_s = timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
            if timeout_s <= MARGIN_S {
                return Err(Error::Usage {
                    message: format!(
                        "`--timeout {timeout_s}` leaves no time to wait: a hook keeps {MARGIN_S} s for itself before its client kills it; give more than {MARGIN_S}"
                    ),
                });
            }
            let hook = clients::hook_for(client, &exe_text, timeout_s);
            let before = read(path)?;
            let edit = settings::install_in(format, before.as_deref().unwrap_or(""), &hook)
                .map_err(|p| p.at(path, &format!("install --client {}", client.name())))?;
            let changed = edit.changed();
            if changed {
                let backup = write(path, before.as_deref(), &edit.text)?;
                out += &format!(
                    "installed pace-hook in `{}` ({title}, {whose}): {}\n",
                    path.display(),
                    changes(format.events, &edit.changes)
                );
                out += &backed_up(backup.as_deref());
            } else {
                out += &format!(
                    "pace-hook is already installed in `{}` ({title}, {whose}); nothing changed\n",
                    path.display()
                );
            }
            let wait_s = max_wait_s.min(timeout_s - MARGIN_S);
            let matcher = if format.grouped {
                format!("tools matching `{}`", hook.matcher)
            } else {
                "every tool (the file has no matchers)".to_owned()
            };
            let unit = if hook.timeout == timeout_s {
                format!("{timeout_s} s")
            } else {
                format!("{} ms", hook.timeout)
            };
            (
                changed,
                format!(
                    "  it runs `{}` for {matcher}, with a timeout of {unit}: a call waits at most {wait_s} s for its turn (max_wait is {max_wait_s} s), then is refused with when to retry\n",
                    hook.command
                ),
            )
        }
        Place::Scripts(dir) => {
            let changed = install_scripts(dir, &exe_text, &mut out, title, whose)?;
            let wait_s = max_wait_s.min(30 - MARGIN_S);
            (
                changed,
                format!(
                    "  each runs `{}`; Cline gives a hook 30 s, so a call waits at most {wait_s} s for its turn, then is refused with when to retry\n",
                    clients::command_for(client, &exe_text, None)
                ),
            )
        }
    };
    let _ = changed;
    out += &timeout_line;
    out += &other_scope(client, scope);
    if client == Client::Gemini {
        out += &gemini_hooks_off();
    }
    for need in clients::needs(client, &place, scope) {
        out += &format!("  note: {need}\n");
    }
    if is_build_output(&exe) {
        out += &format!(
            "  note: `{}` is a cargo build output, which `cargo clean` deletes; a hook whose program is gone lets every call through. Install it with `cargo install --locked --path .` and run that `pace-hook install`\n",
            exe.display()
        );
    }
    Ok(out)
}

/// A warning when the agent's other scope runs pace-hook too: each agent
/// here merges its user and project hooks, so both would run.
fn other_scope(client: Client, scope: Scope) -> String {
    let other = if scope == Scope::User {
        Scope::Project
    } else {
        Scope::User
    };
    let Ok(place) = clients::place(client, other) else {
        return String::new();
    };
    let runs = match &place {
        Place::File(path, format) => fs::read_to_string(path)
            .ok()
            .and_then(|t| settings::parse(format, &t).ok().flatten())
            .is_some_and(|v| settings::runs_pace_hook_in(format, &v)),
        Place::Scripts(dir) => fs::read_to_string(dir.join("PreToolUse"))
            .is_ok_and(|t| clients::is_our_cline_script(&t)),
    };
    if !runs {
        return String::new();
    }
    let flag = if other == Scope::User { " --user" } else { "" };
    format!(
        "  warning: `{}` runs pace-hook too, and {} runs both, so pace-hook would run twice on every call: keep one (`pace-hook uninstall --client {}{flag}` removes that one)\n",
        place.path().display(),
        clients::title(client),
        client.name()
    )
}

/// A warning when Gemini CLI's settings turn every hook off.
fn gemini_hooks_off() -> String {
    let (Ok(home), Ok(project)) = (
        std::env::var("HOME").map(PathBuf::from),
        settings::project_dir(),
    ) else {
        return String::new();
    };
    let mut out = String::new();
    for scope in [Scope::User, Scope::Project] {
        let Some(Place::File(path, format)) =
            clients::place_in(Client::Gemini, scope, &home, &project)
        else {
            continue;
        };
        let Some(v) = fs::read_to_string(&path)
            .ok()
            .and_then(|t| settings::parse(&format, &t).ok().flatten())
        else {
            continue;
        };
        if v["hooksConfig"]["enabled"] == false {
            out += &format!(
                "  warning: `hooksConfig.enabled` is false in `{}`: Gemini CLI runs no hook, pace-hook included, so nothing is paced; remove it\n",
                path.display()
            );
        }
        let disabled = v["hooksConfig"]["disabled"]
            .as_array()
            .into_iter()
            .flatten();
        if let Some(name) = disabled
            .filter_map(serde_json::Value::as_str)
            .find(|n| n.contains("pace-hook"))
        {
            out += &format!(
                "  warning: `hooksConfig.disabled` in `{}` lists `{name}`, so Gemini CLI does not run it; take it out\n",
                path.display()
            );
        }
    }
    out
}

/// Cline's two executables in `dir`: written where absent, brought up to
/// date where they are pace-hook's from another path; a file of another
/// program is refused (Cline runs one file per event and directory).
/// Returns whether anything changed.
fn install_scripts(
    dir: &Path,
    exe: &str,
    out: &mut String,
    title: &str,
    whose: &str,
) -> Result<bool> {
    let script = clients::cline_script(exe);
    let mut plan = Vec::new();
    for event in clients::CLINE_EVENTS {
        let path = dir.join(event);
        let before = read(&path)?;
        match &before {
            Some(text) if *text == script && is_executable(&path) => {}
            Some(text) if !clients::is_our_cline_script(text) => {
                return Err(Error::Settings {
                    path,
                    problem: "is another program's Cline hook, and Cline runs one file per event in a directory".into(),
                    fix: "add `exec pace-hook --client cline` where that script should end, or move it aside and run `pace-hook install --client cline` again".into(),
                });
            }
            _ => plan.push((event, path, before)),
        }
    }
    if plan.is_empty() {
        *out += &format!(
            "pace-hook is already installed in `{}` ({title}, {whose}); nothing changed\n",
            dir.display()
        );
        return Ok(false);
    }
    let mut done = Vec::new();
    for (event, path, before) in plan {
        let backup = write(&path, before.as_deref(), &script)?;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
            .map_err(|e| Error::io("make executable", &path, e))?;
        done.push((event, backup, before.is_some()));
    }
    let what: Vec<String> = done
        .iter()
        .map(|(e, _, existed)| format!("{e} {}", if *existed { "updated" } else { "added" }))
        .collect();
    *out += &format!(
        "installed pace-hook in `{}` ({title}, {whose}): {}\n",
        dir.display(),
        what.join(", ")
    );
    for (_, backup, _) in &done {
        if let Some(b) = backup {
            *out += &format!("  the file as it was is saved in `{}`\n", b.display());
        }
    }
    Ok(true)
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 == 0o111)
}

/// `uninstall --client NAME`: exactly what `install --client NAME` put in,
/// taken out.
pub(crate) fn uninstall_client(client: Client, scope: Scope) -> Result<String> {
    if client == Client::ClaudeCode {
        return uninstall(scope);
    }
    let place = clients::place(client, scope)?;
    let title = clients::title(client);
    let whose = match scope {
        Scope::User => "your user hooks",
        _ => "the project's hooks",
    };
    match &place {
        Place::File(path, format) => {
            let Some(before) = read(path)? else {
                return Ok(format!(
                    "pace-hook is not installed in `{}` ({title}, {whose}: no such file); nothing changed\n",
                    path.display()
                ));
            };
            let edit = settings::uninstall_in(format, &before)
                .map_err(|p| p.at(path, &format!("uninstall --client {}", client.name())))?;
            let mut out = if !edit.changed() {
                format!(
                    "pace-hook is not installed in `{}` ({title}, {whose}); nothing changed\n",
                    path.display()
                )
            } else if settings::is_bare_skeleton(format, &edit.text) {
                // The file install made, now empty of hooks: gone, as it
                // was before install.
                let backup = backup(path, &before)?;
                fs::remove_file(path).map_err(|e| Error::io("remove", path, e))?;
                format!(
                    "removed pace-hook from `{}` ({title}, {whose}): the file held nothing else and is deleted\n  the file as it was is saved in `{}`\n",
                    path.display(),
                    backup.display()
                )
            } else {
                let backup = write(path, Some(&before), &edit.text)?;
                let mut out = format!(
                    "removed pace-hook from `{}` ({title}, {whose}): {}\n",
                    path.display(),
                    changes(format.events, &edit.changes)
                );
                out += &backed_up(backup.as_deref());
                out
            };
            for note in &edit.left {
                out += &format!("  note: {note}\n");
            }
            Ok(out)
        }
        Place::Scripts(dir) => {
            let mut removed = Vec::new();
            let mut out = String::new();
            for event in clients::CLINE_EVENTS {
                let path = dir.join(event);
                let Some(text) = read(&path)? else {
                    continue;
                };
                if !clients::is_our_cline_script(&text) {
                    out += &format!(
                        "  note: `{}` is not the script install writes, so it was left as it is\n",
                        path.display()
                    );
                    continue;
                }
                let backup = backup(&path, &text)?;
                fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
                removed.push((event, backup));
            }
            let head = if removed.is_empty() {
                format!(
                    "pace-hook is not installed in `{}` ({title}, {whose}); nothing changed\n",
                    dir.display()
                )
            } else {
                let mut head = format!(
                    "removed pace-hook from `{}` ({title}, {whose}): {}\n",
                    dir.display(),
                    removed
                        .iter()
                        .map(|(e, _)| format!("{e} removed"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                for (_, b) in &removed {
                    head += &format!("  the file as it was is saved in `{}`\n", b.display());
                }
                head
            };
            Ok(head + &out)
        }
    }
}

/// `install --plugin`: the plugin placed where it lasts and installed (see
/// [`plugin::install`]), with a warning for every other route that runs
/// pace-hook.
pub(crate) fn install_plugin() -> Result<String> {
    let mut out = plugin::install()?;
    out += &other_routes(None);
    Ok(out)
}

/// A warning line for each way pace-hook runs besides `own` (a settings
/// file; `None` for the plugin): with two, pace-hook runs twice on every
/// call, and the two must be kept in step.
fn other_routes(own: Option<&Path>) -> String {
    let user = settings::claude_home().ok();
    let project = settings::project_dir().ok();
    let mut out = String::new();
    let twice = "with both, pace-hook runs twice on every call";
    if own.is_some()
        && let Some((p, f)) = plugin::loaded_pace_hook(user.as_deref(), project.as_deref())
    {
        out += &format!(
            "  warning: the plugin {} (from `{}`) runs pace-hook too; {twice}: keep one, `claude plugin uninstall {}` or `pace-hook uninstall` with this scope\n",
            p.id,
            f.root.display(),
            p.id
        );
    }
    for (scope, path) in settings::files(user.as_deref(), project.as_deref()) {
        if Some(path.as_path()) == own {
            continue;
        }
        let runs = fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| settings::runs_pace_hook(&v));
        if runs {
            let flag = match scope {
                Scope::User => " --user",
                Scope::Project => "",
                Scope::Local => " --local",
            };
            out += &format!(
                "  warning: `{}` ({}) runs pace-hook too; {twice}: keep one (`pace-hook uninstall{flag}` removes that one)\n",
                path.display(),
                scope.describe()
            );
        }
    }
    out
}

/// Remove pace-hook's hooks from `scope`'s settings file, and say what was
/// done.
pub(crate) fn uninstall(scope: Scope) -> Result<String> {
    let path = scope.path()?;
    let whose = scope.describe();
    let Some(before) = read(&path)? else {
        return Ok(format!(
            "pace-hook is not installed in `{}` ({whose}: no such file); nothing changed\n",
            path.display()
        ));
    };
    let edit = settings::uninstall(&before).map_err(|p| p.at(&path, "uninstall"))?;
    let mut out = if edit.changed() {
        let backup = write(&path, Some(&before), &edit.text)?;
        let mut out = format!(
            "removed pace-hook from `{}` ({whose}): {}\n",
            path.display(),
            changes(&EVENTS, &edit.changes)
        );
        out += &backed_up(backup.as_deref());
        out
    } else {
        format!(
            "pace-hook is not installed in `{}` ({whose}); nothing changed\n",
            path.display()
        )
    };
    for note in &edit.left {
        out += &format!("  note: {note}\n");
    }
    Ok(out)
}

/// The first Claude Code settings file here that sets `disableAllHooks`:
/// then no hook runs at all.
fn hooks_disabled() -> Option<PathBuf> {
    let user = settings::claude_home().ok();
    let project = settings::project_dir().ok();
    settings::files(user.as_deref(), project.as_deref())
        .into_iter()
        .map(|(_, p)| p)
        .find(|p| {
            fs::read_to_string(p)
                .ok()
                .and_then(|t| settings::parse(&Format::CLAUDE, &t).ok().flatten())
                .is_some_and(|v| v["disableAllHooks"] == true)
        })
}

/// `PreToolUse added, PostToolUse added, …`.
fn changes(events: &[&str], changes: &[Change]) -> String {
    events
        .iter()
        .zip(changes)
        .map(|(event, change)| {
            let what = match change {
                Change::Added => "added",
                Change::Updated => "updated",
                Change::Unchanged => "already there",
                Change::Removed => "removed",
                Change::Absent => "was not there",
            };
            format!("{event} {what}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn backed_up(backup: Option<&Path>) -> String {
    match backup {
        Some(b) => format!("  the file as it was is saved in `{}`\n", b.display()),
        None => "  the file did not exist and was created\n".to_owned(),
    }
}

/// The running binary's absolute path, with links resolved: the command a
/// hook runs must not depend on the hook's `PATH`, which is not the shell's.
fn this_binary() -> Result<PathBuf> {
    let exe = std::env::current_exe().map_err(|e| Error::io("find", "pace-hook's own path", e))?;
    fs::canonicalize(&exe).map_err(|e| Error::io("resolve", exe, e))
}

/// Whether `exe` sits in a cargo `target/debug` or `target/release`.
fn is_build_output(exe: &Path) -> bool {
    let parts: Vec<_> = exe.components().map(|c| c.as_os_str()).collect();
    parts
        .windows(2)
        .any(|w| w[0] == "target" && (w[1] == "debug" || w[1] == "release"))
}

/// The settings file's text, `None` if there is no file.
fn read(path: &Path) -> Result<Option<String>> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| Error::Settings {
                path: path.to_owned(),
                problem: "is not UTF-8 text".into(),
                fix: "save it as UTF-8 (Claude Code reads it as such)".into(),
            }),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read", path, e)),
    }
}

/// Back up `before` (if the file existed), then replace the file with
/// `text`. Returns the backup's path.
fn write(path: &Path, before: Option<&str>, text: &str) -> Result<Option<PathBuf>> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    let backup = match before {
        Some(before) => Some(backup(path, before)?),
        None => None,
    };
    // Through a link to the file it names: the link stays as it is.
    let target = match fs::canonicalize(path) {
        Ok(t) => t,
        Err(e) if e.kind() == ErrorKind::NotFound => path.to_owned(),
        Err(e) => return Err(Error::io("resolve", path, e)),
    };
    let mode = fs::metadata(&target)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0o644);
    let target_dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = target_dir.join(format!(".{name}.pace-hook-{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(Error::io("write", &temp, e));
    }
    // Changed since it was read (Claude Code saving a permission, an
    // editor)? Then this edit is of an old text: keep the newer one.
    let now = read(&target)?;
    if now.as_deref() != before {
        let _ = fs::remove_file(&temp);
        return Err(Error::Settings {
            path: path.to_owned(),
            problem: "changed while pace-hook was editing it".into(),
            fix: "run the command again".into(),
        });
    }
    if let Err(e) = fs::rename(&temp, &target) {
        let _ = fs::remove_file(&temp);
        return Err(Error::io("replace", &target, e));
    }
    if let Ok(d) = File::open(target_dir) {
        let _ = d.sync_all();
    }
    Ok(backup)
}

/// Where the backups of settings files go: `$XDG_STATE_HOME` (when it is
/// an absolute path, as the XDG spec asks), else `~/.local/state`, then
/// `pace-hook/settings-backups`. `None` with neither: then beside the file.
fn backup_root() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(".local").join("state"))
        })?;
    Some(state.join("pace-hook").join("settings-backups"))
}

/// Copy `before` to `<path>.bak-<UTC time>` (with `-2`, `-3`… when that
/// exists already) under [`backup_root`], at `path`'s own absolute path,
/// never over another file.
fn backup(path: &Path, before: &str) -> Result<PathBuf> {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let absolute = std::path::absolute(path).map_err(|e| Error::io("resolve", path, e))?;
    let beside = match backup_root() {
        Some(root) => {
            let mirrored = root.join(absolute.strip_prefix("/").unwrap_or(&absolute));
            let dir = mirrored.parent().unwrap_or(&root).to_owned();
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&dir)
                .map_err(|e| Error::io("create directory", &dir, e))?;
            mirrored
        }
        None => absolute,
    };
    let base = format!("{}.bak-{}", beside.display(), utc_stamp(secs));
    for n in 1..1000 {
        let candidate = PathBuf::from(if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&candidate)
        {
            Ok(mut f) => {
                f.write_all(before.as_bytes())
                    .and_then(|()| f.sync_all())
                    .map_err(|e| Error::io("write", &candidate, e))?;
                return Ok(candidate);
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io("create", candidate, e)),
        }
    }
    Err(Error::io(
        "create",
        base,
        std::io::Error::from(ErrorKind::AlreadyExists),
    ))
}

/// `secs` since the epoch as `YYYYMMDDTHHMMSSZ` (UTC), which sorts as time
/// does.
fn utc_stamp(secs: u64) -> String {
    let rem = secs % 86_400;
    let (year, month, day) = crate::pacing::when::civil((secs / 86_400) as i64);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backups_are_named_by_utc_time() {
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        assert_eq!(utc_stamp(1_733_045_400), "20241201T093000Z");
        assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
        assert_eq!(utc_stamp(4_102_444_799), "20991231T235959Z");
    }

    #[test]
    fn the_default_timeout_leaves_the_margin_over_the_default_max_wait() {
        let least = crate::config::DEFAULT_MAX_WAIT_MS.div_ceil(1000) + MARGIN_S;
        assert!(DEFAULT_TIMEOUT_S >= least, "{DEFAULT_TIMEOUT_S} < {least}");
        assert_eq!(MARGIN_S, 15);
    }

    /// The plugin's files, read at build time: the plugin says what
    /// `install` says, so the two ways of installing pace the same calls.
    mod plugin {
        use serde_json::Value;

        use super::*;

        fn json(text: &str) -> Value {
            serde_json::from_str(text).unwrap()
        }

        #[test]
        fn its_hooks_are_installs_with_the_launcher_as_the_command() {
            let hooks = json(include_str!("../../plugin/hooks/hooks.json"));
            let events = hooks["hooks"].as_object().unwrap();
            assert_eq!(events.len(), EVENTS.len());
            for event in EVENTS {
                assert_eq!(
                    hooks["hooks"][event],
                    serde_json::json!([{
                        "matcher": MATCHER,
                        "hooks": [{
                            "type": "command",
                            "command": "sh \"${CLAUDE_PLUGIN_ROOT}/hooks/pace-hook-launcher\"",
                            "timeout": DEFAULT_TIMEOUT_S,
                        }],
                    }]),
                    "{event}"
                );
            }
        }

        #[test]
        fn its_manifest_and_marketplace_entry_name_this_version() {
            let manifest = json(include_str!("../../plugin/.claude-plugin/plugin.json"));
            assert_eq!(manifest["name"], "pace-hook");
            assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
            assert_eq!(manifest["license"], env!("CARGO_PKG_LICENSE"));
            let market = json(include_str!("../../.claude-plugin/marketplace.json"));
            let entry = &market["plugins"][0];
            assert_eq!(entry["name"], manifest["name"]);
            // Relative to the marketplace's root (the repository), where the
            // plugin's own `.claude-plugin/plugin.json` is.
            assert_eq!(entry["source"], "./plugin");
            assert!(market["owner"]["name"].is_string());
        }
    }

    #[test]
    fn build_outputs_are_told_apart_from_installed_binaries() {
        assert!(is_build_output(Path::new(
            "/src/pace-hook/target/debug/pace-hook"
        )));
        assert!(is_build_output(Path::new("/t/target/release/pace-hook")));
        assert!(!is_build_output(Path::new("/home/u/.cargo/bin/pace-hook")));
        assert!(!is_build_output(Path::new("/srv/target/pace-hook")));
    }
}
