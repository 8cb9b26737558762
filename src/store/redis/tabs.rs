//! The Redis store's tab map (one key, changed in a transaction) and call
//! records (an agent's hash, or a key per call).

use super::*;
use crate::store::{CallRecord, TabMap, Tabs};

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

impl Tabs for RedisStore {
    fn tabs(&self) -> Result<TabMap> {
        if let Some(raw) = lock(&self.tabs_read).take() {
            return Ok(raw.map_or_else(TabMap::default, |t| TabMap::read(t.as_bytes())));
        }
        let raw: Option<String> =
            self.inner.run(
                |c| match redis::cmd("GET").arg(format!("{PREFIX}tabs")).query(c) {
                    Err(e) if e.code() == Some("WRONGTYPE") => Ok(None),
                    r => r,
                },
            )?;
        Ok(raw.map_or_else(TabMap::default, |t| TabMap::read(t.as_bytes())))
    }

    fn change_tabs(&self, change: &dyn Fn(&mut TabMap) -> bool) -> Result<()> {
        let key = format!("{PREFIX}tabs");
        self.inner.run(|c| {
            redis::transaction(c, &[&key], |c, pipe| {
                let raw: Option<String> = match redis::cmd("GET").arg(&key).query(c) {
                    Ok(r) => r,
                    // Not a string: replaced below, as the file store sets
                    // aside what is not a file.
                    Err(e) if e.code() == Some("WRONGTYPE") => None,
                    Err(e) => return Err(e),
                };
                let mut map = raw.map_or_else(TabMap::default, |t| TabMap::read(t.as_bytes()));
                if !change(&mut map) {
                    return Ok(Some(()));
                }
                let text = serde_json::to_string(&map).expect("tab map serializes");
                pipe.cmd("SET")
                    .arg(&key)
                    .arg(text)
                    .arg("PX")
                    .arg(TABS_TTL_MS)
                    .ignore()
                    .query::<Option<()>>(c)
            })
        })
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
            .run(|c| TAKE_CALL.call(c, &keys, &[PREFIX, &clock, call]))?;
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
