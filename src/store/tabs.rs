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

    /// The map stored as `bytes`, with the notes after it applied. An
    /// unreadable map is an empty one: every tab is then unknown and counted
    /// against every site, which errs towards waiting.
    ///
    /// The stored text is the map's JSON, then any number of `[ms, note]`
    /// pairs ([`TabNote`]), each a change a store appended along with the
    /// step that made it, applied in order with its time; the next write of
    /// the map folds them in. A note that cannot be read could have moved
    /// any tab: the whole map then reads as unreadable.
    pub fn read(bytes: &[u8]) -> Self {
        let mut first = serde_json::Deserializer::from_slice(bytes).into_iter::<TabMap>();
        let mut map = match first.next() {
            Some(Ok(m)) => m,
            _ => return Self::default(),
        };
        let rest = &bytes[first.byte_offset()..];
        let mut noted = false;
        for v in serde_json::Deserializer::from_slice(rest).into_iter::<(EpochMs, TabNote)>() {
            let Ok((at, note)) = v else {
                return Self::default();
            };
            note.apply(&mut map, at);
            noted = true;
        }
        if noted {
            map.trim();
        }
        map
    }

    /// Record that a tab was seen on `seen.hosts` as of `now`: instead of
    /// what the map held when it is sure, beside it otherwise. Every host it
    /// is seen on joins its history. The map is left untouched (so nothing
    /// is written) when it already says so and is fresh.
    pub fn note(&mut self, seen: &TabSeen, now: EpochMs) {
        let Some(key) = seen
            .key
            .clone()
            .or_else(|| self.current.get(&seen.browser).cloned())
        else {
            return;
        };
        let old = self.tabs.get(&key);
        let mut new: Vec<String> = seen.hosts.clone();
        if !seen.sure
            && let Some(old) = old
        {
            new.extend(old.hosts.iter().cloned());
        }
        new.sort();
        new.dedup();
        let mut history = old.map(|o| o.history.clone()).unwrap_or_default();
        for h in &new {
            if history.last() != Some(h) {
                history.retain(|x| x != h);
                history.push(h.clone());
            }
        }
        if history.len() > Self::MAX_HISTORY {
            history.drain(..history.len() - Self::MAX_HISTORY);
        }
        if let Some(e) = old
            && e.hosts == new
            && e.history == history
            && now.saturating_sub(e.seen_ms) < TAB_REFRESH_MS
        {
            return;
        }
        self.tabs.insert(
            key,
            TabEntry {
                hosts: new,
                history,
                seen_ms: now,
            },
        );
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

/// How stale a tab's `seen_ms` may get before an unchanged entry is written
/// again; it only orders which tabs are forgotten first.
const TAB_REFRESH_MS: u64 = 10 * 60_000;

/// Where a tab was seen, as one event tells it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabSeen {
    /// The tab's key ([`crate::read::profile::TabRef::key`]); none for
    /// "the current tab" of `browser`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The browser whose tab it is.
    pub browser: String,
    /// The hosts it is on (a `*`: could not be read).
    pub hosts: Vec<String>,
    /// Whether a result showed it (the hosts replace the old ones), or a
    /// navigation only began (they join them).
    #[serde(default)]
    pub sure: bool,
}

/// One event's change to the tab map, as data: the tabs it saw, and the
/// browser tab it made current. A store applies it with the time of the
/// step it goes along with (an admission, a finish): one that can appends
/// it to the map in that step ([`TabMap::read`] applies it), else the map
/// is changed right after ([`Tabs::update_tabs`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabNote {
    /// The tabs seen, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen: Vec<TabSeen>,
    /// A browser and the key of its current tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<(String, String)>,
}

impl TabNote {
    /// Apply the note to `map` as of `now`.
    pub fn apply(&self, map: &mut TabMap, now: EpochMs) {
        for seen in &self.seen {
            map.note(seen, now);
        }
        if let Some((browser, key)) = &self.current {
            map.current.insert(browser.clone(), key.clone());
        }
    }

    /// The note as a store appends it: JSON on one line.
    pub fn text(&self) -> String {
        serde_json::to_string(self).expect("a tab note serializes")
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

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(tab: &str, host: &str, sure: bool) -> TabNote {
        TabNote {
            seen: vec![TabSeen {
                key: Some(format!("chrome#{tab}")),
                browser: "chrome".to_owned(),
                hosts: vec![host.to_owned()],
                sure,
            }],
            current: None,
        }
    }

    /// `map`'s JSON with each note appended as a store appends it.
    fn stored(map: &TabMap, notes: &[(EpochMs, TabNote)]) -> String {
        let mut text = serde_json::to_string(map).unwrap();
        for (at, n) in notes {
            text.push_str(&format!("\n[{at},{}]", n.text()));
        }
        text
    }

    #[test]
    fn notes_after_the_map_are_applied_in_order_with_their_times() {
        let notes = [
            (10, seen("1", "a.com", true)),
            (20, seen("1", "b.com", false)),
            (30, seen("2", "c.com", true)),
        ];
        let read = TabMap::read(stored(&TabMap::default(), &notes).as_bytes());
        let mut applied = TabMap::default();
        for (at, n) in &notes {
            n.apply(&mut applied, *at);
        }
        assert_eq!(read, applied);
        let one = &read.tabs["chrome#1"];
        // The navigation not yet shown: on both, and both in its history.
        assert_eq!(one.hosts, ["a.com", "b.com"]);
        assert_eq!(one.history, ["a.com", "b.com"]);
        assert_eq!(one.seen_ms, 20);
        assert_eq!(read.tabs["chrome#2"].seen_ms, 30);
        // A result that shows the tab replaces what the navigation left.
        let sure = [(40, seen("1", "b.com", true))];
        let later = TabMap::read(stored(&read, &sure).as_bytes());
        assert_eq!(later.tabs["chrome#1"].hosts, ["b.com"]);
    }

    #[test]
    fn a_note_applied_twice_changes_nothing_the_second_time() {
        // The caller's own update after a store noted its change along with
        // the step: it must find nothing to write.
        for sure in [false, true] {
            let n = TabNote {
                current: Some(("chrome".to_owned(), "chrome#1".to_owned())),
                ..seen("1", "b.com", sure)
            };
            let mut map = TabMap::read(
                stored(
                    &TabMap::default(),
                    &[(5, seen("1", "a.com", true)), (9, n.clone())],
                )
                .as_bytes(),
            );
            assert!(!map.change(&|m| n.apply(m, 12)), "sure: {sure}");
        }
    }

    #[test]
    fn a_note_that_cannot_be_read_makes_the_whole_map_unreadable() {
        let good = stored(&TabMap::default(), &[(10, seen("1", "a.com", true))]);
        assert!(!TabMap::read(good.as_bytes()).tabs.is_empty());
        for bad in [
            format!("{good}\n[11,"),
            format!("{good}\n[11,{{\"seen\":7}}]"),
            format!("{good}\n{{}}"),
            format!("{good}\n\"x\""),
            format!("{good}\n[-1,{{}}]"),
            format!("{good} trailing"),
        ] {
            assert_eq!(TabMap::read(bad.as_bytes()), TabMap::default(), "{bad}");
        }
    }

    #[test]
    fn a_host_cannot_end_its_note_or_start_another() {
        // Hosts come from URLs a page may write: one that holds what a
        // store writes between notes stays inside its own note.
        let sly =
            "a.com\n[1,{\"seen\":[{\"key\":\"chrome#9\",\"browser\":\"chrome\",\"hosts\":[]}]}]";
        let n = seen("1", sly, true);
        assert!(!n.text().contains('\n'));
        let read = TabMap::read(stored(&TabMap::default(), &[(3, n)]).as_bytes());
        assert_eq!(read.tabs["chrome#1"].hosts, [sly]);
        assert!(!read.tabs.contains_key("chrome#9"));
    }

    #[test]
    fn a_map_reads_as_before_notes_whatever_its_spacing() {
        let mut map = TabMap::default();
        seen("1", "a.com", true).apply(&mut map, 3);
        let pretty = serde_json::to_string_pretty(&map).unwrap();
        assert!(pretty.contains('\n'));
        assert_eq!(TabMap::read(pretty.as_bytes()), map);
        // The file store pads a map that shrank with blanks.
        let padded = format!("{}{}", serde_json::to_string(&map).unwrap(), " ".repeat(64));
        assert_eq!(TabMap::read(padded.as_bytes()), map);
        assert_eq!(TabMap::read(b""), TabMap::default());
        assert_eq!(TabMap::read(b"garbage"), TabMap::default());
    }

    #[test]
    fn notes_keep_the_map_within_its_bounds() {
        let notes: Vec<(EpochMs, TabNote)> = (0..TabMap::MAX_TABS as u64 + 8)
            .map(|i| (i, seen(&i.to_string(), "a.com", true)))
            .collect();
        let read = TabMap::read(stored(&TabMap::default(), &notes).as_bytes());
        assert_eq!(read.tabs.len(), TabMap::MAX_TABS);
        // The oldest went first.
        assert!(!read.tabs.contains_key("chrome#0"));
        assert!(read.tabs.contains_key("chrome#519"));
    }
}
