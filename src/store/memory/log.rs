//! The memory store's gate log: a list of records.

use super::MemoryStore;
use crate::{error::Result, pacing::log::Record, store::Log};

impl Log for MemoryStore {
    fn log(&self, record: &Record) {
        let mut inner = self.inner();
        inner.log.push(record.clone());
        let stall = match inner.stall_after {
            Some((kind, d)) if kind == record.event => inner.stall_after.take().map(|_| d),
            _ => None,
        };
        drop(inner);
        if let Some(d) = stall {
            self.clock.sleep(d);
        }
    }

    fn read_log(&self) -> Result<(Vec<Record>, usize)> {
        Ok((self.records(), 0))
    }
}
