//! The state directory, opened so that nothing planted in it can send a
//! write elsewhere.
//!
//! Every file and directory under the state directory is reached one path
//! component at a time from an open directory (`openat`), never following a
//! symbolic link, so a link planted at `agents/<session>`, `gate.log` or
//! `sites/<site>` fails to open instead of sending a write to the link's
//! target. The state directory itself, and every directory in it, must belong
//! to this user and be writable by nobody else; what pace-hook creates is
//! private (directories 0700, files 0600).
//!
//! The store, the gate log and the config cache all live here, and all go
//! through [`Dir`].

use std::{
    ffi::CString,
    fs::File,
    io,
    os::{
        fd::{AsRawFd, FromRawFd, OwnedFd},
        unix::ffi::OsStrExt,
    },
    path::{Path, PathBuf},
};

use crate::error::{Error, Result};

/// The state directory: `PACE_HOOK_HOME`, else the user cache directory's
/// `pace-hook` (`$XDG_CACHE_HOME` or `~/.cache`; `~/Library/Caches` on macOS).
pub(crate) fn default_root() -> Result<PathBuf> {
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

/// An open directory of the state, and its path for messages.
#[derive(Debug)]
pub(crate) struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

fn cstr(name: &str) -> io::Result<CString> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a single path component",
        ));
    }
    CString::new(name).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in name"))
}

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// How a file is opened.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mode {
    /// Read only; must exist.
    Read,
    /// Read and write, created if missing, never truncated.
    ReadWrite,
    /// Write, created if missing, never truncated.
    Write,
    /// Write, created, truncated.
    Replace,
    /// Write, must not exist yet.
    CreateNew,
    /// Append, created if missing.
    Append,
}

impl Dir {
    /// Open (creating it, private, if `create`) the state directory at
    /// `path`. The path itself may lead through symbolic links (a home on
    /// another disk): it is the user's own choice. The directory must belong
    /// to this user and be writable by nobody else.
    pub(crate) fn open_root(path: &Path, create: bool) -> Result<Dir> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| Error::io("open", path, io::ErrorKind::InvalidInput.into()))?;
        let open = || {
            // SAFETY: a valid NUL-terminated path; the fd is owned below.
            check(unsafe {
                libc::open(
                    c.as_ptr(),
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
                )
            })
        };
        let fd = match open() {
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(path)
                    .map_err(|e| Error::io("create directory", path, e))?;
                open().map_err(|e| Error::io("open", path, e))?
            }
            other => other.map_err(|e| Error::io("open", path, e))?,
        };
        // SAFETY: `fd` was just returned by open and is owned from here on.
        let dir = Dir {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            path: path.to_owned(),
        };
        dir.check_owner()?;
        Ok(dir)
    }

    /// The directory's path, for messages.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The path of `name` in this directory, for messages.
    pub(crate) fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Refuse a directory that belongs to someone else or that others may
    /// write to: anyone who can write here can plant state that paces or
    /// blocks this user's calls.
    fn check_owner(&self) -> Result<()> {
        let st = fstat(self.fd.as_raw_fd()).map_err(|e| Error::io("inspect", &self.path, e))?;
        let me = euid();
        if st.st_uid != me {
            return Err(Error::UnsafeStateDir {
                path: self.path.clone(),
                problem: format!("belongs to user id {}, not to you ({me})", st.st_uid),
                fix: "point PACE_HOOK_HOME at a directory of your own".to_owned(),
            });
        }
        if st.st_mode as u32 & 0o022 != 0 {
            return Err(Error::UnsafeStateDir {
                path: self.path.clone(),
                problem: format!(
                    "can be written by {} (mode {:o})",
                    if st.st_mode as u32 & 0o002 != 0 {
                        "anyone"
                    } else {
                        "its group"
                    },
                    st.st_mode as u32 & 0o7777
                ),
                fix: format!("run `chmod go-w {}`", self.path.display()),
            });
        }
        Ok(())
    }

    /// The subdirectory `name`, made private if missing and `create`;
    /// `None` if it is missing and not to be made. A symbolic link or a
    /// non-directory there is refused with what to remove.
    pub(crate) fn sub(&self, name: &str, create: bool) -> Result<Option<Dir>> {
        let c = cstr(name).map_err(|e| Error::io("open", self.join(name), e))?;
        let open = || {
            // SAFETY: valid dirfd and NUL-terminated single component.
            check(unsafe {
                libc::openat(
                    self.fd.as_raw_fd(),
                    c.as_ptr(),
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                )
            })
        };
        let fd = match open() {
            Ok(fd) => fd,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if !create {
                    return Ok(None);
                }
                // SAFETY: as above.
                match check(unsafe { libc::mkdirat(self.fd.as_raw_fd(), c.as_ptr(), 0o700) }) {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(Error::io("create directory", self.join(name), e)),
                }
                open().map_err(|e| self.refuse(name, e, "open"))?
            }
            Err(e) => return Err(self.refuse(name, e, "open")),
        };
        // SAFETY: fd was just returned by openat.
        let dir = Dir {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            path: self.join(name),
        };
        dir.check_owner()?;
        Ok(Some(dir))
    }

    /// The error for `name` that could not be opened: a symbolic link or a
    /// thing of the wrong kind is named as tampering, with what to remove.
    pub(crate) fn refuse(&self, name: &str, e: io::Error, op: &'static str) -> Error {
        let path = self.join(name);
        let link = self
            .stat(name)
            .is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFLNK);
        let kind = match e.raw_os_error() {
            Some(libc::ELOOP) => Some("a symbolic link"),
            Some(libc::ENOTDIR) if link => Some("a symbolic link"),
            Some(libc::ENOTDIR) => Some("not a directory"),
            Some(libc::EISDIR) => Some("a directory, not a file"),
            Some(libc::ENXIO) => Some("not a regular file"),
            _ => None,
        };
        match kind {
            Some(what) => Error::Tampered {
                fix: format!("remove `{}`", path.display()),
                path,
                what: what.to_owned(),
            },
            None => Error::io(op, path, e),
        }
    }

    /// Open file `name` here, never following a symbolic link; files made
    /// here are private. Only regular files are opened: a FIFO or a device
    /// planted in the state would hang or misbehave.
    pub(crate) fn open(&self, name: &str, mode: Mode) -> io::Result<File> {
        self.open_sized(name, mode).map(|(file, _)| file)
    }

    /// [`Self::open`], with the file's length when it was opened (from the
    /// check that it is a regular file, so it costs no system call).
    pub(crate) fn open_sized(&self, name: &str, mode: Mode) -> io::Result<(File, u64)> {
        let c = cstr(name)?;
        let flags = match mode {
            Mode::Read => libc::O_RDONLY,
            Mode::ReadWrite => libc::O_RDWR | libc::O_CREAT,
            Mode::Write => libc::O_WRONLY | libc::O_CREAT,
            Mode::Replace => libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
            Mode::CreateNew => libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
            Mode::Append => libc::O_WRONLY | libc::O_CREAT | libc::O_APPEND,
        } | libc::O_NOFOLLOW
            | libc::O_CLOEXEC
            | libc::O_NONBLOCK;
        // SAFETY: valid dirfd, NUL-terminated single component; mode is a
        // plain integer for the variadic argument.
        let fd = check(unsafe {
            libc::openat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                flags,
                0o600 as libc::c_uint,
            )
        })?;
        // SAFETY: fd was just returned by openat.
        let file = unsafe { File::from_raw_fd(fd) };
        let st = fstat(file.as_raw_fd())?;
        if st.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Err(io::Error::from_raw_os_error(
                if st.st_mode & libc::S_IFMT == libc::S_IFDIR {
                    libc::EISDIR
                } else {
                    libc::ENXIO
                },
            ));
        }
        // O_NONBLOCK was only to not hang on a FIFO. It stays set: a regular
        // file's reads and writes ignore it (and `flock` never looks at it),
        // and clearing it cost two system calls on every file of every event.
        Ok((file, u64::try_from(st.st_size).unwrap_or(0)))
    }

    /// Rename `from` here to `to` in `target` (which may be this directory).
    pub(crate) fn rename(&self, from: &str, target: &Dir, to: &str) -> io::Result<()> {
        let (f, t) = (cstr(from)?, cstr(to)?);
        // SAFETY: valid dirfds and NUL-terminated components.
        check(unsafe {
            libc::renameat(
                self.fd.as_raw_fd(),
                f.as_ptr(),
                target.fd.as_raw_fd(),
                t.as_ptr(),
            )
        })
        .map(|_| ())
    }

    /// Remove file `name` (or, with `dir`, the empty directory `name`).
    pub(crate) fn unlink(&self, name: &str, dir: bool) -> io::Result<()> {
        let c = cstr(name)?;
        let flags = if dir { libc::AT_REMOVEDIR } else { 0 };
        // SAFETY: valid dirfd and NUL-terminated component.
        check(unsafe { libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), flags) }).map(|_| ())
    }

    /// `name`'s metadata, without following a link.
    pub(crate) fn stat(&self, name: &str) -> io::Result<libc::stat> {
        let c = cstr(name)?;
        // SAFETY: zeroed stat is a valid out-parameter.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: valid dirfd, component and out-pointer.
        check(unsafe {
            libc::fstatat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                &mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        })?;
        Ok(st)
    }

    /// The names in this directory (without `.` and `..`); names that are
    /// not UTF-8 are left out: pace-hook never makes them.
    pub(crate) fn names(&self) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        self.each_name(&mut |name| {
            if name != b"."
                && name != b".."
                && let Ok(s) = std::str::from_utf8(name)
            {
                out.push(s.to_owned());
            }
        })?;
        Ok(out)
    }

    /// Each name in the directory, `.` and `..` too. On Linux, the
    /// directory's own descriptor is read from its start with `getdents64`:
    /// three system calls for an empty queue, where `fdopendir` on a copy
    /// of the descriptor takes eight (the copy, its checks, its close).
    #[cfg(target_os = "linux")]
    fn each_name(&self, f: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        // The head of a `struct linux_dirent64`: inode (8 bytes), offset
        // (8), record length (2), type (1); the name follows, NUL-ended.
        const HEAD: usize = 19;
        let fd = self.fd.as_raw_fd();
        // SAFETY: a valid descriptor; rewound so a reused one starts from
        // the top.
        if unsafe { libc::lseek(fd, 0, libc::SEEK_SET) } < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut buf = [0u8; 16 * 1024];
        loop {
            // SAFETY: the kernel writes at most `buf.len()` bytes into `buf`.
            let n = unsafe { libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len()) };
            let n = match usize::try_from(n) {
                Ok(0) => return Ok(()),
                Ok(n) => n.min(buf.len()),
                Err(_) => {
                    let e = io::Error::last_os_error();
                    if e.kind() == io::ErrorKind::Interrupted {
                        continue;
                    }
                    return Err(e);
                }
            };
            let mut rest = &buf[..n];
            while !rest.is_empty() {
                let len = rest
                    .get(16..18)
                    .map_or(0, |b| usize::from(u16::from_ne_bytes([b[0], b[1]])));
                if len <= HEAD || len > rest.len() {
                    return Err(io::Error::other(
                        "the kernel returned a malformed directory entry",
                    ));
                }
                let name = &rest[HEAD..len];
                f(&name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())]);
                rest = &rest[len..];
            }
        }
    }

    /// Each name in the directory, `.` and `..` too, through `readdir` on a
    /// copy of the descriptor (which `closedir` closes).
    #[cfg(not(target_os = "linux"))]
    fn each_name(&self, f: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        // SAFETY: dup of an owned fd; fdopendir takes ownership of the dup.
        let dup = check(unsafe { libc::fcntl(self.fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) })?;
        // SAFETY: dup is a valid directory fd.
        let dirp = unsafe { libc::fdopendir(dup) };
        if dirp.is_null() {
            let e = io::Error::last_os_error();
            // SAFETY: dup is still ours when fdopendir fails.
            unsafe { libc::close(dup) };
            return Err(e);
        }
        // SAFETY: rewind so a reused description starts from the top.
        unsafe { libc::rewinddir(dirp) };
        loop {
            // SAFETY: dirp is valid until closedir below.
            let ent = unsafe { libc::readdir(dirp) };
            if ent.is_null() {
                break;
            }
            // SAFETY: d_name is NUL-terminated within the entry.
            f(unsafe { std::ffi::CStr::from_ptr((*ent).d_name.as_ptr()) }.to_bytes());
        }
        // SAFETY: dirp came from fdopendir and is closed once.
        unsafe { libc::closedir(dirp) };
        Ok(())
    }
}

impl Dir {
    /// Another handle on the same directory.
    pub(crate) fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir {
            fd: self.fd.try_clone()?,
            path: self.path.clone(),
        })
    }

    /// Replace file `name` with `bytes` as one step: written to a temp file
    /// beside it, then renamed over it, so a reader sees the old or the new
    /// contents, never a mix.
    pub(crate) fn write_atomic(&self, name: &str, bytes: &[u8]) -> Result<()> {
        use std::io::Write as _;
        let tmp = format!(".{name}.tmp{}", std::process::id());
        let mut f = self
            .open(&tmp, Mode::Replace)
            .map_err(|e| self.refuse(&tmp, e, "create"))?;
        if let Err(e) = f.write_all(bytes) {
            let _ = self.unlink(&tmp, false);
            return Err(Error::io("write", self.join(&tmp), e));
        }
        drop(f);
        self.rename(&tmp, self, name).map_err(|e| {
            let _ = self.unlink(&tmp, false);
            Error::io("replace", self.join(name), e)
        })
    }
}

/// This process's effective user id, asked once: every directory of the
/// state is checked against it, a dozen times in a paced event.
pub(crate) fn euid() -> libc::uid_t {
    static EUID: std::sync::OnceLock<libc::uid_t> = std::sync::OnceLock::new();
    // SAFETY: geteuid cannot fail.
    *EUID.get_or_init(|| unsafe { libc::geteuid() })
}

/// The most of one file [`read_all`] reads: a state file, or the config.
/// Far past anything pace-hook writes (a site's state keeps at most 10,000
/// admission times, a tab map 512 tabs; a call paced on 100,000 configured
/// sites records about 5 MB) or anyone writes by hand, so a larger file was
/// planted or corrupted. Read whole, a sparse
/// file of gigabytes held the hook for half a minute and 4 GB of memory:
/// past its client's timeout, which lets the call through unpaced.
pub(crate) const READ_LIMIT: u64 = 64 << 20;

/// Read the rest of `file` into `buf`, as `read_to_end` does, without the
/// size probe std makes for a `File` (a `statx` and an `lseek` per read):
/// the state's files are small, and [`Dir::open`] has just looked at them.
/// A file longer than [`READ_LIMIT`] is an error of kind `FileTooLarge`,
/// with `buf` as it was.
pub(crate) fn read_all(file: &File, buf: &mut Vec<u8>) -> io::Result<usize> {
    /// A reader std knows nothing of, so its `read_to_end` is the plain loop.
    struct Plain<'a>(&'a File);
    impl io::Read for Plain<'_> {
        fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
            io::Read::read(&mut self.0, b)
        }
    }
    let start = buf.len();
    buf.reserve(1024);
    let n = io::Read::read_to_end(&mut io::Read::take(Plain(file), READ_LIMIT + 1), buf)?;
    if n as u64 > READ_LIMIT {
        buf.truncate(start);
        return Err(too_large());
    }
    Ok(n)
}

/// The error of a file past [`READ_LIMIT`].
fn too_large() -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "larger than {} MiB, far more than a state file or a config ever holds",
            READ_LIMIT >> 20
        ),
    )
}

fn fstat(fd: libc::c_int) -> io::Result<libc::stat> {
    // SAFETY: zeroed stat is a valid out-parameter.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid fd and out-pointer.
    check(unsafe { libc::fstat(fd, &mut st) })?;
    Ok(st)
}

use std::os::unix::fs::DirBuilderExt;

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{PermissionsExt, symlink};

    use super::*;

    fn temp(name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("pace-hook-dir-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        p
    }

    #[test]
    fn a_planted_symlink_is_refused_not_followed() {
        let root = temp("link");
        let d = Dir::open_root(&root, true).unwrap();
        let target = root.with_extension("target");
        std::fs::write(&target, b"precious").unwrap();
        symlink(&target, root.join("gate.log")).unwrap();
        let e = d.open("gate.log", Mode::Append).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
        assert_eq!(std::fs::read(&target).unwrap(), b"precious");
        symlink(&target, root.join("agents")).unwrap();
        let e = d.sub("agents", true).unwrap_err();
        assert!(matches!(e, Error::Tampered { .. }), "{e}");
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_file(&target);
    }

    #[test]
    fn a_directory_others_can_write_is_refused_with_the_fix() {
        let root = temp("mode");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = Dir::open_root(&root, true).unwrap_err().to_string();
        assert!(e.contains("can be written by anyone (mode 777)"), "{e}");
        assert!(e.contains("chmod go-w"), "{e}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_fifo_is_not_opened_as_a_file() {
        let root = temp("fifo");
        let d = Dir::open_root(&root, true).unwrap();
        let c = CString::new(root.join("state.json").as_os_str().as_bytes()).unwrap();
        // SAFETY: valid path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = d.open("state.json", Mode::ReadWrite).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENXIO));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn names_list_what_is_there_and_made_files_are_private() {
        let root = temp("names");
        let d = Dir::open_root(&root, true).unwrap();
        d.open("a", Mode::CreateNew).unwrap();
        let sub = d.sub("b", true).unwrap().unwrap();
        let mut names = d.names().unwrap();
        names.sort();
        assert_eq!(names, ["a", "b"]);
        assert!(sub.names().unwrap().is_empty());
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            std::fs::metadata(root.join("a")).unwrap().mode() & 0o777,
            0o600
        );
        assert_eq!(
            std::fs::metadata(root.join("b")).unwrap().mode() & 0o777,
            0o700
        );
        assert!(d.open("../x", Mode::Read).is_err());
        let _ = std::fs::remove_dir_all(&root);
    }
}
