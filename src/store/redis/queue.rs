//! The Redis store's queues and leases: keys with a time to live, renewed
//! by the heartbeat, and wake-up lists for the waiters.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use super::*;
use crate::store::{Lease, Place, Queue, QueueTimeout};

impl RedisStore {
    pub(super) fn queue_key(&self, site: &str) -> String {
        self.inner.key("queue", site)
    }

    fn ahead(&self, site: &str, ticket: Option<u64>) -> Result<usize> {
        let queue = self.queue_key(site);
        let clock = self.inner.clock_arg();
        let ticket = ticket.map_or_else(|| "all".to_owned(), |t| t.to_string());
        let stale = self.settings.stale_after_ms.to_string();
        let n: i64 = self
            .inner
            .script(&AHEAD, &[&queue], &[PREFIX, &clock, &ticket, &stale])?;
        Ok(n.max(0) as usize)
    }
}

/// A place in a site's queue: a key renewed by the heartbeat.
struct RedisPlace {
    inner: Arc<Inner>,
    queue: String,
    ticket: u64,
    /// When the key was last known to be there with a fresh time to live:
    /// joined, or renewed by the heartbeat.
    alive_at: Arc<Mutex<Instant>>,
    _beat: heartbeat::Registration,
}

/// A place known to have been there this recently is still there: its key
/// then had [`LEASE_TTL`] to live, and within `max_wait` (shorter than
/// `stale_after`) nobody but its owner removes a place whose key lives.
const KNOWN_ALIVE: Duration = LEASE_TTL.saturating_sub(RENEW_EVERY.saturating_mul(2));

impl Place for RedisPlace {
    fn ticket(&self) -> u64 {
        self.ticket
    }

    /// Asked before every look at the site, also the one right at the due
    /// time: answered from the heartbeat's last renewal while that is
    /// recent, which saves a round trip between the due time and the
    /// admission; asked of the server after a stop, when it is not.
    fn still_held(&self) -> Result<bool> {
        if lock(&self.alive_at).elapsed() < KNOWN_ALIVE {
            return Ok(true);
        }
        let key = self.inner.key("place", &self.ticket.to_string());
        let held = self
            .inner
            .run(|c| redis::cmd("EXISTS").arg(&key).query::<i64>(c))
            .map(|n| n == 1)?;
        if held {
            *lock(&self.alive_at) = Instant::now();
        }
        Ok(held)
    }
}

impl Drop for RedisPlace {
    fn drop(&mut self) {
        // Best effort, without waiting: a place that cannot be removed
        // lapses on its own. The gate drops the place of an admitted call
        // last, so this goes out with the process's last writes.
        self.inner.defer(
            redis::cmd("EVAL")
                .arg(LEAVE_SRC)
                .arg(1)
                .arg(&self.queue)
                .arg(PREFIX)
                .arg(self.inner.clock_arg())
                .arg(self.ticket),
        );
    }
}

/// A lease: a key renewed by the heartbeat, deleted when dropped.
struct RedisLease {
    inner: Arc<Inner>,
    id: String,
    _beat: heartbeat::Registration,
}

impl Lease for RedisLease {
    fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for RedisLease {
    fn drop(&mut self) {
        let key = self.inner.key("lease", &self.id);
        let _ = self
            .inner
            .run(|c| redis::cmd("DEL").arg(&key).query::<i64>(c));
    }
}

impl Queue for RedisStore {
    fn queue_is_empty(&self, site: &str) -> Result<bool> {
        Ok(self.queue_len(site)? == 0)
    }

    fn queue_len(&self, site: &str) -> Result<usize> {
        self.ahead(site, None)
    }

    fn join_queue(
        &self,
        site: &str,
        deadline: Mono,
    ) -> Result<Result<Box<dyn Place>, QueueTimeout>> {
        let queue = self.queue_key(site);
        let last = format!("{PREFIX}ticket");
        let clock = self.inner.clock_arg();
        let ttl = (LEASE_TTL.as_millis() as u64).to_string();
        let stale = self.settings.stale_after_ms.to_string();
        let (ticket, mut ahead): (u64, usize) =
            self.inner
                .script(&JOIN, &[&queue, &last], &[PREFIX, &clock, &ttl, &stale])?;
        let alive_at = Arc::new(Mutex::new(Instant::now()));
        let place = RedisPlace {
            _beat: keep_place_alive(
                &self.inner,
                self.inner.key("place", &ticket.to_string()),
                alive_at.clone(),
            ),
            inner: self.inner.clone(),
            queue,
            ticket,
            alive_at,
        };
        let wake = self.inner.key("wake", &ticket.to_string());
        // The first look was made by the join.
        loop {
            if ahead == 0 {
                return Ok(Ok(Box::new(place)));
            }
            let left = self.clock().left(deadline);
            if left.is_zero() {
                return Ok(Err(QueueTimeout { ahead }));
            }
            self.inner.block_pop(&wake, left.min(QUEUE_BACKSTOP))?;
            ahead = self.ahead(site, Some(ticket))?;
        }
    }

    fn lease(&self) -> Result<Box<dyn Lease>> {
        let id = format!(
            "{:016x}{:016x}",
            crate::pacing::request::random_u64(),
            crate::pacing::request::random_u64()
        );
        let key = self.inner.key("lease", &id);
        self.inner.run(|c| {
            redis::cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("PX")
                .arg(LEASE_TTL.as_millis() as u64)
                .query::<()>(c)
        })?;
        Ok(Box::new(RedisLease {
            _beat: keep_alive(&self.inner, key),
            inner: self.inner.clone(),
            id,
        }))
    }
}
