//! Where the gate's shared state lives. The gate talks to a [`Store`] and
//! nothing else, so the file store (one machine), the in-memory store (tests
//! with a fake clock) and a networked store are interchangeable, and which
//! one runs is chosen from the config when the program runs.
//!
//! A store keeps, per site: the site's [`SiteState`], changed only by the
//! steps of [`crate::pacing::decision`] applied atomically (under a lock, a mutex, or
//! as one server-side script); a FIFO queue of waiting callers; and a way to
//! sleep until the state changes. Beside them it keeps the tab map and the
//! record of which sites each admitted call marked, for the Post side, and the
//! gate log.
//!
//! # Keeping a place alive
//! A caller that waits holds things other callers wait behind: a place in a
//! site's queue ([`Place`]) and, for a call that needs several sites, holds on
//! the sites it has already taken ([`Lease`]). Each store frees them when
//! their process dies *or stops making progress* (Ctrl-Z on a session), so a
//! dead or stopped waiter costs the others seconds, not minutes:
//! - the file store locks a file for each (`flock`, which the kernel drops
//!   when the process dies) and renews its modification time every
//!   [`RENEW_EVERY`] from a heartbeat thread, which stops with the process; a
//!   place whose file is unlocked, or not renewed for [`LEASE_TTL`], is
//!   reclaimed;
//! - the in-memory store keeps the same rule with explicit liveness, for tests;
//! - a networked store keeps each as a key with a time to live of
//!   [`LEASE_TTL`], renewed the same way.
//!
//! A caller whose place was reclaimed while it was stopped finds out through
//! [`Place::still_held`] or a failed [`Store::confirm`] and starts over.

use std::{collections::BTreeMap, path::PathBuf, time::Duration};

use serde::{Deserialize, Serialize};

use crate::{
    config::{Backend, Config, OnBackendError},
    error::{Error, Result},
    pacing::clock::{Clock, EpochMs, Mono},
    pacing::decision::{Decision, Policy, SiteState},
    pacing::log::{Kind, Record},
};

pub mod file;
mod heartbeat;
pub mod memory;
#[cfg(feature = "redis")]
pub mod redis;

pub use file::FileStore;
pub use memory::MemoryStore;
#[cfg(feature = "redis")]
pub use redis::RedisStore;

/// What a store needs from the config: the policy a lost state is rebuilt
/// with, and when a queue place is reclaimed regardless of its owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Interval and hold for a site whose state was lost.
    pub lost: Policy,
    /// Age after which a queue place is reclaimed even if its owner renews it.
    pub stale_after_ms: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            lost: Policy {
                interval_ms: crate::config::DEFAULT_INTERVAL_MS,
                hold_ms: crate::config::DEFAULT_HOLD_MS,
                budget: None,
            },
            stale_after_ms: crate::config::DEFAULT_STALE_AFTER_MS,
        }
    }
}

impl Settings {
    /// The settings `config` gives.
    pub fn of(config: &Config) -> Self {
        Self {
            lost: config.policy_of(None),
            stale_after_ms: config.stale_after_ms,
        }
    }
}

/// The store the config asks for, with this machine's state in the state
/// directory (see [`crate::state_dir::default_root`]).
pub fn open(config: &Config) -> Result<Box<dyn Store>> {
    open_in(crate::state_dir::default_root()?, config)
}

/// The store the config asks for, with this machine's state (the file gate,
/// or the local gate log beside a shared one) in `root`. A shared backend
/// that cannot be used is an error ([`Error::Backend`]), or with
/// `on_backend_error = "local"` the file gate in `root`, which says so in
/// its log and through [`Store::warning`].
pub fn open_in(root: PathBuf, config: &Config) -> Result<Box<dyn Store>> {
    let url = match &config.backend {
        Backend::File => return Ok(Box::new(FileStore::open(root, Settings::of(config))?)),
        Backend::Redis(url) => url,
    };
    match open_redis(url, &root, config) {
        Err(e @ Error::Backend { .. }) if config.on_backend_error == OnBackendError::Local => {
            fall_back(root, config, &e)
        }
        other => other,
    }
}

#[cfg(feature = "redis")]
fn open_redis(url: &str, root: &std::path::Path, config: &Config) -> Result<Box<dyn Store>> {
    Ok(Box::new(RedisStore::open(url, root, Settings::of(config))?))
}

#[cfg(not(feature = "redis"))]
fn open_redis(url: &str, _root: &std::path::Path, _config: &Config) -> Result<Box<dyn Store>> {
    Err(Error::Backend {
        server: redact_url(url).0,
        problem: "needs a pace-hook built with Redis support (the `redis` feature, on by default); this one was built without it".to_owned(),
        setup: true,
    })
}

/// The file gate in `root`, standing in for a shared backend that failed
/// with `error`: one line in the gate log, and a warning for the model.
pub fn fall_back(root: PathBuf, config: &Config, error: &Error) -> Result<Box<dyn Store>> {
    let store = FileStore::open(root, Settings::of(config))?.with_warning(format!(
        "pace-hook could not use its shared gate ({error}), so it paced this call only against other calls on this machine (on_backend_error = \"local\"): calls from other machines to the same site may come closer together than the interval. Tell the user if this keeps happening."
    ));
    let mut r = Record::new(Kind::Backend, store.clock().now_floor(), "");
    r.reason = Some(format!(
        "fell back to this machine's file gate (on_backend_error = \"local\"): {error}"
    ));
    store.log(&r);
    Ok(Box::new(store))
}

/// A backend URL fit to print, and the password it held: the password (or
/// a user given without one, which some write for a password) is shown as
/// `***`. Works on any text, so that even a URL that does not parse is
/// never printed with its password.
pub(crate) fn redact_url(url: &str) -> (String, Option<String>) {
    let Some(scheme_end) = url.find("://") else {
        return (url.to_owned(), None);
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let Some(at) = authority.rfind('@') else {
        return (url.to_owned(), None);
    };
    let (shown, secret) = match authority[..at].split_once(':') {
        Some((user, password)) => (format!("{user}:***"), password),
        None => ("***".to_owned(), &authority[..at]),
    };
    (
        format!(
            "{}://{shown}@{}{}",
            &url[..scheme_end],
            &authority[at + 1..],
            &rest[authority_end..]
        ),
        (!secret.is_empty()).then(|| secret.to_owned()),
    )
}

/// How often a waiting process renews its places and leases.
pub const RENEW_EVERY: Duration = Duration::from_millis(1_000);
/// A place or lease not renewed for this long belongs to a process that is
/// stopped or gone, and is reclaimed.
pub const LEASE_TTL: Duration = Duration::from_millis(5_000);

/// A caller could not reach the head of a site's queue before its deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueTimeout {
    /// How many callers were still ahead of it.
    pub ahead: usize,
}

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

/// A place in a site's queue. Dropping it leaves the queue.
pub trait Place: Send {
    /// The place's ticket number (arrival order), for the log.
    fn ticket(&self) -> u64;
    /// Whether the place is still this caller's: `false` once it was
    /// reclaimed while the process was stopped.
    fn still_held(&self) -> Result<bool>;
}

/// Ties holds taken while a call still waits for other sites to this
/// process: they lapse when it dies or stops. Dropping it ends the lease.
pub trait Lease: Send {
    /// The id stored with each hold it keeps.
    fn id(&self) -> &str;
}

/// Sleeps until a site's state may have changed.
pub trait Watch {
    /// Return when the site's state changes or `timeout` has passed, whichever
    /// is first. Waking early is allowed; the caller looks again.
    fn wait(&mut self, timeout: Duration) -> Result<()>;
}

/// The tab map, shared by every process: where each browser tab is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabMap {
    /// Tab key (see [`crate::read::profile::TabRef::key`]) → what it is on.
    #[serde(default)]
    pub tabs: BTreeMap<String, TabEntry>,
    /// Browser key → the key of its current tab, for tools that act on "the
    /// current tab" without naming it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub current: BTreeMap<String, String>,
}

/// What one tab is on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabEntry {
    /// Hosts the tab may be on now: one once a tool result has shown it; the
    /// old and the new host while a navigation has no result yet; none for a
    /// page on no site (`about:blank`). Hosts, not site keys, so that the Post
    /// side needs no config. A `*` means "could not be read": every site.
    #[serde(alias = "sites")]
    pub hosts: Vec<String>,
    /// Hosts the tab has been on, oldest first, at most
    /// [`TabMap::MAX_HISTORY`]: where `back` and `forward` can lead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<String>,
    /// When this was learnt.
    pub seen_ms: EpochMs,
}

impl TabMap {
    /// The most tabs kept; the oldest are forgotten first.
    pub const MAX_TABS: usize = 512;
    /// The most history hosts kept per tab.
    pub const MAX_HISTORY: usize = 16;

    /// Drop the oldest entries beyond [`Self::MAX_TABS`]: one sort, not a
    /// scan per entry, however many a result listed.
    pub fn trim(&mut self) {
        if self.tabs.len() <= Self::MAX_TABS {
            return;
        }
        let mut ages: Vec<(EpochMs, String)> = self
            .tabs
            .iter()
            .map(|(k, e)| (e.seen_ms, k.clone()))
            .collect();
        ages.sort_unstable();
        let excess = self.tabs.len() - Self::MAX_TABS;
        for (_, k) in ages.into_iter().take(excess) {
            self.tabs.remove(&k);
        }
        let tabs = &self.tabs;
        self.current.retain(|_, t| tabs.contains_key(t));
    }
}

/// Which sites an admitted call marked, saved for its Post event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The call's key (session, agent, `tool_use_id`).
    pub call: String,
    /// Site keys it was admitted to.
    pub sites: Vec<String>,
    /// When it was admitted.
    pub started_ms: EpochMs,
    /// The strictest interval its caller required on any of its sites: a
    /// finish recorded on a site the result reveals carries it.
    #[serde(default)]
    pub interval_ms: u64,
}

/// Shared gate state. Object-safe, so the backend is chosen at run time.
pub trait Store: Send + Sync {
    /// The clock for deadlines and sleeps in this process.
    fn clock(&self) -> &dyn Clock;

    /// Whether nobody is waiting in `site`'s queue.
    fn queue_is_empty(&self, site: &str) -> Result<bool>;

    /// Join `site`'s queue and return once every caller that joined earlier
    /// has left it (or was reclaimed), or give up at `deadline`.
    fn join_queue(
        &self,
        site: &str,
        deadline: Mono,
    ) -> Result<Result<Box<dyn Place>, QueueTimeout>>;

    /// Start watching `site`'s state. Taken before reading the state, so a
    /// change between the read and the wait is not missed.
    fn watch(&self, site: &str) -> Result<Box<dyn Watch>>;

    /// A lease for holds taken while a call waits for its other sites.
    fn lease(&self) -> Result<Box<dyn Lease>>;

    /// One atomic look at `site`: drop holds whose lease lapsed, then
    /// [`SiteState::try_admit`] `call` for a caller with `policy`. A state
    /// that cannot be read is set busy as of now ([`SiteState::lost`]) and
    /// the call fails with [`crate::Error::CorruptState`]: unreadable never
    /// means free.
    fn try_admit(
        &self,
        site: &str,
        call: &str,
        policy: &Policy,
        lease: Option<&str>,
        deadline: Mono,
    ) -> Result<Attempt>;

    /// Record that `call` finished now on `site` ([`SiteState::finish`]);
    /// returns the finish time written.
    fn finish(&self, site: &str, call: &str, interval_ms: u64) -> Result<EpochMs>;

    /// Forget `call`'s hold on `site`: it sent nothing.
    fn cancel(&self, site: &str, call: &str) -> Result<bool>;

    /// Turn `call`'s hold on `site` into an ordinary one from `started`
    /// ([`SiteState::confirm`]); `false` if it lapsed.
    fn confirm(&self, site: &str, call: &str, started: EpochMs, hold_ms: u64) -> Result<bool>;

    /// Keep `call` in flight on `site` for another `hold_ms` from now.
    fn extend(&self, site: &str, call: &str, hold_ms: u64) -> Result<bool>;

    /// Change `site`'s backoff as one step: `f` gets the state and the
    /// store's now. Returns what `f` returned.
    fn update_backoff(
        &self,
        site: &str,
        f: &mut dyn FnMut(&mut SiteState, EpochMs) -> Option<EpochMs>,
    ) -> Result<Option<EpochMs>>;

    /// `site`'s state as it stands, if it has one (for messages and status).
    /// A look: it never writes, heals or reclaims anything, and neither do
    /// [`Store::known_sites`], [`Store::queue_len`], [`Store::tabs`] and
    /// [`Store::read_log`], so `status` can read through them.
    fn site_state(&self, site: &str) -> Result<Option<SiteState>>;

    /// Every site that has state in the store.
    fn known_sites(&self) -> Result<Vec<String>>;

    /// How many callers wait in `site`'s queue.
    fn queue_len(&self, site: &str) -> Result<usize>;

    /// The tab map.
    fn tabs(&self) -> Result<TabMap>;

    /// Change the tab map as one step.
    fn update_tabs(&self, f: &dyn Fn(&mut TabMap)) -> Result<()>;

    /// Save which sites a call marked. With `agent` (the session, or a
    /// subagent in it), the record is that agent's one open call: an agent's
    /// paced calls run one at a time.
    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()>;

    /// Take the record of `call` (it is closed: a second take finds nothing).
    fn take_call(&self, call: &str, agent: Option<&str>) -> Result<Option<CallRecord>>;

    /// The call `agent` was last admitted for, if no finish has taken it.
    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>>;

    /// Append `record` to the gate log, best effort: a full disk must not
    /// turn a call the gate admitted into a blocked one.
    fn log(&self, record: &Record);

    /// Every record of the gate log this store can see, and how many lines
    /// could not be read.
    fn read_log(&self) -> Result<(Vec<Record>, usize)>;

    /// Where this store keeps its state, for messages (`status`, `doctor`).
    fn describe(&self) -> String;

    /// What the model should be told about this store, if anything: that it
    /// stands in for a shared backend that could not be used.
    fn warning(&self) -> Option<&str> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_is_never_shown() {
        assert_eq!(
            redact_url("redis://user:s3cret@host:6379/0"),
            (
                "redis://user:***@host:6379/0".to_owned(),
                Some("s3cret".to_owned())
            )
        );
        assert_eq!(
            redact_url("rediss://:s3cret@host"),
            ("rediss://:***@host".to_owned(), Some("s3cret".to_owned()))
        );
        assert_eq!(
            redact_url("redis://s3cret@host/1"),
            ("redis://***@host/1".to_owned(), Some("s3cret".to_owned()))
        );
        // `@` in the password, and a path with `@`: the authority ends at `/`.
        assert_eq!(
            redact_url("redis://u:p@ss@host/x@y").0,
            "redis://u:***@host/x@y"
        );
        assert_eq!(redact_url("redis://host:6379").0, "redis://host:6379");
        assert_eq!(redact_url("not a url").0, "not a url");
    }
}
