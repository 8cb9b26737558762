//! The gate: admits a call to its sites in turn, and records its finish.
//!
//! This is the only place that waits. It asks the [`Store`] to apply the
//! pure steps of [`crate::pacing::decision`] atomically, and to keep the queue and the
//! wake-ups; time comes from the store's [`crate::pacing::clock::Clock`], so the whole
//! gate runs on a fake clock in tests. Sites are taken in sorted order so two
//! callers that need the same sites cannot hold one each and wait for the
//! other.
//!
//! A call that needs several sites holds each one it has taken while it
//! waits for the next, under a lease of its process: if the process dies or
//! stops, the lease lapses and those holds vanish (nothing was sent), so a
//! killed waiter costs the others seconds, not `max_wait + hold`. Once it has
//! every site, the holds become ordinary ones; if one lapsed meanwhile (the
//! process was stopped and continued), it gives back the rest and starts over.

use std::{cell::RefCell, time::Duration};

use crate::{
    error::Result,
    pacing::clock::{EpochMs, Mono},
    pacing::decision::{Budget, Decision, Policy},
    store::{
        Admission, AdmitCall, AdmitSites, Attempt, CallRecord, Place, QueueTimeout, SitesAdmission,
        Store, TabNote, Watch, with_retry,
    },
};

pub use crate::pacing::request::SiteRequest;
pub use turn::{Ask, IO_GRACE, io_deadline};

mod turn;

pub(crate) mod requests;

/// A call that was admitted to all its sites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// When (epoch ms, rounded down) the last of its sites let it in.
    pub at_ms: EpochMs,
    /// How long it waited in all.
    pub waited_ms: u64,
    /// Each site with the queue ticket it waited under, if it had to queue.
    pub sites: Vec<(String, Option<u64>)>,
    /// When each site (in `sites` order) let it in: the earlier sites of a
    /// call that needs several were taken before the last one, and held.
    pub taken_ms: Vec<EpochMs>,
    /// The interval required after each site (in `sites` order): the
    /// strictest its caller asked for there.
    pub intervals_ms: Vec<u64>,
    /// The same call already held every site (a second pace-hook for it):
    /// nothing was marked.
    pub duplicate: bool,
    /// When the last of its sites let it in, on the monotonic scale: the
    /// caller can tell whether it was held up since.
    pub at_mono: Mono,
}

/// A call that gave up waiting, so it must be blocked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GaveUp {
    /// The site it was waiting for.
    pub site: String,
    /// Callers still ahead of it in that site's queue.
    pub ahead: usize,
    /// How long it waited.
    pub waited_ms: u64,
    /// A lower bound on how much longer it would have had to wait.
    pub more_ms: u64,
}

/// The finish of a call, as recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Finished {
    /// The sites it was recorded on (none if the gate did not know the call).
    pub sites: Vec<String>,
    /// Each site's finish time, in `sites` order: the store stamps each one
    /// as it writes it.
    pub times: Vec<EpochMs>,
}

impl Finished {
    /// The last of the finish times.
    pub fn at(&self) -> EpochMs {
        self.times.iter().copied().max().unwrap_or(0)
    }
}

/// A call whose budget for a site is spent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spent {
    /// The site.
    pub site: String,
    /// When the budget allows another call.
    pub free_at: EpochMs,
    /// The store's time when it said so.
    pub now: EpochMs,
}

/// The outcome of asking for a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// Go ahead; record the finish afterwards.
    Admitted(Admitted),
    /// Not admitted within `max_wait`.
    GaveUp(GaveUp),
    /// A site's budget is spent: blocked at once, not waited on.
    OverBudget(Spent),
}

/// The gate over one store.
///
/// The queue place that a call admitted at its last site waited in is left
/// when the gate is dropped (or admits again), not at the admission: the
/// caller behind it can do nothing before this call finishes anyway, so it
/// can wait for this process's own bookkeeping (saving the call, the log),
/// and on a networked store leaving is then sent last, without waiting for
/// the answer, instead of costing a round trip between admission and exit.
pub struct Gate<'a> {
    store: &'a dyn Store,
    leaving: RefCell<Option<Box<dyn Place>>>,
}

/// What a call of several sites got from [`Gate::admit_at_once`].
enum AtOnce {
    Taken(Turn),
    NotNow,
    AgentBusy,
}

/// How one site's wait ended.
enum One {
    Took {
        at: EpochMs,
        ticket: Option<u64>,
        duplicate: bool,
        /// The call's record was saved with the admission.
        saved: bool,
    },
    /// The agent's open call is another one: nothing was done.
    AgentBusy,
    GaveUp(GaveUp),
    Spent(Spent),
}

/// What a turn asks to be done along with its admission, where the store
/// can do it in the same step.
#[derive(Debug, Clone, Copy, Default)]
struct Along<'n> {
    /// Stop, doing nothing, if the agent's open call is another one.
    check_agent: bool,
    /// The change the call makes to the tab map, which the caller applies
    /// once it is admitted ([`AdmitCall::note`]).
    note: Option<&'n TabNote>,
}

/// [`Along`] for one look at a site, with the call's record.
struct With<'r> {
    record: Option<&'r CallRecord>,
    agent: Option<&'r str>,
    check_agent: bool,
    note: Option<&'r TabNote>,
}

impl<'a> Gate<'a> {
    /// A gate over `store`.
    pub fn new(store: &'a dyn Store) -> Self {
        Self {
            store,
            leaving: RefCell::new(None),
        }
    }

    /// Wait for `call`'s turn at every one of `sites`, then mark it in flight
    /// on each and save which sites it marked (as `agent`'s open call, if the
    /// call has an agent). Gives up after `max_wait_ms`, counted from
    /// `arrived`.
    pub fn admit(
        &self,
        call: &str,
        sites: &[SiteRequest],
        arrived: Mono,
        max_wait_ms: u64,
        agent: Option<&str>,
    ) -> Result<Turn> {
        let turn = self.admit_as(call, sites, arrived, max_wait_ms, agent, Along::default())?;
        Ok(turn.expect("no agent check was asked for"))
    }

    /// [`Self::admit`], with what `along` asks done along with it. `None`:
    /// the agent's open call is another one, and nothing was done.
    fn admit_as(
        &self,
        call: &str,
        sites: &[SiteRequest],
        arrived: Mono,
        max_wait_ms: u64,
        agent: Option<&str>,
        along: Along<'_>,
    ) -> Result<Option<Turn>> {
        let clock = self.store.clock();
        // A place kept from an earlier admission would stand ahead of this
        // call in its own queue.
        drop(self.leaving.borrow_mut().take());
        let sites = merge(sites);
        let deadline = arrived.after(Duration::from_millis(max_wait_ms));
        let mut check_agent = along.check_agent;
        if sites.len() > 1 {
            match self.admit_at_once(call, &sites, arrived, deadline, agent, along)? {
                AtOnce::Taken(turn) => return Ok(Some(turn)),
                AtOnce::AgentBusy => return Ok(None),
                // The agent was checked along with it.
                AtOnce::NotNow => check_agent = false,
            }
        }
        // A call of one site saves its record along with its admission.
        let record = (sites.len() == 1).then(|| CallRecord {
            call: call.to_owned(),
            sites: vec![sites[0].site.clone()],
            started_ms: 0,
            interval_ms: sites[0].policy.interval_ms,
        });
        'attempt: loop {
            let lease = if sites.len() > 1 {
                Some(self.store.lease()?)
            } else {
                None
            };
            let mut taken: Vec<(usize, Option<u64>, bool)> = Vec::with_capacity(sites.len());
            let mut taken_ms: Vec<EpochMs> = Vec::with_capacity(sites.len());
            let mut at_ms = 0;
            let mut at_mono = clock.mono();
            let mut record_saved = false;
            for (i, req) in sites.iter().enumerate() {
                let last = i + 1 == sites.len();
                // A site taken while the call still waits for a later one
                // stays held, under the lease, until the call can go.
                let policy = if last {
                    req.policy
                } else {
                    Policy {
                        hold_ms: max_wait_ms.saturating_add(req.policy.hold_ms),
                        ..req.policy
                    }
                };
                let lease_id = lease.as_ref().filter(|_| !last).map(|l| l.id());
                let with = With {
                    record: record.as_ref(),
                    agent,
                    check_agent: std::mem::take(&mut check_agent),
                    note: along.note,
                };
                match self.admit_one(call, &req.site, &policy, lease_id, deadline, arrived, with) {
                    Ok(One::Took {
                        at,
                        ticket,
                        duplicate,
                        saved,
                    }) => {
                        at_ms = at;
                        at_mono = clock.mono();
                        taken.push((i, ticket, duplicate));
                        taken_ms.push(at);
                        record_saved = saved;
                    }
                    Ok(One::AgentBusy) => return Ok(None),
                    Ok(One::GaveUp(g)) => {
                        self.give_back(call, &sites, &taken);
                        return Ok(Some(Turn::GaveUp(g)));
                    }
                    Ok(One::Spent(s)) => {
                        self.give_back(call, &sites, &taken);
                        return Ok(Some(Turn::OverBudget(s)));
                    }
                    Err(e) => {
                        self.give_back(call, &sites, &taken);
                        return Err(e);
                    }
                }
            }
            // Every site taken: the earlier holds become ordinary ones,
            // counted from now. One that lapsed while the process was stopped
            // means starting over.
            for &(i, _, duplicate) in &taken[..taken.len().saturating_sub(1)] {
                if duplicate {
                    continue;
                }
                let req = &sites[i];
                match self
                    .store
                    .confirm(&req.site, call, at_ms, req.policy.hold_ms)
                {
                    Ok(true) => {}
                    Ok(false) => {
                        self.give_back(call, &sites, &taken);
                        if clock.left(deadline).is_zero() {
                            return Ok(Some(Turn::GaveUp(GaveUp {
                                site: req.site.clone(),
                                ahead: 0,
                                waited_ms: waited(clock.mono(), arrived),
                                more_ms: req.policy.interval_ms,
                            })));
                        }
                        continue 'attempt;
                    }
                    Err(e) => {
                        self.give_back(call, &sites, &taken);
                        return Err(e);
                    }
                }
            }
            if record_saved {
                return Ok(Some(
                    self.admitted_saved(&sites, &taken, taken_ms, at_mono, arrived),
                ));
            }
            return self
                .admitted(call, &sites, &taken, taken_ms, at_mono, arrived, agent)
                .map(Some);
        }
    }

    /// A call that needs several sites, when every one is due now and
    /// nobody queues for any: taken with ordinary holds, as a call of one
    /// site is, and no lease, with the call's record, as one step of the
    /// store ([`Store::admit_sites`]; one script on Redis). A lease (a file
    /// created and removed, or a key, and a heartbeat thread to renew it) is
    /// worth its cost only while a call waits with sites in hand; it was a
    /// third of what such a call cost on files. [`AtOnce::NotNow`] if any
    /// site is queued for or not due: nothing is held, and the call waits as
    /// usual.
    fn admit_at_once(
        &self,
        call: &str,
        sites: &[SiteRequest],
        arrived: Mono,
        deadline: Mono,
        agent: Option<&str>,
        along: Along<'_>,
    ) -> Result<AtOnce> {
        let record = CallRecord {
            call: call.to_owned(),
            sites: sites.iter().map(|r| r.site.clone()).collect(),
            started_ms: 0,
            interval_ms: sites
                .iter()
                .map(|r| r.policy.interval_ms)
                .max()
                .unwrap_or(0),
        };
        let ask = AdmitSites {
            sites,
            call,
            deadline,
            agent,
            check_agent: along.check_agent,
            record: &record,
            note: along.note,
        };
        Ok(match self.store.admit_sites(&ask)? {
            SitesAdmission::Taken(t) => {
                let taken: Vec<(usize, Option<u64>, bool)> = t
                    .iter()
                    .enumerate()
                    .map(|(i, &(_, duplicate))| (i, None, duplicate))
                    .collect();
                let taken_ms = t.iter().map(|&(at, _)| at).collect();
                let at_mono = self.store.clock().mono();
                AtOnce::Taken(self.admitted_saved(sites, &taken, taken_ms, at_mono, arrived))
            }
            SitesAdmission::NotNow => AtOnce::NotNow,
            SitesAdmission::AgentBusy => AtOnce::AgentBusy,
        })
    }

    /// Every site taken: save which sites the call marked (unless it is a
    /// duplicate, which marked none) and say so.
    #[allow(clippy::too_many_arguments)]
    fn admitted(
        &self,
        call: &str,
        sites: &[SiteRequest],
        taken: &[(usize, Option<u64>, bool)],
        taken_ms: Vec<EpochMs>,
        at_mono: Mono,
        arrived: Mono,
        agent: Option<&str>,
    ) -> Result<Turn> {
        let at_ms = taken_ms.last().copied().unwrap_or(0);
        let duplicate = taken.iter().all(|(_, _, d)| *d);
        if !duplicate {
            let record = CallRecord {
                call: call.to_owned(),
                sites: sites.iter().map(|r| r.site.clone()).collect(),
                started_ms: at_ms,
                interval_ms: sites
                    .iter()
                    .map(|r| r.policy.interval_ms)
                    .max()
                    .unwrap_or(0),
            };
            if let Err(e) = self.store.save_call(&record, agent) {
                // The Post could not find these holds: take them back
                // rather than leave the sites held for nothing.
                self.give_back(call, sites, taken);
                return Err(e);
            }
        }
        Ok(self.admitted_saved(sites, taken, taken_ms, at_mono, arrived))
    }

    /// Every site taken, and the record saved if it needed one: say so.
    fn admitted_saved(
        &self,
        sites: &[SiteRequest],
        taken: &[(usize, Option<u64>, bool)],
        taken_ms: Vec<EpochMs>,
        at_mono: Mono,
        arrived: Mono,
    ) -> Turn {
        Turn::Admitted(Admitted {
            at_ms: taken_ms.last().copied().unwrap_or(0),
            waited_ms: waited(self.store.clock().mono(), arrived),
            sites: taken
                .iter()
                .map(|(i, t, _)| (sites[*i].site.clone(), *t))
                .collect(),
            taken_ms,
            intervals_ms: taken
                .iter()
                .map(|(i, _, _)| sites[*i].policy.interval_ms)
                .collect(),
            duplicate: taken.iter().all(|(_, _, d)| *d),
            at_mono,
        })
    }

    /// Take back the holds this caller placed (not those of a duplicate):
    /// nothing was sent. Best effort: a hold that cannot be taken back runs
    /// its course, which errs towards waiting.
    fn give_back(&self, call: &str, sites: &[SiteRequest], taken: &[(usize, Option<u64>, bool)]) {
        for &(i, _, duplicate) in taken {
            if !duplicate {
                let _ = self.store.cancel(&sites[i].site, call);
            }
        }
    }

    /// One look at `site`: with the record's saving (and the rest `with`
    /// asks) as one step when the call has no lease; `None` if the store
    /// did nothing (others queue, with `if_unqueued`, or the agent's open
    /// call is another one).
    #[allow(clippy::too_many_arguments)]
    fn look(
        &self,
        call: &str,
        site: &str,
        policy: &Policy,
        lease: Option<&str>,
        deadline: Mono,
        with: &With<'_>,
        if_unqueued: bool,
    ) -> Result<std::result::Result<(Attempt, bool), Admission>> {
        let Some(record) = with.record.filter(|_| lease.is_none()) else {
            if if_unqueued && !self.store.queue_is_empty(site)? {
                return Ok(Err(Admission::Queued));
            }
            let a = self
                .store
                .try_admit(site, call, policy, lease, deadline)
                .map_err(|e| with_retry(e, policy))?;
            return Ok(Ok((a, false)));
        };
        let ask = AdmitCall {
            site,
            call,
            policy,
            deadline,
            if_unqueued,
            agent: with.agent,
            check_agent: with.check_agent,
            record,
            note: with.note,
        };
        match self
            .store
            .admit_call(&ask)
            .map_err(|e| with_retry(e, policy))?
        {
            Admission::Looked(a) => Ok(Ok((a, a.decision == Decision::Go))),
            other => Ok(Err(other)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn admit_one(
        &self,
        call: &str,
        site: &str,
        policy: &Policy,
        lease: Option<&str>,
        deadline: Mono,
        arrived: Mono,
        mut with: With<'_>,
    ) -> Result<One> {
        let clock = self.store.clock();
        let took = |at, ticket, d, saved| {
            Ok(One::Took {
                at,
                ticket,
                duplicate: d == Decision::Duplicate,
                saved,
            })
        };
        // Fast path: nobody queued and the site is due.
        match self.look(call, site, policy, lease, deadline, &with, true)? {
            Err(Admission::AgentBusy) => return Ok(One::AgentBusy),
            Err(_) => {}
            Ok((a, saved)) => match a.decision {
                Decision::Go | Decision::Duplicate => return took(a.at, None, a.decision, saved),
                Decision::OverBudget(free_at) => return Ok(spent(site, free_at, a.at)),
                // Due later: wait in the queue.
                Decision::WaitUntil(_) => {}
            },
        }
        // The agent check was made with the look (or there was none).
        with.check_agent = false;
        let mut place: Box<dyn Place> = match self.store.join_queue(site, deadline)? {
            Ok(p) => p,
            Err(QueueTimeout { ahead }) => {
                return Ok(One::GaveUp(self.gave_up(site, policy, ahead, arrived)?));
            }
        };
        let mut watch: Option<Box<dyn Watch>> = Some(self.store.watch(site)?);
        loop {
            if !place.still_held()? {
                // Reclaimed while this process was stopped: back of the queue.
                drop(place);
                place = match self.store.join_queue(site, deadline)? {
                    Ok(p) => p,
                    Err(QueueTimeout { ahead }) => {
                        return Ok(One::GaveUp(self.gave_up(site, policy, ahead, arrived)?));
                    }
                };
            }
            let (a, saved) = match self.look(call, site, policy, lease, deadline, &with, false)? {
                Ok(looked) => looked,
                Err(other) => unreachable!("a look at the head of the queue did {other:?}"),
            };
            // The store's wait runs from now: whatever comes before the
            // sleep (a watch's teardown) comes out of it, not on top of it.
            let due = clock.mono().after(a.wait);
            let until = match a.decision {
                Decision::Go | Decision::Duplicate => {
                    let ticket = place.ticket();
                    if lease.is_none() {
                        // The call's last site (only earlier ones are taken
                        // under the lease): leave when the gate is dropped.
                        *self.leaving.borrow_mut() = Some(place);
                    } else {
                        drop(place);
                    }
                    return took(a.at, Some(ticket), a.decision, saved);
                }
                Decision::OverBudget(free_at) => return Ok(spent(site, free_at, a.at)),
                Decision::WaitUntil(until) => until,
            };
            let left = clock.left(deadline);
            if left.is_zero() || (a.settled && a.wait > left) {
                // Out of time, or settled past the deadline: nothing but time
                // frees the site, so say so now rather than at the deadline.
                return Ok(One::GaveUp(GaveUp {
                    site: site.to_owned(),
                    ahead: 0,
                    waited_ms: waited(clock.mono(), arrived),
                    more_ms: until.saturating_sub(a.at),
                }));
            }
            if a.settled {
                // Only the time stands in the way: sleep it out without the
                // watch, whose teardown (an inotify close waits out an RCU
                // grace period, 6-16 ms measured) then falls inside the sleep
                // instead of between admission and exit. The sleep ends at
                // `due` all the same: sleeping the whole wait after the
                // teardown put the teardown on every contended gap (issue 9:
                // a median 6 ms over the interval in the log). Looked at
                // again under the lock at the end.
                drop(watch.take());
                clock.sleep(clock.left(due));
            } else {
                let w = match &mut watch {
                    Some(w) => w,
                    None => watch.insert(self.store.watch(site)?),
                };
                w.wait(clock.left(due).min(clock.left(deadline)))?;
            }
        }
    }

    fn gave_up(&self, site: &str, policy: &Policy, ahead: usize, arrived: Mono) -> Result<GaveUp> {
        let clock = self.store.clock();
        let more = self
            .store
            .site_state(site)
            .ok()
            .flatten()
            .and_then(|s| s.ready_at(policy))
            .map_or(0, |t| t.saturating_sub(clock.now_floor()));
        Ok(GaveUp {
            site: site.to_owned(),
            ahead,
            waited_ms: waited(clock.mono(), arrived),
            more_ms: more.saturating_add(ahead as u64 * policy.interval_ms),
        })
    }

    /// End `agent`'s previous call, if it is still open and is not `call`:
    /// Claude Code runs one agent's paced calls one at a time, so a new call
    /// means the previous one is over, Post or not (another hook blocked it,
    /// the user refused permission or cancelled). It is finished now, so the
    /// agent waits one interval instead of the whole hold; calls of other
    /// agents still count their holds in full. Returns the call ended, the
    /// sites written and the finish time.
    pub fn end_previous(&self, agent: &str, call: &str) -> Result<Option<(String, Finished)>> {
        let Some(previous) = self.store.open_call_of(agent)? else {
            return Ok(None);
        };
        if previous.call == call {
            return Ok(None);
        }
        let finished = self.finish(&previous.call, Some(agent), &[])?;
        Ok(Some((previous.call, finished)))
    }

    /// Take back `call`'s holds on `sites` after it was admitted but before
    /// it ran (a later step failed and the call is blocked), and close its
    /// record: it sent nothing.
    pub fn cancel(&self, call: &str, sites: &[String], agent: Option<&str>) -> Result<()> {
        let mut first = Ok(());
        for site in sites {
            if let Err(e) = self.store.cancel(site, call) {
                first = first.and(Err(e));
            }
        }
        let _ = self.store.take_call(call, agent);
        first
    }

    /// Keep `call` in flight on `sites` for another `hold_ms` from now: it
    /// is still running. Returns whether it still held every site (a hold
    /// that ran out is not brought back).
    pub fn extend(&self, call: &str, sites: &[String], hold_ms: u64) -> Result<bool> {
        let mut all = true;
        for site in sites {
            all &= self.store.extend(site, call, hold_ms)?;
        }
        Ok(all)
    }

    /// Record that `call` finished now on every site it was admitted to, and
    /// on `revealed` sites its result showed it reached as well. Returns the
    /// sites written and the finish time, so the log shows exactly what the
    /// gate counts from; no sites if the call was not admitted by this gate
    /// and revealed nothing.
    pub fn finish(&self, call: &str, agent: Option<&str>, revealed: &[String]) -> Result<Finished> {
        self.finish_then(call, agent, revealed, None)
    }

    /// [`Self::finish`], for a caller that changes the tab map right after
    /// as `note` says: a store that can applies it along with the finish
    /// ([`Store::finish_call`]).
    pub fn finish_then(
        &self,
        call: &str,
        agent: Option<&str>,
        revealed: &[String],
        note: Option<&TabNote>,
    ) -> Result<Finished> {
        let (sites, times) = self
            .store
            .finish_call(call, agent, revealed, note)?
            .into_iter()
            .unzip();
        Ok(Finished { sites, times })
    }
}

/// Sites sorted and merged: the same site twice keeps the strictest policy.
fn merge(sites: &[SiteRequest]) -> Vec<SiteRequest> {
    let mut out: Vec<SiteRequest> = sites.to_vec();
    out.sort_by(|a, b| a.site.cmp(&b.site));
    out.dedup_by(|b, a| {
        if a.site == b.site {
            a.policy.interval_ms = a.policy.interval_ms.max(b.policy.interval_ms);
            a.policy.hold_ms = a.policy.hold_ms.max(b.policy.hold_ms);
            a.jitter_ms = a.jitter_ms.max(b.jitter_ms);
            a.policy.budget = strictest(a.policy.budget, b.policy.budget);
            true
        } else {
            false
        }
    });
    out
}

/// The budget that allows fewer calls per unit of time.
pub(crate) fn strictest(a: Option<Budget>, b: Option<Budget>) -> Option<Budget> {
    match (a, b) {
        (Some(x), Some(y)) => {
            let rate = |b: &Budget| b.calls as f64 / b.window_ms.max(1) as f64;
            Some(if rate(&y) < rate(&x) { y } else { x })
        }
        (x, y) => x.or(y),
    }
}

fn spent(site: &str, free_at: EpochMs, now: EpochMs) -> One {
    One::Spent(Spent {
        site: site.to_owned(),
        free_at,
        now,
    })
}

fn waited(now: Mono, arrived: Mono) -> u64 {
    now.since(arrived).as_millis() as u64
}

/// Timelines on a fake clock and the in-memory store: every wait is a step
/// of the clock, so these run in microseconds and the same way every time.
#[cfg(all(test, feature = "redis"))]
mod redis_tests;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{
        error::Error,
        pacing::clock::{Clock, FakeClock},
        pacing::decision::Budget,
        store::{LEASE_TTL, MemoryStore, Queue, Sites, Store},
    };

    const T0: EpochMs = 1_800_000_000_000;
    const POLICY: Policy = Policy {
        interval_ms: 10_000,
        hold_ms: 120_000,
        budget: None,
    };
    const MAX_WAIT: u64 = 270_000;

    fn setup() -> (Arc<FakeClock>, MemoryStore) {
        let clock = Arc::new(FakeClock::new(T0));
        let store = MemoryStore::new(clock.clone(), POLICY);
        (clock, store)
    }

    fn req(site: &str) -> SiteRequest {
        SiteRequest::new(site, POLICY)
    }

    fn admit(store: &MemoryStore, call: &str, sites: &[SiteRequest]) -> Turn {
        let arrived = store.clock().mono();
        Gate::new(store)
            .admit(call, sites, arrived, MAX_WAIT, Some(call))
            .unwrap()
    }

    fn admitted(t: Turn) -> Admitted {
        match t {
            Turn::Admitted(a) => a,
            other => panic!("not admitted: {other:?}"),
        }
    }

    fn finish(store: &MemoryStore, call: &str) -> EpochMs {
        Gate::new(store).finish(call, Some(call), &[]).unwrap().at()
    }

    #[test]
    fn each_site_gets_its_strictest_interval_in_the_admission() {
        let (_clock, store) = setup();
        let request = |site: &str, interval_ms| {
            SiteRequest::new(
                site,
                Policy {
                    interval_ms,
                    ..POLICY
                },
            )
        };
        // Out of order, one site twice with two intervals; taken at once.
        let requests = [
            request("b.test", 3_000),
            request("a.test", 10_000),
            request("b.test", 7_000),
            request("c.test", 0),
        ];
        let a = admitted(admit(&store, "a", &requests));
        let sites: Vec<&str> = a.sites.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(sites, ["a.test", "b.test", "c.test"]);
        assert_eq!(a.intervals_ms, [10_000, 7_000, 0]);
        // One at a time (a site busy, so not all at once): the same.
        finish(&store, "a");
        let b = admitted(admit(&store, "b", &requests));
        assert!(b.waited_ms > 0, "{b:?}");
        assert_eq!(b.intervals_ms, [10_000, 7_000, 0]);
        let c = admitted(admit(&store, "c", &[request("d.test", 4_000)]));
        assert_eq!(c.intervals_ms, [4_000]);
    }

    #[test]
    fn the_next_call_starts_one_interval_after_the_finish() {
        let (clock, store) = setup();
        assert_eq!(admitted(admit(&store, "a", &[req("x.com")])).at_ms, T0);
        clock.advance(700);
        let end = finish(&store, "a");
        let b = admitted(admit(&store, "b", &[req("x.com")]));
        assert_eq!(b.at_ms, end + 10_000);
        assert_eq!(b.waited_ms, 10_000);
    }

    #[test]
    fn a_watch_slow_to_close_does_not_delay_the_admission() {
        // Issue 9: closing an inotify watch waits out an RCU grace period
        // (6-16 ms measured). The settled sleep must end at the due time,
        // the teardown inside it, not after it.
        let (clock, store) = setup();
        store.slow_watch_teardown(Duration::from_millis(16));
        admitted(admit(&store, "a", &[req("x.com")]));
        clock.advance(700);
        let end = finish(&store, "a");
        let b = admitted(admit(&store, "b", &[req("x.com")]));
        assert_eq!(b.at_ms, end + 10_000);
    }

    #[test]
    fn a_call_with_no_post_holds_its_site_for_hold_plus_interval() {
        let (_, store) = setup();
        admitted(admit(&store, "a", &[req("x.com")]));
        let b = admitted(admit(&store, "b", &[req("x.com")]));
        assert_eq!(b.at_ms, T0 + 130_000);
    }

    #[test]
    fn a_multi_site_call_that_gives_up_takes_back_the_sites_it_held() {
        let (_, store) = setup();
        // b.com in flight for the whole hold; the call needs a.com and b.com.
        admitted(admit(&store, "busy", &[req("b.com")]));
        let arrived = store.clock().mono();
        let t = Gate::new(&store)
            .admit("both", &[req("a.com"), req("b.com")], arrived, 5_000, None)
            .unwrap();
        let Turn::GaveUp(g) = t else { panic!("{t:?}") };
        assert_eq!(g.site, "b.com");
        assert!(store.peek("a.com").unwrap().in_flight.is_empty());
    }

    #[test]
    fn a_multi_site_call_whose_sites_are_all_free_takes_them_without_a_lease() {
        let (_, store) = setup();
        let a = admitted(admit(&store, "both", &[req("a.com"), req("b.com")]));
        assert_eq!((a.at_ms, a.waited_ms), (T0, 0));
        assert_eq!(store.leases_taken(), 0);
        for site in ["a.com", "b.com"] {
            let held = store.peek(site).unwrap().in_flight[0].clone();
            assert_eq!(
                (held.started_ms, held.until_ms, held.lease),
                (T0, T0 + 120_000, None)
            );
        }
    }

    #[test]
    fn a_site_taken_while_waiting_is_held_then_cut_back_to_one_hold() {
        let (clock, store) = setup();
        admitted(admit(&store, "busy", &[req("b.com")]));
        clock.advance(3_000);
        finish(&store, "busy");
        let a = admitted(admit(&store, "both", &[req("a.com"), req("b.com")]));
        assert_eq!(a.at_ms, T0 + 3_000 + 10_000);
        // b.com was not due: a.com went back, and was taken again under a
        // lease while the call waited.
        assert_eq!(store.leases_taken(), 1);
        // a.com was taken at once, under a long hold; now it is an ordinary
        // hold from the admission.
        let held = store.peek("a.com").unwrap().in_flight[0].clone();
        assert_eq!(
            (held.started_ms, held.until_ms),
            (a.at_ms, a.at_ms + 120_000)
        );
        assert_eq!(held.lease, None);
    }

    #[test]
    fn a_killed_multi_site_waiter_frees_the_sites_it_held_at_once() {
        let (_, store) = setup();
        let waiter = store.process();
        let lease = waiter.lease().unwrap();
        let long = Policy {
            hold_ms: MAX_WAIT + 120_000,
            ..POLICY
        };
        let deadline = store.clock().mono();
        waiter
            .try_admit("a.com", "w", &long, Some(lease.id()), deadline)
            .unwrap();
        waiter.kill();
        // It never sent anything: the next caller goes at once.
        assert_eq!(admitted(admit(&store, "next", &[req("a.com")])).at_ms, T0);
    }

    #[test]
    fn a_stopped_multi_site_waiter_loses_its_holds_within_the_lease_ttl() {
        let (_, store) = setup();
        let waiter = store.process();
        let lease = waiter.lease().unwrap();
        let long = Policy {
            hold_ms: MAX_WAIT + 120_000,
            ..POLICY
        };
        waiter
            .try_admit("a.com", "w", &long, Some(lease.id()), store.clock().mono())
            .unwrap();
        waiter.stop();
        let next = admitted(admit(&store, "next", &[req("a.com")]));
        assert!(
            next.waited_ms <= LEASE_TTL.as_millis() as u64 + 1_000,
            "waited {} ms",
            next.waited_ms
        );
    }

    #[test]
    fn a_stopped_head_of_the_queue_loses_its_place_within_seconds() {
        let (_, store) = setup();
        let stopped = store.process();
        let place = stopped
            .join_queue("x.com", store.clock().mono())
            .unwrap()
            .unwrap();
        stopped.stop();
        let next = admitted(admit(&store, "next", &[req("x.com")]));
        assert!(next.waited_ms <= LEASE_TTL.as_millis() as u64 + 1_000);
        // Continued, it finds its place gone and must queue again.
        stopped.resume();
        assert!(!place.still_held().unwrap());
    }

    #[test]
    fn a_dead_head_of_the_queue_is_passed_at_once() {
        let (_, store) = setup();
        let dead = store.process();
        let place = dead
            .join_queue("x.com", store.clock().mono())
            .unwrap()
            .unwrap();
        dead.kill();
        std::mem::forget(place);
        let next = admitted(admit(&store, "next", &[req("x.com")]));
        assert_eq!(next.waited_ms, 0);
    }

    #[test]
    fn a_clock_stepped_back_an_hour_costs_one_interval_not_an_hour() {
        let (clock, store) = setup();
        admitted(admit(&store, "a", &[req("x.com")]));
        finish(&store, "a");
        clock.step_wall(-3_600_000);
        let b = admitted(admit(&store, "b", &[req("x.com")]));
        assert_eq!(b.waited_ms, 10_000);
        // And the correction was written back: a third caller counts from b.
        finish(&store, "b");
        let c = admitted(admit(&store, "c", &[req("x.com")]));
        assert_eq!(c.waited_ms, 10_000);
    }

    #[test]
    fn a_clock_stepped_back_during_a_hold_costs_at_most_hold_plus_interval() {
        let (clock, store) = setup();
        admitted(admit(&store, "a", &[req("x.com")]));
        clock.step_wall(-3_600_000);
        let b = admitted(admit(&store, "b", &[req("x.com")]));
        assert!(b.waited_ms <= 130_000, "waited {}", b.waited_ms);
    }

    #[test]
    fn the_same_agents_next_call_ends_its_previous_one() {
        let (clock, store) = setup();
        let gate = Gate::new(&store);
        let arrived = clock.mono();
        admitted(
            gate.admit("s#1", &[req("x.com")], arrived, MAX_WAIT, Some("s"))
                .unwrap(),
        );
        clock.advance(1_000);
        // No Post came for s#1 (another hook blocked it).
        let (ended, f) = gate.end_previous("s", "s#2").unwrap().unwrap();
        assert_eq!(
            (ended.as_str(), f.sites, f.times),
            ("s#1", vec!["x.com".to_owned()], vec![T0 + 1_000])
        );
        let b = admitted(
            gate.admit("s#2", &[req("x.com")], clock.mono(), MAX_WAIT, Some("s"))
                .unwrap(),
        );
        assert_eq!(b.at_ms, T0 + 11_000);
        // Another agent's open call is not ended by this one.
        assert!(gate.end_previous("t", "t#1").unwrap().is_none());
    }

    #[test]
    fn the_same_call_twice_is_a_duplicate_and_marks_nothing() {
        let (_, store) = setup();
        admitted(admit(&store, "a", &[req("x.com")]));
        let before = store.peek("x.com");
        let dup = admitted(admit(&store, "a", &[req("x.com")]));
        assert!(dup.duplicate);
        assert_eq!(store.peek("x.com"), before);
    }

    #[test]
    fn an_error_after_admission_takes_the_holds_back() {
        let (_, store) = setup();
        store.fail_next("save_call");
        let arrived = store.clock().mono();
        assert!(
            Gate::new(&store)
                .admit(
                    "a",
                    &[req("a.com"), req("b.com")],
                    arrived,
                    MAX_WAIT,
                    Some("a")
                )
                .is_err()
        );
        assert!(store.peek("a.com").unwrap().in_flight.is_empty());
        assert!(store.peek("b.com").unwrap().in_flight.is_empty());
    }

    #[test]
    fn a_lost_state_is_busy_for_a_hold_and_an_interval() {
        let (_, store) = setup();
        store.corrupt("x.com");
        let arrived = store.clock().mono();
        assert!(matches!(
            Gate::new(&store).admit("a", &[req("x.com")], arrived, MAX_WAIT, None),
            Err(Error::CorruptState { .. })
        ));
        let b = admitted(admit(&store, "b", &[req("x.com")]));
        assert_eq!(b.waited_ms, 130_000);
    }

    #[test]
    fn a_spent_budget_blocks_at_once_and_says_until_when() {
        let (clock, store) = setup();
        let budget = SiteRequest::new(
            "x.com",
            Policy {
                interval_ms: 1_000,
                budget: Some(Budget {
                    calls: 2,
                    window_ms: 60_000,
                }),
                ..POLICY
            },
        );
        for call in ["a", "b"] {
            admitted(admit(&store, call, std::slice::from_ref(&budget)));
            finish(&store, call);
        }
        let before = clock.mono();
        let t = admit(&store, "c", std::slice::from_ref(&budget));
        assert_eq!(
            t,
            Turn::OverBudget(Spent {
                site: "x.com".into(),
                free_at: T0 + 60_000,
                now: T0 + 1_000,
            })
        );
        assert_eq!(clock.mono(), before, "a spent budget is not waited on");
    }

    #[test]
    fn configs_that_disagree_meet_and_the_stricter_interval_holds() {
        let (_, store) = setup();
        let slow = SiteRequest::new(
            "x.com",
            Policy {
                interval_ms: 10_000,
                ..POLICY
            },
        );
        let fast = SiteRequest::new(
            "x.com",
            Policy {
                interval_ms: 1_000,
                ..POLICY
            },
        );
        admitted(admit(&store, "a", std::slice::from_ref(&slow)));
        let end = finish(&store, "a");
        assert_eq!(admitted(admit(&store, "b", &[fast])).at_ms, end + 10_000);
    }

    #[test]
    fn waiting_past_max_wait_gives_up_and_says_how_long_is_left() {
        let (_, store) = setup();
        admitted(admit(&store, "a", &[req("x.com")]));
        let arrived = store.clock().mono();
        let t = Gate::new(&store)
            .admit("b", &[req("x.com")], arrived, 60_000, None)
            .unwrap();
        let Turn::GaveUp(g) = t else { panic!("{t:?}") };
        assert_eq!(g.waited_ms, 60_000);
        assert_eq!(g.more_ms, 70_000);
    }

    #[test]
    fn a_wait_that_cannot_end_in_time_gives_up_without_waiting() {
        let (clock, store) = setup();
        admitted(admit(&store, "a", &[req("x.com")]));
        finish(&store, "a");
        let before = clock.mono();
        let arrived = clock.mono();
        let t = Gate::new(&store)
            .admit("b", &[req("x.com")], arrived, 5_000, None)
            .unwrap();
        assert!(matches!(t, Turn::GaveUp(_)), "{t:?}");
        assert_eq!(clock.mono(), before);
    }
}
