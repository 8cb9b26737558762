//! The gate on one machine: a directory of small files.
//!
//! ```text
//! <home>/sites/<site>/lock         the site lock; flock'd, never renamed
//! <home>/sites/<site>/state.json   SiteState, rewritten in place under the lock
//! <home>/sites/<site>/queue/<seq>-<pid>-<ms>   one file per waiting caller
//! <home>/leases/<pid>-<n>          holds of a call still waiting for other sites
//! <home>/tabs.json, tabs.lock      the tab map and its lock
//! <home>/agents/<agent>            an agent's last admitted call and its sites
//! <home>/calls/<call>.json         the same, for a call with no session
//! <home>/gate.log                  one JSON line per decision
//! ```
//!
//! Locks are `std::fs::File::lock` (`flock`), not the post's `mkdir` lock:
//! the kernel drops an flock the moment its process dies, so a crashed caller
//! frees its lock and its queue place at once, with no pid to check and so no
//! pid reuse to be fooled by. The lock file is never renamed or deleted, so
//! every process always locks the same inode. Every read and write of the
//! state it guards happens under it, so the state is rewritten in place in one
//! write rather than replaced by rename (see [`FileStore::with_state`] for why).
//!
//! A site's directory is made whole and renamed into place, state file and
//! all, so a site directory without a readable state file has lost it (a disk
//! filled mid-write, a hand edit): that reads as busy, never as a new site.
//!
//! The queue is a ticket lock in files. A caller takes the next ticket under
//! the site lock, creates its ticket file already flock'd (made under a temp
//! name and renamed in, so nobody can see it unlocked), and then blocks on
//! the flock of the ticket just ahead of it. Blocking on a lock costs no CPU,
//! and the kernel wakes the waiter when the one ahead leaves or dies. A
//! waiter's heartbeat renews its ticket's modification time; one that stops
//! renewing (the process was stopped) is skipped after [`LEASE_TTL`]. Only the
//! caller at the head looks at the time; it sleeps until the site is due or
//! until its state file changes (inotify on Linux).
//!
//! No fsync: this is a cache of recent times. After a power cut a torn state
//! file reads as lost, which the gate treats as busy, never as free.

use std::{
    collections::HashSet,
    fs::{File, TryLockError},
    io::{self, ErrorKind, Read},
    os::{
        fd::AsRawFd,
        unix::fs::{FileExt, MetadataExt},
    },
    path::PathBuf,
    sync::{Arc, OnceLock, mpsc},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use super::{
    Attempt, CallRecord, LEASE_TTL, Lease, Place, QueueTimeout, RENEW_EVERY, Store, TabMap, Watch,
    heartbeat,
};
use crate::{
    error::{Error, Result},
    key,
    pacing::clock::{Clock, EpochMs, Mono, SystemClock},
    pacing::decision::{Decision, Policy, SiteState},
    pacing::log::{self, Record},
    state_dir::{Dir, Mode},
};

pub use super::Settings;

/// The gate's directory on this machine.
pub struct FileStore {
    path: PathBuf,
    root: OnceLock<Result<Dir, String>>,
    clock: Arc<dyn Clock>,
    settings: Settings,
    warning: Option<String>,
}

impl std::fmt::Debug for FileStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileStore")
            .field("path", &self.path)
            .finish()
    }
}

impl FileStore {
    /// The store at `path`, reading time from the system clock.
    pub fn open(path: impl Into<PathBuf>, settings: Settings) -> Result<Self> {
        Self::with_clock(path, settings, Arc::new(SystemClock))
    }

    /// The store at `path`, reading time from `clock`. The directory is
    /// made (private) on first use and checked then: it must be this user's
    /// and writable by nobody else.
    pub fn with_clock(
        path: impl Into<PathBuf>,
        settings: Settings,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        Ok(Self {
            path: path.into(),
            root: OnceLock::new(),
            clock,
            settings,
            warning: None,
        })
    }

    /// This store, standing in for a shared one that could not be used:
    /// [`Store::warning`] returns `warning`.
    pub fn with_warning(mut self, warning: String) -> Self {
        self.warning = Some(warning);
        self
    }

    /// The store's directory.
    pub fn root_path(&self) -> &std::path::Path {
        &self.path
    }

    fn root(&self) -> Result<&Dir> {
        self.root
            .get_or_init(|| Dir::open_root(&self.path, true).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|message| Error::StateDir {
                message: message.clone(),
            })
    }

    fn sites(&self, create: bool) -> Result<Option<Dir>> {
        self.root()?.sub("sites", create)
    }

    /// The site's directory; with `create`, made whole (state, lock, queue)
    /// and renamed into place if missing.
    fn site_dir(&self, site: &str, create: bool) -> Result<Option<Dir>> {
        let Some(sites) = self.sites(create)? else {
            return Ok(None);
        };
        let name = key::file_name(site);
        if let Some(d) = sites.sub(&name, false)? {
            return Ok(Some(d));
        }
        if !create {
            return Ok(None);
        }
        let tmp = format!(".new-{}-{}", std::process::id(), nanos());
        let new = sites.sub(&tmp, true)?.expect("made");
        let made = (|| -> io::Result<()> {
            let bytes = state_bytes(&SiteState::new(site), 0);
            new.open("state.json", Mode::CreateNew)?
                .write_all_at(&bytes, 0)?;
            new.open("lock", Mode::CreateNew)?;
            new.sub("queue", true).map_err(io::Error::other)?;
            Ok(())
        })();
        if let Err(e) = made {
            remove_tree(&sites, &tmp);
            return Err(Error::io("create", sites.join(&name), e));
        }
        match sites.rename(&tmp, &sites, &name) {
            Ok(()) => {}
            // Another process made it first: use theirs.
            Err(e) if matches!(e.raw_os_error(), Some(libc::EEXIST | libc::ENOTEMPTY)) => {
                remove_tree(&sites, &tmp)
            }
            Err(e) => {
                remove_tree(&sites, &tmp);
                return Err(Error::io("create", sites.join(&name), e));
            }
        }
        sites
            .sub(&name, false)?
            .ok_or_else(|| Error::io("open", sites.join(&name), ErrorKind::NotFound.into()))
            .map(Some)
    }

    fn lock(&self, dir: &Dir, name: &str, deadline: Mono) -> Result<File> {
        let file = dir
            .open(name, Mode::Write)
            .map_err(|e| dir.refuse(name, e, "open"))?;
        match lock_by(&file, self.clock.as_ref(), deadline) {
            Ok(true) => Ok(file),
            Ok(false) => Err(Error::LockTimeout {
                path: dir.join(name),
            }),
            Err(e) => Err(Error::io("lock", dir.join(name), e)),
        }
    }

    /// Run `f` on `site`'s state under the site lock and write the state
    /// back in place if it changed. A state that cannot be read is healed as
    /// lost (busy for a hold and an interval from now); then, with
    /// `fail_on_lost`, the step fails with [`Error::CorruptState`], else it
    /// is applied to the healed state.
    ///
    /// Rewritten in place, under the site lock that every reader of the file
    /// also takes, in one write padded with blanks over the old contents. Not
    /// temp file + rename: on ext4 a rename over a file starts writing it out
    /// at once, which cost more than the rest of the event (BENCHMARKS.md). A
    /// process killed mid-update cannot tear one write; a power cut or a full
    /// disk can, and a torn file reads as lost, which counts as busy.
    fn with_state<R>(
        &self,
        site: &str,
        create: bool,
        fail_on_lost: bool,
        deadline: Mono,
        heal: &Policy,
        f: impl FnOnce(&mut SiteState, &dyn Clock) -> R,
    ) -> Result<Option<R>> {
        let Some(dir) = self.site_dir(site, create)? else {
            return Ok(None);
        };
        let _lock = self.lock(&dir, "lock", deadline)?;
        let (file, old_len, mut state) = match read_state(&dir, site) {
            Ok(ok) => ok,
            Err(problem) => {
                let e = self.heal(&dir, site, heal, problem);
                // An admission is blocked and told why; a finish, a cancel
                // and the like go on against the healed (busy) state.
                if fail_on_lost || !matches!(e, Error::CorruptState { .. }) {
                    return Err(e);
                }
                match read_state(&dir, site) {
                    Ok(ok) => ok,
                    Err(_) => return Err(e),
                }
            }
        };
        let before = state.clone();
        if state.in_flight.iter().any(|f| f.lease.is_some()) {
            let leases = self.root()?.sub("leases", false)?;
            state.drop_lapsed(|id| leases.as_ref().is_some_and(|l| lease_alive(l, id, true)));
        }
        let out = f(&mut state, self.clock.as_ref());
        if state != before {
            file.write_all_at(&state_bytes(&state, old_len), 0)
                .map_err(|e| Error::io("write", dir.join("state.json"), e))?;
        }
        Ok(Some(out))
    }

    /// Heal a state that could not be read, under the site lock: keep a copy
    /// of what was there, then put a lost state (busy) in its place by
    /// rename, so that at no moment does the site read as free. If the heal
    /// cannot be written (a full disk), the unreadable state stays, and
    /// still reads as busy.
    fn heal(&self, dir: &Dir, site: &str, policy: &Policy, problem: Unreadable) -> Error {
        let now = self.clock.now_ceil();
        let aside = format!("state.json.lost-{now}");
        let moved = match &problem {
            Unreadable::Bytes(bytes) => dir
                .open(&aside, Mode::CreateNew)
                .and_then(|f| f.write_all_at(bytes, 0))
                .is_ok(),
            // Not a file at all (a directory, a link): it must go before a
            // file can take its place; while it is gone the site reads as
            // lost, which is busy.
            Unreadable::NotAFile => dir.rename("state.json", dir, &aside).is_ok(),
            Unreadable::Missing => false,
        };
        let lost = SiteState::lost(site, now, policy);
        if let Err(e) = dir.write_atomic("state.json", &state_bytes(&lost, 0)) {
            return e;
        }
        Error::CorruptState {
            path: dir.join("state.json"),
            moved_to: moved.then(|| dir.join(&aside)),
            retry_after_ms: policy.hold_ms.saturating_add(policy.interval_ms),
        }
    }

    fn slot_path(&self, agent: &str) -> String {
        key::file_name(agent)
    }

    /// Rewrite `agent`'s slot in place, padded with blanks over whatever it
    /// held: a new file per call, or a rename, makes ext4 start writing the
    /// data out at once, which costs more than the rest of the event. Only
    /// the agent itself writes its slot, one call at a time.
    fn write_slot(&self, agent: &str, record: &CallRecord, open: bool) -> Result<()> {
        let agents = self.root()?.sub("agents", true)?.expect("made");
        let name = self.slot_path(agent);
        let slot = AgentSlot {
            record: record.clone(),
            open,
        };
        let file = match agents.open(&name, Mode::Write) {
            Ok(f) => f,
            Err(e) if e.raw_os_error() == Some(libc::EISDIR) => {
                // Tampered: a directory where the slot goes. Only this agent
                // writes here, so setting it aside is safe.
                let aside = format!(".{name}.lost-{}", nanos());
                agents
                    .rename(&name, &agents, &aside)
                    .map_err(|e| agents.refuse(&name, e, "replace"))?;
                agents
                    .open(&name, Mode::Write)
                    .map_err(|e| agents.refuse(&name, e, "open"))?
            }
            Err(e) => return Err(agents.refuse(&name, e, "open")),
        };
        let old = file.metadata().map(|m| m.len() as usize).unwrap_or(0);
        let mut bytes = serde_json::to_vec(&slot).expect("slot serializes");
        bytes.push(b'\n');
        if bytes.len() < old {
            bytes.resize(old, b' ');
        }
        file.write_all_at(&bytes, 0)
            .map_err(|e| Error::io("write", agents.join(&name), e))?;
        let now = record.started_ms;
        if open && now.is_multiple_of(64) {
            sweep(&agents, now, 7 * 24 * 3_600_000);
        }
        Ok(())
    }

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

/// How long bookkeeping waits for a site lock (finishes, cancels): the lock
/// is held for microseconds, so this only ends a wait on a stopped holder.
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Why a state could not be read.
enum Unreadable {
    /// The file had these bytes, which are not this site's state.
    Bytes(Vec<u8>),
    /// Something other than a file is there.
    NotAFile,
    /// No state file, though the site's directory exists.
    Missing,
}

fn read_state(dir: &Dir, site: &str) -> Result<(File, usize, SiteState), Unreadable> {
    let mut file = match dir.open("state.json", Mode::ReadWrite) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Err(Unreadable::Missing),
        Err(_) => return Err(Unreadable::NotAFile),
    };
    let mut bytes = Vec::with_capacity(512);
    if file.read_to_end(&mut bytes).is_err() {
        return Err(Unreadable::NotAFile);
    }
    // A state is always written whole, so empty or blank is a lost one.
    match serde_json::from_slice::<SiteState>(&bytes) {
        Ok(s) if s.site == site => Ok((file, bytes.len(), s)),
        _ => Err(Unreadable::Bytes(bytes)),
    }
}

fn state_bytes(state: &SiteState, pad_to: usize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(state).expect("state serializes");
    bytes.push(b'\n');
    if bytes.len() < pad_to {
        bytes.resize(pad_to, b' ');
    }
    bytes
}

fn nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos()
}

/// The wall clock as the file system stamps it: places and leases are
/// judged by their modification times, which the kernel sets from this
/// clock, whatever clock the gate runs on.
fn wall_ms() -> EpochMs {
    (nanos() / 1_000_000) as EpochMs
}

fn mtime_ms(m: &std::fs::Metadata) -> EpochMs {
    (m.mtime().max(0) as u64)
        .saturating_mul(1000)
        .saturating_add(m.mtime_nsec().max(0) as u64 / 1_000_000)
}

/// Renew `file`'s modification time from the heartbeat thread.
fn renew_mtime(file: &Arc<File>) -> heartbeat::Registration {
    let f = file.clone();
    heartbeat::register(move || {
        // SAFETY: a valid fd kept open by the Arc; null times mean "now".
        unsafe { libc::futimens(f.as_raw_fd(), std::ptr::null()) };
    })
}

fn remove_tree(parent: &Dir, name: &str) {
    if let Ok(Some(d)) = parent.sub(name, false) {
        for n in d.names().unwrap_or_default() {
            if d.unlink(&n, false).is_err() {
                remove_tree(&d, &n);
            }
        }
    }
    let _ = parent.unlink(name, true);
}

/// Whether the lease `id` in `leases` is held by a live process that is
/// making progress: its file is locked, and renewed within [`LEASE_TTL`].
/// With `reap`, the file of a lease whose process is gone is removed.
fn lease_alive(leases: &Dir, id: &str, reap: bool) -> bool {
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

impl Store for FileStore {
    fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    fn queue_is_empty(&self, site: &str) -> Result<bool> {
        // The gate's look before it queues: it heals a tampered queue.
        match self.queue(site, false, true)? {
            Some((_, q)) => Ok(Self::list_tickets(&q)?.is_empty()),
            None => Ok(true),
        }
    }

    fn queue_len(&self, site: &str) -> Result<usize> {
        match self.queue(site, false, false)? {
            Some((_, q)) => Ok(Self::list_tickets(&q)?.len()),
            None => Ok(0),
        }
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

    fn watch(&self, site: &str) -> Result<Box<dyn Watch>> {
        let dir = self.site_dir(site, true)?.expect("made");
        Ok(Box::new(FileWatch::new(&dir, self.clock.clone())))
    }

    fn lease(&self) -> Result<Box<dyn Lease>> {
        let dir = self.root()?.sub("leases", true)?.expect("made");
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

    fn try_admit(
        &self,
        site: &str,
        call: &str,
        policy: &Policy,
        lease: Option<&str>,
        deadline: Mono,
    ) -> Result<Attempt> {
        // A lost state is rebuilt with this config's hold, not the long hold
        // of a site taken while the call waits for another.
        let heal = Policy {
            interval_ms: policy.interval_ms.max(self.settings.lost.interval_ms),
            ..self.settings.lost
        };
        let (at, decision, lease_bound, in_flight) = self
            .with_state(site, true, true, deadline, &heal, |state, clock| {
                let now = clock.now_floor();
                let d = state.try_admit(call, now, policy, lease);
                let lease_bound = state.in_flight.iter().any(|f| f.lease.is_some());
                (now, d, lease_bound, !state.in_flight.is_empty())
            })?
            .expect("created");
        let wait = match decision {
            Decision::WaitUntil(t) => {
                let w = self.clock.until(t);
                // A hold tied to a lease may lapse without any write: look
                // again soon. Any other hold ends by a write the watch sees.
                if lease_bound { w.min(RENEW_EVERY) } else { w }
            }
            _ => Duration::ZERO,
        };
        Ok(Attempt {
            at,
            decision,
            wait,
            settled: !in_flight,
        })
    }

    fn finish(&self, site: &str, call: &str, interval_ms: u64) -> Result<EpochMs> {
        let deadline = self.clock.mono().after(LOCK_WAIT);
        Ok(self
            .with_state(
                site,
                true,
                false,
                deadline,
                &self.settings.lost,
                |s, clock| {
                    let now = clock.now_ceil();
                    s.finish(call, now, interval_ms);
                    now
                },
            )?
            .expect("created"))
    }

    fn cancel(&self, site: &str, call: &str) -> Result<bool> {
        let deadline = self.clock.mono().after(LOCK_WAIT);
        Ok(self
            .with_state(site, false, false, deadline, &self.settings.lost, |s, _| {
                s.cancel(call)
            })?
            .unwrap_or(false))
    }

    fn confirm(&self, site: &str, call: &str, started: EpochMs, hold_ms: u64) -> Result<bool> {
        let deadline = self.clock.mono().after(LOCK_WAIT);
        Ok(self
            .with_state(site, false, false, deadline, &self.settings.lost, |s, _| {
                s.confirm(call, started, hold_ms)
            })?
            .unwrap_or(false))
    }

    fn extend(&self, site: &str, call: &str, hold_ms: u64) -> Result<bool> {
        let deadline = self.clock.mono().after(LOCK_WAIT);
        Ok(self
            .with_state(
                site,
                false,
                false,
                deadline,
                &self.settings.lost,
                |s, clock| s.extend(call, clock.now_ceil(), hold_ms),
            )?
            .unwrap_or(false))
    }

    fn update_backoff(
        &self,
        site: &str,
        f: &mut dyn FnMut(&mut SiteState, EpochMs) -> Option<EpochMs>,
    ) -> Result<Option<EpochMs>> {
        let deadline = self.clock.mono().after(LOCK_WAIT);
        Ok(self
            .with_state(
                site,
                true,
                false,
                deadline,
                &self.settings.lost,
                |s, clock| {
                    let now = clock.now_ceil();
                    s.normalize(now);
                    f(s, now)
                },
            )?
            .flatten())
    }

    /// A look under the site lock that never writes: `status` and `doctor`
    /// read through here, and must not heal, reclaim or rewrite what they
    /// report on. Holds whose lease has lapsed are left out of the copy
    /// returned, as every step of the gate would drop them; an unreadable
    /// state is an error that says the gate counts the site as busy.
    fn site_state(&self, site: &str) -> Result<Option<SiteState>> {
        let Some(dir) = self.site_dir(site, false)? else {
            return Ok(None);
        };
        let _lock = self.lock(&dir, "lock", self.clock.mono().after(LOCK_WAIT))?;
        let unreadable = |why: String| Error::StateDir {
            message: format!(
                "state file `{}` {why}; the gate counts {site} as busy until its next call resets it",
                dir.join("state.json").display()
            ),
        };
        let mut bytes = Vec::with_capacity(512);
        dir.open("state.json", Mode::Read)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|e| unreadable(format!("cannot be read ({e})")))?;
        let mut state = match serde_json::from_slice::<SiteState>(&bytes) {
            Ok(s) if s.site == site => s,
            _ => return Err(unreadable("is not this site's state".to_owned())),
        };
        if state.in_flight.iter().any(|f| f.lease.is_some()) {
            let leases = self.root()?.sub("leases", false)?;
            state.drop_lapsed(|id| leases.as_ref().is_some_and(|l| lease_alive(l, id, false)));
        }
        Ok(Some(state))
    }

    fn known_sites(&self) -> Result<Vec<String>> {
        let Some(sites) = self.sites(false)? else {
            return Ok(Vec::new());
        };
        let names = sites
            .names()
            .map_err(|e| Error::io("read", sites.path(), e))?;
        let mut out = Vec::new();
        for name in names.into_iter().filter(|n| !n.starts_with('.')) {
            if let Some(key) = key::key_from_file_name(&name) {
                out.push(key);
            } else if let Ok(Some(d)) = sites.sub(&name, false)
                && let Ok(mut f) = d.open("state.json", Mode::Read)
            {
                // A shortened name: the key is inside the state.
                let mut bytes = Vec::new();
                if f.read_to_end(&mut bytes).is_ok()
                    && let Ok(s) = serde_json::from_slice::<SiteState>(&bytes)
                {
                    out.push(s.site);
                }
            }
        }
        out.sort();
        Ok(out)
    }

    fn tabs(&self) -> Result<TabMap> {
        let root = self.root()?;
        match root.open("tabs.json", Mode::Read) {
            Ok(mut f) => {
                let mut bytes = Vec::new();
                f.read_to_end(&mut bytes)
                    .map_err(|e| Error::io("read", root.join("tabs.json"), e))?;
                // An unreadable map is an empty one: every tab is then unknown
                // and counted against every site, which errs towards waiting.
                Ok(serde_json::from_slice(&bytes).unwrap_or_default())
            }
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(TabMap::default()),
            // A directory or link planted there: unknown tabs, as above; the
            // next update sets it aside.
            Err(_) => Ok(TabMap::default()),
        }
    }

    fn update_tabs(&self, f: &dyn Fn(&mut TabMap)) -> Result<()> {
        // Most events change nothing: look first without the lock.
        let mut map = self.tabs()?;
        let before = map.clone();
        f(&mut map);
        if map == before {
            return Ok(());
        }
        let root = self.root()?;
        let _lock = self.lock(root, "tabs.lock", self.clock.mono().after(LOCK_WAIT))?;
        if let Err(e) = root.open("tabs.json", Mode::Read)
            && e.kind() != ErrorKind::NotFound
        {
            // Not a file: set it aside (under the lock) so the map can be kept.
            let aside = format!("tabs.json.lost-{}", nanos());
            root.rename("tabs.json", root, &aside)
                .map_err(|e| root.refuse("tabs.json", e, "replace"))?;
        }
        let mut map = self.tabs()?;
        let before = map.clone();
        f(&mut map);
        map.trim();
        if map != before {
            let mut bytes = serde_json::to_vec(&map).expect("tab map serializes");
            bytes.push(b'\n');
            root.write_atomic("tabs.json", &bytes)?;
        }
        Ok(())
    }

    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()> {
        if let Some(agent) = agent {
            return self.write_slot(agent, record, true);
        }
        let calls = self.root()?.sub("calls", true)?.expect("made");
        let name = format!("{}.json", key::file_name(&record.call));
        let mut bytes = serde_json::to_vec(record).expect("record serializes");
        bytes.push(b'\n');
        // A new file under a name of its own, read only after this process
        // has exited: no temp file and rename needed.
        calls
            .open(&name, Mode::Replace)
            .and_then(|f| f.write_all_at(&bytes, 0))
            .map_err(|e| calls.refuse(&name, e, "write"))?;
        // Calls whose Post never came leave a record behind; sweep old ones
        // now and then rather than on every event.
        if record.started_ms.is_multiple_of(64) {
            sweep(&calls, record.started_ms, 24 * 3_600_000);
        }
        Ok(())
    }

    fn take_call(&self, call: &str, agent: Option<&str>) -> Result<Option<CallRecord>> {
        if let Some(agent) = agent
            && let Some(open) = self.open_call_of(agent)?
            && open.call == call
        {
            self.write_slot(agent, &open, false)?;
            return Ok(Some(open));
        }
        let Some(calls) = self.root()?.sub("calls", false)? else {
            return Ok(None);
        };
        let name = format!("{}.json", key::file_name(call));
        let mut f = match calls.open(&name, Mode::Read) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(calls.refuse(&name, e, "read")),
        };
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)
            .map_err(|e| Error::io("read", calls.join(&name), e))?;
        let _ = calls.unlink(&name, false);
        Ok(serde_json::from_slice(&bytes).ok())
    }

    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>> {
        let Some(agents) = self.root()?.sub("agents", false)? else {
            return Ok(None);
        };
        let name = self.slot_path(agent);
        match agents.open(&name, Mode::Read) {
            // A slot that does not parse (torn by a power cut) holds no open
            // call: the call's hold then runs its course.
            Ok(mut f) => {
                let mut bytes = Vec::new();
                f.read_to_end(&mut bytes)
                    .map_err(|e| Error::io("read", agents.join(&name), e))?;
                Ok(serde_json::from_slice::<AgentSlot>(&bytes)
                    .ok()
                    .filter(|s| s.open)
                    .map(|s| s.record))
            }
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            // A directory there is healed by the next write of the slot.
            Err(e) if e.raw_os_error() == Some(libc::EISDIR) => Ok(None),
            Err(e) => Err(agents.refuse(&name, e, "read")),
        }
    }

    fn log(&self, record: &Record) {
        if let Ok(root) = self.root() {
            log::append(root, record);
        }
    }

    fn read_log(&self) -> Result<(Vec<Record>, usize)> {
        log::read(self.root()?)
    }

    fn describe(&self) -> String {
        format!("files in `{}`", self.path.display())
    }

    fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
    }
}

/// An agent's last admitted call, and whether a finish has taken it yet.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct AgentSlot {
    /// The call.
    #[serde(flatten)]
    pub(crate) record: CallRecord,
    /// No finish has taken it yet.
    pub(crate) open: bool,
}

/// Waits for a file's lock in a helper thread (`flock` has no timeout), so
/// the wait can be cut into slices with a look at the holder between them.
struct LockWaiter {
    rx: mpsc::Receiver<io::Result<()>>,
}

impl LockWaiter {
    fn new(file: &File) -> io::Result<Self> {
        // The clone shares the open file description, so a lock it takes is
        // this file's lock; it lives until the thread drops the clone.
        let clone = file.try_clone()?;
        let (tx, rx) = mpsc::sync_channel(1);
        std::thread::spawn(move || {
            let _ = tx.send(clone.lock());
        });
        Ok(Self { rx })
    }

    /// `Some` once the lock was taken (or failed), `None` after `timeout`.
    fn wait(&self, timeout: Duration) -> Option<io::Result<()>> {
        match self.rx.recv_timeout(timeout) {
            Ok(r) => Some(r),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => Some(Err(ErrorKind::Other.into())),
        }
    }
}

/// Take `file`'s exclusive lock, blocking until `deadline` at most. Returns
/// whether it was taken. The uncontended case is one non-blocking call.
fn lock_by(file: &File, clock: &dyn Clock, deadline: Mono) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => return Ok(true),
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(e)) => return Err(e),
    }
    let left = clock.left(deadline);
    if left.is_zero() {
        return Ok(false);
    }
    match LockWaiter::new(file)?.wait(left) {
        Some(r) => r.map(|()| true),
        None => Ok(false),
    }
}

fn sweep(dir: &Dir, now_ms: EpochMs, older_than_ms: u64) {
    let cutoff = now_ms.saturating_sub(older_than_ms);
    for name in dir.names().unwrap_or_default() {
        if let Ok(st) = dir.stat(&name)
            && st.st_mode & libc::S_IFMT == libc::S_IFREG
            && (st.st_mtime.max(0) as u64).saturating_mul(1000) < cutoff
        {
            let _ = dir.unlink(&name, false);
        }
    }
}

/// Wakes when a site's state file is written. On Linux an inotify watch on
/// the site directory; elsewhere, or if inotify is unavailable, short sleeps.
pub struct FileWatch {
    #[cfg(target_os = "linux")]
    fd: Option<std::os::fd::OwnedFd>,
    clock: Arc<dyn Clock>,
}

/// How often a waiter without inotify looks at the state again.
const POLL_FALLBACK: Duration = Duration::from_millis(20);

impl FileWatch {
    #[cfg(target_os = "linux")]
    fn new(dir: &Dir, clock: Arc<dyn Clock>) -> Self {
        use std::os::{fd::FromRawFd, unix::ffi::OsStrExt};
        let Ok(cpath) = std::ffi::CString::new(dir.path().as_os_str().as_bytes()) else {
            return Self { fd: None, clock };
        };
        // SAFETY: plain syscalls; the fd is owned by OwnedFd from here on.
        let fd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC | libc::IN_NONBLOCK) };
        if fd < 0 {
            return Self { fd: None, clock };
        }
        let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
        // SAFETY: valid fd and NUL-terminated path.
        let wd = unsafe {
            // IN_MODIFY: the state is rewritten in place; IN_MOVED_TO: or
            // replaced, when a lost one is healed. Nothing else in the
            // site's directory is ever written (the lock file is only locked).
            libc::inotify_add_watch(
                fd.as_raw_fd(),
                cpath.as_ptr(),
                libc::IN_MODIFY | libc::IN_MOVED_TO | libc::IN_DONT_FOLLOW,
            )
        };
        Self {
            fd: (wd >= 0).then_some(fd),
            clock,
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn new(_dir: &Dir, clock: Arc<dyn Clock>) -> Self {
        Self { clock }
    }
}

impl Watch for FileWatch {
    #[cfg(target_os = "linux")]
    fn wait(&mut self, timeout: Duration) -> Result<()> {
        let Some(fd) = &self.fd else {
            self.clock.sleep(timeout.min(POLL_FALLBACK));
            return Ok(());
        };
        // The kernel lets a poll-family timeout run late by 0.1 % of its
        // length (2 ms on a 2 s wait, up to 100 ms), so poll for all but that
        // margin and sleep the rest with nanosleep, whose slack is 50 µs. A
        // change during that last stretch only means waking a little later
        // than the change allowed; never earlier than due.
        let start = self.clock.mono();
        let margin = (timeout / 1000).min(Duration::from_millis(100)) + Duration::from_micros(100);
        let poll_for = timeout.saturating_sub(margin);
        let mut pfd = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ts = libc::timespec {
            tv_sec: poll_for.as_secs().min(86_400) as _,
            tv_nsec: poll_for.subsec_nanos() as libc::c_long,
        };
        // SAFETY: one valid pollfd; a null sigmask keeps the current mask.
        let n = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
        if n > 0 {
            let mut buf = [0u8; 4096];
            // Drain so the next wait blocks again. Non-blocking fd: stops at EAGAIN.
            // SAFETY: buf is valid for its length.
            while unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
            return Ok(());
        }
        self.clock
            .sleep(timeout.saturating_sub(self.clock.mono().since(start)));
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    fn wait(&mut self, timeout: Duration) -> Result<()> {
        self.clock.sleep(timeout.min(POLL_FALLBACK));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(name: &str) -> FileStore {
        let dir =
            std::env::temp_dir().join(format!("pace-hook-unit-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        FileStore::open(dir, Settings::default()).unwrap()
    }

    fn soon(s: &FileStore) -> Mono {
        s.clock.mono().after(Duration::from_secs(5))
    }

    const P: Policy = Policy {
        interval_ms: 10,
        hold_ms: 1_000,
        budget: None,
    };

    #[test]
    fn a_state_that_shrinks_in_place_reads_back_whole() {
        let s = store("shrink");
        for call in ["a-long-call-id-to-make-the-state-big", "b", "c"] {
            s.with_state("x.com", true, true, soon(&s), &P, |st, _| {
                st.admit(call, 5, &P, None)
            })
            .unwrap();
        }
        s.with_state("x.com", true, true, soon(&s), &P, |st, _| {
            st.in_flight.clear();
            st.last_finish_ms = Some(7);
        })
        .unwrap();
        let state = s.site_state("x.com").unwrap().unwrap();
        assert_eq!(state.last_finish_ms, Some(7));
        assert!(state.in_flight.is_empty());
        let on_disk = std::fs::read(s.root_path().join("sites/x.com/state.json")).unwrap();
        assert!(
            on_disk.ends_with(b" "),
            "old contents must be blanked, not left behind"
        );
        let _ = std::fs::remove_dir_all(s.root_path());
    }

    #[test]
    fn state_of_another_site_counts_as_lost_and_busy() {
        let s = store("other");
        s.finish("x.com", "a", 10).unwrap();
        let dir = s.root_path().join("sites");
        std::fs::rename(dir.join("x.com"), dir.join("y.com")).unwrap();
        let e = s.try_admit("y.com", "c", &P, None, soon(&s)).unwrap_err();
        assert!(matches!(e, Error::CorruptState { .. }), "{e}");
        // Healed as busy for a hold and an interval from the heal.
        let a = s.try_admit("y.com", "c", &P, None, soon(&s)).unwrap();
        assert!(matches!(a.decision, Decision::WaitUntil(_)), "{a:?}");
        let _ = std::fs::remove_dir_all(s.root_path());
    }

    #[test]
    fn an_empty_or_missing_state_is_busy_not_new() {
        let s = store("empty");
        s.finish("x.com", "a", 10).unwrap();
        let state = s.root_path().join("sites/x.com/state.json");
        std::fs::write(&state, b"").unwrap();
        assert!(matches!(
            s.try_admit("x.com", "c", &P, None, soon(&s)),
            Err(Error::CorruptState { .. })
        ));
        std::fs::remove_file(&state).unwrap();
        assert!(matches!(
            s.try_admit("x.com", "c", &P, None, soon(&s)),
            Err(Error::CorruptState { .. })
        ));
        let _ = std::fs::remove_dir_all(s.root_path());
    }

    #[test]
    fn a_new_site_is_made_whole() {
        let s = store("new");
        let a = s.try_admit("x.com", "c", &P, None, soon(&s)).unwrap();
        assert_eq!(a.decision, Decision::Go);
        let dir = s.root_path().join("sites/x.com");
        assert!(dir.join("lock").is_file());
        assert!(dir.join("queue").is_dir());
        let names: Vec<_> = std::fs::read_dir(s.root_path().join("sites"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["x.com"]);
        let _ = std::fs::remove_dir_all(s.root_path());
    }
}
