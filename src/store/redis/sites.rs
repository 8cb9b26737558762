//! The Redis store's site steps: each one script (`<step>.lua` after
//! `base.lua` and `state.lua`), but the backoff, an optimistic transaction
//! around the one Rust step.

use std::{collections::BTreeMap, path::PathBuf, sync::Arc, time::Duration};

use super::*;
use crate::store::{Attempt, TabNote};
use crate::{
    pacing::step::{self, Applied, Look, Now, Step},
    store::{
        Admission, AdmitCall, AdmitSites, CallRecord, Sites, SitesAdmission, Stepped, Watch,
        with_retry,
    },
};

impl RedisStore {
    fn site_keys(&self, site: &str) -> [String; 3] {
        [
            self.inner.key("site", site),
            format!("{PREFIX}sites"),
            self.inner.key("changed", site),
        ]
    }

    /// Run a step on `site`'s state: the script with the site's keys, the
    /// prefix, the clock, the site, `call` and `args`.
    fn run_step(&self, script: &Lua, site: &str, call: &str, args: &[String]) -> Result<Reply> {
        let [state, sites, changed] = self.site_keys(site);
        let clock = self.inner.clock_arg();
        let argv: Vec<&str> = [PREFIX, &clock, site, call]
            .into_iter()
            .chain(args.iter().map(String::as_str))
            .collect();
        self.inner
            .script(script, &[&state, &sites, &changed], &argv)
    }

    /// The lost-state rule's error, after a script healed `site`.
    fn corrupt(&self, site: &str, aside: &str, heal: &Policy) -> Error {
        let place = |key: &str| PathBuf::from(format!("{key}` on `{}", self.inner.server));
        Error::CorruptState {
            path: place(&self.inner.key("site", site)),
            moved_to: (!aside.is_empty()).then(|| place(aside)),
            retry_after_ms: heal.lost_for_ms(),
        }
    }

    /// An admission script's reply, `{decision, now_ms, until_ms, now_us,
    /// lease-bound holds?, holds}`, as the look it made.
    fn look(&self, r: &Reply) -> Result<Stepped> {
        let (at, until, now_us) = (r.uint(1), r.uint(2), r.uint(3));
        let decision = match r.int(0) {
            0 => Decision::Go,
            1 => Decision::Duplicate,
            2 => Decision::WaitUntil(until),
            3 => Decision::OverBudget(until),
            other => {
                return Err(Error::Backend {
                    server: self.inner.server.clone(),
                    problem: format!("answered a step with an unknown code {other}"),
                    setup: false,
                });
            }
        };
        // From the server's µs, so the wait ends at `t` by the server's
        // clock, never before; the reply's trip only adds.
        let left = match decision {
            Decision::WaitUntil(t) => {
                Duration::from_micros(t.saturating_mul(1000).saturating_sub(now_us))
            }
            _ => Duration::ZERO,
        };
        let look = Look {
            at,
            decision,
            settled: r.int(5) == 0,
            lease_bound: r.int(4) == 1,
        };
        Ok(Stepped {
            applied: Applied::Admit(look),
            left,
        })
    }

    /// The policy a state that cannot be read is rebuilt with, for an
    /// admission under `policy`.
    fn admission_heal(&self, call: &str, policy: &Policy) -> Policy {
        Step::Admit {
            call,
            policy,
            lease: None,
        }
        .heal(&self.settings.lost)
    }

    /// What an admission script does along with its look, as its
    /// arguments: `'1'` to check the agent's slot, the record around its
    /// start, the record's kind and time to live, a new marker if the
    /// server is still to be greeted, `'1'` to read the tab map.
    fn along_args(
        &self,
        call: &str,
        agent: Option<&str>,
        check_agent: bool,
        record: &CallRecord,
        note: Option<&TabNote>,
    ) -> AlongArgs {
        let (record_key, kind, ttl) = match agent {
            Some(agent) => (self.inner.key("agent", agent), "agent", AGENT_TTL_MS),
            None => (self.inner.key("call", call), "call", CALL_TTL_MS),
        };
        let (head, tail) = record_around_start(record);
        let greet = self.greeted.get().is_none();
        let flag = |on: bool| if on { "1" } else { "" }.to_owned();
        AlongArgs {
            record_key,
            greet,
            args: [
                flag(check_agent && agent.is_some()),
                head,
                tail,
                kind.to_owned(),
                ttl.to_string(),
                if greet { fresh_marker() } else { String::new() },
                note.map(TabNote::text).unwrap_or_default(),
            ],
        }
    }

    /// [`Store::admit_call`] as one script (`admit.lua` with all its
    /// arguments): the agent's slot, the queue, the look, the record, the
    /// greeting and the tab map, in one round trip.
    pub(super) fn admit_at_once(&self, a: &AdmitCall<'_>) -> Result<Admission> {
        let policy = a.policy;
        let heal = self.admission_heal(a.call, policy);
        let [calls, window] = budget_args(policy);
        let along = self.along_args(a.call, a.agent, a.check_agent, a.record, a.note);
        let greet = along.greet;
        let [state, sites, changed] = self.site_keys(a.site);
        let queue = self.queue_key(a.site);
        let record_key = along.record_key;
        let clock = self.inner.clock_arg();
        let mut args: Vec<String> = vec![
            policy.interval_ms.to_string(),
            policy.hold_ms.to_string(),
            calls,
            window,
            String::new(),
            heal.interval_ms.to_string(),
            heal.hold_ms.to_string(),
            if a.if_unqueued {
                self.settings.stale_after_ms.to_string()
            } else {
                String::new()
            },
        ];
        args.extend(along.args);
        let argv: Vec<&str> = [PREFIX, &clock, a.site, a.call]
            .into_iter()
            .chain(args.iter().map(String::as_str))
            .collect();
        self.states_read.forget(a.site);
        let before = OffsetClock::local_us();
        let r: Reply = self.inner.script(
            &ADMIT,
            &[&state, &sites, &changed, &record_key, &queue],
            &argv,
        )?;
        if greet {
            self.greeted_by(r.int(3), before, &r.text(6), r.int(7) == 1);
        }
        // The map as the note left it, for the caller's update of it right
        // after the admission (which finds the note applied): kept only
        // then.
        if a.note.is_some() && matches!(r.int(0), 0 | 1) {
            *lock(&self.tabs_read) = Some(r.opt_text(8));
        }
        match r.int(0) {
            CORRUPT => Err(self.corrupt(a.site, &r.text(1), &heal)),
            AGENT_BUSY => Ok(Admission::AgentBusy),
            QUEUED => Ok(Admission::Queued),
            _ => Ok(Admission::Looked(Attempt::of(&self.look(&r)?))),
        }
    }

    /// [`Store::admit_sites`] as one script (`admit_sites.lua`): the
    /// agent's slot, every site's queue and look, the record, the greeting
    /// and the tab map, in one round trip; nothing written unless every
    /// site is taken.
    pub(super) fn admit_sites_at_once(&self, a: &AdmitSites<'_>) -> Result<SitesAdmission> {
        let along = self.along_args(a.call, a.agent, a.check_agent, a.record, a.note);
        let (greet, record_key) = (along.greet, along.record_key);
        let clock = self.inner.clock_arg();
        let mut args: Vec<String> = along.args.into();
        args.extend([
            self.settings.stale_after_ms.to_string(),
            a.sites.len().to_string(),
        ]);
        for req in a.sites {
            let policy = &req.policy;
            let heal = self.admission_heal(a.call, policy);
            let [calls, window] = budget_args(policy);
            args.extend([
                req.site.clone(),
                policy.interval_ms.to_string(),
                policy.hold_ms.to_string(),
                calls,
                window,
                heal.interval_ms.to_string(),
                heal.hold_ms.to_string(),
            ]);
        }
        let argv: Vec<&str> = [PREFIX, &clock, a.call]
            .into_iter()
            .chain(args.iter().map(String::as_str))
            .collect();
        for r in a.sites {
            self.states_read.forget(&r.site);
        }
        let before = OffsetClock::local_us();
        let r: Reply = self.inner.script(&ADMIT_SITES, &[&record_key], &argv)?;
        if greet {
            self.greeted_by(r.int(2), before, &r.text(3), r.int(4) == 1);
        }
        match r.int(0) {
            0 => {
                if a.note.is_some() {
                    *lock(&self.tabs_read) = Some(r.opt_text(5));
                }
                let at = r.uint(1);
                Ok(SitesAdmission::Taken(
                    (0..a.sites.len())
                        .map(|i| (at, r.int(6 + i) == 1))
                        .collect(),
                ))
            }
            CORRUPT => {
                let i = (r.uint(6) as usize).saturating_sub(1);
                let req = a.sites.get(i).ok_or_else(|| Error::Backend {
                    server: self.inner.server.clone(),
                    problem: format!("answered an admission with an unknown site {}", i + 1),
                    setup: false,
                })?;
                let heal = self.admission_heal(a.call, &req.policy);
                Err(with_retry(
                    self.corrupt(&req.site, &r.text(7), &heal),
                    &req.policy,
                ))
            }
            AGENT_BUSY => Ok(SitesAdmission::AgentBusy),
            QUEUED | WAIT => Ok(SitesAdmission::NotNow),
            other => Err(Error::Backend {
                server: self.inner.server.clone(),
                problem: format!("answered an admission with an unknown code {other}"),
                setup: false,
            }),
        }
    }

    /// [`Store::finish_call`] as one script (`finish_call.lua`): the
    /// record taken, every site finished, the greeting and the tab map, in
    /// one round trip. Each site's state after its finish is kept for the
    /// caller's next look at it ([`Sites::site_state`]: the Post looks for a
    /// backoff to reset).
    pub(super) fn finish_at_once(
        &self,
        call: &str,
        agent: Option<&str>,
        revealed: &[String],
        note: Option<&TabNote>,
    ) -> Result<Vec<(String, EpochMs)>> {
        let lost = self.settings.lost;
        let agent_key = agent.map(|a| self.inner.key("agent", a));
        let call_key = self.inner.key("call", call);
        let keys: Vec<&str> = agent_key
            .iter()
            .map(String::as_str)
            .chain([call_key.as_str()])
            .collect();
        let greet = self.greeted.get().is_none();
        let fresh = if greet { fresh_marker() } else { String::new() };
        let clock = self.inner.clock_arg();
        let (interval, hold) = (lost.interval_ms.to_string(), lost.hold_ms.to_string());
        let note_text = note.map(TabNote::text).unwrap_or_default();
        let argv: Vec<&str> = [
            PREFIX,
            &clock,
            call,
            if agent.is_some() { "1" } else { "" },
            &interval,
            &hold,
            &fresh,
            &note_text,
        ]
        .into_iter()
        .chain(revealed.iter().map(String::as_str))
        .collect();
        let before = OffsetClock::local_us();
        let r: Reply = self.inner.script(&FINISH_CALL, &keys, &argv)?;
        if greet {
            self.greeted_by(r.int(0), before, &r.text(1), r.int(2) == 1);
        }
        if note.is_some() {
            *lock(&self.tabs_read) = Some(r.opt_text(3));
        }
        let mut done = Vec::new();
        self.states_read.clear();
        for i in (4..r.0.len()).step_by(3) {
            let site = r.text(i);
            self.states_read.keep(&site, r.text(i + 2));
            done.push((site, r.uint(i + 1)));
        }
        Ok(done)
    }

    /// [`Step::Backoff`]: an optimistic transaction, since its closure
    /// cannot run on the server.
    fn backoff(
        &self,
        site: &str,
        f: &mut dyn FnMut(&mut SiteState, EpochMs) -> Option<EpochMs>,
        heal: &Policy,
    ) -> Result<Stepped> {
        // Heal an unreadable state first (a script), so that the
        // transaction below only ever meets readable ones.
        let [state_key, sites_key, changed_key] = self.site_keys(site);
        let lost = [heal.interval_ms.to_string(), heal.hold_ms.to_string()];
        let r = self.run_step(&CHECK, site, "", &lost)?;
        if r.int(0) == CORRUPT {
            return Err(self.corrupt(site, &r.text(1), heal));
        }
        let mut outcome: Option<Result<Applied>> = None;
        self.inner.run(|c| {
            redis::transaction(c, &[&state_key], |c, pipe| {
                let raw: Option<String> = redis::cmd("GET").arg(&state_key).query(c)?;
                let mut state = match raw.as_deref().map(|t| self.parse_state(site, t)) {
                    None => SiteState::new(site),
                    Some(Ok(s)) => s,
                    Some(Err(e)) => {
                        outcome = Some(Err(e));
                        return Ok(Some(()));
                    }
                };
                let (secs, micros): (u64, u64) = redis::cmd("TIME").query(c)?;
                let now = Now::from_us(secs * 1_000_000 + micros);
                let before = state.clone();
                let leases: Vec<String> = state
                    .in_flight
                    .iter()
                    .filter_map(|f| f.lease.clone())
                    .collect();
                let mut alive = BTreeMap::new();
                for l in leases {
                    let n: i64 = redis::cmd("EXISTS")
                        .arg(self.inner.key("lease", &l))
                        .query(c)?;
                    alive.insert(l, n == 1);
                }
                let alive = |id: &str| alive.get(id).copied().unwrap_or(false);
                outcome = Some(Ok(step::apply(
                    &mut state,
                    Step::Backoff(&mut *f),
                    now,
                    alive,
                )));
                if state == before {
                    return Ok(Some(()));
                }
                let text = serde_json::to_string(&state).expect("state serializes");
                pipe.cmd("SET")
                    .arg(&state_key)
                    .arg(text)
                    .arg("PX")
                    .arg(STATE_TTL_MS)
                    .ignore()
                    .cmd("ZADD")
                    .arg(&sites_key)
                    .arg(now.ceil)
                    .arg(site)
                    .ignore()
                    .cmd("LPUSH")
                    .arg(&changed_key)
                    .arg(1)
                    .ignore()
                    .cmd("LTRIM")
                    .arg(&changed_key)
                    .arg(0)
                    .arg(0)
                    .ignore()
                    .cmd("PEXPIRE")
                    .arg(&changed_key)
                    .arg(WAKE_TTL_MS)
                    .ignore()
                    .query::<Option<()>>(c)
            })
        })?;
        let applied = outcome.unwrap_or(Ok(Applied::Backoff(None)))?;
        Ok(Stepped {
            applied,
            left: Duration::ZERO,
        })
    }

    fn parse_state(&self, site: &str, raw: &str) -> Result<SiteState> {
        match serde_json::from_str::<SiteState>(raw) {
            Ok(s) if s.site == site => Ok(s),
            _ => Err(self.corrupt(site, "", &self.settings.lost)),
        }
    }
}

/// Waits on the site's wake-up list.
struct RedisWatch {
    inner: Arc<Inner>,
    key: String,
}

impl Watch for RedisWatch {
    fn wait(&mut self, timeout: Duration) -> Result<()> {
        // The wait is on another connection: what is still deferred on the
        // main one (the watch's own start) goes first.
        if lock(&self.inner.deferred).1 > 0 {
            self.inner.run(|_| Ok(()))?;
        }
        self.inner
            .block_pop(&self.key, timeout.min(WATCH_BACKSTOP))
            .map(|_| ())
    }
}

/// A watch's teardown closes the connection it waited on. The gate drops a
/// watch before it sleeps out the last of a wait (only the time is left
/// then), so the close falls inside that sleep instead of between the
/// admission and the hook's exit. A later watch connects again.
impl Drop for RedisWatch {
    fn drop(&mut self) {
        lock(&self.inner.blocking).take();
    }
}

impl Sites for RedisStore {
    fn step(&self, site: &str, step: Step<'_>, _deadline: Option<Mono>) -> Result<Stepped> {
        // What a finish read of this site is stale once another step ran.
        self.states_read.forget(site);
        // Every script ends its arguments with the policy a state that
        // cannot be read is rebuilt with.
        let heal = step.heal(&self.settings.lost);
        let (script, call, mut args) = match &step {
            Step::Admit {
                call,
                policy,
                lease,
            } => {
                let [calls, window] = budget_args(policy);
                let args = vec![
                    policy.interval_ms.to_string(),
                    policy.hold_ms.to_string(),
                    calls,
                    window,
                    lease.unwrap_or("").to_owned(),
                ];
                (&ADMIT, *call, args)
            }
            Step::Finish { call, interval_ms } => (&FINISH, *call, vec![interval_ms.to_string()]),
            Step::Cancel { call } => (&CANCEL, *call, Vec::new()),
            Step::Confirm {
                call,
                started,
                hold_ms,
            } => (
                &CONFIRM,
                *call,
                vec![started.to_string(), hold_ms.to_string()],
            ),
            Step::Extend { call, hold_ms } => (&EXTEND, *call, vec![hold_ms.to_string()]),
            Step::Backoff(_) => {
                let Step::Backoff(f) = step else {
                    unreachable!()
                };
                return self.backoff(site, f, &heal);
            }
        };
        args.extend([heal.interval_ms.to_string(), heal.hold_ms.to_string()]);
        let r = self.run_step(script, site, call, &args)?;
        if r.int(0) == CORRUPT {
            return Err(self.corrupt(site, &r.text(1), &heal));
        }
        let applied = match step {
            Step::Admit { .. } => return self.look(&r),
            Step::Finish { .. } => Applied::Finished(r.uint(1)),
            _ => Applied::Found(r.int(1) == 1),
        };
        Ok(Stepped {
            applied,
            left: Duration::ZERO,
        })
    }

    fn watch(&self, site: &str) -> Result<Box<dyn Watch>> {
        let key = self.inner.key("changed", site);
        // Watching starts now: a wake-up left from before is not for us.
        // Sent ahead of the next command (the look that comes next, on the
        // same connection, so in order), not in a round trip of its own.
        self.inner.defer(redis::cmd("DEL").arg(&key));
        Ok(Box::new(RedisWatch {
            inner: self.inner.clone(),
            key,
        }))
    }

    fn site_state(&self, site: &str) -> Result<Option<SiteState>> {
        // Read by the finish just made, for this look (once).
        if let Some(text) = self.states_read.take(site) {
            return self.parse_state(site, &text).map(Some);
        }
        let key = self.inner.key("site", site);
        let raw: Option<String> = self.inner.run(|c| {
            match redis::cmd("GET").arg(&key).query(c) {
                // Not a string at all: as unreadable as bad JSON.
                Err(e) if e.code() == Some("WRONGTYPE") => Ok(Some(String::new())),
                r => r,
            }
        })?;
        raw.map(|t| self.parse_state(site, &t)).transpose()
    }

    fn known_sites(&self) -> Result<Vec<String>> {
        let mut sites: Vec<String> = self.inner.run(|c| {
            redis::cmd("ZRANGE")
                .arg(format!("{PREFIX}sites"))
                .arg(0)
                .arg(-1)
                .query(c)
        })?;
        sites.sort();
        Ok(sites)
    }
}

/// [`RedisStore::along_args`]: the record's key, whether the server is
/// greeted along, and the arguments.
struct AlongArgs {
    record_key: String,
    greet: bool,
    args: [String; 7],
}

/// A policy's budget as a script's two arguments (`''` for none).
fn budget_args(policy: &Policy) -> [String; 2] {
    match policy.budget {
        Some(b) => [b.calls.to_string(), b.window_ms.to_string()],
        None => [String::new(), String::new()],
    }
}

/// `record`'s JSON around its `started_ms`, which the admission script
/// writes in.
fn record_around_start(record: &CallRecord) -> (String, String) {
    const MARK: &str = "\"started_ms\":18446744073709551615";
    let text = serde_json::to_string(&CallRecord {
        started_ms: u64::MAX,
        ..record.clone()
    })
    .expect("record serializes");
    let (head, tail) = text
        .split_once(MARK)
        .expect("a record's JSON names its started_ms once");
    (format!("{head}\"started_ms\":"), tail.to_owned())
}
