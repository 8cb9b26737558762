//! The commands: what `pace-hook` does with its arguments. These are the only
//! places that discover the config, open a store and choose an exit code;
//! everything below them is handed what it needs.
//!
//! `hook` (no arguments, or `--client NAME [--timeout S]`) runs one hook event; `run` runs a command in its
//! site's turn; `install`/`uninstall` edit Claude Code's settings; `doctor`,
//! `status` and `gaps` look at the gate from outside; `backoff` holds a site.

use std::{
    ffi::OsString,
    io::{Read, Write},
    panic::{self, AssertUnwindSafe},
};

use crate::{
    error::{Error, Result},
    exit::{Doing, Exit},
    hook,
    pacing::clock::{Clock, Mono, SystemClock},
};

pub(crate) mod args;
mod backoff;
pub(crate) mod clients;
pub(crate) mod doctor;
mod gaps;
mod hook_event;
pub(crate) mod install;
pub(crate) mod plugin;
mod run;
pub(crate) mod settings;
pub(crate) mod status;
pub(crate) mod timeline;

use args::Command;

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
    print_bytes(text.as_bytes());
}

fn print_bytes(bytes: &[u8]) {
    let _ = std::io::stdout().lock().write_all(bytes);
}

/// Run pace-hook with `args` (without the program name) and `stdin`, and say
/// how it ended. Never panics: a panic inside is caught and, like every other
/// failure, blocks the call.
pub fn run(args: &[OsString], stdin: impl Read) -> Exit {
    let arrived = SystemClock.mono();
    // Who runs the hook, read before anything can fail: a panic or a typo
    // is refused in that client's form (Cline and Copilot CLI let the call
    // run on a bare exit 2).
    let client = args::client_in(args);
    // The default hook would print a multi-line report to stderr, which on
    // PreToolUse the model reads; the one-line message below replaces it.
    panic::set_hook(Box::new(|_| {}));
    match panic::catch_unwind(AssertUnwindSafe(|| dispatch(args, stdin, arrived, client))) {
        Ok(exit) => exit,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".to_owned());
            // Catch a second panic too: nothing may turn this into exit 101.
            let error = Error::Panic { message };
            let exit = Exit::for_error(Doing::Pre, &error);
            match panic::catch_unwind(AssertUnwindSafe(|| {
                hook_event::refuse(client, None, &hook::failure_message(None, &error), exit)
            })) {
                Ok(exit) => exit,
                Err(_) => exit,
            }
        }
    }
}

fn dispatch(
    args: &[OsString],
    stdin: impl Read,
    arrived: Mono,
    client: Option<hook::client::Client>,
) -> Exit {
    let command = match args::parse(args) {
        Ok(c) => c,
        Err(e) => {
            // Exit 2 even here: a hook command with a typo must not let calls
            // through unpaced.
            let exit = Exit::for_error(Doing::Arguments, &e);
            return hook_event::refuse(client, None, &format!("pace-hook: {e}"), exit);
        }
    };
    match command {
        Command::Hook { client, timeout_s } => hook_event::run(stdin, arrived, client, timeout_s),
        Command::Install {
            client,
            scope,
            timeout_s,
        } => run_setup(install::install_client(client, scope, timeout_s)),
        Command::Uninstall { client, scope } => run_setup(install::uninstall_client(client, scope)),
        Command::InstallPlugin => run_setup(install::install_plugin()),
        Command::UninstallPlugin => run_setup(plugin::uninstall()),
        Command::Print(text) => {
            print(&text);
            Exit::Success
        }
        Command::Completions(shell) => {
            print_bytes(&args::completions(shell));
            Exit::Success
        }
        Command::Man => {
            print_bytes(&args::man_page());
            Exit::Success
        }
        Command::Gaps { site, svg } => gaps::run(site.as_deref(), svg.as_deref()),
        Command::Status { json } => status::run(json),
        Command::Doctor => doctor::run(),
        Command::Run { site, command } => run::run(&site, &command),
        Command::Backoff {
            site,
            for_ms,
            clear,
        } => backoff::run(&site, for_ms, clear),
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
            Exit::for_error(Doing::Setup, &e)
        }
    }
}
