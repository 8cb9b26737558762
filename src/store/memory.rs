//! The gate's state in memory, for tests: the same steps as the other stores
//! on the same [`SiteState`], driven by any [`Clock`], with the failures of a
//! real store on call: a process that dies or stops while it waits, a state
//! that cannot be read, a write that fails.
//!
//! With a [`crate::pacing::clock::FakeClock`] every wait is a step of the fake clock,
//! so a timeline that would take minutes of real waiting (a hold, a stopped
//! waiter's lease running out, a clock stepped back) runs in microseconds and
//! the same way every time.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{Arc, Mutex, MutexGuard},
    time::Duration,
};

use super::{
    Attempt, CallRecord, LEASE_TTL, Lease, Place, QueueTimeout, RENEW_EVERY, Store, TabMap, Watch,
};
use crate::{
    error::{Error, Result},
    pacing::clock::{Clock, EpochMs, Mono},
    pacing::decision::{Decision, Policy, SiteState},
    pacing::log::{Kind, Record},
};

/// How a process that holds places and leases is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Life {
    /// Running: its places are renewed.
    Running,
    /// Stopped at this monotonic time: renewals stopped then.
    Stopped(Mono),
    /// Gone.
    Dead,
}

#[derive(Default)]
struct Inner {
    sites: BTreeMap<String, SiteState>,
    /// Sites whose state reads as unreadable until healed.
    unreadable: BTreeSet<String>,
    queues: BTreeMap<String, Vec<(u64, u64)>>,
    next_seq: u64,
    /// Owner id → its life. Places and leases belong to an owner.
    owners: BTreeMap<u64, Life>,
    next_owner: u64,
    tabs: TabMap,
    slots: BTreeMap<String, (CallRecord, bool)>,
    calls: BTreeMap<String, CallRecord>,
    log: Vec<Record>,
    /// Operations that fail the next time they are called.
    failing: BTreeSet<&'static str>,
    /// How long dropping a watch takes (the clock moves by this much), as
    /// closing an inotify watch does.
    watch_teardown: Duration,
    /// How many leases were taken.
    leases: u64,
    /// After the next line of this kind is logged, the process is held up
    /// this long (the clock sleeps).
    stall_after: Option<(Kind, Duration)>,
}

/// The gate's state in this process's memory.
#[derive(Clone)]
pub struct MemoryStore {
    inner: Arc<Mutex<Inner>>,
    clock: Arc<dyn Clock>,
    lost: Policy,
    owner: u64,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("owner", &self.owner)
            .finish()
    }
}

impl MemoryStore {
    /// An empty store on `clock`; a lost state is rebuilt with `lost`.
    pub fn new(clock: Arc<dyn Clock>, lost: Policy) -> Self {
        let s = Self {
            inner: Arc::default(),
            clock,
            lost,
            owner: 0,
        };
        s.inner().owners.insert(0, Life::Running);
        s
    }

    /// Another "process" on the same store: its own places and leases,
    /// which [`MemoryStore::kill`] and [`MemoryStore::stop`] act on.
    pub fn process(&self) -> MemoryStore {
        let mut inner = self.inner();
        inner.next_owner += 1;
        let owner = inner.next_owner;
        inner.owners.insert(owner, Life::Running);
        drop(inner);
        Self {
            owner,
            ..self.clone()
        }
    }

    /// This process dies: its places and leases are freed at once.
    pub fn kill(&self) {
        self.inner().owners.insert(self.owner, Life::Dead);
    }

    /// This process is stopped (SIGSTOP): it stops renewing its places and
    /// leases, which others reclaim after [`LEASE_TTL`].
    pub fn stop(&self) {
        let now = self.clock.mono();
        self.inner().owners.insert(self.owner, Life::Stopped(now));
    }

    /// This process continues after a stop.
    pub fn resume(&self) {
        self.inner().owners.insert(self.owner, Life::Running);
    }

    /// `site`'s state reads as unreadable until the next look heals it.
    pub fn corrupt(&self, site: &str) {
        self.inner().unreadable.insert(site.to_owned());
    }

    /// The next call of operation `op` (`save_call`, `update_tabs`,
    /// `finish`, `try_admit`, `cancel`) fails.
    pub fn fail_next(&self, op: &'static str) {
        self.inner().failing.insert(op);
    }

    /// Dropping a watch takes `d` from now on (the clock moves by that much),
    /// as closing an inotify watch waits out an RCU grace period.
    pub fn slow_watch_teardown(&self, d: Duration) {
        self.inner().watch_teardown = d;
    }

    /// The process is held up for `d` (stopped, or starved of CPU) right
    /// after it logs its next line of kind `kind`: the moment between an
    /// admission and the call's going that the gate's last look is for.
    pub fn stall_after_next(&self, kind: Kind, d: Duration) {
        self.inner().stall_after = Some((kind, d));
    }

    /// How many leases callers have taken so far.
    pub fn leases_taken(&self) -> u64 {
        self.inner().leases
    }

    /// The state of `site` as stored, without any step applied.
    pub fn peek(&self, site: &str) -> Option<SiteState> {
        self.inner().sites.get(site).cloned()
    }

    /// Every record logged so far.
    pub fn records(&self) -> Vec<Record> {
        self.inner().log.clone()
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn fail(&self, inner: &mut Inner, op: &'static str) -> Result<()> {
        if inner.failing.remove(op) {
            return Err(Error::io(
                "write",
                format!("memory:{op}"),
                std::io::Error::other("injected failure"),
            ));
        }
        Ok(())
    }

    fn alive(inner: &Inner, owner: u64, now: Mono) -> bool {
        match inner.owners.get(&owner) {
            Some(Life::Running) => true,
            Some(Life::Stopped(at)) => now.since(*at) <= LEASE_TTL,
            _ => false,
        }
    }

    /// Apply `f` to `site`'s state as one step. A lost state is healed as
    /// busy first; then, with `fail_on_lost`, the step fails (an admission is
    /// blocked and told why), else it is applied to the healed state.
    fn with_state<R>(
        &self,
        site: &str,
        heal: &Policy,
        fail_on_lost: bool,
        f: impl FnOnce(&mut SiteState, &dyn Clock) -> R,
    ) -> Result<R> {
        let mut inner = self.inner();
        if inner.unreadable.remove(site) {
            let now = self.clock.now_ceil();
            inner
                .sites
                .insert(site.to_owned(), SiteState::lost(site, now, heal));
            if fail_on_lost {
                return Err(Error::CorruptState {
                    path: format!("memory:{site}").into(),
                    moved_to: None,
                    retry_after_ms: heal.hold_ms.saturating_add(heal.interval_ms),
                });
            }
        }
        let now = self.clock.mono();
        let mut state = inner
            .sites
            .get(site)
            .cloned()
            .unwrap_or_else(|| SiteState::new(site));
        let lives = &*inner;
        state.drop_lapsed(|id| {
            id.parse::<u64>()
                .is_ok_and(|owner| Self::alive(lives, owner, now))
        });
        let out = f(&mut state, self.clock.as_ref());
        inner.sites.insert(site.to_owned(), state);
        Ok(out)
    }
}

struct MemPlace {
    store: MemoryStore,
    site: String,
    seq: u64,
}

impl Place for MemPlace {
    fn ticket(&self) -> u64 {
        self.seq
    }
    fn still_held(&self) -> Result<bool> {
        Ok(self
            .store
            .inner()
            .queues
            .get(&self.site)
            .is_some_and(|q| q.iter().any(|(s, _)| *s == self.seq)))
    }
}

impl Drop for MemPlace {
    fn drop(&mut self) {
        // A dead process does not get to clean up: others reclaim its place.
        let mut inner = self.store.inner();
        if inner.owners.get(&self.store.owner) == Some(&Life::Dead) {
            return;
        }
        if let Some(q) = inner.queues.get_mut(&self.site) {
            q.retain(|(s, _)| *s != self.seq);
        }
    }
}

struct MemLease {
    id: String,
}

impl Lease for MemLease {
    fn id(&self) -> &str {
        &self.id
    }
}

struct MemWatch {
    clock: Arc<dyn Clock>,
    teardown: Duration,
}

impl Drop for MemWatch {
    fn drop(&mut self) {
        if !self.teardown.is_zero() {
            self.clock.sleep(self.teardown);
        }
    }
}

impl Watch for MemWatch {
    fn wait(&mut self, timeout: Duration) -> Result<()> {
        // Changes are not signalled: a waiter sleeps until the time the
        // gate computed (never longer than RENEW_EVERY while a lease could
        // lapse) and looks again. On a fake clock, in one thread, that is
        // exact and one step; threads sharing a store on a real clock wake
        // at those times too, later than a signal would wake them, never
        // earlier than due.
        self.clock.sleep(timeout);
        Ok(())
    }
}

impl Store for MemoryStore {
    fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    fn queue_is_empty(&self, site: &str) -> Result<bool> {
        Ok(self.queue_len(site)? == 0)
    }

    fn queue_len(&self, site: &str) -> Result<usize> {
        Ok(self.inner().queues.get(site).map_or(0, Vec::len))
    }

    fn join_queue(
        &self,
        site: &str,
        deadline: Mono,
    ) -> Result<Result<Box<dyn Place>, QueueTimeout>> {
        let seq = {
            let mut inner = self.inner();
            inner.next_seq += 1;
            let seq = inner.next_seq;
            let owner = self.owner;
            inner
                .queues
                .entry(site.to_owned())
                .or_default()
                .push((seq, owner));
            seq
        };
        let place = MemPlace {
            store: self.clone(),
            site: site.to_owned(),
            seq,
        };
        loop {
            let ahead = {
                let mut inner = self.inner();
                let now = self.clock.mono();
                let lives: BTreeMap<u64, bool> = inner
                    .owners
                    .keys()
                    .map(|o| (*o, Self::alive(&inner, *o, now)))
                    .collect();
                let q = inner.queues.entry(site.to_owned()).or_default();
                q.retain(|(s, o)| *s >= seq || lives.get(o).copied().unwrap_or(false));
                q.iter().filter(|(s, _)| *s < seq).count()
            };
            if ahead == 0 {
                return Ok(Ok(Box::new(place)));
            }
            let left = self.clock.left(deadline);
            if left.is_zero() {
                return Ok(Err(QueueTimeout { ahead }));
            }
            self.clock.sleep(left.min(RENEW_EVERY));
        }
    }

    fn watch(&self, _site: &str) -> Result<Box<dyn Watch>> {
        Ok(Box::new(MemWatch {
            clock: self.clock.clone(),
            teardown: self.inner().watch_teardown,
        }))
    }

    fn lease(&self) -> Result<Box<dyn Lease>> {
        self.inner().leases += 1;
        Ok(Box::new(MemLease {
            id: self.owner.to_string(),
        }))
    }

    fn try_admit(
        &self,
        site: &str,
        call: &str,
        policy: &Policy,
        lease: Option<&str>,
        _deadline: Mono,
    ) -> Result<Attempt> {
        {
            let mut inner = self.inner();
            self.fail(&mut inner, "try_admit")?;
        }
        // A lost state is rebuilt with this config's hold, not the long hold
        // of a site taken while the call waits for another.
        let heal = Policy {
            interval_ms: policy.interval_ms.max(self.lost.interval_ms),
            ..self.lost
        };
        let (at, decision, lease_bound, in_flight) =
            self.with_state(site, &heal, true, |s, clock| {
                let now = clock.now_floor();
                let d = s.try_admit(call, now, policy, lease);
                (
                    now,
                    d,
                    s.in_flight.iter().any(|f| f.lease.is_some()),
                    !s.in_flight.is_empty(),
                )
            })?;
        let wait = match decision {
            Decision::WaitUntil(t) => {
                let w = Duration::from_millis(t.saturating_sub(at));
                if lease_bound { w.min(RENEW_EVERY) } else { w }
            }
            _ => Duration::ZERO,
        };
        Ok(Attempt {
            at,
            decision,
            wait,
            settled: !in_flight,
        })
    }

    fn finish(&self, site: &str, call: &str, interval_ms: u64) -> Result<EpochMs> {
        {
            let mut inner = self.inner();
            self.fail(&mut inner, "finish")?;
        }
        self.with_state(site, &self.lost.clone(), false, |s, clock| {
            let now = clock.now_ceil();
            s.finish(call, now, interval_ms);
            now
        })
    }

    fn cancel(&self, site: &str, call: &str) -> Result<bool> {
        {
            let mut inner = self.inner();
            self.fail(&mut inner, "cancel")?;
        }
        self.with_state(site, &self.lost.clone(), false, |s, _| s.cancel(call))
    }

    fn confirm(&self, site: &str, call: &str, started: EpochMs, hold_ms: u64) -> Result<bool> {
        self.with_state(site, &self.lost.clone(), false, |s, _| {
            s.confirm(call, started, hold_ms)
        })
    }

    fn extend(&self, site: &str, call: &str, hold_ms: u64) -> Result<bool> {
        self.with_state(site, &self.lost.clone(), false, |s, clock| {
            s.extend(call, clock.now_ceil(), hold_ms)
        })
    }

    fn update_backoff(
        &self,
        site: &str,
        f: &mut dyn FnMut(&mut SiteState, EpochMs) -> Option<EpochMs>,
    ) -> Result<Option<EpochMs>> {
        self.with_state(site, &self.lost.clone(), false, |s, clock| {
            let now = clock.now_ceil();
            s.normalize(now);
            f(s, now)
        })
    }

    fn site_state(&self, site: &str) -> Result<Option<SiteState>> {
        Ok(self.peek(site))
    }

    fn known_sites(&self) -> Result<Vec<String>> {
        Ok(self.inner().sites.keys().cloned().collect())
    }

    fn tabs(&self) -> Result<TabMap> {
        Ok(self.inner().tabs.clone())
    }

    fn update_tabs(&self, f: &dyn Fn(&mut TabMap)) -> Result<()> {
        let mut inner = self.inner();
        self.fail(&mut inner, "update_tabs")?;
        f(&mut inner.tabs);
        inner.tabs.trim();
        Ok(())
    }

    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()> {
        let mut inner = self.inner();
        self.fail(&mut inner, "save_call")?;
        match agent {
            Some(a) => {
                inner.slots.insert(a.to_owned(), (record.clone(), true));
            }
            None => {
                inner.calls.insert(record.call.clone(), record.clone());
            }
        }
        Ok(())
    }

    fn take_call(&self, call: &str, agent: Option<&str>) -> Result<Option<CallRecord>> {
        let mut inner = self.inner();
        if let Some(a) = agent
            && let Some((r, open)) = inner.slots.get_mut(a)
            && *open
            && r.call == call
        {
            *open = false;
            return Ok(Some(r.clone()));
        }
        Ok(inner.calls.remove(call))
    }

    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>> {
        Ok(self
            .inner()
            .slots
            .get(agent)
            .filter(|(_, open)| *open)
            .map(|(r, _)| r.clone()))
    }

    fn log(&self, record: &Record) {
        let mut inner = self.inner();
        inner.log.push(record.clone());
        let stall = match inner.stall_after {
            Some((kind, d)) if kind == record.event => inner.stall_after.take().map(|_| d),
            _ => None,
        };
        drop(inner);
        if let Some(d) = stall {
            self.clock.sleep(d);
        }
    }

    fn read_log(&self) -> Result<(Vec<Record>, usize)> {
        Ok((self.records(), 0))
    }

    fn describe(&self) -> String {
        "memory".to_owned()
    }
}
