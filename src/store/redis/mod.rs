//! The gate on a Redis server: every process on every machine pointed at one
//! server meets every other on the same gate.
//!
//! # One clock
//! Every time the gate compares is the server's: each step on a site's state
//! is one Lua script that reads `TIME` itself (allowed since scripts
//! replicate their effects, the default since Redis 5 and the only mode in
//! 7). Clients whose clocks disagree by minutes still keep the gap, because
//! no client's clock takes part in a decision. The process's own
//! [`OffsetClock`] is set to the server's time, for what it stamps on its
//! own (log lines, tab ages, messages), from the first script that brings
//! it (an admission does), or, if the process reads its wall clock before
//! any did, by a greeting of its own (`hello.lua`) then.
//!
//! # What is atomic how
//! - The steps of [`crate::pacing::step`] (an admission: drop lapsed leases,
//!   the lost-state rule, budgets, [`SiteState::try_admit`]; a finish, a
//!   cancel, a confirm, an extend) are each one script (`redis/<step>.lua`
//!   after the preludes `redis/base.lua` and `redis/state.lua`, which is
//!   `decision.rs` line for line, applied as `step::apply` applies it, and
//!   told by the Rust which policy heals a lost state): the server runs a
//!   script with nothing else in between, so no read-then-write ever
//!   crosses the network. The steps are the functions of one library
//!   (`FUNCTION LOAD`, once per server and library version; `FCALL` per
//!   step), so the 16 KB of preludes run once at load, not on every call:
//!   a server that does not have the library (a restart, a flush, another
//!   version) gets it loaded and the call made in one round trip. A server
//!   without functions (older than 7.0, or a user not allowed them) runs
//!   the same text as scripts: by hash (`EVALSHA`), and whole (`EVAL`,
//!   which loads them) when the server answers `NOSCRIPT`.
//! - A call's admission at its one site ([`crate::store::Store::admit_call`])
//!   is one script with everything around it: whether the agent's open
//!   call is another one, whether others queue, the look, the call's
//!   record, the server's time and data marker, and the tab map the
//!   caller reads next. A paced navigate of a free site is one round trip.
//!   A call of several sites that are all free
//!   ([`crate::store::Store::admit_sites`]) is one script too
//!   (`admit_sites.lua`), which writes nothing unless every site is taken.
//! - Each script is named by its SHA-1, worked out at compile time
//!   (`sha1.rs`): hashing the admission's 16 KB took 39 % of an event's
//!   instructions.
//! - Joining, leaving and reclaiming queue places are scripts too. Leaving
//!   is sent without waiting for the answer (see below).
//! - A backoff step is an optimistic transaction (`WATCH` the state, run
//!   `step::apply` with its closure here, `MULTI`/`EXEC`, again if the
//!   state changed meanwhile): it is rare, and its closure cannot run on the
//!   server.
//! - The tab map is looked at first (most events change nothing): read
//!   along with the admission or the finish before it, or with a plain
//!   `GET`. The change an admitted call or a Post makes to it goes along
//!   with that script as a note ([`crate::store::TabNote`]), appended after
//!   the map's JSON, which every reader applies (`TabMap::read`): the
//!   caller's own update then finds it done. Past 32 KB of notes, or with a
//!   change that is not a note, the map is written whole by a
//!   compare-and-set script (`set_tabs.lua`: written if still the map read,
//!   else tried again on what is there), with the notes folded in. The rule
//!   of how a tab moves is Rust's alone ([`TabMap::note`]); the server only
//!   appends. A call record
//!   is saved by the admission script (or one `MULTI`, or one `SET`);
//!   taking it is a script, and a Post's finish takes it and finishes every
//!   site it names in one (`finish_call.lua`).
//! - The gate log is appended with `XADD` after the step it records, best
//!   effort, as the file log is.
//! - Best-effort writes (the log's `XADD`, leaving a queue) do not wait for
//!   their answers: they go out ahead of the next command, whose wait
//!   covers them, or, when the process is done with the store, last, in
//!   one write. A paced PreToolUse thus leaves its queue and logs its
//!   admission without a round trip between the admission and its exit.
//!
//! # Keys
//! All under [`PREFIX`], so a shared server can hold other data:
//!
//! | key | holds | lives |
//! |---|---|---|
//! | `site:<site>` | the site's [`SiteState`], the JSON the file store writes | 31 days from its last change (longer than any budget window) |
//! | `site:<site>:lost-<ms>` | a state that could not be read, set aside | 7 days |
//! | `sites` | sorted set: site → its last change (ms) | trimmed to the last 31 days on each change |
//! | `changed:<site>` | wake-up list for the caller at the head of the site's queue | 10 s |
//! | `queue:<site>` | sorted set of the tickets waiting for the site | `stale_after` from the last join |
//! | `place:<ticket>` | one waiting caller, alive while renewed | [`LEASE_TTL`], renewed every [`RENEW_EVERY`] |
//! | `wake:<ticket>` | wake-up list for that caller | 10 s |
//! | `ticket` | the last ticket given | one small key, kept |
//! | `lease:<id>` | the lease of holds taken while a call waits for its other sites | [`LEASE_TTL`], renewed |
//! | `agent:<agent>` | hash: the agent's last admitted call (`call`, `open`, `record`) | 7 days from the call |
//! | `call:<call>` | the record of a call with no agent | 24 hours |
//! | `tabs` | the tab map ([`TabMap`], at most 512 tabs), then the notes not yet folded in | 30 days from its last change (`TABS_TTL` in `redis/base.lua`) |
//! | `log` | stream of admissions, finishes, give-ups, blocks and backend notes | capped at about [`LOG_MAX`] entries |
//! | `marker` | which life of the server's data this is | kept; gone only with the data |
//!
//! # Keeping a place alive
//! A place in a queue and a lease are keys with a time to live of
//! [`LEASE_TTL`], renewed every [`RENEW_EVERY`] by the process's heartbeat
//! thread over a connection of its own (a blocked `BLPOP` on the main one
//! must not delay a renewal). A process that dies or is stopped stops
//! renewing, its keys expire, and the next look at the queue (or at a site,
//! for a lease's holds) reclaims them: seconds, not minutes.
//!
//! # Waiting without polling
//! Each waiter blocks on the server: on `wake:<ticket>` while callers are
//! ahead of it, pushed by the one just ahead when it leaves; at the head, on
//! `changed:<site>`, pushed by every step that may make the site due sooner.
//! `BLPOP` costs nothing while it waits. A bounded poll ([`QUEUE_BACKSTOP`],
//! [`WATCH_BACKSTOP`]) only catches a wake-up that went to a process that
//! died or was stopped.
//!
//! # Failing closed
//! Every connection has a connect timeout and a command timeout
//! ([`CONNECT_TIMEOUT`], [`COMMAND_TIMEOUT`]; a blocking call's read timeout
//! is its own timeout plus the command timeout). A server that cannot be
//! reached, answers too slowly, refuses the credentials or answers an error
//! is an [`Error::Backend`] naming the server (password masked), which
//! blocks a PreToolUse.
//!
//! # An empty server
//! A server that lost its data (restarted without persistence, flushed) is a
//! fresh gate: nothing there says a site is busy. The `marker` key tells:
//! each machine keeps the last marker it saw in its state directory, and a
//! different or new one is noted in the gate log.
//!
//! Standalone Redis only (or a primary): the scripts read keys they are not
//! given (leases, places), which Redis Cluster does not allow.

use std::{
    collections::BTreeMap,
    path::PathBuf,
    sync::{Arc, Mutex, MutexGuard, OnceLock},
    time::{Duration, Instant},
};

use redis::{Connection, ConnectionLike, IntoConnectionInfo, RedisError, RedisResult, Value};

use super::{LEASE_TTL, Log, Options, RENEW_EVERY, Store, heartbeat, redact_url, sites::ReadAlong};

mod log;
mod queue;
mod sha1;
mod sites;
mod tabs;
use crate::{
    error::{Error, Result},
    pacing::clock::{Clock, EpochMs, FakeClock, Mono, OffsetClock},
    pacing::decision::{Decision, Policy, SiteState},
    pacing::log::{Kind, Record},
    state_dir::{Dir, Mode},
};

/// Every key the store uses starts with this.
pub const PREFIX: &str = "pace-hook:";
/// How long a connection may take to open (and authenticate).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long any command may take to answer.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(3);
/// A waiter behind others looks at the queue at least this often, in case
/// the wake-up meant for it went to a process that died.
pub const QUEUE_BACKSTOP: Duration = RENEW_EVERY;
/// The caller at the head of a queue looks at the site at least this often,
/// in case a wake-up went to a stopped process.
pub const WATCH_BACKSTOP: Duration = Duration::from_secs(2);
/// Redis checks blocking timeouts at its `hz` (10 a second by default), so
/// a `BLPOP` can return up to 100 ms after its timeout: the server is asked
/// to wait this much less, and the rest is slept here.
const LATE_MARGIN: Duration = Duration::from_millis(110);
/// The gate log stream keeps about this many entries.
pub const LOG_MAX: u64 = 20_000;
/// How long a site's state lives after its last change; `STATE_TTL` in
/// `redis/base.lua` says the same.
const STATE_TTL_MS: u64 = 31 * 24 * 3_600_000;
/// How long a wake-up nobody took lasts; `WAKE_TTL` in `redis/base.lua`.
const WAKE_TTL_MS: u64 = 10_000;
const CALL_TTL_MS: u64 = 24 * 3_600_000;
const AGENT_TTL_MS: u64 = 7 * 24 * 3_600_000;
/// The file in the state directory with the last marker seen on each server.
const SEEN_FILE: &str = "redis-seen.json";
/// The file in the state directory that notes each server found without
/// functions (older than 7.0, or a user not allowed them) and when, so that
/// the next processes run their steps as scripts at once instead of each
/// finding out with an `FCALL` first. A note is believed for a day: a server
/// upgraded meanwhile gets its library then.
const SCRIPTS_FILE: &str = "redis-scripts.json";
const SCRIPTS_NOTE_MS: u64 = 24 * 3_600_000;

/// Reply codes shared with the scripts (`base.lua`).
const CORRUPT: i64 = 9;
const AGENT_BUSY: i64 = 4;
const QUEUED: i64 = 5;
const WAIT: i64 = 2;

/// A step of the store: a function of the store's library (`FCALL`), and
/// the same as a script of its own, with its SHA-1, for a server without
/// functions (`EVALSHA`).
pub(super) struct Lua {
    /// The function's name in the library, after [`function_prefix`].
    name: &'static str,
    /// The script: the preludes and the step, for `EVAL`.
    src: &'static str,
    /// Its SHA-1, worked out by the compiler ([`sha1`]).
    hash: [u8; 40],
}

/// What a script sent whole puts first and after its preludes: the globals
/// EVAL gives it, kept before `base.lua` declares its own, then `begin()`.
macro_rules! eval_head {
    () => {
        "local EVAL_KEYS, EVAL_ARGV = KEYS, ARGV\n"
    };
}
macro_rules! eval_begin {
    () => {
        "begin(EVAL_KEYS, EVAL_ARGV)\n"
    };
}

/// The store's function library without its first two lines (the name,
/// and `V`, the prefix of its functions' names, which come from this
/// text's hash): the preludes once, then each step as a function of its
/// keys and arguments, which begins as a script does.
macro_rules! library {
    ($($file:literal),* $(,)?) => {
        concat!(
            include_str!("base.lua"),
            include_str!("state.lua"),
            $(
                "redis.register_function(V .. '", $file, "', function(keys, args)\nbegin(keys, args)\n",
                include_str!(concat!($file, ".lua")),
                "\nend)\n",
            )*
        )
    };
}

const LIBRARY_BODY: &str = library!(
    "admit",
    "admit_sites",
    "finish",
    "cancel",
    "confirm",
    "extend",
    "check",
    "hello",
    "join",
    "ahead",
    "take_call",
    "finish_call",
    "set_tabs",
);
/// The library's version: the SHA-1 of its text, worked out by the
/// compiler. Each version is a library of its own on the server
/// (`pace_hook_<version>`), so builds of different versions that share a
/// server each call their own.
const LIBRARY_HASH: [u8; 40] = sha1::Sha1::NEW.update(LIBRARY_BODY.as_bytes()).hex();

fn library_version() -> &'static str {
    // 64 bits of the hash are plenty to tell versions apart.
    std::str::from_utf8(&LIBRARY_HASH[..16]).expect("hex digits")
}

/// What every function's name starts with: `pace_hook_<version>_`.
fn function_prefix() -> String {
    format!("pace_hook_{}_", library_version())
}

/// The library's whole text, for `FUNCTION LOAD`.
fn library() -> String {
    let prefix = function_prefix();
    format!(
        "#!lua name={}\nlocal V = '{prefix}'\n{LIBRARY_BODY}",
        prefix.trim_end_matches('_')
    )
}

/// Whether a call's error says the function is not there to call (never
/// loaded, a restart, a flush), rather than that it ran and failed.
fn function_missing(e: &RedisError) -> bool {
    e.code() == Some("ERR") && e.detail().is_some_and(|d| d.contains("Function not found"))
}

/// Whether a call's error says this server (or this user) has no functions
/// at all: older than 7.0, or not allowed `FCALL`/`FUNCTION`. Nothing ran.
fn functions_unavailable(e: &RedisError) -> bool {
    e.code() == Some("NOPERM")
        || (e.code() == Some("ERR")
            && e.detail().is_some_and(|d| {
                let d = d.to_ascii_lowercase();
                d.starts_with("unknown command")
                    && (d.contains("'fcall'") || d.contains("'function'"))
            }))
}

impl Lua {
    fn hash(&self) -> &str {
        std::str::from_utf8(&self.hash).expect("hex digits")
    }

    /// Run the step on `keys` and `args`: as the library's function
    /// (`FCALL`); if the server does not have the library (a restart, a
    /// flush, a new version), it is loaded and the function called in one
    /// round trip (`FUNCTION LOAD` and `FCALL` sent together). A server
    /// without functions (older than 7.0, or a user not allowed them) runs
    /// the step as a script, from then on for this store: by hash, and on
    /// `NOSCRIPT` whole (`EVAL`, which loads it too). Only an error that
    /// says nothing ran leads to another try; each try gets what is left of
    /// the call's deadline (`inner.rearm`).
    fn call<T: redis::FromRedisValue>(
        &self,
        inner: &Inner,
        c: &mut Connection,
        keys: &[&str],
        args: &[&str],
    ) -> RedisResult<T> {
        use std::sync::atomic::Ordering::Relaxed;
        if inner.functions.load(Relaxed) {
            let fcall = self.command(true, keys, args);
            match fcall.query(c) {
                Err(e) if function_missing(&e) => {
                    inner.rearm(c)?;
                    let mut both = redis::cmd("FUNCTION")
                        .arg("LOAD")
                        .arg(library())
                        .get_packed_command();
                    both.extend_from_slice(&fcall.get_packed_command());
                    c.send_packed_command(&both)?;
                    // The load's answer: an error is fine when another
                    // process loaded the same version first; the call's
                    // answer says.
                    if let Err(e) = c.recv_response()
                        && (e.is_io_error() || e.is_timeout() || is_interrupted(&e))
                    {
                        return Err(e);
                    }
                    match c.recv_response().and_then(Value::extract_error) {
                        Ok(v) => return Ok(T::from_redis_value(v)?),
                        // Not loaded after all (not allowed, out of
                        // memory): scripts, from now on.
                        Err(e) if function_missing(&e) || functions_unavailable(&e) => {
                            inner.no_functions();
                        }
                        Err(e) => return Err(e),
                    }
                }
                Err(e) if functions_unavailable(&e) => inner.no_functions(),
                other => return other,
            }
            inner.rearm(c)?;
        }
        let by_hash = self.command(false, keys, args).query(c);
        match by_hash {
            Err(e) if e.code() == Some("NOSCRIPT") => {
                inner.rearm(c)?;
                redis::cmd("EVAL")
                    .arg(self.src)
                    .arg(keys.len())
                    .arg(keys)
                    .arg(args)
                    .query(c)
            }
            other => other,
        }
    }

    /// The step on `keys` and `args` as one command: the library's function
    /// (`FCALL`) with `functions`, else the script by hash (`EVALSHA`).
    fn command(&self, functions: bool, keys: &[&str], args: &[&str]) -> redis::Cmd {
        let mut cmd = if functions {
            let mut c = redis::cmd("FCALL");
            c.arg(format!("{}{}", function_prefix(), self.name));
            c
        } else {
            let mut c = redis::cmd("EVALSHA");
            c.arg(self.hash());
            c
        };
        cmd.arg(keys.len()).arg(keys).arg(args);
        cmd
    }

    /// [`Self::command`] as this store runs steps now, to send without
    /// waiting for its answer ([`Inner::defer`]). Best effort: a server that
    /// has neither the function nor the script loaded answers with an error
    /// nobody reads.
    fn deferred(&self, inner: &Inner, keys: &[&str], args: &[&str]) -> redis::Cmd {
        use std::sync::atomic::Ordering::Relaxed;
        self.command(inner.functions.load(Relaxed), keys, args)
    }
}

/// The hash state after each prelude, which every script's hash goes on
/// from.
const AFTER_BASE: sha1::Sha1 = sha1::Sha1::NEW
    .update(eval_head!().as_bytes())
    .update(include_str!("base.lua").as_bytes());
const AFTER_STATE: sha1::Sha1 = AFTER_BASE.update(include_str!("state.lua").as_bytes());

/// One step: its function's name, and as a script `redis/base.lua` (prefix,
/// clock, numbers), for the steps on a site's state `redis/state.lua`
/// (`decision.rs` in Lua), and the step itself; its hash worked out at
/// compile time.
macro_rules! script {
    ($name:ident, $file:literal) => {
        static $name: Lua = Lua {
            name: $file,
            src: concat!(
                eval_head!(),
                include_str!("base.lua"),
                include_str!("state.lua"),
                eval_begin!(),
                include_str!(concat!($file, ".lua"))
            ),
            hash: AFTER_STATE
                .update(eval_begin!().as_bytes())
                .update(include_str!(concat!($file, ".lua")).as_bytes())
                .hex(),
        };
    };
    ($name:ident, $file:literal, base only) => {
        static $name: Lua = Lua {
            name: $file,
            src: concat!(
                eval_head!(),
                include_str!("base.lua"),
                eval_begin!(),
                include_str!(concat!($file, ".lua"))
            ),
            hash: AFTER_BASE
                .update(eval_begin!().as_bytes())
                .update(include_str!(concat!($file, ".lua")).as_bytes())
                .hex(),
        };
    };
}

script!(ADMIT, "admit");
script!(ADMIT_SITES, "admit_sites");
script!(FINISH, "finish");
script!(CANCEL, "cancel");
script!(CONFIRM, "confirm");
script!(EXTEND, "extend");
script!(CHECK, "check");
script!(HELLO, "hello", base only);
script!(JOIN, "join", base only);
script!(AHEAD, "ahead", base only);
/// `redis/leave.lua`, sent whole (`EVAL`): a place is left without
/// waiting for the answer, and a server that restarted since the script was
/// last loaded (or lost its functions) would answer `EVALSHA` with
/// `NOSCRIPT` (or `FCALL` with an error), which nobody reads.
const LEAVE_SRC: &str = concat!(
    eval_head!(),
    include_str!("base.lua"),
    eval_begin!(),
    include_str!("leave.lua")
);
script!(TAKE_CALL, "take_call", base only);
script!(FINISH_CALL, "finish_call");
script!(SET_TABS, "set_tabs", base only);

/// What the store and its places, leases and watches share: the server and
/// the connections to it.
struct Inner {
    client: redis::Client,
    /// The URL with the password masked, for messages.
    server: String,
    /// The password, to scrub from any message that might repeat it.
    secret: Option<String>,
    /// Commands of the gate's own thread (and any other, one at a time).
    main: Mutex<Option<Connection>>,
    /// Blocking waits, so they hold up no other command.
    blocking: Mutex<Option<Connection>>,
    /// The heartbeat's renewals.
    beat: Mutex<Option<Connection>>,
    /// The call's deadline, if one was set ([`crate::store::Store::bound_io`]):
    /// no command waits past it.
    until: Mutex<Option<Mono>>,
    /// Whether the server runs the store's function library (`FCALL`):
    /// until it shows it cannot (older than 7.0, or not allowed), after
    /// which steps go as scripts.
    functions: std::sync::atomic::AtomicBool,
    /// Set when this process found the server without functions, for the
    /// note in [`SCRIPTS_FILE`] when the store is dropped.
    functions_gone: std::sync::atomic::AtomicBool,
    /// Writes whose answer nobody needs (the stream log, leaving a queue),
    /// packed, and how many: sent ahead of the next command on `main`, or,
    /// when the process is done with the store, last and without waiting.
    deferred: Mutex<(Vec<u8>, usize)>,
    /// Test only: the server's clock, in µs, for replaying a timeline.
    #[cfg(test)]
    test_now_us: Mutex<Option<u64>>,
    /// For the property tests: a fake clock that every script reads instead
    /// of the server's `TIME`, and that every wait steps instead of
    /// blocking on the server. `None` in every real use.
    fake: Option<Arc<FakeClock>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Inner {
    fn key(&self, kind: &str, name: &str) -> String {
        format!("{PREFIX}{kind}:{name}")
    }

    /// The clock argument of every script: empty (the server's `TIME`).
    fn clock_arg(&self) -> String {
        #[cfg(test)]
        if let Some(us) = *lock(&self.test_now_us) {
            return us.to_string();
        }
        if let Some(fake) = &self.fake {
            return fake.now_floor().saturating_mul(1000).to_string();
        }
        String::new()
    }

    /// A new connection, with no timeouts of its own yet: [`Self::on`]
    /// sets them before its first command (the crate clears the ones it set
    /// for connecting).
    fn connect(&self) -> Result<Connection> {
        self.client
            .get_connection_with_timeout(self.bounded(CONNECT_TIMEOUT)?)
            .map_err(|e| self.error(&e))
    }

    /// [`Self::bounded`], or a millisecond once nothing is left (for a read
    /// timeout set inside a command: the command then fails as timed out).
    fn bounded_or(&self, timeout: Duration) -> Duration {
        self.bounded(timeout)
            .unwrap_or(Duration::from_millis(1))
            .max(Duration::from_millis(1))
    }

    /// `timeout`, cut to what is left before the call's deadline; an error
    /// once nothing is.
    fn bounded(&self, timeout: Duration) -> Result<Duration> {
        let Some(until) = *lock(&self.until) else {
            return Ok(timeout);
        };
        let left = crate::pacing::clock::SystemClock.left(until);
        if left.is_zero() {
            return Err(Error::Backend {
                server: self.server.clone(),
                setup: false,
                problem: "answered too slowly: the call's deadline passed while it waited for the server; it may be overloaded, or the network to it slow: check them".to_owned(),
            });
        }
        Ok(timeout.min(left))
    }

    /// Run `f` on `slot`'s connection, opening one if needed. A connection
    /// that failed (or timed out, leaving a reply in flight) is dropped, and
    /// the next use opens another.
    fn on<T>(
        &self,
        slot: &Mutex<Option<Connection>>,
        f: impl FnOnce(&mut Connection) -> RedisResult<T>,
    ) -> Result<T> {
        let mut guard = lock(slot);
        let fresh = guard.is_none();
        let conn = match &mut *guard {
            Some(c) => c,
            None => guard.insert(self.connect()?),
        };
        // A new connection's timeouts, and on every command under a
        // deadline what is left of it: the command timeout, or less.
        if fresh || lock(&self.until).is_some() {
            let set = self.bounded(COMMAND_TIMEOUT).and_then(|t| {
                conn.set_read_timeout(Some(t))
                    .and_then(|()| conn.set_write_timeout(Some(t)))
                    .map_err(|e| self.error(&e))
            });
            if let Err(e) = set {
                // Never kept without its timeouts.
                *guard = None;
                return Err(e);
            }
        }
        match f(conn) {
            Ok(v) => Ok(v),
            Err(e) => {
                if e.is_io_error() || e.is_timeout() || is_interrupted(&e) || !conn.is_open() {
                    *guard = None;
                }
                Err(self.error(&e))
            }
        }
    }

    fn run<T>(&self, f: impl FnOnce(&mut Connection) -> RedisResult<T>) -> Result<T> {
        let (bytes, count) = std::mem::take(&mut *lock(&self.deferred));
        self.on(&self.main, |c| {
            if count > 0 {
                c.send_packed_command(&bytes)?;
                for _ in 0..count {
                    // Answers nobody waits for: read and dropped. One that
                    // is an error (a write that failed) is as if it had not
                    // been tried, which a best-effort write allows.
                    if let Err(e) = c.recv_response()
                        && (e.is_io_error() || e.is_timeout() || is_interrupted(&e))
                    {
                        return Err(e);
                    }
                }
            }
            f(c)
        })
    }

    /// The server runs no functions for this store: steps go as scripts.
    fn no_functions(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        self.functions.store(false, Relaxed);
        self.functions_gone.store(true, Relaxed);
    }

    /// Run step `lua` on `keys` and `args` on the main connection.
    fn script<T: redis::FromRedisValue>(
        &self,
        lua: &Lua,
        keys: &[&str],
        args: &[&str],
    ) -> Result<T> {
        self.run(|c| lua.call(self, c, keys, args))
    }

    /// Before another round trip inside one command of [`Self::on`]: under a
    /// deadline, the connection's timeouts cut again to what is left of it
    /// (a millisecond once nothing is: the round trip then fails as timed
    /// out), so that tries one after another never wait past it.
    fn rearm(&self, c: &mut Connection) -> RedisResult<()> {
        if lock(&self.until).is_some() {
            let t = self.bounded_or(COMMAND_TIMEOUT);
            c.set_read_timeout(Some(t))?;
            c.set_write_timeout(Some(t))?;
        }
        Ok(())
    }

    /// Send `cmd` later without waiting for its answer: with the next
    /// command, or when the store is dropped. For best-effort writes only.
    fn defer(&self, cmd: &redis::Cmd) {
        let mut d = lock(&self.deferred);
        d.0.extend_from_slice(&cmd.get_packed_command());
        d.1 += 1;
    }

    /// Send the deferred writes in one go and do not wait: the process is
    /// done with the store. One write, after every earlier answer was read,
    /// so nothing holds it back (Nagle) and closing the connection right
    /// after sends it whole.
    fn send_deferred(&self) {
        let (bytes, count) = std::mem::take(&mut *lock(&self.deferred));
        if count > 0
            && let Some(c) = lock(&self.main).as_mut()
        {
            let _ = c.send_packed_command(&bytes);
        }
    }

    /// The one-line error for `e`: the server, what went wrong, what to do.
    fn error(&self, e: &RedisError) -> Error {
        let detail = e.to_string();
        // A server that wants a password refuses a long command from a
        // client that gave none ("Protocol error: unauthenticated multibulk
        // length") before it can say NOAUTH: the first command of an event
        // is one script with all its arguments.
        let (setup, problem) = if e.kind() == redis::ErrorKind::AuthenticationFailed
            || matches!(e.code(), Some("WRONGPASS" | "NOAUTH"))
            || detail.contains("unauthenticated multibulk")
            || detail.contains("unauthenticated bulk")
        {
            (
                true,
                format!(
                    "refused the user or password pace-hook gave ({detail}); fix them in the `backend` URL (or PACE_HOOK_BACKEND)"
                ),
            )
        } else if e.kind() == redis::ErrorKind::InvalidClientConfig {
            (
                true,
                format!(
                    "cannot be used: {detail}; write the URL as redis://[user:password@]host:port/db"
                ),
            )
        } else if e.code() == Some("NOPERM") {
            (
                true,
                format!(
                    "does not let pace-hook's user run what the gate needs ({detail}); allow scripts, TIME, BLPOP and XADD on `{PREFIX}*`"
                ),
            )
        } else if e.is_timeout() {
            (
                false,
                format!(
                    "did not answer within {} s ({detail}); it may be overloaded, stopped or out of reach: check it and the network to it",
                    COMMAND_TIMEOUT.as_secs()
                ),
            )
        } else if e.is_connection_refusal() {
            (
                false,
                format!(
                    "refused the connection ({detail}); start it, or point `backend` (or PACE_HOOK_BACKEND) at one that runs"
                ),
            )
        } else if e.is_io_error() || e.is_connection_dropped() {
            (
                false,
                format!(
                    "cannot be reached ({detail}); check that it runs and that this machine can reach it"
                ),
            )
        } else {
            (false, format!("answered with an error ({detail})"))
        };
        Error::Backend {
            server: self.server.clone(),
            problem: self.scrub(&problem),
            setup,
        }
    }

    /// One line, and no password in it.
    fn scrub(&self, text: &str) -> String {
        let mut t = text.replace(['\n', '\r'], " ");
        if let Some(s) = self.secret.as_deref().filter(|s| s.len() >= 3) {
            t = t.replace(s, "***");
        }
        t
    }

    /// Wait on list `key` for up to `timeout`; `true` if something came.
    /// The server waits all but [`LATE_MARGIN`]; the rest is slept here, so
    /// the wait is never cut short nor much longer than asked.
    fn block_pop(&self, key: &str, timeout: Duration) -> Result<bool> {
        if let Some(fake) = &self.fake {
            // A fake clock's wait is a step of the clock: nobody else runs.
            fake.sleep(timeout);
            return Ok(false);
        }
        let clock = crate::pacing::clock::SystemClock;
        let start = clock.mono();
        let server_wait = timeout.saturating_sub(LATE_MARGIN);
        if server_wait >= Duration::from_millis(10) {
            let mut interrupted = false;
            let got: Option<(String, String)> = self
                .on(&self.blocking, |c| {
                    c.set_read_timeout(Some(self.bounded_or(server_wait + COMMAND_TIMEOUT)))?;
                    let got = redis::cmd("BLPOP")
                        .arg(key)
                        .arg(format!("{:.3}", server_wait.as_secs_f64()))
                        .query(c);
                    match got {
                        // Stopped (Ctrl-Z, SIGSTOP) and continued: a read with a
                        // timeout then fails with EINTR instead of going on. The
                        // reply may still come, so this connection is done for
                        // (a dropped wake-up is caught by the backstop); the
                        // caller just looks again.
                        Err(e) if is_interrupted(&e) => {
                            interrupted = true;
                            Err(e)
                        }
                        got => {
                            c.set_read_timeout(Some(self.bounded_or(COMMAND_TIMEOUT)))?;
                            got
                        }
                    }
                })
                .or_else(|e| if interrupted { Ok(None) } else { Err(e) })?;
            if got.is_some() || interrupted {
                return Ok(true);
            }
        }
        clock.sleep(timeout.saturating_sub(clock.mono().since(start)));
        Ok(false)
    }

    /// Renew `key`'s time to live, from the heartbeat thread; whether the
    /// key was there to renew. Failures are left alone: a key not renewed
    /// lapses, which only costs this process its place.
    fn renew(&self, key: &str) -> bool {
        let renewed = self.on(&self.beat, |c| {
            redis::cmd("PEXPIRE")
                .arg(key)
                .arg(LEASE_TTL.as_millis() as u64)
                .query::<i64>(c)
        });
        matches!(renewed, Ok(1))
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.send_deferred();
    }
}

/// The process is done with the store: its last writes (leaving the queue,
/// the log's entry) go out now. Not only when [`Inner`] goes, which is never
/// while the heartbeat thread holds it for a renewal in flight: a process
/// that exited then left its place behind for its time to live, and the
/// caller behind it waited out a live holder's dead place (the 4.8 s gap of
/// BENCHMARKS.md's Redis rows).
impl Drop for RedisStore {
    fn drop(&mut self) {
        self.inner.send_deferred();
        if self
            .inner
            .functions_gone
            .swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            self.note_scripts();
        }
    }
}

/// Whether `e` is a system call cut short by a signal (EINTR).
fn is_interrupted(e: &RedisError) -> bool {
    type Shared = Arc<dyn std::error::Error + Send + Sync>;
    // The crate keeps the io::Error in an Arc, which is what `source` gives.
    let Some(source) = std::error::Error::source(e) else {
        return false;
    };
    let io = source.downcast_ref::<std::io::Error>().or_else(|| {
        source
            .downcast_ref::<Shared>()
            .and_then(|a| a.downcast_ref::<std::io::Error>())
    });
    io.is_some_and(|io| io.kind() == std::io::ErrorKind::Interrupted)
}

/// Renew `key` from the heartbeat until the registration drops.
fn keep_alive(inner: &Arc<Inner>, key: String) -> heartbeat::Registration {
    let inner = inner.clone();
    heartbeat::register(move || {
        inner.renew(&key);
    })
}

/// [`keep_alive`] for a place, noting in `alive_at` when each renewal found
/// its key still there.
fn keep_place_alive(
    inner: &Arc<Inner>,
    key: String,
    alive_at: Arc<Mutex<Instant>>,
) -> heartbeat::Registration {
    let inner = inner.clone();
    heartbeat::register(move || {
        if inner.renew(&key) {
            *lock(&alive_at) = Instant::now();
        }
    })
}

/// The gate on a Redis server.
pub struct RedisStore {
    inner: Arc<Inner>,
    clock: Arc<OffsetClock>,
    settings: Options,
    /// The state directory on this machine: the local gate log, and the
    /// marker last seen on the server.
    home: PathBuf,
    root: OnceLock<Result<Dir, String>>,
    /// Set once the server's time and marker were read: by the first
    /// script that brought them, or `hello` on the first read of the clock
    /// before any did.
    greeted: OnceLock<()>,
    /// The tab map as a script read it along with its step, for the next
    /// [`crate::store::Tabs::tabs`] (once): `Some(None)` is no map.
    tabs_read: Mutex<Option<Option<String>>>,
    /// Each site's state as the last finish script left it, for the next
    /// look at that site (once).
    states_read: ReadAlong<String>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("server", &self.inner.server)
            .finish()
    }
}

/// A step's reply: integers, and now and then a string.
struct Reply(Vec<Value>);

impl Reply {
    fn int(&self, i: usize) -> i64 {
        match self.0.get(i) {
            Some(Value::Int(n)) => *n,
            Some(Value::BulkString(b)) => std::str::from_utf8(b)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0),
            _ => 0,
        }
    }

    fn uint(&self, i: usize) -> u64 {
        self.int(i).max(0) as u64
    }

    fn opt_text(&self, i: usize) -> Option<String> {
        match self.0.get(i) {
            Some(Value::BulkString(b)) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }
    }

    fn text(&self, i: usize) -> String {
        match self.0.get(i) {
            Some(Value::BulkString(b)) => String::from_utf8_lossy(b).into_owned(),
            Some(Value::SimpleString(s)) => s.clone(),
            _ => String::new(),
        }
    }
}

impl redis::FromRedisValue for Reply {
    fn from_redis_value(v: Value) -> std::result::Result<Self, redis::ParsingError> {
        match v {
            Value::Array(items) => Ok(Reply(items)),
            other => Ok(Reply(vec![other])),
        }
    }
}

impl RedisStore {
    /// The store on the server at `url`, with its local state (gate log,
    /// marker) in `home`. Connects at once: a server that cannot be reached
    /// (or refuses the credentials) is an error here, where the caller can
    /// still fall back. It is greeted (its clock read, its data marker
    /// checked) on the first read of the clock.
    pub fn open(url: &str, home: impl Into<PathBuf>, settings: Options) -> Result<Self> {
        let (server, secret) = redact_url(url);
        let unusable = |problem: String| Error::Backend {
            server: server.clone(),
            problem,
            setup: true,
        };
        if !cfg!(feature = "redis-tls")
            && url
                .get(..9)
                .is_some_and(|s| s.eq_ignore_ascii_case("rediss://"))
        {
            return Err(unusable(
                "needs a pace-hook built with TLS (`cargo install --path . --features redis-tls`) for rediss://; this one was built without it".to_owned(),
            ));
        }
        let bad_url = |e: RedisError| {
            unusable(format!(
                "is not a Redis URL pace-hook can use ({}); write it as redis://[user:password@]host:port/db, or rediss:// for TLS",
                e.to_string().replace(['\n', '\r'], " ")
            ))
        };
        let info = url.into_connection_info().map_err(bad_url)?;
        // No CLIENT SETINFO on connecting: without a password or a database
        // to select, connecting then costs no round trip of its own.
        let quiet = info.redis_settings().clone().set_skip_set_lib_name();
        // No Nagle: a write that follows another before its answer (the
        // deferred writes sent ahead of a command, a pipeline) would wait
        // for the first one's acknowledgement, a round trip, before it left.
        // Every command goes out whole in one write, so there is nothing
        // for Nagle to coalesce.
        let tcp = info.tcp_settings().clone().set_nodelay(true);
        let info = info.set_redis_settings(quiet).set_tcp_settings(tcp);
        let client = redis::Client::open(info).map_err(bad_url)?;
        let store = Self {
            inner: Arc::new(Inner {
                client,
                server,
                secret,
                main: Mutex::new(None),
                blocking: Mutex::new(None),
                beat: Mutex::new(None),
                until: Mutex::new(None),
                functions: std::sync::atomic::AtomicBool::new(true),
                functions_gone: std::sync::atomic::AtomicBool::new(false),
                deferred: Mutex::new((Vec::new(), 0)),
                #[cfg(test)]
                test_now_us: Mutex::new(None),
                fake: None,
            }),
            clock: Arc::new(OffsetClock::default()),
            settings,
            home: home.into(),
            root: OnceLock::new(),
            greeted: OnceLock::new(),
            tabs_read: Mutex::new(None),
            states_read: ReadAlong::default(),
        };
        // Connect now (and authenticate): a server that cannot be reached
        // is an error here. The greeting waits for the first read of the
        // clock: a Post stamps its finish by the server's clock inside a
        // script, and greets the server after that, not before.
        store.inner.run(|_| Ok(()))?;
        if store.scripts_noted() {
            store
                .inner
                .functions
                .store(false, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(store)
    }

    /// The servers noted in [`SCRIPTS_FILE`], by when.
    fn scripts_notes(&self) -> BTreeMap<String, u64> {
        let Ok(root) = self.root() else {
            return BTreeMap::new();
        };
        root.open(SCRIPTS_FILE, Mode::Read)
            .ok()
            .and_then(|f| {
                let mut bytes = Vec::new();
                crate::state_dir::read_all(&f, &mut bytes).ok()?;
                serde_json::from_slice(&bytes).ok()
            })
            .unwrap_or_default()
    }

    /// Whether a process here found this server without functions within
    /// the last [`SCRIPTS_NOTE_MS`].
    fn scripts_noted(&self) -> bool {
        let now = OffsetClock::local_us().max(0) as u64 / 1000;
        self.scripts_notes()
            .get(&self.inner.server)
            .is_some_and(|&at| now.saturating_sub(at) < SCRIPTS_NOTE_MS)
    }

    /// Note that this server runs no functions (best effort).
    fn note_scripts(&self) {
        let mut notes = self.scripts_notes();
        let now = OffsetClock::local_us().max(0) as u64 / 1000;
        notes.insert(self.inner.server.clone(), now);
        if let (Ok(root), Ok(text)) = (self.root(), serde_json::to_vec(&notes)) {
            let _ = root.write_atomic(SCRIPTS_FILE, &text);
        }
    }

    /// For property tests: the store on the server at `url` with every time
    /// the gate compares, and every wait, on `clock` instead of the server's
    /// clock, so a timeline of hours runs in milliseconds. Not for real use:
    /// other processes would not share the fake time.
    #[doc(hidden)]
    pub fn with_fake_clock(
        url: &str,
        home: impl Into<PathBuf>,
        settings: Options,
        clock: Arc<FakeClock>,
    ) -> Result<Self> {
        let mut s = Self::open(url, home, settings)?;
        Arc::get_mut(&mut s.inner)
            .expect("a store just opened shares nothing")
            .fake = Some(clock);
        Ok(s)
    }

    /// For property tests: write garbage over `site`'s state, as a torn
    /// write or a stray command would.
    #[doc(hidden)]
    pub fn tear(&self, site: &str) -> Result<()> {
        let key = self.inner.key("site", site);
        self.inner.run(|c| {
            redis::cmd("SET")
                .arg(&key)
                .arg("{\"site\": \"a")
                .query::<()>(c)
        })
    }

    /// The server's URL, password masked.
    pub fn server(&self) -> &str {
        &self.inner.server
    }

    /// Set this process's clock to the server's, and notice an empty server.
    /// Once, on the first read of the clock ([`Store::clock`]); a failure
    /// leaves this machine's clock in place, and the next command fails on
    /// its own.
    fn greet(&self) {
        self.greeted.get_or_init(|| {
            let _ = self.hello();
        });
    }

    /// Greeted by a script's reply: the server's time `server_us`, read
    /// between `before` (this machine's µs when the script was sent) and
    /// now, and its marker.
    fn greeted_by(&self, server_us: i64, before: i64, marker: &str, created: bool) {
        let after = OffsetClock::local_us();
        self.greeted.get_or_init(|| {
            // Half the round trip either side: the server read its clock
            // somewhere between, most likely in the middle.
            self.clock.set_offset_us(server_us - (before + after) / 2);
            self.notice_marker(marker, created);
        });
    }

    fn hello(&self) -> Result<()> {
        let fresh = fresh_marker();
        let before = OffsetClock::local_us();
        let marker = format!("{PREFIX}marker");
        let clock = self.inner.clock_arg();
        let r: Reply = self
            .inner
            .script(&HELLO, &[&marker], &[PREFIX, &clock, &fresh])?;
        let after = OffsetClock::local_us();
        // Half the round trip either side: the server read its clock
        // somewhere between, most likely in the middle.
        self.clock.set_offset_us(r.int(0) - (before + after) / 2);
        self.notice_marker(&r.text(1), r.int(2) == 1);
        Ok(())
    }

    /// Compare the server's marker with the one this machine saw last, and
    /// say in the log when the server's data is not what it was.
    fn notice_marker(&self, marker: &str, created: bool) {
        let Ok(root) = self.root() else { return };
        let mut seen: BTreeMap<String, String> = root
            .open(SEEN_FILE, Mode::Read)
            .ok()
            .and_then(|f| {
                let mut bytes = Vec::new();
                crate::state_dir::read_all(&f, &mut bytes).ok()?;
                serde_json::from_slice(&bytes).ok()
            })
            .unwrap_or_default();
        let last = seen.get(&self.inner.server).cloned();
        if last.as_deref() == Some(marker) {
            return;
        }
        let note = match (&last, created) {
            (Some(_), _) => Some(
                "holds none of the gate's state this machine saw there last (it restarted empty, or was flushed): the gate starts afresh, every site free",
            ),
            (None, true) => Some("was empty: the gate starts afresh there"),
            (None, false) => None,
        };
        if let Some(note) = note {
            let mut r = Record::new(Kind::Backend, self.clock.now_floor(), "");
            r.reason = Some(format!(
                "the gate's Redis server `{}` {note}",
                self.inner.server
            ));
            self.log(&r);
        }
        seen.insert(self.inner.server.clone(), marker.to_owned());
        if let Ok(text) = serde_json::to_vec(&seen) {
            let _ = root.write_atomic(SEEN_FILE, &text);
        }
    }

    fn root(&self) -> Result<&Dir> {
        super::state_root(&self.root, &self.home)
    }

    /// Test only: every script's clock reads `us` (µs since the epoch)
    /// instead of the server's `TIME`.
    #[cfg(test)]
    fn set_test_clock(&self, us: Option<u64>) {
        *lock(&self.inner.test_now_us) = us;
    }
}

/// A new marker for the server's data, should it have none.
fn fresh_marker() -> String {
    format!(
        "{}-{:016x}",
        OffsetClock::local_us(),
        crate::pacing::request::random_u64()
    )
}

/// The store's clock: the server's, as far as this process knows it. The
/// first read of the wall clock before any script brought the server's time
/// greets the server (`hello`); the monotonic scale needs no greeting.
impl Clock for RedisStore {
    fn now_floor(&self) -> EpochMs {
        self.greet();
        self.clock.now_floor()
    }

    fn now_ceil(&self) -> EpochMs {
        self.greet();
        self.clock.now_ceil()
    }

    fn until(&self, at: EpochMs) -> Duration {
        self.greet();
        self.clock.until(at)
    }

    fn mono(&self) -> Mono {
        self.clock.mono()
    }

    fn sleep(&self, d: Duration) {
        self.clock.sleep(d)
    }
}

impl Store for RedisStore {
    fn clock(&self) -> &dyn Clock {
        match &self.inner.fake {
            Some(fake) => fake.as_ref(),
            None => self,
        }
    }

    fn admit_call(&self, a: &crate::store::AdmitCall<'_>) -> Result<crate::store::Admission> {
        self.admit_at_once(a)
    }

    fn admit_sites(
        &self,
        a: &crate::store::AdmitSites<'_>,
    ) -> Result<crate::store::SitesAdmission> {
        self.admit_sites_at_once(a)
    }

    fn finish_call(
        &self,
        call: &str,
        agent: Option<&str>,
        revealed: &[String],
        note: Option<&crate::store::TabNote>,
    ) -> Result<Vec<(String, EpochMs)>> {
        self.finish_at_once(call, agent, revealed, note)
    }

    fn describe(&self) -> String {
        format!("the Redis server `{}`", self.inner.server)
    }

    fn bound_io(&self, until: Option<Mono>) {
        *lock(&self.inner.until) = until;
    }
}

/// The integration tests' `redis-server`: one definition for both.
#[cfg(test)]
#[path = "../../../tests/common/redis_server.rs"]
pub(crate) mod test_server;

#[cfg(test)]
pub(crate) mod tests;
