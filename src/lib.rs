//! pace-hook: a Claude Code hook that spaces an agent's browser calls to each
//! site, shared by every process on the machine.
//!
//! The flow of one event follows the modules: [`event`] parses it,
//! [`profile`] classifies the call, [`resolve`] finds its sites, [`decision`]
//! decides (pure), [`gate`] waits and records through a [`store`], and
//! [`hook`] answers. [`exit`] holds every exit code and why.

pub mod cli;
pub mod clock;
pub mod config;
pub mod decision;
pub mod error;
pub mod event;
pub mod exit;
pub mod gaps;
pub mod gate;
pub mod hook;
pub mod log;
pub mod pacer;
pub mod profile;
pub mod resolve;
pub(crate) mod script;
pub mod site;
pub mod store;

use std::{
    ffi::OsString,
    io::Read,
    panic::{self, AssertUnwindSafe},
    process::Command as Process,
    time::Instant,
};

pub use error::{Error, Result};
pub use exit::Exit;
pub use pacer::{Pacer, Permit};

use cli::Command;
use event::{EventKind, HookEvent};
use hook::Outcome;

/// Run pace-hook with `args` (without the program name) and `stdin`, and say
/// how it ended. Never panics: a panic inside is caught and, like every other
/// failure, blocks the call.
pub fn run(args: &[OsString], stdin: impl Read) -> Exit {
    let arrived = Instant::now();
    // The default hook would print a multi-line report to stderr, which on
    // PreToolUse the model reads; the one-line message below replaces it.
    panic::set_hook(Box::new(|_| {}));
    match panic::catch_unwind(AssertUnwindSafe(|| dispatch(args, stdin, arrived))) {
        Ok(exit) => exit,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".to_owned());
            eprintln!("{}", hook::failure_message(None, &Error::Panic { message }));
            Exit::Block
        }
    }
}

fn dispatch(args: &[OsString], stdin: impl Read, arrived: Instant) -> Exit {
    let command = match cli::parse(args) {
        Ok(c) => c,
        Err(e) => {
            // Exit 2 even here: a hook command with a typo must not let calls
            // through unpaced.
            eprintln!("pace-hook: {e}");
            return Exit::Block;
        }
    };
    match command {
        Command::Hook => run_hook(stdin, arrived),
        Command::Help => {
            print!("{}", cli::HELP);
            Exit::Success
        }
        Command::Version => {
            println!("pace-hook {}", env!("CARGO_PKG_VERSION"));
            Exit::Success
        }
        Command::Gaps { site } => run_gaps(site.as_deref()),
        Command::Run { site, command } => run_command(&site, &command),
    }
}

fn run_hook(stdin: impl Read, arrived: Instant) -> Exit {
    // SAFETY: isatty only inspects the descriptor.
    if unsafe { libc::isatty(0) } == 1 {
        eprintln!(
            "pace-hook: reads one Claude Code hook event on stdin; run it from a hook (see `pace-hook --help`)"
        );
        return Exit::Block;
    }
    // A hidden switch so the tests can prove a panic blocks the call.
    if std::env::var_os("PACE_HOOK_DEBUG_PANIC").is_some() {
        panic!("PACE_HOOK_DEBUG_PANIC is set");
    }
    let event = match HookEvent::read(stdin) {
        Ok(e) => e,
        Err(e) => {
            // We cannot tell which event this was, so assume the one that can
            // be blocked.
            eprintln!("{}", hook::failure_message(None, &e));
            return Exit::Block;
        }
    };
    match hook::handle(&event, arrived) {
        Ok(Outcome::Pass) => Exit::Success,
        Ok(Outcome::Block(message)) => {
            eprintln!("{message}");
            Exit::Block
        }
        Err(e) if event.kind == EventKind::PreToolUse => {
            eprintln!("{}", hook::failure_message(Some(&event.tool_name), &e));
            Exit::Block
        }
        Err(e) => {
            eprintln!(
                "pace-hook could not record the end of `{}`: {e}; its site stays held until the in-flight hold runs out",
                event.tool_name
            );
            Exit::Failure
        }
    }
}

fn run_gaps(site: Option<&str>) -> Exit {
    let root = match store::FileStore::default_root() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pace-hook: {e}");
            return Exit::Failure;
        }
    };
    let path = log::path(&root);
    match log::read(&path) {
        Ok((records, bad)) => {
            let (text, short) = gaps::report(&records, site);
            print!("{text}");
            if bad > 0 {
                println!("({bad} unreadable line(s) in `{}` skipped)", path.display());
            }
            if short { Exit::Failure } else { Exit::Success }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            println!("no gate log at `{}` yet", path.display());
            Exit::Success
        }
        Err(e) => {
            eprintln!("pace-hook: could not read `{}`: {e}", path.display());
            Exit::Failure
        }
    }
}

fn run_command(site: &str, command: &[OsString]) -> Exit {
    let fail = |e: Error| {
        eprintln!("pace-hook: {e}");
        Exit::Block
    };
    let pacer = match Pacer::from_env() {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let permit = match pacer.wait_turn(site) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let program = command[0].to_string_lossy().into_owned();
    let mut child = match Process::new(&command[0]).args(&command[1..]).spawn() {
        Ok(c) => c,
        Err(source) => {
            let _ = permit.finish();
            return fail(Error::Spawn { program, source });
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
        eprintln!("pace-hook: {e}");
    }
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Exit::Passthrough(code as u8),
        (None, Some(sig)) => Exit::Passthrough(128u8.wrapping_add(sig as u8)),
        _ => Exit::Failure,
    }
}
