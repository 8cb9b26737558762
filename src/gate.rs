//! The gate: admits a call to its sites in turn, and records its finish.
//!
//! This is the only place that waits. It asks the pure [`decide`] what to do
//! and the [`Store`] to keep the queue, the state and the wake-ups; it owns no
//! I/O of its own. Sites are taken in sorted order so two callers that need
//! the same sites cannot hold one each and wait for the other.

use std::time::{Duration, Instant};

use crate::{
    clock::{Clock, EpochMs},
    config::Config,
    decision::{Decision, Policy, decide},
    error::{Error, Result},
    store::{CallRecord, QueueTimeout, Store, Watch},
};

/// A call that was admitted to all its sites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// When (epoch ms, rounded down) the last of its sites let it in.
    pub at_ms: EpochMs,
    /// How long it waited in all.
    pub waited_ms: u64,
    /// Each site with the queue ticket it waited under, if it had to queue.
    pub sites: Vec<(String, Option<u64>)>,
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

/// The outcome of asking for a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// Go ahead; record the finish afterwards.
    Admitted(Admitted),
    /// Not admitted within `max_wait`.
    GaveUp(GaveUp),
}

/// The gate over one store.
pub struct Gate<'a, S, C> {
    store: &'a S,
    clock: &'a C,
    config: &'a Config,
}

impl<'a, S: Store, C: Clock> Gate<'a, S, C> {
    /// A gate over `store`, reading time from `clock`.
    pub fn new(store: &'a S, clock: &'a C, config: &'a Config) -> Self {
        Self {
            store,
            clock,
            config,
        }
    }

    /// Wait for `call`'s turn at every one of `sites`, then mark it in flight
    /// on each and save which sites it marked (as `agent`'s open call, if the
    /// call has an agent). Gives up after `max_wait`, counted from `arrived`.
    pub fn admit(
        &self,
        call: &str,
        sites: &[String],
        arrived: Instant,
        agent: Option<&str>,
    ) -> Result<Turn> {
        let mut sites = sites.to_vec();
        sites.sort();
        sites.dedup();
        let deadline = arrived + Duration::from_millis(self.config.max_wait_ms);
        let mut done: Vec<(String, Option<u64>)> = Vec::with_capacity(sites.len());
        let mut at_ms = self.clock.now_floor();
        // A site taken while the call still waits for a later one must stay
        // held until the call can go: hold it for the rest of max_wait too,
        // then cut the hold back to the usual one once every site is taken.
        let wait_hold = self.config.max_wait_ms.saturating_add(self.config.hold_ms);
        for (i, site) in sites.iter().enumerate() {
            let last = i + 1 == sites.len();
            let hold_ms = if last { None } else { Some(wait_hold) };
            match self.admit_one(call, site, deadline, hold_ms) {
                Ok(Ok((t, ticket))) => {
                    at_ms = t;
                    done.push((site.clone(), ticket));
                }
                other => {
                    // Nothing was sent: take back the holds already placed.
                    for (s, _) in &done {
                        let _ = self
                            .store
                            .update_site(s, self.clock.now_ceil(), far(), |st| st.cancel(call));
                    }
                    return match other {
                        Ok(Err(gave_up)) => Ok(Turn::GaveUp(gave_up)),
                        Err(e) => Err(e),
                        Ok(Ok(_)) => unreachable!(),
                    };
                }
            }
        }
        for (site, _) in &done[..done.len().saturating_sub(1)] {
            let hold = self.config.policy_for(site).hold_ms;
            self.store
                .update_site(site, self.clock.now_ceil(), far(), |s| {
                    s.set_hold(call, at_ms, at_ms.saturating_add(hold))
                })?;
        }
        self.store.save_call(
            &CallRecord {
                call: call.to_owned(),
                sites: sites.clone(),
                started_ms: at_ms,
            },
            agent,
        )?;
        Ok(Turn::Admitted(Admitted {
            at_ms,
            waited_ms: arrived.elapsed().as_millis() as u64,
            sites: done,
        }))
    }

    fn admit_one(
        &self,
        call: &str,
        site: &str,
        deadline: Instant,
        hold_ms: Option<u64>,
    ) -> Result<Result<(EpochMs, Option<u64>), GaveUp>> {
        let policy = self.config.policy_for(site);
        let held = Policy {
            hold_ms: hold_ms.unwrap_or(policy.hold_ms),
            ..policy
        };
        let started = Instant::now();
        let try_now = |clock: &C| {
            let now = clock.now_floor();
            self.store
                .update_site(site, self.clock.now_ceil(), deadline, |state| {
                    if state.holds(call) {
                        return Decision::Go;
                    }
                    match decide(now, state, &policy) {
                        Decision::Go => {
                            state.admit(call, now, &held);
                            Decision::Go
                        }
                        wait => wait,
                    }
                })
                .map(|d| (now, d))
                .map_err(|e| with_retry(e, policy.interval_ms))
        };
        // Fast path: nobody queued and the site is due.
        if self.store.queue_is_empty(site)?
            && let (now, Decision::Go) = try_now(self.clock)?
        {
            return Ok(Ok((now, None)));
        }
        let (place, ticket) = match self.store.join_queue(site, deadline)? {
            Ok(p) => p,
            Err(QueueTimeout { ahead }) => {
                let busy = self
                    .store
                    .update_site(site, self.clock.now_ceil(), far(), |s| s.busy_until())?;
                let now = self.clock.now_floor();
                let due = busy.map_or(0, |b| {
                    b.saturating_add(policy.interval_ms).saturating_sub(now)
                });
                return Ok(Err(GaveUp {
                    site: site.to_owned(),
                    ahead,
                    waited_ms: started.elapsed().as_millis() as u64,
                    more_ms: due + ahead as u64 * policy.interval_ms,
                }));
            }
        };
        let mut watch = self.store.watch(site)?;
        loop {
            match try_now(self.clock)? {
                (now, Decision::Go) => {
                    drop(place);
                    return Ok(Ok((now, Some(ticket))));
                }
                (now, Decision::WaitUntil(until)) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(Err(GaveUp {
                            site: site.to_owned(),
                            ahead: 0,
                            waited_ms: started.elapsed().as_millis() as u64,
                            more_ms: until.saturating_sub(now),
                        }));
                    }
                    // Measured afresh: the lock and the read took time since `now`.
                    watch.wait(self.clock.until(until).min(left))?;
                }
            }
        }
    }

    /// Keep `call` in flight on `sites` for another hold from now: it is still
    /// running.
    pub fn extend(&self, call: &str, sites: &[String]) -> Result<()> {
        for site in sites {
            let policy = self.config.policy_for(site);
            let now = self.clock.now_ceil();
            self.store
                .update_site(site, now, far(), |s| s.extend(call, now, &policy))?;
        }
        Ok(())
    }

    /// Record that `call` finished now on every site it was admitted to.
    /// Returns those sites (none if the call was not admitted by this gate)
    /// and the finish time written, so the log shows exactly what the gate
    /// counts from.
    pub fn finish(&self, call: &str, agent: Option<&str>) -> Result<(Vec<String>, EpochMs)> {
        let now = self.clock.now_ceil();
        let Some(record) = self.store.take_call(call, agent)? else {
            return Ok((Vec::new(), now));
        };
        for site in &record.sites {
            self.store
                .update_site(site, now, far(), |s| s.finish(call, now))?;
        }
        Ok((record.sites, now))
    }
}

/// A deadline for bookkeeping that must not wait long for a lock.
fn far() -> Instant {
    Instant::now() + Duration::from_secs(10)
}

fn with_retry(e: Error, interval_ms: u64) -> Error {
    match e {
        Error::CorruptState { path, moved_to, .. } => Error::CorruptState {
            path,
            moved_to,
            retry_after_ms: interval_ms,
        },
        e => e,
    }
}
