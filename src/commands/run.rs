//! `pace-hook run SITE -- COMMAND...`: run a command in its site's turn, in
//! the same queue as the agent's calls.

use std::{ffi::OsString, process::Command as Process};

use super::say;
use crate::{
    error::Error,
    exit::{Doing, Exit},
    pacer::Pacer,
};

pub(super) fn run(site: &str, command: &[OsString]) -> Exit {
    // pace-hook's own failure, the command not run: 125, as `env` (see
    // exit.rs), never 2, which the command may exit with itself.
    let fail = |e: Error| {
        say(&format!("pace-hook: {e}"));
        Exit::for_error(Doing::Run, &e)
    };
    let pacer = match Pacer::from_env() {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let progress = Progress::start(site);
    let turn = pacer.wait_turn(site);
    progress.stop(turn.is_ok());
    let permit = match turn {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let program = command[0].to_string_lossy().into_owned();
    let mut child = match Process::new(&command[0]).args(&command[1..]).spawn() {
        Ok(c) => c,
        Err(source) => {
            let _ = permit.finish();
            let exit = if source.kind() == std::io::ErrorKind::NotFound {
                Exit::NotFound
            } else {
                Exit::CannotRun
            };
            say(&format!("pace-hook: {}", Error::Spawn { program, source }));
            return exit;
        }
    };
    // The command may outlast the in-flight hold: keep the site held while it
    // runs. If pace-hook is killed, the renewals stop and the hold lapses.
    let (done, stop) = std::sync::mpsc::channel::<()>();
    let status = std::thread::scope(|s| {
        let permit = &permit;
        s.spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                stop.recv_timeout(permit.keep_alive_every())
            {
                let _ = permit.keep_alive();
            }
        });
        let status = child.wait();
        drop(done);
        status
    });
    let finished = permit.finish();
    let status = match status {
        Ok(s) => s,
        Err(source) => return fail(Error::Spawn { program, source }),
    };
    if let Err(e) = finished {
        say(&format!("pace-hook: {e}"));
    }
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Exit::Passthrough(code as u8),
        (None, Some(sig)) => Exit::Passthrough(128u8.wrapping_add(sig as u8)),
        _ => Exit::Failure,
    }
}

/// A one-line display of a wait on a terminal: `run` would otherwise sit
/// silent for the whole interval. Off when stderr is not a terminal (a
/// script's log, a pipe): nothing is written there.
struct Progress {
    shown: Option<(
        std::sync::mpsc::Sender<()>,
        std::thread::JoinHandle<Option<std::time::Duration>>,
    )>,
}

impl Progress {
    /// How long a wait runs before it is shown, so that a call admitted at
    /// once prints nothing.
    const AFTER: std::time::Duration = std::time::Duration::from_millis(300);
    const EVERY: std::time::Duration = std::time::Duration::from_millis(200);

    fn start(site: &str) -> Self {
        // SAFETY: isatty only inspects the descriptor.
        if unsafe { libc::isatty(2) } != 1 {
            return Self { shown: None };
        }
        let site = site.to_owned();
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let started = std::time::Instant::now();
        let thread = std::thread::spawn(move || {
            let mut shown = false;
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                stopped.recv_timeout(Self::EVERY)
            {
                let waited = started.elapsed();
                if waited < Self::AFTER {
                    continue;
                }
                shown = true;
                write_err(&format!(
                    "\r\x1b[Kpace-hook: waiting for {site}'s turn… {:.1} s",
                    waited.as_secs_f64()
                ));
            }
            shown.then(|| started.elapsed())
        });
        Self {
            shown: Some((stop, thread)),
        }
    }

    /// Stop the display; if it showed, replace its line with how long the
    /// wait was (`admitted`) or clear it for the error that follows.
    fn stop(self, admitted: bool) {
        let Some((stop, thread)) = self.shown else {
            return;
        };
        drop(stop);
        if let Ok(Some(waited)) = thread.join() {
            if admitted {
                write_err(&format!(
                    "\r\x1b[Kpace-hook: waited {:.1} s for the site's turn\n",
                    waited.as_secs_f64()
                ));
            } else {
                write_err("\r\x1b[K");
            }
        }
    }
}

/// Write to stderr, whatever becomes of it (see [`say`]).
fn write_err(text: &str) {
    use std::io::Write as _;
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}
