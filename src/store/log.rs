//! The gate log as a store keeps it.

use crate::{error::Result, pacing::log::Record};

/// The gate log.
pub trait Log: Send + Sync {
    /// Append `record` to the gate log, best effort: a full disk must not
    /// turn a call the gate admitted into a blocked one.
    fn log(&self, record: &Record);

    /// Every record of the gate log this store can see, and how many lines
    /// could not be read.
    fn read_log(&self) -> Result<(Vec<Record>, usize)>;
}
