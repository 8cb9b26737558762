//! The gate's state in memory, for tests: the same steps as the other stores
//! on the same [`SiteState`], driven by any [`Clock`], with the failures of a
//! real store on call: a process that dies or stops while it waits, a state
//! that cannot be read, a write that fails.
//!
//! With a [`crate::pacing::clock::FakeClock`] every wait is a step of the
//! fake clock, so a timeline that would take minutes of real waiting (a hold, a stopped
//! waiter's lease running out, a clock stepped back) runs in microseconds and
//! the same way every time.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{Arc, Mutex, MutexGuard},
    time::Duration,
};

use super::{CallRecord, LEASE_TTL, Store, TabMap};
use crate::{
    error::{Error, Result},
    pacing::clock::{Clock, Mono},
    pacing::decision::{Policy, SiteState},
    pacing::log::{Kind, Record},
};

mod log;
mod queue;
mod sites;
mod tabs;

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
}

impl Store for MemoryStore {
    fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    fn describe(&self) -> String {
        "memory".to_owned()
    }
}
