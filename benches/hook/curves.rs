//! Scale as curves (issue 21): one event's cost against each thing that
//! grows — configured sites, sites with state, processes waiting on one site
//! and on many, the tab map, the script's size — on files and on Redis,
//! drawn log-log so that the shape shows at a glance: flat, logarithmic or
//! linear.
//!
//! Each point is a state directory (or an emptied Redis database) made to
//! that size, one warm-up event, then [`CURVE_ROUNDS`] Pre/Post pairs of a
//! paced navigate admitted at once, timed as the other rows are; the point
//! is the Pre's median wall and CPU time. With waiters, also the CPU the
//! waiters use while they wait, read from `/proc/PID/task/*/schedstat` over
//! [`WAIT_WINDOW`] (nanoseconds on the CPU, start-up excluded).
//!
//! State is made in-process through the library's [`pace_hook::Pacer`] (a
//! call admitted and finished per site, as `pace-hook run` would), which is
//! what a hook event would leave, a hundred times faster than spawning one.
//!
//! Knobs: `PACE_HOOK_BENCH_CURVES=0` skips them; `PACE_HOOK_BENCH_CURVE_MAX`
//! (default 100000) is the largest number of sites.

#[allow(unused_imports)]
use super::*;

/// Pre/Post pairs timed per point.
const CURVE_ROUNDS: usize = 31;
/// How long the waiters' CPU is read for, per point.
const WAIT_WINDOW: Duration = Duration::from_secs(3);
/// The waiter counts.
const WAITERS: [usize; 4] = [1, 8, 64, 512];
/// Tab-map sizes (the map keeps at most 512 tabs).
const TABS: [usize; 4] = [1, 8, 64, 512];
/// The most configured sites a call paced on every known site is timed
/// with: it takes a turn on each site's two keys, so its cost is linear in
/// them by design (a call that could reach any site waits for all of them).
/// Four decades, so that anything worse than linear shows: at 1,000 a
/// quadratic lookup was half the cost and the curve still looked linear.
const EVERY_MAX: usize = 10_000;
/// Script sizes, KB: up to the 256 KiB the hook reads, and one past it.
pub(crate) const SCRIPT_KB: [usize; 5] = [1, 10, 100, 256, 1000];

/// What a curve is drawn against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Axis {
    Sites,
    State,
    WaitOne,
    WaitMany,
    Tabs,
    Script,
    Every,
}

impl Axis {
    pub(crate) const ALL: [Axis; 7] = [
        Axis::Sites,
        Axis::Every,
        Axis::State,
        Axis::WaitOne,
        Axis::WaitMany,
        Axis::Tabs,
        Axis::Script,
    ];

    /// The chart's name for it.
    fn short(self) -> &'static str {
        match self {
            Axis::Sites => "configured sites",
            Axis::State => "sites with state",
            Axis::WaitOne => "waiters on one site",
            Axis::WaitMany => "waiters, a site each",
            Axis::Tabs => "tabs in the tab map",
            Axis::Script => "script KB",
            Axis::Every => "configured sites, call on every site",
        }
    }

    pub(crate) fn title(self) -> &'static str {
        match self {
            Axis::Sites => "configured sites",
            Axis::State => "sites with state",
            Axis::WaitOne => "processes waiting on one site",
            Axis::WaitMany => "processes waiting, each on its own site",
            Axis::Tabs => "tabs in the tab map",
            Axis::Script => "script size, KB (javascript_tool Pre, added to a one-line script)",
            Axis::Every => "configured sites, a call paced on every known site",
        }
    }
}

/// One measured point.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Point {
    pub(crate) n: usize,
    /// Median wall time of the Pre, ms (for scripts: added to a one-line one).
    pub(crate) wall: f64,
    /// Its median CPU time, ms.
    pub(crate) cpu: f64,
    /// CPU the waiters used, ms per second waited, per waiter.
    pub(crate) wait_cpu: Option<f64>,
    /// How many of the timed events did not exit 0.
    pub(crate) failed: usize,
}

/// The points of one axis on one store.
pub(crate) struct Curve {
    pub(crate) axis: Axis,
    pub(crate) redis: bool,
    pub(crate) points: Vec<Point>,
}

/// Counts from 1 to `max` by tens.
fn decades(max: usize) -> Vec<usize> {
    let mut v = vec![1];
    while v.last().is_some_and(|&n| n * 10 <= max) {
        v.push(v.last().copied().unwrap_or(1) * 10);
    }
    v
}

/// Every curve, files and (with a server) Redis; and how long it took.
pub(crate) fn run_curves(
    events: &Events,
    work: &Path,
    redis: Option<&RedisServer>,
) -> (Vec<Curve>, Duration) {
    let started = Instant::now();
    let max = env_number("PACE_HOOK_BENCH_CURVE_MAX", 100_000);
    let mut curves = Vec::new();
    let stores: Vec<Option<&RedisServer>> = std::iter::once(None).chain(redis.map(Some)).collect();
    for store in stores {
        let c = Curves {
            events,
            work,
            redis: store,
        };
        let tag = if store.is_some() { "redis" } else { "files" };
        for axis in Axis::ALL {
            if axis == Axis::Script && store.is_some() {
                continue;
            }
            eprintln!("bench: curve of {} on {tag}", axis.title());
            let points = match axis {
                Axis::Sites => decades(max)
                    .into_iter()
                    .map(|n| c.sites(n, false))
                    .collect(),
                Axis::Every => decades(max.min(EVERY_MAX))
                    .into_iter()
                    .map(|n| c.sites(n, true))
                    .collect(),
                Axis::State => c.state(&decades(max)),
                Axis::WaitOne => WAITERS.iter().map(|&n| c.waiting(n, true)).collect(),
                Axis::WaitMany => WAITERS.iter().map(|&n| c.waiting(n, false)).collect(),
                Axis::Tabs => c.tabs(),
                Axis::Script => c.scripts(),
            };
            curves.push(Curve {
                axis,
                redis: store.is_some(),
                points,
            });
        }
    }
    (curves, started.elapsed())
}

struct Curves<'a> {
    events: &'a Events,
    work: &'a Path,
    redis: Option<&'a RedisServer>,
}

impl Curves<'_> {
    fn tag(&self) -> &'static str {
        if self.redis.is_some() {
            "redis"
        } else {
            "files"
        }
    }

    /// A fresh home (and an emptied database) with `config`.
    fn home(&self, name: &str, config: &str) -> Home {
        if let Some(r) = self.redis {
            r.flush();
        }
        let name = format!("curve-{}-{name}", self.tag());
        let _ = fs::remove_dir_all(self.work.join(&name));
        Home::new(self.work, &name, config).on(self.redis.map(|r| r.url(0)))
    }

    /// The library's gate on `home`, for making state.
    fn pacer(&self, home: &Home) -> pace_hook::Pacer {
        let mut text = fs::read_to_string(&home.config).expect("the curve's config");
        if let Some(url) = &home.backend {
            text = format!("backend = \"{url}\"\n{text}");
        }
        let config = pace_hook::config::Config::parse(&text, &home.config).expect("config parses");
        pace_hook::Pacer::new(&home.root, config).expect("the gate opens")
    }

    /// One call admitted and finished on each of `hosts`.
    fn make_state(&self, pacer: &pace_hook::Pacer, hosts: impl Iterator<Item = String>) {
        for host in hosts {
            let permit = pacer
                .wait_turn(&host)
                .unwrap_or_else(|e| panic!("{host}: {e}"));
            permit.finish().unwrap_or_else(|e| panic!("{host}: {e}"));
        }
    }

    /// `rounds` Pre/Post pairs of `pre`/`post` after one warm-up pair: the
    /// Pre's median wall and CPU time and how many failed.
    fn time(&self, home: &Home, pre: &Template, post: &Template, id: &str) -> (f64, f64, usize) {
        let program = Program::hook(Path::new(BIN), home);
        let stderr = home.root.with_extension("curve.stderr");
        let mut wall = Vec::new();
        let mut cpu = Vec::new();
        let mut failed = 0;
        for round in 0..=CURVE_ROUNDS {
            let id = format!("curve-{id}-{round}");
            let s = program.run(&pre.with_id(&id), &stderr);
            let p = program.run(&post.with_id(&id), &stderr);
            if round == 0 {
                continue;
            }
            failed += usize::from(s.code != 0 || p.code != 0);
            wall.push(ms(s.wall));
            cpu.push(ms(s.cpu));
        }
        wall.sort_by(f64::total_cmp);
        cpu.sort_by(f64::total_cmp);
        (quantile(&wall, 0.5), quantile(&cpu, 0.5), failed)
    }

    /// [`Self::time`] of a navigate to `url` and its Post.
    fn navigate(&self, home: &Home, url: &str, id: &str) -> (f64, f64, usize) {
        self.time(home, &self.events.pre(url), &self.events.post(url), id)
    }

    /// A navigate to the last of `n` configured sites of two domains each,
    /// the place a scan of the list finds last; with `every`, instead a
    /// one-line script on a tab the map does not know, which is paced on
    /// every known site.
    fn sites(&self, n: usize, every: bool) -> Point {
        let mut config = String::from("interval = \"0ms\"\n");
        for i in 0..n {
            let _ = write!(
                config,
                "[[site]]\nname = \"site{i}\"\ndomains = [\"site{i}.test\", \"site{i}-cdn.test\"]\n"
            );
        }
        let kind = if every { "every" } else { "sites" };
        let home = self.home(&format!("{kind}-{n}"), &config);
        let url = format!("https://www.site{}.test/a", n - 1);
        let (pre, post) = if every {
            let (pre, post) = Events::script("document.title");
            (on_tab(pre, UNKNOWN_TAB), post)
        } else {
            (self.events.pre(&url), self.events.post(&url))
        };
        let (wall, cpu, failed) = self.time(&home, &pre, &post, &format!("{kind}{n}"));
        let _ = fs::remove_dir_all(&home.root);
        Point {
            n,
            wall,
            cpu,
            wait_cpu: None,
            failed,
        }
    }

    /// One home grown to each count of sites with state in turn; at each,
    /// a navigate to a site that has state.
    fn state(&self, counts: &[usize]) -> Vec<Point> {
        let home = self.home("state", "interval = \"0ms\"\n");
        let pacer = self.pacer(&home);
        let mut made = 0;
        let mut points = Vec::new();
        for &n in counts {
            self.make_state(
                &pacer,
                (made..n).map(|i| format!("https://www.site{i}.test/")),
            );
            made = n;
            let url = format!("https://www.site{}.test/a", n / 2);
            let (wall, cpu, failed) = self.navigate(&home, &url, &format!("state{n}"));
            points.push(Point {
                n,
                wall,
                cpu,
                wait_cpu: None,
                failed,
            });
        }
        drop(pacer);
        let _ = fs::remove_dir_all(&home.root);
        points
    }

    /// `n` processes waiting, on one busy site or each on its own, while a
    /// navigate to another site is timed; and the CPU they use waiting.
    fn waiting(&self, n: usize, one_site: bool) -> Point {
        let config = "interval = \"10m\"\nmax_wait = \"600s\"\nstale_after = \"20m\"\n\
                      [[site]]\nname = \"free\"\ndomains = [\"free.test\"]\ninterval = \"0ms\"\n";
        let kind = if one_site { "one" } else { "many" };
        let home = self.home(&format!("wait-{kind}-{n}"), config);
        let site = |i: usize| {
            if one_site {
                "https://www.busy.test/".to_owned()
            } else {
                format!("https://www.busy{i}.test/")
            }
        };
        let pacer = self.pacer(&home);
        self.make_state(&pacer, (0..if one_site { 1 } else { n }).map(site));
        drop(pacer);
        let program = Program::hook(Path::new(BIN), &home);
        let stderr = home.root.with_extension("waiters.stderr");
        let mut waiters: Vec<Child> = (0..n)
            .map(|i| {
                let input = self
                    .events
                    .pre_in(&format!("{}next", site(i)), &format!("curve-waiter-{i}"))
                    .with_id(&format!("curve-waiter-{i}"));
                program.spawn(&input, &stderr)
            })
            .collect();
        // Let every one reach its queue before anything is read.
        thread::sleep(Duration::from_millis(500 + 4 * n as u64));
        let before: Vec<u64> = waiters.iter().map(|c| on_cpu_ns(c.id())).collect();
        let t0 = Instant::now();
        let url = "https://free.test/a";
        let (wall, cpu, failed) = self.navigate(&home, url, &format!("wait{kind}{n}"));
        thread::sleep(WAIT_WINDOW.saturating_sub(t0.elapsed()));
        let after: Vec<u64> = waiters.iter().map(|c| on_cpu_ns(c.id())).collect();
        let secs = t0.elapsed().as_secs_f64();
        let mut still = 0;
        for c in &mut waiters {
            still += usize::from(matches!(c.try_wait(), Ok(None)));
        }
        for c in &mut waiters {
            let _ = c.kill();
            let _ = c.wait();
        }
        let used: u64 = after
            .iter()
            .zip(&before)
            .map(|(a, b)| a.saturating_sub(*b))
            .sum();
        let _ = fs::remove_dir_all(&home.root);
        Point {
            n,
            wall,
            cpu,
            wait_cpu: Some(used as f64 / 1e6 / secs / n as f64),
            // A waiter that stopped waiting is a failure of the point too.
            failed: failed + (n - still),
        }
    }

    /// The tab map grown to each size in turn by navigates on that many
    /// tabs; at each, a navigate on tab 1.
    fn tabs(&self) -> Vec<Point> {
        let home = self.home("tabs", "interval = \"0ms\"\n");
        let program = Program::hook(Path::new(BIN), &home);
        let stderr = home.root.with_extension("tabs.stderr");
        let mut made = 1;
        let mut points = Vec::new();
        for &n in &TABS {
            for tab in made..n {
                let url = format!("https://www.tab{tab}.test/");
                for fixture in ["PreToolUse.navigate.json", "PostToolUse.navigate.json"] {
                    let e = on_tab(Events::navigate(fixture, &url, None), tab + 1);
                    program.run(&e.with_id(&format!("tab-{tab}")), &stderr);
                }
            }
            made = n.max(made);
            let url = "https://www.tab0.test/a";
            let (wall, cpu, failed) = self.navigate(&home, url, &format!("tabs{n}"));
            points.push(Point {
                n,
                wall,
                cpu,
                wait_cpu: None,
                failed,
            });
        }
        let _ = fs::remove_dir_all(&home.root);
        points
    }

    /// A javascript_tool Pre of each size, less the one-line script's.
    fn scripts(&self) -> Vec<Point> {
        let home = self.home("scripts", &one_site_config());
        let nav = (
            self.events.pre("https://example.com/a"),
            self.events.post("https://example.com/a"),
        );
        let program = Program::hook(Path::new(BIN), &home);
        let stderr = home.root.with_extension("scripts.stderr");
        program.run(&nav.0.with_id("scripts-nav"), &stderr);
        program.run(&nav.1.with_id("scripts-nav"), &stderr);
        let line = Events::script("document.title");
        let (base_wall, base_cpu, _) = self.time(&home, &line.0, &line.1, "js-line");
        SCRIPT_KB
            .iter()
            .map(|&kb| {
                let (pre, post) = Events::script(&realistic_script(kb * 1000));
                let (wall, cpu, failed) = self.time(&home, &pre, &post, &format!("js{kb}"));
                Point {
                    n: kb,
                    wall: wall - base_wall,
                    cpu: cpu - base_cpu,
                    wait_cpu: None,
                    // Past 256 KiB the hook refuses the script: a block.
                    failed: if kb > 256 { 0 } else { failed },
                }
            })
            .collect()
    }
}

/// A tab no event of the curves names in its result.
const UNKNOWN_TAB: usize = 999;

/// `event` moved to tab `tab`: its input and the tab its result lists.
fn on_tab(event: Template, tab: usize) -> Template {
    let text = [&event.before[..], ID.as_bytes(), &event.after[..]].concat();
    let mut v: Value = serde_json::from_slice(&text).expect("a template is JSON");
    v["tool_input"]["tabId"] = json!(tab);
    if let Some(blocks) = v["tool_response"].as_array_mut() {
        for block in blocks {
            if let Some(t) = block["text"].as_str() {
                block["text"] = json!(t.replace("tabId 1:", &format!("tabId {tab}:")));
            }
        }
    }
    Template::new(&v)
}

/// Nanoseconds process `pid` has been on a CPU, all its threads.
fn on_cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

// ---- the report and the chart ----

/// The curves' section of the report, and the chart beside it.
pub(crate) fn curves_section(out: &mut String, curves: &[Curve], took: Duration, svg: &str) {
    let _ = writeln!(
        out,
        "### 6. Scale, as curves\n\n\
         Each point: a state directory (or an emptied Redis database) made to that size, one \
         warm-up, then {CURVE_ROUNDS} Pre/Post pairs of a paced navigate admitted at once; the \
         Pre's median CPU time (user + system, from `wait4`), its median wall time in brackets: \
         CPU is the curve, since other work on this machine moves wall times by more than \
         the curves do. Configured sites: the navigate goes to the \
         last of them, two domains each. Sites with state: each had a call (made through the \
         library's `Pacer`, as `pace-hook run` makes one). Waiters: that many processes parked \
         on one busy site or on a busy site each, while a navigate to a free site is timed; and \
         the CPU each waiter used while waiting, from `/proc/PID/task/*/schedstat` over \
         {} s, start-up excluded. Tabs: that many tabs navigated first, then a navigate on \
         one. Scripts: a javascript_tool Pre of the shape of section 1b, less the one-line \
         script's; past 256 KiB the hook refuses to read a script and blocks it, so the \
         1000 KB point is the cost of that refusal (not drawn). Drawn log-log in [`scale-curves.svg`]({svg}): a flat line is constant, a \
         line parallel to the dotted one grows linearly. This part of the run took {:.0} s.\n",
        WAIT_WINDOW.as_secs(),
        took.as_secs_f64()
    );
    let _ = writeln!(out, "![scale curves]({svg})\n");
    for axis in Axis::ALL {
        let rows: Vec<&Curve> = curves.iter().filter(|c| c.axis == axis).collect();
        if rows.is_empty() {
            continue;
        }
        let ns: Vec<usize> = rows[0].points.iter().map(|p| p.n).collect();
        let _ = write!(out, "| {} | store |", axis.title());
        let mut rule = String::from("|---|---|");
        for n in &ns {
            let _ = write!(out, " {n} |");
            rule.push_str("--:|");
        }
        let _ = writeln!(out, " growth, last ÷ first |\n{rule}--:|");
        for c in &rows {
            let store = if c.redis { "Redis" } else { "files" };
            let _ = write!(out, "| per event, ms CPU (wall) | {store} |");
            for p in &c.points {
                let failed = if p.failed > 0 {
                    format!(" ({} failed)", p.failed)
                } else {
                    String::new()
                };
                let _ = write!(out, " {:.2} ({:.2}){failed} |", p.cpu, p.wall);
            }
            let _ = writeln!(out, " {} |", growth(&c.points, |p| p.cpu));
            if c.points.iter().any(|p| p.wait_cpu.is_some()) {
                let _ = write!(out, "| waiting, ms CPU/s per waiter | {store} |");
                for p in &c.points {
                    let _ = write!(out, " {:.3} |", p.wait_cpu.unwrap_or(0.0));
                }
                let _ = writeln!(
                    out,
                    " {} |",
                    growth(&c.points, |p| p.wait_cpu.unwrap_or(0.0))
                );
            }
        }
        out.push('\n');
    }
}

/// Last over first, and over the growth of the axis.
fn growth(points: &[Point], y: impl Fn(&Point) -> f64) -> String {
    match (points.first(), points.last()) {
        (Some(a), Some(b)) if y(a) > 0.0 && b.n > a.n => {
            format!("{:.2}× over {}×", y(b) / y(a), b.n / a.n)
        }
        _ => String::new(),
    }
}

/// One line of a plot: whether it is Redis's, and its points.
type Series = (bool, Vec<(f64, f64)>);

/// The chart: a small log-log plot per axis and measure, files and Redis.
pub(crate) fn curves_svg(curves: &[Curve]) -> String {
    let mut panels: Vec<(String, Vec<Series>)> = Vec::new();
    for axis in Axis::ALL {
        let rows: Vec<&Curve> = curves.iter().filter(|c| c.axis == axis).collect();
        if rows.is_empty() {
            continue;
        }
        let series = |y: &dyn Fn(&Point) -> Option<f64>| -> Vec<Series> {
            rows.iter()
                .map(|c| {
                    let pts = c
                        .points
                        .iter()
                        .filter(|p| axis != Axis::Script || p.n <= 256)
                        .filter_map(|p| Some((p.n as f64, y(p)?)))
                        .filter(|&(_, v)| v > 0.0)
                        .collect();
                    (c.redis, pts)
                })
                .collect()
        };
        let what = if axis == Axis::Script {
            "ms CPU added"
        } else {
            "ms CPU per event"
        };
        panels.push((
            format!("{what} vs {}", axis.short()),
            series(&|p| Some(p.cpu)),
        ));
        if rows
            .iter()
            .any(|c| c.points.iter().any(|p| p.wait_cpu.is_some()))
        {
            panels.push((
                format!("waiting, ms CPU/s per waiter vs {}", axis.short()),
                series(&|p| p.wait_cpu),
            ));
        }
    }
    let (w, h, cols) = (440.0, 260.0, 2usize);
    let rows = panels.len().div_ceil(cols);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" \
         font-family=\"sans-serif\" font-size=\"11\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        w * cols as f64,
        h * rows as f64 + 24.0
    );
    let _ = writeln!(
        s,
        "<text x=\"10\" y=\"16\" font-size=\"13\">pace-hook, scale as curves (log-log): \
         <tspan fill=\"#1f77b4\">● files</tspan>  <tspan fill=\"#d62728\">■ Redis</tspan>  \
         <tspan fill=\"#888\">┄ linear from the first point</tspan></text>"
    );
    for (i, (title, series)) in panels.iter().enumerate() {
        let (x0, y0) = ((i % cols) as f64 * w, (i / cols) as f64 * h + 24.0);
        panel(&mut s, x0, y0, w, h, title, series);
    }
    s.push_str("</svg>\n");
    s
}

/// One plot at (`x0`, `y0`).
fn panel(s: &mut String, x0: f64, y0: f64, w: f64, h: f64, title: &str, series: &[Series]) {
    let (left, right, top, bottom) = (52.0, 16.0, 22.0, 34.0);
    let all: Vec<(f64, f64)> = series.iter().flat_map(|(_, p)| p.iter().copied()).collect();
    let esc = |t: &str| t.replace('&', "&amp;").replace('<', "&lt;");
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"12\">{}</text>",
        x0 + 8.0,
        y0 + 14.0,
        esc(title)
    );
    if all.is_empty() {
        return;
    }
    let lx = |v: f64| v.log10();
    let (xmin, xmax) = (
        all.iter().map(|p| lx(p.0)).fold(f64::MAX, f64::min).floor(),
        all.iter()
            .map(|p| lx(p.0))
            .fold(f64::MIN, f64::max)
            .ceil()
            .max(1.0),
    );
    let ymin = all.iter().map(|p| lx(p.1)).fold(f64::MAX, f64::min).floor();
    let ymax = all
        .iter()
        .map(|p| lx(p.1))
        .fold(f64::MIN, f64::max)
        .ceil()
        .max(ymin + 1.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let px = |v: f64| x0 + left + (lx(v) - xmin) / (xmax - xmin) * pw;
    let py = |v: f64| y0 + top + ph - (lx(v) - ymin) / (ymax - ymin) * ph;
    let _ = writeln!(
        s,
        "<rect x=\"{}\" y=\"{}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#999\"/>",
        x0 + left,
        y0 + top
    );
    for d in xmin as i32..=xmax as i32 {
        let v = 10f64.powi(d);
        let x = px(v);
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#eee\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            y0 + top,
            y0 + top + ph,
            y0 + top + ph + 14.0,
            short(v)
        );
    }
    for d in ymin as i32..=ymax as i32 {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(d);
            if lx(v) > ymax + 1e-9 {
                continue;
            }
            let y = py(v);
            let _ = writeln!(
                s,
                "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                x0 + left,
                x0 + left + pw,
                x0 + left - 4.0,
                y + 4.0,
                short(v)
            );
        }
    }
    let clip = |y: f64| y.clamp(y0 + top, y0 + top + ph);
    for (redis, pts) in series {
        let colour = if *redis { "#d62728" } else { "#1f77b4" };
        if let (Some(&(fx, fy)), Some(&(lx_, _))) = (pts.first(), pts.last()) {
            // What linear growth from the first point would look like.
            let _ = writeln!(
                s,
                "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" \
                 stroke-opacity=\"0.35\" stroke-dasharray=\"3,3\"/>",
                px(fx),
                clip(py(fy)),
                px(lx_),
                clip(py(fy * lx_ / fx))
            );
        }
        let path: Vec<String> = pts
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"/>",
            path.join(" ")
        );
        for &(x, y) in pts {
            if *redis {
                let _ = writeln!(
                    s,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"6\" height=\"6\" fill=\"{colour}\"/>",
                    px(x) - 3.0,
                    py(y) - 3.0
                );
            } else {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>",
                    px(x),
                    py(y)
                );
            }
        }
    }
}

/// A tick's label: 1, 10, 100, 1k, 0.01.
fn short(v: f64) -> String {
    if v >= 1000.0 {
        format!("{}k", v / 1000.0)
    } else if v >= 1.0 {
        format!("{v}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').to_owned()
    }
}
