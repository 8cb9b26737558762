//! The file store's queues (a ticket lock in files) and leases (locked
//! files renewed by the heartbeat).

use std::{
    collections::HashSet,
    fs::{File, TryLockError},
    io::{self, ErrorKind},
    os::unix::fs::MetadataExt,
    sync::Arc,
};

use super::{FileStore, LOCK_WAIT, LockWaiter, Sub, mtime_ms, nanos, renew_mtime, sweep, wall_ms};
use crate::{
    error::{Error, Result},
    key,
    pacing::clock::{EpochMs, Mono},
    state_dir::{Dir, Mode},
    store::{LEASE_TTL, Lease, Place, Queue, QueueTimeout, heartbeat},
};

impl FileStore {
    fn list_tickets(queue: &Dir) -> Result<Vec<Ticket>> {
        let names = queue
            .names()
            .map_err(|e| Error::io("read", queue.path(), e))?;
        Ok(names.into_iter().filter_map(Ticket::parse).collect())
    }

    /// The site's directory and its queue. With `heal`, a file planted
    /// where the queue goes is set aside and the queue remade; without, it
    /// is an error (a look must not write).
    fn queue(&self, site: &str, create: bool, heal: bool) -> Result<Option<(Dir, Dir)>> {
        let Some(dir) = self.site_dir(site, create)? else {
            return Ok(None);
        };
        match dir.sub("queue", create) {
            Ok(Some(q)) => Ok(Some((dir, q))),
            Ok(None) => Ok(None),
            Err(Error::Tampered { .. }) if heal => {
                // A file where the queue goes: set it aside under the site
                // lock (everyone who adds to the queue holds it) and remake it.
                let _lock = self.lock(&dir, "lock", self.clock.mono().after(LOCK_WAIT))?;
                let aside = format!("queue.lost-{}", nanos());
                dir.rename("queue", &dir, &aside)
                    .map_err(|e| dir.refuse("queue", e, "replace"))?;
                let q = dir.sub("queue", true)?.expect("made");
                Ok(Some((dir, q)))
            }
            Err(e) => Err(e),
        }
    }

    fn take_ticket(&self, site_dir: &Dir, queue: &Dir, deadline: Mono) -> Result<FilePlace> {
        let _lock = self.lock(site_dir, "lock", deadline)?;
        let now_ms = wall_ms();
        // Tickets only grow while anyone waits, and follow the clock (in µs)
        // otherwise, so the log can compare arrival order across quiet spells.
        let highest = Self::list_tickets(queue)?.iter().map(|t| t.seq).max();
        let seq = highest
            .map_or(0, |h| h + 1)
            .max(now_ms.saturating_mul(1000));
        let pid = std::process::id();
        let tmp = format!(".t-{pid}-{seq}");
        let file = queue
            .open(&tmp, Mode::Replace)
            .map_err(|e| queue.refuse(&tmp, e, "create"))?;
        file.try_lock().map_err(|e| {
            Error::io(
                "lock",
                queue.join(&tmp),
                match e {
                    TryLockError::Error(e) => e,
                    TryLockError::WouldBlock => io::Error::from(ErrorKind::WouldBlock),
                },
            )
        })?;
        let name = format!("{seq:020}-{pid}-{now_ms}");
        queue
            .rename(&tmp, queue, &name)
            .map_err(|e| Error::io("rename", queue.join(&tmp), e))?;
        let file = Arc::new(file);
        let beat = renew_mtime(&file);
        let ino = file.metadata().map(|m| m.ino()).unwrap_or(0);
        let queue = queue
            .try_clone()
            .map_err(|e| Error::io("open", queue.path(), e))?;
        Ok(FilePlace {
            _beat: beat,
            queue,
            name,
            ino,
            seq,
            _file: file,
        })
    }
}

/// Whether the lease `id` in `leases` is held by a live process that is
/// making progress: its file is locked, and renewed within [`LEASE_TTL`].
/// With `reap`, the file of a lease whose process is gone is removed.
pub(super) fn lease_alive(leases: &Dir, id: &str, reap: bool) -> bool {
    let Ok(file) = leases.open(id, Mode::Read) else {
        return false;
    };
    match file.try_lock() {
        Ok(()) => {
            // Nobody holds it: its process is gone.
            if reap {
                let _ = leases.unlink(id, false);
            }
            false
        }
        Err(TryLockError::WouldBlock) => file
            .metadata()
            .is_ok_and(|m| wall_ms().saturating_sub(mtime_ms(&m)) <= LEASE_TTL.as_millis() as u64),
        Err(TryLockError::Error(_)) => false,
    }
}

/// The places waiting in `site`'s queue in the state directory `root`, as
/// (process id, arrival time), for `doctor`, which reads the queue's
/// directory through [`Dir`] and changes nothing. A missing queue is empty.
pub(crate) fn queue_places(root: &Dir, site: &str) -> Result<Vec<(u32, EpochMs)>> {
    let Some(sites) = root.sub("sites", false)? else {
        return Ok(Vec::new());
    };
    let Some(dir) = sites.sub(&key::file_name(site), false)? else {
        return Ok(Vec::new());
    };
    let Some(queue) = dir.sub("queue", false)? else {
        return Ok(Vec::new());
    };
    Ok(FileStore::list_tickets(&queue)?
        .into_iter()
        .map(|t| (t.pid, t.arrived_ms))
        .collect())
}

struct Ticket {
    seq: u64,
    pid: u32,
    arrived_ms: EpochMs,
    name: String,
}

impl Ticket {
    fn parse(name: String) -> Option<Self> {
        let mut parts = name.split('-');
        let seq = parts.next()?.parse().ok()?;
        let pid = parts.next()?.parse().ok()?;
        let arrived_ms = parts.next()?.parse().ok()?;
        parts.next().is_none().then_some(Ticket {
            seq,
            pid,
            arrived_ms,
            name,
        })
    }
}

/// A place in a site's queue: the ticket file, held locked and renewed.
pub struct FilePlace {
    _beat: heartbeat::Registration,
    queue: Dir,
    name: String,
    ino: u64,
    seq: u64,
    _file: Arc<File>,
}

impl Drop for FilePlace {
    fn drop(&mut self) {
        // Delete before unlocking (the file closes after this body): whoever
        // waits on this ticket then finds it gone and knows we left, not died.
        if self.still_held().unwrap_or(false) {
            let _ = self.queue.unlink(&self.name, false);
        }
    }
}

impl Place for FilePlace {
    fn ticket(&self) -> u64 {
        self.seq
    }

    fn still_held(&self) -> Result<bool> {
        Ok(self
            .queue
            .stat(&self.name)
            .is_ok_and(|st| st.st_ino == self.ino))
    }
}

/// A lease: a locked file under `leases/`, renewed by the heartbeat.
pub struct FileLease {
    _beat: heartbeat::Registration,
    dir: Dir,
    id: String,
    _file: Arc<File>,
}

impl Lease for FileLease {
    fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for FileLease {
    fn drop(&mut self) {
        let _ = self.dir.unlink(&self.id, false);
    }
}

impl Queue for FileStore {
    fn queue_is_empty(&self, site: &str) -> Result<bool> {
        // The gate's look before it queues: it heals a tampered queue.
        match self.queue(site, false, true)? {
            Some((_, q)) => Ok(Self::list_tickets(&q)?.is_empty()),
            None => Ok(true),
        }
    }

    fn queue_len(&self, site: &str) -> Result<usize> {
        // A place is live while its owner holds the ticket's lock: that is
        // what `join_queue` waits on. A waiter that was killed leaves its
        // ticket until the next caller clears it, but no lock: not counted,
        // so `status` and `doctor` agree that nobody waits there.
        let Some((_, q)) = self.queue(site, false, false)? else {
            return Ok(0);
        };
        Ok(Self::list_tickets(&q)?
            .iter()
            .filter(|t| {
                q.open(&t.name, Mode::Read)
                    .is_ok_and(|f| matches!(f.try_lock_shared(), Err(TryLockError::WouldBlock)))
            })
            .count())
    }

    fn join_queue(
        &self,
        site: &str,
        deadline: Mono,
    ) -> Result<Result<Box<dyn Place>, QueueTimeout>> {
        let (dir, queue) = self.queue(site, true, true)?.expect("made");
        let place = self.take_ticket(&dir, &queue, deadline)?;
        let mine = place.seq;
        // Tickets found dead or stopped that could not be removed (a
        // read-only queue, a directory planted there): passed over, never
        // waited on again.
        let mut passed: HashSet<String> = HashSet::new();
        let timeout = |passed: &HashSet<String>| -> Result<Result<Box<dyn Place>, QueueTimeout>> {
            let ahead = Self::list_tickets(&queue)?
                .iter()
                .filter(|t| t.seq < mine && !passed.contains(&t.name))
                .count();
            Ok(Err(QueueTimeout { ahead }))
        };
        loop {
            if self.clock.left(deadline).is_zero() {
                return timeout(&passed);
            }
            let tickets = Self::list_tickets(&queue)?;
            let Some(ahead) = tickets
                .iter()
                .filter(|t| t.seq < mine && !passed.contains(&t.name))
                .max_by_key(|t| t.seq)
            else {
                return Ok(Ok(Box::new(place)));
            };
            let mut pass = |name: &str| {
                if queue.unlink(name, false).is_err() {
                    passed.insert(name.to_owned());
                }
            };
            if wall_ms()
                >= ahead
                    .arrived_ms
                    .saturating_add(self.settings.stale_after_ms)
            {
                // Alive or not, nobody waits this long legitimately (max_wait is
                // shorter): reclaim the place.
                pass(&ahead.name);
                continue;
            }
            let file = match queue.open(&ahead.name, Mode::Read) {
                Ok(f) => f,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                // Not a ticket file (planted): pass over it.
                Err(_) => {
                    passed.insert(ahead.name.clone());
                    continue;
                }
            };
            let ino = file.metadata().map(|m| m.ino()).unwrap_or(0);
            let waiter = LockWaiter::new(&file)
                .map_err(|e| Error::io("lock", queue.join(&ahead.name), e))?;
            loop {
                let left = self.clock.left(deadline);
                if left.is_zero() {
                    return timeout(&passed);
                }
                match waiter.wait(left.min(LEASE_TTL)) {
                    Some(Ok(())) => {
                        // The one ahead is gone. If its ticket is still there,
                        // it died without deleting it: clear it for everyone.
                        if queue.stat(&ahead.name).is_ok_and(|st| st.st_ino == ino) {
                            pass(&ahead.name);
                        }
                        break;
                    }
                    Some(Err(e)) => return Err(Error::io("lock", queue.join(&ahead.name), e)),
                    None => {
                        // Still held. Renewed lately, or stopped?
                        let renewed = file.metadata().map(|m| mtime_ms(&m)).unwrap_or(0);
                        if wall_ms().saturating_sub(renewed) > LEASE_TTL.as_millis() as u64 {
                            pass(&ahead.name);
                            break;
                        }
                    }
                }
            }
        }
    }

    fn lease(&self) -> Result<Box<dyn Lease>> {
        let leases = self.sub(Sub::Leases, true)?.expect("made");
        let dir = leases
            .try_clone()
            .map_err(|e| Error::io("open", leases.path(), e))?;
        let id = format!("{}-{}", std::process::id(), nanos());
        let file = dir
            .open(&id, Mode::CreateNew)
            .map_err(|e| dir.refuse(&id, e, "create"))?;
        file.try_lock()
            .map_err(|_| Error::io("lock", dir.join(&id), ErrorKind::WouldBlock.into()))?;
        let file = Arc::new(file);
        if wall_ms().is_multiple_of(32) {
            sweep(&dir, wall_ms(), 3_600_000);
        }
        Ok(Box::new(FileLease {
            _beat: renew_mtime(&file),
            dir,
            id,
            _file: file,
        }))
    }
}
