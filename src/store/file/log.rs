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
        // A look: a state directory that is not there yet has an empty log,
        // and is not made for it. Anything else at the path (a dangling
        // link, a file) goes through `root`, which refuses it.
        if self.root.get().is_none()
            && std::fs::symlink_metadata(&self.path)
                .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        {
            return Ok((Vec::new(), 0));
        }
        log::read(self.root()?)
    }
}
