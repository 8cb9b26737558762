//! Running a build as Claude Code runs a hook: spawned fresh, its event on a
//! pipe, timed from spawn to exit, reaped for its CPU time.

#[allow(unused_imports)]
use super::*;

/// One process run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sample {
    /// Spawn to exit.
    pub(crate) wall: Duration,
    /// User plus system CPU.
    pub(crate) cpu: Duration,
    /// Exit code, or 128 + signal.
    pub(crate) code: i32,
}

/// A program and the environment it runs in.
#[derive(Clone)]
pub(crate) struct Program {
    pub(crate) path: PathBuf,
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(&'static str, PathBuf)>,
}

impl Program {
    pub(crate) fn new(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    pub(crate) fn hook(path: &Path, home: &Home) -> Self {
        Self {
            env: home.env(),
            ..Self::new(path)
        }
    }

    pub(crate) fn command(&self, stderr: &Path) -> Command {
        let mut c = Command::new(&self.path);
        c.args(&self.args)
            .env_remove("PACE_HOOK_HOME")
            .env_remove("PACE_HOOK_CONFIG")
            .env_remove("PACE_HOOK_BACKEND")
            .env_remove("CLAUDE_PROJECT_DIR")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(append(stderr));
        c
    }

    /// Spawn with `input` on stdin and return at once.
    pub(crate) fn spawn(&self, input: &[u8], stderr: &Path) -> Child {
        let mut child = self
            .command(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", self.path.display()));
        feed(&mut child, input);
        child
    }

    /// Run to the end with `input` on stdin.
    pub(crate) fn run(&self, input: &[u8], stderr: &Path) -> Sample {
        let mut command = self.command(stderr);
        let start = Instant::now();
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", self.path.display()));
        feed(&mut child, input);
        let (code, cpu) = reap(&child, 0).expect("a blocking wait reaps");
        Sample {
            wall: start.elapsed(),
            cpu,
            code,
        }
    }
}

pub(crate) fn append(path: &Path) -> File {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub(crate) fn feed(child: &mut Child, input: &[u8]) {
    if let Some(mut stdin) = child.stdin.take() {
        // A program that exits without reading (node -e 0) breaks the pipe;
        // that is its business.
        let _ = stdin.write_all(input);
    }
}

/// Wait for `child` with `flags` (0 or `WNOHANG`); `None` if it is still
/// running. Returns the exit code (128 + the signal for a killed child) and
/// the CPU time, user plus system, that `wait4` reports.
pub(crate) fn reap(child: &Child, flags: i32) -> Option<(i32, Duration)> {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain old data, for wait4 to fill.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pointers to live locals; `pid` is our own child, not yet reaped.
        let r = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
        if r == pid {
            break;
        }
        if r == 0 {
            return None;
        }
        let e = io::Error::last_os_error();
        assert_eq!(e.kind(), io::ErrorKind::Interrupted, "wait4 {pid}: {e}");
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1_000);
    Some((code, tv(ru.ru_utime) + tv(ru.ru_stime)))
}

pub(crate) fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(program))
            .find(|p| p.is_file())
    })
}
