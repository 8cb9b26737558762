//! The Redis store's gate log: the local file, and the shared stream.

use super::*;
use crate::{pacing::log::append, store::Log};

impl Log for RedisStore {
    fn log(&self, record: &Record) {
        if let Ok(root) = self.root() {
            append(root, record);
        }
        if matches!(
            record.event,
            Kind::Admit | Kind::Finish | Kind::GiveUp | Kind::Block | Kind::Backend
        ) && let Ok(line) = serde_json::to_string(record)
        {
            // Best effort, as the file log is: sent with the next command
            // or last, without waiting for the answer.
            self.inner.defer(
                redis::cmd("XADD")
                    .arg(format!("{PREFIX}log"))
                    .arg("MAXLEN")
                    .arg("~")
                    .arg(LOG_MAX)
                    .arg("*")
                    .arg("r")
                    .arg(line),
            );
        }
    }

    fn read_log(&self) -> Result<(Vec<Record>, usize)> {
        let key = format!("{PREFIX}log");
        let mut records = Vec::new();
        let mut bad = 0;
        let mut from = "-".to_owned();
        loop {
            let page: Vec<(String, Vec<String>)> = self.inner.run(|c| {
                redis::cmd("XRANGE")
                    .arg(&key)
                    .arg(&from)
                    .arg("+")
                    .arg("COUNT")
                    .arg(1000)
                    .query(c)
            })?;
            let Some((last, _)) = page.last() else { break };
            from = format!("({last}");
            for (_, fields) in &page {
                let line = fields
                    .chunks(2)
                    .find(|kv| kv[0] == "r")
                    .and_then(|kv| kv.get(1));
                match line.and_then(|l| serde_json::from_str::<Record>(l).ok()) {
                    Some(r) => records.push(r),
                    None => bad += 1,
                }
            }
            if page.len() < 1000 {
                break;
            }
        }
        Ok((records, bad))
    }
}
