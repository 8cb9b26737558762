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
//! makes them); `PACE_HOOK_BENCH_COMPARE=LABEL=PATH[,LABEL=PATH...]` (other
//! glibc builds, say of earlier commits, timed side by side with this one,
//! scale included: a before and after from one run); `PACE_HOOK_BENCH_DIR` (where
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
/// The reference gate for the caller-side gap (issue 9): the smallest correct
/// cross-process gate for the contention run's job, run the same way as
/// pace-hook (`ref-gate pre|post DIR INTERVAL_MS`, the event on stdin, which
/// it reads and ignores). Callers at the head of the queue one at a time (a
/// `flock` on `queue`, held to exit); the head looks at the state under a
/// second lock, polls each millisecond while a call is in flight, and once
/// the last call has finished sleeps exactly until one interval after that
/// finish (µs), marks the site busy and exits. A Post stamps the finish under
/// the lock. No queue files, no log, no config: what it costs beyond the
/// floor is what any such gate must cost, so pace-hook's overshoot minus its
/// overshoot is pace-hook's own.
const REF_GATE_SRC: &str = "use std::{fs::File, io::Read, os::unix::fs::FileExt, time::{Duration, SystemTime, UNIX_EPOCH}};\n\
fn now_us() -> u64 { SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_micros() as u64 }\n\
fn open(dir: &str, name: &str) -> File {\n\
    File::options().read(true).write(true).create(true).truncate(false).open(format!(\"{dir}/{name}\")).unwrap()\n\
}\n\
fn main() {\n\
    let mut input = Vec::new();\n\
    let _ = std::io::stdin().lock().read_to_end(&mut input);\n\
    let args: Vec<String> = std::env::args().collect();\n\
    let (dir, interval_us) = (&args[2], args[3].parse::<u64>().unwrap() * 1000);\n\
    let (lock, state) = (open(dir, \"lock\"), open(dir, \"state\"));\n\
    if args[1] == \"post\" {\n\
        lock.lock().unwrap();\n\
        state.write_all_at(format!(\"{:<20}\", now_us()).as_bytes(), 0).unwrap();\n\
        return;\n\
    }\n\
    let queue = open(dir, \"queue\");\n\
    queue.lock().unwrap();\n\
    loop {\n\
        lock.lock().unwrap();\n\
        let mut buf = [0u8; 20];\n\
        let n = state.read_at(&mut buf, 0).unwrap();\n\
        let text = std::str::from_utf8(&buf[..n]).unwrap().trim();\n\
        if text == \"busy\" {\n\
            lock.unlock().unwrap();\n\
            std::thread::sleep(Duration::from_millis(1));\n\
            continue;\n\
        }\n\
        let due = text.parse::<u64>().unwrap_or(0) + interval_us;\n\
        let now = now_us();\n\
        if now < due {\n\
            std::thread::sleep(Duration::from_micros(due - now));\n\
        }\n\
        state.write_all_at(format!(\"{:<20}\", \"busy\").as_bytes(), 0).unwrap();\n\
        return;\n\
    }\n\
}\n";
/// The reference gate on Redis, for the Redis store's caller-side gap: the
/// same job as [`REF_GATE_SRC`] with its state on the server, in plain RESP
/// over one connection (`ref-redis pre|post PORT INTERVAL_MS`). The head of
/// the queue holds a token taken with `BLPOP` (which Redis serves first come,
/// first served) and passes it on when it exits; it looks at the state with
/// one script, waits on a wake-up list while a call is in flight, sleeps
/// until one interval after the finish by the server's clock, and marks the
/// site busy. A Post stamps the finish with the server's `TIME` and pushes
/// the wake-up. One round trip after the due time, as any Redis gate needs.
const REF_REDIS_SRC: &str = r#"use std::{io::{BufRead, BufReader, Read, Write}, net::TcpStream, time::Duration};
enum V { Int(i64), Other }
fn cmd(args: &[&str]) -> Vec<u8> {
    let mut b = format!("*{}\r\n", args.len()).into_bytes();
    for a in args { b.extend(format!("${}\r\n{a}\r\n", a.len()).bytes()); }
    b
}
fn read(r: &mut BufReader<TcpStream>) -> V {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let (kind, rest) = line.trim_end().split_at(1);
    let n: i64 = rest.parse().unwrap_or(0);
    match kind {
        ":" => V::Int(n),
        "$" if n >= 0 => { let mut b = vec![0; n as usize + 2]; r.read_exact(&mut b).unwrap(); V::Other }
        "*" => { for _ in 0..n.max(0) { read(r); } V::Other }
        "-" => panic!("{rest}"),
        _ => V::Other,
    }
}
const CHECK: &str = "local t = redis.call('TIME') local now = t[1] * 1000000 + t[2] local s = redis.call('GET', KEYS[1]) if s == 'busy' then return -1 end if not s then return 0 end return math.max(0, tonumber(s) + tonumber(ARGV[1]) - now)";
const FINISH: &str = "local t = redis.call('TIME') redis.call('SET', KEYS[1], t[1] * 1000000 + t[2]) redis.call('LPUSH', KEYS[2], 1) return 1";
fn main() {
    let mut input = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    let args: Vec<String> = std::env::args().collect();
    let interval_us = (args[3].parse::<u64>().unwrap() * 1000).to_string();
    let mut w = TcpStream::connect(("127.0.0.1", args[2].parse::<u16>().unwrap())).unwrap();
    let mut r = BufReader::new(w.try_clone().unwrap());
    if args[1] == "post" {
        w.write_all(&cmd(&["EVAL", FINISH, "2", "ref:state", "ref:wake"])).unwrap();
        read(&mut r);
        return;
    }
    w.write_all(&cmd(&["BLPOP", "ref:token", "0"])).unwrap();
    read(&mut r);
    loop {
        let mut b = cmd(&["DEL", "ref:wake"]);
        b.extend(cmd(&["EVAL", CHECK, "1", "ref:state", &interval_us]));
        w.write_all(&b).unwrap();
        read(&mut r);
        match read(&mut r) {
            V::Int(-1) => { w.write_all(&cmd(&["BLPOP", "ref:wake", "1"])).unwrap(); read(&mut r); }
            V::Int(us) => { std::thread::sleep(Duration::from_micros(us as u64)); break; }
            V::Other => panic!("an answer that is not a number"),
        }
    }
    let mut b = cmd(&["SET", "ref:state", "busy"]);
    b.extend(cmd(&["LPUSH", "ref:token", "1"]));
    w.write_all(&b).unwrap();
    read(&mut r);
    read(&mut r);
}
"#;
/// Runs per case for peak RSS, after the timed rounds.
const RSS_RUNS: usize = 5;
/// Stands for the tool_use_id in an event template.
const ID: &str = "@ID@";
/// Size of the screenshot block in the large PostToolUse.
const SCREENSHOT_BYTES: usize = 2 * 1024 * 1024;
/// Size of the large javascript_tool script (issue 6).
const SCRIPT_BYTES: usize = 10_000;
/// Size of the very large one, measured and reported (issue 6).
const SCRIPT_HUGE_BYTES: usize = 100_000;

// Goals, from issue 3.
const GOAL_EVENT_MS: f64 = 2.0;
const GOAL_FLOOR_RATIO: f64 = 2.0;
const GOAL_OVERSHOOT_MEDIAN_MS: f64 = 1.0;
const GOAL_OVERSHOOT_P99_MS: f64 = 5.0;
const GOAL_OVERSHOOT_MAX_MS: f64 = 20.0;
const GOAL_WAIT_CPU_MS_PER_S: f64 = 2.0;
const GOAL_SCALE_RATIO: f64 = 1.5;
// Issue 9: caller-side overshoot within this much of the reference gate's.
const GOAL_CALLER_OVER_REF_MS: f64 = 2.0;
// Issue 6: what analysing a 10 KB script may add to an event.
const GOAL_SCRIPT_MS: f64 = 1.0;

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
    let reference = Link::Dynamic.compile(out_dir, "bench-ref-gate", REF_GATE_SRC);
    let reference_redis = Link::Dynamic.compile(out_dir, "bench-ref-redis", REF_REDIS_SRC);
    let trampoline = Link::Musl
        .compile(out_dir, "bench-rss", TRAMPOLINE_SRC)
        .or_else(|_| Link::Dynamic.compile(out_dir, "bench-rss", TRAMPOLINE_SRC))
        .expect("rustc builds the RSS trampoline");
    let events = Events::load();
    // The Redis store, on a server on this machine: the default build again
    // (and each build compared with that has it), its gate on the server
    // instead of the files.
    let redis = RedisServer::start();
    let builds = builds(redis.as_ref(), &events, &work.root);
    let node = which("node");
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

    // The contention runs one after the other, the reference first. Each
    // Redis run starts on an emptied database 0 (the default in a URL, so
    // no `SELECT` on connecting).
    let reference_calls = reference.as_ref().ok().map(|gate| {
        eprintln!("bench: contention through the reference gate");
        let dir = work.root.join("contention-ref");
        fs::create_dir_all(&dir).expect("reference gate directory");
        contend(
            &Contenders::reference(gate, &dir.display().to_string(), &dir),
            &events,
        )
    });
    let reference_redis_calls = match (&reference_redis, &redis) {
        (Ok(gate), Some(r)) => {
            eprintln!("bench: contention through the reference gate on Redis");
            r.flush();
            r.command(&["LPUSH", "ref:token", "1"]);
            let dir = work.root.join("contention-ref-redis");
            Some(contend(
                &Contenders::reference(gate, &r.port.to_string(), &dir),
                &events,
            ))
        }
        _ => None,
    };
    let runs: Vec<Contention> = builds
        .iter()
        .enumerate()
        .filter(|(_, b)| b.contend)
        .map(|(i, b)| {
            eprintln!(
                "bench: contention, {CONTENDERS} processes x {CALLS_EACH} calls, {}",
                b.run_label()
            );
            if b.backend.is_some()
                && let Some(r) = &redis
            {
                r.flush();
            }
            let home = Home::new(
                &work.root,
                &format!("contention-{}", b.tag),
                &contention_config(),
            )
            .on(b.backend.clone());
            let mut contenders = Contenders::hook(&home);
            contenders.pre.path = b.path.clone();
            contenders.post.path = b.path.clone();
            let calls = contend(&contenders, &events);
            Contention {
                build: i,
                home,
                calls,
            }
        })
        .collect();

    per_event_section(&mut report, &cases, &floors, &builds, node.is_some());
    admitted_at_once(&mut report, &builds, &homes, &scaled);
    script_section(&mut report, &cases, &builds);
    // Sections 2 to 4 in full for this build, on files and on Redis; the
    // builds compared with it have their rows in 2c.
    for (tag, store) in [("one", None), ("redis", Some("Redis store, loopback"))] {
        if let Some(run) = runs.iter().find(|r| builds[r.build].tag == tag) {
            contention_section(
                &mut report,
                store,
                &run.home,
                &run.calls,
                &cases,
                Group::OneSite(run.build),
            );
        }
    }
    if redis.is_none() {
        report.push_str(
            "`redis-server` is not installed: no Redis rows (`apt-get install -y redis-server`).\n\n",
        );
    }
    let mut references = Vec::new();
    for (label, redis, calls, built) in [
        ("reference gate, files", false, &reference_calls, &reference),
        (
            "reference gate, Redis",
            true,
            &reference_redis_calls,
            &reference_redis,
        ),
    ] {
        if let Err(e) = built {
            let _ = writeln!(report, "No {label}: rustc failed ({e}).\n");
        }
        if let Some(calls) = calls {
            references.push(CallerRun {
                label: label.to_owned(),
                redis,
                home: None,
                calls,
            });
        }
    }
    caller_section(
        &mut report,
        &references,
        &runs
            .iter()
            .map(|r| CallerRun {
                label: builds[r.build].run_label(),
                redis: builds[r.build].backend.is_some(),
                home: Some(&r.home),
                calls: &r.calls,
            })
            .collect::<Vec<_>>(),
    );
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
    tag: String,
    /// Whether it is also timed with a thousand sites and 64 waiters.
    scale: bool,
    /// The backend its homes point at (`PACE_HOOK_BACKEND`); files if none.
    backend: Option<String>,
    /// Whether it also runs the contention scenario.
    contend: bool,
}

impl Build {
    /// How the contention tables name its run.
    fn run_label(&self) -> String {
        match self.backend {
            Some(_) => format!("pace-hook ({})", self.label),
            None => format!("pace-hook ({}), files", self.label),
        }
    }
}

/// One contention run of a build.
struct Contention {
    build: usize,
    home: Home,
    calls: Vec<Call>,
}

/// This build, the static ones `scripts/bench` made, and those to compare
/// with (`PACE_HOOK_BENCH_COMPARE=LABEL=PATH[,LABEL=PATH...]`); with a
/// Redis server, this build on it and each compared build that has the
/// Redis store.
fn builds(redis: Option<&RedisServer>, events: &Events, work: &Path) -> Vec<Build> {
    let named = |var: &str| {
        std::env::var_os(var)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    };
    let build = |label: &str, link, path: PathBuf, tag: &str, backend: Option<String>| Build {
        label: label.to_owned(),
        link,
        path,
        tag: tag.to_owned(),
        scale: backend.is_none() && link == Link::Dynamic,
        contend: link == Link::Dynamic,
        backend,
    };
    let mut builds = vec![build(
        Link::Dynamic.label(),
        Link::Dynamic,
        PathBuf::from(BIN),
        "one",
        None,
    )];
    for (link, var, tag) in [
        (
            Link::StaticGlibc,
            "PACE_HOOK_BENCH_GLIBC_STATIC",
            "glibc-static",
        ),
        (Link::Musl, "PACE_HOOK_BENCH_MUSL", "musl"),
    ] {
        if let Some(path) = named(var) {
            builds.push(build(link.label(), link, path, tag, None));
        }
    }
    let compare = std::env::var("PACE_HOOK_BENCH_COMPARE").unwrap_or_default();
    let compared: Vec<(&str, &str)> = compare
        .split(',')
        .filter_map(|item| item.split_once('='))
        .collect();
    for (i, (label, path)) in compared.iter().enumerate() {
        let tag = format!("cmp{i}");
        let path = PathBuf::from(path);
        builds.push(build(label, Link::Dynamic, path.clone(), &tag, None));
        if let Some(r) = redis
            && speaks_redis(&path, events, work, &tag)
        {
            builds.push(build(
                &format!("{label}, Redis store, loopback"),
                Link::Dynamic,
                path,
                &format!("{tag}-redis"),
                Some(r.url(0)),
            ));
        }
    }
    if let Some(r) = redis {
        builds.push(build(
            "Redis store, loopback",
            Link::Dynamic,
            PathBuf::from(BIN),
            "redis",
            Some(r.url(0)),
        ));
    }
    builds
}

/// Whether the build at `path` has the Redis store: pointed at a port where
/// nothing listens, it blocks a paced event and names the refused
/// connection; a build without the store ignores `PACE_HOOK_BACKEND` and
/// admits the call.
fn speaks_redis(path: &Path, events: &Events, work: &Path, tag: &str) -> bool {
    let home = Home::new(work, &format!("probe-{tag}"), &one_site_config())
        .on(Some("redis://127.0.0.1:1/0".to_owned()));
    let mut child = Command::new(path)
        .env_remove("CLAUDE_PROJECT_DIR")
        .envs(home.env())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {}: {e}", path.display()));
    feed(
        &mut child,
        &events.pre("https://example.com/a").with_id("probe"),
    );
    child.wait_with_output().is_ok_and(|out| {
        out.status.code() == Some(2)
            && String::from_utf8_lossy(&out.stderr).contains("refused the connection")
    })
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

    /// Database `db` of this server.
    fn url(&self, db: u8) -> String {
        format!("redis://127.0.0.1:{}/{db}", self.port)
    }

    /// Empty database 0, so that a run starts on a fresh gate.
    fn flush(&self) {
        self.command(&["FLUSHDB"]);
    }

    /// Run one command on database 0 and read its one-line answer.
    fn command(&self, args: &[&str]) {
        use std::io::{BufRead as _, BufReader};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port))
            .expect("connect to redis-server");
        let mut packed = format!("*{}\r\n", args.len());
        for a in args {
            let _ = write!(packed, "${}\r\n{a}\r\n", a.len());
        }
        stream
            .write_all(packed.as_bytes())
            .expect("send to redis-server");
        let mut answer = String::new();
        BufReader::new(stream)
            .read_line(&mut answer)
            .expect("redis-server answers");
        assert!(!answer.starts_with('-'), "{args:?}: {answer}");
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
    let files: [(&str, Vec<u8>); 14] = [
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
        (
            "script-line.json",
            events.script_line.0.with_id("profile-3"),
        ),
        (
            "script-line-post.json",
            events.script_line.1.with_id("profile-3"),
        ),
        ("script-10k.json", events.script_10k.0.with_id("profile-4")),
        (
            "script-100k.json",
            events.script_100k.0.with_id("profile-5"),
        ),
        (
            "script-10k-post.json",
            events.script_10k.1.with_id("profile-4"),
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
    // An interval of zero: the gate does all its work (the lock, the state,
    // the decision, the write) and every paced event is due at once, even a
    // script's Pre started right after the Post before it. (With 1 ms, a
    // Pre that came within a millisecond of that Post had to queue.)
    "interval = \"0ms\"\n[[site]]\nname = \"s1\"\ndomains = [\"s1.test\"]\n\
     [[site]]\nname = \"two\"\ndomains = [\"two.test\", \"two-cdn.test\"]\n"
        .to_owned()
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
    /// javascript_tool Pre and Post with a one-line script.
    script_line: (Template, Template),
    /// The same with a realistic script of [`SCRIPT_BYTES`].
    script_10k: (Template, Template),
    /// And of [`SCRIPT_HUGE_BYTES`].
    script_100k: (Template, Template),
    /// Bash Pre of a command with no fetcher's name, `$` or `://`: decided
    /// by the shell profile's pre-filter before any parser runs.
    bash_plain: Template,
    /// Its Post.
    bash_plain_post: Template,
    /// Bash Pre of a command the pre-filter sends to the parser (a `$`),
    /// which makes no request.
    bash_parsed: Template,
    /// Bash Pre and Post of one `curl` to one URL.
    bash_curl: (Template, Template),
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
            script_line: Self::script("document.title"),
            script_10k: Self::script(&realistic_script(SCRIPT_BYTES)),
            script_100k: Self::script(&realistic_script(SCRIPT_HUGE_BYTES)),
            bash_plain: Self::bash("PreToolUse.Bash.json", BASH_PLAIN),
            bash_plain_post: Self::bash("PostToolUse.Bash.json", BASH_PLAIN),
            bash_parsed: Self::bash("PreToolUse.Bash.json", BASH_PARSED),
            bash_curl: (
                Self::bash("PreToolUse.Bash.json", BASH_CURL),
                Self::bash("PostToolUse.Bash.json", BASH_CURL),
            ),
        }
    }

    /// A Bash event of `fixture_name` running `command`.
    fn bash(fixture_name: &str, command: &str) -> Template {
        let mut e = fixture(fixture_name);
        e["tool_input"]["command"] = json!(command);
        e["tool_use_id"] = json!(ID);
        Template::new(&e)
    }

    /// A PreToolUse of javascript_tool running `code` on tab 1, in the
    /// fixture's session (after its navigate), and its PostToolUse.
    fn script(code: &str) -> (Template, Template) {
        let event = |name: &str| {
            let mut e = fixture(name);
            e["tool_input"]["text"] = json!(code);
            e["tool_use_id"] = json!(ID);
            Template::new(&e)
        };
        (
            event("PreToolUse.javascript_tool.json"),
            event("PostToolUse.javascript_tool.json"),
        )
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
        // The result's Tab Context shows the tab where the call took it, as
        // the extension's does: a Post that showed another site would
        // finish the call there too.
        let shown = e["tool_input"]["url"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if let Some(blocks) = e["tool_response"].as_array_mut() {
            for block in blocks {
                if let Some(text) = block["text"].as_str() {
                    block["text"] = json!(text.replace(&shown, url));
                }
            }
        }
        e["tool_input"]["url"] = json!(url);
        e["tool_use_id"] = json!(ID);
        if let Some(session) = session {
            e["session_id"] = json!(session);
        }
        Template::new(&e)
    }
}

/// A script of about `size` bytes in the shape agents write to read a page:
/// helpers that scrape tables, objects, templates, loops and callbacks, and
/// no request, so that the build before the parser (whose scanner blocks a
/// request near a loop) paces it too, on its tab, as today's does. The same
/// shape as `src/script/timing.rs` without its fetch.
fn realistic_script(size: usize) -> String {
    let mut code =
        String::from("const started = performance.now();\nconst origin = location.origin;\n");
    let mut i = 0;
    while code.len() < size {
        let _ = write!(
            code,
            r#"// section {i}: the rows of table {i}
function collect{i}(root) {{
  const rows = [...root.querySelectorAll('tr')].map((tr, n) => {{
    const cells = [...tr.querySelectorAll('td')].map(td => td.textContent.trim());
    return {{ n, id: `row-{i}-${{n}}`, cells, link: tr.querySelector('a')?.href ?? null }};
  }});
  const byKey = {{}};
  for (const row of rows) {{
    if (!row.cells.length) continue;
    const key = row.cells[0].toLowerCase().replace(/\s+/g, '-');
    byKey[key] = (byKey[key] || []).concat(row);
  }}
  return {{ rows, byKey, total: rows.length }};
}}
const summary{i} = collect{i}(document.querySelector('#t{i}') || document.body);
const labels{i} = Object.keys(summary{i}.byKey).sort((a, b) => a.localeCompare(b));
if (labels{i}.length > 3 && summary{i}.total % 2 === 0) {{
  console.log('section {i}', labels{i}.slice(0, 3).join(', '), origin);
}} else {{
  console.debug({{ section: {i}, empty: true }});
}}
"#
        );
        i += 1;
    }
    let _ = writeln!(
        code,
        "JSON.stringify({{ sections: {i}, ms: performance.now() - started }});"
    );
    code
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
        .map(|((i, b), home)| (Group::OneSite(i), b, home, one_url.clone(), b.tag.clone()))
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
        let one_site = matches!(group, Group::OneSite(_));
        add(
            "skip: PreToolUse screenshot",
            group,
            program.clone(),
            &events.skip,
            tag.clone(),
            Some(floor),
        );
        if one_site {
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
            // The shell (issue 19): a command decided before any parser, one
            // parsed that makes no request, and one curl's Pre and Post.
            add(
                "skip: PreToolUse Bash, no fetcher (pre-filter)",
                group,
                program.clone(),
                &events.bash_plain,
                tag.clone(),
                Some(floor),
            );
            add(
                "PostToolUse Bash, no fetcher (pre-filter)",
                group,
                program.clone(),
                &events.bash_plain_post,
                tag.clone(),
                Some(floor),
            );
            add(
                "skip: PreToolUse Bash, parsed, no request",
                group,
                program.clone(),
                &events.bash_parsed,
                format!("{tag}-sh"),
                Some(floor),
            );
            add(
                "paced: PreToolUse Bash, one curl, admitted at once",
                group,
                program.clone(),
                &events.bash_curl.0,
                format!("{tag}-curl"),
                Some(floor),
            );
            add(
                "PostToolUse Bash, one curl",
                group,
                program.clone(),
                &events.bash_curl.1,
                format!("{tag}-curl"),
                Some(floor),
            );
            // Scripts (issue 6), after the navigate's Post, on its tab.
            for (what, (pre, post), tag_end) in [
                (SCRIPT_LINE, &events.script_line, "js1"),
                (SCRIPT_10K, &events.script_10k, "js10k"),
                (SCRIPT_100K, &events.script_100k, "js100k"),
            ] {
                add(
                    &format!("paced: PreToolUse javascript_tool, {what}"),
                    group,
                    program.clone(),
                    pre,
                    format!("{tag}-{tag_end}"),
                    Some(floor),
                );
                add(
                    &format!("PostToolUse javascript_tool, {what}"),
                    group,
                    program.clone(),
                    post,
                    format!("{tag}-{tag_end}"),
                    Some(floor),
                );
            }
        }
        // A configured site with two domains is paced on the key of each
        // (config.rs): a call that takes two sites. The scale run's sites
        // are all like it, so its paced rows are held against these.
        let (two_url, two_tag) = if one_site {
            (TWO_DOMAIN_URL.to_owned(), format!("{tag}-two"))
        } else {
            (url.clone(), tag.clone())
        };
        add(
            TWO_DOMAIN_PRE,
            group,
            program.clone(),
            &events.pre(&two_url),
            two_tag.clone(),
            Some(floor),
        );
        add(
            TWO_DOMAIN_POST,
            group,
            program.clone(),
            &events.post(&two_url),
            two_tag,
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

/// The two-domain site of the one-site config, and its rows.
const TWO_DOMAIN_URL: &str = "https://www.two.test/a";
const TWO_DOMAIN_PRE: &str =
    "paced: PreToolUse navigate to a configured site of two domains, admitted at once";
const TWO_DOMAIN_POST: &str =
    "PostToolUse navigate to a configured site of two domains, with Tab Context";

/// The shell rows' commands (issue 19): what agents run most, a loop over
/// files, and one request.
const BASH_PLAIN: &str = "cargo test --lib 2>&1 | tail -n 20 && git status --short";
const BASH_PARSED: &str = "for f in src/*.rs; do wc -l \"$f\"; done | sort -n | tail -3";
const BASH_CURL: &str = "curl -s https://example.com/a | jq '.items[0]'";

/// How the script rows name their scripts.
const SCRIPT_LINE: &str = "one-line script";
const SCRIPT_10K: &str = "10 KB script";
const SCRIPT_100K: &str = "100 KB script";

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

/// One call of the contention run.
struct Call {
    id: String,
    /// When its Pre process was spawned, from the start of the run.
    spawned: Duration,
    pre: Sample,
    post_code: i32,
    /// When its Pre process had exited (reaped), wall clock, epoch ms.
    pre_exit_ms: f64,
    /// When its Post process was spawned, wall clock, epoch ms.
    post_spawn_ms: f64,
}

/// What the contention run's callers run: pace-hook on a state directory,
/// or the reference gate on a directory of its own.
struct Contenders {
    pre: Program,
    post: Program,
    stderr: PathBuf,
}

impl Contenders {
    fn hook(home: &Home) -> Self {
        let program = Program::hook(Path::new(BIN), home);
        Self {
            pre: program.clone(),
            post: program,
            stderr: home.root.with_extension("contention.stderr"),
        }
    }

    /// A reference gate, its state at `place` (a directory, a port); its
    /// errors go beside `dir`.
    fn reference(gate: &Path, place: &str, dir: &Path) -> Self {
        let with = |step: &str| {
            let mut p = Program::new(gate);
            p.args = vec![
                step.to_owned(),
                place.to_owned(),
                CONTENTION_INTERVAL_MS.to_string(),
            ];
            p
        };
        Self {
            pre: with("pre"),
            post: with("post"),
            stderr: dir.with_extension("stderr"),
        }
    }
}

/// 16 processes, one site: each, an agent of its own, makes its calls in
/// turn, Pre → work → Post. Times are taken on the monotonic clock and put on
/// the wall clock from one reading at the start, so that they line up with
/// the gate log.
fn contend(who: &Contenders, events: &Events) -> Vec<Call> {
    let url = "https://s1.test/page";
    let (pre_program, post_program) = (Arc::new(who.pre.clone()), Arc::new(who.post.clone()));
    let stderr = Arc::new(who.stderr.clone());
    let barrier = Arc::new(Barrier::new(CONTENDERS));
    let start = Instant::now();
    let start_wall_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
        * 1e3;
    let wall = move |at: Duration| start_wall_ms + ms(at);
    let threads: Vec<_> = (0..CONTENDERS)
        .map(|t| {
            let session = format!("bench-contender-{t}");
            let (pre, post) = (events.pre_in(url, &session), events.post_in(url, &session));
            let (pre_program, post_program) = (pre_program.clone(), post_program.clone());
            let (stderr, barrier) = (stderr.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                (0..CALLS_EACH)
                    .map(|k| {
                        let id = format!("c{t:02}-{k}");
                        let spawned = start.elapsed();
                        let pre = pre_program.run(&pre.with_id(&id), &stderr);
                        let pre_exit = start.elapsed();
                        thread::sleep(WORK);
                        let post_spawn = start.elapsed();
                        let post = post_program.run(&post.with_id(&id), &stderr);
                        Call {
                            id,
                            spawned,
                            pre,
                            post_code: post.code,
                            pre_exit_ms: wall(pre_exit),
                            post_spawn_ms: wall(post_spawn),
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
    /// When each site (in `sites` order) let the call in, or had its finish
    /// stamped, where the gate wrote them one after another; `ts` is the
    /// last of them.
    site_ms: Vec<u64>,
}

impl LogLine {
    /// When this line happened on `site`: the gate log keeps each site's
    /// own time for a call on several (`pace-hook gaps` reads them so too).
    fn at(&self, site: &str) -> u64 {
        self.sites
            .iter()
            .position(|s| s == site)
            .and_then(|i| self.site_ms.get(i).copied())
            .unwrap_or(self.ts)
    }
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
            site_ms: v["finished_ms"]
                .as_array()
                .or_else(|| v["admitted_ms"].as_array())
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
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
    lines.sort_by_key(|l| (l.at(site), l.line));
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
                out.gaps.push(l.at(site) as i64 - f as i64);
            }
            in_flight.push(&l.call);
        } else {
            in_flight.retain(|c| *c != l.call);
            let at = l.at(site);
            last_finish = Some(last_finish.map_or(at, |f| f.max(at)));
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
                // The script rows' goal is what the script adds (section 1b);
                // the 100 KB one is reported.
                (Group::OneSite(_), _) if c.name.ends_with(SCRIPT_10K) => "see 1b".to_owned(),
                (Group::OneSite(_), _) if c.name.ends_with(SCRIPT_100K) => "report".to_owned(),
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

/// The caller-side gaps of one contention run: for each call and the next
/// one admitted (the gate lets one call in at a time, so the order of the
/// Pre processes' exits is the order of admission), from the spawn of the
/// call's Post process to the exit of the next call's Pre process, less the
/// interval, ms; and the pairs, as indices into `calls`.
fn caller_gaps(calls: &[Call]) -> (Vec<f64>, Vec<(usize, usize)>) {
    let mut order: Vec<usize> = (0..calls.len()).collect();
    order.sort_by(|a, b| calls[*a].pre_exit_ms.total_cmp(&calls[*b].pre_exit_ms));
    let pairs: Vec<(usize, usize)> = order.windows(2).map(|w| (w[0], w[1])).collect();
    let mut over: Vec<f64> = pairs
        .iter()
        .map(|&(prev, next)| {
            calls[next].pre_exit_ms - calls[prev].post_spawn_ms - CONTENTION_INTERVAL_MS as f64
        })
        .collect();
    over.sort_by(f64::total_cmp);
    (over, pairs)
}

/// A contention run as section 2c reads it.
struct CallerRun<'a> {
    label: String,
    /// On Redis: held against the reference gate on Redis.
    redis: bool,
    /// pace-hook's state directory (its gate log), none for a reference.
    home: Option<&'a Home>,
    calls: &'a [Call],
}

/// Section 2c: the gap as a caller sees it, for pace-hook on each store and
/// for the reference gates, from the same run.
fn caller_section(out: &mut String, references: &[CallerRun<'_>], runs: &[CallerRun<'_>]) {
    let _ = writeln!(
        out,
        "### 2c. Gap precision as a caller sees it\n\n\
         The contention runs above, and the same through minimal reference gates, linked \
         like the default build and run the same way, one after the other: on files a \
         {}-line program (one `flock` for the head of the queue, one for a timestamp file; it \
         polls each millisecond while a call is in flight, then sleeps exactly until one \
         interval after the finish), on Redis a {}-line one (a token list for the head of \
         the queue, one script to look, a wake-up list while a call is in flight, the \
         server's clock; one round trip after the due time). {CONTENDERS} processes, \
         {CALLS_EACH} calls each, interval {CONTENTION_INTERVAL_MS} ms. Each gap is timed by \
         the bench from the spawn of a call's Post process to the exit (as `wait4` returns) of \
         the next admitted call's Pre process; the overshoot is that less the interval. It \
         holds the Post's start-up until it stamps the finish, the wake-up, and the Pre's work \
         and exit after its admission; the reference on the same store pays the same \
         start-ups and round trips, so pace-hook's overshoot minus the reference's is \
         pace-hook's own. Goal (issue 9): median within {GOAL_CALLER_OVER_REF_MS} ms of the \
         reference's. Beside it, the overshoot the gate log shows for the same gaps (whole \
         ms), median / p99.\n\n\
         | gate | gaps | in the log | as the caller sees it: median | p90 | max | median − reference | goal |\n\
         |---|--:|--:|--:|--:|--:|--:|---|",
        REF_GATE_SRC.lines().count(),
        REF_REDIS_SRC.lines().count(),
    );
    let failed = |calls: &[Call]| {
        failed_note(
            calls
                .iter()
                .filter(|c| c.pre.code != 0 || c.post_code != 0)
                .count(),
        )
    };
    let mut medians: Vec<(bool, f64)> = Vec::new();
    for r in references {
        let (over, _) = caller_gaps(r.calls);
        if over.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "| {}{} | {} | | {:.2} ms | {:.2} ms | {:.2} ms | | |",
            r.label,
            failed(r.calls),
            over.len(),
            quantile(&over, 0.5),
            quantile(&over, 0.9),
            over.last().expect("not empty"),
        );
        medians.push((r.redis, quantile(&over, 0.5)));
    }
    let mut parts = String::new();
    for run in runs {
        let (over, pairs) = caller_gaps(run.calls);
        let Some(home) = run.home.filter(|_| !over.is_empty()) else {
            continue;
        };
        let median = quantile(&over, 0.5);
        let (versus, goal) = match medians.iter().find(|(redis, _)| *redis == run.redis) {
            Some((_, r)) => (
                format!("{:+.2} ms", median - r),
                verdict(median - r <= GOAL_CALLER_OVER_REF_MS).to_owned(),
            ),
            None => ("–".to_owned(), "(no reference)".to_owned()),
        };
        // Where it goes, from the gate log's times (whole ms).
        let log = home.log();
        let mut in_log: Vec<i64> = gaps(&log, "s1.test")
            .gaps
            .iter()
            .map(|g| g - CONTENTION_INTERVAL_MS as i64)
            .collect();
        in_log.sort_unstable();
        let in_log = if in_log.is_empty() {
            "–".to_owned()
        } else {
            format!(
                "{} / {} ms",
                quantile(&in_log, 0.5),
                quantile(&in_log, 0.99)
            )
        };
        let _ = writeln!(
            out,
            "| {}{} | {} | {in_log} | {median:.2} ms | {:.2} ms | {:.2} ms | {versus} | {goal} |",
            run.label,
            failed(run.calls),
            over.len(),
            quantile(&over, 0.9),
            over.last().expect("not empty"),
        );
        let id_of = |call: &str| call.rsplit('#').next().unwrap_or(call).to_owned();
        let at = |event: &str| -> HashMap<String, f64> {
            log.iter()
                .filter(|l| l.event == event)
                .map(|l| (id_of(&l.call), l.at("s1.test") as f64))
                .collect()
        };
        let (finish, admit) = (at("finish"), at("admit"));
        let (mut start_up, mut late, mut exit) = (Vec::new(), Vec::new(), Vec::new());
        for &(prev, next) in &pairs {
            let (p, n) = (&run.calls[prev], &run.calls[next]);
            if let (Some(f), Some(a)) = (finish.get(&p.id), admit.get(&n.id)) {
                start_up.push(f - p.post_spawn_ms);
                late.push(a - f - CONTENTION_INTERVAL_MS as f64);
                exit.push(n.pre_exit_ms - a);
            }
        }
        for v in [&mut start_up, &mut late, &mut exit] {
            v.sort_by(f64::total_cmp);
        }
        if !start_up.is_empty() {
            let _ = writeln!(
                parts,
                "- {}: Post spawned → its finish stamped {:.1} ms; finish → admission, beyond \
                 the interval, {:.1} ms; admission → the Pre's exit {:.1} ms (medians of {} \
                 gaps).",
                run.label,
                quantile(&start_up, 0.5),
                quantile(&late, 0.5),
                quantile(&exit, 0.5),
                start_up.len()
            );
        }
    }
    out.push('\n');
    if !parts.is_empty() {
        let _ = writeln!(
            out,
            "Where pace-hook's gap goes, the bench's clock against the gate log's (whole \
             milliseconds: finishes rounded up, admissions down):\n\n{parts}"
        );
    }
}

/// Section 1b: what analysing a script adds to a PreToolUse, per build: the
/// 10 KB script's row against the one-line script's, same rounds.
fn script_section(out: &mut String, cases: &[Case], builds: &[Build]) {
    let _ = writeln!(
        out,
        "### 1b. Scripts\n\n\
         The javascript_tool rows above: a PreToolUse on the navigate's tab with a one-line \
         script (`document.title`) and with a {}-byte script in the shape agents write to \
         read a page (helpers, loops, callbacks, templates, no request), each followed by its \
         Post; both builds pace both on the tab. The difference between the two Pre rows is \
         what reading and analysing 10 KB of script adds to an event. Goal (issue 6): at most \
         {GOAL_SCRIPT_MS} ms. The {}-byte script, the same shape ten times over, is \
         reported.\n\n\
         | build | navigate Pre | one-line script Pre | 10 KB script Pre | 10 KB − one-line, wall | CPU | goal | 100 KB script Pre | 100 KB − one-line, wall | CPU |\n\
         |---|--:|--:|--:|--:|--:|---|--:|--:|--:|",
        realistic_script(SCRIPT_BYTES).len(),
        realistic_script(SCRIPT_HUGE_BYTES).len()
    );
    for (i, b) in builds.iter().enumerate() {
        let row = |name: &str| {
            cases
                .iter()
                .find(|c| c.group == Group::OneSite(i) && c.name == name)
                .map(summary)
        };
        let (Some(nav), Some(line), Some(big), Some(huge)) = (
            row("paced: PreToolUse navigate, admitted at once"),
            row(&format!("paced: PreToolUse javascript_tool, {SCRIPT_LINE}")),
            row(&format!("paced: PreToolUse javascript_tool, {SCRIPT_10K}")),
            row(&format!("paced: PreToolUse javascript_tool, {SCRIPT_100K}")),
        ) else {
            continue;
        };
        let added = big.median - line.median;
        let _ = writeln!(
            out,
            "| {} | {:.2} ms | {:.2} ms | {:.2} ms | {added:+.2} ms | {:+.2} ms | {} | {:.2} ms | {:+.2} ms | {:+.2} ms |",
            b.label,
            nav.median,
            line.median,
            big.median,
            big.cpu - line.cpu,
            verdict(added <= GOAL_SCRIPT_MS),
            huge.median,
            huge.median - line.median,
            huge.cpu - line.cpu,
        );
    }
    out.push('\n');
}

fn gaps_command(home: &Home) -> Option<String> {
    let out = Command::new(BIN)
        .arg("gaps")
        .envs(home.env())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text
        .lines()
        .rev()
        .find(|l| l.contains("under the interval"))?
        .trim();
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
         the one-site home (two configured sites, no waiters); same rounds, interleaved. A \
         navigate to a configured site of two domains is paced on the key of each, so it is \
         held against the same navigate there, not against the one-key navigate of section 1 \
         (the run of 2026-12-01 did that, and read the cost of a second key as the cost of \
         scale). Goal: median within {GOAL_SCALE_RATIO}× of the one-site case.\n\n\
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
