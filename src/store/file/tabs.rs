//! The file store's tab map (`tabs.json` under `tabs.lock`) and call records
//! (an agent's slot, rewritten in place; a file per call with no agent).

use std::{
    io::{ErrorKind, Read},
    os::unix::fs::FileExt,
};

use super::{FileStore, LOCK_WAIT, nanos, sweep};
use crate::{
    error::{Error, Result},
    key,
    state_dir::Mode,
    store::{CallRecord, TabMap, Tabs},
};

impl FileStore {
    fn slot_path(&self, agent: &str) -> String {
        key::file_name(agent)
    }

    /// Rewrite `agent`'s slot in place, padded with blanks over whatever it
    /// held: a new file per call, or a rename, makes ext4 start writing the
    /// data out at once, which costs more than the rest of the event. Only
    /// the agent itself writes its slot, one call at a time.
    fn write_slot(&self, agent: &str, record: &CallRecord, open: bool) -> Result<()> {
        let agents = self.root()?.sub("agents", true)?.expect("made");
        let name = self.slot_path(agent);
        let slot = AgentSlot {
            record: record.clone(),
            open,
        };
        let file = match agents.open(&name, Mode::Write) {
            Ok(f) => f,
            Err(e) if e.raw_os_error() == Some(libc::EISDIR) => {
                // Tampered: a directory where the slot goes. Only this agent
                // writes here, so setting it aside is safe.
                let aside = format!(".{name}.lost-{}", nanos());
                agents
                    .rename(&name, &agents, &aside)
                    .map_err(|e| agents.refuse(&name, e, "replace"))?;
                agents
                    .open(&name, Mode::Write)
                    .map_err(|e| agents.refuse(&name, e, "open"))?
            }
            Err(e) => return Err(agents.refuse(&name, e, "open")),
        };
        let old = file.metadata().map(|m| m.len() as usize).unwrap_or(0);
        let mut bytes = serde_json::to_vec(&slot).expect("slot serializes");
        bytes.push(b'\n');
        if bytes.len() < old {
            bytes.resize(old, b' ');
        }
        file.write_all_at(&bytes, 0)
            .map_err(|e| Error::io("write", agents.join(&name), e))?;
        let now = record.started_ms;
        if open && now.is_multiple_of(64) {
            sweep(&agents, now, 7 * 24 * 3_600_000);
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
            Ok(mut f) => {
                let mut bytes = Vec::new();
                f.read_to_end(&mut bytes)
                    .map_err(|e| Error::io("read", root.join("tabs.json"), e))?;
                Ok(TabMap::read(&bytes))
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
        if let Err(e) = root.open("tabs.json", Mode::Read)
            && e.kind() != ErrorKind::NotFound
        {
            // Not a file: set it aside (under the lock) so the map can be kept.
            let aside = format!("tabs.json.lost-{}", nanos());
            root.rename("tabs.json", root, &aside)
                .map_err(|e| root.refuse("tabs.json", e, "replace"))?;
        }
        let mut map = self.tabs()?;
        if change(&mut map) {
            let mut bytes = serde_json::to_vec(&map).expect("tab map serializes");
            bytes.push(b'\n');
            root.write_atomic("tabs.json", &bytes)?;
        }
        Ok(())
    }

    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()> {
        if let Some(agent) = agent {
            return self.write_slot(agent, record, true);
        }
        let calls = self.root()?.sub("calls", true)?.expect("made");
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
            sweep(&calls, record.started_ms, 24 * 3_600_000);
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
        let Some(calls) = self.root()?.sub("calls", false)? else {
            return Ok(None);
        };
        let name = format!("{}.json", key::file_name(call));
        let mut f = match calls.open(&name, Mode::Read) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(calls.refuse(&name, e, "read")),
        };
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)
            .map_err(|e| Error::io("read", calls.join(&name), e))?;
        let _ = calls.unlink(&name, false);
        Ok(serde_json::from_slice(&bytes).ok())
    }

    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>> {
        let Some(agents) = self.root()?.sub("agents", false)? else {
            return Ok(None);
        };
        let name = self.slot_path(agent);
        match agents.open(&name, Mode::Read) {
            // A slot that does not parse (torn by a power cut) holds no open
            // call: the call's hold then runs its course.
            Ok(mut f) => {
                let mut bytes = Vec::new();
                f.read_to_end(&mut bytes)
                    .map_err(|e| Error::io("read", agents.join(&name), e))?;
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
