//! The hook command: one event on stdin, the answer on stdout or stderr, and
//! the exit code Claude Code reads.

use std::{cell::OnceCell, io::Read};

use super::{print, say};
use crate::{
    config::Config,
    error::{Error, Result},
    exit::{Doing, Exit},
    hook::{
        self, Context, Failure, Outcome,
        event::{self, EventKind, HookEvent},
    },
    pacing::{
        clock::{Clock, Mono, SystemClock},
        log::{self, Record},
    },
    state_dir,
    store::{self, Store},
};

/// The hook's surroundings on this machine: the config found the usual way
/// (read once, on first use), the store it points at, the system clock.
#[derive(Default)]
struct System {
    config: OnceCell<&'static Config>,
}

impl Context for System {
    fn config(&self) -> Result<&Config> {
        if let Some(c) = self.config.get() {
            return Ok(c);
        }
        // Leaked on purpose: the process ends with the event, and freeing a
        // large config (a thousand sites' strings) one by one costs a sixth
        // of such an event for nothing.
        let c: &'static Config = Box::leak(Box::new(Config::discover()?));
        Ok(self.config.get_or_init(|| c))
    }
    fn open_store(&self, config: &Config) -> Result<Box<dyn Store>> {
        store::open(config)
    }
    fn local_store(&self, config: &Config, error: &Error) -> Result<Box<dyn Store>> {
        store::fall_back(state_dir::default_root()?, config, error)
    }
    fn log_light(&self, record: &Record, create: bool) {
        let Ok(root) = state_dir::default_root() else {
            return;
        };
        if create {
            if let Ok(dir) = state_dir::Dir::open_root(&root, true) {
                log::append(&dir, record);
            }
        } else {
            log::append_at(&root, record);
        }
    }
    fn clock(&self) -> &dyn Clock {
        &SystemClock
    }
}

pub(super) fn run(stdin: impl Read, arrived: Mono) -> Exit {
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
            return Exit::for_error(Doing::Pre, &e);
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
            // Which event it was cannot be known: exit as the one that can
            // be blocked.
            return Exit::for_error(Doing::Pre, &e);
        }
        Err(e) => {
            say(&hook::failure_message(None, &e));
            return Exit::for_error(Doing::Pre, &e);
        }
    };
    match hook::handle(&System::default(), &event, arrived) {
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
            Exit::for_error(Doing::Pre, &e)
        }
        Err(Failure::Post(hook::PostFailure(message))) => {
            debug_assert!(event.kind != EventKind::PreToolUse);
            say(&message);
            Exit::Failure
        }
    }
}
