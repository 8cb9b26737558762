//! pace-hook: a hook for coding agents that spaces their requests to each
//! site, shared by every process on the machine, or by every machine pointed
//! at one Redis server.
//!
//! The modules follow the flow of one event, top to bottom, and each imports
//! only from those below it (ARCHITECTURE.md; `tests/architecture.rs` keeps
//! it true):
//!
//! | layer | what it does |
//! |---|---|
//! | [`commands`], [`Pacer`] | the entry points: discover the config, open a store, choose an exit code |
//! | `hook` | one event in, a verdict out |
//! | `read` | the readers: tool profiles, URLs, scripts, tab listings; pure |
//! | [`gate`] | waits for a site's turn and records it, over a store |
//! | [`store`] | where the shared state lives: files, memory, Redis |
//! | [`pacing`] | the pure rules: the decision, the clock, the log's records and their checker |
//! | [`config`] | the user's settings, as data |
//! | [`error`], [`exit`], [`duration`], `key`, `state_dir` | the foundation every layer uses |
//!
//! The library's API is [`Pacer`] and [`Permit`] (a program's requests in
//! the same queues as the agent's), and the pieces the gate is proved with:
//! the [`gate`] over any [`store`], the pure [`decision`], the [`clock`]
//! with its fake, and [`gaps`], the log's checker.

pub mod commands;
pub(crate) mod hook;
pub mod pacer;
pub(crate) mod read;

pub mod gate;
pub mod store;

pub mod pacing;

pub mod config;

pub mod duration;
pub mod error;
pub mod exit;
pub(crate) mod key;
pub(crate) mod names;
pub(crate) mod state_dir;

/// The fuzz targets' entry points (`fuzz/`), built only for the fuzz crate
/// (feature `fuzz`) and for the tests that run their seeds.
#[cfg(any(test, feature = "fuzz"))]
#[doc(hidden)]
pub mod fuzz;

pub use commands::run;
pub use error::{Error, Result};
pub use exit::Exit;
pub use pacer::{Pacer, Permit};
pub use pacing::{clock, decision, gaps, log};
