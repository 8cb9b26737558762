//! pace-hook: a Claude Code hook that spaces an agent's browser calls to each
//! site, shared by every process on the machine, or by every machine pointed
//! at one Redis server.
//!
//! The flow of one event follows the modules: `event` parses it, `profile`
//! classifies the call, `resolve` finds its sites, [`decision`] decides
//! (pure), [`gate`] waits and records through a [`store`], and `hook`
//! answers. [`exit`] holds every exit code and why.
//!
//! The library's API is [`Pacer`] and [`Permit`] (a program's requests in
//! the same queues as the agent's), and the pieces the gate is proved with:
//! the [`gate`] over any [`store`], the pure [`decision`], the [`clock`]
//! with its fake, and [`gaps`], the log's checker. Everything else is the
//! binary's own.

pub(crate) mod cli;
pub mod clock;
pub mod config;
pub mod decision;
pub mod duration;
pub mod error;
pub(crate) mod event;
pub mod exit;
#[doc(hidden)]
pub mod fuzz;
pub mod gaps;
pub mod gate;
pub(crate) mod hook;
pub(crate) mod install;
pub mod log;
pub(crate) mod matcher;
pub mod pacer;
pub(crate) mod preset;
pub(crate) mod profile;
pub(crate) mod reach;
pub(crate) mod resolve;
pub(crate) mod script;
pub(crate) mod settings;
pub(crate) mod shell;
pub(crate) mod site;
pub(crate) mod state_dir;
pub mod store;

// Looking at the gate from outside: what it holds (`status`), whether Claude
// Code runs it as it should (`doctor`), and its log drawn (`gaps --svg`).
pub(crate) mod doctor;
pub(crate) mod status;
pub(crate) mod timeline;
pub(crate) mod when;

use std::{
    ffi::OsString,
    io::{Read, Write},
    panic::{self, AssertUnwindSafe},
    process::Command as Process,
};

pub use error::{Error, Result};
pub use exit::Exit;
pub use pacer::{Pacer, Permit};

use cli::Command;
use clock::{Clock, Mono, SystemClock};
use event::{EventKind, HookEvent};
use hook::{Failure, Outcome};

/// Write one line to stderr, whatever becomes of it. stderr may be closed,
/// full (`2>/dev/full`) or a pipe nobody reads: the exit code, which is what
/// blocks a call, must not depend on whether the message could be written
/// (`eprintln!` would panic, and a panic while handling a panic exits 101,
/// which lets the call through).
pub(crate) fn say(message: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(message.as_bytes());
    let _ = err.write_all(b"\n");
}

/// Write `text` to stdout, ignoring failures, for the same reason.
pub(crate) fn print(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Run pace-hook with `args` (without the program name) and `stdin`, and say
/// how it ended. Never panics: a panic inside is caught and, like every other
/// failure, blocks the call.
pub fn run(args: &[OsString], stdin: impl Read) -> Exit {
    let arrived = SystemClock.mono();
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
            // Catch a second panic too: nothing may turn this into exit 101.
            let _ = panic::catch_unwind(|| {
                say(&hook::failure_message(None, &Error::Panic { message }))
            });
            Exit::Block
        }
    }
}

fn dispatch(args: &[OsString], stdin: impl Read, arrived: Mono) -> Exit {
    let command = match cli::parse(args) {
        Ok(c) => c,
        Err(e) => {
            // Exit 2 even here: a hook command with a typo must not let calls
            // through unpaced.
            say(&format!("pace-hook: {e}"));
            return Exit::Block;
        }
    };
    match command {
        Command::Hook => run_hook(stdin, arrived),
        Command::Install { scope, timeout_s } => run_setup(install::install(scope, timeout_s)),
        Command::Uninstall { scope } => run_setup(install::uninstall(scope)),
        Command::Help => {
            print(cli::HELP);
            Exit::Success
        }
        Command::Version => {
            print(&format!("pace-hook {}\n", env!("CARGO_PKG_VERSION")));
            Exit::Success
        }
        Command::Gaps { site, svg } => run_gaps(site.as_deref(), svg.as_deref()),
        Command::Status { json } => status::run(json),
        Command::Doctor => doctor::run(),
        Command::Run { site, command } => run_command(&site, &command),
        Command::Backoff {
            site,
            for_ms,
            clear,
        } => run_backoff(&site, for_ms, clear),
    }
}

fn run_hook(stdin: impl Read, arrived: Mono) -> Exit {
    // SAFETY: isatty only inspects the descriptor.
    if unsafe { libc::isatty(0) } == 1 {
        say(
            "pace-hook: reads one Claude Code hook event on stdin; run it from a hook (see `pace-hook --help`)",
        );
        return Exit::Block;
    }
    // A hidden switch so the tests can prove a panic blocks the call.
    if std::env::var_os("PACE_HOOK_DEBUG_PANIC").is_some() {
        panic!("PACE_HOOK_DEBUG_PANIC is set");
    }
    let bytes = match event::read_bytes(stdin) {
        Ok(b) => b,
        Err(e) => {
            say(&hook::failure_message(None, &e));
            return Exit::Block;
        }
    };
    let event = match HookEvent::parse(&bytes) {
        Ok(e) => e,
        // Which event this was cannot be known for sure, so it exits as the
        // one that can be blocked (2 blocks a Pre, and on a Post only shows
        // the message). The wording follows what the bytes say they are: a
        // Post's call already ran.
        Err(e) if event::looks_like_post(&bytes) => {
            say(&hook::unreadable_post_message(&e));
            return Exit::Block;
        }
        Err(e) => {
            say(&hook::failure_message(None, &e));
            return Exit::Block;
        }
    };
    match hook::handle(&event, arrived) {
        Ok(Outcome::Pass) => Exit::Success,
        Ok(Outcome::Tell(text)) => {
            // The hook's JSON answer: the text reaches the model as context;
            // exit 0 lets the call go on (or keeps a Post a success).
            let name = match &event.kind {
                EventKind::PreToolUse => "PreToolUse",
                EventKind::PostToolUseFailure => "PostToolUseFailure",
                _ => "PostToolUse",
            };
            let answer = serde_json::json!({
                "hookSpecificOutput": {"hookEventName": name, "additionalContext": text}
            });
            print(&format!("{answer}\n"));
            Exit::Success
        }
        Ok(Outcome::Block(message)) => {
            say(&message);
            Exit::Block
        }
        Err(Failure::Pre(e)) => {
            say(&hook::failure_message(Some(&event.tool_name), &e));
            Exit::Block
        }
        Err(Failure::Post(hook::PostFailure(message))) => {
            debug_assert!(event.kind != EventKind::PreToolUse);
            say(&message);
            Exit::Failure
        }
    }
}

/// `install` and `uninstall`: what was done on stdout and exit 0; a refusal
/// on stderr and exit 1, except a timeout too short for `max_wait`, which is
/// a bad argument and exits 2 like every usage error (see [`exit`]).
fn run_setup(result: Result<String>) -> Exit {
    match result {
        Ok(report) => {
            print(&report);
            Exit::Success
        }
        Err(e) => {
            say(&format!("pace-hook: {e}"));
            match e {
                Error::TimeoutTooShort { .. } | Error::Usage { .. } => Exit::Block,
                _ => Exit::Failure,
            }
        }
    }
}

fn run_gaps(site: Option<&str>, svg: Option<&std::path::Path>) -> Exit {
    let config = config::Config::discover().unwrap_or_default();
    let store = match store::open(&config) {
        Ok(s) => s,
        Err(e) => {
            say(&format!("pace-hook: {e}"));
            return Exit::Failure;
        }
    };
    match store.read_log() {
        Ok((records, bad)) => {
            if let Some(path) = svg {
                // Written even for an empty log, so a script that asked
                // for a picture finds one.
                if let Err(e) = std::fs::write(path, timeline::svg(&records, site)) {
                    say(&format!(
                        "pace-hook: could not write the timeline to `{}`: {e}",
                        path.display()
                    ));
                    return Exit::Failure;
                }
            }
            if records.is_empty() && bad == 0 {
                print(&format!("no gate log in {} yet\n", store.describe()));
                return Exit::Success;
            }
            let (text, short) = gaps::report(&records, site);
            print(&text);
            if bad > 0 {
                print(&format!(
                    "({bad} unreadable line(s) in the gate log skipped)\n"
                ));
            }
            if short { Exit::Failure } else { Exit::Success }
        }
        Err(e) => {
            say(&format!("pace-hook: {e}"));
            Exit::Failure
        }
    }
}

fn run_backoff(site: &str, for_ms: Option<u64>, clear: bool) -> Exit {
    let result = Pacer::from_env().and_then(|p| match (clear, for_ms) {
        (true, _) => p.clear_backoff(site).map(|sites| (sites, None)),
        (false, ms) => p
            .backoff(site, std::time::Duration::from_millis(ms.unwrap_or(0)))
            .map(|(sites, until)| (sites, Some(until))),
    });
    match result {
        Ok((sites, Some(until))) => {
            print(&format!(
                "{} held back until {} UTC\n",
                sites.join(", "),
                gaps::clock_time(until)
            ));
            Exit::Success
        }
        Ok((sites, None)) => {
            print(&format!("{}: backoff cleared\n", sites.join(", ")));
            Exit::Success
        }
        Err(e) => {
            say(&format!("pace-hook: {e}"));
            Exit::Failure
        }
    }
}

fn run_command(site: &str, command: &[OsString]) -> Exit {
    let fail = |e: Error| {
        say(&format!("pace-hook: {e}"));
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
        say(&format!("pace-hook: {e}"));
    }
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Exit::Passthrough(code as u8),
        (None, Some(sig)) => Exit::Passthrough(128u8.wrapping_add(sig as u8)),
        _ => Exit::Failure,
    }
}
