//! The pure rules of pacing: the decision over a site's state and the one
//! step every store applies to it, the clock it is read with, the gate log's
//! records and the checker that replays them.
//! Nothing here does I/O or reads the system clock, except [`clock`]'s
//! system implementation.

pub mod clock;
pub mod decision;
pub mod gaps;
pub mod log;
pub mod request;
pub mod step;
pub(crate) mod when;
