//! One hook event, start to finish: classify the call, find its sites, ask
//! the gate, and say what happened, to the model on a block and to the gate
//! log always.

pub(crate) mod client;
pub(crate) mod context;
pub(crate) mod event;
pub(crate) mod input;
#[cfg(test)]
mod tests;

pub(crate) use context::Context;

use crate::{
    config::{Config, OnBackendError},
    duration::format_duration,
    error::{Error, Result},
    gate::{Admitted, Ask, Gate, SiteRequest, Spent, Turn},
    hook::event::{EventKind, HookEvent},
    pacing::clock::{Clock, Mono},
    pacing::log::{Kind, Record},
    read::profile::{self, Call, TabRef, Target, ToolResult, Verdict},
    read::resolve,
    read::site,
    store::{Store, TabMap, TabNote, TabSeen},
};

/// What the hook answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Let the call go on.
    Pass,
    /// Block it; the text is for the model.
    Block(String),
    /// Let the call go on (or, for a Post, done), and tell the model this:
    /// the hook's `additionalContext` on stdout, since exit 0 shows stderr
    /// to nobody. A site asked for less traffic; the shared gate fell back
    /// to this machine's.
    Tell(String),
    /// Let the call go on after a paced wait, and say so: `user` to the
    /// person (the hook's `systemMessage`), `model` to the model (its
    /// `additionalContext`). Without it a wait is invisible: Claude Code
    /// shows only "running PreToolUse hook" for as long as it lasts.
    Waited {
        /// Which site, how long, why; one line.
        user: String,
        /// The same for the model, with what it means for its next step.
        model: String,
    },
}

/// A Post event that could not be recorded in full. The tool already ran,
/// so nothing is blocked; the message says what the gate does now.
#[derive(Debug)]
pub(crate) struct PostFailure(pub String);

/// Handle one event. `arrived` is when the process started, on the system
/// clock's monotonic scale, so that `max_wait` counts the whole time the
/// hook has run.
pub(crate) fn handle(
    ctx: &dyn Context,
    event: &HookEvent,
    arrived: Mono,
) -> Result<Outcome, Failure> {
    match event.kind {
        EventKind::PreToolUse => pre(ctx, event, arrived).map_err(Failure::Pre),
        EventKind::PostToolUse | EventKind::PostToolUseFailure => post(ctx, event)
            .map(|told| told.map_or(Outcome::Pass, Outcome::Tell))
            .map_err(Failure::Post),
        EventKind::Other(_) => Ok(Outcome::Pass),
    }
}

/// How handling an event failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Before the call: it must be blocked.
    Pre(Error),
    /// After the call: say what it means; block nothing.
    Post(PostFailure),
}

/// The message for the model when a Pre event fails inside pace-hook.
pub(crate) fn failure_message(tool: Option<&str>, error: &Error) -> String {
    let advice = match error {
        Error::CorruptState { .. } => "Retry the call after that wait.".to_owned(),
        Error::LockTimeout { .. } => {
            "Retry in a minute; if this keeps happening, tell the user.".to_owned()
        }
        Error::Backend { setup: true, .. } => {
            "Retrying will not help: tell the user, who can fix pace-hook's `backend` setting.".to_owned()
        }
        Error::Backend { .. } => {
            "Retry in a minute; if this keeps happening, tell the user, who can bring the server back or set on_backend_error = \"local\" to pace on this machine alone meanwhile.".to_owned()
        }
        // The error itself says what to remove or change.
        Error::Tampered { .. } | Error::UnsafeStateDir { .. } => {
            "Retrying will not help: tell the user, who can fix it as said.".to_owned()
        }
        _ => "Retrying will not help: tell the user, so they can fix pace-hook's setup.".to_owned(),
    };
    let what = tool.map_or_else(|| "this call".to_owned(), |t| format!("`{}`", short(t)));
    one_line(&format!(
        "pace-hook blocked {what} because it could not pace it safely: {error}. {advice}"
    ))
}

/// The message for a Post event that could not be read.
pub(crate) fn unreadable_post_message(error: &Error) -> String {
    one_line(&format!(
        "pace-hook could not read this PostToolUse event: {error}. The call itself ran; its end was not recorded, so its site stays held until its in-flight hold runs out, and then paces as usual."
    ))
}

fn short(tool: &str) -> &str {
    tool.rsplit("__").next().unwrap_or(tool)
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn record(event: &HookEvent, kind: Kind, ts: u64) -> Record {
    let mut r = Record::new(kind, ts, short(&event.tool_name));
    r.session = event.session_id.clone();
    r.call = event.tool_use_id.clone();
    r
}

/// The key that names this call in the gate: its agent (session and
/// subagent) and its `tool_use_id`. Ids are unique only within a session
/// (gateways and mocks reuse `call_0`), so the id alone would let two
/// sessions' calls pass as one.
pub(crate) fn call_key(event: &HookEvent, clock: &dyn Clock) -> String {
    let id = event.tool_use_id.clone().unwrap_or_else(|| {
        // No id to meet its Post by: unique to this process and moment.
        format!("pre-{}-{}", std::process::id(), clock.now_floor())
    });
    match event.agent() {
        Some(agent) => format!("{agent}#{id}"),
        None => format!("#{id}"),
    }
}

/// Log a line without a store: skips touch no state. The state directory
/// is made (private) if it is not there yet, or the first calls on a fresh
/// machine, often reads (`list_pages`, a snapshot), would leave no line.
fn log_light(ctx: &dyn Context, event: &HookEvent, kind: Kind, why: &str) {
    let mut r = record(event, kind, ctx.clock().now_floor());
    r.reason = Some(why.to_owned());
    ctx.log_light(&r, true);
}

fn pre(ctx: &dyn Context, event: &HookEvent, arrived: Mono) -> Result<Outcome> {
    // Read only when a call needs it: an open tool's `[[tool]]` rules, or a
    // block or a pace. Skips and listed tools' sorting never read it.
    let verdict = profile::classify(
        &event.tool_name,
        &event.tool_input,
        event.session_id.as_deref(),
        || Ok(&ctx.config()?.tools[..]),
    )?;
    match verdict {
        Verdict::NotOurs => Ok(Outcome::Pass),
        Verdict::Unknown => {
            log_unknown(
                ctx,
                event,
                "no profile or [[tool]] rule knows this tool; it passed unpaced",
            );
            Ok(Outcome::Pass)
        }
        Verdict::Unseen { what } => {
            log_unknown(ctx, event, &what);
            Ok(Outcome::Pass)
        }
        Verdict::Skip { why } => {
            log_light(ctx, event, Kind::Skip, why);
            Ok(Outcome::Pass)
        }
        Verdict::Block { why, instead } => {
            let config = ctx.config()?;
            let store = ctx.open_store(config)?;
            let mut r = record(event, Kind::Block, store.clock().now_floor());
            r.reason = Some(why.clone());
            store.log(&r);
            let tool = short(&event.tool_name);
            Ok(Outcome::Block(one_line(&if instead.is_empty() {
                // A `[[tool]]` block: the user's reason says it all.
                format!("pace-hook blocked `{tool}`: {why}.")
            } else {
                format!(
                    "pace-hook blocked `{tool}`: {why}. {instead}; pace-hook then spaces the requests to each site {} apart, from the end of one to the start of the next.",
                    format_duration(config.interval_ms)
                )
            })))
        }
        Verdict::Handed { target, label } => {
            log_unknown(
                ctx,
                event,
                "no profile or [[tool]] rule knows this tool; it was handed URLs, so it was paced on their sites",
            );
            pace_verdict(ctx, event, target, label, arrived)
        }
        Verdict::Pace { target, label } => pace_verdict(ctx, event, target, label, arrived),
    }
}

/// Pace a call on `target`, on the shared gate or, if it fails midway and
/// the config says so, on this machine's.
fn pace_verdict(
    ctx: &dyn Context,
    event: &HookEvent,
    target: Target,
    label: String,
    arrived: Mono,
) -> Result<Outcome> {
    let config = ctx.config()?;
    let store = ctx.open_store(config)?;
    // A slow server must not hold the hook past its client's timeout.
    store.bound_io(Some(crate::gate::io_deadline(arrived, config.max_wait_ms)));
    let outcome = match pace(
        event,
        config,
        store.as_ref(),
        &target,
        label.clone(),
        arrived,
    ) {
        // The shared gate failed midway (it went down while this
        // call waited): with `on_backend_error = "local"`, pace the
        // call on this machine's gate instead, in the time left.
        Err(e @ Error::Backend { .. }) if config.on_backend_error == OnBackendError::Local => {
            let local = ctx.local_store(config, &e)?;
            let outcome = pace(event, config, local.as_ref(), &target, label, arrived)?;
            return Ok(noted(outcome, local.warning()));
        }
        other => other?,
    };
    Ok(noted(outcome, store.warning()))
}

/// Log a tool nobody knows, under its full name, so that `status` can show
/// how to declare it. Like a skip's line, this one creates the state
/// directory: on a fresh machine the first unknown tool is the one to see.
fn log_unknown(ctx: &dyn Context, event: &HookEvent, why: &str) {
    let mut r = record(event, Kind::Unknown, ctx.clock().now_floor());
    r.tool = event.tool_name.clone();
    r.reason = Some(why.to_owned());
    ctx.log_light(&r, true);
}

/// `outcome`, with the store's warning for the model, if it has one.
fn noted(outcome: Outcome, warning: Option<&str>) -> Outcome {
    match (outcome, warning) {
        (Outcome::Pass, Some(w)) => Outcome::Tell(w.to_owned()),
        (Outcome::Waited { user, model }, Some(w)) => Outcome::Waited {
            user,
            model: one_line(&format!("{model} {w}")),
        },
        (Outcome::Block(m), Some(w)) => Outcome::Block(one_line(&format!("{m} {w}"))),
        (outcome, _) => outcome,
    }
}

fn pace(
    event: &HookEvent,
    config: &Config,
    store: &dyn Store,
    target: &Target,
    label: String,
    arrived: Mono,
) -> Result<Outcome> {
    let clock = store.clock();
    let requests: Vec<SiteRequest> = resolve::requests_for(target, config, store)?
        .into_iter()
        .map(SiteRequest::jittered)
        .collect();
    if requests.is_empty() {
        let mut r = record(event, Kind::Skip, clock.now_floor());
        r.reason = Some("reaches no site".to_owned());
        store.log(&r);
        return Ok(Outcome::Pass);
    }
    let call = call_key(event, clock);
    let gate = Gate::new(store);
    let agent = event.agent();
    let mut line = record(event, Kind::Admit, 0);
    line.tool = label.clone();
    // The agent kills a hook at its timeout and runs the call unpaced: the
    // wait ends in time to answer, whatever the config allows.
    let (max_wait_ms, limit) = match event.max_wait_ms {
        Some(cap) if cap < config.max_wait_ms => (
            cap,
            format!("{}, under the agent's hook timeout", format_duration(cap)),
        ),
        _ => (
            config.max_wait_ms,
            format!("max_wait, {}", format_duration(config.max_wait_ms)),
        ),
    };
    let note = moves_tab(target);
    let ask = Ask {
        call: &call,
        requests: &requests,
        arrived,
        max_wait_ms,
        hold_ms: config.hold_ms,
        agent: agent.as_deref(),
        note: note.as_ref(),
        line: &line,
    };
    let turn = gate.take_turn(&ask, &mut |a| match &note {
        Some(n) => store.update_tabs(&|map: &mut TabMap| n.apply(map, a.at_ms)),
        None => Ok(()),
    })?;
    match turn {
        Turn::Admitted(a) => Ok(waited(&a, store, &label)),
        Turn::OverBudget(s) => Ok(Outcome::Block(budget_message(&label, &requests, &s))),
        Turn::GaveUp(g) => {
            let ahead = match g.ahead {
                0 => "the site is still busy".to_owned(),
                1 => "1 other call is still ahead of it".to_owned(),
                n => format!("{n} other calls are still ahead of it"),
            };
            Ok(Outcome::Block(one_line(&format!(
                "pace-hook blocked `{label}` on {}: it waited {} for its turn (the most it may wait is {limit}), and {ahead}; {} should be free in {} at the earliest. Work on something else meanwhile (another site, or what this page already shows), then retry this call.",
                g.site,
                format_duration(g.waited_ms),
                g.site,
                format_duration(g.more_ms.max(1)),
            ))))
        }
    }
}

fn policy_in(requests: &[SiteRequest], site: &str) -> crate::pacing::decision::Policy {
    requests
        .iter()
        .find(|r| r.site == site)
        .map(|r| r.policy)
        .unwrap_or_default()
}

/// The message for a call blocked because a site's budget is spent.
pub(crate) fn budget_message(label: &str, requests: &[SiteRequest], s: &Spent) -> String {
    let per = policy_in(requests, &s.site)
        .budget
        .map(|b| format!(" ({} calls per {})", b.calls, format_duration(b.window_ms)))
        .unwrap_or_default();
    one_line(&format!(
        "pace-hook blocked `{label}`: the budget for {}{per} is spent; the next call there is allowed at {} UTC, in {}. Waiting that long would outlive the hook, so work on other sites or on what you already have until then.",
        s.site,
        crate::pacing::gaps::clock_time(s.free_at),
        format_duration(s.free_at.saturating_sub(s.now).max(1)),
    ))
}

/// What an admitted call already tells about its tab: a navigation moves
/// the tab, so until a result shows where it ended up, it may be on its old
/// site or the new one, and has been on both.
fn moves_tab(target: &Target) -> Option<TabNote> {
    let Target::Url {
        url,
        tab: Some(tab),
    } = target
    else {
        return None;
    };
    Some(TabNote {
        seen: vec![seen(tab, resolve::hosts_of_url(url), false)],
        current: None,
    })
}

fn post(ctx: &dyn Context, event: &HookEvent) -> Result<Option<String>, PostFailure> {
    let Some((profile, tool)) = profile::find(&event.tool_name) else {
        return post_declared(ctx, event).map(|()| None);
    };
    let call = Call {
        tool,
        server: profile::server_of(&event.tool_name),
        input: &event.tool_input,
        session: event.session_id.as_deref(),
    };
    if !profile.post_matters(&call) {
        return Ok(None);
    }
    let what = format!("`{tool}`");
    // A Post is recorded even while the config is broken (the Pre side
    // blocks then, so no call of this config was admitted since): the
    // defaults give the store; the finish needs nothing else.
    let default;
    let config = match ctx.config() {
        Ok(c) => c,
        Err(_) => {
            default = Config::default();
            &default
        }
    };
    let store = ctx
        .open_store(config)
        .map_err(|e| not_recorded(&what, &e, config))?;
    let store = store.as_ref();
    let outcome = ToolResult {
        texts: &event.response_texts,
        object: event.response_object.as_ref(),
        error: event.error.as_deref(),
    };
    let learned = profile.learn(&call, &outcome);
    let loading = profile.still_loading(&call, &outcome, event.duration_ms);
    // The sites the call's tab shows it is on: a call admitted on an
    // unknown tab, or on a tab the map had wrong, reached them, so the next
    // call there must count from this finish.
    let revealed: Vec<String> = learned
        .executed
        .as_ref()
        .map(|ex| {
            let mut keys: Vec<String> = learned
                .tabs
                .iter()
                .filter(|t| &t.tab == ex)
                .flat_map(|t| resolve::hosts_of_url(&t.url))
                .filter(|h| h != resolve::ANY_HOST)
                .map(|h| site::key_for_host(&h))
                .collect();
            keys.sort();
            keys.dedup();
            keys
        })
        .unwrap_or_default();
    // The finish first: it is what the next call's wait counts from. A
    // call whose page may still be loading is not finished: it keeps its
    // sites for a full hold from now.
    let mut finished = Vec::new();
    let mut held = None;
    if loading {
        held = hold_loading(event, store, config).map_err(|e| not_recorded(&what, &e, config))?;
    }
    // What the result shows of its tabs, applied to the tab map along with
    // the finish where the store can, and by the update below in any case.
    let note = (!(learned.tabs.is_empty() && learned.current.is_none())).then(|| TabNote {
        seen: learned
            .tabs
            .iter()
            .map(|t| seen(&t.tab, resolve::hosts_of_url(&t.url), t.sure))
            .collect(),
        current: learned
            .current
            .as_ref()
            .and_then(|c| Some((c.browser.clone(), c.key()?))),
    });
    if held.is_none() && (event.tool_use_id.is_some() || !revealed.is_empty()) {
        finished = record_finish(event, store, tool, &revealed, note.as_ref())
            .map_err(|e| not_recorded(&what, &e, config))?;
    }
    // Then what the sites said about the pace: a 429 or 503 holds the site
    // back; a success resets the doubling.
    let mut told = listen(event, store, config, &learned.statuses, &finished)
        .map_err(|e| not_recorded(&what, &e, config))?;
    if let Some(sites) = held.filter(|s| !s.is_empty()) {
        let keeps = format!(
            "pace-hook keeps {} held for up to {}: `{tool}` ended while the page it started may still be loading (the server stopped waiting for it), and a next request would cut that load short. Work on other sites meanwhile.",
            name_sites(&sites.iter().map(String::as_str).collect::<Vec<_>>()),
            format_duration(config.hold_ms)
        );
        told = Some(match told {
            Some(t) => format!("{t} {keeps}"),
            None => keeps,
        });
    }
    let Some(note) = note else {
        return Ok(told);
    };
    let now = store.clock().now_floor();
    store
        .update_tabs(&|map: &mut TabMap| note.apply(map, now))
        .map_err(|e| {
            PostFailure(one_line(&format!(
                "pace-hook recorded the end of {what} but could not update its tab map: {e}; calls on tabs it has not seen since are paced against every site it knows until a result shows where they are."
            )))
        })?;
    Ok(told)
}

/// Act on the HTTP statuses a result reports: a site that answered 429 or
/// 503 gets a backoff (its `Retry-After`, else a doubling wait), shared by
/// every process; a site that answered well, or the sites of a call that
/// succeeded without any status, get their doubling reset. Returns what the
/// model is told.
fn listen(
    event: &HookEvent,
    store: &dyn Store,
    config: &Config,
    statuses: &[profile::Status],
    finished: &[String],
) -> Result<Option<String>> {
    let mut told: Vec<String> = Vec::new();
    let mut pushed: Vec<String> = Vec::new();
    for st in statuses {
        let Some(host) = site::host_of_url(&st.url) else {
            continue;
        };
        let key = site::key_for_host(&host);
        if matches!(st.code, 429 | 503) {
            let interval = crate::gate::requests::policy_for_key(config, &key)?.interval_ms;
            let mut set_at = 0;
            let until = store.update_backoff(&key, &mut |s, now| {
                set_at = now;
                Some(s.push_back(now, st.retry_after_ms, interval, config.max_backoff_ms))
            })?;
            let now = set_at;
            let mut r = record(event, Kind::Backoff, now);
            r.sites = vec![key.clone()];
            r.reason = Some(format!(
                "answered {}{}",
                st.code,
                st.retry_after_ms
                    .map(|ms| format!(", Retry-After {}", format_duration(ms)))
                    .unwrap_or_default()
            ));
            r.until_ms = until;
            store.log(&r);
            if let Some(until) = until {
                let how = if st.retry_after_ms.is_some() {
                    "as its Retry-After asked"
                } else {
                    "and longer each time it answers so again"
                };
                told.push(format!(
                    "{key} answered {} {}; pace-hook holds its next call back until {} UTC (in {}), {how}. Work on other sites meanwhile.",
                    st.code,
                    reason_phrase(st.code),
                    crate::pacing::gaps::clock_time(until),
                    format_duration(until.saturating_sub(now).max(1)),
                ));
            }
            pushed.push(key);
        }
    }
    let ok: Vec<String> = statuses
        .iter()
        .filter(|st| st.code < 400)
        .filter_map(|st| site::host_of_url(&st.url).map(|h| site::key_for_host(&h)))
        .chain(
            (event.kind == EventKind::PostToolUse && statuses.is_empty())
                .then(|| finished.iter().cloned())
                .into_iter()
                .flatten(),
        )
        .filter(|k| !pushed.contains(k))
        .collect();
    for key in ok {
        // Most sites have no backoff to reset: look first. A look is one
        // read; the step is a script and a transaction on Redis (five round
        // trips on every Post), a locked read on files either way. A state
        // that cannot be read goes to the step, which heals it.
        match store.site_state(&key) {
            Ok(None) => continue,
            Ok(Some(s)) if s.backoff.is_none() => continue,
            _ => {}
        }
        store.update_backoff(&key, &mut |s, now| {
            s.relieve(now);
            None
        })?;
    }
    Ok((!told.is_empty()).then(|| told.join(" ")))
}

fn reason_phrase(code: u16) -> &'static str {
    match code {
        429 => "Too Many Requests",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// The Post of a tool no profile owns: if a `[[tool]]` rule paces it, its
/// call is finished like any other. Tools nobody declared were never
/// admitted, so their Posts read nothing but the config.
fn post_declared(ctx: &dyn Context, event: &HookEvent) -> Result<(), PostFailure> {
    if !event.tool_name.starts_with("mcp__") || event.tool_use_id.is_none() {
        return Ok(());
    }
    // A broken config blocked the Pre, so no call of it is in flight.
    let Ok(config) = ctx.config() else {
        return Ok(());
    };
    // Paced by a `[[tool]]` rule, or a tool nobody knows that was paced on
    // the URLs it was handed (unless a rule said otherwise).
    let paced = match profile::declared::rule_for(&config.tools, &event.tool_name) {
        Some(rule) => rule.class == crate::config::ToolClass::Pace,
        None => matches!(
            profile::handed(&event.tool_name, &event.tool_input),
            Verdict::Handed { .. }
        ),
    };
    if !paced {
        return Ok(());
    }
    let what = format!("`{}`", short(&event.tool_name));
    let store = ctx
        .open_store(config)
        .map_err(|e| not_recorded(&what, &e, config))?;
    let store = store.as_ref();
    record_finish(event, store, short(&event.tool_name), &[], None)
        .map(|_| ())
        .map_err(|e| not_recorded(&what, &e, config))
}

/// Record the finish of the event's call, and on `revealed` sites, and log
/// it; `tabs`: the tab map is read next. Returns the sites it was recorded on.
fn record_finish(
    event: &HookEvent,
    store: &dyn Store,
    tool: &str,
    revealed: &[String],
    note: Option<&TabNote>,
) -> Result<Vec<String>> {
    let key = call_key(event, store.clock());
    let f = Gate::new(store).finish_then(&key, event.agent().as_deref(), revealed, note)?;
    if !f.sites.is_empty() {
        let mut r = record(event, Kind::Finish, f.at());
        r.tool = tool.to_owned();
        r.call = Some(key);
        r.finished_ms = f.times;
        r.sites = f.sites.clone();
        r.reason = (event.kind == EventKind::PostToolUseFailure).then(|| "failed".to_owned());
        store.log(&r);
    }
    Ok(f.sites)
}

/// Keep a call whose page may still be loading in flight on its sites for
/// a full hold from now, and close its record so that its agent's next call
/// does not finish it either: the load ends at the site when the browser is
/// done, which no event shows. Returns the sites held; `None` if this gate
/// did not admit the call.
fn hold_loading(
    event: &HookEvent,
    store: &dyn Store,
    config: &Config,
) -> Result<Option<Vec<String>>> {
    let key = call_key(event, store.clock());
    let Some(record) = store.take_call(&key, event.agent().as_deref())? else {
        return Ok(None);
    };
    Gate::new(store).extend(&key, &record.sites, config.hold_ms)?;
    Ok(Some(record.sites))
}

fn not_recorded(what: &str, e: &Error, config: &Config) -> PostFailure {
    PostFailure(one_line(&format!(
        "pace-hook could not record the end of {what}: {e}. The call itself ran; its sites stay held until its in-flight hold runs out (at most {}), and then pace as usual.",
        format_duration(config.hold_ms)
    )))
}

/// Where `tab` was seen, as the tab map takes it.
pub(crate) fn seen(tab: &TabRef, hosts: Vec<String>, sure: bool) -> TabSeen {
    TabSeen {
        key: tab.key(),
        browser: tab.browser.clone(),
        hosts,
        sure,
    }
}

/// A wait shorter than this is not told: it is the ordinary cost of a
/// paced call (a lock, a short queue), and a line per call would be noise.
pub(crate) const TELL_AFTER_MS: u64 = 1_000;

/// The most sites a message names one by one.
const NAMED_SITES: usize = 3;

/// Sites as a message names them: each of up to [`NAMED_SITES`]
/// (`a, b and c`), else the first ones and how many more, so that a call
/// paced on every known site does not put thousands of names in the
/// model's context.
pub(crate) fn name_sites(sites: &[&str]) -> String {
    match sites.len() {
        n if n <= NAMED_SITES => crate::read::shell::join_and(sites),
        _ => format!(
            "{} and {} others",
            sites[..NAMED_SITES - 1].join(", "),
            count(sites.len() - (NAMED_SITES - 1))
        ),
    }
}

/// A count as the messages write it: `2,001`.
fn count(n: usize) -> String {
    crate::pacing::gaps::group(i64::try_from(n).unwrap_or(i64::MAX))
}

/// What to say after admission `a`: nothing for a call admitted at once (or
/// a second pace-hook for a call already admitted), else which site held it,
/// how long and why. The site that held it is the one whose turn took
/// longest (sites are taken one after another); the why is read back from
/// its state alone, only for a call that waited, so the call admitted at
/// once pays nothing for it, and a call paced on every known site reads one
/// state, not thousands.
fn waited(a: &Admitted, store: &dyn Store, label: &str) -> Outcome {
    if a.duplicate || a.waited_ms < TELL_AFTER_MS {
        return Outcome::Pass;
    }
    let started = a.at_ms.saturating_sub(a.waited_ms);
    let mut before = started;
    let mut holder = (0, 0);
    for (i, &at) in a.taken_ms.iter().enumerate() {
        let took = at.saturating_sub(before);
        if took > holder.1 {
            holder = (i, took);
        }
        before = before.max(at);
    }
    let Some((site, _)) = a.sites.get(holder.0) else {
        return Outcome::Pass;
    };
    let site = site.as_str();
    let state = store.site_state(site).ok().flatten();
    let interval = a.intervals_ms.get(holder.0).copied().unwrap_or(0);
    // A backoff that ran out while this call waited is what held it.
    let backoff = state.as_ref().and_then(|st| {
        let until = st.backoff?.until_ms;
        (until > started && until <= a.at_ms.saturating_add(1_000)).then_some(until)
    });
    let last_finish = state.as_ref().and_then(|st| st.last_finish_ms);
    let why = match (backoff, last_finish) {
        (Some(until), _) => format!(
            "{site} is backing off (it answered 429, or was held back by hand) until {} UTC",
            crate::pacing::gaps::clock_time(until)
        ),
        // A call that finished while this one waited was ahead of it.
        (None, Some(f)) if f > started => format!(
            "another call to it was ahead (in flight or queued), and each starts at least {} after the one before ends (interval)",
            format_duration(interval)
        ),
        (None, Some(f)) if interval > 0 && f.saturating_add(interval) > started => format!(
            "its last call ended less than {} ago (interval: from the end of one call to the start of the next)",
            format_duration(interval)
        ),
        _ => "another call held it (in flight), or this process was held up getting its turn"
            .to_owned(),
    };
    let (among, others) = match a.sites.len() {
        1 => (String::new(), "other sites"),
        n => (
            format!(
                " (one of the {} sites it was paced on: {})",
                count(n),
                name_sites(&a.sites.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>())
            ),
            "sites it was not paced on",
        ),
    };
    let took = format_duration(a.waited_ms);
    Outcome::Waited {
        user: one_line(&format!(
            "pace-hook: `{label}` waited {took} for {site}'s turn{among}: {why}"
        )),
        model: one_line(&format!(
            "pace-hook paced this call: `{label}` waited {took} for {site}'s turn{among}, because {why}. The call then went ahead; there is nothing to retry. Calls to {others} are not held by this one."
        )),
    }
}
