//! The memory store's queues and leases, with explicit liveness.

use std::collections::BTreeMap;

use super::{Life, MemoryStore};
use crate::{
    error::Result,
    pacing::clock::Mono,
    store::{Lease, Place, Queue, QueueTimeout, RENEW_EVERY},
};

struct MemPlace {
    store: MemoryStore,
    site: String,
    seq: u64,
}

impl Place for MemPlace {
    fn ticket(&self) -> u64 {
        self.seq
    }
    fn still_held(&self) -> Result<bool> {
        Ok(self
            .store
            .inner()
            .queues
            .get(&self.site)
            .is_some_and(|q| q.iter().any(|(s, _)| *s == self.seq)))
    }
}

impl Drop for MemPlace {
    fn drop(&mut self) {
        // A dead process does not get to clean up: others reclaim its place.
        let mut inner = self.store.inner();
        if inner.owners.get(&self.store.owner) == Some(&Life::Dead) {
            return;
        }
        if let Some(q) = inner.queues.get_mut(&self.site) {
            q.retain(|(s, _)| *s != self.seq);
        }
    }
}

struct MemLease {
    id: String,
}

impl Lease for MemLease {
    fn id(&self) -> &str {
        &self.id
    }
}

impl Queue for MemoryStore {
    fn queue_is_empty(&self, site: &str) -> Result<bool> {
        Ok(self.queue_len(site)? == 0)
    }

    fn queue_len(&self, site: &str) -> Result<usize> {
        Ok(self.inner().queues.get(site).map_or(0, Vec::len))
    }

    fn join_queue(
        &self,
        site: &str,
        deadline: Mono,
    ) -> Result<Result<Box<dyn Place>, QueueTimeout>> {
        let seq = {
            let mut inner = self.inner();
            inner.next_seq += 1;
            let seq = inner.next_seq;
            let owner = self.owner;
            inner
                .queues
                .entry(site.to_owned())
                .or_default()
                .push((seq, owner));
            seq
        };
        let place = MemPlace {
            store: self.clone(),
            site: site.to_owned(),
            seq,
        };
        loop {
            let ahead = {
                let mut inner = self.inner();
                let now = self.clock.mono();
                let lives: BTreeMap<u64, bool> = inner
                    .owners
                    .keys()
                    .map(|o| (*o, Self::alive(&inner, *o, now)))
                    .collect();
                let q = inner.queues.entry(site.to_owned()).or_default();
                q.retain(|(s, o)| *s >= seq || lives.get(o).copied().unwrap_or(false));
                q.iter().filter(|(s, _)| *s < seq).count()
            };
            if ahead == 0 {
                return Ok(Ok(Box::new(place)));
            }
            let left = self.clock.left(deadline);
            if left.is_zero() {
                return Ok(Err(QueueTimeout { ahead }));
            }
            self.clock.sleep(left.min(RENEW_EVERY));
        }
    }

    fn lease(&self) -> Result<Box<dyn Lease>> {
        self.inner().leases += 1;
        Ok(Box::new(MemLease {
            id: self.owner.to_string(),
        }))
    }
}
