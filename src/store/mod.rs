//! Where the gate's shared state lives. The gate talks to a [`Store`] and
//! nothing else, so a file store (one machine) and a Redis store (several
//! machines) are interchangeable.
//!
//! A store keeps, per site: a FIFO queue of waiting callers, the site's
//! [`SiteState`] behind a lock, and a way to sleep until that state changes.
//! Beside them it keeps the tab→site map and the record of which sites each
//! admitted call marked, for the Post side.

use std::{collections::BTreeMap, time::Duration, time::Instant};

use serde::{Deserialize, Serialize};

use crate::{clock::EpochMs, decision::SiteState, error::Result};

pub mod file;

pub use file::FileStore;

/// A caller could not reach the head of a site's queue before its deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueTimeout {
    /// How many callers were still ahead of it.
    pub ahead: usize,
}

/// The tab→site map, shared by every process.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabMap {
    /// Tab id → what it is on.
    #[serde(default)]
    pub tabs: BTreeMap<String, TabEntry>,
}

/// What one tab is on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabEntry {
    /// Hosts the tab may be on: one once a tool result has shown it; the old
    /// and the new host while a navigation has no result yet; none for a page
    /// that is on no site (`about:blank`). Hosts, not site keys, so that the
    /// Post side needs no config and a config change applies at once.
    #[serde(alias = "sites")]
    pub hosts: Vec<String>,
    /// When this was learnt.
    pub seen_ms: EpochMs,
}

impl TabMap {
    /// The most tabs kept; the oldest are forgotten first.
    pub const MAX_TABS: usize = 512;

    /// Drop the oldest entries beyond [`Self::MAX_TABS`].
    pub fn trim(&mut self) {
        while self.tabs.len() > Self::MAX_TABS {
            let oldest = self
                .tabs
                .iter()
                .min_by_key(|(_, e)| e.seen_ms)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.tabs.remove(&k),
                None => break,
            };
        }
    }
}

/// Which sites an admitted call marked, saved for its Post event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The call's `tool_use_id`.
    pub call: String,
    /// Site keys it was admitted to.
    pub sites: Vec<String>,
    /// When it was admitted.
    pub started_ms: EpochMs,
}

/// Sleeps until a site's state may have changed.
pub trait Watch {
    /// Return when the site's state changes or `timeout` has passed, whichever
    /// is first. Waking early is allowed; the caller looks again.
    fn wait(&mut self, timeout: Duration) -> Result<()>;
}

/// Shared gate state.
pub trait Store {
    /// A place in a site's queue; dropping it leaves the queue.
    type Place;
    /// A watch on one site's state.
    type Watch: Watch;

    /// Whether nobody is waiting in `site`'s queue.
    fn queue_is_empty(&self, site: &str) -> Result<bool>;

    /// Join `site`'s queue and return once every caller that joined earlier
    /// has left it, or give up at `deadline`.
    fn join_queue(
        &self,
        site: &str,
        deadline: Instant,
    ) -> Result<Result<(Self::Place, u64), QueueTimeout>>;

    /// Start watching `site`'s state. Taken before reading the state, so a
    /// change between the read and the wait is not missed.
    fn watch(&self, site: &str) -> Result<Self::Watch>;

    /// Read, change and write `site`'s state as one step under the site's
    /// lock. A state that cannot be read is set aside, the site is reset as
    /// busy until `heal_at`, and the call fails with
    /// [`crate::Error::CorruptState`]: unreadable never means free.
    fn update_site<R>(
        &self,
        site: &str,
        heal_at: EpochMs,
        deadline: Instant,
        f: impl FnOnce(&mut SiteState) -> R,
    ) -> Result<R>;

    /// Every site that has state in the store.
    fn known_sites(&self) -> Result<Vec<String>>;

    /// The tab→site map.
    fn tabs(&self) -> Result<TabMap>;

    /// Change the tab→site map as one step.
    fn update_tabs(&self, f: impl Fn(&mut TabMap)) -> Result<()>;

    /// Save which sites a call marked. With `agent` (the session, or a
    /// subagent in it), the record is that agent's one open call: an agent's
    /// paced calls run one at a time.
    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()>;

    /// Take the record of `call` (it is closed: a second take finds nothing).
    fn take_call(&self, call: &str, agent: Option<&str>) -> Result<Option<CallRecord>>;

    /// The call `agent` was last admitted for, if no finish has taken it.
    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>>;
}
