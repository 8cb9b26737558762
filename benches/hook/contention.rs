//! Gaps under contention, fairness, and the caller-side gap beside the
//! reference gates.

#[allow(unused_imports)]
use super::*;

/// One call of the contention run.
pub(crate) struct Call {
    pub(crate) id: String,
    /// When its Pre process was spawned, from the start of the run.
    pub(crate) spawned: Duration,
    pub(crate) pre: Sample,
    pub(crate) post_code: i32,
    /// When its Pre process had exited (reaped), wall clock, epoch ms.
    pub(crate) pre_exit_ms: f64,
    /// When its Post process was spawned, wall clock, epoch ms.
    pub(crate) post_spawn_ms: f64,
}

/// What the contention run's callers run: pace-hook on a state directory,
/// or the reference gate on a directory of its own.
pub(crate) struct Contenders {
    pub(crate) pre: Program,
    pub(crate) post: Program,
    pub(crate) stderr: PathBuf,
}

impl Contenders {
    pub(crate) fn hook(home: &Home) -> Self {
        let program = Program::hook(Path::new(BIN), home);
        Self {
            pre: program.clone(),
            post: program,
            stderr: home.root.with_extension("contention.stderr"),
        }
    }

    /// A reference gate, its state at `place` (a directory, a port); its
    /// errors go beside `dir`.
    pub(crate) fn reference(gate: &Path, place: &str, dir: &Path) -> Self {
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
pub(crate) fn contend(who: &Contenders, events: &Events) -> Vec<Call> {
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
pub(crate) struct LogLine {
    pub(crate) line: usize,
    pub(crate) ts: u64,
    pub(crate) event: String,
    pub(crate) call: String,
    pub(crate) sites: Vec<String>,
    pub(crate) waited_ms: Option<u64>,
    pub(crate) tickets: Vec<Option<u64>>,
    pub(crate) reason: Option<String>,
    /// When each site (in `sites` order) let the call in, or had its finish
    /// stamped, where the gate wrote them one after another; `ts` is the
    /// last of them.
    pub(crate) site_ms: Vec<u64>,
}

impl LogLine {
    /// When this line happened on `site`: the gate log keeps each site's
    /// own time for a call on several (`pace-hook gaps` reads them so too).
    pub(crate) fn at(&self, site: &str) -> u64 {
        self.sites
            .iter()
            .position(|s| s == site)
            .and_then(|i| self.site_ms.get(i).copied())
            .unwrap_or(self.ts)
    }
}

impl LogLine {
    pub(crate) fn from_json(line: usize, v: &Value) -> Self {
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
pub(crate) struct Gaps {
    /// Finish → next admission, ms.
    pub(crate) gaps: Vec<i64>,
    /// Admissions while another call on the site had not finished.
    pub(crate) overlaps: usize,
}

pub(crate) fn gaps(log: &[LogLine], site: &str) -> Gaps {
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
pub(crate) fn inversions<T: PartialOrd>(order: &[T]) -> usize {
    let mut n = 0;
    for (i, a) in order.iter().enumerate() {
        n += order[i + 1..].iter().filter(|b| *b < a).count();
    }
    n
}

/// How many of the paced events timed in `home` (ids starting `prefix`) were
/// admitted, and how many of those had to queue.
pub(crate) fn queued_admissions(home: &Home, prefix: &str) -> (usize, usize) {
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

pub(crate) fn admitted_at_once(
    out: &mut String,
    builds: &[Build],
    homes: &[Home],
    scaled: &[Scaled],
) {
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
pub(crate) fn contention_section(
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
pub(crate) fn caller_gaps(calls: &[Call]) -> (Vec<f64>, Vec<(usize, usize)>) {
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
pub(crate) struct CallerRun<'a> {
    pub(crate) label: String,
    /// On Redis: held against the reference gate on Redis.
    pub(crate) redis: bool,
    /// pace-hook's state directory (its gate log), none for a reference.
    pub(crate) home: Option<&'a Home>,
    pub(crate) calls: &'a [Call],
}

/// Section 2c: the gap as a caller sees it, for pace-hook on each store and
/// for the reference gates, from the same run.
pub(crate) fn caller_section(
    out: &mut String,
    references: &[CallerRun<'_>],
    runs: &[CallerRun<'_>],
) {
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
