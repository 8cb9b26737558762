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
    fs::{File, TryLockError},
    io::{self, ErrorKind},
    os::{
        fd::AsRawFd,
        unix::fs::{FileExt, MetadataExt},
    },
    path::PathBuf,
    sync::{Arc, OnceLock, mpsc},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use super::{Options, Store, heartbeat, sites::ReadAlong};
use crate::{
    error::{Error, Result},
    key,
    pacing::clock::{Clock, EpochMs, Mono, SystemClock},
    pacing::decision::SiteState,
    state_dir::{Dir, Mode},
};
use sites::state_bytes;

mod log;
mod queue;
mod sites;
mod tabs;

pub(crate) use queue::queue_places;
pub use queue::{FileLease, FilePlace};
pub use sites::FileWatch;
#[cfg(any(test, feature = "fuzz"))]
pub(crate) use tabs::AgentSlot;

/// The gate's directory on this machine.
pub struct FileStore {
    path: PathBuf,
    root: OnceLock<Result<Dir, String>>,
    subs: [OnceLock<Dir>; 4],
    /// Each site's state as a finish of this process left it.
    states_read: ReadAlong<SiteState>,
    clock: Arc<dyn Clock>,
    settings: Options,
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
    pub fn open(path: impl Into<PathBuf>, settings: Options) -> Result<Self> {
        Self::with_clock(path, settings, Arc::new(SystemClock))
    }

    /// The store at `path`, reading time from `clock`. The directory is
    /// made (private) on first use and checked then: it must be this user's
    /// and writable by nobody else.
    pub fn with_clock(
        path: impl Into<PathBuf>,
        settings: Options,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        Ok(Self {
            path: path.into(),
            root: OnceLock::new(),
            subs: Default::default(),
            states_read: ReadAlong::default(),
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
        super::state_root(&self.root, &self.path)
    }

    /// One of the state directory's subdirectories, opened once per
    /// process (each event would open `sites` twice, and a call paced on
    /// every known site twice per site). Kept open, as the root is: the
    /// gate only ever adds and removes entries in them, never the
    /// directories themselves. A missing one (without `create`) is looked
    /// for again next time.
    fn sub(&self, sub: Sub, create: bool) -> Result<Option<&Dir>> {
        let cell = &self.subs[sub as usize];
        if let Some(dir) = cell.get() {
            return Ok(Some(dir));
        }
        let Some(dir) = self.root()?.sub(sub.name(), create)? else {
            return Ok(None);
        };
        Ok(Some(cell.get_or_init(|| dir)))
    }

    fn sites(&self, create: bool) -> Result<Option<&Dir>> {
        self.sub(Sub::Sites, create)
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
            remove_tree(sites, &tmp);
            return Err(Error::io("create", sites.join(&name), e));
        }
        match sites.rename(&tmp, sites, &name) {
            Ok(()) => {}
            // Another process made it first: use theirs.
            Err(e) if matches!(e.raw_os_error(), Some(libc::EEXIST | libc::ENOTEMPTY)) => {
                remove_tree(sites, &tmp)
            }
            Err(e) => {
                remove_tree(sites, &tmp);
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
}

/// The subdirectories of the state directory that [`FileStore::sub`] keeps
/// open.
#[derive(Debug, Clone, Copy)]
enum Sub {
    Sites,
    Agents,
    Calls,
    Leases,
}

impl Sub {
    fn name(self) -> &'static str {
        match self {
            Sub::Sites => "sites",
            Sub::Agents => "agents",
            Sub::Calls => "calls",
            Sub::Leases => "leases",
        }
    }
}

/// How long bookkeeping waits for a site lock (finishes, cancels): the lock
/// is held for microseconds, so this only ends a wait on a stopped holder.
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(10);

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

impl Store for FileStore {
    fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    fn describe(&self) -> String {
        format!("files in `{}`", self.path.display())
    }

    fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
    }
}
