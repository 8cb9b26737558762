//! Where the gate's shared state lives. The gate talks to a [`Store`] and
//! nothing else, so the file store (one machine), the in-memory store (tests
//! with a fake clock) and a networked store are interchangeable, and which
//! one runs is chosen from the config when the program runs.
//!
//! A store is the sum of one trait per concern, and each store's files
//! mirror them (`file/`, `memory/`, `redis/`, each with `sites.rs`,
//! `queue.rs`, `tabs.rs`, `log.rs`):
//! - [`Sites`]: per site, its [`SiteState`], changed only by the steps of
//!   [`crate::pacing::step`] applied atomically (under a lock, a mutex, or as
//!   one server-side script), and a way to sleep until it changes;
//! - [`Queue`]: per site, a FIFO queue of waiting callers, and the leases of
//!   calls that wait for several sites;
//! - [`Tabs`]: the tab map and the record of which sites each admitted call
//!   marked, for the Post side;
//! - [`Log`]: the gate log;
//! - and [`Store`] itself: the clock, and what to call the store in messages.
//!
//! A store holds no pacing rule of its own and never waits for a site's
//! turn: the rules are in `pacing`, the waiting in `gate`.
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
//! [`Place::still_held`] or a failed [`Sites::confirm`] and starts over.

use std::{
    path::{Path, PathBuf},
    sync::OnceLock,
    time::Duration,
};

use crate::{
    config::{Backend, Config, OnBackendError},
    error::{Error, Result},
    pacing::clock::Clock,
    pacing::decision::Policy,
    pacing::log::{Kind, Record},
    state_dir::Dir,
};

mod admission;
pub mod file;
mod heartbeat;
mod log;
pub mod memory;
mod queue;
#[cfg(feature = "redis")]
pub mod redis;
mod sites;
mod tabs;

pub(crate) use admission::with_retry;
pub use admission::{
    Admission, AdmitCall, AdmitSites, SitesAdmission, admit_in_parts, admit_sites_in_parts,
    finish_in_parts,
};
pub use file::FileStore;
pub use log::Log;
pub use memory::MemoryStore;
pub use queue::{Lease, Place, Queue, QueueTimeout};
#[cfg(feature = "redis")]
pub use redis::RedisStore;
pub use sites::{Attempt, Sites, Stepped, Watch};
pub use tabs::{CallRecord, TabEntry, TabMap, TabNote, TabSeen, Tabs};

/// What a store needs from the config: the policy a lost state is rebuilt
/// with, and when a queue place is reclaimed regardless of its owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Interval and hold for a site whose state was lost.
    pub lost: Policy,
    /// Age after which a queue place is reclaimed even if its owner renews it.
    pub stale_after_ms: u64,
}

impl Default for Options {
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

impl Options {
    /// The settings `config` gives.
    pub fn of(config: &Config) -> Self {
        Self {
            // The global policy, as `gate::requests::policy_of(config, None)`
            // gives it (the gate is a layer above the stores).
            lost: Policy {
                interval_ms: config.interval_ms,
                hold_ms: config.hold_ms,
                budget: config.budget,
            },
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
        Backend::File => return Ok(Box::new(FileStore::open(root, Options::of(config))?)),
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
    Ok(Box::new(RedisStore::open(url, root, Options::of(config))?))
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
    let store = FileStore::open(root, Options::of(config))?.with_warning(format!(
        "pace-hook could not use its shared gate ({error}), so it paced this call only against other calls on this machine (on_backend_error = \"local\"): calls from other machines to the same site may come closer together than the interval. Tell the user if this keeps happening."
    ));
    let mut r = Record::new(Kind::Backend, store.clock().now_floor(), "");
    r.reason = Some(format!(
        "fell back to this machine's file gate (on_backend_error = \"local\"): {error}"
    ));
    store.log(&r);
    Ok(Box::new(store))
}

/// A store's state directory on this machine, `path`, made (private) and
/// checked on first use: the same answer every time after.
fn state_root<'a>(
    cell: &'a OnceLock<std::result::Result<Dir, String>>,
    path: &Path,
) -> Result<&'a Dir> {
    cell.get_or_init(|| Dir::open_root(path, true).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|message| Error::StateDir {
            message: message.clone(),
        })
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

/// Shared gate state: each concern in its own trait, and the store as their
/// sum. Object-safe, so the backend is chosen at run time.
pub trait Store: Sites + Queue + Tabs + Log {
    /// The clock for deadlines and sleeps in this process.
    fn clock(&self) -> &dyn Clock;

    /// Where this store keeps its state, for messages (`status`, `doctor`).
    fn describe(&self) -> String;

    /// What the model should be told about this store, if anything: that it
    /// stands in for a shared backend that could not be used.
    fn warning(&self) -> Option<&str> {
        None
    }

    /// Bound every I/O from now on by `until` (a call's deadline, on this
    /// process's monotonic clock; `None` lifts it): a store that talks to a server shortens
    /// each command's timeout to what is left, and fails a command once
    /// nothing is, so a slow server cannot hold a hook past its client's
    /// timeout (which would let the call run unpaced). Local stores' I/O is
    /// bounded already (their locks wait with deadlines of their own).
    fn bound_io(&self, _until: Option<crate::pacing::clock::Mono>) {}

    /// A call's admission at one site with the steps around it
    /// ([`AdmitCall`]): one step where the store can, else
    /// [`admit_in_parts`].
    fn admit_call(&self, a: &AdmitCall<'_>) -> Result<Admission> {
        admit_in_parts(self, a)
    }

    /// A call's admission at each of several sites at once, if every one is
    /// free ([`AdmitSites`]): one step where the store can, else
    /// [`admit_sites_in_parts`].
    fn admit_sites(&self, a: &AdmitSites<'_>) -> Result<SitesAdmission> {
        admit_sites_in_parts(self, a)
    }

    /// A call's finish on every site it marked and on `revealed`
    /// ([`finish_in_parts`]), as one step where the store can. `note` is
    /// the change the call makes to the tab map, which the caller applies
    /// right after ([`Tabs::update_tabs`]): a store that can applies it
    /// along with the finish, as [`AdmitCall::note`].
    fn finish_call(
        &self,
        call: &str,
        agent: Option<&str>,
        revealed: &[String],
        note: Option<&TabNote>,
    ) -> Result<Vec<(String, crate::pacing::clock::EpochMs)>> {
        let _ = note;
        finish_in_parts(self, call, agent, revealed)
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
