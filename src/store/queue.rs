//! The queue of a site and the leases of a call that waits for several
//! sites: what a waiter holds, and how it is freed when its process dies or
//! stops (see the `store` module).

use crate::{error::Result, pacing::clock::Mono};

/// A caller could not reach the head of a site's queue before its deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueTimeout {
    /// How many callers were still ahead of it.
    pub ahead: usize,
}

/// A place in a site's queue. Dropping it leaves the queue.
pub trait Place: Send {
    /// The place's ticket number (arrival order), for the log.
    fn ticket(&self) -> u64;
    /// Whether the place is still this caller's: `false` once it was
    /// reclaimed while the process was stopped.
    fn still_held(&self) -> Result<bool>;
}

/// Ties holds taken while a call still waits for other sites to this
/// process: they lapse when it dies or stops. Dropping it ends the lease.
pub trait Lease: Send {
    /// The id stored with each hold it keeps.
    fn id(&self) -> &str;
}

/// Each site's FIFO queue of waiting callers, and the leases of calls that
/// wait for more than one site.
pub trait Queue: Send + Sync {
    /// Whether nobody is waiting in `site`'s queue.
    fn queue_is_empty(&self, site: &str) -> Result<bool>;

    /// How many callers wait in `site`'s queue: live places only, the ones
    /// the gate would wait on (not a killed waiter's, left for the next
    /// caller to clear).
    fn queue_len(&self, site: &str) -> Result<usize>;

    /// Join `site`'s queue and return once every caller that joined earlier
    /// has left it (or was reclaimed), or give up at `deadline`.
    fn join_queue(
        &self,
        site: &str,
        deadline: Mono,
    ) -> Result<Result<Box<dyn Place>, QueueTimeout>>;

    /// A lease for holds taken while a call waits for its other sites.
    fn lease(&self) -> Result<Box<dyn Lease>>;
}
