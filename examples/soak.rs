//! The chaos soak (`scripts/soak`): many concurrent callers drive the real
//! `pace-hook` binary as Claude Code would (Pre, work, Post), while the soak
//! kills and stops them at random points and now and then tears a site's
//! state file. Then two checkers judge the run:
//!
//! - from the outside, on the callers' own clock: a request starts when its
//!   Pre process exits (the caller only then sends it) and ends when its Post
//!   process starts; every request must start at least the interval after
//!   the previous request to the same site ended. The gate counts a call as
//!   ended at the latest when its hold runs out (a Post later than that is
//!   late by design: the hold is what stands in for it) or when its agent's
//!   next Pre begins (the same-agent rule), so a request's end is the
//!   earliest of those;
//! - from the inside: `pace-hook gaps` over the gate log.
//!
//! Usage: `soak BINARY --seconds N [--callers N]`. Prints a report and exits
//! 1 if either checker found a violation.

use std::{
    collections::BTreeMap,
    fs,
    io::{Read, Write},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    thread,
    time::{Duration, Instant},
};

const SITES: [&str; 3] = ["a.test", "b.test", "c.test"];
const INTERVAL_MS: u64 = 150;
const HOLD_MS: u64 = 1_500;
const MAX_WAIT: &str = "20s";

/// One call as its caller saw it, times in ms since the soak started.
#[derive(Debug, Clone)]
struct Seen {
    agent: usize,
    call: String,
    /// When the Pre process was spawned.
    pre_spawn: u64,
    /// When it exited 0 (the request starts), if it did.
    admitted: Option<u64>,
    /// When the Post process was spawned (the request had ended), if one was.
    post_spawn: Option<u64>,
    /// The Pre was stopped (SIGSTOP) for a while.
    stopped: bool,
}

#[derive(Default)]
struct Counts {
    pres: AtomicU64,
    admitted: AtomicU64,
    blocked: AtomicU64,
    killed: AtomicU64,
    stopped: AtomicU64,
    stopped_then_killed: AtomicU64,
    posts: AtomicU64,
    failures: AtomicU64,
    no_post: AtomicU64,
    torn: AtomicU64,
}

/// A small xorshift generator: the soak needs chaos, not cryptography.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

struct Soak {
    bin: PathBuf,
    home: PathBuf,
    config: PathBuf,
    start: Instant,
    seen: Mutex<Vec<Seen>>,
    counts: Counts,
    stop: AtomicBool,
    /// Blocked Pre processes, by what they said.
    blocks: Mutex<BTreeMap<String, u64>>,
}

impl Soak {
    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn spawn(&self, event: &serde_json::Value) -> Child {
        let mut child = Command::new(&self.bin)
            .env("PACE_HOOK_HOME", &self.home)
            .env("PACE_HOOK_CONFIG", &self.config)
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn pace-hook");
        let bytes = serde_json::to_vec(event).unwrap();
        let mut stdin = child.stdin.take().unwrap();
        thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        child
    }

    fn caller(&self, agent: usize, seed: u64) {
        let mut rng = Rng::new(seed);
        let session = format!("soak-{agent}");
        let mut n = 0;
        while !self.stop.load(Ordering::Relaxed) {
            n += 1;
            let id = format!("t{agent}-{n}");
            let tool_input = if rng.chance(15) {
                // A click on a tab nobody has seen: every known site.
                serde_json::json!({"action": "left_click", "coordinate": [1, 1], "tabId": 1000 + agent})
            } else {
                let site = SITES[rng.below(SITES.len() as u64) as usize];
                serde_json::json!({"url": format!("https://www.{site}/p{n}")})
            };
            let tool = if tool_input.get("url").is_some() {
                "mcp__claude-in-chrome__navigate"
            } else {
                "mcp__claude-in-chrome__computer"
            };
            let pre = serde_json::json!({
                "session_id": session, "hook_event_name": "PreToolUse",
                "tool_name": tool, "tool_input": tool_input, "tool_use_id": id,
            });
            let pre_spawn = self.now();
            self.counts.pres.fetch_add(1, Ordering::Relaxed);
            let mut child = self.spawn(&pre);
            // Chaos at a random point of the Pre's life, from another thread,
            // so that this caller sees the Pre's exit when it happens. Signals
            // go through a pidfd: never to another process that reused the pid.
            let pidfd = pidfd(child.id());
            let roll = rng.below(100);
            let stopped = (4..9).contains(&roll);
            let (first, pause) = (rng.below(2_000), 500 + rng.below(6_000));
            let chaos = (roll < 9).then(|| {
                thread::spawn(move || {
                    thread::sleep(Duration::from_millis(first));
                    if roll < 4 {
                        return signal(pidfd, libc::SIGKILL);
                    }
                    let stopped = signal(pidfd, libc::SIGSTOP);
                    thread::sleep(Duration::from_millis(pause));
                    if roll == 8 && stopped {
                        signal(pidfd, libc::SIGKILL);
                    }
                    signal(pidfd, libc::SIGCONT);
                    stopped
                })
            });
            let status = child.wait().expect("wait");
            let exited = self.now();
            let hit = chaos.map(|t| t.join().unwrap_or(false)).unwrap_or(false);
            // SAFETY: our own pidfd, closed once.
            unsafe { libc::close(pidfd) };
            let killed = status.code().is_none();
            if hit && roll < 4 {
                self.counts.killed.fetch_add(1, Ordering::Relaxed);
            } else if hit {
                self.counts.stopped.fetch_add(1, Ordering::Relaxed);
                if killed {
                    self.counts
                        .stopped_then_killed
                        .fetch_add(1, Ordering::Relaxed);
                }
            }
            let stopped = stopped && hit;
            let mut seen = Seen {
                agent,
                call: id.clone(),
                pre_spawn,
                admitted: None,
                post_spawn: None,
                stopped,
            };
            if killed || status.code() != Some(0) {
                if !killed {
                    self.counts.blocked.fetch_add(1, Ordering::Relaxed);
                    // Why, by its wording with the numbers blanked: a block
                    // is the safe answer, but how often each comes tells
                    // which chaos costs the callers what.
                    let mut why = String::new();
                    if let Some(mut err) = child.stderr.take() {
                        let _ = err.read_to_string(&mut why);
                    }
                    let kind: String = why
                        .trim()
                        .chars()
                        .map(|c| if c.is_ascii_digit() { '#' } else { c })
                        .take(90)
                        .collect();
                    *self.blocks.lock().unwrap().entry(kind).or_default() += 1;
                }
                self.seen.lock().unwrap().push(seen);
                continue;
            }
            self.counts.admitted.fetch_add(1, Ordering::Relaxed);
            seen.admitted = Some(exited);
            // The request itself.
            thread::sleep(Duration::from_millis(rng.below(120)));
            let post_roll = rng.below(100);
            if post_roll < 12 {
                self.counts.no_post.fetch_add(1, Ordering::Relaxed);
                self.seen.lock().unwrap().push(seen);
                continue;
            }
            let mut post = pre.clone();
            if post_roll < 20 {
                post["hook_event_name"] = "PostToolUseFailure".into();
                post["error"] = "Error: element not found".into();
                self.counts.failures.fetch_add(1, Ordering::Relaxed);
            } else {
                post["hook_event_name"] = "PostToolUse".into();
                post["tool_response"] = serde_json::json!([{"type": "text", "text": "done"}]);
                self.counts.posts.fetch_add(1, Ordering::Relaxed);
            }
            seen.post_spawn = Some(self.now());
            let _ = self.spawn(&post).wait();
            self.seen.lock().unwrap().push(seen);
            thread::sleep(Duration::from_millis(rng.below(300)));
        }
    }

    fn tearer(&self, seed: u64) {
        let mut rng = Rng::new(seed);
        while !self.stop.load(Ordering::Relaxed) {
            thread::sleep(Duration::from_millis(3_000 + rng.below(4_000)));
            let site = SITES[rng.below(SITES.len() as u64) as usize];
            if let Some(url) = std::env::var("PACE_HOOK_BACKEND")
                .ok()
                .filter(|u| u.starts_with("redis"))
            {
                // The shared store's state of the site, torn the same way.
                let torn = Command::new("redis-cli")
                    .args([
                        "-u",
                        &url,
                        "SET",
                        &format!("pace-hook:site:{site}"),
                        "{\"site\": \"a",
                    ])
                    .stdout(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success());
                if torn {
                    self.counts.torn.fetch_add(1, Ordering::Relaxed);
                }
                continue;
            }
            let path = self.home.join("sites").join(site).join("state.json");
            if let Ok(bytes) = fs::read(&path)
                && !bytes.is_empty()
            {
                let cut = rng.below(bytes.len() as u64) as usize;
                if fs::write(&path, &bytes[..cut]).is_ok() {
                    self.counts.torn.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
}

/// A pidfd for `pid` (Linux 5.3+): signals sent through it can only reach
/// that process, even after it has exited and its pid was reused.
fn pidfd(pid: u32) -> libc::c_int {
    // SAFETY: plain syscall.
    unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) as libc::c_int }
}

/// Send `sig` through `pidfd`; whether it reached a process still running.
fn signal(pidfd: libc::c_int, sig: libc::c_int) -> bool {
    // SAFETY: plain syscall; a dead process answers ESRCH.
    unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd,
            sig,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        ) == 0
    }
}

/// The outside check: every request, per site, against the one before it.
fn check(seen: &[Seen], sites_of: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut violations = Vec::new();
    let mut per_site: BTreeMap<&str, Vec<&Seen>> = BTreeMap::new();
    for s in seen.iter().filter(|s| s.admitted.is_some()) {
        for site in sites_of.get(&s.call).into_iter().flatten() {
            per_site.entry(site.as_str()).or_default().push(s);
        }
    }
    for (site, mut calls) in per_site {
        calls.sort_by_key(|s| s.admitted);
        for pair in calls.windows(2) {
            let (prev, next) = (pair[0], pair[1]);
            // The earliest the gate may count the previous request as ended:
            // its Post, its hold running out (counted from its Pre's start,
            // before which it cannot have been admitted), or its agent's
            // next Pre.
            let next_pre_of_agent = seen
                .iter()
                .filter(|s| s.agent == prev.agent && s.pre_spawn > prev.pre_spawn)
                .map(|s| s.pre_spawn)
                .min()
                .unwrap_or(u64::MAX);
            let ended = prev
                .post_spawn
                .unwrap_or(u64::MAX)
                .min(prev.pre_spawn + HOLD_MS)
                .min(next_pre_of_agent);
            let start = next.admitted.unwrap();
            if start < ended + INTERVAL_MS {
                violations.push(format!(
                    "{site}: {} started {} ms after {} ended (interval {INTERVAL_MS} ms){}",
                    next.call,
                    start as i64 - ended as i64,
                    prev.call,
                    if prev.stopped || next.stopped {
                        "; a Pre of these was SIGSTOPped"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    violations
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bin = PathBuf::from(args.first().expect("usage: soak BINARY --seconds N"));
    let arg = |name: &str, default: u64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let seconds = arg("--seconds", 60);
    let callers = arg("--callers", 16) as usize;
    let seed = arg("--seed", 0x5eed_cafe);
    let work = std::env::temp_dir().join(format!("pace-hook-soak-{}", std::process::id()));
    let _ = fs::remove_dir_all(&work);
    fs::create_dir_all(&work).unwrap();
    let config = work.join("config.toml");
    fs::write(
        &config,
        format!(
            "interval = \"{INTERVAL_MS}ms\"\nin_flight_hold = \"{HOLD_MS}ms\"\nmax_wait = \"{MAX_WAIT}\"\nstale_after = \"60s\"\n"
        ),
    )
    .unwrap();
    let soak = Arc::new(Soak {
        bin,
        home: work.join("home"),
        config,
        start: Instant::now(),
        seen: Mutex::new(Vec::new()),
        counts: Counts::default(),
        stop: AtomicBool::new(false),
        blocks: Mutex::new(BTreeMap::new()),
    });
    let mut threads = Vec::new();
    for agent in 0..callers {
        let s = soak.clone();
        threads.push(thread::spawn(move || {
            s.caller(agent, seed ^ (agent as u64 * 7919))
        }));
    }
    {
        let s = soak.clone();
        threads.push(thread::spawn(move || s.tearer(seed ^ 0xdead)));
    }
    thread::sleep(Duration::from_secs(seconds));
    soak.stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    report(&soak, seconds, callers, &work);
}

fn report(soak: &Soak, seconds: u64, callers: usize, work: &Path) {
    let log = fs::read_to_string(soak.home.join("gate.log")).unwrap_or_default();
    let mut sites_of: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in log.lines() {
        let Ok(r) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if r["event"] == "admit"
            && let Some(call) = r["call"].as_str()
        {
            let id = call.rsplit('#').next().unwrap_or(call).to_owned();
            let sites = r["sites"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            sites_of.insert(id, sites);
        }
    }
    let seen = soak.seen.lock().unwrap().clone();
    let outside = check(&seen, &sites_of);
    let gaps = Command::new(&soak.bin)
        .arg("gaps")
        .env("PACE_HOOK_HOME", &soak.home)
        .env("PACE_HOOK_CONFIG", &soak.config)
        .output()
        .expect("run gaps");
    let gaps_text = String::from_utf8_lossy(&gaps.stdout);
    let short_inside = gaps_text.lines().filter(|l| l.ends_with("SHORT")).count();
    let c = &soak.counts;
    let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
    println!(
        "pace-hook soak: {seconds} s, {callers} callers, sites {SITES:?}, interval {INTERVAL_MS} ms, hold {HOLD_MS} ms, store {}",
        std::env::var("PACE_HOOK_BACKEND").unwrap_or_else(|_| "files".to_owned())
    );
    println!(
        "  Pre processes {}: admitted {}, blocked {}, SIGKILLed {}, SIGSTOPped {} (of which then killed {})",
        n(&c.pres),
        n(&c.admitted),
        n(&c.blocked),
        n(&c.killed),
        n(&c.stopped),
        n(&c.stopped_then_killed)
    );
    let mut blocks: Vec<(u64, String)> = soak
        .blocks
        .lock()
        .unwrap()
        .iter()
        .map(|(k, n)| (*n, k.clone()))
        .collect();
    blocks.sort_by(|a, b| b.cmp(a));
    for (count, kind) in blocks.iter().take(8) {
        println!("    blocked {count}: {kind}…");
    }
    println!(
        "  Posts {}, PostToolUseFailures {}, no Post {}; state files torn {}",
        n(&c.posts),
        n(&c.failures),
        n(&c.no_post),
        n(&c.torn)
    );
    println!(
        "  requests checked from outside: {}; violations: {}",
        seen.iter().filter(|s| s.admitted.is_some()).count(),
        outside.len()
    );
    for v in outside.iter().take(20) {
        println!("    {v}");
    }
    println!(
        "  pace-hook gaps: exit {:?}, {} short gap(s) in the gate log",
        gaps.status.code(),
        short_inside
    );
    if !outside.is_empty() || !gaps.status.success() {
        for l in gaps_text.lines().filter(|l| l.ends_with("SHORT")).take(20) {
            println!("    {l}");
        }
        println!("  kept the state in {}", work.display());
        std::process::exit(1);
    }
    let _ = fs::remove_dir_all(work);
}
