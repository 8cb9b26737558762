//! Every way pace-hook can fail, as one enum whose variants carry what the
//! message needs. Messages are one line, lowercase, name the thing and the
//! path, and say what to do next: on PreToolUse they reach the model.

use std::{fmt, io, path::PathBuf};

/// A pace-hook failure.
#[derive(Debug)]
pub enum Error {
    /// Reading the hook event from stdin failed.
    Stdin {
        /// The underlying error.
        source: io::Error,
    },
    /// Stdin was empty.
    EmptyInput,
    /// Stdin was larger than pace-hook reads.
    InputTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// Stdin was not a JSON hook event.
    BadEvent {
        /// What the parser said.
        message: String,
    },
    /// A field the event needs was missing or of the wrong type.
    MissingField {
        /// The field's name.
        field: &'static str,
    },
    /// A config file could not be read.
    ConfigRead {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A config file is not valid.
    Config {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem, where known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// No state directory could be found (no home, no cache dir).
    NoStateDir,
    /// The state directory could not be opened or made.
    StateDir {
        /// What went wrong, with the path.
        message: String,
    },
    /// The state directory, or one in it, is not safe to keep the gate in.
    UnsafeStateDir {
        /// The directory.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
        /// What to do.
        fix: String,
    },
    /// Something in the state directory is not what pace-hook made there (a
    /// symbolic link, a directory where a file goes).
    Tampered {
        /// The path.
        path: PathBuf,
        /// What is there.
        what: String,
        /// What to do.
        fix: String,
    },
    /// A filesystem operation on the state failed.
    Io {
        /// What pace-hook was doing, e.g. "create".
        op: &'static str,
        /// The path it was doing it to.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A site's state could not be read. It has been replaced by a state
    /// that is busy for a hold and an interval (a call may have been in
    /// flight), and what was there kept beside it.
    CorruptState {
        /// The state file.
        path: PathBuf,
        /// Where a copy of the unreadable state was kept, if it could be.
        moved_to: Option<PathBuf>,
        /// How long the site now stays busy.
        retry_after_ms: u64,
    },
    /// The shared backend (a Redis server) could not be used: unreachable,
    /// too slow, refusing the credentials, answering errors, or named by a
    /// URL that does not parse.
    Backend {
        /// The server's URL with any password masked: never print a password.
        server: String,
        /// What went wrong and what to do, as the end of a sentence.
        problem: String,
        /// The setup is wrong (the URL, the password, the build), so
        /// retrying cannot help; otherwise the server may come back.
        setup: bool,
    },
    /// A lock stayed held past the caller's deadline.
    LockTimeout {
        /// The lock file.
        path: PathBuf,
    },
    /// The command line was not understood.
    Usage {
        /// What was wrong.
        message: String,
    },
    /// `install` or `uninstall` will not edit a Claude Code settings file
    /// as it is.
    Settings {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
        /// What to do.
        fix: String,
    },
    /// `install --timeout` is too short for the `max_wait` in force: Claude
    /// Code would kill the hook while it waits, and let the call through.
    TimeoutTooShort {
        /// The timeout asked for, in seconds.
        timeout_s: u64,
        /// Whether it was given (`--timeout`) or the default.
        given: bool,
        /// The least timeout that leaves the margin, in seconds.
        least_s: u64,
        /// `max_wait` in whole seconds, rounded up.
        max_wait_s: u64,
        /// Where `max_wait` comes from: a config file, or the default.
        source: String,
    },
    /// The command given to `pace-hook run` could not be started.
    Spawn {
        /// The program.
        program: String,
        /// The underlying error.
        source: io::Error,
    },
    /// `pace-hook run` or [`crate::Pacer`] waited `max_wait` without its turn.
    NotAdmitted {
        /// The site.
        site: String,
        /// Callers still ahead.
        ahead: usize,
        /// How long it waited, formatted.
        waited: String,
        /// Least further wait, formatted.
        more: String,
    },
    /// `pace-hook run` or [`crate::Pacer`]: the site's budget is spent.
    BudgetSpent {
        /// The site.
        site: String,
        /// How long until the budget allows another call, formatted.
        free_in: String,
    },
    /// pace-hook itself panicked.
    Panic {
        /// The panic message.
        message: String,
    },
}

impl Error {
    /// An I/O error on `path` while doing `op`.
    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            op,
            path: path.into(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Stdin { source } => {
                write!(f, "could not read the hook event on stdin: {source}")
            }
            Error::EmptyInput => write!(f, "stdin was empty; expected one hook event as JSON"),
            Error::InputTooLarge { limit } => write!(
                f,
                "the hook event on stdin is larger than {} MiB, the most pace-hook reads",
                limit / (1024 * 1024)
            ),
            Error::BadEvent { message } => {
                write!(f, "the hook event on stdin is not valid JSON: {message}")
            }
            Error::MissingField { field } => {
                write!(f, "the hook event has no usable `{field}` field")
            }
            Error::ConfigRead { path, source } => {
                write!(f, "could not read config `{}`: {source}", path.display())
            }
            Error::Config {
                path,
                line: Some(line),
                message,
            } => write!(f, "config `{}` line {line}: {message}", path.display()),
            Error::Config {
                path,
                line: None,
                message,
            } => write!(f, "config `{}`: {message}", path.display()),
            Error::NoStateDir => write!(
                f,
                "no state directory: set PACE_HOOK_HOME or HOME so pace-hook has somewhere to keep its gate"
            ),
            Error::StateDir { message } => write!(f, "{message}"),
            Error::UnsafeStateDir { path, problem, fix } => write!(
                f,
                "the state directory `{}` {problem}, so anyone could pace or block your calls; {fix}",
                path.display()
            ),
            Error::Tampered { path, what, fix } => write!(
                f,
                "`{}` is {what}, which pace-hook never makes there; {fix}",
                path.display()
            ),
            Error::Io { op, path, source } => {
                write!(f, "could not {op} `{}`: {source}", path.display())
            }
            Error::CorruptState {
                path,
                moved_to,
                retry_after_ms,
            } => {
                write!(
                    f,
                    "the state `{}` was unreadable, so the site counts as busy (a call may have been in flight); it was reset to stay busy for {}",
                    path.display(),
                    crate::duration::format_duration(*retry_after_ms)
                )?;
                match moved_to {
                    Some(m) => write!(f, ", and what was there kept in `{}`", m.display()),
                    None => Ok(()),
                }
            }
            Error::Backend {
                server, problem, ..
            } => {
                write!(f, "the gate's Redis server `{server}` {problem}")
            }
            Error::LockTimeout { path } => write!(
                f,
                "lock `{}` stayed held past the wait limit; another pace-hook process may be stuck",
                path.display()
            ),
            Error::Usage { message } => write!(f, "{message}"),
            Error::Settings { path, problem, fix } => write!(
                f,
                "`{}` {problem}; {fix}. The file was left as it was",
                path.display()
            ),
            Error::TimeoutTooShort {
                timeout_s,
                given,
                least_s,
                max_wait_s,
                source,
            } => {
                if *given {
                    write!(f, "`--timeout {timeout_s}` is too short")?;
                } else {
                    write!(f, "the default timeout ({timeout_s} s) is too short")?;
                }
                write!(
                    f,
                    ": a call may wait up to max_wait ({max_wait_s} s, {source}) and Claude Code lets a call through when its hook times out; use `--timeout {least_s}` or more, or lower max_wait"
                )
            }
            Error::Spawn { program, source } => write!(f, "could not run `{program}`: {source}"),
            Error::NotAdmitted {
                site,
                ahead,
                waited,
                more,
            } => write!(
                f,
                "not admitted to {site} after waiting {waited} (max_wait); {ahead} caller(s) still ahead, free in {more} at the earliest"
            ),
            Error::BudgetSpent { site, free_in } => write!(
                f,
                "the budget for {site} is spent; the next call there is allowed in {free_in}"
            ),
            Error::Panic { message } => write!(f, "internal error (panic): {message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Stdin { source }
            | Error::ConfigRead { source, .. }
            | Error::Io { source, .. }
            | Error::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The result type of the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;
