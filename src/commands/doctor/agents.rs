//! The doctor's look at every other agent on the machine: Codex CLI, Gemini
//! CLI, Copilot CLI with VS Code (one shared file), Cline. For each one it
//! finds (its CLI on `PATH`, its directories in the home or the project):
//! whether a hook runs pace-hook, in which files, on which events, for which
//! of its tools, with which timeout against the `max_wait` that applies,
//! and what the agent needs besides the file (Codex's trust, Gemini CLI's
//! trusted folder and `hooksConfig`, Cline's "Enable Hooks"). Each file is
//! read as `install --client` reads it ([`settings::parse`]), which is as
//! the agent's own parser reads it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Check, Places, resolve, which};
use crate::{
    commands::{
        clients::{self, Place},
        settings::{self, Format, Scope},
    },
    config::Config,
    duration::format_duration,
    hook::client::{Client, SLACK_MS},
};

/// The agents this looks at, with the programs that show one is here.
const AGENTS: [(Client, &[&str]); 4] = [
    (Client::Codex, &["codex"]),
    (Client::Gemini, &["gemini"]),
    (Client::Copilot, &["copilot", "code"]),
    (Client::Cline, &["cline"]),
];

/// One tool of an agent that its hook must reach, and what it stands for.
struct Tool {
    name: &'static str,
    what: &'static str,
}

/// The tools each agent's matcher must reach: an MCP tool, its own web
/// tools, its shell (names as `hook::client` reads them).
fn tools(client: Client) -> &'static [Tool] {
    match client {
        Client::Codex => &[
            Tool {
                name: "mcp__playwright__browser_navigate",
                what: "MCP tools",
            },
            Tool {
                name: "Bash",
                what: "its shell",
            },
        ],
        Client::Gemini => &[
            Tool {
                name: "mcp_playwright_browser_navigate",
                what: "MCP tools",
            },
            Tool {
                name: "web_fetch",
                what: "web_fetch",
            },
            Tool {
                name: "run_shell_command",
                what: "its shell",
            },
        ],
        _ => &[],
    }
}

/// Whether the agent runs a hook with `matcher` for `tool`: both Codex and
/// Gemini CLI test the matcher as an unanchored regular expression, `*`
/// or nothing selecting every tool.
fn selects(matcher: &str, tool: &str) -> bool {
    let m = matcher.trim();
    m.is_empty() || m == "*" || regex_lite::Regex::new(m).is_ok_and(|re| re.is_match(tool))
}

/// A pace-hook handler found in an agent's hook file.
struct Found {
    event: String,
    group: usize,
    handler: usize,
    matcher: Option<String>,
    command: String,
    timeout: Option<Value>,
}

/// The checks for every other agent.
pub(super) fn checks(places: &Places, config: &Config, out: &mut Vec<Check>) {
    let Some(home) = places.home.as_deref() else {
        return;
    };
    let project = places.project_dir.as_deref();
    let mut absent = Vec::new();
    for (client, programs) in AGENTS {
        let on_path: Vec<&str> = programs
            .iter()
            .copied()
            .filter(|p| which(p, places).is_some())
            .collect();
        let spots: Vec<(Scope, Place)> = [Scope::Project, Scope::User]
            .into_iter()
            .filter(|s| *s == Scope::User || project.is_some())
            .filter_map(|s| {
                clients::place_in(client, s, home, project.unwrap_or(Path::new(""))).map(|p| (s, p))
            })
            .collect();
        let dirs: Vec<PathBuf> = agent_dirs(client, home, project)
            .into_iter()
            .filter(|d| d.exists())
            .collect();
        let present: Vec<&(Scope, Place)> =
            spots.iter().filter(|(_, p)| p.path().exists()).collect();
        let title = title(client);
        if on_path.is_empty() && dirs.is_empty() && present.is_empty() {
            absent.push(title);
            continue;
        }
        let mut seen: Vec<String> = on_path.iter().map(|p| format!("`{p}` on PATH")).collect();
        seen.extend(dirs.iter().map(|d| format!("`{}`", d.display())));
        let seen = if seen.is_empty() {
            String::new()
        } else {
            format!(" (found: {})", seen.join(", "))
        };
        let mut hooked = Vec::new();
        let mut lines = Vec::new();
        for (scope, place) in &spots {
            let runs = match place {
                Place::File(path, format) => {
                    file_checks(client, *scope, path, format, places, config, &mut lines)
                }
                Place::Scripts(dir) => script_checks(dir, places, config, &mut lines),
            };
            if runs {
                hooked.push(place.path().to_owned());
            }
        }
        // The agent merges its user and project hooks: both run.
        if let [a, b] = hooked.as_slice() {
            lines.push(Check::bad(format!(
                "{title}: pace-hook runs twice on each call, from `{}` and from `{}`; keep one (`pace-hook uninstall --client {} --user` removes the user one)",
                a.display(),
                b.display(),
                client.name()
            )));
        }
        let hooked = !hooked.is_empty();
        // An editor on PATH is no sign that its agent is used.
        let only_editor = dirs.is_empty() && present.is_empty() && on_path == ["code"];
        if !hooked && only_editor {
            out.push(Check::ok(
                "VS Code (`code` on PATH): its agent has no pace-hook hook; if it reaches websites, run `pace-hook install --client vscode`",
            ));
            continue;
        }
        if !hooked {
            out.push(Check::bad(format!(
                "{title}{seen}: no hook runs pace-hook, so its calls reach every site unpaced; run `pace-hook install --client {}` (or with --user)",
                client.name()
            )));
            out.extend(lines);
            continue;
        }
        out.push(Check::ok(format!("{title}{seen}: hooked")));
        out.extend(lines);
        out.extend(needs(client, home, project, config));
    }
    if !absent.is_empty() {
        out.push(Check::ok(format!(
            "other agents not found here: {}",
            absent.join(", ")
        )));
    }
}

fn title(client: Client) -> &'static str {
    match client {
        Client::Copilot => "Copilot CLI / VS Code",
        c => clients::title(c),
    }
}

/// The directories that show an agent is set up here.
fn agent_dirs(client: Client, home: &Path, project: Option<&Path>) -> Vec<PathBuf> {
    let mut out = match client {
        Client::Codex => vec![clients::codex_home(home)],
        Client::Gemini => vec![home.join(".gemini")],
        Client::Copilot => vec![home.join(".copilot")],
        Client::Cline => vec![home.join("Documents").join("Cline")],
        _ => Vec::new(),
    };
    if let Some(p) = project {
        out.push(match client {
            Client::Codex => p.join(".codex"),
            Client::Gemini => p.join(".gemini"),
            Client::Copilot => p.join(".github").join("hooks"),
            _ => p.join(".clinerules"),
        });
    }
    out
}

/// One hook file: read as its agent reads it, its pace-hook handlers
/// checked. Returns whether any runs pace-hook on the agent's first event
/// (its Pre).
fn file_checks(
    client: Client,
    scope: Scope,
    path: &Path,
    format: &Format,
    places: &Places,
    config: &Config,
    out: &mut Vec<Check>,
) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        if path.exists() {
            out.push(Check::bad(format!(
                "`{}` cannot be read as UTF-8 text: {} cannot read it either",
                path.display(),
                format.name
            )));
        }
        return false;
    };
    let value = match settings::parse(format, &text) {
        Ok(Some(v)) => v,
        Ok(None) => return false,
        Err(p) => {
            out.push(Check::bad(format!(
                "`{}` {}; {}",
                path.display(),
                p.problem,
                p.fix
            )));
            return false;
        }
    };
    let found = pace_hook_handlers(format, &value);
    if found.is_empty() {
        return false;
    }
    let first = format.events[0];
    let events: Vec<&str> = format
        .events
        .iter()
        .copied()
        .filter(|e| found.iter().any(|f| f.event == *e))
        .collect();
    let missing: Vec<&str> = format
        .events
        .iter()
        .copied()
        .filter(|e| !events.contains(e))
        .collect();
    let whose = match scope {
        Scope::User => "user",
        _ => "project",
    };
    let mut details = Vec::new();
    let mut timeouts = Vec::new();
    for f in &found {
        if let Some(t) = handler_checks(client, path, format, f, places, config, &mut details) {
            timeouts.push(t);
        }
    }
    timeouts.dedup();
    let timeout = if timeouts.len() == 1 {
        format!("; {}", timeouts[0])
    } else {
        String::new()
    };
    if missing.is_empty() {
        out.push(Check::ok(format!(
            "`{}` ({whose}): pace-hook on {}{timeout}",
            path.display(),
            events.join(", ")
        )));
    } else {
        let why = if missing.contains(&first) {
            "a call that misses it passes unpaced"
        } else {
            "a call whose finish is not recorded holds its site for in_flight_hold"
        };
        out.push(Check::bad(format!(
            "`{}` ({whose}): pace-hook on {}, not on {}: {why}; run `pace-hook install --client {}`",
            path.display(),
            if events.is_empty() { "nothing".to_owned() } else { events.join(", ") },
            missing.join(", "),
            client.name()
        )));
    }
    out.extend(details);
    if client == Client::Codex {
        codex_trust(path, scope, places, &found, out);
    }
    events.contains(&first)
}

/// Every handler in `v` that runs pace-hook, wherever it stands.
fn pace_hook_handlers(format: &Format, v: &Value) -> Vec<Found> {
    let mut out = Vec::new();
    for event in format.events {
        let Some(entries) = v["hooks"][*event].as_array() else {
            continue;
        };
        for (g, entry) in entries.iter().enumerate() {
            for (h, handler) in settings::handlers_of(format, entry).iter().enumerate() {
                if settings::invocation_in(format, handler).is_none() {
                    continue;
                }
                out.push(Found {
                    event: (*event).to_owned(),
                    group: g,
                    handler: h,
                    matcher: format
                        .grouped
                        .then(|| entry["matcher"].as_str().unwrap_or("").to_owned()),
                    command: handler[format.command_key]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    timeout: handler.get(format.timeout_key).cloned(),
                });
            }
        }
    }
    out
}

/// One pace-hook handler: it names this agent, its program runs, its
/// matcher reaches the agent's web, shell and MCP tools, and the agent's
/// timeout outlasts the longest wait the command allows. Problems go to
/// `out`; a timeout that holds is returned, in words.
fn handler_checks(
    client: Client,
    path: &Path,
    format: &Format,
    f: &Found,
    places: &Places,
    config: &Config,
    out: &mut Vec<Check>,
) -> Option<String> {
    let at = format!("{} in `{}`", f.event, path.display());
    let Some(words) = settings::shell_words(&f.command) else {
        out.push(Check::bad(format!(
            "{at}: command `{}` cannot be read (an unbalanced quote)",
            f.command
        )));
        return None;
    };
    let words: Vec<&str> = words.iter().map(|(w, _)| w.as_str()).collect();
    let flag = |name: &str| {
        words
            .iter()
            .position(|w| *w == name)
            .and_then(|i| words.get(i + 1))
            .copied()
    };
    let named = flag("--client");
    let want = clients::command_for(client, "x", None);
    let want = want.rsplit(' ').next().unwrap_or_default();
    if named != Some(want) {
        out.push(Check::bad(format!(
            "{at}: command `{}` {}: pace-hook then reads and answers this agent's events as another's, and a refusal may let the call run; run `pace-hook install --client {}`",
            f.command,
            match named {
                Some(n) => format!("names `--client {n}`"),
                None => "names no `--client`".to_owned(),
            },
            client.name()
        )));
    }
    if let Some(program) = words.first()
        && let Err(problem) = resolve(program, places)
    {
        out.push(Check::bad(format!(
            "{at}: {problem}; {} would let every call through unpaced",
            format.name
        )));
    }
    // The agent's timeout, in milliseconds, as the file sets it.
    let unit_ms = if client == Client::Gemini { 1 } else { 1000 };
    let default_ms = client.default_timeout_ms();
    let file_ms = match &f.timeout {
        None => Some(default_ms),
        Some(v) => v
            .as_f64()
            .filter(|t| *t > 0.0)
            .map(|t| (t * unit_ms as f64) as u64),
    };
    let Some(file_ms) = file_ms else {
        out.push(Check::bad(format!(
            "{at}: timeout `{}` is not a number: the agent may not read the file",
            f.timeout.as_ref().map(Value::to_string).unwrap_or_default()
        )));
        return None;
    };
    // What the hook believes: `--timeout`, else the agent's default.
    let told_ms = flag("--timeout")
        .and_then(|t| t.parse::<u64>().ok())
        .map_or(default_ms, |t| t * 1000);
    let applies = config.max_wait_ms.min(told_ms.saturating_sub(SLACK_MS));
    let mut verdict = None;
    if file_ms < applies + SLACK_MS {
        out.push(Check::bad(format!(
            "{at}: timeout {} is shorter than the wait the command allows ({}) plus {} of slack: the agent kills a hook still waiting and runs the call unpaced; run `pace-hook install --client {}` (it writes the timeout and `--timeout` together)",
            format_duration(file_ms),
            format_duration(applies),
            format_duration(SLACK_MS),
            client.name()
        )));
    } else {
        verdict = Some(format!(
            "timeout {}, a call waits at most {} (max_wait {})",
            format_duration(file_ms),
            format_duration(applies),
            format_duration(config.max_wait_ms)
        ));
    }
    if let Some(matcher) = &f.matcher {
        let left: Vec<&str> = tools(client)
            .iter()
            .filter(|t| !selects(matcher, t.name))
            .map(|t| t.what)
            .collect();
        if !left.is_empty() {
            out.push(Check::bad(format!(
                "{at}: matcher `{matcher}` leaves out {}, which then pass unpaced; run `pace-hook install --client {}`",
                left.join(" and "),
                client.name()
            )));
        }
    }
    verdict
}

/// How long doctor waits for `codex app-server` to list its hooks: it
/// answers in about a second here; a Codex that does not is asked no more.
const CODEX_ASK: std::time::Duration = std::time::Duration::from_secs(10);

/// Codex's own view of its hooks for `cwd`: each hook's key, trust status
/// (`trusted`, `modified`, `untrusted`, `managed`) and whether it is
/// enabled, from `codex app-server`'s `hooks/list` (the list its `/hooks`
/// shows). `None` when it cannot be asked or does not answer in time.
fn ask_codex(codex: &Path, cwd: &Path) -> Option<Vec<(String, String, bool)>> {
    use std::io::{BufRead, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(codex)
        .arg("app-server")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let stdout = child.stdout.take()?;
    let cwd_json = serde_json::to_string(&cwd.to_string_lossy()).ok()?;
    let asked = writeln!(
        stdin,
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{{\"clientInfo\":{{\"name\":\"pace-hook-doctor\",\"version\":\"1\"}}}}}}\n{{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"hooks/list\",\"params\":{{\"cwds\":[{cwd_json}]}}}}"
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && v["id"] == 2
            {
                let _ = tx.send(v);
                break;
            }
        }
    });
    let answer = asked.ok().and_then(|()| rx.recv_timeout(CODEX_ASK).ok());
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let hooks = answer?["result"]["data"][0]["hooks"].as_array()?.clone();
    Some(
        hooks
            .iter()
            .filter_map(|h| {
                Some((
                    h["key"].as_str()?.to_owned(),
                    h["trustStatus"].as_str()?.to_owned(),
                    h["enabled"].as_bool().unwrap_or(true),
                ))
            })
            .collect(),
    )
}

/// The state key Codex gives a handler (`codex-rs/hooks` `hook_key`).
fn codex_key(path: &Path, f: &Found) -> String {
    let label = match f.event.as_str() {
        "PreToolUse" => "pre_tool_use",
        _ => "post_tool_use",
    };
    format!("{}:{label}:{}:{}", path.display(), f.group, f.handler)
}

/// Codex runs a hook that is not managed only once the user trusts it, and
/// only as it was when trusted, and reads a project's `.codex/` only in a
/// trusted project. With `codex` on PATH, Codex itself is asked; else its
/// `config.toml` is read for a recorded trust.
fn codex_trust(path: &Path, scope: Scope, places: &Places, found: &[Found], out: &mut Vec<Check>) {
    let Some(home) = places.home.as_deref() else {
        return;
    };
    if let Some(codex) = which("codex", places)
        && let Some(listed) = ask_codex(&codex, places.project_dir.as_deref().unwrap_or(home))
    {
        let mut problems = Vec::new();
        for f in found {
            let key = codex_key(path, f);
            match listed.iter().find(|(k, _, _)| *k == key) {
                None => problems.push(format!(
                    "{} is not among the hooks Codex loads (a project it does not trust, or a file it cannot read)",
                    f.event
                )),
                Some((_, _, false)) => problems.push(format!("{} is disabled in Codex", f.event)),
                Some((_, status, true)) if status == "trusted" || status == "managed" => {}
                Some((_, status, true)) => problems.push(format!(
                    "{} is {status}{}",
                    f.event,
                    if status == "modified" {
                        " (changed since it was trusted)"
                    } else {
                        ""
                    }
                )),
            }
        }
        if problems.is_empty() {
            out.push(Check::ok(format!(
                "Codex (`{}`, asked): pace-hook's hooks in `{}` are trusted and run",
                codex.display(),
                path.display()
            )));
        } else {
            out.push(Check::bad(format!(
                "Codex (`{}`, asked): in `{}`, {}; Codex runs such a hook not at all (`codex exec` says nothing): start `codex` here and choose \"Trust all and continue\", or trust them in `/hooks`",
                codex.display(),
                path.display(),
                problems.join("; ")
            )));
        }
        return;
    }
    let config_path = clients::codex_home(home).join("config.toml");
    let codex: toml::Table = std::fs::read_to_string(&config_path)
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or_default();
    if scope == Scope::Project
        && let Some(project) = places.project_dir.as_deref()
    {
        let trusted = codex
            .get("projects")
            .and_then(|p| p.get(project.to_string_lossy().as_ref()))
            .and_then(|p| p.get("trust_level"))
            .and_then(|t| t.as_str())
            == Some("trusted");
        if !trusted {
            out.push(Check::bad(format!(
                "Codex reads `{}` only in a trusted project, and `{}` does not trust `{}`: start `codex` in the project and trust it",
                path.display(),
                config_path.display(),
                project.display()
            )));
        }
    }
    let state = codex.get("hooks").and_then(|h| h.get("state"));
    let untrusted: Vec<String> = found
        .iter()
        .filter(|f| {
            let key = codex_key(path, f);
            state
                .and_then(|s| s.get(&key))
                .and_then(|s| s.get("trusted_hash"))
                .and_then(|h| h.as_str())
                .is_none()
        })
        .map(|f| f.event.clone())
        .collect();
    if untrusted.is_empty() {
        out.push(Check::ok(format!(
            "Codex: pace-hook's hooks in `{}` have a trust recorded in `{}` (no `codex` on PATH to ask whether for the hooks as they are now: a hook changed since it was trusted does not run until trusted again)",
            path.display(),
            config_path.display()
        )));
    } else {
        out.push(Check::bad(format!(
            "Codex: pace-hook's {} hook(s) in `{}` are not trusted, and Codex runs an untrusted hook not at all (`codex exec` says nothing): start `codex` and choose \"Trust all and continue\", or trust it in `/hooks`",
            untrusted.join(" and "),
            path.display()
        )));
    }
}

/// Cline's two executables in `dir`. Returns whether the Pre one runs
/// pace-hook.
fn script_checks(dir: &Path, places: &Places, config: &Config, out: &mut Vec<Check>) -> bool {
    let _ = places;
    let mut ours = Vec::new();
    let mut pre = false;
    for event in clients::CLINE_EVENTS {
        let path = dir.join(event);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if !text.contains("pace-hook") {
            continue;
        }
        if !super::executable(&path) {
            out.push(Check::bad(format!(
                "`{}` runs pace-hook but is not executable, and Cline runs only executable hooks: `chmod 0755 {}`",
                path.display(),
                path.display()
            )));
            continue;
        }
        if !clients::is_our_cline_script(&text) {
            out.push(Check::bad(format!(
                "`{}` runs pace-hook in a script install does not write: check that it ends in `exec pace-hook --client cline`",
                path.display()
            )));
        }
        pre |= event == "PreToolUse";
        ours.push(event);
    }
    if ours.is_empty() {
        return false;
    }
    let wait = config.max_wait_ms.min(30_000 - SLACK_MS);
    if ours.len() == clients::CLINE_EVENTS.len() {
        out.push(Check::ok(format!(
            "`{}`: pace-hook on {}; Cline's fixed 30 s timeout, a call waits at most {}",
            dir.display(),
            ours.join(", "),
            format_duration(wait)
        )));
    } else {
        out.push(Check::bad(format!(
            "`{}`: pace-hook on {} only; run `pace-hook install --client cline`",
            dir.display(),
            ours.join(", ")
        )));
    }
    pre
}

/// What a hooked agent needs besides its file.
fn needs(client: Client, home: &Path, project: Option<&Path>, config: &Config) -> Vec<Check> {
    let _ = config;
    match client {
        Client::Gemini => gemini_needs(home, project),
        Client::Cline => vec![Check::ok(
            "Cline: hooks run only with \"Enable Hooks\" on in its settings (doctor cannot see that setting)",
        )],
        _ => Vec::new(),
    }
}

/// Gemini CLI: `hooksConfig` in either settings file, and the project's
/// folder trust.
fn gemini_needs(home: &Path, project: Option<&Path>) -> Vec<Check> {
    let mut out = Vec::new();
    let mut files = vec![home.join(".gemini").join("settings.json")];
    if let Some(p) = project {
        files.push(p.join(".gemini").join("settings.json"));
    }
    let mut trust_enabled = true;
    for file in &files {
        let Some(v) = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| settings::parse(&clients::GEMINI, &t).ok().flatten())
        else {
            continue;
        };
        if v["hooksConfig"]["enabled"] == false {
            out.push(Check::bad(format!(
                "Gemini CLI: `hooksConfig.enabled` is false in `{}`: it runs no hook, pace-hook included; remove it",
                file.display()
            )));
        }
        if let Some(off) = v["hooksConfig"]["disabled"].as_array()
            && let Some(name) = off
                .iter()
                .filter_map(Value::as_str)
                .find(|n| n.contains("pace-hook"))
        {
            out.push(Check::bad(format!(
                "Gemini CLI: `hooksConfig.disabled` in `{}` lists `{name}`, so that hook does not run; take it out",
                file.display()
            )));
        }
        if *file == files[0] && v["security"]["folderTrust"]["enabled"] == false {
            trust_enabled = false;
        }
    }
    if let Some(project) = project
        && trust_enabled
    {
        let trust_file = std::env::var_os("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".gemini").join("trustedFolders.json"));
        let rules: serde_json::Map<String, Value> = std::fs::read_to_string(&trust_file)
            .ok()
            .and_then(|t| settings::parse(&clients::GEMINI, &t).ok().flatten())
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        // The longest matching rule decides, as Gemini CLI's `isPathTrusted`.
        let verdict = rules
            .iter()
            .filter_map(|(rule, level)| {
                let level = level.as_str()?;
                let base = if level == "TRUST_PARENT" {
                    Path::new(rule).parent()?.to_path_buf()
                } else {
                    PathBuf::from(rule)
                };
                project.starts_with(&base).then_some((rule.len(), level))
            })
            .max_by_key(|(len, _)| *len)
            .map(|(_, level)| level);
        if !matches!(verdict, Some("TRUST_FOLDER" | "TRUST_PARENT")) {
            out.push(Check::bad(format!(
                "Gemini CLI: `{}` does not trust `{}`, and in a folder it does not trust Gemini CLI runs no settings hook, pace-hook included: start `gemini` there and trust the folder",
                trust_file.display(),
                project.display()
            )));
        }
    }
    out
}
