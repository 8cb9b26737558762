//! The memory store's gate log: a list of records.

use super::MemoryStore;
use crate::{error::Result, pacing::log::Record, store::Log};

impl Log for MemoryStore {
    fn log(&self, record: &Record) {
        self.inner().log.push(record.clone());
    }

    fn read_log(&self) -> Result<(Vec<Record>, usize)> {
        Ok((self.records(), 0))
    }
}
