//! The file store's tab map (`tabs.json` under `tabs.lock`) and call records
//! (an agent's slot, rewritten in place; a file per call with no agent).

use std::{io::ErrorKind, os::unix::fs::FileExt};

use super::{FileStore, LOCK_WAIT, Sub, nanos, sweep};
use crate::{
    error::{Error, Result},
    key,
    state_dir::{self, Mode},
    store::{CallRecord, TabMap, Tabs},
};

/// Blanks a rewritten tab map may keep after its end before the file is cut
/// to its length.
const TABS_SLACK: usize = 64 * 1024;

/// How long a reader of the tab map waits for its lock before reading
/// without it: writers hold it for microseconds.
const TABS_READ_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

impl FileStore {
    /// `tabs.lock`, if it can be had within [`TABS_READ_WAIT`].
    fn lock_for_reading(&self, root: &state_dir::Dir) -> Option<std::fs::File> {
        self.lock(root, "tabs.lock", self.clock.mono().after(TABS_READ_WAIT))
            .ok()
    }

    fn slot_path(&self, agent: &str) -> String {
        key::file_name(agent)
    }

    /// Rewrite `agent`'s slot in place, padded with blanks over whatever it
    /// held: a new file per call, or a rename, makes ext4 start writing the
    /// data out at once, which costs more than the rest of the event. Only
    /// the agent itself writes its slot, one call at a time.
    fn write_slot(&self, agent: &str, record: &CallRecord, open: bool) -> Result<()> {
        let agents = self.sub(Sub::Agents, true)?.expect("made");
        let name = self.slot_path(agent);
        let slot = AgentSlot {
            record: record.clone(),
            open,
        };
        let (file, old) = match agents.open_sized(&name, Mode::Write) {
            Ok(opened) => opened,
            Err(e) if e.raw_os_error() == Some(libc::EISDIR) => {
                // Tampered: a directory where the slot goes. Only this agent
                // writes here, so setting it aside is safe.
                let aside = format!(".{name}.lost-{}", nanos());
                agents
                    .rename(&name, agents, &aside)
                    .map_err(|e| agents.refuse(&name, e, "replace"))?;
                agents
                    .open_sized(&name, Mode::Write)
                    .map_err(|e| agents.refuse(&name, e, "open"))?
            }
            Err(e) => return Err(agents.refuse(&name, e, "open")),
        };
        let mut bytes = serde_json::to_vec(&slot).expect("slot serializes");
        bytes.push(b'\n');
        let written = (|| {
            // A slot far larger than any record was planted: cut it, rather
            // than pad with gigabytes of blanks.
            if old > state_dir::READ_LIMIT {
                file.set_len(0)?;
            } else if (bytes.len() as u64) < old {
                bytes.resize(old as usize, b' ');
            }
            file.write_all_at(&bytes, 0)
        })();
        written.map_err(|e| Error::io("write", agents.join(&name), e))?;
        let now = record.started_ms;
        if open && now.is_multiple_of(64) {
            sweep(agents, now, 7 * 24 * 3_600_000);
        }
        Ok(())
    }
}

/// An agent's last admitted call, and whether a finish has taken it yet.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct AgentSlot {
    /// The call.
    #[serde(flatten)]
    pub(crate) record: CallRecord,
    /// No finish has taken it yet.
    pub(crate) open: bool,
}

impl Tabs for FileStore {
    fn tabs(&self) -> Result<TabMap> {
        let root = self.root()?;
        match root.open("tabs.json", Mode::Read) {
            Ok(f) => {
                // The map is written in place under `tabs.lock`; read under
                // it too, so that a write half done is never read. A lock
                // not had within a moment (a holder stopped, a directory
                // planted there) leaves the read unlocked, as it always was.
                let _lock = self.lock_for_reading(root);
                let mut bytes = Vec::new();
                match state_dir::read_all(&f, &mut bytes) {
                    Ok(_) => Ok(TabMap::read(&bytes)),
                    // Planted: unknown tabs, as below; the next update sets
                    // it aside.
                    Err(e) if e.kind() == ErrorKind::FileTooLarge => Ok(TabMap::default()),
                    Err(e) => Err(Error::io("read", root.join("tabs.json"), e)),
                }
            }
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(TabMap::default()),
            // A directory or link planted there: unknown tabs, as an
            // unreadable map is; the next update sets it aside.
            Err(_) => Ok(TabMap::default()),
        }
    }

    fn change_tabs(&self, change: &dyn Fn(&mut TabMap) -> bool) -> Result<()> {
        let root = self.root()?;
        let _lock = self.lock(root, "tabs.lock", self.clock.mono().after(LOCK_WAIT))?;
        // Not a file, or one too large to be a map: set it aside (under the
        // lock) so the map can be kept.
        let set_aside = || {
            let aside = format!("tabs.json.lost-{}", nanos());
            root.rename("tabs.json", root, &aside)
                .map_err(|e| root.refuse("tabs.json", e, "replace"))?;
            root.open("tabs.json", Mode::ReadWrite)
                .map_err(|e| root.refuse("tabs.json", e, "open"))
        };
        let mut file = match root.open("tabs.json", Mode::ReadWrite) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(Error::io("open", root.join("tabs.json"), e));
            }
            Err(_) => set_aside()?,
        };
        let mut old = Vec::new();
        if let Err(e) = state_dir::read_all(&file, &mut old) {
            if e.kind() != ErrorKind::FileTooLarge {
                return Err(Error::io("read", root.join("tabs.json"), e));
            }
            file = set_aside()?;
        }
        let mut map = TabMap::read(&old);
        if change(&mut map) {
            // In place, padded with blanks (which JSON reads as space) over
            // what it held, as an agent's slot is: a temp file renamed over
            // it made ext4 write the data out at once (`auto_da_alloc`),
            // 170 µs against 21 µs here, on every navigate to a new host.
            // Readers take the lock, so none sees it half written; a power
            // cut can tear it, and a torn map reads as unknown tabs.
            let mut bytes = serde_json::to_vec(&map).expect("tab map serializes");
            bytes.push(b'\n');
            let shrink = old.len() > bytes.len() + TABS_SLACK;
            if !shrink && bytes.len() < old.len() {
                bytes.resize(old.len(), b' ');
            }
            file.write_all_at(&bytes, 0)
                .map_err(|e| Error::io("write", root.join("tabs.json"), e))?;
            if shrink {
                file.set_len(bytes.len() as u64)
                    .map_err(|e| Error::io("write", root.join("tabs.json"), e))?;
            }
        }
        Ok(())
    }

    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()> {
        if let Some(agent) = agent {
            return self.write_slot(agent, record, true);
        }
        let calls = self.sub(Sub::Calls, true)?.expect("made");
        let name = format!("{}.json", key::file_name(&record.call));
        let mut bytes = serde_json::to_vec(record).expect("record serializes");
        bytes.push(b'\n');
        // A new file under a name of its own, read only after this process
        // has exited: no temp file and rename needed.
        calls
            .open(&name, Mode::Replace)
            .and_then(|f| f.write_all_at(&bytes, 0))
            .map_err(|e| calls.refuse(&name, e, "write"))?;
        // Calls whose Post never came leave a record behind; sweep old ones
        // now and then rather than on every event.
        if record.started_ms.is_multiple_of(64) {
            sweep(calls, record.started_ms, 24 * 3_600_000);
        }
        Ok(())
    }

    fn take_call(&self, call: &str, agent: Option<&str>) -> Result<Option<CallRecord>> {
        if let Some(agent) = agent
            && let Some(open) = self.open_call_of(agent)?
            && open.call == call
        {
            self.write_slot(agent, &open, false)?;
            return Ok(Some(open));
        }
        let Some(calls) = self.sub(Sub::Calls, false)? else {
            return Ok(None);
        };
        let name = format!("{}.json", key::file_name(call));
        let f = match calls.open(&name, Mode::Read) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(calls.refuse(&name, e, "read")),
        };
        let mut bytes = Vec::new();
        let read = state_dir::read_all(&f, &mut bytes);
        let _ = calls.unlink(&name, false);
        match read {
            Ok(_) => Ok(serde_json::from_slice(&bytes).ok()),
            // Planted: no record, as one that does not parse; the call's
            // holds run their course.
            Err(e) if e.kind() == ErrorKind::FileTooLarge => Ok(None),
            Err(e) => Err(Error::io("read", calls.join(&name), e)),
        }
    }

    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>> {
        let Some(agents) = self.sub(Sub::Agents, false)? else {
            return Ok(None);
        };
        let name = self.slot_path(agent);
        match agents.open(&name, Mode::Read) {
            // A slot that does not parse (torn by a power cut) or is too
            // large to be one (planted) holds no open call: the call's hold
            // then runs its course.
            Ok(f) => {
                let mut bytes = Vec::new();
                match state_dir::read_all(&f, &mut bytes) {
                    Ok(_) => {}
                    Err(e) if e.kind() == ErrorKind::FileTooLarge => return Ok(None),
                    Err(e) => return Err(Error::io("read", agents.join(&name), e)),
                }
                Ok(serde_json::from_slice::<AgentSlot>(&bytes)
                    .ok()
                    .filter(|s| s.open)
                    .map(|s| s.record))
            }
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            // A directory there is healed by the next write of the slot.
            Err(e) if e.raw_os_error() == Some(libc::EISDIR) => Ok(None),
            Err(e) => Err(agents.refuse(&name, e, "read")),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use super::*;
    use crate::store::{Options, TabEntry};

    fn store(name: &str) -> FileStore {
        let dir =
            std::env::temp_dir().join(format!("pace-hook-tabs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        FileStore::open(dir, Options::default()).unwrap()
    }

    fn set(s: &FileStore, tabs: &[(&str, &str)]) {
        let tabs: Vec<(String, String)> = tabs
            .iter()
            .map(|(k, h)| (k.to_string(), h.to_string()))
            .collect();
        s.change_tabs(&|m| {
            m.tabs = tabs
                .iter()
                .map(|(k, h)| {
                    let entry = TabEntry {
                        hosts: vec![h.clone()],
                        history: Vec::new(),
                        seen_ms: 1,
                    };
                    (k.clone(), entry)
                })
                .collect();
            true
        })
        .unwrap();
    }

    /// Make the file at `path` run on past the read limit (sparse).
    fn plant_huge(path: &std::path::Path) {
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.set_len(state_dir::READ_LIMIT + 1).unwrap();
    }

    #[test]
    fn a_tab_map_too_large_to_read_is_unknown_tabs_and_set_aside() {
        let s = store("huge-map");
        set(&s, &[("t#1", "a.com")]);
        plant_huge(&s.root_path().join("tabs.json"));
        assert!(s.tabs().unwrap().tabs.is_empty(), "no tab is known");
        set(&s, &[("t#2", "b.com")]);
        let map = s.tabs().unwrap();
        assert_eq!(map.tabs.keys().collect::<Vec<_>>(), ["t#2"]);
        let aside: Vec<_> = std::fs::read_dir(s.root_path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("tabs.json.lost-")
            })
            .collect();
        assert_eq!(aside.len(), 1);
        assert_eq!(
            aside[0].metadata().unwrap().len(),
            state_dir::READ_LIMIT + 1
        );
        let _ = std::fs::remove_dir_all(s.root_path());
    }

    #[test]
    fn an_agent_slot_too_large_to_read_holds_no_call_and_is_cut() {
        let s = store("huge-slot");
        let record = |call: &str| CallRecord {
            call: call.to_owned(),
            sites: vec!["a.com".to_owned()],
            started_ms: 5,
            interval_ms: 10,
        };
        s.save_call(&record("one"), Some("agent")).unwrap();
        let slot = s.root_path().join("agents").join(s.slot_path("agent"));
        plant_huge(&slot);
        assert_eq!(s.open_call_of("agent").unwrap(), None);
        s.save_call(&record("two"), Some("agent")).unwrap();
        assert!(std::fs::metadata(&slot).unwrap().len() < 1024);
        assert_eq!(s.open_call_of("agent").unwrap(), Some(record("two")));
        // A record of a call with no agent, planted past the limit: none.
        s.save_call(&record("three"), None).unwrap();
        plant_huge(&s.root_path().join("calls/three.json"));
        assert_eq!(s.take_call("three", None).unwrap(), None);
        let _ = std::fs::remove_dir_all(s.root_path());
    }

    #[test]
    fn a_tab_map_that_shrinks_in_place_reads_back_whole() {
        let s = store("shrink");
        set(
            &s,
            &[
                ("chrome#1", "a-long-host-name.example.com"),
                ("chrome#2", "b.org"),
            ],
        );
        let path = s.root_path().join("tabs.json");
        let inode = std::fs::metadata(&path).unwrap().ino();
        set(&s, &[("chrome#1", "c.net")]);
        let map = s.tabs().unwrap();
        assert_eq!(map.tabs.len(), 1);
        assert_eq!(map.tabs["chrome#1"].hosts, ["c.net"]);
        // Rewritten, not replaced: the same file, blanks after the map.
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with(' '), "{text:?}");
        // Growing again overwrites the blanks.
        set(
            &s,
            &[
                ("chrome#1", "c.net"),
                (
                    "chrome#3",
                    "a-much-longer-host-name-than-before.example.com",
                ),
            ],
        );
        assert_eq!(s.tabs().unwrap().tabs.len(), 2);
        let _ = std::fs::remove_dir_all(s.root_path());
    }

    #[test]
    fn readers_never_see_a_tab_map_half_written() {
        let s = std::sync::Arc::new(store("torn"));
        let long = "h".repeat(3000);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = {
            let (s, stop, long) = (s.clone(), stop.clone(), long.clone());
            std::thread::spawn(move || {
                let mut i = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let host = if i.is_multiple_of(2) {
                        long.as_str()
                    } else {
                        "x.com"
                    };
                    set(&s, &[("chrome#1", host)]);
                    i += 1;
                }
            })
        };
        set(&s, &[("chrome#1", "x.com")]);
        for _ in 0..2000 {
            let map = s.tabs().unwrap();
            // Every map read is one a writer wrote: never the empty map an
            // unreadable one reads as.
            let hosts = &map.tabs["chrome#1"].hosts;
            assert!(hosts[0] == "x.com" || hosts[0] == long, "{hosts:?}");
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        writer.join().unwrap();
        let _ = std::fs::remove_dir_all(s.root_path());
    }
}
