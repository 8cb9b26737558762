//! The hook command: one event on stdin, the answer on stdout or stderr, and
//! the exit code, each in the form of the agent that ran it
//! (`hook::client`).

use std::{cell::OnceCell, io::Read};

use super::{print, say};
use crate::{
    config::Config,
    error::{Error, Result},
    exit::{Doing, Exit},
    hook::{
        self, Context, Failure, Outcome,
        client::{Answer, Client, Reply},
        event::{self, EventKind},
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

/// Answer a failure that must refuse the call, in `client`'s form (Claude
/// Code's when it is not known): on stderr with `exit` where the client
/// reads exit codes, as its JSON with exit 0 where it does not.
pub(super) fn refuse(
    client: Option<Client>,
    kind: Option<&EventKind>,
    message: &str,
    exit: Exit,
) -> Exit {
    refuse_as(client, client, kind, message, exit)
}

/// [`refuse`], for an event whose command named `flag`
/// ([`Client::answer_as`]).
fn refuse_as(
    client: Option<Client>,
    flag: Option<Client>,
    kind: Option<&EventKind>,
    message: &str,
    exit: Exit,
) -> Exit {
    let answer = client
        .unwrap_or(Client::ClaudeCode)
        .answer_as(flag, kind, Reply::Block(message));
    let code = if answer.exit == Exit::Block {
        exit
    } else {
        answer.exit
    };
    emit(&Answer {
        exit: code,
        ..answer
    })
}

/// Write `answer` and give its exit.
fn emit(answer: &Answer) -> Exit {
    if let Some(out) = &answer.stdout {
        print(out);
    }
    if let Some(err) = &answer.stderr {
        say(err);
    }
    answer.exit
}

pub(super) fn run(
    stdin: impl Read,
    arrived: Mono,
    flag: Option<Client>,
    timeout_s: Option<u64>,
) -> Exit {
    // SAFETY: isatty only inspects the descriptor.
    if unsafe { libc::isatty(0) } == 1 {
        let message = "pace-hook: reads one hook event on stdin; run it from an agent's hook (see `pace-hook --help`)";
        return refuse(flag, None, message, Exit::Block);
    }
    // A hidden switch so the tests can prove a panic blocks the call.
    if std::env::var_os("PACE_HOOK_DEBUG_PANIC").is_some() {
        panic!("PACE_HOOK_DEBUG_PANIC is set");
    }
    let bytes = match event::read_bytes(stdin) {
        Ok(b) => b,
        Err(e) => {
            let exit = Exit::for_error(Doing::Pre, &e);
            return refuse(flag, None, &hook::failure_message(None, &e), exit);
        }
    };
    let (client, read) = match flag {
        Some(c) => {
            let c = c.for_event(&bytes);
            (c, c.read(&bytes))
        }
        None => Client::read_unnamed(&bytes),
    };
    let mut event = match read {
        Ok(e) => e,
        // Which event this was cannot be known for sure, so it exits as the
        // one that can be blocked (2 blocks a Pre, and on a Post only shows
        // the message). The wording follows what the bytes say they are: a
        // Post's call already ran.
        Err(e) => {
            let exit = Exit::for_error(Doing::Pre, &e);
            if !client.looks_like_post(&bytes) {
                return refuse_as(
                    Some(client),
                    flag,
                    None,
                    &hook::failure_message(None, &e),
                    exit,
                );
            }
            let message = hook::unreadable_post_message(&e);
            if client.refusing_a_post_stops_work() {
                return emit(&client.answer_as(flag, None, Reply::PostFailed(&message)));
            }
            return refuse_as(Some(client), flag, None, &message, exit);
        }
    };
    event.max_wait_ms = client.max_wait_ms(timeout_s.map(|s| s.saturating_mul(1000)));
    let kind = Some(&event.kind);
    match hook::handle(&System::default(), &event, arrived) {
        Ok(Outcome::Pass) => emit(&client.answer_as(flag, kind, Reply::Pass)),
        // The text reaches the model as context; the call goes on (or a
        // Post stays a success).
        Ok(Outcome::Tell(text)) => emit(&client.answer_as(flag, kind, Reply::Tell(&text))),
        Ok(Outcome::Waited { user, model }) => emit(&client.answer(
            kind,
            Reply::Waited {
                user: &user,
                model: &model,
            },
        )),
        Ok(Outcome::Block(message)) => emit(&client.answer_as(flag, kind, Reply::Block(&message))),
        Err(Failure::Pre(e)) => refuse_as(
            Some(client),
            flag,
            kind,
            &hook::failure_message(Some(&event.tool_name), &e),
            Exit::for_error(Doing::Pre, &e),
        ),
        Err(Failure::Post(hook::PostFailure(message))) => {
            debug_assert!(event.kind != EventKind::PreToolUse);
            emit(&client.answer_as(flag, kind, Reply::PostFailed(&message)))
        }
    }
}
