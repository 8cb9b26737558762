//! Every exit code pace-hook uses, decided in one place.
//!
//! Claude Code reads a PreToolUse command hook's exit code like this: 0 lets
//! the call go on, 2 blocks it and shows stderr to the model, and *any other*
//! code is a non-blocking error after which the call goes on. A pacer that
//! exits 1 (or 101, Rust's panic code) on failure would therefore let the call
//! through unpaced. So on PreToolUse every failure is mapped to 2: pace-hook
//! fails closed. On Post events the tool has already run; a failure there exits
//! 1, which Claude Code shows to the user without blocking anything, and the
//! site simply stays held until the call's hold runs out.
//!
//! Other agents read exit codes their own way (`hook::client`): Codex, Gemini
//! CLI and VS Code block on 2 as Claude Code does, but Copilot CLI and Cline
//! let the call run on any failing exit and refuse it only through JSON on
//! stdout. For them a refusal, failures included, is that JSON with
//! [`Exit::Success`]; the code above is what everyone else gets.
//!
//! `install` and `uninstall` are not hook events: a person runs them, and
//! their codes follow the usual convention. 0: done (or nothing to do); 1: a
//! settings file it will not edit as it is (not JSON, the wrong shape, a
//! config error), or a write that failed, with the file left as it was. A
//! usage error still exits 2, as everywhere in the CLI, so that a hook
//! command with a typo blocks rather than passes; a `--timeout` too short
//! for `max_wait` is a bad argument too, and exits 2.
//!
//! `pace-hook run --site S -- CMD` is a wrapper, and its codes follow
//! `env` and `timeout`, so that a script can tell pace-hook's failure from
//! the command's own exit 2: CMD's own code (or 128+N when signal N ended
//! it); 125 when pace-hook could not pace it, so CMD did not run (not
//! admitted within `max_wait`, a broken state directory or config, the
//! backend down); 126 when CMD was found but could not be run (not
//! executable, not a program); 127 when CMD was not found. As with `env`, a
//! CMD that itself exits 125–127 cannot be told from these. A usage error of
//! `run` is 2, as everywhere.

use std::process::ExitCode;

use crate::error::Error;

/// What pace-hook was doing when an error ended it. A failure's exit code is
/// a function of this and the error alone ([`Exit::for_error`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doing {
    /// A hook event that is, or may be, a PreToolUse (one that cannot be
    /// read may be): the call must not go unpaced.
    Pre,
    /// A PostToolUse or PostToolUseFailure event: the call already ran.
    Post,
    /// Reading the command line: a hook command with a typo must block.
    Arguments,
    /// `install` or `uninstall`.
    Setup,
    /// `pace-hook run`, getting its turn: the command does not run
    /// unpaced, and the code (125) is not one the command exits with itself.
    Run,
    /// A person looking at the gate or changing it by hand: `gaps`,
    /// `status`, `doctor`, `backoff`.
    Operator,
}

/// What a pace-hook run ended in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The call goes on (hook), or the command succeeded.
    Success,
    /// A failure that must not block: a Post event that could not be recorded,
    /// `pace-hook gaps` finding a gap under the interval, `doctor` finding a
    /// problem, `status` unable to read the state, or `install` /
    /// `uninstall` refusing to edit a settings file.
    Failure,
    /// Block the tool call; stderr goes to the model. Also every failure on
    /// PreToolUse and every usage error (an `install --timeout` too short
    /// for `max_wait` among them).
    Block,
    /// `pace-hook run`: the wrapped command's own exit code.
    Passthrough(u8),
    /// `pace-hook run`: pace-hook could not pace the command, which did not
    /// run (`env`'s and `timeout`'s 125).
    RunFailed,
    /// `pace-hook run`: the command was found but could not be run (126).
    CannotRun,
    /// `pace-hook run`: the command was not found (127).
    NotFound,
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Block => 2,
            Exit::Passthrough(code) => code,
            Exit::RunFailed => 125,
            Exit::CannotRun => 126,
            Exit::NotFound => 127,
        }
    }
}

impl Exit {
    /// The exit of a run that `error` ended while `doing` it: 2 wherever a
    /// call could otherwise go unpaced, and for usage errors; 125 for
    /// `run`'s own failure; 1 elsewhere.
    pub fn for_error(doing: Doing, error: &Error) -> Exit {
        match doing {
            Doing::Pre | Doing::Arguments => Exit::Block,
            Doing::Run => Exit::RunFailed,
            Doing::Post | Doing::Operator => Exit::Failure,
            Doing::Setup => match error {
                Error::TimeoutTooShort { .. } | Error::Usage { .. } => Exit::Block,
                _ => Exit::Failure,
            },
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_is_the_only_code_claude_code_treats_as_blocking() {
        assert_eq!(Exit::Block.code(), 2);
        assert_eq!(Exit::Success.code(), 0);
        assert_eq!(Exit::Failure.code(), 1);
        assert_eq!(Exit::Passthrough(7).code(), 7);
    }

    #[test]
    fn run_fails_as_env_and_timeout_do() {
        assert_eq!(Exit::RunFailed.code(), 125);
        assert_eq!(Exit::CannotRun.code(), 126);
        assert_eq!(Exit::NotFound.code(), 127);
        // None of them blocks: `run` is not a hook.
        for e in [Exit::RunFailed, Exit::CannotRun, Exit::NotFound] {
            assert_ne!(e.code(), Exit::Block.code());
        }
    }

    #[test]
    fn every_failure_that_could_let_a_call_through_blocks() {
        let io = Error::Panic {
            message: "x".to_owned(),
        };
        let usage = Error::Usage {
            message: "x".to_owned(),
        };
        for doing in [Doing::Pre, Doing::Arguments] {
            assert_eq!(Exit::for_error(doing, &io), Exit::Block, "{doing:?}");
            assert_eq!(Exit::for_error(doing, &usage), Exit::Block, "{doing:?}");
        }
        // `run` is not a hook: its own failure is 125, as `env`'s, so that
        // it is not taken for the command's own 2; the command did not run.
        assert_eq!(Exit::for_error(Doing::Run, &io), Exit::RunFailed);
        for doing in [Doing::Post, Doing::Operator] {
            assert_eq!(Exit::for_error(doing, &io), Exit::Failure, "{doing:?}");
        }
        assert_eq!(Exit::for_error(Doing::Setup, &io), Exit::Failure);
        assert_eq!(
            Exit::for_error(Doing::Setup, &usage),
            Exit::Block,
            "a usage error exits 2 everywhere"
        );
    }
}
