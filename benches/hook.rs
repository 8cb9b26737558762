//! The benchmark suite (issue 3): what one hook event costs beside the cost of
//! any process at all, how close the gaps come to the interval under
//! contention, whether the queue is fair, what waiting costs, and how all of
//! it holds up with a thousand sites.
//!
//! `cargo bench --bench hook` runs every measurement in one go and prints a
//! Markdown report on stdout; `scripts/bench` puts it into
//! `docs/BENCHMARKS.md`. These machines are noisy, so every figure is a median
//! or a ratio taken side by side in the same run, and the per-event commands
//! are timed round-robin (in an order shuffled each round) so that a burst of
//! noise hits all of them alike.
//! Goals are reported as met or not; nothing here asserts a time.
//!
//! Each process is run the way Claude Code runs a command hook: spawned fresh,
//! its event written to a pipe on its stdin, timed from spawn to exit, and
//! reaped with `wait4` for its CPU time. Peak RSS is taken in a few extra runs
//! through a small trampoline (see [`TRAMPOLINE_SRC`] for why).
//!
//! Knobs (environment): `PACE_HOOK_BENCH_ROUNDS` (per-event rounds, default
//! 300); `PACE_HOOK_BENCH_MUSL` and `PACE_HOOK_BENCH_GLIBC_STATIC` (static
//! builds of pace-hook to time beside the default one, as `scripts/bench`
//! makes them); `PACE_HOOK_BENCH_COMPARE=LABEL=PATH` (another glibc build,
//! say of an earlier commit, timed side by side with this one, scale
//! included: a before and after from one run); `PACE_HOOK_BENCH_DIR` (where
//! the state directories go, default the temp dir); `PACE_HOOK_BENCH_KEEP=1`
//! (keep them).
//!
//! `cargo bench --bench hook -- --write-events DIR` only writes the events and
//! configs it uses into `DIR`, for profiling one event by hand
//! (`scripts/bench --profile`).

use std::{
    collections::HashMap,
    fmt::Write as _,
    fs::{self, File, OpenOptions},
    io::{self, Write as _},
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Barrier},
    thread,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use serde_json::{Value, json};

/// The release build of pace-hook that cargo built for this bench.
const BIN: &str = env!("CARGO_BIN_EXE_pace-hook");
/// Captured Claude Code events.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
/// The floor: the least any Rust hook can cost. It reads its stdin, as a hook
/// must, and exits.
const FLOOR_SRC: &str = "use std::io::Read;\n\
fn main() {\n\
    let mut input = Vec::new();\n\
    let _ = std::io::stdin().lock().read_to_end(&mut input);\n\
}\n";
/// Measures peak RSS: runs its arguments as a command, stdin inherited, and
/// prints the child's `ru_maxrss` (KiB). `wait4` in the bench cannot: a child
/// spawned from it starts with the bench's own high-water mark, which `exec`
/// keeps. Built static where it can be, so that its own mark stays under any
/// child's.
const TRAMPOLINE_SRC: &str = "use std::process::{Command, Stdio};\n\
#[repr(C)]\n\
struct Rusage { utime: [i64; 2], stime: [i64; 2], maxrss: i64, rest: [i64; 13] }\n\
extern \"C\" { fn getrusage(who: i32, usage: *mut Rusage) -> i32; }\n\
fn main() {\n\
    let mut args = std::env::args_os().skip(1);\n\
    let program = args.next().expect(\"a program\");\n\
    let status = Command::new(program).args(args).stdout(Stdio::null()).status();\n\
    let mut u = Rusage { utime: [0; 2], stime: [0; 2], maxrss: 0, rest: [0; 13] };\n\
    let r = unsafe { getrusage(-1, &mut u) };\n\
    let ok = status.map_or(false, |s| s.success()) && r == 0;\n\
    println!(\"{} {}\", u.maxrss, ok);\n\
}\n";
/// Runs per case for peak RSS, after the timed rounds.
const RSS_RUNS: usize = 5;
/// Stands for the tool_use_id in an event template.
const ID: &str = "@ID@";
/// Size of the screenshot block in the large PostToolUse.
const SCREENSHOT_BYTES: usize = 2 * 1024 * 1024;

// Goals, from issue 3.
const GOAL_EVENT_MS: f64 = 2.0;
const GOAL_FLOOR_RATIO: f64 = 2.0;
const GOAL_OVERSHOOT_MEDIAN_MS: f64 = 1.0;
const GOAL_OVERSHOOT_P99_MS: f64 = 5.0;
const GOAL_OVERSHOOT_MAX_MS: f64 = 20.0;
const GOAL_WAIT_CPU_MS_PER_S: f64 = 2.0;
const GOAL_SCALE_RATIO: f64 = 1.5;

// The contention scenario: 16 processes, one site, 200 ms, 10 calls each.
const CONTENDERS: usize = 16;
const CALLS_EACH: usize = 10;
const CONTENTION_INTERVAL_MS: u64 = 200;
const WORK: Duration = Duration::from_millis(20);

// The scale scenario.
const SCALE_SITES: usize = 1_000;
const SCALE_WAITERS: usize = 64;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--write-events") {
        let dir = args.get(i + 1).expect("--write-events DIR");
        write_events(Path::new(dir));
        return;
    }
    // `cargo test --all-targets` runs bench targets too, without `--bench`:
    // this suite belongs to `cargo bench` only.
    if !args.iter().any(|a| a == "--bench") {
        println!("the pace-hook benchmarks run with `cargo bench --bench hook`");
        return;
    }
    let rounds = env_number("PACE_HOOK_BENCH_ROUNDS", 300);
    let work = WorkDir::new();
    let out_dir = Path::new(BIN).parent().expect("binary has a directory");
    let floors: Vec<(Link, Result<PathBuf, String>)> = Link::ALL
        .iter()
        .map(|&link| (link, link.compile(out_dir, "bench-floor", FLOOR_SRC)))
        .collect();
    let trampoline = Link::Musl
        .compile(out_dir, "bench-rss", TRAMPOLINE_SRC)
        .or_else(|_| Link::Dynamic.compile(out_dir, "bench-rss", TRAMPOLINE_SRC))
        .expect("rustc builds the RSS trampoline");
    let mut builds = builds();
    // The Redis store, on a server on this machine: the default build again,
    // its gate on the server instead of the files.
    let redis = RedisServer::start();
    if let Some(r) = &redis {
        builds.push(Build {
            label: "Redis store, loopback".to_owned(),
            link: Link::Dynamic,
            path: PathBuf::from(BIN),
            tag: "redis",
            scale: false,
            backend: Some(r.url(0)),
        });
    }
    let node = which("node");
    let events = Events::load();
    let started = SystemTime::now();

    let mut report = String::new();
    let _ = writeln!(report, "## Run of {}\n", utc(started));
    machine(&mut report, &work.root, rounds);

    let homes: Vec<Home> = builds
        .iter()
        .map(|b| {
            Home::new(&work.root, &format!("one-{}", b.tag), &one_site_config())
                .on(b.backend.clone())
        })
        .collect();
    let mut scales = Vec::new();
    for (i, b) in builds.iter().enumerate().filter(|(_, b)| b.scale) {
        eprintln!(
            "bench: scale setup for {} ({SCALE_SITES} sites, {SCALE_WAITERS} waiters)",
            b.label
        );
        let home = Home::new(&work.root, &format!("scale-{}", b.tag), &scale_config());
        populate(&b.path, &home, &events);
        let waiters = Waiters::start(&b.path, &home, &events);
        scales.push(Scale {
            build: i,
            home,
            waiters,
        });
    }

    eprintln!("bench: per-event cost, {rounds} rounds");
    let mut cases = per_event_cases(&events, &floors, &builds, &homes, &scales, node.as_deref());
    time_round_robin(&mut cases, rounds, &work.root);
    measure_rss(&mut cases, &trampoline, &work.root);
    let scaled: Vec<Scaled> = scales
        .into_iter()
        .map(|s| {
            let still_waiting = s.waiters.still_waiting();
            let size = DirSize::of(&s.home.root);
            let one_size = DirSize::of(&homes[s.build].root);
            Scaled {
                build: s.build,
                queued: queued_admissions(&s.home, &format!("{}-scale-", builds[s.build].tag)),
                size,
                one_size,
                still_waiting,
                waited: s.waiters.stop(),
            }
        })
        .collect();

    eprintln!("bench: contention, {CONTENDERS} processes x {CALLS_EACH} calls");
    let contention = Home::new(&work.root, "contention", &contention_config());
    let calls = contend(&contention, &events);
    let redis_contention = redis.as_ref().map(|r| {
        eprintln!("bench: contention on the Redis store");
        let home =
            Home::new(&work.root, "contention-redis", &contention_config()).on(Some(r.url(1)));
        let calls = contend(&home, &events);
        (home, calls)
    });

    per_event_section(&mut report, &cases, &floors, &builds, node.is_some());
    admitted_at_once(&mut report, &builds, &homes, &scaled);
    contention_section(
        &mut report,
        None,
        &contention,
        &calls,
        &cases,
        Group::OneSite(0),
    );
    match &redis_contention {
        Some((home, calls)) => contention_section(
            &mut report,
            Some("Redis store, loopback"),
            home,
            calls,
            &cases,
            Group::OneSite(builds.len() - 1),
        ),
        None => report.push_str(
            "`redis-server` is not installed: no Redis rows (`apt-get install -y redis-server`).\n\n",
        ),
    }
    scale_section(&mut report, &cases, &builds, &scaled);
    let took = started.elapsed().unwrap_or_default();
    let _ = writeln!(report, "Whole run: {:.0} s.", took.as_secs_f64());
    print!("{report}");
}

/// One build of pace-hook to time.
struct Build {
    /// How the report names it.
    label: String,
    /// Which floor it is held against.
    link: Link,
    path: PathBuf,
    /// Starts its calls' ids, which keeps its rows apart in a gate log.
    tag: &'static str,
    /// Whether it is also timed with a thousand sites and 64 waiters.
    scale: bool,
    /// The backend its homes point at (`PACE_HOOK_BACKEND`); files if none.
    backend: Option<String>,
}

/// This build, the static ones `scripts/bench` made, and the one to compare
/// with, if named.
fn builds() -> Vec<Build> {
    let named = |var: &str| {
        std::env::var_os(var)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    };
    let mut builds = vec![Build {
        label: Link::Dynamic.label().to_owned(),
        link: Link::Dynamic,
        path: PathBuf::from(BIN),
        tag: "one",
        scale: true,
        backend: None,
    }];
    for (link, var, tag) in [
        (
            Link::StaticGlibc,
            "PACE_HOOK_BENCH_GLIBC_STATIC",
            "glibc-static",
        ),
        (Link::Musl, "PACE_HOOK_BENCH_MUSL", "musl"),
    ] {
        if let Some(path) = named(var) {
            builds.push(Build {
                label: link.label().to_owned(),
                link,
                path,
                tag,
                scale: false,
                backend: None,
            });
        }
    }
    let compare = std::env::var("PACE_HOOK_BENCH_COMPARE").unwrap_or_default();
    if let Some((label, path)) = compare.split_once('=') {
        builds.push(Build {
            label: label.to_owned(),
            link: Link::Dynamic,
            path: PathBuf::from(path),
            tag: "cmp",
            scale: true,
            backend: None,
        });
    }
    builds
}

/// A `redis-server` for the Redis store's rows, on a free loopback port with
/// persistence off; killed when dropped. `None` (and a note in the report)
/// where `redis-server` is not installed.
struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    fn start() -> Option<Self> {
        let program = which("redis-server")?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let mut child = Command::new(program)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(Self { child, port });
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }

    /// Database `db` of this server: each run gets its own.
    fn url(&self, db: u8) -> String {
        format!("redis://127.0.0.1:{}/{db}", self.port)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A build's thousand-site state directory and the processes waiting in it.
struct Scale {
    build: usize,
    home: Home,
    waiters: Waiters,
}

/// What is left of a [`Scale`] once its waiters are stopped.
struct Scaled {
    build: usize,
    /// Paced events timed at scale, and how many of them queued.
    queued: (usize, usize),
    size: DirSize,
    one_size: DirSize,
    still_waiting: usize,
    waited: Waited,
}

/// How a binary is linked. The floor is built each way, so that each build of
/// pace-hook is compared with the least a binary linked like it can cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    /// The default: glibc, dynamically linked.
    Dynamic,
    /// glibc, statically linked (`-C target-feature=+crt-static`).
    StaticGlibc,
    /// musl, statically linked.
    Musl,
}

impl Link {
    const ALL: [Link; 3] = [Link::Dynamic, Link::StaticGlibc, Link::Musl];

    fn label(self) -> &'static str {
        match self {
            Link::Dynamic => "glibc, dynamic",
            Link::StaticGlibc => "static glibc",
            Link::Musl => "static musl",
        }
    }

    /// Names its floor's files.
    fn tag(self) -> &'static str {
        match self {
            Link::Dynamic => "dynamic",
            Link::StaticGlibc => "glibc-static",
            Link::Musl => "musl",
        }
    }

    /// Build `src` with `rustc -O` beside the pace-hook binary, linked this way.
    fn compile(self, out_dir: &Path, name: &str, src: &str) -> Result<PathBuf, String> {
        let name = format!("{name}-{}", self.tag());
        let src_path = out_dir.join(format!("{name}.rs"));
        fs::write(&src_path, src).map_err(|e| format!("{}: {e}", src_path.display()))?;
        let exe = out_dir.join(&name);
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let mut c = Command::new(rustc);
        c.args(["-O", "-C", "codegen-units=1", "--edition", "2021", "-o"])
            .arg(&exe)
            .arg(&src_path);
        match self {
            Link::Dynamic => {}
            Link::StaticGlibc => {
                c.args(["-C", "target-feature=+crt-static"]);
            }
            Link::Musl => {
                c.args(["--target", &musl_target()]);
            }
        }
        let out = c.output().map_err(|e| format!("rustc: {e}"))?;
        if out.status.success() {
            Ok(exe)
        } else {
            let why = String::from_utf8_lossy(&out.stderr);
            Err(why
                .lines()
                .next()
                .unwrap_or("rustc failed")
                .trim()
                .to_owned())
        }
    }
}

fn musl_target() -> String {
    format!("{}-unknown-linux-musl", std::env::consts::ARCH)
}

/// Write the events and configs of the run into `dir`, one file each, for
/// profiling a single event by hand.
fn write_events(dir: &Path) {
    fs::create_dir_all(dir).expect("events directory");
    let events = Events::load();
    let one = "https://example.com/a";
    let files: [(&str, Vec<u8>); 9] = [
        ("skip.json", events.skip.with_id("profile-skip")),
        ("pre.json", events.pre(one).with_id("profile-1")),
        ("post.json", events.post(one).with_id("profile-1")),
        ("screenshot.json", events.screenshot.with_id("profile-shot")),
        (
            "scale-pre.json",
            events.pre(&scale_url()).with_id("profile-2"),
        ),
        (
            "scale-post.json",
            events.post(&scale_url()).with_id("profile-2"),
        ),
        ("one-site.toml", one_site_config().into_bytes()),
        ("scale.toml", scale_config().into_bytes()),
        ("contention.toml", contention_config().into_bytes()),
    ];
    for (name, bytes) in files {
        let path = dir.join(name);
        fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// The state directories of one run, removed at the end.
struct WorkDir {
    root: PathBuf,
}

impl WorkDir {
    fn new() -> Self {
        let base = std::env::var_os("PACE_HOOK_BENCH_DIR")
            .filter(|p| !p.is_empty())
            .map_or_else(std::env::temp_dir, PathBuf::from);
        let root = base.join(format!("pace-hook-bench-{}", std::process::id()));
        fs::create_dir_all(&root).expect("bench directory");
        Self { root }
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if std::env::var_os("PACE_HOOK_BENCH_KEEP").is_none() {
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

/// A state directory with its config: the environment one pace-hook sees.
struct Home {
    root: PathBuf,
    config: PathBuf,
    backend: Option<String>,
}

impl Home {
    fn new(work: &Path, name: &str, config: &str) -> Self {
        let root = work.join(name);
        fs::create_dir_all(&root).expect("state directory");
        let config_path = work.join(format!("{name}.toml"));
        fs::write(&config_path, config).expect("config");
        Self {
            root,
            config: config_path,
            backend: None,
        }
    }

    /// This home, its gate on `backend` (a Redis URL) if any.
    fn on(mut self, backend: Option<String>) -> Self {
        self.backend = backend;
        self
    }

    fn env(&self) -> Vec<(&'static str, PathBuf)> {
        let mut env = vec![
            ("PACE_HOOK_HOME", self.root.clone()),
            ("PACE_HOOK_CONFIG", self.config.clone()),
        ];
        if let Some(url) = &self.backend {
            env.push(("PACE_HOOK_BACKEND", PathBuf::from(url)));
        }
        env
    }

    fn log(&self) -> Vec<LogLine> {
        let text = fs::read_to_string(self.root.join("gate.log")).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .enumerate()
            .map(|(line, v)| LogLine::from_json(line, &v))
            .collect()
    }
}

fn one_site_config() -> String {
    // Any interval above zero: the paced event of one round goes long after
    // the Post of the round before, so it is admitted at once.
    "interval = \"1ms\"\n[[site]]\nname = \"s1\"\ndomains = [\"s1.test\"]\n".to_owned()
}

fn contention_config() -> String {
    format!(
        "interval = \"{CONTENTION_INTERVAL_MS}ms\"\nin_flight_hold = \"120s\"\nmax_wait = \"270s\"\n\
         [[site]]\nname = \"s1\"\ndomains = [\"s1.test\"]\n"
    )
}

/// A thousand sites of two domains each; the first 64 have a long interval so
/// that their waiters stay waiting for the whole per-event run.
fn scale_config() -> String {
    let mut c = String::from("interval = \"1ms\"\nmax_wait = \"600s\"\nstale_after = \"20m\"\n");
    for i in 0..SCALE_SITES {
        let _ = write!(
            c,
            "\n[[site]]\nname = \"site{i:04}\"\ndomains = [\"site{i:04}.test\", \"site{i:04}-cdn.test\"]\n"
        );
        if i < SCALE_WAITERS {
            c.push_str("interval = \"10m\"\n");
        }
    }
    c
}

/// The paced site of the scale run: configured, due, and far down the list.
fn scale_url() -> String {
    format!("https://www.site{:04}.test/a", SCALE_SITES / 2)
}

/// Event templates, made from the captured fixtures; [`ID`] marks where each
/// run's tool_use_id goes.
struct Events {
    skip: Template,
    screenshot: Template,
}

impl Events {
    fn load() -> Self {
        let mut skip = fixture("PreToolUse.navigate.json");
        skip["tool_name"] = json!("mcp__claude-in-chrome__computer");
        skip["tool_input"] = json!({"action": "screenshot", "tabId": 1});
        skip["tool_use_id"] = json!(ID);
        let mut shot = fixture("PostToolUse.computer-screenshot.json");
        shot["tool_use_id"] = json!(ID);
        let data = base64_noise(SCREENSHOT_BYTES);
        let image = shot["tool_response"]
            .as_array_mut()
            .and_then(|blocks| blocks.iter_mut().find(|b| b["type"] == "image"))
            .expect("the screenshot fixture has an image block");
        image["source"]["data"] = json!(data);
        Self {
            skip: Template::new(&skip),
            screenshot: Template::new(&shot),
        }
    }

    /// A PreToolUse of navigate to `url`, in the fixture's session.
    fn pre(&self, url: &str) -> Template {
        Self::navigate("PreToolUse.navigate.json", url, None)
    }

    /// A PostToolUse of navigate, with the Tab Context block Claude in Chrome
    /// appends to every result.
    fn post(&self, url: &str) -> Template {
        Self::navigate("PostToolUse.navigate.json", url, None)
    }

    /// [`Self::pre`] from another session. Calls that stand for different
    /// agents must say so: pace-hook takes a new call from an agent as the end
    /// of that agent's previous one.
    fn pre_in(&self, url: &str, session: &str) -> Template {
        Self::navigate("PreToolUse.navigate.json", url, Some(session))
    }

    /// [`Self::post`] from another session.
    fn post_in(&self, url: &str, session: &str) -> Template {
        Self::navigate("PostToolUse.navigate.json", url, Some(session))
    }

    fn navigate(fixture_name: &str, url: &str, session: Option<&str>) -> Template {
        let mut e = fixture(fixture_name);
        e["tool_input"]["url"] = json!(url);
        e["tool_use_id"] = json!(ID);
        if let Some(session) = session {
            e["session_id"] = json!(session);
        }
        Template::new(&e)
    }
}

fn fixture(name: &str) -> Value {
    let path = Path::new(FIXTURES).join(name);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Base64 text that does not repeat, like a real PNG's.
fn base64_noise(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ALPHABET[(x % 64) as usize] as char
        })
        .collect()
}

/// An event as bytes around the place of its tool_use_id.
#[derive(Clone)]
struct Template {
    before: Vec<u8>,
    after: Vec<u8>,
}

impl Template {
    fn new(event: &Value) -> Self {
        let text = serde_json::to_string(event).expect("event serializes");
        let (before, after) = text.split_once(ID).expect("template has an id");
        Self {
            before: before.as_bytes().to_vec(),
            after: after.as_bytes().to_vec(),
        }
    }

    fn with_id(&self, id: &str) -> Vec<u8> {
        [&self.before[..], id.as_bytes(), &self.after[..]].concat()
    }
}

/// One process run.
#[derive(Debug, Clone, Copy)]
struct Sample {
    /// Spawn to exit.
    wall: Duration,
    /// User plus system CPU.
    cpu: Duration,
    /// Exit code, or 128 + signal.
    code: i32,
}

/// A program and the environment it runs in.
#[derive(Clone)]
struct Program {
    path: PathBuf,
    args: Vec<String>,
    env: Vec<(&'static str, PathBuf)>,
}

impl Program {
    fn new(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    fn hook(path: &Path, home: &Home) -> Self {
        Self {
            env: home.env(),
            ..Self::new(path)
        }
    }

    fn command(&self, stderr: &Path) -> Command {
        let mut c = Command::new(&self.path);
        c.args(&self.args)
            .env_remove("PACE_HOOK_HOME")
            .env_remove("PACE_HOOK_CONFIG")
            .env_remove("PACE_HOOK_BACKEND")
            .env_remove("CLAUDE_PROJECT_DIR")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(append(stderr));
        c
    }

    /// Spawn with `input` on stdin and return at once.
    fn spawn(&self, input: &[u8], stderr: &Path) -> Child {
        let mut child = self
            .command(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", self.path.display()));
        feed(&mut child, input);
        child
    }

    /// Run to the end with `input` on stdin.
    fn run(&self, input: &[u8], stderr: &Path) -> Sample {
        let mut command = self.command(stderr);
        let start = Instant::now();
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", self.path.display()));
        feed(&mut child, input);
        let (code, cpu) = reap(&child, 0).expect("a blocking wait reaps");
        Sample {
            wall: start.elapsed(),
            cpu,
            code,
        }
    }
}

fn append(path: &Path) -> File {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn feed(child: &mut Child, input: &[u8]) {
    if let Some(mut stdin) = child.stdin.take() {
        // A program that exits without reading (node -e 0) breaks the pipe;
        // that is its business.
        let _ = stdin.write_all(input);
    }
}

/// Wait for `child` with `flags` (0 or `WNOHANG`); `None` if it is still
/// running. Returns the exit code (128 + the signal for a killed child) and
/// the CPU time, user plus system, that `wait4` reports.
fn reap(child: &Child, flags: i32) -> Option<(i32, Duration)> {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain old data, for wait4 to fill.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pointers to live locals; `pid` is our own child, not yet reaped.
        let r = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
        if r == pid {
            break;
        }
        if r == 0 {
            return None;
        }
        let e = io::Error::last_os_error();
        assert_eq!(e.kind(), io::ErrorKind::Interrupted, "wait4 {pid}: {e}");
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1_000);
    Some((code, tv(ru.ru_utime) + tv(ru.ru_stime)))
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(program))
            .find(|p| p.is_file())
    })
}

/// One command of the per-event loop.
struct Case {
    /// The row's label.
    name: String,
    /// Which table it belongs to.
    group: Group,
    program: Program,
    event: Template,
    /// Ties a Pre to its Post: the same tag gives the same tool_use_id in a
    /// round.
    id_tag: String,
    /// The floor case this one is compared with (same input size).
    floor: Option<usize>,
    samples: Vec<Sample>,
    /// Peak RSS of each run through the trampoline, KiB.
    rss_kib: Vec<u64>,
    failures: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    /// The floors and node.
    Reference,
    /// One site, no waiters, with the build of this index.
    OneSite(usize),
    /// A thousand sites and 64 waiters, with the build of this index.
    Scale(usize),
}

fn per_event_cases(
    events: &Events,
    floors: &[(Link, Result<PathBuf, String>)],
    builds: &[Build],
    homes: &[Home],
    scales: &[Scale],
    node: Option<&Path>,
) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |name: &str,
                   group: Group,
                   program: Program,
                   event: &Template,
                   id_tag: String,
                   floor: Option<usize>| {
        cases.push(Case {
            name: name.to_owned(),
            group,
            program,
            event: event.clone(),
            id_tag,
            floor,
            samples: Vec::new(),
            rss_kib: Vec::new(),
            failures: 0,
        });
        cases.len() - 1
    };
    // Each kind of floor, fed a small event and the 2 MB one.
    let mut floor_of: Vec<(Link, usize, usize)> = Vec::new();
    for (link, floor) in floors {
        let Ok(path) = floor else { continue };
        let small = add(
            &format!("floor ({}): Rust, reads stdin", link.label()),
            Group::Reference,
            Program::new(path),
            &events.skip,
            "floor".into(),
            None,
        );
        let big = add(
            &format!("floor ({}), fed the 2 MB event", link.label()),
            Group::Reference,
            Program::new(path),
            &events.screenshot,
            "floor".into(),
            None,
        );
        floor_of.push((*link, small, big));
    }
    let default_floor = floor_of
        .iter()
        .find(|f| f.0 == Link::Dynamic)
        .map(|f| (f.1, f.2))
        .expect("the default floor builds");
    if let Some(node) = node {
        let mut p = Program::new(node);
        p.args = vec!["-e".into(), "0".into()];
        add(
            "`node -e 0`",
            Group::Reference,
            p,
            &events.skip,
            "node".into(),
            Some(default_floor.0),
        );
    }
    let one_url = "https://example.com/a".to_owned();
    let runs = builds
        .iter()
        .enumerate()
        .zip(homes)
        .map(|((i, b), home)| {
            (
                Group::OneSite(i),
                b,
                home,
                one_url.clone(),
                b.tag.to_owned(),
            )
        })
        .chain(scales.iter().map(|s| {
            let b = &builds[s.build];
            let tag = format!("{}-scale", b.tag);
            (Group::Scale(s.build), b, &s.home, scale_url(), tag)
        }))
        .collect::<Vec<_>>();
    for (group, build, home, url, tag) in runs {
        // Each build against the floor linked like it.
        let (floor, screenshot_floor) = floor_of
            .iter()
            .find(|f| f.0 == build.link)
            .map_or(default_floor, |f| (f.1, f.2));
        let program = Program::hook(&build.path, home);
        add(
            "skip: PreToolUse screenshot",
            group,
            program.clone(),
            &events.skip,
            tag.clone(),
            Some(floor),
        );
        add(
            "paced: PreToolUse navigate, admitted at once",
            group,
            program.clone(),
            &events.pre(&url),
            tag.clone(),
            Some(floor),
        );
        add(
            "PostToolUse navigate, with Tab Context",
            group,
            program.clone(),
            &events.post(&url),
            tag.clone(),
            Some(floor),
        );
        add(
            "PostToolUse screenshot, 2 MB",
            group,
            program,
            &events.screenshot,
            // A screenshot was skipped at Pre: it has no admission to finish.
            "shot".into(),
            Some(screenshot_floor),
        );
    }
    cases
}

/// Run every case once per round. The cases of one build run together and in
/// order (each Post after its Pre); the builds and reference commands are
/// shuffled afresh each round, so whatever one command leaves behind (node
/// evicts the caches) falls on each of the others alike.
fn time_round_robin(cases: &mut [Case], rounds: usize, work: &Path) {
    let stderr = work.join("per-event.stderr");
    let mut units: Vec<Vec<usize>> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        match units.last_mut() {
            Some(u) if c.group != Group::Reference && cases[u[0]].group == c.group => u.push(i),
            _ => units.push(vec![i]),
        }
    }
    let mut rng: u64 = 0x2545_F491_4F6C_DD1D;
    for round in 0..rounds {
        for k in (1..units.len()).rev() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            units.swap(k, (rng % (k as u64 + 1)) as usize);
        }
        for &i in units.iter().flatten() {
            let case = &mut cases[i];
            let id = format!("{}-{round}", case.id_tag);
            let input = case.event.with_id(&id);
            let s = case.program.run(&input, &stderr);
            if s.code != 0 {
                case.failures += 1;
            }
            case.samples.push(s);
        }
    }
}

/// Peak RSS of every case, a few runs each through the trampoline, in the
/// same order as the timed rounds (so each Post still follows its Pre).
fn measure_rss(cases: &mut [Case], trampoline: &Path, work: &Path) {
    let stderr = work.join("rss.stderr");
    for run in 0..RSS_RUNS {
        for case in cases.iter_mut() {
            let id = format!("{}-rss{run}", case.id_tag);
            let mut via = Program {
                path: trampoline.to_owned(),
                args: vec![case.program.path.display().to_string()],
                env: case.program.env.clone(),
            };
            via.args.extend(case.program.args.iter().cloned());
            let mut command = via.command(&stderr);
            command.stdout(Stdio::piped());
            let mut child = command.spawn().expect("spawn the trampoline");
            feed(&mut child, &case.event.with_id(&id));
            let out = child.wait_with_output().expect("trampoline output");
            let text = String::from_utf8_lossy(&out.stdout);
            let mut words = text.split_whitespace();
            if let (Some(Ok(kib)), Some("true")) = (words.next().map(str::parse), words.next()) {
                case.rss_kib.push(kib);
            }
        }
    }
}

/// Give each of the scale run's sites a state, as if each had had a call.
fn populate(bin: &Path, home: &Home, events: &Events) {
    let program = Program::hook(bin, home);
    let stderr = home.root.with_extension("populate.stderr");
    for i in 0..SCALE_SITES {
        let url = format!("https://www.site{i:04}.test/");
        let id = format!("populate-{i}");
        let pre = program.run(&events.pre(&url).with_id(&id), &stderr);
        let post = program.run(&events.post(&url).with_id(&id), &stderr);
        assert!(
            pre.code == 0 && post.code == 0,
            "populating site {i} failed; see {}",
            stderr.display()
        );
    }
}

/// Pre events parked on the scale run's long-interval sites for the whole
/// per-event run; killed at the end if still waiting.
struct Waiters {
    children: Vec<(Child, Instant)>,
}

struct Waited {
    count: usize,
    cpu: Duration,
    waited: Duration,
    /// VmHWM of each, read while it waits.
    rss_kib: Vec<u64>,
}

impl Waiters {
    fn start(bin: &Path, home: &Home, events: &Events) -> Self {
        let program = Program::hook(bin, home);
        let stderr = home.root.with_extension("waiters.stderr");
        let children = (0..SCALE_WAITERS)
            .map(|i| {
                let url = format!("https://www.site{i:04}.test/next");
                let session = format!("bench-waiter-{i}");
                let input = events
                    .pre_in(&url, &session)
                    .with_id(&format!("waiter-{i}"));
                (program.spawn(&input, &stderr), Instant::now())
            })
            .collect();
        // Let them reach their queues before anything is timed.
        thread::sleep(Duration::from_millis(500));
        Self { children }
    }

    /// How many have not exited. Leaves every child waitable, for `stop`.
    fn still_waiting(&self) -> usize {
        self.children
            .iter()
            .filter(|(c, _)| {
                // SAFETY: siginfo_t is plain old data, for waitid to fill.
                let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
                let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
                // SAFETY: our own child, a live struct; WNOWAIT reaps nothing.
                let r = unsafe { libc::waitid(libc::P_PID, c.id(), &mut info, flags) };
                // SAFETY: waitid filled `info`; si_pid is 0 if nobody exited.
                r == 0 && unsafe { info.si_pid() } == 0
            })
            .count()
    }

    fn stop(mut self) -> Waited {
        let mut w = Waited {
            count: 0,
            cpu: Duration::ZERO,
            waited: Duration::ZERO,
            rss_kib: Vec::new(),
        };
        for (child, since) in self.children.drain(..) {
            let status = fs::read_to_string(format!("/proc/{}/status", child.id()));
            let hwm: Option<u64> = status.ok().and_then(|t| {
                let line = t.lines().find(|l| l.starts_with("VmHWM:"))?;
                line.split_whitespace().nth(1)?.parse().ok()
            });
            w.rss_kib.extend(hwm);
            // SAFETY: our own child, by pid.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
            let waited = since.elapsed();
            if let Some((_, cpu)) = reap(&child, 0) {
                w.count += 1;
                w.cpu += cpu;
                w.waited += waited;
            }
        }
        w
    }
}

impl Drop for Waiters {
    fn drop(&mut self) {
        for (child, _) in &self.children {
            // SAFETY: our own child, by pid.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
            let _ = reap(child, 0);
        }
    }
}

/// One Pre of the contention run.
struct Call {
    id: String,
    /// When its process was spawned, from the start of the run.
    spawned: Duration,
    pre: Sample,
    post_code: i32,
}

/// 16 processes, one site: each, an agent of its own, makes its calls in
/// turn, Pre → work → Post.
fn contend(home: &Home, events: &Events) -> Vec<Call> {
    let program = Arc::new(Program::hook(Path::new(BIN), home));
    let url = "https://s1.test/page";
    let stderr = Arc::new(home.root.with_extension("contention.stderr"));
    let barrier = Arc::new(Barrier::new(CONTENDERS));
    let start = Instant::now();
    let threads: Vec<_> = (0..CONTENDERS)
        .map(|t| {
            let session = format!("bench-contender-{t}");
            let (pre, post) = (events.pre_in(url, &session), events.post_in(url, &session));
            let (program, stderr, barrier) = (program.clone(), stderr.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                (0..CALLS_EACH)
                    .map(|k| {
                        let id = format!("c{t:02}-{k}");
                        let spawned = start.elapsed();
                        let pre = program.run(&pre.with_id(&id), &stderr);
                        thread::sleep(WORK);
                        let post = program.run(&post.with_id(&id), &stderr);
                        Call {
                            id,
                            spawned,
                            pre,
                            post_code: post.code,
                        }
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    threads
        .into_iter()
        .flat_map(|t| t.join().expect("contender thread"))
        .collect()
}

/// The parts of a gate log line the bench reads.
#[derive(Debug, Clone)]
struct LogLine {
    line: usize,
    ts: u64,
    event: String,
    call: String,
    sites: Vec<String>,
    waited_ms: Option<u64>,
    tickets: Vec<Option<u64>>,
    reason: Option<String>,
}

impl LogLine {
    fn from_json(line: usize, v: &Value) -> Self {
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        Self {
            line,
            ts: v["ts"].as_u64().unwrap_or(0),
            event: v["event"].as_str().unwrap_or("").to_owned(),
            call: v["call"].as_str().unwrap_or("").to_owned(),
            sites: strings(&v["sites"]),
            waited_ms: v["waited_ms"].as_u64(),
            reason: v["reason"].as_str().map(str::to_owned),
            tickets: v["tickets"]
                .as_array()
                .map(|a| a.iter().map(Value::as_u64).collect())
                .unwrap_or_default(),
        }
    }
}

/// Gaps on one site, replayed from the log: each admission against the latest
/// finish before it.
struct Gaps {
    /// Finish → next admission, ms.
    gaps: Vec<i64>,
    /// Admissions while another call on the site had not finished.
    overlaps: usize,
}

fn gaps(log: &[LogLine], site: &str) -> Gaps {
    let mut lines: Vec<&LogLine> = log
        .iter()
        .filter(|l| l.sites.iter().any(|s| s == site))
        .filter(|l| l.event == "admit" || l.event == "finish")
        .collect();
    lines.sort_by_key(|l| (l.ts, l.line));
    let mut last_finish: Option<u64> = None;
    let mut in_flight: Vec<&str> = Vec::new();
    let mut out = Gaps {
        gaps: Vec::new(),
        overlaps: 0,
    };
    for l in lines {
        if l.event == "admit" {
            if !in_flight.is_empty() {
                out.overlaps += 1;
            }
            if let Some(f) = last_finish {
                out.gaps.push(l.ts as i64 - f as i64);
            }
            in_flight.push(&l.call);
        } else {
            in_flight.retain(|c| *c != l.call);
            last_finish = Some(last_finish.map_or(l.ts, |f| f.max(l.ts)));
        }
    }
    out
}

/// Pairs taken out of order: `order` lists keys in the order served.
fn inversions<T: PartialOrd>(order: &[T]) -> usize {
    let mut n = 0;
    for (i, a) in order.iter().enumerate() {
        n += order[i + 1..].iter().filter(|b| *b < a).count();
    }
    n
}

/// Sizes of a state directory.
struct DirSize {
    files: u64,
    dirs: u64,
    bytes: u64,
    disk: u64,
}

impl DirSize {
    fn of(root: &Path) -> Self {
        let mut s = Self {
            files: 0,
            dirs: 0,
            bytes: 0,
            disk: 0,
        };
        let mut stack = vec![root.to_owned()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let Ok(m) = e.metadata() else { continue };
                s.disk += m.blocks() * 512;
                if m.is_dir() {
                    s.dirs += 1;
                    stack.push(e.path());
                } else {
                    s.files += 1;
                    s.bytes += m.len();
                }
            }
        }
        s
    }
}

// ---- the report ----

fn machine(out: &mut String, work: &Path, rounds: usize) {
    let cpus = thread::available_parallelism().map_or(0, |n| n.get());
    let model = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let kernel = fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|k| k.trim().to_owned())
        .unwrap_or_else(|_| "unknown".to_owned());
    let rustc = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("-V")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    let size = fs::metadata(BIN).map_or(0, |m| m.len());
    let commit = Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "describe",
            "--always",
            "--dirty",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    let _ = writeln!(
        out,
        "Machine: {cpus} CPUs ({model}), Linux {kernel}, {rustc}; state directories on {} \
         (`{}`). pace-hook at commit `{commit}`, release build (`lto = \"fat\"`, \
         `codegen-units = 1`), {:.1} MB. \
         Per-event figures are over {rounds} rounds, every command once per round.\n",
        filesystem(work),
        work.display(),
        size as f64 / 1e6
    );
}

fn filesystem(path: &Path) -> &'static str {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return "an unknown filesystem";
    };
    // SAFETY: statfs is plain old data, for statfs(2) to fill.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a live struct.
    if unsafe { libc::statfs(c.as_ptr(), &mut s) } != 0 {
        return "an unknown filesystem";
    }
    match s.f_type as u64 {
        0xEF53 => "ext4",
        0x0102_1994 => "tmpfs",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0x794C_7630 => "overlayfs",
        0x6969 => "NFS",
        _ => "an unknown filesystem",
    }
}

/// The `q` quantile (nearest rank) of sorted `v`.
fn quantile<T: Copy>(v: &[T], q: f64) -> T {
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

struct Summary {
    median: f64,
    p90: f64,
    p99: f64,
    cpu: f64,
    rss_mib: f64,
}

fn summary(case: &Case) -> Summary {
    let mut wall: Vec<f64> = case.samples.iter().map(|s| ms(s.wall)).collect();
    let mut cpu: Vec<f64> = case.samples.iter().map(|s| ms(s.cpu)).collect();
    let mut rss = case.rss_kib.clone();
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    rss.sort_unstable();
    Summary {
        median: quantile(&wall, 0.5),
        p90: quantile(&wall, 0.9),
        p99: quantile(&wall, 0.99),
        cpu: quantile(&cpu, 0.5),
        rss_mib: if rss.is_empty() {
            f64::NAN
        } else {
            quantile(&rss, 0.5) as f64 / 1024.0
        },
    }
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "**not met**" }
}

fn per_event_section(
    out: &mut String,
    cases: &[Case],
    floors: &[(Link, Result<PathBuf, String>)],
    builds: &[Build],
    node: bool,
) {
    let node_median = cases
        .iter()
        .find(|c| c.name.contains("node"))
        .map(|c| summary(c).median);
    let _ = writeln!(
        out,
        "### 1. Per-event cost\n\n\
         Whole process, spawn to exit, the event written to its stdin. `÷ floor` divides the \
         median by the median of the floor linked the same way and fed an event of the same \
         size (the 2 MB rows by a 2 MB floor). CPU is user + sys from `wait4`; peak RSS is the \
         median of {RSS_RUNS} extra runs. Goal: median ≤ {GOAL_EVENT_MS} ms and \
         ≤ {GOAL_FLOOR_RATIO}× the floor.\n\n\
         | command | median | p90 | p99 | ÷ floor | node ÷ this | CPU (median) | peak RSS | goal |\n\
         |---|--:|--:|--:|--:|--:|--:|--:|---|"
    );
    let groups = [Group::Reference]
        .into_iter()
        .chain((0..builds.len()).map(Group::OneSite));
    for group in groups {
        for c in cases.iter().filter(|c| c.group == group) {
            let s = summary(c);
            let floor = c.floor.map(|f| summary(&cases[f]).median);
            let ratio = floor.map_or("1.00×".to_owned(), |f| format!("{:.2}×", s.median / f));
            let vs_node = node_median.map_or("–".to_owned(), |n| format!("{:.0}×", n / s.median));
            let goal = match (group, floor) {
                // No event can beat a floor that is itself over the mark: there
                // the ratio is the goal.
                (Group::OneSite(_), Some(f)) if f > GOAL_EVENT_MS => format!(
                    "{} (ratio only: the floor is over {GOAL_EVENT_MS} ms)",
                    verdict(s.median / f <= GOAL_FLOOR_RATIO)
                ),
                (Group::OneSite(_), Some(f)) => {
                    verdict(s.median <= GOAL_EVENT_MS && s.median / f <= GOAL_FLOOR_RATIO)
                        .to_owned()
                }
                _ => String::new(),
            };
            let label = match group {
                Group::OneSite(i) => format!("pace-hook ({}) {}", builds[i].label, c.name),
                _ => c.name.clone(),
            };
            let failed = failed_note(c.failures);
            let _ = writeln!(
                out,
                "| {label}{failed} | {:.2} ms | {:.2} ms | {:.2} ms | {ratio} | {vs_node} | {:.2} ms | {:.1} MiB | {goal} |",
                s.median, s.p90, s.p99, s.cpu, s.rss_mib
            );
        }
    }
    out.push('\n');
    if !node {
        out.push_str("`node` is not installed: no node row.\n\n");
    }
    for (link, floor) in floors {
        if let Err(e) = floor {
            let _ = writeln!(out, "No {} floor: rustc failed ({e}).\n", link.label());
        }
    }
    for link in [Link::StaticGlibc, Link::Musl] {
        if !builds.iter().any(|b| b.link == link) {
            let _ = writeln!(
                out,
                "No {} build of pace-hook was timed (`scripts/bench` makes one where this \
                 machine can).\n",
                link.label(),
            );
        }
    }
}

/// How many of the paced events timed in `home` (ids starting `prefix`) were
/// admitted, and how many of those had to queue.
fn queued_admissions(home: &Home, prefix: &str) -> (usize, usize) {
    let log = home.log();
    let admits: Vec<&LogLine> = log
        .iter()
        // Calls are keyed `agent#id`; the bench made the id.
        .filter(|l| {
            l.event == "admit" && l.call.rsplit('#').next().unwrap_or("").starts_with(prefix)
        })
        .collect();
    let queued = admits
        .iter()
        .filter(|l| l.tickets.iter().any(Option::is_some))
        .count();
    (admits.len(), queued)
}

fn admitted_at_once(out: &mut String, builds: &[Build], homes: &[Home], scaled: &[Scaled]) {
    let mut parts: Vec<String> = builds
        .iter()
        .zip(homes)
        .map(|(b, home)| {
            let (n, q) = queued_admissions(home, &format!("{}-", b.tag));
            format!("{q} of {n} ({})", b.label)
        })
        .collect();
    for s in scaled {
        let (n, q) = s.queued;
        parts.push(format!("{q} of {n} ({}, scale)", builds[s.build].label));
    }
    let _ = writeln!(
        out,
        "Check: of the paced events above, {} queued; the rest were admitted at once, as that \
         row is meant to measure.\n",
        parts.join(", ")
    );
}

/// Sections 2 to 4 for one contention run; `store` names the store when it
/// is not the files (the sections are then numbered 2b to 4b).
fn contention_section(
    out: &mut String,
    store: Option<&str>,
    home: &Home,
    calls: &[Call],
    cases: &[Case],
    baseline: Group,
) {
    let (b, on) = match store {
        Some(s) => ("b", format!(", {s}")),
        None => ("", String::new()),
    };
    let log = home.log();
    // The gate keys the site by its registrable domain, and a call by its
    // agent and id (`bench-contender-3#c03-7`); the bench knows the id.
    let g = gaps(&log, "s1.test");
    let id_of = |call: &str| call.rsplit('#').next().unwrap_or(call).to_owned();
    let interval = CONTENTION_INTERVAL_MS as i64;
    let mut over: Vec<i64> = g.gaps.iter().map(|gap| gap - interval).collect();
    over.sort_unstable();
    let under = over.iter().filter(|o| **o < 0).count();
    let failed = calls
        .iter()
        .filter(|c| c.pre.code != 0 || c.post_code != 0)
        .count();
    // Every call here gets its Post: a finish written for any other reason
    // would mean the gaps below are not counted from the real ends.
    let unposted = log
        .iter()
        .filter(|l| l.event == "finish" && l.reason.is_some())
        .count();
    let _ = writeln!(
        out,
        "### 2{b}. Gap precision under contention{on}\n\n\
         {CONTENDERS} processes, one site, interval {CONTENTION_INTERVAL_MS} ms, {CALLS_EACH} calls \
         each (Pre → {} ms of work → Post), each process an agent of its own; {} calls, {} \
         failed, {unposted} finished other than by their Post. Every finish → next admission \
         gap, read from the gate log (whole milliseconds: finishes are logged rounded up, \
         admissions rounded down).\n",
        WORK.as_millis(),
        calls.len(),
        failed
    );
    if over.is_empty() {
        out.push_str("No gaps in the log: the run failed.\n\n");
    } else {
        let (median, p99, max) = (
            quantile(&over, 0.5),
            quantile(&over, 0.99),
            *over.last().expect("not empty"),
        );
        let _ = writeln!(
            out,
            "| figure | value | goal | |\n|---|--:|--:|---|\n\
             | gaps | {} | | |\n\
             | under the interval | {under} (smallest gap {} ms) | 0 | {} |\n\
             | admitted while another call was in flight | {} | 0 | {} |\n\
             | overshoot, median | {median} ms | ≤ {GOAL_OVERSHOOT_MEDIAN_MS} ms | {} |\n\
             | overshoot, p90 | {} ms | | |\n\
             | overshoot, p99 | {p99} ms | ≤ {GOAL_OVERSHOOT_P99_MS} ms | {} |\n\
             | overshoot, max | {max} ms | ≤ {GOAL_OVERSHOOT_MAX_MS} ms | {} |\n",
            over.len(),
            over[0] + interval,
            verdict(under == 0),
            g.overlaps,
            verdict(g.overlaps == 0),
            verdict(median as f64 <= GOAL_OVERSHOOT_MEDIAN_MS),
            quantile(&over, 0.9),
            verdict(p99 as f64 <= GOAL_OVERSHOOT_P99_MS),
            verdict(max as f64 <= GOAL_OVERSHOOT_MAX_MS),
        );
    }
    if let Some(line) = gaps_command(home) {
        let _ = writeln!(out, "`pace-hook gaps` on the same log: {line}\n");
    }

    // Fairness: admission order against ticket (arrival) order.
    let mut admits: Vec<&LogLine> = log.iter().filter(|l| l.event == "admit").collect();
    admits.sort_by_key(|l| (l.ts, l.line));
    let tickets: Vec<u64> = admits
        .iter()
        .filter_map(|l| l.tickets.first().copied().flatten())
        .collect();
    let unqueued = admits.len() - tickets.len();
    let spawned: HashMap<&str, Duration> =
        calls.iter().map(|c| (c.id.as_str(), c.spawned)).collect();
    let by_spawn: Vec<Duration> = admits
        .iter()
        .filter_map(|l| spawned.get(id_of(&l.call).as_str()).copied())
        .collect();
    let spawn_inversions = inversions(&by_spawn);
    // Pairs spawned further apart than start-up jitter can explain.
    let slack = Duration::from_millis(5);
    let mut clear = 0;
    for (i, a) in by_spawn.iter().enumerate() {
        clear += by_spawn[i + 1..]
            .iter()
            .filter(|b| **b + slack < *a)
            .count();
    }
    let _ = writeln!(
        out,
        "### 3{b}. Fairness{on}\n\n\
         Same run. Admission order (gate log) against the order of the queue tickets, which are \
         taken in arrival order: **{} inversions** among {} queued admissions (goal 0: {}). \
         {unqueued} admission(s) took the fast path without a ticket. Against the order the \
         bench spawned the processes: {spawn_inversions} inversions, {clear} of them between \
         processes spawned more than {} ms apart. Those measure process start-up, not the \
         queue: a process takes its ticket only once it runs, and with {CONTENDERS} \
         contenders on this machine's CPUs one can start later than another spawned after it.\n",
        inversions(&tickets),
        tickets.len(),
        verdict(inversions(&tickets) == 0),
        slack.as_millis(),
    );

    // Cost of waiting.
    let waited: HashMap<String, u64> = log
        .iter()
        .filter(|l| l.event == "admit")
        .filter_map(|l| Some((id_of(&l.call), l.waited_ms?)))
        .collect();
    let baseline = cases
        .iter()
        .find(|c| c.group == baseline && c.name.starts_with("paced"))
        .map(|c| summary(c).cpu)
        .unwrap_or(0.0);
    let (mut cpu, mut wait_ms, mut n) = (0.0, 0u64, 0);
    for c in calls {
        if let Some(w) = waited.get(&c.id) {
            cpu += ms(c.pre.cpu);
            wait_ms += w;
            n += 1;
        }
    }
    let secs = wait_ms as f64 / 1e3;
    let gross = cpu / secs.max(1e-9);
    let net = (cpu - n as f64 * baseline).max(0.0) / secs.max(1e-9);
    let _ = writeln!(
        out,
        "### 4{b}. Cost of waiting{on}\n\n\
         Same run: the {n} Pre processes waited {secs:.1} s in all and used {cpu:.1} ms of CPU \
         (user + sys, from `wait4`): **{gross:.3} ms of CPU per second waited** (goal ≤ \
         {GOAL_WAIT_CPU_MS_PER_S} ms: {}). Less the CPU of an event admitted at once \
         ({baseline:.2} ms, median of the paced row above), the waiting itself costs \
         {net:.3} ms per second.\n",
        verdict(gross <= GOAL_WAIT_CPU_MS_PER_S),
    );
}

fn gaps_command(home: &Home) -> Option<String> {
    let out = Command::new(BIN)
        .arg("gaps")
        .envs(home.env())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().rev().find(|l| l.contains("gaps"))?.trim();
    Some(format!(
        "“{last}” (exit {})",
        out.status.code().unwrap_or(-1)
    ))
}

fn scale_section(out: &mut String, cases: &[Case], builds: &[Build], scaled: &[Scaled]) {
    let _ = writeln!(
        out,
        "### 5. Scale\n\n\
         {SCALE_SITES} configured sites (two domains each, every one with state from an earlier \
         call) and {SCALE_WAITERS} processes waiting on {SCALE_WAITERS} different sites, against \
         one site and no waiters; same rounds, interleaved. Goal: median within \
         {GOAL_SCALE_RATIO}× of the one-site case.\n\n\
         | event | one site | {SCALE_SITES} sites + {SCALE_WAITERS} waiters | ratio | peak RSS, one → scale | goal |\n\
         |---|--:|--:|--:|--:|---|"
    );
    for s in scaled {
        let label = if scaled.len() > 1 {
            format!("pace-hook ({}) ", builds[s.build].label)
        } else {
            String::new()
        };
        for c in cases.iter().filter(|c| c.group == Group::Scale(s.build)) {
            let base = cases
                .iter()
                .find(|b| b.group == Group::OneSite(s.build) && b.name == c.name);
            let Some(base) = base else { continue };
            let (a, b) = (summary(base), summary(c));
            let ratio = b.median / a.median;
            let failed = failed_note(c.failures);
            let _ = writeln!(
                out,
                "| {label}{}{failed} | {:.2} ms | {:.2} ms | {ratio:.2}× | {:.1} → {:.1} MiB | {} |",
                c.name,
                a.median,
                b.median,
                a.rss_mib,
                b.rss_mib,
                verdict(ratio <= GOAL_SCALE_RATIO)
            );
        }
    }
    out.push('\n');
    for s in scaled {
        let start_cpu_ms = cases
            .iter()
            .find(|c| c.group == Group::Scale(s.build) && c.name.starts_with("paced"))
            .map_or(0.0, |c| summary(c).cpu);
        let w = &s.waited;
        let mut rss = w.rss_kib.clone();
        rss.sort_unstable();
        let rss_median = if rss.is_empty() {
            0.0
        } else {
            quantile(&rss, 0.5) as f64 / 1024.0
        };
        let secs = w.waited.as_secs_f64().max(1e-9);
        let per_s = ms(w.cpu) / secs;
        let net = (ms(w.cpu) - w.count as f64 * start_cpu_ms).max(0.0) / secs;
        let _ = writeln!(
            out,
            "{}: state directory after the run: {} files in {} directories, {} bytes ({} KiB on \
             disk) with {SCALE_SITES} sites; one site: {} files, {} bytes ({} KiB on disk). Both \
             include the gate log. The {SCALE_WAITERS} waiters were all still waiting at the end: \
             {} ({} still waiting). They waited {:.0} s in all and used {:.1} ms of CPU: \
             {per_s:.3} ms per second waited, start-up included; {net:.3} ms less the start-up \
             ({start_cpu_ms:.2} ms each, the median CPU of the scale run's paced event). Peak RSS \
             while waiting (VmHWM): {rss_median:.1} MiB each (median).\n",
            builds[s.build].label,
            s.size.files,
            s.size.dirs,
            s.size.bytes,
            s.size.disk / 1024,
            s.one_size.files,
            s.one_size.bytes,
            s.one_size.disk / 1024,
            verdict(s.still_waiting == SCALE_WAITERS),
            s.still_waiting,
            w.waited.as_secs_f64(),
            ms(w.cpu),
        );
    }
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

/// `t` as `YYYY-MM-DD HH:MM UTC`.
fn utc(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3_600,
        rem % 3_600 / 60
    )
}

/// ` (N failed)` after a row's label, or nothing.
fn failed_note(failures: usize) -> String {
    if failures > 0 {
        format!(" ({failures} failed)")
    } else {
        String::new()
    }
}
