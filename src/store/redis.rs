//! The gate on a Redis server: every process on every machine pointed at one
//! server meets every other on the same gate.
//!
//! # One clock
//! Every time the gate compares is the server's: each step on a site's state
//! is one Lua script that reads `TIME` itself (allowed since scripts
//! replicate their effects, the default since Redis 5 and the only mode in
//! 7). Clients whose clocks disagree by minutes still keep the gap, because
//! no client's clock takes part in a decision. The process's own
//! [`OffsetClock`] is set to the server's time when the process first reads
//! it, for what it stamps on its own (log lines, tab ages, messages); a Post
//! stamps its finish before that, by the server's clock, one round trip
//! sooner.
//!
//! # What is atomic how
//! - `try_admit` (drop lapsed leases, the lost-state rule, budgets,
//!   [`SiteState::try_admit`]), `finish`, `cancel`, `confirm` and `extend`
//!   are each one script (`redis/<step>.lua` after the preludes
//!   `redis/base.lua` and `redis/state.lua`, which is `decision.rs` line for
//!   line): the server runs a script with nothing else in between, so no
//!   read-then-write ever crosses the network. Scripts are sent by hash
//!   (`EVALSHA`) and loaded again when the server answers `NOSCRIPT` (after
//!   a restart).
//! - Joining, leaving and reclaiming queue places are scripts too. Leaving
//!   is sent without waiting for the answer (see below).
//! - `update_backoff` is an optimistic transaction (`WATCH` the state, run
//!   the closure here, `MULTI`/`EXEC`, again if the state changed meanwhile):
//!   it is rare, and its closure cannot run on the server.
//! - The tab map is looked at first with a plain `GET` (most events change
//!   nothing), and changed in the same kind of transaction. A call record
//!   is one `MULTI` (with an agent) or one `SET`; taking it is one script.
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
//! | `tabs` | the tab map ([`TabMap`], at most 512 tabs) | 30 days from its last change |
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
    io::Read,
    path::PathBuf,
    sync::{Arc, LazyLock, Mutex, MutexGuard, OnceLock},
    time::{Duration, Instant},
};

use redis::{
    Connection, ConnectionLike, IntoConnectionInfo, RedisError, RedisResult, Script, Value,
};

use super::{
    Attempt, CallRecord, LEASE_TTL, Lease, Place, QueueTimeout, RENEW_EVERY, Settings, Store,
    TabMap, Watch, heartbeat, redact_url,
};
use crate::{
    error::{Error, Result},
    pacing::clock::{Clock, EpochMs, FakeClock, Mono, OffsetClock},
    pacing::decision::{Decision, Policy, SiteState},
    pacing::log::{self, Kind, Record},
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
const TABS_TTL_MS: u64 = 30 * 24 * 3_600_000;
/// The file in the state directory with the last marker seen on each server.
const SEEN_FILE: &str = "redis-seen.json";

/// Reply codes shared with the scripts.
const CORRUPT: i64 = 9;

/// One script: `redis/base.lua` (prefix, clock, numbers), for the steps on
/// a site's state `redis/state.lua` (`decision.rs` in Lua), and the step
/// itself; hashed (SHA-1, for `EVALSHA`) the first time it is used. Each is
/// hashed on its own, and the queue's scripts leave `state.lua` out:
/// hashing is the largest user-space cost of an event on this store (6 % of
/// its samples under `perf` when all eleven were hashed up front).
macro_rules! script {
    ($name:ident, $file:literal) => {
        static $name: LazyLock<Script> = LazyLock::new(|| {
            Script::new(concat!(
                include_str!("redis/base.lua"),
                include_str!("redis/state.lua"),
                include_str!(concat!("redis/", $file, ".lua"))
            ))
        });
    };
    ($name:ident, $file:literal, base only) => {
        static $name: LazyLock<Script> = LazyLock::new(|| {
            Script::new(concat!(
                include_str!("redis/base.lua"),
                include_str!(concat!("redis/", $file, ".lua"))
            ))
        });
    };
}

script!(ADMIT, "admit");
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
/// last loaded would answer `EVALSHA` with `NOSCRIPT`, which nobody reads.
const LEAVE_SRC: &str = concat!(
    include_str!("redis/base.lua"),
    include_str!("redis/leave.lua")
);
script!(TAKE_CALL, "take_call", base only);

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

    fn connect(&self) -> Result<Connection> {
        let c = self
            .client
            .get_connection_with_timeout(CONNECT_TIMEOUT)
            .map_err(|e| self.error(&e))?;
        c.set_read_timeout(Some(COMMAND_TIMEOUT))
            .and_then(|()| c.set_write_timeout(Some(COMMAND_TIMEOUT)))
            .map_err(|e| self.error(&e))?;
        Ok(c)
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
        let conn = match &mut *guard {
            Some(c) => c,
            None => guard.insert(self.connect()?),
        };
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
        let (setup, problem) = if e.kind() == redis::ErrorKind::AuthenticationFailed
            || matches!(e.code(), Some("WRONGPASS" | "NOAUTH"))
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
                    c.set_read_timeout(Some(server_wait + COMMAND_TIMEOUT))?;
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
                            c.set_read_timeout(Some(COMMAND_TIMEOUT))?;
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
    settings: Settings,
    /// The state directory on this machine: the local gate log, and the
    /// marker last seen on the server.
    home: PathBuf,
    root: OnceLock<Result<Dir, String>>,
    /// Set once `hello` ran: on the first read of the clock.
    greeted: OnceLock<()>,
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
    pub fn open(url: &str, home: impl Into<PathBuf>, settings: Settings) -> Result<Self> {
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
        let client = redis::Client::open(info.set_redis_settings(quiet)).map_err(bad_url)?;
        let store = Self {
            inner: Arc::new(Inner {
                client,
                server,
                secret,
                main: Mutex::new(None),
                blocking: Mutex::new(None),
                beat: Mutex::new(None),
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
        };
        // Connect now (and authenticate): a server that cannot be reached
        // is an error here. The greeting waits for the first read of the
        // clock: a Post stamps its finish by the server's clock inside a
        // script, and greets the server after that, not before.
        store.inner.run(|_| Ok(()))?;
        Ok(store)
    }

    /// For property tests: the store on the server at `url` with every time
    /// the gate compares, and every wait, on `clock` instead of the server's
    /// clock, so a timeline of hours runs in milliseconds. Not for real use:
    /// other processes would not share the fake time.
    #[doc(hidden)]
    pub fn with_fake_clock(
        url: &str,
        home: impl Into<PathBuf>,
        settings: Settings,
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

    fn hello(&self) -> Result<()> {
        let fresh = format!(
            "{}-{:016x}",
            OffsetClock::local_us(),
            crate::pacing::request::random_u64()
        );
        let before = OffsetClock::local_us();
        let r: Reply = self.inner.run(|c| {
            HELLO
                .key(format!("{PREFIX}marker"))
                .arg(PREFIX)
                .arg(self.inner.clock_arg())
                .arg(&fresh)
                .invoke(c)
        })?;
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
            .and_then(|mut f| {
                let mut text = String::new();
                f.read_to_string(&mut text).ok()?;
                serde_json::from_str(&text).ok()
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
        self.root
            .get_or_init(|| Dir::open_root(&self.home, true).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|message| Error::StateDir {
                message: message.clone(),
            })
    }

    fn site_keys(&self, site: &str) -> [String; 3] {
        [
            self.inner.key("site", site),
            format!("{PREFIX}sites"),
            self.inner.key("changed", site),
        ]
    }

    /// Run a step on `site`'s state: the script with the site's keys, the
    /// prefix, the clock, the site, `call` and `args`.
    fn step(&self, script: &Script, site: &str, call: &str, args: &[String]) -> Result<Reply> {
        let [state, sites, changed] = self.site_keys(site);
        self.inner.run(|c| {
            let mut inv = script.key(&state);
            inv.key(&sites)
                .key(&changed)
                .arg(PREFIX)
                .arg(self.inner.clock_arg())
                .arg(site)
                .arg(call);
            for a in args {
                inv.arg(a);
            }
            inv.invoke(c)
        })
    }

    /// The lost-state rule's error, after a script healed `site`.
    fn corrupt(&self, site: &str, aside: &str, heal: &Policy) -> Error {
        let place = |key: &str| PathBuf::from(format!("{key}` on `{}", self.inner.server));
        Error::CorruptState {
            path: place(&self.inner.key("site", site)),
            moved_to: (!aside.is_empty()).then(|| place(aside)),
            retry_after_ms: heal.hold_ms.saturating_add(heal.interval_ms),
        }
    }

    fn lost_args(&self) -> [String; 2] {
        [
            self.settings.lost.interval_ms.to_string(),
            self.settings.lost.hold_ms.to_string(),
        ]
    }

    /// Run a step whose reply is `{OK, found?}`.
    fn found(&self, script: &Script, site: &str, call: &str, args: &[String]) -> Result<bool> {
        let r = self.step(script, site, call, args)?;
        if r.int(0) == CORRUPT {
            return Err(self.corrupt(site, &r.text(1), &self.settings.lost));
        }
        Ok(r.int(1) == 1)
    }

    fn queue_key(&self, site: &str) -> String {
        self.inner.key("queue", site)
    }

    fn ahead(&self, site: &str, ticket: Option<u64>) -> Result<usize> {
        let queue = self.queue_key(site);
        let n: i64 = self.inner.run(|c| {
            AHEAD
                .key(&queue)
                .arg(PREFIX)
                .arg(self.inner.clock_arg())
                .arg(ticket.map_or_else(|| "all".to_owned(), |t| t.to_string()))
                .arg(self.settings.stale_after_ms)
                .invoke(c)
        })?;
        Ok(n.max(0) as usize)
    }

    fn parse_state(&self, site: &str, raw: &str) -> Result<SiteState> {
        match serde_json::from_str::<SiteState>(raw) {
            Ok(s) if s.site == site => Ok(s),
            _ => Err(self.corrupt(site, "", &self.settings.lost)),
        }
    }

    /// Test only: every script's clock reads `us` (µs since the epoch)
    /// instead of the server's `TIME`.
    #[cfg(test)]
    fn set_test_clock(&self, us: Option<u64>) {
        *lock(&self.inner.test_now_us) = us;
    }
}

/// A place in a site's queue: a key renewed by the heartbeat.
struct RedisPlace {
    inner: Arc<Inner>,
    queue: String,
    ticket: u64,
    /// When the key was last known to be there with a fresh time to live:
    /// joined, or renewed by the heartbeat.
    alive_at: Arc<Mutex<Instant>>,
    _beat: heartbeat::Registration,
}

/// A place known to have been there this recently is still there: its key
/// then had [`LEASE_TTL`] to live, and within `max_wait` (shorter than
/// `stale_after`) nobody but its owner removes a place whose key lives.
const KNOWN_ALIVE: Duration = LEASE_TTL.saturating_sub(RENEW_EVERY.saturating_mul(2));

impl Place for RedisPlace {
    fn ticket(&self) -> u64 {
        self.ticket
    }

    /// Asked before every look at the site, also the one right at the due
    /// time: answered from the heartbeat's last renewal while that is
    /// recent, which saves a round trip between the due time and the
    /// admission; asked of the server after a stop, when it is not.
    fn still_held(&self) -> Result<bool> {
        if lock(&self.alive_at).elapsed() < KNOWN_ALIVE {
            return Ok(true);
        }
        let key = self.inner.key("place", &self.ticket.to_string());
        let held = self
            .inner
            .run(|c| redis::cmd("EXISTS").arg(&key).query::<i64>(c))
            .map(|n| n == 1)?;
        if held {
            *lock(&self.alive_at) = Instant::now();
        }
        Ok(held)
    }
}

impl Drop for RedisPlace {
    fn drop(&mut self) {
        // Best effort, without waiting: a place that cannot be removed
        // lapses on its own. The gate drops the place of an admitted call
        // last, so this goes out with the process's last writes.
        self.inner.defer(
            redis::cmd("EVAL")
                .arg(LEAVE_SRC)
                .arg(1)
                .arg(&self.queue)
                .arg(PREFIX)
                .arg(self.inner.clock_arg())
                .arg(self.ticket),
        );
    }
}

/// A lease: a key renewed by the heartbeat, deleted when dropped.
struct RedisLease {
    inner: Arc<Inner>,
    id: String,
    _beat: heartbeat::Registration,
}

impl Lease for RedisLease {
    fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for RedisLease {
    fn drop(&mut self) {
        let key = self.inner.key("lease", &self.id);
        let _ = self
            .inner
            .run(|c| redis::cmd("DEL").arg(&key).query::<i64>(c));
    }
}

/// Waits on the site's wake-up list.
struct RedisWatch {
    inner: Arc<Inner>,
    key: String,
}

impl Watch for RedisWatch {
    fn wait(&mut self, timeout: Duration) -> Result<()> {
        self.inner
            .block_pop(&self.key, timeout.min(WATCH_BACKSTOP))
            .map(|_| ())
    }
}

/// An agent's slot as a hash: which call, whether it is open, its record.
fn slot_fields(record: &CallRecord) -> [(&'static str, String); 3] {
    [
        ("call", record.call.clone()),
        ("open", "1".to_owned()),
        (
            "record",
            serde_json::to_string(record).expect("record serializes"),
        ),
    ]
}

impl Store for RedisStore {
    fn clock(&self) -> &dyn Clock {
        self.greet();
        match &self.inner.fake {
            Some(fake) => fake.as_ref(),
            None => self.clock.as_ref(),
        }
    }

    fn queue_is_empty(&self, site: &str) -> Result<bool> {
        Ok(self.queue_len(site)? == 0)
    }

    fn queue_len(&self, site: &str) -> Result<usize> {
        self.ahead(site, None)
    }

    fn join_queue(
        &self,
        site: &str,
        deadline: Mono,
    ) -> Result<Result<Box<dyn Place>, QueueTimeout>> {
        let queue = self.queue_key(site);
        let ticket: u64 = self.inner.run(|c| {
            JOIN.key(&queue)
                .key(format!("{PREFIX}ticket"))
                .arg(PREFIX)
                .arg(self.inner.clock_arg())
                .arg(LEASE_TTL.as_millis() as u64)
                .arg(self.settings.stale_after_ms)
                .invoke(c)
        })?;
        let alive_at = Arc::new(Mutex::new(Instant::now()));
        let place = RedisPlace {
            _beat: keep_place_alive(
                &self.inner,
                self.inner.key("place", &ticket.to_string()),
                alive_at.clone(),
            ),
            inner: self.inner.clone(),
            queue,
            ticket,
            alive_at,
        };
        let wake = self.inner.key("wake", &ticket.to_string());
        loop {
            let ahead = self.ahead(site, Some(ticket))?;
            if ahead == 0 {
                return Ok(Ok(Box::new(place)));
            }
            let left = self.clock().left(deadline);
            if left.is_zero() {
                return Ok(Err(QueueTimeout { ahead }));
            }
            self.inner.block_pop(&wake, left.min(QUEUE_BACKSTOP))?;
        }
    }

    fn watch(&self, site: &str) -> Result<Box<dyn Watch>> {
        let key = self.inner.key("changed", site);
        // Watching starts now: a wake-up left from before is not for us.
        self.inner
            .run(|c| redis::cmd("DEL").arg(&key).query::<i64>(c))?;
        Ok(Box::new(RedisWatch {
            inner: self.inner.clone(),
            key,
        }))
    }

    fn lease(&self) -> Result<Box<dyn Lease>> {
        let id = format!(
            "{:016x}{:016x}",
            crate::pacing::request::random_u64(),
            crate::pacing::request::random_u64()
        );
        let key = self.inner.key("lease", &id);
        self.inner.run(|c| {
            redis::cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("PX")
                .arg(LEASE_TTL.as_millis() as u64)
                .query::<()>(c)
        })?;
        Ok(Box::new(RedisLease {
            _beat: keep_alive(&self.inner, key),
            inner: self.inner.clone(),
            id,
        }))
    }

    fn try_admit(
        &self,
        site: &str,
        call: &str,
        policy: &Policy,
        lease: Option<&str>,
        _deadline: Mono,
    ) -> Result<Attempt> {
        let (calls, window) = match policy.budget {
            Some(b) => (b.calls.to_string(), b.window_ms.to_string()),
            None => (String::new(), String::new()),
        };
        let r = self.step(
            &ADMIT,
            site,
            call,
            &[
                policy.interval_ms.to_string(),
                policy.hold_ms.to_string(),
                calls,
                window,
                lease.unwrap_or("").to_owned(),
                // A lost state is rebuilt with this config's hold, not the
                // long hold of a site taken while the call waits for another.
                policy
                    .interval_ms
                    .max(self.settings.lost.interval_ms)
                    .to_string(),
                self.settings.lost.hold_ms.to_string(),
            ],
        )?;
        let code = r.int(0);
        if code == CORRUPT {
            let heal = Policy {
                interval_ms: policy.interval_ms.max(self.settings.lost.interval_ms),
                ..self.settings.lost
            };
            return Err(self.corrupt(site, &r.text(1), &heal));
        }
        let (at, until, now_us) = (r.uint(1), r.uint(2), r.uint(3));
        let decision = match code {
            0 => Decision::Go,
            1 => Decision::Duplicate,
            2 => Decision::WaitUntil(until),
            3 => Decision::OverBudget(until),
            other => {
                return Err(Error::Backend {
                    server: self.inner.server.clone(),
                    problem: format!("answered a step with an unknown code {other}"),
                    setup: false,
                });
            }
        };
        let wait = match decision {
            Decision::WaitUntil(t) => {
                // From the server's µs, so the wait ends at `t` by the
                // server's clock, never before; the reply's trip only adds.
                let w = Duration::from_micros(t.saturating_mul(1000).saturating_sub(now_us));
                // A hold tied to a lease may lapse without any write.
                if r.int(4) == 1 { w.min(RENEW_EVERY) } else { w }
            }
            _ => Duration::ZERO,
        };
        Ok(Attempt {
            at,
            decision,
            wait,
            settled: r.int(5) == 0,
        })
    }

    fn finish(&self, site: &str, call: &str, interval_ms: u64) -> Result<EpochMs> {
        let [li, lh] = self.lost_args();
        let r = self.step(&FINISH, site, call, &[interval_ms.to_string(), li, lh])?;
        if r.int(0) == CORRUPT {
            return Err(self.corrupt(site, &r.text(1), &self.settings.lost));
        }
        Ok(r.uint(1))
    }

    fn cancel(&self, site: &str, call: &str) -> Result<bool> {
        self.found(&CANCEL, site, call, &self.lost_args())
    }

    fn confirm(&self, site: &str, call: &str, started: EpochMs, hold_ms: u64) -> Result<bool> {
        let [li, lh] = self.lost_args();
        self.found(
            &CONFIRM,
            site,
            call,
            &[started.to_string(), hold_ms.to_string(), li, lh],
        )
    }

    fn extend(&self, site: &str, call: &str, hold_ms: u64) -> Result<bool> {
        let [li, lh] = self.lost_args();
        self.found(&EXTEND, site, call, &[hold_ms.to_string(), li, lh])
    }

    fn update_backoff(
        &self,
        site: &str,
        f: &mut dyn FnMut(&mut SiteState, EpochMs) -> Option<EpochMs>,
    ) -> Result<Option<EpochMs>> {
        // Heal an unreadable state first (a script), so that the
        // transaction below only ever meets readable ones.
        let [state_key, sites_key, changed_key] = self.site_keys(site);
        let [li, lh] = self.lost_args();
        let r = self.step(&CHECK, site, "", &[li, lh])?;
        if r.int(0) == CORRUPT {
            return Err(self.corrupt(site, &r.text(1), &self.settings.lost));
        }
        let mut outcome: Option<Result<Option<EpochMs>>> = None;
        self.inner.run(|c| {
            redis::transaction(c, &[&state_key], |c, pipe| {
                let raw: Option<String> = redis::cmd("GET").arg(&state_key).query(c)?;
                let mut state = match raw.as_deref().map(|t| self.parse_state(site, t)) {
                    None => SiteState::new(site),
                    Some(Ok(s)) => s,
                    Some(Err(e)) => {
                        outcome = Some(Err(e));
                        return Ok(Some(()));
                    }
                };
                let (secs, micros): (u64, u64) = redis::cmd("TIME").query(c)?;
                let now = (secs * 1_000_000 + micros).div_ceil(1000);
                let before = state.clone();
                let leases: Vec<String> = state
                    .in_flight
                    .iter()
                    .filter_map(|f| f.lease.clone())
                    .collect();
                let mut alive = BTreeMap::new();
                for l in leases {
                    let n: i64 = redis::cmd("EXISTS")
                        .arg(self.inner.key("lease", &l))
                        .query(c)?;
                    alive.insert(l, n == 1);
                }
                state.drop_lapsed(|id| alive.get(id).copied().unwrap_or(false));
                state.normalize(now);
                let out = f(&mut state, now);
                outcome = Some(Ok(out));
                if state == before {
                    return Ok(Some(()));
                }
                let text = serde_json::to_string(&state).expect("state serializes");
                pipe.cmd("SET")
                    .arg(&state_key)
                    .arg(text)
                    .arg("PX")
                    .arg(STATE_TTL_MS)
                    .ignore()
                    .cmd("ZADD")
                    .arg(&sites_key)
                    .arg(now)
                    .arg(site)
                    .ignore()
                    .cmd("LPUSH")
                    .arg(&changed_key)
                    .arg(1)
                    .ignore()
                    .cmd("LTRIM")
                    .arg(&changed_key)
                    .arg(0)
                    .arg(0)
                    .ignore()
                    .cmd("PEXPIRE")
                    .arg(&changed_key)
                    .arg(WAKE_TTL_MS)
                    .ignore()
                    .query::<Option<()>>(c)
            })
        })?;
        outcome.unwrap_or(Ok(None))
    }

    fn site_state(&self, site: &str) -> Result<Option<SiteState>> {
        let key = self.inner.key("site", site);
        let raw: Option<String> = self.inner.run(|c| {
            match redis::cmd("GET").arg(&key).query(c) {
                // Not a string at all: as unreadable as bad JSON.
                Err(e) if e.code() == Some("WRONGTYPE") => Ok(Some(String::new())),
                r => r,
            }
        })?;
        raw.map(|t| self.parse_state(site, &t)).transpose()
    }

    fn known_sites(&self) -> Result<Vec<String>> {
        let mut sites: Vec<String> = self.inner.run(|c| {
            redis::cmd("ZRANGE")
                .arg(format!("{PREFIX}sites"))
                .arg(0)
                .arg(-1)
                .query(c)
        })?;
        sites.sort();
        Ok(sites)
    }

    fn tabs(&self) -> Result<TabMap> {
        let raw: Option<String> =
            self.inner.run(
                |c| match redis::cmd("GET").arg(format!("{PREFIX}tabs")).query(c) {
                    Err(e) if e.code() == Some("WRONGTYPE") => Ok(None),
                    r => r,
                },
            )?;
        // An unreadable map is an empty one: every tab is then unknown and
        // counted against every site, which errs towards waiting.
        Ok(raw
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default())
    }

    fn update_tabs(&self, f: &dyn Fn(&mut TabMap)) -> Result<()> {
        // Most events change nothing: look first, outside any transaction.
        let mut map = self.tabs()?;
        let before = map.clone();
        f(&mut map);
        if map == before {
            return Ok(());
        }
        let key = format!("{PREFIX}tabs");
        self.inner.run(|c| {
            redis::transaction(c, &[&key], |c, pipe| {
                let raw: Option<String> = match redis::cmd("GET").arg(&key).query(c) {
                    Ok(r) => r,
                    // Not a string: replaced below, as the file store sets
                    // aside what is not a file.
                    Err(e) if e.code() == Some("WRONGTYPE") => None,
                    Err(e) => return Err(e),
                };
                let mut map: TabMap = raw
                    .and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or_default();
                let before = map.clone();
                f(&mut map);
                map.trim();
                if map == before {
                    return Ok(Some(()));
                }
                let text = serde_json::to_string(&map).expect("tab map serializes");
                pipe.cmd("SET")
                    .arg(&key)
                    .arg(text)
                    .arg("PX")
                    .arg(TABS_TTL_MS)
                    .ignore()
                    .query::<Option<()>>(c)
            })
        })
    }

    fn save_call(&self, record: &CallRecord, agent: Option<&str>) -> Result<()> {
        match agent {
            Some(agent) => {
                let key = self.inner.key("agent", agent);
                let fields = slot_fields(record);
                self.inner.run(|c| {
                    redis::pipe()
                        .atomic()
                        .cmd("DEL")
                        .arg(&key)
                        .ignore()
                        .cmd("HSET")
                        .arg(&key)
                        .arg(&fields)
                        .ignore()
                        .cmd("PEXPIRE")
                        .arg(&key)
                        .arg(AGENT_TTL_MS)
                        .ignore()
                        .query::<()>(c)
                })
            }
            None => {
                let key = self.inner.key("call", &record.call);
                let text = serde_json::to_string(record).expect("record serializes");
                self.inner.run(|c| {
                    redis::cmd("SET")
                        .arg(&key)
                        .arg(text)
                        .arg("PX")
                        .arg(CALL_TTL_MS)
                        .query::<()>(c)
                })
            }
        }
    }

    fn take_call(&self, call: &str, agent: Option<&str>) -> Result<Option<CallRecord>> {
        let call_key = self.inner.key("call", call);
        let raw: Option<String> = self.inner.run(|c| {
            let mut inv = TAKE_CALL.prepare_invoke();
            if let Some(agent) = agent {
                inv.key(self.inner.key("agent", agent));
            }
            inv.key(&call_key)
                .arg(PREFIX)
                .arg(self.inner.clock_arg())
                .arg(call)
                .invoke(c)
        })?;
        Ok(raw.and_then(|t| serde_json::from_str(&t).ok()))
    }

    fn open_call_of(&self, agent: &str) -> Result<Option<CallRecord>> {
        let key = self.inner.key("agent", agent);
        let got: (Option<String>, Option<String>) = self.inner.run(|c| {
            match redis::cmd("HMGET")
                .arg(&key)
                .arg("open")
                .arg("record")
                .query(c)
            {
                // Not a hash: no open call, as a torn slot file reads.
                Err(e) if e.code() == Some("WRONGTYPE") => Ok((None, None)),
                r => r,
            }
        })?;
        Ok(match got {
            (Some(open), Some(record)) if open == "1" => serde_json::from_str(&record).ok(),
            _ => None,
        })
    }

    fn log(&self, record: &Record) {
        if let Ok(root) = self.root() {
            log::append(root, record);
        }
        if matches!(
            record.event,
            Kind::Admit | Kind::Finish | Kind::GiveUp | Kind::Block | Kind::Backend
        ) && let Ok(line) = serde_json::to_string(record)
        {
            // Best effort, as the file log is: sent with the next command
            // or last, without waiting for the answer.
            self.inner.defer(
                redis::cmd("XADD")
                    .arg(format!("{PREFIX}log"))
                    .arg("MAXLEN")
                    .arg("~")
                    .arg(LOG_MAX)
                    .arg("*")
                    .arg("r")
                    .arg(line),
            );
        }
    }

    fn read_log(&self) -> Result<(Vec<Record>, usize)> {
        let key = format!("{PREFIX}log");
        let mut records = Vec::new();
        let mut bad = 0;
        let mut from = "-".to_owned();
        loop {
            let page: Vec<(String, Vec<String>)> = self.inner.run(|c| {
                redis::cmd("XRANGE")
                    .arg(&key)
                    .arg(&from)
                    .arg("+")
                    .arg("COUNT")
                    .arg(1000)
                    .query(c)
            })?;
            let Some((last, _)) = page.last() else { break };
            from = format!("({last}");
            for (_, fields) in &page {
                let line = fields
                    .chunks(2)
                    .find(|kv| kv[0] == "r")
                    .and_then(|kv| kv.get(1));
                match line.and_then(|l| serde_json::from_str::<Record>(l).ok()) {
                    Some(r) => records.push(r),
                    None => bad += 1,
                }
            }
            if page.len() < 1000 {
                break;
            }
        }
        Ok((records, bad))
    }

    fn describe(&self) -> String {
        format!("the Redis server `{}`", self.inner.server)
    }
}

/// The integration tests' `redis-server`: one definition for both.
#[cfg(test)]
#[path = "../../tests/common/redis_server.rs"]
pub(crate) mod test_server;

#[cfg(test)]
pub(crate) mod tests {
    //! Against a real `redis-server`, started per test on a free loopback
    //! port with persistence off. These never skip: without `redis-server`
    //! they fail, saying how to install it.

    use super::*;
    use crate::{
        pacing::decision::{Backoff, Budget},
        store::TabEntry,
    };

    use super::test_server::Server;

    fn home(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "pace-hook-redis-unit-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn store(server: &Server, name: &str) -> RedisStore {
        RedisStore::open(&server.url(), home(name), Settings::default()).unwrap()
    }

    fn raw(server: &Server, args: &[&str]) -> Value {
        let client = redis::Client::open(server.url()).unwrap();
        let mut c = client.get_connection().unwrap();
        let mut cmd = redis::cmd(args[0]);
        for a in &args[1..] {
            cmd.arg(*a);
        }
        cmd.query(&mut c).unwrap()
    }

    fn soon(s: &RedisStore) -> Mono {
        s.clock().mono().after(Duration::from_secs(5))
    }

    const P: Policy = Policy {
        interval_ms: 1_000,
        hold_ms: 120_000,
        budget: None,
    };

    #[test]
    fn thirteen_digit_times_and_empty_lists_round_trip_exactly() {
        let server = Server::start();
        let s = store(&server, "round-trip");
        s.set_test_clock(Some(1_712_345_678_901_234));
        assert_eq!(
            s.try_admit("a.com", "x", &P, None, soon(&s)).unwrap().at,
            1_712_345_678_901
        );
        s.set_test_clock(Some(1_712_345_679_999_001));
        assert_eq!(s.finish("a.com", "x", 0).unwrap(), 1_712_345_680_000);
        let text = match raw(&server, &["GET", "pace-hook:site:a.com"]) {
            Value::BulkString(b) => String::from_utf8(b).unwrap(),
            v => panic!("{v:?}"),
        };
        assert_eq!(
            text,
            r#"{"site":"a.com","last_finish_ms":1712345680000,"after_ms":1000,"in_flight":[]}"#
        );
        let mut expected = SiteState::new("a.com");
        expected.last_finish_ms = Some(1_712_345_680_000);
        expected.after_ms = 1_000;
        assert_eq!(s.site_state("a.com").unwrap(), Some(expected));
        // The same bytes serde writes, so either side reads the other's.
        let state = s.site_state("a.com").unwrap().unwrap();
        assert_eq!(serde_json::to_string(&state).unwrap(), text);
    }

    /// A small deterministic generator for the timeline below.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[self.below(xs.len() as u64) as usize]
        }
    }

    /// The scripts against `decision.rs`: random timelines of every step
    /// (clock steps back, budgets, leases alive and lapsed, backoffs
    /// included), applied to a `SiteState` here and on the server with the
    /// same clock; every decision and every state must agree.
    #[test]
    fn scripts_step_exactly_as_decision_rs() {
        let server = Server::start();
        let s = store(&server, "differential");
        raw(&server, &["SET", "pace-hook:lease:live", "1"]);
        let mut seen = std::collections::HashMap::new();
        for seed in 1..=12u64 {
            let site = format!("s{seed}.com");
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let mut model: Option<SiteState> = None;
            let mut us: u64 = 1_712_000_000_000_000;
            for step in 0..250 {
                // Times land on the edges the rules turn on (a hold's end,
                // the time a caller is due) as often as between them.
                let edges: Vec<u64> = model
                    .iter()
                    .flat_map(|m| {
                        let due = m.ready_at(&Policy::default());
                        m.in_flight.iter().map(|f| f.until_ms).chain(due)
                    })
                    .filter(|&t| t * 1000 >= us)
                    .collect();
                us = match rng.below(20) {
                    0 => us - 3_600_000_000,
                    1..=6 => us,
                    7..=10 if !edges.is_empty() => rng.pick(&edges) * 1000,
                    _ => us + rng.below(150_000_000),
                };
                s.set_test_clock(Some(us));
                let floor = us / 1000;
                let ceil = us.div_ceil(1000);
                let call = rng.pick(&["a", "b", "c", "d"]);
                let alive = |id: &str| id == "live";
                let what = format!("seed {seed} step {step} at {us}");
                match rng.below(7) {
                    0 | 1 => {
                        let policy = Policy {
                            interval_ms: rng.pick(&[0, 1_000, 10_000, 30_000]),
                            hold_ms: rng.pick(&[0, 500, 120_000, 400_000]),
                            budget: rng.pick(&[
                                None,
                                Some(Budget {
                                    calls: 2,
                                    window_ms: 60_000,
                                }),
                                Some(Budget {
                                    calls: 1,
                                    window_ms: 300_000,
                                }),
                            ]),
                        };
                        let lease = rng.pick(&[None, None, Some("live"), Some("dead")]);
                        let m = model.get_or_insert_with(|| SiteState::new(&site));
                        m.drop_lapsed(alive);
                        let want = m.try_admit(call, floor, &policy, lease);
                        let got = s.try_admit(&site, call, &policy, lease, soon(&s)).unwrap();
                        assert_eq!(got.decision, want, "{what}");
                        *seen.entry(std::mem::discriminant(&want)).or_insert(0) += 1;
                        assert_eq!(got.at, floor, "{what}");
                        assert_eq!(got.settled, m.in_flight.is_empty(), "{what}");
                        if let Decision::WaitUntil(t) = want {
                            let w = Duration::from_micros(t * 1000 - us);
                            let bound = m.in_flight.iter().any(|f| f.lease.is_some());
                            assert_eq!(got.wait, if bound { w.min(RENEW_EVERY) } else { w });
                        }
                    }
                    2 => {
                        let interval = rng.pick(&[0, 5_000, 20_000]);
                        let m = model.get_or_insert_with(|| SiteState::new(&site));
                        m.drop_lapsed(alive);
                        m.finish(call, ceil, interval);
                        assert_eq!(s.finish(&site, call, interval).unwrap(), ceil, "{what}");
                    }
                    3 => {
                        let want = model.as_mut().is_some_and(|m| {
                            m.drop_lapsed(alive);
                            m.cancel(call)
                        });
                        assert_eq!(s.cancel(&site, call).unwrap(), want, "{what}");
                    }
                    4 => {
                        let started = floor - rng.below(5_000);
                        let hold = rng.pick(&[1_000, 120_000]);
                        let want = model.as_mut().is_some_and(|m| {
                            m.drop_lapsed(alive);
                            m.confirm(call, started, hold)
                        });
                        assert_eq!(s.confirm(&site, call, started, hold).unwrap(), want);
                    }
                    5 => {
                        let hold = rng.pick(&[1_000, 120_000]);
                        let want = model.as_mut().is_some_and(|m| {
                            m.drop_lapsed(alive);
                            m.extend(call, ceil, hold)
                        });
                        assert_eq!(s.extend(&site, call, hold).unwrap(), want, "{what}");
                    }
                    _ => {
                        // Written by hand, as a client (a backoff) or a
                        // tampering user (times ahead, lengths past the
                        // ceiling) would.
                        let m = model.get_or_insert_with(|| SiteState::new(&site));
                        let day = crate::pacing::decision::CEILING_MS;
                        let ahead = floor + rng.pick(&[0, 1_000, 1_001, 3 * day]);
                        m.backoff = Some(Backoff {
                            set_ms: rng.pick(&[floor, ahead]),
                            until_ms: ahead + rng.below(90_000),
                            strikes: 1,
                        });
                        if rng.below(3) == 0 {
                            m.after_ms = rng.pick(&[day, day + 1, 5 * day]);
                            m.last_finish_ms = Some(rng.pick(&[floor, ahead]));
                            m.admits.push(ahead);
                            for f in &mut m.in_flight {
                                f.started_ms = rng.pick(&[f.started_ms, ahead]);
                                f.until_ms = f.started_ms + rng.pick(&[0, day + 7, 2 * day]);
                                f.interval_ms = rng.pick(&[f.interval_ms, day + 1]);
                            }
                        }
                        let text = serde_json::to_string(&*m).unwrap();
                        raw(&server, &["SET", &format!("pace-hook:site:{site}"), &text]);
                        raw(
                            &server,
                            &["ZADD", "pace-hook:sites", &floor.to_string(), &site],
                        );
                    }
                }
                assert_eq!(s.site_state(&site).unwrap(), model, "{what}");
            }
        }
        // Every kind of decision was taken along the way.
        assert_eq!(seen.len(), 4, "{seen:?}");
    }

    #[test]
    fn absurd_stored_times_are_capped_and_still_read_back() {
        let server = Server::start();
        let s = store(&server, "absurd");
        let text = r#"{"site":"a.com","last_finish_ms":18446744073709551615,"after_ms":18446744073709551615,"in_flight":[{"call":"x","started_ms":0,"until_ms":18446744073709551615,"interval_ms":18446744073709551615}]}"#;
        raw(&server, &["SET", "pace-hook:site:a.com", text]);
        let now = s.clock().now_floor();
        let a = s.try_admit("a.com", "y", &P, None, soon(&s)).unwrap();
        match a.decision {
            Decision::WaitUntil(t) => {
                assert!(t <= now + 3 * crate::pacing::decision::CEILING_MS + 5_000)
            }
            d => panic!("{d:?}"),
        }
        assert!(s.site_state("a.com").unwrap().is_some());
    }

    #[test]
    fn an_unreadable_state_is_busy_and_kept_aside() {
        let server = Server::start();
        let s = store(&server, "corrupt");
        s.finish("a.com", "x", 0).unwrap();
        raw(&server, &["SET", "pace-hook:site:a.com", "{not json"]);
        let e = s.try_admit("a.com", "y", &P, None, soon(&s)).unwrap_err();
        let Error::CorruptState { moved_to, .. } = &e else {
            panic!("{e}")
        };
        let aside = moved_to.as_ref().unwrap().to_string_lossy().into_owned();
        assert!(aside.starts_with("pace-hook:site:a.com:lost-"), "{aside}");
        let a = s.try_admit("a.com", "y", &P, None, soon(&s)).unwrap();
        assert!(matches!(a.decision, Decision::WaitUntil(_)), "{a:?}");
        // Not a string at all, or gone while the site is known: the same.
        raw(&server, &["DEL", "pace-hook:site:a.com"]);
        raw(&server, &["LPUSH", "pace-hook:site:a.com", "x"]);
        assert!(matches!(
            s.try_admit("a.com", "y", &P, None, soon(&s)),
            Err(Error::CorruptState { .. })
        ));
        // A finish on a lost state heals it (busy) and is recorded on it,
        // as the other stores do: only an admission fails on it.
        raw(&server, &["DEL", "pace-hook:site:a.com"]);
        s.finish("a.com", "y", 0).unwrap();
        assert!(
            s.site_state("a.com")
                .unwrap()
                .unwrap()
                .in_flight
                .iter()
                .any(|f| f.call == "[lost state]")
        );
        assert!(matches!(
            s.try_admit("a.com", "y", &P, None, soon(&s))
                .unwrap()
                .decision,
            Decision::WaitUntil(_)
        ));
    }

    #[test]
    fn a_lapsed_lease_drops_its_hold_and_confirm_says_so() {
        let server = Server::start();
        let s = store(&server, "lease");
        let lease = s.lease().unwrap();
        let id = lease.id().to_owned();
        let a = s
            .try_admit("a.com", "multi", &P, Some(&id), soon(&s))
            .unwrap();
        assert_eq!(a.decision, Decision::Go);
        let b = s.try_admit("a.com", "other", &P, None, soon(&s)).unwrap();
        assert!(matches!(b.decision, Decision::WaitUntil(_)));
        assert!(
            b.wait <= RENEW_EVERY,
            "a lease-bound hold is looked at again soon"
        );
        drop(lease);
        assert!(!s.confirm("a.com", "multi", a.at, 1_000).unwrap());
        assert_eq!(
            s.try_admit("a.com", "other", &P, None, soon(&s))
                .unwrap()
                .decision,
            Decision::Go
        );
    }

    #[test]
    fn a_lease_lives_while_its_process_renews_it() {
        let server = Server::start();
        let s = store(&server, "renew");
        let lease = s.lease().unwrap();
        std::thread::sleep(LEASE_TTL + 2 * RENEW_EVERY);
        let key = format!("pace-hook:lease:{}", lease.id());
        assert_eq!(raw(&server, &["EXISTS", &key]), Value::Int(1));
    }

    #[test]
    fn call_records_are_scoped_by_agent_and_taken_once() {
        let server = Server::start();
        let s = store(&server, "calls");
        let record = |call: &str| CallRecord {
            call: call.to_owned(),
            sites: vec!["a.com".to_owned()],
            started_ms: 1_712_000_000_000,
            interval_ms: 1_000,
        };
        s.save_call(&record("s#1"), Some("s")).unwrap();
        assert_eq!(s.open_call_of("s").unwrap(), Some(record("s#1")));
        assert_eq!(s.open_call_of("t").unwrap(), None);
        assert_eq!(s.take_call("s#2", Some("s")).unwrap(), None);
        assert_eq!(s.take_call("s#1", Some("s")).unwrap(), Some(record("s#1")));
        assert_eq!(s.take_call("s#1", Some("s")).unwrap(), None);
        assert_eq!(s.open_call_of("s").unwrap(), None);
        s.save_call(&record("#9"), None).unwrap();
        assert_eq!(s.take_call("#9", None).unwrap(), Some(record("#9")));
        assert_eq!(s.take_call("#9", None).unwrap(), None);
        // Every record expires.
        let Value::Int(ttl) = raw(&server, &["PTTL", "pace-hook:agent:s"]) else {
            panic!()
        };
        assert!(ttl > 0);
    }

    #[test]
    fn the_tab_map_is_updated_as_one_step() {
        let server = Server::start();
        let s = store(&server, "tabs");
        assert_eq!(s.tabs().unwrap(), TabMap::default());
        let entry = TabEntry {
            hosts: vec!["a.com".to_owned()],
            history: Vec::new(),
            seen_ms: 5,
        };
        s.update_tabs(&|m: &mut TabMap| {
            m.tabs.insert("chrome/1".to_owned(), entry.clone());
        })
        .unwrap();
        assert_eq!(s.tabs().unwrap().tabs.get("chrome/1"), Some(&entry));
        raw(&server, &["SET", "pace-hook:tabs", "garbage"]);
        assert_eq!(s.tabs().unwrap(), TabMap::default());
    }

    #[test]
    fn a_backoff_is_written_in_a_transaction_and_delays_the_site() {
        let server = Server::start();
        let s = store(&server, "backoff");
        let until = s
            .update_backoff("a.com", &mut |st, now| {
                st.backoff = Some(Backoff {
                    set_ms: now,
                    until_ms: now + 60_000,
                    strikes: 1,
                });
                Some(now + 60_000)
            })
            .unwrap()
            .unwrap();
        let a = s.try_admit("a.com", "x", &P, None, soon(&s)).unwrap();
        assert_eq!(a.decision, Decision::WaitUntil(until));
        assert!(a.settled, "only time stands in the way");
        raw(&server, &["SET", "pace-hook:site:a.com", "[]"]);
        assert!(matches!(
            s.update_backoff("a.com", &mut |_, _| None),
            Err(Error::CorruptState { .. })
        ));
    }

    #[test]
    fn the_scripts_constants_are_the_crates() {
        let lua = include_str!("redis/base.lua");
        for (name, value) in [
            ("SLACK", crate::pacing::decision::CLOCK_SLACK_MS),
            ("CEILING", crate::pacing::decision::CEILING_MS),
            (
                "MAX_BUDGET",
                u64::from(crate::pacing::decision::MAX_BUDGET_CALLS),
            ),
            ("STATE_TTL", STATE_TTL_MS),
            ("WAKE_TTL", WAKE_TTL_MS),
        ] {
            let line = format!("local {name} = {value} ");
            assert!(lua.contains(&line), "base.lua has no `{line}`");
        }
    }

    #[test]
    fn an_interrupted_read_is_told_from_other_failures() {
        let eintr = RedisError::from(std::io::Error::from(std::io::ErrorKind::Interrupted));
        assert!(is_interrupted(&eintr));
        let reset = RedisError::from(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert!(!is_interrupted(&reset));
    }

    #[test]
    fn an_empty_server_is_noticed_once() {
        let server = Server::start();
        let dir = home("marker");
        // Greeted on the first read of the clock.
        let open = || {
            let s = RedisStore::open(&server.url(), &dir, Settings::default()).unwrap();
            s.clock().now_floor();
        };
        let notes = || {
            let text = std::fs::read_to_string(dir.join("gate.log")).unwrap_or_default();
            text.lines().filter(|l| l.contains("\"backend\"")).count()
        };
        open();
        assert_eq!(notes(), 1, "first use of an empty server");
        open();
        assert_eq!(notes(), 1, "nothing changed");
        raw(&server, &["FLUSHALL"]);
        open();
        assert_eq!(notes(), 2, "the data went away");
    }
}
