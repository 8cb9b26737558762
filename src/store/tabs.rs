//! The tab map and the call records, shared by every process: where each
//! browser tab is, and which sites an admitted call marked, for its Post.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{error::Result, pacing::clock::EpochMs};

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

    /// The map stored as `bytes`. An unreadable map is an empty one: every
    /// tab is then unknown and counted against every site, which errs
    /// towards waiting.
    pub fn read(bytes: &[u8]) -> Self {
        serde_json::from_slice(bytes).unwrap_or_default()
    }

    /// Apply `f` and keep the map within its bounds; whether anything
    /// changed (and so must be written).
    pub fn change(&mut self, f: &dyn Fn(&mut TabMap)) -> bool {
        let before = self.clone();
        f(self);
        self.trim();
        *self != before
    }

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

/// The tab map and the record of each admitted call.
pub trait Tabs: Send + Sync {
    /// The tab map.
    fn tabs(&self) -> Result<TabMap>;

    /// Change the tab map as one step. Most events change nothing, so the
    /// map is looked at first, without a lock or a transaction.
    fn update_tabs(&self, f: &dyn Fn(&mut TabMap)) -> Result<()> {
        if !self.tabs()?.change(f) {
            return Ok(());
        }
        self.change_tabs(&|map| map.change(f))
    }

    /// Read the tab map under the store's lock (or in a transaction), apply
    /// `change`, and write the map back if it says the map changed.
    fn change_tabs(&self, change: &dyn Fn(&mut TabMap) -> bool) -> Result<()>;

    /// Save which sites a call marked. With `agent` (the session, or a
    /// subagent in it), the record is that agent's one open call: an agent's
    /// paced calls run one at a time.
    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()>;

    /// Take the record of `call` (it is closed: a second take finds nothing).
    fn take_call(&self, call: &str, agent: Option<&str>) -> Result<Option<CallRecord>>;

    /// The call `agent` was last admitted for, if no finish has taken it.
    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>>;
}
