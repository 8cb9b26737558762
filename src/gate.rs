//! The gate: admits a call to its sites in turn, and records its finish.
//!
//! This is the only place that waits. It asks the [`Store`] to apply the
//! pure steps of [`crate::decision`] atomically, and to keep the queue and the
//! wake-ups; time comes from the store's [`crate::clock::Clock`], so the whole
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

use std::time::Duration;

use crate::{
    clock::{EpochMs, Mono},
    decision::{Budget, Decision, Policy},
    error::{Error, Result},
    store::{CallRecord, Place, QueueTimeout, Store, Watch},
};

/// One site a call needs, and the policy its caller requires there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteRequest {
    /// The site key.
    pub site: String,
    /// The caller's interval and hold for it.
    pub policy: Policy,
    /// Up to this much random extra on the interval, drawn per call.
    pub jitter_ms: u64,
}

impl SiteRequest {
    /// A request for `site` with `policy` and no jitter.
    pub fn new(site: impl Into<String>, policy: Policy) -> Self {
        Self {
            site: site.into(),
            policy,
            jitter_ms: 0,
        }
    }

    /// This request with its jitter drawn: a random extra of up to
    /// `jitter_ms` on the interval, so that calls do not fall into a
    /// machine-regular cadence, nor machines into step.
    pub fn jittered(mut self) -> Self {
        if self.jitter_ms > 0 {
            self.policy.interval_ms = self
                .policy
                .interval_ms
                .saturating_add(random_u64() % (self.jitter_ms + 1));
            self.jitter_ms = 0;
        }
        self
    }
}

/// A random number from the kernel; the time's nanoseconds if that fails.
pub(crate) fn random_u64() -> u64 {
    let mut buf = [0u8; 8];
    // SAFETY: buf is valid for its length.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    if n == 8 {
        u64::from_ne_bytes(buf)
    } else {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .subsec_nanos() as u64
    }
}

/// A call that was admitted to all its sites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// When (epoch ms, rounded down) the last of its sites let it in.
    pub at_ms: EpochMs,
    /// How long it waited in all.
    pub waited_ms: u64,
    /// Each site with the queue ticket it waited under, if it had to queue.
    pub sites: Vec<(String, Option<u64>)>,
    /// The same call already held every site (a second pace-hook for it):
    /// nothing was marked.
    pub duplicate: bool,
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
pub struct Gate<'a> {
    store: &'a dyn Store,
}

/// How one site's wait ended.
enum One {
    Took {
        at: EpochMs,
        ticket: Option<u64>,
        duplicate: bool,
    },
    GaveUp(GaveUp),
    Spent(Spent),
}

impl<'a> Gate<'a> {
    /// A gate over `store`.
    pub fn new(store: &'a dyn Store) -> Self {
        Self { store }
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
        let clock = self.store.clock();
        let sites = merge(sites);
        let deadline = arrived.after(Duration::from_millis(max_wait_ms));
        'attempt: loop {
            let lease = if sites.len() > 1 {
                Some(self.store.lease()?)
            } else {
                None
            };
            let mut taken: Vec<(usize, Option<u64>, bool)> = Vec::with_capacity(sites.len());
            let mut at_ms = 0;
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
                match self.admit_one(call, &req.site, &policy, lease_id, deadline, arrived) {
                    Ok(One::Took {
                        at,
                        ticket,
                        duplicate,
                    }) => {
                        at_ms = at;
                        taken.push((i, ticket, duplicate));
                    }
                    Ok(One::GaveUp(g)) => {
                        self.give_back(call, &sites, &taken);
                        return Ok(Turn::GaveUp(g));
                    }
                    Ok(One::Spent(s)) => {
                        self.give_back(call, &sites, &taken);
                        return Ok(Turn::OverBudget(s));
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
                            return Ok(Turn::GaveUp(GaveUp {
                                site: req.site.clone(),
                                ahead: 0,
                                waited_ms: waited(clock.mono(), arrived),
                                more_ms: req.policy.interval_ms,
                            }));
                        }
                        continue 'attempt;
                    }
                    Err(e) => {
                        self.give_back(call, &sites, &taken);
                        return Err(e);
                    }
                }
            }
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
                    self.give_back(call, &sites, &taken);
                    return Err(e);
                }
            }
            return Ok(Turn::Admitted(Admitted {
                at_ms,
                waited_ms: waited(clock.mono(), arrived),
                sites: taken
                    .iter()
                    .map(|(i, t, _)| (sites[*i].site.clone(), *t))
                    .collect(),
                duplicate,
            }));
        }
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

    fn admit_one(
        &self,
        call: &str,
        site: &str,
        policy: &Policy,
        lease: Option<&str>,
        deadline: Mono,
        arrived: Mono,
    ) -> Result<One> {
        let clock = self.store.clock();
        let took = |at, ticket, d| {
            Ok(One::Took {
                at,
                ticket,
                duplicate: d == Decision::Duplicate,
            })
        };
        // Fast path: nobody queued and the site is due.
        if self.store.queue_is_empty(site)? {
            let a = self
                .store
                .try_admit(site, call, policy, lease, deadline)
                .map_err(|e| with_retry(e, policy))?;
            match a.decision {
                Decision::Go | Decision::Duplicate => return took(a.at, None, a.decision),
                Decision::OverBudget(free_at) => return Ok(spent(site, free_at, a.at)),
                // Due later: wait in the queue.
                Decision::WaitUntil(_) => {}
            }
        }
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
            let a = self
                .store
                .try_admit(site, call, policy, lease, deadline)
                .map_err(|e| with_retry(e, policy))?;
            let until = match a.decision {
                Decision::Go | Decision::Duplicate => {
                    let ticket = place.ticket();
                    drop(place);
                    return took(a.at, Some(ticket), a.decision);
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
                // instead of between admission and exit. Looked at again
                // under the lock at the end.
                drop(watch.take());
                clock.sleep(a.wait);
            } else {
                let w = match &mut watch {
                    Some(w) => w,
                    None => watch.insert(self.store.watch(site)?),
                };
                w.wait(a.wait.min(left))?;
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
    /// is still running.
    pub fn extend(&self, call: &str, sites: &[String], hold_ms: u64) -> Result<()> {
        for site in sites {
            self.store.extend(site, call, hold_ms)?;
        }
        Ok(())
    }

    /// Record that `call` finished now on every site it was admitted to, and
    /// on `revealed` sites its result showed it reached as well. Returns each
    /// site written with the finish time written there, so the log shows
    /// exactly what the gate counts from; nothing if the call was not
    /// admitted by this gate and revealed nothing.
    pub fn finish(&self, call: &str, agent: Option<&str>, revealed: &[String]) -> Result<Finished> {
        let record = self.store.take_call(call, agent)?;
        let (mut sites, interval) = match &record {
            Some(r) => (r.sites.clone(), r.interval_ms),
            None if revealed.is_empty() => return Ok(Finished::default()),
            None => (Vec::new(), 0),
        };
        for s in revealed {
            if !sites.contains(s) {
                sites.push(s.clone());
            }
        }
        let mut out = Vec::with_capacity(sites.len());
        for site in sites {
            let at = self.store.finish(&site, call, interval)?;
            out.push((site, at));
        }
        Ok(Finished(out))
    }
}

/// What a finish wrote: each site, and the finish time written there.
///
/// The sites are written one after another, each at its own "now", so their
/// times can differ by a millisecond (a Redis round trip crosses a
/// millisecond boundary about a time in four). One time for all of them,
/// the latest, would make `gaps` count a site's next admission from a later
/// finish than the gate did, and report a gap one millisecond short that
/// was not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Finished(pub Vec<(String, EpochMs)>);

impl Finished {
    /// Whether no site was written.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The sites grouped by the time written, earliest first: one log
    /// record each.
    pub fn by_time(&self) -> Vec<(EpochMs, Vec<String>)> {
        let mut groups: Vec<(EpochMs, Vec<String>)> = Vec::new();
        for (site, at) in &self.0 {
            match groups.iter_mut().find(|(t, _)| t == at) {
                Some((_, sites)) => sites.push(site.clone()),
                None => groups.push((*at, vec![site.clone()])),
            }
        }
        groups.sort_by_key(|(t, _)| *t);
        groups
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

fn with_retry(e: Error, policy: &Policy) -> Error {
    match e {
        Error::CorruptState { path, moved_to, .. } => Error::CorruptState {
            path,
            moved_to,
            retry_after_ms: policy.hold_ms.saturating_add(policy.interval_ms),
        },
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{
        clock::{Clock, FakeClock},
        store::MemoryStore,
    };

    /// A fake clock that moves a millisecond at every finish it stamps, as
    /// a round trip to a server can.
    #[derive(Debug)]
    struct Ticking(FakeClock);

    impl Clock for Ticking {
        fn now_floor(&self) -> EpochMs {
            self.0.now_floor()
        }
        fn now_ceil(&self) -> EpochMs {
            self.0.advance(1);
            self.0.now_ceil()
        }
        fn until(&self, at: EpochMs) -> Duration {
            self.0.until(at)
        }
        fn mono(&self) -> Mono {
            self.0.mono()
        }
        fn sleep(&self, d: Duration) {
            self.0.sleep(d)
        }
    }

    #[test]
    fn each_site_finished_keeps_its_own_time() {
        let policy = Policy {
            interval_ms: 100,
            hold_ms: 10_000,
            budget: None,
        };
        let store = MemoryStore::new(Arc::new(Ticking(FakeClock::new(1_000))), policy);
        let gate = Gate::new(&store);
        let arrived = store.clock().mono();
        let req = [SiteRequest::new("a.com", policy)];
        assert!(matches!(
            gate.admit("x", &req, arrived, 1_000, None).unwrap(),
            Turn::Admitted(_)
        ));
        let finished = gate.finish("x", None, &["b.com".to_owned()]).unwrap();
        assert_eq!(
            finished.0,
            [("a.com".to_owned(), 1_001), ("b.com".to_owned(), 1_002)]
        );
        assert_eq!(
            finished.by_time(),
            [
                (1_001, vec!["a.com".to_owned()]),
                (1_002, vec!["b.com".to_owned()])
            ]
        );
        let state = store.peek("a.com").unwrap();
        assert_eq!(state.last_finish_ms, Some(1_001), "what the log says");
    }
}
