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
//! (keep them); `PACE_HOOK_BENCH_CURVES` (`0`: no scale curves, `only`: only
//! them) and `PACE_HOOK_BENCH_CURVE_MAX` (their most sites, default 100000):
//! see `curves.rs`, which writes `docs/scale-curves.svg`.
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

mod contention;
mod curves;
mod events;
mod process;
mod redis_server;
mod report;
mod scale;
mod setup;

use contention::*;
use curves::*;
use events::*;
use process::*;
use redis_server::*;
use report::*;
use scale::*;
use setup::*;

/// The release build of pace-hook that cargo built for this bench.
const BIN: &str = env!("CARGO_BIN_EXE_pace-hook");
/// Captured Claude Code events.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
/// The floor: the least any Rust hook can cost. It reads its stdin, as a hook
/// must, and exits.
const FLOOR_SRC: &str = include_str!("../reference/floor.rs");
/// The bare floor: the floor started at its own C `main`, as pace-hook is on
/// Linux with glibc. Shown beside the floor; the ratios stay against the
/// floor, the ordinary Rust program the goals name.
const FLOOR_BARE_SRC: &str = include_str!("../reference/floor_bare.rs");
/// The floor plus the least step an admission takes with a site's state:
/// on files one locked read and write, on Redis one script in one round trip
/// (`floor-step files DIR`, `floor-step redis PORT`). Section 1c holds
/// pace-hook's Redis − files against the same difference of these two.
const FLOOR_STEP_SRC: &str = include_str!("../reference/floor_step.rs");
/// Measures peak RSS: runs its arguments as a command, stdin inherited, and
/// prints the child's `ru_maxrss` (KiB). `wait4` in the bench cannot: a child
/// spawned from it starts with the bench's own high-water mark, which `exec`
/// keeps. Built static where it can be, so that its own mark stays under any
/// child's.
const TRAMPOLINE_SRC: &str = include_str!("../reference/trampoline.rs");
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
const REF_GATE_SRC: &str = include_str!("../reference/ref_gate.rs");
/// The reference gate on Redis, for the Redis store's caller-side gap: the
/// same job as [`REF_GATE_SRC`] with its state on the server, in plain RESP
/// over one connection (`ref-redis pre|post PORT INTERVAL_MS`). The head of
/// the queue holds a token taken with `BLPOP` (which Redis serves first come,
/// first served) and passes it on when it exits; it looks at the state with
/// one script, waits on a wake-up list while a call is in flight, sleeps
/// until one interval after the finish by the server's clock, and marks the
/// site busy. A Post stamps the finish with the server's `TIME` and pushes
/// the wake-up. One round trip after the due time, as any Redis gate needs.
const REF_REDIS_SRC: &str = include_str!("../reference/ref_redis.rs");
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

// Goals, from issues 3 and 21. Issue 21 put the per-event goal back to what
// the core once met: 1.1× the floor, whatever the floor's own time.
const GOAL_FLOOR_RATIO: f64 = 1.1;
/// Issue 21: a paced navigate on Redis over loopback, against the same
/// event of the same build on files.
const GOAL_REDIS_RATIO: f64 = 1.3;
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
    // The floors run from copies too, as the builds do (`installed`).
    let floors_of =
        |links: &[Link], name: &str, src: &str| -> Vec<(Link, Result<PathBuf, String>)> {
            links
                .iter()
                .map(|&link| {
                    let floor = link.compile(out_dir, &format!("bench-{name}"), src);
                    let tag = format!("{name}-{}", link.tag());
                    (link, floor.map(|f| installed(&work.root, &tag, &f)))
                })
                .collect()
        };
    let glibc = [Link::Dynamic, Link::StaticGlibc];
    let floors = floors_of(&Link::ALL, "floor", FLOOR_SRC);
    let bare_floors = floors_of(&glibc, "floor-bare", FLOOR_BARE_SRC);
    let step_floors = floors_of(&glibc, "floor-step", FLOOR_STEP_SRC);
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
    let mut own_servers = Vec::new();
    let builds = builds(redis.as_ref(), &mut own_servers, &events, &work.root);
    let node = which("node");
    let started = SystemTime::now();

    let mut report = String::new();
    let _ = writeln!(report, "## Run of {}\n", utc(started));
    machine(&mut report, &work.root, rounds);
    let curves = std::env::var("PACE_HOOK_BENCH_CURVES").unwrap_or_default();
    if curves == "only" {
        curves_report(&mut report, &events, &work.root, redis.as_ref());
        print!("{report}");
        return;
    }

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
    let mut cases = per_event_cases(
        &events,
        &floors,
        &bare_floors,
        &Steps {
            floors: &step_floors,
            dir: &work.root,
            redis_port: redis.as_ref().map(RedisServer::port),
        },
        &builds,
        &homes,
        &scales,
        node.as_deref(),
    );
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
                &Contenders::reference(gate, &r.port().to_string(), &dir),
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
            if let Some(url) = &b.backend
                && let Some(r) = redis.iter().chain(&own_servers).find(|r| r.url(0) == *url)
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
    redis_section(&mut report, &cases, &builds);
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
    if curves != "0" {
        curves_report(&mut report, &events, &work.root, redis.as_ref());
    }
    let took = started.elapsed().unwrap_or_default();
    let _ = writeln!(report, "Whole run: {:.0} s.", took.as_secs_f64());
    print!("{report}");
}

/// Section 6: the curves, their section of the report, and their chart
/// written to `docs/scale-curves.svg` beside BENCHMARKS.md.
fn curves_report(report: &mut String, events: &Events, work: &Path, redis: Option<&RedisServer>) {
    let (curves, took) = run_curves(events, work, redis);
    let svg = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scale-curves.svg");
    if let Err(e) = fs::write(&svg, curves_svg(&curves)) {
        eprintln!("bench: {}: {e}", svg.display());
    }
    curves_section(report, &curves, took, "scale-curves.svg");
}

/// One build of pace-hook to time.
struct Build {
    /// How the report names it.
    label: String,
    /// Which floor it is held against.
    link: Link,
    /// The copy it runs from (`installed`).
    path: PathBuf,
    /// The binary it was copied from: a build on Redis and the same build on
    /// files share it.
    source: PathBuf,
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
///
/// A compared build on Redis gets a server of its own, started into
/// `own_servers`: builds interleaved on one database would read each
/// other's state (an older build reads a newer one's tab notes as a map it
/// cannot read), and another database costs a `SELECT` on connecting.
fn builds(
    redis: Option<&RedisServer>,
    own_servers: &mut Vec<RedisServer>,
    events: &Events,
    work: &Path,
) -> Vec<Build> {
    let named = |var: &str| {
        std::env::var_os(var)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    };
    let build = |label: &str, link, path: PathBuf, tag: &str, backend: Option<String>| Build {
        label: label.to_owned(),
        link,
        path: installed(work, tag, &path),
        source: path,
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
            builds.push(build(link.label(), link, path.clone(), tag, None));
            // The build scripts/install makes, on Redis too: what a user
            // who paces across machines runs.
            if link == Link::StaticGlibc
                && let Some(r) = redis
            {
                builds.push(build(
                    &format!("{}, Redis store, loopback", link.label()),
                    link,
                    path,
                    &format!("{tag}-redis"),
                    Some(r.url(0)),
                ));
            }
        }
    }
    let compare = std::env::var("PACE_HOOK_BENCH_COMPARE").unwrap_or_default();
    let compared: Vec<(&str, &str)> = compare
        .split(',')
        .filter_map(|item| item.split_once('='))
        .collect();
    for (i, (label, path)) in compared.iter().enumerate() {
        let tag = format!("cmp{i}");
        // `static:PATH`: a static glibc build, held against the static floor.
        let (link, path) = match path.strip_prefix("static:") {
            Some(path) => (Link::StaticGlibc, PathBuf::from(path)),
            None => (Link::Dynamic, PathBuf::from(path)),
        };
        builds.push(build(label, link, path.clone(), &tag, None));
        if link == Link::Dynamic
            && redis.is_some()
            && speaks_redis(&path, events, work, &tag)
            && let Some(own) = RedisServer::start()
        {
            builds.push(build(
                &format!("{label}, Redis store, loopback"),
                Link::Dynamic,
                path,
                &format!("{tag}-redis"),
                Some(own.url(0)),
            ));
            own_servers.push(own);
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

/// How a binary is linked. The floor is built each way, so that each build of
/// pace-hook is compared with the least a binary linked like it can cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    /// The default: glibc, dynamically linked.
    Dynamic,
    /// glibc, statically linked, as `scripts/install` builds it
    /// (`scripts/install --print-rustflags`).
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
            // Linked as `.cargo/config.toml` links the checkout's builds.
            Link::Dynamic
                if cfg!(all(
                    target_arch = "x86_64",
                    target_os = "linux",
                    target_env = "gnu"
                )) =>
            {
                let layout = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/layout");
                c.arg("-C").arg(format!("linker={}", layout.display()));
            }
            Link::Dynamic => {}
            Link::StaticGlibc => {
                c.args(static_glibc_flags()?);
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

/// The flags of the static glibc build `scripts/install` makes, so that its
/// floor is linked as the build a user installs.
fn static_glibc_flags() -> Result<Vec<String>, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install");
    let out = Command::new("sh")
        .arg(&script)
        .arg("--print-rustflags")
        .output()
        .map_err(|e| format!("{}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!("{} --print-rustflags failed", script.display()));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect())
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
    let files: [(&str, Vec<u8>); 17] = [
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
        ("bash-parsed.json", events.bash_parsed.with_id("profile-8")),
        ("curl.json", events.bash_curl.0.with_id("profile-7")),
        ("curl-post.json", events.bash_curl.1.with_id("profile-7")),
        ("one-site.toml", one_site_config().into_bytes()),
        ("scale.toml", scale_config().into_bytes()),
        ("contention.toml", contention_config().into_bytes()),
    ];
    for (name, bytes) in files {
        let path = dir.join(name);
        fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    // The script sizes of the curves, for counting the analysis by size.
    for kb in SCRIPT_KB {
        let path = dir.join(format!("script-{kb}kb.json"));
        let pre = Events::script(&realistic_script(kb * 1000)).0;
        fs::write(&path, pre.with_id("profile-6"))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
