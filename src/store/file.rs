//! The gate on one machine: a directory of small files.
//!
//! ```text
//! <home>/sites/<site>/lock         the site lock; flock'd, never renamed
//! <home>/sites/<site>/state.json   SiteState, rewritten in place under the lock
//! <home>/sites/<site>/queue/<seq>-<pid>-<ms>   one file per waiting caller
//! <home>/tabs.json, tabs.lock      the tab→site map and its lock
//! <home>/agents/<agent>            an agent's last admitted call and its sites
//! <home>/calls/<call>.json         the same, for a call with no session
//! ```
//!
//! Locks are `std::fs::File::lock` (`flock`), not the post's `mkdir` lock:
//! the kernel drops an flock the moment its process dies, so a crashed caller
//! frees its lock and its queue place at once, with no pid to check and so no
//! pid reuse to be fooled by. The lock file is never renamed or deleted, so
//! every process always locks the same inode. Every read and write of the
//! state it guards happens under it, so the state is rewritten in place in one
//! write rather than replaced by rename (see `update_site` for why).
//!
//! The queue is a ticket lock in files. A caller takes the next ticket under
//! the site lock, creates its ticket file already flock'd (made under a temp
//! name and renamed in, so nobody can see it unlocked), and then blocks on
//! the flock of the ticket just ahead of it. Blocking on a lock costs no CPU,
//! and the kernel wakes the waiter when the one ahead leaves or dies. A leaver
//! deletes its ticket before it unlocks it; a ticket found still in place
//! after its lock was won belonged to a process that died, and is removed.
//! Only the caller at the head looks at the time; it sleeps until the site is
//! due or until its state file is replaced (inotify on Linux).
//!
//! No fsync: this is a cache of recent times. After a power cut a torn state
//! file reads as corrupt, which the gate treats as busy, never as free.

use std::{
    fs::{self, File, OpenOptions, TryLockError},
    io::{self, ErrorKind, Read, Write},
    os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt},
    path::{Path, PathBuf},
    sync::mpsc,
    time::{Duration, Instant},
};

use super::{CallRecord, QueueTimeout, Store, TabMap, Watch};
use crate::{
    clock::{Clock, EpochMs, SystemClock},
    decision::SiteState,
    error::{Error, Result},
    site,
};

/// The gate's directory on this machine.
#[derive(Debug, Clone)]
pub struct FileStore {
    root: PathBuf,
    stale_after_ms: u64,
}

/// A place in a site's queue: the ticket file and its held lock.
#[derive(Debug)]
pub struct FilePlace {
    path: PathBuf,
    _file: File,
}

impl Drop for FilePlace {
    fn drop(&mut self) {
        // Delete before unlocking (the file closes after this body): whoever
        // waits on this ticket then finds it gone and knows we left, not died.
        let _ = fs::remove_file(&self.path);
    }
}

struct Ticket {
    seq: u64,
    arrived_ms: EpochMs,
    name: String,
}

impl FileStore {
    /// The state directory: `PACE_HOOK_HOME`, else the user cache directory's
    /// `pace-hook` (`$XDG_CACHE_HOME` or `~/.cache`; `~/Library/Caches` on macOS).
    pub fn default_root() -> Result<PathBuf> {
        if let Some(home) = std::env::var_os("PACE_HOOK_HOME").filter(|h| !h.is_empty()) {
            return Ok(PathBuf::from(home));
        }
        let cache = if cfg!(target_os = "macos") {
            std::env::var_os("HOME").map(|h| Path::new(&h).join("Library").join("Caches"))
        } else {
            std::env::var_os("XDG_CACHE_HOME")
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        };
        cache.map(|c| c.join("pace-hook")).ok_or(Error::NoStateDir)
    }

    /// The store at `root`. Directories are made (private to the user) when
    /// something is first written there, not on every event.
    pub fn open(root: impl Into<PathBuf>, stale_after_ms: u64) -> Result<Self> {
        let root = root.into();
        Ok(Self {
            root,
            stale_after_ms,
        })
    }

    /// The store's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn site_dir(&self, site: &str) -> PathBuf {
        self.root.join("sites").join(site::file_name(site))
    }

    /// Create the site's directories if needed; return its directory.
    fn site_dir_created(&self, site: &str) -> Result<PathBuf> {
        let dir = self.site_dir(site);
        let queue = dir.join("queue");
        if !queue.is_dir() {
            make_dir(&queue)?;
        }
        Ok(dir)
    }

    fn list_tickets(queue: &Path) -> Result<Vec<Ticket>> {
        let entries = match fs::read_dir(queue) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io("read", queue, e)),
        };
        let mut tickets = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("read", queue, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let mut parts = name.split('-');
            let (Some(seq), Some(_pid), Some(ms)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            if let (Ok(seq), Ok(arrived_ms)) = (seq.parse(), ms.parse()) {
                tickets.push(Ticket {
                    seq,
                    arrived_ms,
                    name,
                });
            }
        }
        Ok(tickets)
    }

    fn lock_site(&self, dir: &Path, deadline: Instant) -> Result<File> {
        let path = dir.join("lock");
        let file = open_making_dir(
            OpenOptions::new().create(true).truncate(false).write(true),
            &path,
        )?;
        match lock_by(&file, deadline) {
            Ok(true) => Ok(file),
            Ok(false) => Err(Error::LockTimeout { path }),
            Err(e) => Err(Error::io("lock", &path, e)),
        }
    }

    fn take_ticket(&self, dir: &Path, deadline: Instant) -> Result<(FilePlace, u64)> {
        let queue = dir.join("queue");
        let _lock = self.lock_site(dir, deadline)?;
        let now_ms = SystemClock.now_floor();
        // Tickets only grow while anyone waits, and follow the clock (in µs)
        // otherwise, so the log can compare arrival order across quiet spells.
        let highest = Self::list_tickets(&queue)?.iter().map(|t| t.seq).max();
        let seq = highest
            .map_or(0, |h| h + 1)
            .max(now_ms.saturating_mul(1000));
        let pid = std::process::id();
        let tmp = queue.join(format!(".t-{pid}-{seq}"));
        let file = open_making_dir(
            OpenOptions::new().create(true).truncate(true).write(true),
            &tmp,
        )?;
        file.try_lock().map_err(|e| {
            Error::io(
                "lock",
                &tmp,
                match e {
                    TryLockError::Error(e) => e,
                    TryLockError::WouldBlock => io::Error::from(ErrorKind::WouldBlock),
                },
            )
        })?;
        let path = queue.join(format!("{seq:020}-{pid}-{now_ms}"));
        fs::rename(&tmp, &path).map_err(|e| Error::io("rename", &tmp, e))?;
        Ok((FilePlace { path, _file: file }, seq))
    }

    /// Parse state bytes; `None` if they are not this site's state. A file
    /// of nothing but blanks is a state never written: the site is new.
    fn parse_state(bytes: &[u8], site: &str) -> Option<SiteState> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Some(SiteState::new(site));
        }
        serde_json::from_slice::<SiteState>(bytes)
            .ok()
            .filter(|s| s.site == site)
    }
}

impl Store for FileStore {
    type Place = FilePlace;
    type Watch = FileWatch;

    fn queue_is_empty(&self, site: &str) -> Result<bool> {
        Ok(Self::list_tickets(&self.site_dir(site).join("queue"))?.is_empty())
    }

    fn join_queue(
        &self,
        site: &str,
        deadline: Instant,
    ) -> Result<Result<(FilePlace, u64), QueueTimeout>> {
        let dir = self.site_dir(site);
        let queue = dir.join("queue");
        let (place, mine) = self.take_ticket(&dir, deadline)?;
        loop {
            let tickets = Self::list_tickets(&queue)?;
            let Some(ahead) = tickets
                .iter()
                .filter(|t| t.seq < mine)
                .max_by_key(|t| t.seq)
            else {
                return Ok(Ok((place, mine)));
            };
            let path = queue.join(&ahead.name);
            let now_ms = SystemClock.now_floor();
            let stale_at = ahead.arrived_ms.saturating_add(self.stale_after_ms);
            if now_ms >= stale_at {
                // Alive or not, nobody waits this long legitimately (max_wait is
                // shorter): reclaim the place.
                let _ = fs::remove_file(&path);
                continue;
            }
            let file = match File::open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io("open", &path, e)),
            };
            let stale_deadline = Instant::now() + Duration::from_millis(stale_at - now_ms);
            let until = deadline.min(stale_deadline);
            if lock_by(&file, until).map_err(|e| Error::io("lock", &path, e))? {
                // The one ahead is gone. If its ticket is still there, it died
                // without deleting it: clear it for everyone behind.
                if same_file(&path, &file) {
                    let _ = fs::remove_file(&path);
                }
                continue;
            }
            if Instant::now() >= deadline {
                let ahead = Self::list_tickets(&queue)?
                    .iter()
                    .filter(|t| t.seq < mine)
                    .count();
                return Ok(Err(QueueTimeout { ahead }));
            }
        }
    }

    fn watch(&self, site: &str) -> Result<FileWatch> {
        let dir = self.site_dir_created(site)?;
        Ok(FileWatch::new(&dir))
    }

    fn update_site<R>(
        &self,
        site: &str,
        heal_at: EpochMs,
        deadline: Instant,
        f: impl FnOnce(&mut SiteState) -> R,
    ) -> Result<R> {
        let dir = self.site_dir(site);
        let _lock = self.lock_site(&dir, deadline)?;
        let path = dir.join("state.json");
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(|e| Error::io("open", &path, e))?;
        let mut bytes = Vec::with_capacity(512);
        file.read_to_end(&mut bytes)
            .map_err(|e| Error::io("read", &path, e))?;
        let Some(mut state) = Self::parse_state(&bytes, site) else {
            let moved_to = dir.join(format!("state.json.corrupt-{heal_at}"));
            fs::rename(&path, &moved_to).map_err(|e| Error::io("rename", &path, e))?;
            let mut healed = SiteState::new(site);
            healed.last_finish_ms = Some(heal_at);
            write_json(&path, &healed)?;
            return Err(Error::CorruptState {
                path,
                moved_to,
                retry_after_ms: 0,
            });
        };
        let before = state.clone();
        let out = f(&mut state);
        if state != before {
            // Rewritten in place, under the site lock that every reader of
            // this file also takes, in one write that is padded with blanks
            // to cover the old contents. Not temp file + rename: on ext4 a
            // rename over a file starts writing it out at once, which cost
            // more than the rest of the event (BENCHMARKS.md). A process
            // killed mid-update cannot tear one write; a power cut can, and a
            // torn file reads as corrupt, which counts as busy.
            overwrite_json(&file, &path, &state, bytes.len())?;
        }
        Ok(out)
    }

    fn known_sites(&self) -> Result<Vec<String>> {
        let dir = self.root.join("sites");
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io("read", &dir, e)),
        };
        let mut sites = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("read", &dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(key) = site::key_from_file_name(&name) {
                sites.push(key);
            } else if let Ok(bytes) = fs::read(entry.path().join("state.json")) {
                // A shortened name: the key is inside the state.
                if let Ok(s) = serde_json::from_slice::<SiteState>(&bytes) {
                    sites.push(s.site);
                }
            }
        }
        sites.sort();
        Ok(sites)
    }

    fn tabs(&self) -> Result<TabMap> {
        let path = self.root.join("tabs.json");
        match fs::read(&path) {
            // An unreadable map is an empty one: every tab is then unknown and
            // counted against every site, which errs towards waiting.
            Ok(bytes) => Ok(serde_json::from_slice(&bytes).unwrap_or_default()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(TabMap::default()),
            Err(e) => Err(Error::io("read", &path, e)),
        }
    }

    fn update_tabs(&self, f: impl Fn(&mut TabMap)) -> Result<()> {
        // Most events change nothing: look first without the lock.
        let mut map = self.tabs()?;
        let before = map.clone();
        f(&mut map);
        if map == before {
            return Ok(());
        }
        let lock_path = self.root.join("tabs.lock");
        let lock = open_making_dir(
            OpenOptions::new().create(true).truncate(false).write(true),
            &lock_path,
        )?;
        let deadline = Instant::now() + Duration::from_secs(10);
        if !lock_by(&lock, deadline).map_err(|e| Error::io("lock", &lock_path, e))? {
            return Err(Error::LockTimeout { path: lock_path });
        }
        let mut map = self.tabs()?;
        let before = map.clone();
        f(&mut map);
        map.trim();
        if map != before {
            write_json(&self.root.join("tabs.json"), &map)?;
        }
        Ok(())
    }

    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()> {
        if let Some(agent) = agent {
            return self.write_slot(agent, record, true);
        }
        let dir = self.root.join("calls");
        // A new file under a name of its own, read only after this process
        // has exited: no temp file and rename needed.
        let mut bytes = serde_json::to_vec(record).expect("record serializes");
        bytes.push(b'\n');
        write_direct(
            &dir.join(format!("{}.json", site::file_name(&record.call))),
            &bytes,
        )?;
        // Calls whose Post never came leave a record behind; sweep old ones
        // now and then rather than on every event.
        if record.started_ms.is_multiple_of(64) {
            sweep(&dir, record.started_ms, 24 * 3_600_000);
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
        let path = self
            .root
            .join("calls")
            .join(format!("{}.json", site::file_name(call)));
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("read", &path, e)),
        };
        let _ = fs::remove_file(&path);
        Ok(serde_json::from_slice(&bytes).ok())
    }

    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>> {
        let path = self.slot_path(agent);
        match fs::read(&path) {
            // A slot that does not parse (torn by a power cut) holds no open
            // call: the call's hold then runs its course.
            Ok(bytes) => Ok(serde_json::from_slice::<AgentSlot>(&bytes)
                .ok()
                .filter(|s| s.open)
                .map(|s| s.record)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io("read", &path, e)),
        }
    }
}

/// An agent's last admitted call, and whether a finish has taken it yet.
#[derive(serde::Serialize, serde::Deserialize)]
struct AgentSlot {
    #[serde(flatten)]
    record: CallRecord,
    open: bool,
}

impl FileStore {
    fn slot_path(&self, agent: &str) -> PathBuf {
        self.root.join("agents").join(site::file_name(agent))
    }

    /// Rewrite `agent`'s slot in place, padded with blanks over whatever it
    /// held: a new file per call, or a rename, makes ext4 start writing the
    /// data out at once, which costs more than the rest of the event. Only
    /// the agent itself writes its slot, one call at a time.
    fn write_slot(&self, agent: &str, record: &CallRecord, open: bool) -> Result<()> {
        let path = self.slot_path(agent);
        let slot = AgentSlot {
            record: record.clone(),
            open,
        };
        let file = open_making_dir(
            OpenOptions::new().create(true).truncate(false).write(true),
            &path,
        )?;
        let old = file.metadata().map(|m| m.len() as usize).unwrap_or(0);
        overwrite_json(&file, &path, &slot, old)?;
        let now = record.started_ms;
        if open
            && now.is_multiple_of(64)
            && let Some(dir) = path.parent()
        {
            sweep(dir, now, 7 * 24 * 3_600_000);
        }
        Ok(())
    }
}

/// Wakes when a site's state file is replaced. On Linux an inotify watch on
/// the site directory; elsewhere, or if inotify is unavailable, short sleeps.
#[derive(Debug)]
pub struct FileWatch {
    #[cfg(target_os = "linux")]
    fd: Option<std::os::fd::OwnedFd>,
}

/// How often a waiter without inotify looks at the state again.
const POLL_FALLBACK: Duration = Duration::from_millis(20);

impl FileWatch {
    #[cfg(target_os = "linux")]
    fn new(dir: &Path) -> Self {
        use std::os::{fd::FromRawFd, unix::ffi::OsStrExt};
        let Ok(cpath) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
            return Self { fd: None };
        };
        // SAFETY: plain syscalls; the fd is owned by OwnedFd from here on.
        let fd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC | libc::IN_NONBLOCK) };
        if fd < 0 {
            return Self { fd: None };
        }
        let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
        use std::os::fd::AsRawFd;
        // SAFETY: valid fd and NUL-terminated path.
        let wd = unsafe {
            // IN_MODIFY: the state is rewritten in place; IN_MOVED_TO: or
            // replaced, when a corrupt one is healed. Nothing else in the
            // site's directory is ever written (the lock file is only locked).
            libc::inotify_add_watch(
                fd.as_raw_fd(),
                cpath.as_ptr(),
                libc::IN_MODIFY | libc::IN_MOVED_TO,
            )
        };
        Self {
            fd: (wd >= 0).then_some(fd),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn new(_dir: &Path) -> Self {
        Self {}
    }
}

impl Watch for FileWatch {
    #[cfg(target_os = "linux")]
    fn wait(&mut self, timeout: Duration) -> Result<()> {
        use std::os::fd::AsRawFd;
        let Some(fd) = &self.fd else {
            std::thread::sleep(timeout.min(POLL_FALLBACK));
            return Ok(());
        };
        // The kernel lets a poll-family timeout run late by 0.1 % of its
        // length (2 ms on a 2 s wait, up to 100 ms), so poll for all but that
        // margin and sleep the rest with nanosleep, whose slack is 50 µs. A
        // change during that last stretch only means waking a little later
        // than the change allowed; never earlier than due.
        let deadline = Instant::now() + timeout;
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
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    fn wait(&mut self, timeout: Duration) -> Result<()> {
        std::thread::sleep(timeout.min(POLL_FALLBACK));
        Ok(())
    }
}

/// Take `file`'s exclusive lock, blocking until `deadline` at most. Returns
/// whether it was taken. The uncontended case is one non-blocking call; a
/// contended one blocks in a helper thread so the wait can be bounded
/// (`flock` itself has no timeout).
fn lock_by(file: &File, deadline: Instant) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => return Ok(true),
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(e)) => return Err(e),
    }
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Ok(false);
    }
    // The clone shares the open file description, so a lock it takes is this
    // file's lock. If we time out and the thread wins later, the lock lives
    // only until both handles are closed, which the caller does on return.
    let clone = file.try_clone()?;
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        let _ = tx.send(clone.lock());
    });
    match rx.recv_timeout(left) {
        Ok(r) => r.map(|()| true),
        Err(_) => Ok(false),
    }
}

fn same_file(path: &Path, file: &File) -> bool {
    match (fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Open `path` (files are made 0600), first making its directory (0700) if
/// it is missing: directories are made on the first write, not checked on
/// every event.
fn open_making_dir(options: &mut OpenOptions, path: &Path) -> Result<File> {
    options.mode(0o600);
    match options.open(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            make_dir(path.parent().unwrap_or(path))?;
            options.open(path).map_err(|e| Error::io("open", path, e))
        }
        other => other.map_err(|e| Error::io("open", path, e)),
    }
}

fn make_dir(path: &Path) -> Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(|e| Error::io("create directory", path, e))
}

/// Overwrite `file` (at `path`, `old_len` bytes long) with `value` as JSON in
/// one write from offset 0, padded with blanks over the old contents: never
/// truncated, so ext4 does not start writing it out (see `update_site`).
fn overwrite_json(
    file: &File,
    path: &Path,
    value: &impl serde::Serialize,
    old_len: usize,
) -> Result<()> {
    let mut bytes = serde_json::to_vec(value).expect("state serializes");
    bytes.push(b'\n');
    if bytes.len() < old_len {
        bytes.resize(old_len, b' ');
    }
    file.write_all_at(&bytes, 0)
        .map_err(|e| Error::io("write", path, e))
}

/// Write JSON to `path` atomically: a temp file beside it, then rename.
fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<()> {
    let mut bytes = serde_json::to_vec(value).expect("state serializes");
    bytes.push(b'\n');
    write_bytes(path, &bytes)
}

/// Write `bytes` to `path` in place.
fn write_direct(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = open_making_dir(
        OpenOptions::new().create(true).truncate(true).write(true),
        path,
    )?;
    f.write_all(bytes).map_err(|e| Error::io("write", path, e))
}

/// Write `bytes` to `path` atomically: a temp file beside it, then rename,
/// making its directory (0700) if missing.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let mut f = open_making_dir(
        OpenOptions::new().create(true).truncate(true).write(true),
        &tmp,
    )?;
    f.write_all(bytes)
        .map_err(|e| Error::io("write", &tmp, e))?;
    drop(f);
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io("replace", path, e)
    })
}

fn sweep(dir: &Path, now_ms: EpochMs, older_than_ms: u64) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let cutoff =
        std::time::UNIX_EPOCH + Duration::from_millis(now_ms.saturating_sub(older_than_ms));
    for entry in entries.flatten() {
        if entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t < cutoff)
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::Policy;

    fn store(name: &str) -> FileStore {
        let dir =
            std::env::temp_dir().join(format!("pace-hook-unit-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        FileStore::open(dir, 60_000).unwrap()
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[test]
    fn a_state_that_shrinks_in_place_reads_back_whole() {
        let s = store("shrink");
        let p = Policy {
            interval_ms: 10,
            hold_ms: 1_000,
        };
        for call in ["a-long-call-id-to-make-the-state-big", "b", "c"] {
            s.update_site("x.com", 0, soon(), |st| st.admit(call, 5, &p))
                .unwrap();
        }
        s.update_site("x.com", 0, soon(), |st| {
            st.in_flight.clear();
            st.last_finish_ms = Some(7);
        })
        .unwrap();
        let state = s.update_site("x.com", 0, soon(), |st| st.clone()).unwrap();
        assert_eq!(state.last_finish_ms, Some(7));
        assert!(state.in_flight.is_empty());
        let on_disk = fs::read(s.root().join("sites/x.com/state.json")).unwrap();
        assert!(
            on_disk.ends_with(b" "),
            "old contents must be blanked, not left behind"
        );
        let _ = fs::remove_dir_all(s.root());
    }

    #[test]
    fn state_of_another_site_counts_as_corrupt() {
        let s = store("other");
        s.update_site("x.com", 0, soon(), |st| st.finish("a", 1))
            .unwrap();
        let dir = s.root().join("sites");
        fs::rename(dir.join("x.com"), dir.join("y.com")).unwrap();
        let e = s.update_site("y.com", 99, soon(), |_| ()).unwrap_err();
        assert!(matches!(e, Error::CorruptState { .. }), "{e}");
        // Healed as busy from the given time.
        let healed = s.update_site("y.com", 0, soon(), |st| st.clone()).unwrap();
        assert_eq!(healed.last_finish_ms, Some(99));
        let _ = fs::remove_dir_all(s.root());
    }
}
