//! Scale: a thousand sites, and waiters on them.

#[allow(unused_imports)]
use super::*;

/// A build's thousand-site state directory and the processes waiting in it.
pub(crate) struct Scale {
    pub(crate) build: usize,
    pub(crate) home: Home,
    pub(crate) waiters: Waiters,
}

/// What is left of a [`Scale`] once its waiters are stopped.
pub(crate) struct Scaled {
    pub(crate) build: usize,
    /// Paced events timed at scale, and how many of them queued.
    pub(crate) queued: (usize, usize),
    pub(crate) size: DirSize,
    pub(crate) one_size: DirSize,
    pub(crate) still_waiting: usize,
    pub(crate) waited: Waited,
}

/// Give each of the scale run's sites a state, as if each had had a call.
pub(crate) fn populate(bin: &Path, home: &Home, events: &Events) {
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
pub(crate) struct Waiters {
    pub(crate) children: Vec<(Child, Instant)>,
}

pub(crate) struct Waited {
    pub(crate) count: usize,
    pub(crate) cpu: Duration,
    pub(crate) waited: Duration,
    /// VmHWM of each, read while it waits.
    pub(crate) rss_kib: Vec<u64>,
}

impl Waiters {
    pub(crate) fn start(bin: &Path, home: &Home, events: &Events) -> Self {
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
    pub(crate) fn still_waiting(&self) -> usize {
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

    pub(crate) fn stop(mut self) -> Waited {
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

/// Sizes of a state directory.
pub(crate) struct DirSize {
    pub(crate) files: u64,
    pub(crate) dirs: u64,
    pub(crate) bytes: u64,
    pub(crate) disk: u64,
}

impl DirSize {
    pub(crate) fn of(root: &Path) -> Self {
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

pub(crate) fn gaps_command(home: &Home) -> Option<String> {
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

pub(crate) fn scale_section(out: &mut String, cases: &[Case], builds: &[Build], scaled: &[Scaled]) {
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
