//! The file store's site steps: under the site lock, read the state, apply
//! the step, write it back in place; and the watch that wakes a waiter when
//! the state file is written.

use std::{
    fs::File,
    io::ErrorKind,
    os::{fd::AsRawFd, unix::fs::FileExt},
    sync::Arc,
    time::Duration,
};

use super::{FileStore, LOCK_WAIT, Sub, queue::lease_alive};
use crate::{
    error::{Error, Result},
    key,
    pacing::clock::{Clock, Mono},
    pacing::decision::{Policy, SiteState},
    pacing::step::{self, Applied, Now, Step},
    state_dir::{self, Dir, Mode},
    store::{Sites, Stepped, Watch},
};

impl FileStore {
    /// Run `f` on `site`'s state under the site lock, with a look at
    /// whether a lease is alive, and write the state back in place if it
    /// changed. A state that cannot be read is healed as
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
        f: impl FnOnce(&mut SiteState, &dyn Clock, &dyn Fn(&str) -> bool) -> R,
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
        // Leases are only looked up for a state that holds one.
        let leases = match state.in_flight.iter().any(|f| f.lease.is_some()) {
            true => self.sub(Sub::Leases, false)?,
            false => None,
        };
        let alive = |id: &str| leases.as_ref().is_some_and(|l| lease_alive(l, id, true));
        let out = f(&mut state, self.clock.as_ref(), &alive);
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
            retry_after_ms: policy.lost_for_ms(),
        }
    }
}

/// Why a state could not be read.
enum Unreadable {
    /// The file had these bytes, which are not this site's state.
    Bytes(Vec<u8>),
    /// Something other than a file is there, or one that cannot be read
    /// (past [`state_dir::READ_LIMIT`]): it is renamed aside, not copied.
    NotAFile,
    /// No state file, though the site's directory exists.
    Missing,
}

fn read_state(dir: &Dir, site: &str) -> Result<(File, usize, SiteState), Unreadable> {
    let file = match dir.open("state.json", Mode::ReadWrite) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Err(Unreadable::Missing),
        Err(_) => return Err(Unreadable::NotAFile),
    };
    let mut bytes = Vec::with_capacity(512);
    if state_dir::read_all(&file, &mut bytes).is_err() {
        return Err(Unreadable::NotAFile);
    }
    // A state is always written whole, so empty or blank is a lost one.
    match serde_json::from_slice::<SiteState>(&bytes) {
        Ok(s) if s.site == site => Ok((file, bytes.len(), s)),
        _ => Err(Unreadable::Bytes(bytes)),
    }
}

pub(super) fn state_bytes(state: &SiteState, pad_to: usize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(state).expect("state serializes");
    bytes.push(b'\n');
    if bytes.len() < pad_to {
        bytes.resize(pad_to, b' ');
    }
    bytes
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

impl Sites for FileStore {
    fn step(&self, site: &str, step: Step<'_>, deadline: Option<Mono>) -> Result<Stepped> {
        let deadline = deadline.unwrap_or_else(|| self.clock.mono().after(LOCK_WAIT));
        let heal = step.heal(&self.settings.lost);
        let (create, fail_on_lost) = (step.makes_site(), step.fails_on_lost());
        let finish = matches!(step, Step::Finish { .. });
        self.states_read.forget(site);
        let (applied, after) = self
            .with_state(
                site,
                create,
                fail_on_lost,
                deadline,
                &heal,
                |state, clock, alive| {
                    let applied = step::apply(state, step, Now::of(clock), alive);
                    (applied, finish.then(|| state.clone()))
                },
            )?
            .unwrap_or((Applied::Found(false), None));
        if let Some(state) = after {
            self.states_read.keep(site, state);
        }
        Ok(Stepped::by(self.clock.as_ref(), applied))
    }

    fn watch(&self, site: &str) -> Result<Box<dyn Watch>> {
        let dir = self.site_dir(site, true)?.expect("made");
        Ok(Box::new(FileWatch::new(&dir, self.clock.clone())))
    }

    /// A look under the site lock that never writes: `status` and `doctor`
    /// read through here, and must not heal, reclaim or rewrite what they
    /// report on. Holds whose lease has lapsed are left out of the copy
    /// returned, as every step of the gate would drop them; an unreadable
    /// state is an error that says the gate counts the site as busy.
    fn site_state(&self, site: &str) -> Result<Option<SiteState>> {
        // As this process's finish just left it, for this look (once).
        if let Some(state) = self.states_read.take(site) {
            return Ok(Some(state));
        }
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
            .and_then(|f| state_dir::read_all(&f, &mut bytes))
            .map_err(|e| unreadable(format!("cannot be read ({e})")))?;
        let mut state = match serde_json::from_slice::<SiteState>(&bytes) {
            Ok(s) if s.site == site => s,
            _ => return Err(unreadable("is not this site's state".to_owned())),
        };
        if state.in_flight.iter().any(|f| f.lease.is_some()) {
            let leases = self.sub(Sub::Leases, false)?;
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
                && let Ok(f) = d.open("state.json", Mode::Read)
            {
                // A shortened name: the key is inside the state.
                let mut bytes = Vec::new();
                if state_dir::read_all(&f, &mut bytes).is_ok()
                    && let Ok(s) = serde_json::from_slice::<SiteState>(&bytes)
                {
                    out.push(s.site);
                }
            }
        }
        out.sort();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pacing::decision::Decision;
    use crate::store::Options;

    fn store(name: &str) -> FileStore {
        let dir =
            std::env::temp_dir().join(format!("pace-hook-unit-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        FileStore::open(dir, Options::default()).unwrap()
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
            s.with_state("x.com", true, true, soon(&s), &P, |st, _, _| {
                st.admit(call, 5, &P, None)
            })
            .unwrap();
        }
        s.with_state("x.com", true, true, soon(&s), &P, |st, _, _| {
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
    fn a_planted_state_too_large_to_read_is_busy_and_set_aside() {
        use std::os::unix::fs::MetadataExt;
        let s = store("huge");
        s.finish("x.com", "a", 10).unwrap();
        // A state that reads as whole JSON for its first bytes, then runs on
        // past the limit (sparse, so it costs no disk).
        let state = s.root_path().join("sites/x.com/state.json");
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&state)
            .unwrap();
        f.set_len(state_dir::READ_LIMIT + 1).unwrap();
        let planted = std::fs::metadata(&state).unwrap().ino();
        let e = s.try_admit("x.com", "c", &P, None, soon(&s)).unwrap_err();
        let Error::CorruptState { moved_to, .. } = &e else {
            panic!("{e}");
        };
        // Renamed aside, not read in and copied.
        let aside = std::fs::metadata(moved_to.as_ref().expect("set aside")).unwrap();
        assert_eq!(aside.ino(), planted);
        assert_eq!(aside.len(), state_dir::READ_LIMIT + 1);
        // Healed as busy, and small again.
        let a = s.try_admit("x.com", "c", &P, None, soon(&s)).unwrap();
        assert!(matches!(a.decision, Decision::WaitUntil(_)), "{a:?}");
        assert!(std::fs::metadata(&state).unwrap().len() < 1024);
        let _ = std::fs::remove_dir_all(s.root_path());
    }

    #[test]
    fn the_look_after_a_finish_is_answered_by_the_finish_once() {
        let s = store("read-along");
        s.finish("x.com", "a", 10).unwrap();
        let state = s.root_path().join("sites/x.com/state.json");
        std::fs::write(&state, b"not a state").unwrap();
        // The finish's own state, not the file: once.
        let kept = s.site_state("x.com").unwrap().unwrap();
        assert_eq!(kept.site, "x.com");
        assert!(kept.last_finish_ms.is_some());
        assert!(
            s.site_state("x.com").is_err(),
            "the second look reads the file"
        );
        let _ = std::fs::remove_dir_all(s.root_path());
        // Another step in between makes what the finish read stale.
        let s = store("read-along-stale");
        s.finish("x.com", "a", 10).unwrap();
        s.cancel("x.com", "b").unwrap();
        let state = s.root_path().join("sites/x.com/state.json");
        std::fs::write(&state, b"not a state").unwrap();
        assert!(s.site_state("x.com").is_err());
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
