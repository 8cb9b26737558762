//! `pace-hook status`: what the gate holds now. Per site: the last finish,
//! the calls in flight, the callers queued, the next allowed start for the
//! config in force, the interval, the backoff and the budget; then the tab
//! map, and the tools the gate log shows passing unpaced.
//!
//! Invariant: status never changes the state. It reads through the
//! [`Store`] trait's looks ([`crate::store::Sites::site_state`] takes the
//! site lock, and writes nothing), and on the file backend it first checks
//! that the state directory exists, so that a look at a new machine does not
//! make one. The config is read fresh, without writing its cached copy.
//!
//! The JSON form is documented field by field in `docs/STATUS.md`; a change
//! that renames or removes a field bumps [`VERSION`].

use std::{collections::BTreeMap, fmt::Write as _};

use serde::Serialize;

use crate::{
    config::{Backend, Config},
    duration::format_duration,
    exit::{Doing, Exit},
    pacing::clock::{Clock, EpochMs, SystemClock},
    pacing::decision::SiteState,
    pacing::log::{Kind, Record},
    pacing::when,
    store::{Store, TabMap},
};

/// The version of the JSON form.
pub(crate) const VERSION: u32 = 1;

/// Everything `status` shows, as its JSON form.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Status {
    /// [`VERSION`].
    pub(crate) version: u32,
    /// When this was read (epoch ms).
    pub(crate) now_ms: EpochMs,
    /// Where the gate keeps its state, as the store describes itself.
    pub(crate) store: String,
    /// Whether the gate has any state yet.
    pub(crate) state_found: bool,
    /// The config in force.
    pub(crate) config: ConfigView,
    /// Every site the gate has state for, by key.
    pub(crate) sites: Vec<SiteView>,
    /// The tab map, per browser.
    pub(crate) browsers: Vec<BrowserView>,
    /// MCP tools the gate log shows passing unpaced that no profile and no
    /// `[[tool]]` rule of this config knows.
    pub(crate) unknown_tools: Vec<UnknownTool>,
    /// What the gate log shows a profile let through without seeing into
    /// it: scripts the shell ran by name, latest first.
    pub(crate) unseen: Vec<Unseen>,
    /// Lines of the gate log that could not be read.
    pub(crate) log_unreadable_lines: usize,
}

/// The config in force.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ConfigView {
    /// Its file; `null` for the defaults.
    pub(crate) path: Option<String>,
    /// Why it could not be used; the defaults are shown instead.
    pub(crate) error: Option<String>,
    /// Global `interval`.
    pub(crate) interval_ms: u64,
    /// `in_flight_hold`.
    pub(crate) hold_ms: u64,
    /// `max_wait`.
    pub(crate) max_wait_ms: u64,
    /// What in it is allowed but likely not meant (an `interval` of 0).
    pub(crate) warnings: Vec<String>,
    /// `[[site]]`s with a built-in preset, each as [`crate::config::preset::describe`]
    /// says it: the values in force, whose they are, and the source.
    pub(crate) presets: Vec<String>,
}

/// One site's state.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct SiteView {
    /// The gate key (a registrable domain, an IP, `localhost`).
    pub(crate) site: String,
    /// The configured `[[site]]` whose domain falls under this key.
    pub(crate) configured_site: Option<String>,
    /// Why the state could not be read; the other fields are then empty.
    pub(crate) error: Option<String>,
    /// The interval this config requires here.
    pub(crate) interval_ms: u64,
    /// The strictest interval the state holds from earlier callers: after
    /// the last finish, or carried by a call in flight.
    pub(crate) recorded_interval_ms: u64,
    /// The latest real finish.
    pub(crate) last_finish_ms: Option<EpochMs>,
    /// The earliest start for a caller with this config (`null`: at once).
    pub(crate) next_start_ms: Option<EpochMs>,
    /// Whether a call could start now.
    pub(crate) due: bool,
    /// Calls admitted and not finished.
    pub(crate) in_flight: Vec<CallView>,
    /// Callers waiting in the site's queue.
    pub(crate) queued: usize,
    /// A backoff in force (or recorded) on the site.
    pub(crate) backoff: Option<BackoffView>,
    /// The budget this config sets here, and what is left of it.
    pub(crate) budget: Option<BudgetView>,
    /// Admission times the state keeps for budgets (of any config).
    pub(crate) admissions_kept: usize,
}

/// A call in flight.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CallView {
    /// The call's key: `<session>[/<agent>]#<tool_use_id>`.
    pub(crate) call: String,
    /// Its tool, from its admission in the gate log.
    pub(crate) tool: Option<String>,
    /// Its Claude Code session.
    pub(crate) session: Option<String>,
    /// When it was admitted.
    pub(crate) started_ms: EpochMs,
    /// Until when it holds the site if no finish comes.
    pub(crate) hold_until_ms: EpochMs,
    /// The interval its caller requires after it.
    pub(crate) interval_ms: u64,
    /// Taken while the call still waits for another of its sites.
    pub(crate) waiting_for_other_sites: bool,
    /// Its hold ran out with no Post: the gate counts the call as finished
    /// at `hold_until_ms`, and the entry stays until the site's next write.
    pub(crate) lapsed: bool,
}

/// A backoff.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BackoffView {
    /// When it was set.
    pub(crate) set_ms: EpochMs,
    /// No start before this.
    pub(crate) until_ms: EpochMs,
    /// Push-backs in a row.
    pub(crate) strikes: u32,
    /// Whether it still holds the site back.
    pub(crate) active: bool,
}

/// A budget and what is left of it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BudgetView {
    /// At most this many calls…
    pub(crate) calls: u32,
    /// …in any window of this length.
    pub(crate) window_ms: u64,
    /// Calls admitted in the window that ends now.
    pub(crate) used: u32,
    /// Calls left in it.
    pub(crate) left: u32,
    /// When the oldest call in the window leaves it, freeing one more.
    pub(crate) next_free_ms: Option<EpochMs>,
}

/// One browser's tabs.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BrowserView {
    /// The browser: `chrome`, or `<profile>@<session>`.
    pub(crate) browser: String,
    /// Its current tab's id, if known.
    pub(crate) current: Option<String>,
    /// Its tabs, by id.
    pub(crate) tabs: Vec<TabView>,
}

/// One tab.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TabView {
    /// The tab's id.
    pub(crate) id: String,
    /// Hosts it may be on now (`*`: could not be read, every site).
    pub(crate) hosts: Vec<String>,
    /// Hosts it has been on, oldest first.
    pub(crate) history: Vec<String>,
    /// When this was learnt.
    pub(crate) seen_ms: EpochMs,
}

/// A tool seen passing unpaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct UnknownTool {
    /// Its full name.
    pub(crate) tool: String,
    /// How many calls the log shows.
    pub(crate) calls: usize,
    /// The latest.
    pub(crate) last_ms: EpochMs,
}

/// `pace-hook status [--json]`: print the status; exit 0, or 1 when the
/// config is broken (the hook blocks every paced call then; the status is
/// printed all the same, with the defaults) or the state cannot be read at
/// all (with the reason).
/// Something a known tool ran that pace-hook could not see into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Unseen {
    /// The tool (`Bash`).
    pub(crate) tool: String,
    /// What ran, as the log says.
    pub(crate) what: String,
    /// How many calls the log shows.
    pub(crate) calls: usize,
    /// The latest.
    pub(crate) last_ms: EpochMs,
}

/// The most [`Unseen`] entries shown.
const MAX_UNSEEN: usize = 10;

/// What the log shows passing unseen (`unknown` lines of a tool a profile
/// owns), by what ran, most recent first.
pub(crate) fn unseen(records: &[Record]) -> Vec<Unseen> {
    let mut seen: BTreeMap<(&str, &str), Unseen> = BTreeMap::new();
    for r in records
        .iter()
        .filter(|r| r.event == Kind::Unknown && crate::read::profile::find(&r.tool).is_some())
    {
        let what = r.reason.as_deref().unwrap_or("");
        let e = seen.entry((&r.tool, what)).or_insert_with(|| Unseen {
            tool: r.tool.clone(),
            what: what.to_owned(),
            calls: 0,
            last_ms: r.ts,
        });
        e.calls += 1;
        e.last_ms = e.last_ms.max(r.ts);
    }
    let mut out: Vec<Unseen> = seen.into_values().collect();
    out.sort_by(|a, b| b.last_ms.cmp(&a.last_ms).then(a.what.cmp(&b.what)));
    out.truncate(MAX_UNSEEN);
    out
}

/// `pace-hook status [--json]`: print the status; exit 0, or 1 with the
/// reason when the state cannot be read at all.
pub(crate) fn run(json: bool) -> Exit {
    let now = SystemClock.now_floor();
    match read(now) {
        Ok(status) => {
            let broken = status.config.error.is_some();
            if json {
                let mut text = serde_json::to_string_pretty(&status).expect("status serializes");
                text.push('\n');
                crate::commands::print(&text);
            } else {
                crate::commands::print(&render(&status));
            }
            if broken { Exit::Failure } else { Exit::Success }
        }
        Err(e) => {
            crate::commands::say(&format!("pace-hook: {e}"));
            Exit::for_error(Doing::Operator, &e)
        }
    }
}

/// Read the status as of `now` from the store the config names.
fn read(now: EpochMs) -> crate::error::Result<Status> {
    let (config, error) = match Config::read_for(Config::project_dir().as_deref()) {
        Ok(c) => (c, None),
        Err(e) => (Config::default(), Some(e.to_string())),
    };
    if config.backend == Backend::File {
        let root = crate::state_dir::default_root()?;
        if !root.exists() {
            return Ok(empty(
                &config,
                error,
                now,
                format!("files in `{}`", root.display()),
            ));
        }
        // Refuse a directory others can write to before reading from it.
        crate::state_dir::Dir::open_root(&root, false)?;
    }
    let store = crate::store::open(&config)?;
    collect(store.as_ref(), &config, error, now)
}

fn config_view(config: &Config, error: Option<String>) -> ConfigView {
    ConfigView {
        path: config.source.as_ref().map(|p| p.display().to_string()),
        error: error.clone(),
        interval_ms: config.interval_ms,
        hold_ms: config.hold_ms,
        max_wait_ms: config.max_wait_ms,
        warnings: if error.is_none() {
            config.warnings()
        } else {
            Vec::new()
        },
        presets: config
            .presets
            .iter()
            .map(crate::config::preset::describe)
            .collect(),
    }
}

fn empty(config: &Config, error: Option<String>, now: EpochMs, store: String) -> Status {
    Status {
        version: VERSION,
        now_ms: now,
        store,
        state_found: false,
        config: config_view(config, error),
        sites: Vec::new(),
        browsers: Vec::new(),
        unknown_tools: Vec::new(),
        unseen: Vec::new(),
        log_unreadable_lines: 0,
    }
}

/// The status of `store` as of `now`, for a caller with `config`.
pub(crate) fn collect(
    store: &dyn Store,
    config: &Config,
    config_error: Option<String>,
    now: EpochMs,
) -> crate::error::Result<Status> {
    let (records, bad) = store.read_log()?;
    let mut admitted: BTreeMap<&str, &Record> = BTreeMap::new();
    for r in records.iter().filter(|r| r.event == Kind::Admit) {
        if let Some(call) = r.call.as_deref() {
            admitted.insert(call, r);
        }
    }
    let mut sites = Vec::new();
    for site in store.known_sites()? {
        let mut view = SiteView {
            configured_site: config.group_of_key(&site)?.map(|g| g.name),
            site,
            ..SiteView::default()
        };
        let request = crate::gate::requests::for_key(config, &view.site)?;
        view.interval_ms = request.policy.interval_ms;
        match store.queue_len(&view.site) {
            Ok(n) => view.queued = n,
            Err(e) => view.error = Some(e.to_string()),
        }
        match store.site_state(&view.site) {
            Ok(Some(state)) => fill(&mut view, &state, &request.policy, &admitted, now),
            Ok(None) => continue,
            Err(e) => view.error = Some(e.to_string()),
        }
        sites.push(view);
    }
    let mut status = empty(config, config_error, now, store.describe());
    status.state_found = true;
    status.sites = sites;
    status.browsers = browsers(&store.tabs()?);
    status.unknown_tools = unknown_tools(&records, config);
    status.unseen = unseen(&records);
    status.log_unreadable_lines = bad;
    Ok(status)
}

fn fill(
    view: &mut SiteView,
    state: &SiteState,
    policy: &crate::pacing::decision::Policy,
    admitted: &BTreeMap<&str, &Record>,
    now: EpochMs,
) {
    view.last_finish_ms = state.last_finish_ms;
    view.recorded_interval_ms = state
        .in_flight
        .iter()
        .map(|f| f.interval_ms)
        .chain([state.after_ms])
        .max()
        .unwrap_or(0);
    view.next_start_ms = state.ready_at(policy);
    view.due = view.next_start_ms.is_none_or(|t| t <= now);
    view.in_flight = state
        .in_flight
        .iter()
        .map(|f| {
            let record = admitted.get(f.call.as_str());
            CallView {
                call: f.call.clone(),
                tool: record.map(|r| r.tool.clone()),
                session: record
                    .and_then(|r| r.session.clone())
                    .or_else(|| session_of(&f.call)),
                started_ms: f.started_ms,
                hold_until_ms: f.until_ms,
                interval_ms: f.interval_ms,
                waiting_for_other_sites: f.lease.is_some(),
                lapsed: f.lease.is_none() && f.until_ms <= now,
            }
        })
        .collect();
    view.backoff = state.backoff.map(|b| BackoffView {
        set_ms: b.set_ms,
        until_ms: b.until_ms,
        strikes: b.strikes,
        active: b.until_ms > now,
    });
    view.admissions_kept = state.admits.len();
    view.budget = policy.budget.map(|b| {
        let window_start = now.saturating_sub(b.window_ms);
        let in_window: Vec<EpochMs> = state
            .admits
            .iter()
            .copied()
            .filter(|&t| t > window_start)
            .collect();
        let used = u32::try_from(in_window.len()).unwrap_or(u32::MAX);
        BudgetView {
            calls: b.calls,
            window_ms: b.window_ms,
            used,
            left: b.calls.saturating_sub(used),
            next_free_ms: in_window
                .iter()
                .min()
                .map(|t| t.saturating_add(b.window_ms)),
        }
    });
}

/// The session in a call key (`<session>[/<agent>]#<id>`), for a call whose
/// admission has left the log.
fn session_of(call: &str) -> Option<String> {
    let (agent, _) = call.rsplit_once('#')?;
    let session = agent.split('/').next()?;
    (!session.is_empty()).then(|| session.to_owned())
}

/// The tab map, grouped by browser (a tab's key is `<browser>#<id>`).
fn browsers(map: &TabMap) -> Vec<BrowserView> {
    let mut out: BTreeMap<&str, BrowserView> = BTreeMap::new();
    for (key, entry) in &map.tabs {
        let (browser, id) = key.rsplit_once('#').unwrap_or((key.as_str(), ""));
        let view = out.entry(browser).or_insert_with(|| BrowserView {
            browser: browser.to_owned(),
            current: map
                .current
                .get(browser)
                .and_then(|k| k.rsplit_once('#'))
                .map(|(_, id)| id.to_owned()),
            tabs: Vec::new(),
        });
        view.tabs.push(TabView {
            id: id.to_owned(),
            hosts: entry.hosts.clone(),
            history: entry.history.clone(),
            seen_ms: entry.seen_ms,
        });
    }
    out.into_values().collect()
}

/// Tools the log shows passing as `unknown` that `config` still does not
/// know, most recent first.
pub(crate) fn unknown_tools(records: &[Record], config: &Config) -> Vec<UnknownTool> {
    let mut seen: BTreeMap<&str, UnknownTool> = BTreeMap::new();
    for r in records.iter().filter(|r| r.event == Kind::Unknown) {
        let e = seen.entry(&r.tool).or_insert_with(|| UnknownTool {
            tool: r.tool.clone(),
            calls: 0,
            last_ms: r.ts,
        });
        e.calls += 1;
        e.last_ms = e.last_ms.max(r.ts);
    }
    let mut out: Vec<UnknownTool> = seen
        .into_values()
        .filter(|t| {
            crate::read::profile::find(&t.tool).is_none()
                && crate::read::profile::declared::rule_for(&config.tools, &t.tool).is_none()
        })
        .collect();
    out.sort_by(|a, b| b.last_ms.cmp(&a.last_ms).then(a.tool.cmp(&b.tool)));
    out
}

/// How to declare `tools` with `[[tool]]` rules, as config text.
pub(crate) fn declare_hint(tools: &[UnknownTool]) -> String {
    let mut text = String::new();
    for t in tools {
        let _ = write!(
            text,
            "[[tool]]\nmatch = {}\nclass = \"pace\"    # or \"skip\" (reads only) or \"block\"\nurl = \"/url\"      # JSON pointer to the URL in its input, if it has one\n\n",
            serde_json::to_string(&t.tool).expect("a string serializes")
        );
    }
    text
}

/// The status as text.
pub(crate) fn render(s: &Status) -> String {
    let now = s.now_ms;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "pace-hook status at {}: {}",
        when::clock(now, now),
        s.store
    );
    match (&s.config.path, &s.config.error) {
        (_, Some(e)) => {
            // The error names the file itself ("config `...` line 3: ...").
            let _ = writeln!(
                out,
                "{e}\n  every call pace-hook paces is blocked until this is fixed; below, the defaults stand in for it"
            );
        }
        (path, None) => {
            let _ = writeln!(
                out,
                "config: {} (interval {}, in_flight_hold {}, max_wait {})",
                path.as_deref()
                    .map_or("defaults, no file".to_owned(), |p| format!("`{p}`")),
                format_duration(s.config.interval_ms),
                format_duration(s.config.hold_ms),
                format_duration(s.config.max_wait_ms)
            );
        }
    }
    for w in &s.config.warnings {
        let _ = writeln!(out, "  warning: {w}");
    }
    for p in &s.config.presets {
        let _ = writeln!(out, "  {p}");
    }
    if !s.state_found {
        out.push_str(
            "\nno gate state yet: nothing has been paced on this machine; the first paced call makes it\n",
        );
        return out;
    }
    if s.sites.is_empty() {
        out.push_str("\nno sites yet: no call has been paced\n");
    }
    for site in &s.sites {
        render_site(&mut out, site, now);
    }
    if !s.browsers.is_empty() {
        out.push_str("\ntabs\n");
        for b in &s.browsers {
            let _ = writeln!(out, "  {}", b.browser);
            for t in &b.tabs {
                let current = if b.current.as_deref() == Some(t.id.as_str()) {
                    " (current)"
                } else {
                    ""
                };
                let hosts = if t.hosts.is_empty() {
                    "on no site".to_owned()
                } else {
                    t.hosts.join(", ")
                };
                let history = if t.history.is_empty() {
                    String::new()
                } else {
                    format!("; history {}", t.history.join(" → "))
                };
                let _ = writeln!(
                    out,
                    "    tab {}{current}: {hosts}{history}; seen {}",
                    t.id,
                    when::relative(t.seen_ms, now)
                );
            }
        }
    }
    if !s.unknown_tools.is_empty() {
        out.push_str("\ntools that passed unpaced (no profile or [[tool]] rule knows them)\n");
        for t in &s.unknown_tools {
            let _ = writeln!(
                out,
                "  {}: {} call(s), last {}",
                t.tool,
                t.calls,
                when::relative(t.last_ms, now)
            );
        }
        out.push_str("  declare each in the config to pace, skip or block it, e.g.:\n");
        for line in declare_hint(&s.unknown_tools).lines() {
            let _ = writeln!(out, "{}", format!("    {line}").trim_end());
        }
    }
    if !s.unseen.is_empty() {
        out.push_str("\npassed unseen (pace-hook could not see into what ran, so its requests were not paced)\n");
        for u in &s.unseen {
            let _ = writeln!(
                out,
                "  {}: {}; {} call(s), last {}",
                u.tool,
                u.what,
                u.calls,
                when::relative(u.last_ms, now)
            );
        }
    }
    if s.log_unreadable_lines > 0 {
        let _ = writeln!(
            out,
            "\n({} unreadable line(s) in the gate log skipped)",
            s.log_unreadable_lines
        );
    }
    out
}

fn render_site(out: &mut String, site: &SiteView, now: EpochMs) {
    let label = match &site.configured_site {
        Some(name) => format!("{} (site `{name}`)", site.site),
        None => site.site.clone(),
    };
    let _ = writeln!(out, "\n{label}");
    if let Some(e) = &site.error {
        let _ = writeln!(out, "  unreadable: {e}");
        return;
    }
    let next = match site.next_start_ms {
        Some(t) if t > now => when::at(t, now),
        _ => "now (due)".to_owned(),
    };
    let _ = writeln!(out, "  next start    {next}");
    let recorded = if site.recorded_interval_ms > site.interval_ms {
        format!(
            " (strictest recorded: {})",
            format_duration(site.recorded_interval_ms)
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  interval      {}{recorded}",
        format_duration(site.interval_ms)
    );
    let last = site
        .last_finish_ms
        .map_or("none yet".to_owned(), |t| when::at(t, now));
    let _ = writeln!(out, "  last finish   {last}");
    let (lapsed, live): (Vec<&CallView>, Vec<&CallView>) =
        site.in_flight.iter().partition(|c| c.lapsed);
    if live.is_empty() {
        let _ = writeln!(out, "  in flight     none");
    }
    let call = |c: &CallView| {
        format!(
            "{} {}, session {}, since {}",
            c.tool.as_deref().unwrap_or("?"),
            c.call,
            c.session.as_deref().unwrap_or("none"),
            when::at(c.started_ms, now),
        )
    };
    let label = |i: usize, first: &'static str| if i == 0 { first } else { "              " };
    for (i, c) in live.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {}{}, held until {}{}",
            label(i, "in flight     "),
            call(c),
            when::at(c.hold_until_ms, now),
            if c.waiting_for_other_sites {
                " (waiting for its other sites)"
            } else {
                ""
            }
        );
    }
    for (i, c) in lapsed.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {}{}: no Post came, and its hold ran out at {}; counted as finished then",
            label(i, "lapsed        "),
            call(c),
            when::at(c.hold_until_ms, now),
        );
    }
    let _ = writeln!(
        out,
        "  queued        {}",
        match site.queued {
            0 => "none".to_owned(),
            1 => "1 caller".to_owned(),
            n => format!("{n} callers"),
        }
    );
    if let Some(b) = &site.backoff {
        let _ = writeln!(
            out,
            "  backoff       {} {}, {} strike(s)",
            if b.active { "until" } else { "ended" },
            when::at(b.until_ms, now),
            b.strikes
        );
    }
    match &site.budget {
        Some(b) => {
            let next = b.next_free_ms.map_or(String::new(), |t| {
                format!("; next frees {}", when::at(t, now))
            });
            let _ = writeln!(
                out,
                "  budget        {} of {} left in any {}{next}",
                b.left,
                b.calls,
                format_duration(b.window_ms)
            );
        }
        None if site.admissions_kept > 0 => {
            let _ = writeln!(
                out,
                "  budget        none in this config; {} admission(s) kept for another config's budget",
                site.admissions_kept
            );
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        pacing::clock::FakeClock,
        pacing::decision::{Backoff, Budget, Policy},
        store::{Log, MemoryStore, Sites},
    };

    /// A store where call `s1#t1` (a navigate of session s1) was admitted
    /// to a.com at 1,000,000 ms with a 2-minute hold and a 10 s interval.
    fn one_call_admitted() -> MemoryStore {
        let clock = std::sync::Arc::new(FakeClock::new(1_000_000));
        let policy = Policy {
            interval_ms: 10_000,
            hold_ms: 120_000,
            budget: None,
        };
        let store = MemoryStore::new(clock.clone(), policy);
        store
            .try_admit("a.com", "s1#t1", &policy, None, clock.mono())
            .unwrap();
        let mut r = Record::new(Kind::Admit, 1_000_000, "navigate");
        r.call = Some("s1#t1".into());
        r.session = Some("s1".into());
        r.sites = vec!["a.com".into()];
        store.log(&r);
        store
    }

    #[test]
    fn a_call_in_flight_is_shown_with_its_tool_session_and_hold() {
        let store = one_call_admitted();
        let s = collect(&store, &Config::default(), None, 1_005_000).unwrap();
        let site = &s.sites[0];
        assert_eq!(site.site, "a.com");
        assert_eq!(site.in_flight[0].tool.as_deref(), Some("navigate"));
        assert_eq!(site.in_flight[0].session.as_deref(), Some("s1"));
        assert_eq!(site.next_start_ms, Some(1_130_000));
        assert!(!site.due);
        let text = render(&s);
        assert!(
            text.contains("navigate s1#t1, session s1, since 00:16:40 UTC (5 s ago), held until 00:18:40 UTC (in 2 min)"),
            "{text}"
        );
    }

    #[test]
    fn a_hold_that_ran_out_is_shown_as_lapsed_not_in_flight() {
        let store = one_call_admitted();
        // At the hold's last millisecond the call is still in flight...
        let s = collect(&store, &Config::default(), None, 1_119_999).unwrap();
        assert!(!s.sites[0].in_flight[0].lapsed);
        assert!(render(&s).contains("  in flight     navigate s1#t1"));
        // ...and 8 minutes after the hold, with no Post, it lapsed.
        let s = collect(&store, &Config::default(), None, 1_600_000).unwrap();
        assert!(s.sites[0].in_flight[0].lapsed);
        let text = render(&s);
        assert!(text.contains("  in flight     none\n"), "{text}");
        assert!(
            text.contains("  lapsed        navigate s1#t1, session s1, since 00:16:40 UTC (10 min ago): no Post came, and its hold ran out at 00:18:40 UTC (8 min ago); counted as finished then\n"),
            "{text}"
        );
    }

    #[test]
    fn a_budget_shows_calls_left_and_when_the_next_frees() {
        let mut state = SiteState::new("a.com");
        state.admits = vec![1_000, 50_000, 90_000];
        state.keep = 5;
        state.backoff = Some(Backoff {
            set_ms: 90_000,
            until_ms: 150_000,
            strikes: 2,
        });
        let policy = Policy {
            interval_ms: 0,
            hold_ms: 0,
            budget: Some(Budget {
                calls: 3,
                window_ms: 60_000,
            }),
        };
        let mut view = SiteView::default();
        fill(&mut view, &state, &policy, &BTreeMap::new(), 100_000);
        let b = view.budget.unwrap();
        assert_eq!((b.used, b.left, b.next_free_ms), (2, 1, Some(110_000)));
        assert!(view.backoff.unwrap().active);
        assert_eq!(view.next_start_ms, Some(150_000));
    }

    #[test]
    fn sessions_are_read_from_call_keys_when_the_log_has_no_admission() {
        assert_eq!(session_of("s1/agent#toolu_1").as_deref(), Some("s1"));
        assert_eq!(session_of("#toolu_1"), None);
    }

    #[test]
    fn unknown_tools_a_rule_now_declares_are_left_out() {
        let mut r = Record::new(Kind::Unknown, 5, "mcp__x__go");
        r.call = Some("c".into());
        let mut other = r.clone();
        other.tool = "mcp__y__go".into();
        let config = Config::parse(
            "[[tool]]\nmatch = \"mcp__y__.*\"\nclass = \"skip\"\n",
            std::path::Path::new("/c.toml"),
        )
        .unwrap();
        let u = unknown_tools(&[r.clone(), r, other], &config);
        assert_eq!(
            u,
            vec![UnknownTool {
                tool: "mcp__x__go".into(),
                calls: 2,
                last_ms: 5
            }]
        );
    }
}
