//! One hook event, start to finish: classify the call, find its sites, ask
//! the gate, and say what happened, to the model on a block and to the gate
//! log always.

use std::time::Instant;

use crate::{
    clock::{Clock, SystemClock},
    config::{Config, format_duration},
    error::{Error, Result},
    event::{EventKind, HookEvent},
    gate::{Gate, Turn},
    log::{self, Kind, Record},
    profile::{self, Target, Verdict},
    resolve, site,
    store::{FileStore, Store, TabEntry},
};

/// What the hook answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Let the call go on.
    Pass,
    /// Block it; the text is for the model.
    Block(String),
}

/// Handle one event. `arrived` is when the process started, so that
/// `max_wait` counts the whole time the hook has run.
pub fn handle(event: &HookEvent, arrived: Instant) -> Result<Outcome> {
    match event.kind {
        EventKind::PreToolUse => pre(event, arrived),
        EventKind::PostToolUse | EventKind::PostToolUseFailure => {
            post(event).map(|()| Outcome::Pass)
        }
        EventKind::Other(_) => Ok(Outcome::Pass),
    }
}

/// The message for the model when a Pre event fails inside pace-hook.
pub fn failure_message(tool: Option<&str>, error: &Error) -> String {
    let advice = match error {
        Error::CorruptState { .. } => "Retry the call.",
        Error::LockTimeout { .. } => "Retry in a minute; if this keeps happening, tell the user.",
        _ => "Retrying will not help: tell the user, so they can fix pace-hook's setup.",
    };
    let what = tool.map_or_else(|| "this call".to_owned(), |t| format!("`{}`", short(t)));
    one_line(&format!(
        "pace-hook blocked {what} because it could not pace it safely: {error}. {advice}"
    ))
}

fn short(tool: &str) -> &str {
    tool.rsplit("__").next().unwrap_or(tool)
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// The config for this event. Leaked on purpose: the process ends with the
/// event, and freeing a large config (a thousand sites' strings) one by one
/// costs a sixth of such an event for nothing.
fn event_config() -> Result<&'static Config> {
    Ok(Box::leak(Box::new(Config::discover()?)))
}

fn store_for(config: &Config) -> Result<FileStore> {
    FileStore::open(FileStore::default_root()?, config.stale_after_ms)
}

fn record(event: &HookEvent, kind: Kind, ts: u64) -> Record {
    let mut r = Record::new(kind, ts, short(&event.tool_name));
    r.session = event.session_id.clone();
    r.call = event.tool_use_id.clone();
    r
}

fn pre(event: &HookEvent, arrived: Instant) -> Result<Outcome> {
    let clock = SystemClock;
    match profile::classify(&event.tool_name, &event.tool_input) {
        Verdict::NotOurs => Ok(Outcome::Pass),
        Verdict::Skip { why } => {
            // No config, no lock, no state: only a best-effort log line.
            if let Ok(root) = FileStore::default_root() {
                let mut r = record(event, Kind::Skip, clock.now_floor());
                r.reason = Some(why.to_owned());
                log::append(&root, &r);
            }
            Ok(Outcome::Pass)
        }
        Verdict::Block { why, instead } => {
            let config = event_config()?;
            let store = store_for(config)?;
            let mut r = record(event, Kind::Block, clock.now_floor());
            r.reason = Some(why.clone());
            log::append(store.root(), &r);
            Ok(Outcome::Block(one_line(&format!(
                "pace-hook blocked `{}`: {why}. {instead}; pace-hook then spaces the requests to each site {} apart, from the end of one to the start of the next.",
                short(&event.tool_name),
                format_duration(config.interval_ms)
            ))))
        }
        Verdict::Pace { target, label } => {
            let config = event_config()?;
            let store = store_for(config)?;
            let sites = resolve::sites_for(&target, config, &store)?;
            if sites.is_empty() {
                let mut r = record(event, Kind::Skip, clock.now_floor());
                r.reason = Some("reaches no site".to_owned());
                log::append(store.root(), &r);
                return Ok(Outcome::Pass);
            }
            let call = event
                .tool_use_id
                .clone()
                .unwrap_or_else(|| format!("pre-{}-{}", std::process::id(), clock.now_floor()));
            let gate = Gate::new(&store, &clock, config);
            let agent = event.agent();
            if let Some(agent) = &agent {
                end_previous_call(event, agent, &gate, &store)?;
            }
            match gate.admit(&call, &sites, arrived, agent.as_deref())? {
                Turn::Admitted(a) => {
                    if let Target::Url {
                        url,
                        tab: Some(tab),
                    } = &target
                    {
                        // Until a result shows where the tab ended up, it may be
                        // on its old site or the new one: count it on both.
                        let new = site::host_of_url(url);
                        store.update_tabs(|map| {
                            let mut all: Vec<String> = new.iter().cloned().collect();
                            if let Some(old) = map.tabs.get(tab) {
                                all.extend(old.hosts.iter().cloned());
                            }
                            all.sort();
                            all.dedup();
                            note_tab(map, tab, all, a.at_ms);
                        })?;
                    }
                    let mut r = record(event, Kind::Admit, a.at_ms);
                    r.tool = label;
                    r.call = Some(call);
                    r.sites = a.sites.iter().map(|(s, _)| s.clone()).collect();
                    r.tickets = a.sites.iter().map(|(_, t)| *t).collect();
                    r.waited_ms = Some(a.waited_ms);
                    r.intervals_ms = r
                        .sites
                        .iter()
                        .map(|s| config.policy_for(s).interval_ms)
                        .collect();
                    r.interval_ms = r.intervals_ms.first().copied();
                    r.hold_ms = Some(config.hold_ms);
                    log::append(store.root(), &r);
                    Ok(Outcome::Pass)
                }
                Turn::GaveUp(g) => {
                    let mut r = record(event, Kind::GiveUp, clock.now_floor());
                    r.tool = label.clone();
                    r.sites = vec![g.site.clone()];
                    r.waited_ms = Some(g.waited_ms);
                    r.reason = Some(format!("{} ahead", g.ahead));
                    log::append(store.root(), &r);
                    let ahead = match g.ahead {
                        0 => "the site was still busy".to_owned(),
                        1 => "1 other call is still ahead of it".to_owned(),
                        n => format!("{n} other calls are still ahead of it"),
                    };
                    Ok(Outcome::Block(one_line(&format!(
                        "pace-hook blocked `{label}` on {}: it waited {} for its turn, the most it may (max_wait), and {ahead}; {} should be free in {} at the earliest. Work on something else meanwhile (another site, or what this page already shows), then retry this call.",
                        g.site,
                        format_duration(g.waited_ms),
                        g.site,
                        format_duration(g.more_ms.max(1)),
                    ))))
                }
            }
        }
    }
}

/// A new paced call from an agent means its previous call is over, Post or
/// not: Claude Code runs one agent's paced calls one at a time. A call that
/// got no Post (another hook blocked it, the user refused permission or
/// cancelled) is finished now, so the agent waits one interval instead of the
/// whole hold. Calls of other agents still count their holds in full.
fn end_previous_call(
    event: &HookEvent,
    agent: &str,
    gate: &Gate<'_, FileStore, SystemClock>,
    store: &FileStore,
) -> Result<()> {
    let Some(previous) = store.open_call_of(agent)? else {
        return Ok(());
    };
    let previous = previous.call;
    if Some(&previous) == event.tool_use_id.as_ref() {
        return Ok(());
    }
    let (sites, at) = gate.finish(&previous, Some(agent))?;
    if !sites.is_empty() {
        let mut r = record(event, Kind::Finish, at);
        r.call = Some(previous);
        r.tool = String::new();
        r.sites = sites;
        r.reason = Some("no Post came; ended by the agent's next call".to_owned());
        log::append(store.root(), &r);
    }
    Ok(())
}

fn post(event: &HookEvent) -> Result<()> {
    let Some((profile, tool)) = profile::find(&event.tool_name) else {
        return Ok(());
    };
    let clock = SystemClock;
    // No config here: a finish needs none, and the tab map keeps hosts, which
    // the Pre side turns into sites. So a Post is recorded even while the
    // config is broken, and costs the same with a thousand sites as with one.
    let config = Config::default();
    let store = FileStore::open(FileStore::default_root()?, config.stale_after_ms)?;
    // The finish first: it is what the next call's wait counts from.
    if let Some(call) = &event.tool_use_id {
        let (sites, at) =
            Gate::new(&store, &clock, &config).finish(call, event.agent().as_deref())?;
        if !sites.is_empty() {
            let mut r = record(event, Kind::Finish, at);
            r.tool = tool.to_owned();
            r.sites = sites;
            r.reason = (event.kind == EventKind::PostToolUseFailure).then(|| "failed".to_owned());
            log::append(store.root(), &r);
        }
    }
    let mut seen: Vec<(String, Vec<String>)> = Vec::new();
    if event.kind == EventKind::PostToolUse && tool == "navigate" {
        let url = event
            .tool_input
            .get("url")
            .and_then(|u| u.as_str())
            .unwrap_or("");
        if let (Some(tab), false) = (
            profile::tab_id(event.tool_input.get("tabId")),
            matches!(url, "" | "back" | "forward"),
        ) {
            seen.push((tab, site::host_of_url(url).into_iter().collect()));
        }
    }
    for t in profile.tabs_seen(&event.result_texts()) {
        seen.push((t.tab, site::host_of_url(&t.url).into_iter().collect()));
    }
    if !seen.is_empty() {
        let now = clock.now_floor();
        store.update_tabs(|map| {
            for (tab, hosts) in &seen {
                note_tab(map, tab, hosts.clone(), now);
            }
        })?;
    }
    Ok(())
}

/// How stale a tab's `seen_ms` may get before an unchanged entry is written
/// again; it only orders which tabs are forgotten first.
const TAB_REFRESH_MS: u64 = 10 * 60_000;

/// Record that `tab` is on `hosts` as of `now`, leaving the map untouched
/// (so nothing is written) when it already says so and is fresh.
fn note_tab(map: &mut crate::store::TabMap, tab: &str, hosts: Vec<String>, now: u64) {
    if let Some(e) = map.tabs.get(tab)
        && e.hosts == hosts
        && now.saturating_sub(e.seen_ms) < TAB_REFRESH_MS
    {
        return;
    }
    map.tabs.insert(
        tab.to_owned(),
        TabEntry {
            hosts,
            seen_ms: now,
        },
    );
}
