//! The per-event rows: every event kind against the floor, round-robin, and
//! the script rows.

#[allow(unused_imports)]
use super::*;

/// One command of the per-event loop.
pub(crate) struct Case {
    /// The row's label.
    pub(crate) name: String,
    /// Which table it belongs to.
    pub(crate) group: Group,
    pub(crate) program: Program,
    pub(crate) event: Template,
    /// Ties a Pre to its Post: the same tag gives the same tool_use_id in a
    /// round.
    pub(crate) id_tag: String,
    /// The floor case this one is compared with (same input size).
    pub(crate) floor: Option<usize>,
    pub(crate) samples: Vec<Sample>,
    /// Peak RSS of each run through the trampoline, KiB.
    pub(crate) rss_kib: Vec<u64>,
    pub(crate) failures: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    /// The floors and node.
    Reference,
    /// One site, no waiters, with the build of this index.
    OneSite(usize),
    /// A thousand sites and 64 waiters, with the build of this index.
    Scale(usize),
}

/// The step floors of section 1c and what they run against.
pub(crate) struct Steps<'a> {
    pub(crate) floors: &'a [(Link, Result<PathBuf, String>)],
    /// Where the file step keeps its state.
    pub(crate) dir: &'a Path,
    /// The bench's Redis server, if it runs.
    pub(crate) redis_port: Option<u16>,
}

/// The label of a step floor's row: `floor (LINK) + one step on STORE`.
pub(crate) fn step_label(link: Link, store: &str) -> String {
    format!("floor ({}) + one step on {store}", link.label())
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn per_event_cases(
    events: &Events,
    floors: &[(Link, Result<PathBuf, String>)],
    bare_floors: &[(Link, Result<PathBuf, String>)],
    steps: &Steps<'_>,
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
    // The bare floors, each held against the floor linked like it.
    for (link, bare) in bare_floors {
        let (Ok(path), Some(&(_, small, _))) = (bare, floor_of.iter().find(|f| f.0 == *link))
        else {
            continue;
        };
        add(
            &format!("floor ({}), own C `main`: reads stdin", link.label()),
            Group::Reference,
            Program::new(path),
            &events.skip,
            "floor".into(),
            Some(small),
        );
    }
    // The step floors, each held against the floor linked like it: one
    // locked read and write of a file, and one script on Redis.
    for (link, step) in steps.floors {
        let (Ok(path), Some(&(_, small, _))) = (step, floor_of.iter().find(|f| f.0 == *link))
        else {
            continue;
        };
        let dir = steps.dir.join(format!("floor-step-{}", link.tag()));
        fs::create_dir_all(&dir).expect("the file step's directory");
        let stores = [
            Some(("files", dir.display().to_string())),
            steps.redis_port.map(|p| ("Redis", p.to_string())),
        ];
        for (store, arg) in stores.into_iter().flatten() {
            let mut p = Program::new(path);
            p.args = vec![store.to_lowercase(), arg];
            add(
                &step_label(*link, store),
                Group::Reference,
                p,
                &events.skip,
                "floor".into(),
                Some(small),
            );
        }
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
            // The shell (issue 19): a command decided before any parser (its
            // Pre and Post), one parsed that makes no request, and one curl.
            for (name, event, tag_end) in [
                (
                    "skip: PreToolUse Bash, no fetcher (pre-filter)",
                    &events.bash_plain.0,
                    "sh0",
                ),
                (
                    "PostToolUse Bash, no fetcher (pre-filter)",
                    &events.bash_plain.1,
                    "sh0",
                ),
                (
                    "skip: PreToolUse Bash, parsed, no request",
                    &events.bash_parsed,
                    "sh1",
                ),
                (
                    "paced: PreToolUse Bash, one curl, admitted at once",
                    &events.bash_curl.0,
                    "curl",
                ),
                ("PostToolUse Bash, one curl", &events.bash_curl.1, "curl"),
            ] {
                add(
                    name,
                    group,
                    program.clone(),
                    event,
                    format!("{tag}-{tag_end}"),
                    Some(floor),
                );
            }
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
pub(crate) const TWO_DOMAIN_URL: &str = "https://www.two.test/a";
pub(crate) const TWO_DOMAIN_PRE: &str =
    "paced: PreToolUse navigate to a configured site of two domains, admitted at once";
pub(crate) const TWO_DOMAIN_POST: &str =
    "PostToolUse navigate to a configured site of two domains, with Tab Context";

/// The shell rows' commands (issue 19): what agents run most, a loop over
/// files, and one request.
pub(crate) const BASH_PLAIN: &str = "cargo test --lib 2>&1 | tail -n 20 && git status --short";
pub(crate) const BASH_PARSED: &str = "for f in src/*.rs; do wc -l \"$f\"; done | sort -n | tail -3";
pub(crate) const BASH_CURL: &str = "curl -s https://example.com/a | jq '.items[0]'";

/// How the script rows name their scripts.
pub(crate) const SCRIPT_LINE: &str = "one-line script";
pub(crate) const SCRIPT_10K: &str = "10 KB script";
pub(crate) const SCRIPT_100K: &str = "100 KB script";

/// Run every case once per round. The cases of one build run together and in
/// order (each Post after its Pre); the builds and reference commands are
/// shuffled afresh each round, so whatever one command leaves behind (node
/// evicts the caches) falls on each of the others alike.
pub(crate) fn time_round_robin(cases: &mut [Case], rounds: usize, work: &Path) {
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
pub(crate) fn measure_rss(cases: &mut [Case], trampoline: &Path, work: &Path) {
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

pub(crate) struct Summary {
    pub(crate) median: f64,
    pub(crate) p90: f64,
    pub(crate) p99: f64,
    pub(crate) cpu: f64,
    pub(crate) rss_mib: f64,
}

pub(crate) fn summary(case: &Case) -> Summary {
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

pub(crate) fn per_event_section(
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
         median of {RSS_RUNS} extra runs. Goal (issue 21): every event ≤ \
         {GOAL_FLOOR_RATIO}× the floor linked the same way. The bare floors (own C `main`, \
         as pace-hook starts on glibc) are shown against the floor.\n\n\
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
                (Group::OneSite(_), Some(f)) => {
                    verdict(s.median / f <= GOAL_FLOOR_RATIO).to_owned()
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

/// Section 1b: what analysing a script adds to a PreToolUse, per build: the
/// 10 KB script's row against the one-line script's, same rounds.
pub(crate) fn script_section(out: &mut String, cases: &[Case], builds: &[Build]) {
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

/// Section 1c: each build on Redis against the same build on files, event by
/// event, from the rows above (the same rounds). Goal (issue 21): a paced
/// navigate on Redis over loopback at most [`GOAL_REDIS_RATIO`]× the same
/// event on files.
pub(crate) fn redis_section(out: &mut String, cases: &[Case], builds: &[Build]) {
    let median = |i: usize, name: &str| {
        cases
            .iter()
            .find(|c| c.group == Group::OneSite(i) && c.name == name)
            .map(|c| summary(c).median)
    };
    let rows = [
        "paced: PreToolUse navigate, admitted at once",
        "PostToolUse navigate, with Tab Context",
        TWO_DOMAIN_PRE,
        "skip: PreToolUse screenshot",
    ];
    let reference = |name: String| {
        cases
            .iter()
            .find(|c| c.group == Group::Reference && c.name == name)
            .map(|c| summary(c).median)
    };
    let mut lines = String::new();
    let mut least = String::new();
    for (i, b) in builds
        .iter()
        .enumerate()
        .filter(|(_, b)| b.backend.is_some())
    {
        let Some(files) = builds
            .iter()
            .position(|f| f.backend.is_none() && f.link == b.link && f.source == b.source)
        else {
            continue;
        };
        for name in rows {
            let (Some(on_redis), Some(on_files)) = (median(i, name), median(files, name)) else {
                continue;
            };
            let ratio = on_redis / on_files;
            if name == rows[0]
                && let (Some(step_files), Some(step_redis)) = (
                    reference(step_label(b.link, "files")),
                    reference(step_label(b.link, "Redis")),
                )
            {
                let step = step_redis - step_files;
                let _ = writeln!(
                    least,
                    "| {} | {:+.2} ms | {step:+.2} ms | {:+.2} ms | {:.2}× |",
                    builds[files].label,
                    on_redis - on_files,
                    on_redis - on_files - step,
                    (on_files + step) / on_files,
                );
            }
            let goal = if name == rows[0] {
                verdict(ratio <= GOAL_REDIS_RATIO)
            } else {
                ""
            };
            let _ = writeln!(
                lines,
                "| {} | {name} | {on_files:.2} ms | {on_redis:.2} ms | {:+.2} ms | {ratio:.2}× | {goal} |",
                builds[files].label,
                on_redis - on_files,
            );
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### 1c. Redis against files\n\n\
         Each build on the Redis store (a server on loopback) against the same binary on \
         files, from the rows above. Goal (issue 21): a paced navigate on Redis at most \
         {GOAL_REDIS_RATIO}× the same event on files.\n\n\
         | build | event | files | Redis | Redis − files | Redis ÷ files | goal |\n\
         |---|---|--:|--:|--:|--:|---|\n{lines}"
    );
    if least.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "The least any gate pays for Redis over files, in the same rounds: the floor plus \
         one step on each store (`benches/reference/floor_step.rs`: on files a locked read \
         and write of one file, on Redis one connection and one script of `TIME`, `GET` and \
         `SET`), the Redis step less the file step. `the rest` is what pace-hook's navigate \
         adds beyond that (its script's own server time, its client); `least ratio` is the \
         navigate's Redis ÷ files if its Redis step cost only the least step's.\n\n\
         | build | navigate, Redis − files | least step, Redis − files | the rest | least ratio |\n\
         |---|--:|--:|--:|--:|\n{least}"
    );
}
