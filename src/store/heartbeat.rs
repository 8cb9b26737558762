//! One thread per process that renews whatever keeps this process's places
//! and leases alive, every [`super::RENEW_EVERY`].
//!
//! It is the *absence* of renewals that frees a place: a process that dies or
//! is stopped (SIGSTOP, Ctrl-Z) stops renewing along with all its threads, and
//! other callers reclaim its places after [`super::LEASE_TTL`]. A process that
//! never waits never starts the thread.

use std::{
    sync::{Arc, Mutex, OnceLock},
    thread,
};

type Renew = Arc<dyn Fn() + Send + Sync>;

struct Beats {
    next: u64,
    renewals: Vec<(u64, Renew)>,
}

fn beats() -> &'static Mutex<Beats> {
    static BEATS: OnceLock<Mutex<Beats>> = OnceLock::new();
    BEATS.get_or_init(|| {
        thread::Builder::new()
            .name("pace-hook-heartbeat".into())
            .spawn(|| {
                loop {
                    thread::sleep(super::RENEW_EVERY);
                    let now: Vec<Renew> = beats()
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .renewals
                        .iter()
                        .map(|(_, r)| r.clone())
                        .collect();
                    for renew in now {
                        renew();
                    }
                }
            })
            // Without the thread, places are never renewed and others reclaim
            // them after the TTL: fairness suffers, gaps do not.
            .ok();
        Mutex::new(Beats {
            next: 0,
            renewals: Vec::new(),
        })
    })
}

/// Renewal of one place or lease; dropping it stops the renewals.
pub(crate) struct Registration(u64);

/// Call `renew` every [`super::RENEW_EVERY`] until the registration drops.
pub(crate) fn register(renew: impl Fn() + Send + Sync + 'static) -> Registration {
    let mut b = beats().lock().unwrap_or_else(|p| p.into_inner());
    b.next += 1;
    let id = b.next;
    b.renewals.push((id, Arc::new(renew)));
    Registration(id)
}

impl Drop for Registration {
    fn drop(&mut self) {
        beats()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .renewals
            .retain(|(id, _)| *id != self.0);
    }
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Registration({})", self.0)
    }
}
