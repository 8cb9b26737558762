//! The per-site steps of a store: one atomic step of
//! [`crate::pacing::step`] on a site's state, a way to sleep until it
//! changes, and looks that change nothing. The store only locks, applies and
//! writes; every rule of a step is in `pacing`, and what an admission tells
//! its waiter ([`Attempt`]) is made here, once, from what the step answered.

use std::{collections::HashMap, time::Duration};

use super::RENEW_EVERY;
use crate::{
    error::Result,
    pacing::{
        clock::{Clock, EpochMs, Mono},
        decision::{Decision, Policy, SiteState},
        step::{Applied, Step},
    },
};

/// One look at a site, made atomically by the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt {
    /// The store's time of the look (the admission time, if admitted).
    pub at: EpochMs,
    /// What the look decided.
    pub decision: Decision,
    /// For [`Decision::WaitUntil`]: how long to wait before looking again,
    /// from the moment the store returned, by the store's clock: until the
    /// time decided, or less if the state may change without a write the
    /// watch would see (a lease lapsing).
    pub wait: Duration,
    /// No call is in flight on the site: only finishes and a backoff stand in
    /// the way, and nothing but a hand-cleared backoff can make the site due
    /// sooner. The waiter may then drop its watch and sleep the whole wait.
    pub settled: bool,
}

impl Attempt {
    /// The attempt an admission step made. A hold tied to a lease may lapse
    /// without any write: the waiter looks again within [`RENEW_EVERY`].
    /// Any other hold ends by a write the watch sees.
    pub(crate) fn of(stepped: &Stepped) -> Self {
        let look = stepped
            .applied
            .look()
            .expect("an admission step answers with a look");
        let wait = match look.decision {
            Decision::WaitUntil(_) if look.lease_bound => stepped.left.min(RENEW_EVERY),
            Decision::WaitUntil(_) => stepped.left,
            _ => Duration::ZERO,
        };
        Self {
            at: look.at,
            decision: look.decision,
            wait,
            settled: look.settled,
        }
    }
}

/// Each site's state as a store read it along with a step of this process
/// (a finish), kept for the next look at that site ([`Sites::site_state`]),
/// once: a Post finishes its sites, then looks at each for a backoff to
/// reset, and that look needs no read of its own. Any other step on the
/// site makes what is kept stale, so it is forgotten first. What another
/// process did in between is not seen, which can only leave a backoff set
/// that a fresh read would have reset.
pub(crate) struct ReadAlong<T>(std::sync::Mutex<HashMap<String, T>>);

impl<T> Default for ReadAlong<T> {
    fn default() -> Self {
        Self(std::sync::Mutex::new(HashMap::new()))
    }
}

impl<T> ReadAlong<T> {
    fn with<R>(&self, f: impl FnOnce(&mut HashMap<String, T>) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Keep `state` as `site`'s, in place of what was kept.
    pub(crate) fn keep(&self, site: &str, state: T) {
        self.with(|kept| kept.insert(site.to_owned(), state));
    }

    /// Forget what is kept of `site`.
    pub(crate) fn forget(&self, site: &str) {
        self.with(|kept| kept.remove(site));
    }

    /// Forget everything kept.
    #[cfg(feature = "redis")]
    pub(crate) fn clear(&self) {
        self.with(HashMap::clear);
    }

    /// What is kept of `site`, taken.
    pub(crate) fn take(&self, site: &str) -> Option<T> {
        self.with(|kept| kept.remove(site))
    }
}

/// What a store's step did: what [`crate::pacing::step::apply`] answered,
/// and, for an admission told to wait, how long is left until the time
/// decided from the moment the store returned, by the store's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stepped {
    /// The step's answer.
    pub applied: Applied,
    /// Until a [`Decision::WaitUntil`]'s time; zero otherwise.
    pub left: Duration,
}

impl Stepped {
    /// `applied`, with the time left measured by `clock`.
    pub fn by(clock: &dyn Clock, applied: Applied) -> Self {
        let left = match applied.look().map(|l| l.decision) {
            Some(Decision::WaitUntil(t)) => clock.until(t),
            _ => Duration::ZERO,
        };
        Self { applied, left }
    }
}

/// Sleeps until a site's state may have changed.
pub trait Watch {
    /// Return when the site's state changes or `timeout` has passed, whichever
    /// is first. Waking early is allowed; the caller looks again.
    fn wait(&mut self, timeout: Duration) -> Result<()>;
}

/// Each site's state, changed only by [`Step`]s.
pub trait Sites: Send + Sync {
    /// Apply `step` to `site`'s state as one atomic step
    /// ([`crate::pacing::step::apply`]: holds whose lease lapsed are dropped
    /// first). A state that cannot be read is set busy as of now
    /// ([`SiteState::lost`], with [`Step::heal`]'s policy); then an admission
    /// fails with [`crate::Error::CorruptState`] (unreadable never means
    /// free), and any other step goes on against the healed state. A step
    /// that does not make a site ([`Step::makes_site`]) finds nothing on a
    /// site without state. `deadline` bounds an admission's wait for a lock;
    /// `None` is bookkeeping, bounded by the store.
    fn step(&self, site: &str, step: Step<'_>, deadline: Option<Mono>) -> Result<Stepped>;

    /// One atomic look at `site` for `call` ([`Step::Admit`]).
    fn try_admit(
        &self,
        site: &str,
        call: &str,
        policy: &Policy,
        lease: Option<&str>,
        deadline: Mono,
    ) -> Result<Attempt> {
        let step = Step::Admit {
            call,
            policy,
            lease,
        };
        let stepped = self.step(site, step, Some(deadline))?;
        Ok(Attempt::of(&stepped))
    }

    /// Record that `call` finished now on `site` ([`SiteState::finish`]);
    /// returns the finish time written.
    fn finish(&self, site: &str, call: &str, interval_ms: u64) -> Result<EpochMs> {
        let step = Step::Finish { call, interval_ms };
        match self.step(site, step, None)?.applied {
            Applied::Finished(at) => Ok(at),
            other => unreachable!("a finish answered {other:?}"),
        }
    }

    /// Forget `call`'s hold on `site`: it sent nothing.
    fn cancel(&self, site: &str, call: &str) -> Result<bool> {
        Ok(self
            .step(site, Step::Cancel { call }, None)?
            .applied
            .found())
    }

    /// Turn `call`'s hold on `site` into an ordinary one from `started`
    /// ([`SiteState::confirm`]); `false` if it lapsed.
    fn confirm(&self, site: &str, call: &str, started: EpochMs, hold_ms: u64) -> Result<bool> {
        let step = Step::Confirm {
            call,
            started,
            hold_ms,
        };
        Ok(self.step(site, step, None)?.applied.found())
    }

    /// Keep `call` in flight on `site` for another `hold_ms` from now.
    fn extend(&self, site: &str, call: &str, hold_ms: u64) -> Result<bool> {
        let step = Step::Extend { call, hold_ms };
        Ok(self.step(site, step, None)?.applied.found())
    }

    /// Change `site`'s backoff as one step: `f` gets the state and the
    /// store's now. Returns what `f` returned.
    fn update_backoff(
        &self,
        site: &str,
        f: &mut dyn FnMut(&mut SiteState, EpochMs) -> Option<EpochMs>,
    ) -> Result<Option<EpochMs>> {
        match self.step(site, Step::Backoff(f), None)?.applied {
            Applied::Backoff(until) => Ok(until),
            other => unreachable!("a backoff answered {other:?}"),
        }
    }

    /// Start watching `site`'s state. Taken before reading the state, so a
    /// change between the read and the wait is not missed.
    fn watch(&self, site: &str) -> Result<Box<dyn Watch>>;

    /// `site`'s state as it stands, if it has one (for messages and status).
    /// A look: it never writes, heals or reclaims anything, and neither do
    /// [`Sites::known_sites`], [`Queue::queue_len`], [`Tabs::tabs`] and
    /// [`Log::read_log`], so `status` can read through them.
    fn site_state(&self, site: &str) -> Result<Option<SiteState>>;

    /// Every site that has state in the store.
    fn known_sites(&self) -> Result<Vec<String>>;
}
