//! The file store's gate log: `gate.log`, one JSON line per record.

use super::FileStore;
use crate::{
    error::Result,
    pacing::log::{self, Record},
    store::Log,
};

impl Log for FileStore {
    fn log(&self, record: &Record) {
        if let Ok(root) = self.root() {
            log::append(root, record);
        }
    }

    fn read_log(&self) -> Result<(Vec<Record>, usize)> {
        log::read(self.root()?)
    }
}
