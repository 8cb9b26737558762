//! The `pace-hook` binary: arguments and stdin in, an exit code out. All
//! meaning lives in the library; see `exit.rs` for why failures exit 2.
//!
//! On Linux with glibc the binary starts at its own C `main`, not at std's.
//! A hook is one process start per tool call, and std's start-up spends half
//! of a bare program's system calls on a stack-overflow handler that a
//! pace-hook event has no use for (`docs/BENCHMARKS.md`, "Start-up"): it reads
//! `/proc/self/maps` to find the main thread's stack, maps and protects an
//! alternate signal stack, installs SIGSEGV and SIGBUS handlers, and unmaps
//! the stack again at exit. The two things of std's start-up that change what
//! the program does are done here as std does them: the standard descriptors
//! are made to exist (so that no file the hook opens becomes its stdout), and
//! SIGPIPE is ignored (so that a write to a closed pipe is an error, not
//! death). Arguments still come from `std::env::args_os`, which glibc hands to
//! std before `main`. Elsewhere, and in the test harness's build of this
//! file, the ordinary `main` runs.
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

use pace_hook::exit::Exit;

fn run() -> Exit {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    pace_hook::run(&args, std::io::stdin().lock())
}

#[cfg(any(not(all(target_os = "linux", target_env = "gnu")), test))]
fn main() -> std::process::ExitCode {
    run().into()
}

#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    if !start::standard_descriptors() {
        // What std does here is abort, which a client reads as "the hook
        // failed, run the call". Exit 2 blocks it instead.
        return Exit::Block.code().into();
    }
    start::ignore_sigpipe();
    // `process::exit` flushes stdout as returning from std's `main` would.
    std::process::exit(run().code().into())
}

#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
mod start {
    use std::fs::OpenOptions;
    use std::os::fd::IntoRawFd;

    /// Makes descriptors 0, 1 and 2 exist: each one closed is opened on
    /// `/dev/null`, as std's start-up does. Otherwise the first file the
    /// hook opens would take the number of a closed stdout, and the answer
    /// meant for the client would be written into the gate's state. False
    /// when it cannot be done.
    pub(super) fn standard_descriptors() -> bool {
        let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
            fd,
            events: 0,
            revents: 0,
        });
        loop {
            // SAFETY: `fds` is a valid array of three `pollfd`s for the call.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
            if n != -1 {
                break;
            }
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return false;
            }
        }
        // `open` takes the lowest free number: filling 0, 1, 2 in order puts
        // each `/dev/null` where a closed descriptor was.
        fds.iter()
            .filter(|fd| fd.revents & libc::POLLNVAL != 0)
            .all(|_| {
                OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open("/dev/null")
                    .map(IntoRawFd::into_raw_fd)
                    .is_ok()
            })
    }

    /// A write to a pipe its reader closed returns `EPIPE` instead of
    /// killing the process, as under std's start-up. Child processes
    /// (`pace-hook run`) get the default back from std's `Command`.
    pub(super) fn ignore_sigpipe() {
        // SAFETY: setting a signal's disposition to SIG_IGN installs no
        // handler code; nothing else runs yet.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
    }
}
