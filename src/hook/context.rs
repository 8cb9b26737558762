//! What the hook runs on: its config, its store and its clock, handed to it.
//! The hook itself discovers nothing and opens nothing, so one event can be
//! run in-process on a fake clock and an in-memory store (the timeline tests
//! in `hook::tests`) exactly as the binary runs it on the system's.
//!
//! Everything is asked for only when needed: a skip reads no config and
//! opens no store, which is most of why it costs what a bare process costs.

use crate::{
    config::Config,
    error::{Error, Result},
    pacing::{clock::Clock, log::Record},
    store::Store,
};

/// The surroundings of one hook event.
pub(crate) trait Context {
    /// The config, read on first use.
    fn config(&self) -> Result<&Config>;
    /// The store `config` points at.
    fn open_store(&self, config: &Config) -> Result<Box<dyn Store>>;
    /// This machine's own gate, for a call whose shared gate failed midway
    /// (`on_backend_error = "local"`); `error` is what the shared one said.
    fn local_store(&self, config: &Config, error: &Error) -> Result<Box<dyn Store>>;
    /// Append `record` to the gate log without a store: skips and unknown
    /// tools. `create` says whether the state directory may be made for it.
    fn log_light(&self, record: &Record, create: bool);
    /// The clock, for what is stamped before a store is open.
    fn clock(&self) -> &dyn Clock;
}

/// An in-process context for tests: one config, one in-memory store (each
/// event a fresh "process" on it), a fake clock.
#[cfg(test)]
pub(crate) struct Memory {
    pub(crate) config: Config,
    pub(crate) store: crate::store::MemoryStore,
    pub(crate) clock: std::sync::Arc<crate::pacing::clock::FakeClock>,
}

#[cfg(test)]
impl Memory {
    /// A context on `config`, its store and clock starting at `start`.
    pub(crate) fn new(config: Config, start: u64) -> Self {
        let clock = std::sync::Arc::new(crate::pacing::clock::FakeClock::new(start));
        let store = crate::store::MemoryStore::new(
            clock.clone(),
            crate::gate::requests::policy_of(&config, None),
        );
        Self {
            config,
            store,
            clock,
        }
    }
}

#[cfg(test)]
impl Context for Memory {
    fn config(&self) -> Result<&Config> {
        Ok(&self.config)
    }
    fn open_store(&self, _: &Config) -> Result<Box<dyn Store>> {
        Ok(Box::new(self.store.process()))
    }
    fn local_store(&self, _: &Config, _: &Error) -> Result<Box<dyn Store>> {
        Ok(Box::new(self.store.process()))
    }
    fn log_light(&self, record: &Record, _create: bool) {
        crate::store::Log::log(&self.store, record);
    }
    fn clock(&self) -> &dyn Clock {
        &*self.clock
    }
}
