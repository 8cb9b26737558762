//! The Redis store's tab map (one key, changed by compare-and-set) and call
//! records (an agent's hash, or a key per call).

use super::*;
use crate::store::{CallRecord, TabMap, Tabs};

/// Notes after the tab map (bytes) past which a process that changes
/// nothing of the map writes it back with them folded in: each note costs
/// every reader about half a microsecond to apply, and the fold is a write
/// sent at exit. `TAB_NOTES_MAX` in `base.lua` bounds them if no fold
/// lands.
pub(super) const TAB_NOTES_FOLD: usize = 2048;

/// An agent's slot as a hash: which call, whether it is open, its record.
fn slot_fields(record: &CallRecord) -> [(&'static str, String); 3] {
    [
        ("call", record.call.clone()),
        ("open", "1".to_owned()),
        (
            "record",
            serde_json::to_string(record).expect("record serializes"),
        ),
    ]
}

impl RedisStore {
    /// The tab map's text: as a script read it along with its step, once,
    /// or from the server.
    fn tabs_raw(&self) -> Result<Option<String>> {
        match lock(&self.tabs_read).take() {
            Some(raw) => Ok(raw),
            None => self.read_tabs(),
        }
    }

    fn read_tabs(&self) -> Result<Option<String>> {
        let key = format!("{PREFIX}tabs");
        self.inner
            .run(|c| match redis::cmd("GET").arg(&key).query(c) {
                // Not a string: no map (replaced on the next write, as the file
                // store sets aside what is not a file).
                Err(e) if e.code() == Some("WRONGTYPE") => Ok(None),
                r => r,
            })
    }

    /// Apply `change` to the map read as `raw`, and write it back if it
    /// changed and nobody wrote it since; else again on what is there now.
    /// A map unchanged but with notes of at least [`TAB_NOTES_FOLD`] bytes
    /// is written back with them folded in, without waiting: if someone
    /// wrote it since, the notes stay for the next event to fold.
    fn set_tabs(
        &self,
        mut raw: Option<String>,
        change: &dyn Fn(&mut TabMap) -> bool,
    ) -> Result<()> {
        let key = format!("{PREFIX}tabs");
        let clock = self.inner.clock_arg();
        // A map a script read along is stale once this writes.
        lock(&self.tabs_read).take();
        loop {
            let mut map = raw
                .as_deref()
                .map_or_else(TabMap::default, |t| TabMap::read(t.as_bytes()));
            let changed = change(&mut map);
            let fold = raw.as_deref().is_some_and(|t| {
                t.find('\n')
                    .is_some_and(|at| t.len() - at >= TAB_NOTES_FOLD)
            });
            if !changed && !fold {
                return Ok(());
            }
            let text = serde_json::to_string(&map).expect("tab map serializes");
            // The crate's SHA-1 of a script's text, here of the map's.
            let seen = raw
                .as_deref()
                .map_or_else(String::new, |t| redis::Script::new(t).get_hash().to_owned());
            let args = [PREFIX, &clock, &seen, &text];
            if !changed {
                self.inner
                    .defer(&SET_TABS.deferred(&self.inner, &[&key], &args));
                return Ok(());
            }
            let r: Reply = self.inner.script(&SET_TABS, &[&key], &args)?;
            if r.int(0) == 1 {
                return Ok(());
            }
            raw = r.opt_text(1);
        }
    }
}

impl Tabs for RedisStore {
    fn tabs(&self) -> Result<TabMap> {
        let raw = self.tabs_raw()?;
        Ok(raw.map_or_else(TabMap::default, |t| TabMap::read(t.as_bytes())))
    }

    fn update_tabs(&self, f: &dyn Fn(&mut TabMap)) -> Result<()> {
        let raw = self.tabs_raw()?;
        self.set_tabs(raw, &|map| map.change(f))
    }

    fn change_tabs(&self, change: &dyn Fn(&mut TabMap) -> bool) -> Result<()> {
        let raw = self.read_tabs()?;
        self.set_tabs(raw, change)
    }

    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()> {
        match agent {
            Some(agent) => {
                let key = self.inner.key("agent", agent);
                let fields = slot_fields(record);
                self.inner.run(|c| {
                    redis::pipe()
                        .atomic()
                        .cmd("DEL")
                        .arg(&key)
                        .ignore()
                        .cmd("HSET")
                        .arg(&key)
                        .arg(&fields)
                        .ignore()
                        .cmd("PEXPIRE")
                        .arg(&key)
                        .arg(AGENT_TTL_MS)
                        .ignore()
                        .query::<()>(c)
                })
            }
            None => {
                let key = self.inner.key("call", &record.call);
                let text = serde_json::to_string(record).expect("record serializes");
                self.inner.run(|c| {
                    redis::cmd("SET")
                        .arg(&key)
                        .arg(text)
                        .arg("PX")
                        .arg(CALL_TTL_MS)
                        .query::<()>(c)
                })
            }
        }
    }

    fn take_call(&self, call: &str, agent: Option<&str>) -> Result<Option<CallRecord>> {
        let call_key = self.inner.key("call", call);
        let agent_key = agent.map(|a| self.inner.key("agent", a));
        let keys: Vec<&str> = agent_key
            .iter()
            .map(String::as_str)
            .chain([call_key.as_str()])
            .collect();
        let clock = self.inner.clock_arg();
        let raw: Option<String> = self
            .inner
            .script(&TAKE_CALL, &keys, &[PREFIX, &clock, call])?;
        Ok(raw.and_then(|t| serde_json::from_str(&t).ok()))
    }

    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>> {
        let key = self.inner.key("agent", agent);
        let got: (Option<String>, Option<String>) = self.inner.run(|c| {
            match redis::cmd("HMGET")
                .arg(&key)
                .arg("open")
                .arg("record")
                .query(c)
            {
                // Not a hash: no open call, as a torn slot file reads.
                Err(e) if e.code() == Some("WRONGTYPE") => Ok((None, None)),
                r => r,
            }
        })?;
        Ok(match got {
            (Some(open), Some(record)) if open == "1" => serde_json::from_str(&record).ok(),
            _ => None,
        })
    }
}
