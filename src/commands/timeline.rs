//! `pace-hook gaps --svg FILE`: the gate log drawn as a timeline, one lane
//! per site. Each admitted call is a bar from its admission to its finish
//! (or, when no finish came, to the end of its hold, which is how long the
//! gate counted it busy), coloured by session; the wait before the
//! admission is shaded; under each gap a grey line shows the interval in
//! force, and a gap shorter than it is marked red. Which gaps are short is
//! [`crate::pacing::gaps::gaps`]'s verdict, the same replay the text report prints.
//!
//! The SVG is our own output, written as text: one self-contained file,
//! no script, no external reference, every piece of text from the log
//! (sessions, call ids, tool names, all written by whoever sent the hook
//! events) XML-escaped, so that any browser opens it as a picture.

use std::{
    collections::{BTreeMap, HashMap},
    fmt::Write as _,
};

use crate::{
    duration::format_duration,
    pacing::clock::EpochMs,
    pacing::gaps::{self, Gap, clock_time, is_duplicate},
    pacing::log::{Kind, Record},
};

/// Width of the picture, px.
const WIDTH: f64 = 1200.0;
/// Left column for the site names.
const LEFT: f64 = 190.0;
/// Right margin.
const RIGHT: f64 = 30.0;
/// Height of one row of bars in a lane.
const ROW: f64 = 26.0;
/// Height of a bar.
const BAR: f64 = 16.0;
/// Red for gaps under the interval; no session gets a red.
const RED: &str = "#d62728";

/// Session colours, distinct and none of them red (Tableau 10 without its
/// red and pink). Past these, hues are spread by the golden angle.
const PALETTE: &[&str] = &[
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#17becf",
    "#bab0ac", "#1f3a93",
];

/// How a bar ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// Its finish was recorded.
    Finish,
    /// No finish came: drawn to the end of its hold.
    Hold,
    /// Taken back before the call went: it sent nothing.
    Cancel,
}

/// One admitted call on one site.
#[derive(Debug, Clone)]
struct Bar {
    call: String,
    tool: String,
    session: Option<String>,
    start: EpochMs,
    waited_ms: u64,
    end: EpochMs,
    ended: End,
    row: usize,
}

/// What a stretch of a call's wait was spent on, as the log shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cause {
    /// Another call held the site (admitted, not finished or its hold not
    /// over).
    InFlight,
    /// The site was held back after a 429 or 503 (or by hand).
    Backoff,
    /// The interval after the site's last finish.
    Interval,
    /// None of those, while other callers went first: its place in the
    /// queue.
    Queue,
    /// None of those and nobody went first (the last milliseconds of a
    /// sleep, a lock, jitter).
    Other,
}

impl Cause {
    /// The word drawn on the wait.
    fn label(self) -> &'static str {
        match self {
            Cause::InFlight => "in flight",
            Cause::Backoff => "backoff",
            Cause::Interval => "interval",
            Cause::Queue => "queue",
            Cause::Other => "",
        }
    }

    /// A sentence for the wait's title.
    fn says(self) -> &'static str {
        match self {
            Cause::InFlight => "another call held the site",
            Cause::Backoff => "the site was held back after a 429/503 (backoff)",
            Cause::Interval => "the interval after the last finish",
            Cause::Queue => "other callers ahead in the queue went first",
            Cause::Other => "waiting for its turn",
        }
    }
}

/// The stretches of the wait `[from, to)` of call `me` on one site, each
/// with its cause, earliest first: another call in flight (`bars`) comes
/// before a backoff (`backoffs`), which comes before the interval (each gap's
/// `[busy_until, busy_until + interval)`). What none covers is the queue if
/// some other call was admitted meanwhile, else unexplained.
fn wait_causes(
    me: usize,
    from: EpochMs,
    to: EpochMs,
    bars: &[Bar],
    gaps: &[Gap],
    backoffs: &[(EpochMs, EpochMs)],
) -> Vec<(EpochMs, EpochMs, Cause)> {
    let others = || {
        bars.iter()
            .enumerate()
            .filter(|(i, _)| *i != me)
            .map(|(_, b)| b)
    };
    let spans: Vec<(EpochMs, EpochMs, Cause)> = others()
        .map(|b| (b.start, b.end, Cause::InFlight))
        .chain(backoffs.iter().map(|&(a, b)| (a, b, Cause::Backoff)))
        .chain(gaps.iter().map(|g| {
            (
                g.busy_until,
                g.busy_until.saturating_add(g.interval_ms),
                Cause::Interval,
            )
        }))
        .collect();
    let went_first = others().any(|b| b.start >= from && b.start < to);
    let mut cuts: Vec<EpochMs> = spans
        .iter()
        .flat_map(|&(a, b, _)| [a, b])
        .filter(|&t| t > from && t < to)
        .chain([from, to])
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut out: Vec<(EpochMs, EpochMs, Cause)> = Vec::new();
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let cause = [Cause::InFlight, Cause::Backoff, Cause::Interval]
            .into_iter()
            .find(|c| spans.iter().any(|&(s, e, k)| k == *c && s <= a && e >= b))
            .unwrap_or(if went_first {
                Cause::Queue
            } else {
                Cause::Other
            });
        match out.last_mut() {
            Some(last) if last.2 == cause && last.1 == a => last.1 = b,
            _ => out.push((a, b, cause)),
        }
    }
    out
}

/// Each site's backoffs from the log, as `[set, until)`: a backoff ends at
/// its `until_ms`, or sooner at the next backoff record for the site (one
/// that replaced or cleared it). Records from before `until_ms` was logged
/// give none.
fn backoffs(records: &[Record]) -> HashMap<&str, Vec<(EpochMs, EpochMs)>> {
    let mut by_site: HashMap<&str, Vec<(EpochMs, Option<EpochMs>)>> = HashMap::new();
    for r in records.iter().filter(|r| r.event == Kind::Backoff) {
        for site in &r.sites {
            by_site.entry(site).or_default().push((r.ts, r.until_ms));
        }
    }
    by_site
        .into_iter()
        .map(|(site, mut list)| {
            list.sort_by_key(|&(ts, _)| ts);
            let spans = list
                .iter()
                .enumerate()
                .filter_map(|(i, &(ts, until))| {
                    let next = list.get(i + 1).map(|&(t, _)| t);
                    let end = until?.min(next.unwrap_or(EpochMs::MAX));
                    (end > ts).then_some((ts, end))
                })
                .collect();
            (site, spans)
        })
        .collect()
}

/// "1 call", "2 calls".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The calls of every site, sites in order of their first admission.
fn bars(records: &[Record], only_site: Option<&str>) -> Vec<(String, Vec<Bar>)> {
    let mut order: Vec<&Record> = records
        .iter()
        .filter(|r| {
            matches!(r.event, Kind::Admit | Kind::Finish | Kind::Cancel) && !is_duplicate(r)
        })
        .collect();
    // As `gaps` replays them: a finish at its earliest site's time.
    order.sort_by_key(|r| r.finished_ms.iter().copied().min().unwrap_or(r.ts));
    let mut lanes: Vec<(String, Vec<Bar>)> = Vec::new();
    let mut lane_of: HashMap<String, usize> = HashMap::new();
    let mut open: HashMap<(usize, String), usize> = HashMap::new();
    for r in order {
        let call = r.call.clone().unwrap_or_default();
        for (i, site) in r.sites.iter().enumerate() {
            if only_site.is_some_and(|o| o != site) {
                continue;
            }
            let lane = match lane_of.get(site) {
                Some(&l) => l,
                None if r.event == Kind::Admit => {
                    lanes.push((site.clone(), Vec::new()));
                    lane_of.insert(site.clone(), lanes.len() - 1);
                    lanes.len() - 1
                }
                None => continue,
            };
            let bars = &mut lanes[lane].1;
            match r.event {
                Kind::Admit => {
                    bars.push(Bar {
                        call: call.clone(),
                        tool: r.tool.clone(),
                        session: r.session.clone(),
                        start: r.ts,
                        waited_ms: r.waited_ms.unwrap_or(0),
                        end: r.ts.saturating_add(r.hold_ms.unwrap_or(0)),
                        ended: End::Hold,
                        row: 0,
                    });
                    open.insert((lane, call.clone()), bars.len() - 1);
                }
                kind => {
                    let Some(b) = open.remove(&(lane, call.clone())) else {
                        continue;
                    };
                    let bar = &mut bars[b];
                    let at = match kind {
                        Kind::Finish => r.finished_ms.get(i).copied().unwrap_or(r.ts),
                        _ => r.ts,
                    };
                    bar.end = at.max(bar.start);
                    bar.ended = if kind == Kind::Finish {
                        End::Finish
                    } else {
                        End::Cancel
                    };
                }
            }
        }
    }
    for (_, bars) in &mut lanes {
        // Rows within a lane, so that bars that overlap (a call admitted
        // while another held the site) are both seen.
        let mut row_ends: Vec<EpochMs> = Vec::new();
        for bar in bars.iter_mut() {
            let from = bar.start.saturating_sub(bar.waited_ms);
            match row_ends.iter().position(|&e| e <= from) {
                Some(r) => {
                    bar.row = r;
                    row_ends[r] = bar.end;
                }
                None => {
                    bar.row = row_ends.len();
                    row_ends.push(bar.end);
                }
            }
        }
    }
    lanes
}

/// Escape `text` for XML content and attributes, dropping the characters
/// XML 1.0 cannot hold at all (most control characters).
pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to `max` characters, with `…` when cut.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// The colour of the `i`-th session.
fn colour(i: usize) -> String {
    match PALETTE.get(i) {
        Some(c) => (*c).to_owned(),
        None => {
            // Golden-angle hues, kept out of the reds (330°–30°).
            let hue = (200.0 + i as f64 * 137.508) % 300.0 + 30.0;
            format!("hsl({hue:.0}, 55%, 48%)")
        }
    }
}

/// A tick step that puts a label about every 110 px.
fn tick_step(span_ms: u64, plot_w: f64) -> u64 {
    const STEPS: &[u64] = &[
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000,
        120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000,
        43_200_000, 86_400_000,
    ];
    let most = (plot_w / 110.0).max(1.0);
    STEPS
        .iter()
        .copied()
        .find(|&s| span_ms as f64 / s as f64 <= most)
        .unwrap_or(86_400_000)
}

/// The session's label: the id, or what a call without one was.
fn session_label(session: Option<&str>) -> &str {
    session.unwrap_or("no session (pace-hook run, library)")
}

/// The timeline of `records` (one site with `only_site`) as an SVG document.
pub(crate) fn svg(records: &[Record], only_site: Option<&str>) -> String {
    let lanes = bars(records, only_site);
    let all_gaps = gaps::gaps(records);
    let mut sessions: Vec<Option<String>> = Vec::new();
    for (_, bars) in &lanes {
        for b in bars {
            if !sessions.contains(&b.session) {
                sessions.push(b.session.clone());
            }
        }
    }
    let session_colour: BTreeMap<Option<String>, String> = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| (s.clone(), colour(i)))
        .collect();

    let lane_backoffs = backoffs(records);
    let lane_gaps: Vec<&[Gap]> = lanes
        .iter()
        .map(|(site, _)| all_gaps.get(site).map_or(&[][..], Vec::as_slice))
        .collect();
    let calls: usize = lanes.iter().map(|(_, b)| b.len()).sum();
    let short: usize = lane_gaps
        .iter()
        .map(|g| g.iter().filter(|g| g.is_short()).count())
        .sum();
    let t0 = lanes
        .iter()
        .flat_map(|(_, b)| b.iter().map(|b| b.start.saturating_sub(b.waited_ms)))
        .min();
    let Some(t0) = t0 else {
        return empty_svg();
    };
    let t1 = lanes
        .iter()
        .flat_map(|(_, b)| b.iter().map(|b| b.end))
        .chain(
            lane_gaps
                .iter()
                .flat_map(|g| g.iter().map(|g| g.busy_until.saturating_add(g.interval_ms))),
        )
        .max()
        .unwrap_or(t0)
        .max(t0 + 1_000);
    let plot_w = WIDTH - LEFT - RIGHT;
    let x = |t: EpochMs| LEFT + (t.saturating_sub(t0)) as f64 / (t1 - t0) as f64 * plot_w;

    let top = 78.0;
    let lane_heights: Vec<f64> = lanes
        .iter()
        .map(|(_, b)| {
            let rows = b.iter().map(|b| b.row + 1).max().unwrap_or(1);
            rows as f64 * ROW + 22.0
        })
        .collect();
    let lanes_bottom = top + lane_heights.iter().sum::<f64>();

    // Legend layout: session swatches wrapped into rows, then the key.
    let mut legend = String::new();
    let mut lx = LEFT;
    let mut ly = lanes_bottom + 44.0;
    let _ = writeln!(
        legend,
        r##"<g class="legend"><text x="20" y="{:.1}" font-weight="600">sessions</text>"##,
        ly + 4.0
    );
    for s in &sessions {
        let label = clip(session_label(s.as_deref()), 40);
        let w = 22.0 + label.chars().count() as f64 * 6.8 + 18.0;
        if lx + w > WIDTH - RIGHT {
            lx = LEFT;
            ly += 20.0;
        }
        let _ = writeln!(
            legend,
            r##"<g class="session" data-session="{}"><title>{}</title><rect x="{lx:.1}" y="{:.1}" width="14" height="12" rx="2" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text></g>"##,
            esc(s.as_deref().unwrap_or("")),
            esc(session_label(s.as_deref())),
            ly - 6.0,
            session_colour[s],
            lx + 20.0,
            ly + 4.0,
            esc(&label)
        );
        lx += w;
    }
    ly += 28.0;
    let _ = writeln!(
        legend,
        r##"<text x="20" y="{:.1}" font-weight="600">key</text>"##,
        ly + 4.0
    );
    let mut kx = LEFT;
    for (i, label) in KEY.iter().enumerate() {
        let w = 30.0 + label.len() as f64 * 6.6 + 22.0;
        if kx + w > WIDTH - RIGHT {
            kx = LEFT;
            ly += 20.0;
        }
        let _ = writeln!(
            legend,
            r#"{}<text x="{:.1}" y="{:.1}">{}</text>"#,
            key_swatch(i, kx, ly - 6.0),
            kx + 30.0,
            ly + 4.0,
            esc(label)
        );
        kx += w;
    }
    legend.push_str("</g>\n");
    let height = ly + 26.0;

    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH:.0}" height="{height:.0}" viewBox="0 0 {WIDTH:.0} {height:.0}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', Arial, sans-serif" font-size="12" fill="#222">
<title>pace-hook timeline</title>
<rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r##"<text x="20" y="28" font-size="17" font-weight="600">pace-hook timeline</text>"##
    );
    let summary = format!(
        "{} on {}, {} – {} UTC; ",
        count(calls, "call", "calls"),
        count(lanes.len(), "site", "sites"),
        &clock_time(t0)[..8],
        &clock_time(t1)[..8]
    );
    let _ = writeln!(
        out,
        r##"<text x="20" y="48" fill="#555">{}<tspan fill="{}" font-weight="{}">{} under the interval</tspan></text>"##,
        esc(&summary),
        if short > 0 { RED } else { "#555" },
        if short > 0 { "600" } else { "400" },
        count(short, "gap", "gaps")
    );

    // Time axis and grid.
    let step = tick_step(t1 - t0, plot_w);
    let first = t0.div_ceil(step) * step;
    let _ = writeln!(out, r##"<g class="axis" fill="#555" font-size="11">"##);
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#999"/>"##,
        top - 6.0,
        WIDTH - RIGHT,
        top - 6.0
    );
    let mut t = first;
    while t <= t1 {
        let tx = x(t);
        let label = if step < 1_000 {
            clock_time(t)
        } else {
            clock_time(t)[..8].to_owned()
        };
        let _ = writeln!(
            out,
            r##"<line x1="{tx:.1}" y1="{:.1}" x2="{tx:.1}" y2="{lanes_bottom:.1}" stroke="#e4e4e4"/><line x1="{tx:.1}" y1="{:.1}" x2="{tx:.1}" y2="{:.1}" stroke="#999"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle">{label}</text>"##,
            top - 6.0,
            top - 10.0,
            top - 6.0,
            top - 14.0
        );
        t += step;
    }
    // In the site names' column, where no tick label can reach (a tick's
    // label is centred on it, and the first may sit at the plot's edge).
    let _ = writeln!(
        out,
        r##"<text x="20" y="{:.1}">time (UTC)</text></g>"##,
        top - 14.0
    );

    // Lanes.
    let mut y0 = top;
    for (li, (site, bars)) in lanes.iter().enumerate() {
        let h = lane_heights[li];
        let _ = writeln!(out, r##"<g class="lane" data-site="{}">"##, esc(site));
        if li % 2 == 0 {
            let _ = writeln!(
                out,
                r##"<rect x="0" y="{y0:.1}" width="{WIDTH:.0}" height="{h:.1}" fill="#f6f6f6" fill-opacity="0.7"/>"##
            );
        }
        let _ = writeln!(
            out,
            r##"<text x="20" y="{:.1}" font-weight="600"><title>{}</title>{}</text>"##,
            y0 + 4.0 + ROW / 2.0 + 4.0,
            esc(site),
            esc(&clip(site, 26))
        );
        // Interval lines first, under the bars; then short gaps over them.
        for g in lane_gaps[li] {
            let (a, b) = (
                x(g.busy_until),
                x(g.busy_until.saturating_add(g.interval_ms)),
            );
            let _ = writeln!(
                out,
                r##"<rect class="interval" x="{a:.1}" y="{:.1}" width="{:.1}" height="3" fill="#9a9a9a"><title>interval in force: {}</title></rect>"##,
                y0 + h - 9.0,
                (b - a).max(0.5),
                esc(&format_duration(g.interval_ms))
            );
        }
        for g in lane_gaps[li].iter().filter(|g| g.is_short()) {
            let (from, to) = if g.admitted >= g.busy_until {
                (g.busy_until, g.admitted)
            } else {
                (g.admitted, g.busy_until)
            };
            let (a, b) = (x(from), x(to));
            let w = (b - a).max(3.0);
            let a = if b - a < 3.0 { a - 1.5 } else { a };
            let _ = writeln!(
                out,
                r##"<g class="short-gap"><title>{}</title><rect class="short-gap" x="{a:.1}" y="{:.1}" width="{w:.1}" height="{:.1}" fill="{RED}" fill-opacity="0.22" stroke="{RED}" stroke-width="1.2"/><text x="{:.1}" y="{:.1}" fill="{RED}" font-size="11" font-weight="600" text-anchor="middle">{}</text></g>"##,
                esc(&format!(
                    "gap under the interval on {site}\n{} {} busy until {}\n{} {} admitted {}\ngap {} ms, interval {}",
                    g.after.1,
                    g.after.0,
                    clock_time(g.busy_until),
                    g.before.1,
                    g.before.0,
                    clock_time(g.admitted),
                    gaps::group(g.ms()),
                    format_duration(g.interval_ms)
                )),
                y0 + 2.0,
                h - 4.0,
                a + w / 2.0,
                y0 + 12.0,
                esc(&format!(
                    "{} < {}",
                    format_duration(g.ms().max(0) as u64),
                    format_duration(g.interval_ms)
                ))
            );
        }
        for (bi, bar) in bars.iter().enumerate() {
            let colour = &session_colour[&bar.session];
            let by = y0 + 12.0 + bar.row as f64 * ROW;
            let (xs, xe) = (x(bar.start), x(bar.end));
            let title = bar_title(site, bar);
            let _ = write!(
                out,
                r##"<g class="call-group"><title>{}</title>"##,
                esc(&title)
            );
            if bar.waited_ms > 0 {
                let from = bar.start.saturating_sub(bar.waited_ms);
                let causes = wait_causes(
                    bi,
                    from,
                    bar.start,
                    bars,
                    lane_gaps[li],
                    lane_backoffs
                        .get(site.as_str())
                        .map_or(&[][..], Vec::as_slice),
                );
                for (a, b, cause) in causes {
                    let (xa, xb) = (x(a), x(b));
                    let w = (xb - xa).max(0.5);
                    let _ = write!(
                        out,
                        r##"<g class="wait" data-cause="{}"><title>waited {} ({} – {}): {}</title><rect class="wait" x="{xa:.1}" y="{:.1}" width="{w:.1}" height="{BAR}" fill="{colour}" fill-opacity="0.22" stroke="#ffffff" stroke-width="1"/>"##,
                        cause.label(),
                        esc(&format_duration(b - a)),
                        clock_time(a),
                        clock_time(b),
                        cause.says(),
                        by,
                    );
                    let label = cause.label();
                    // 10 px text is about 6 px a character: drawn where it fits.
                    if !label.is_empty() && w >= label.len() as f64 * 6.0 + 6.0 {
                        let _ = write!(
                            out,
                            r##"<text x="{:.1}" y="{:.1}" font-size="10" fill="#333" text-anchor="middle">{label}</text>"##,
                            xa + w / 2.0,
                            by + BAR / 2.0 + 3.5
                        );
                    }
                    out.push_str("</g>");
                }
            }
            let w = (xe - xs).max(3.0);
            let _ = match bar.ended {
                End::Finish => write!(
                    out,
                    r##"<rect class="call" x="{xs:.1}" y="{by:.1}" width="{w:.1}" height="{BAR}" rx="2" fill="{colour}"/>"##
                ),
                End::Hold => write!(
                    out,
                    r##"<rect class="call" x="{xs:.1}" y="{by:.1}" width="{w:.1}" height="{BAR}" rx="2" fill="{colour}" fill-opacity="0.45" stroke="{colour}" stroke-dasharray="4 2"/>"##
                ),
                End::Cancel => write!(
                    out,
                    r##"<rect class="call cancelled" x="{xs:.1}" y="{by:.1}" width="{w:.1}" height="{BAR}" rx="2" fill="none" stroke="#888" stroke-dasharray="2 2"/>"##
                ),
            };
            out.push_str("</g>\n");
        }
        out.push_str("</g>\n");
        y0 += h;
    }
    out.push_str(&legend);
    out.push_str("</svg>\n");
    out
}

/// What each mark means, in the order [`key_swatch`] draws them.
const KEY: [&str; 5] = [
    "call: admission to finish",
    "a wait, named by its cause: in flight, backoff, interval, queue",
    "no finish recorded: to its hold's end",
    "interval in force after the site was busy",
    "gap under the interval",
];

/// The swatch of [`KEY`]'s `i`-th mark, its top left at (`x`, `y`).
fn key_swatch(i: usize, x: f64, y: f64) -> String {
    let at = format!(r#"x="{x:.1}" y="{y:.1}""#);
    match i {
        0 => format!(r##"<rect {at} width="22" height="12" rx="2" fill="#777"/>"##),
        1 => format!(r##"<rect {at} width="22" height="12" fill="#777" fill-opacity="0.22"/>"##),
        2 => format!(
            r##"<rect {at} width="22" height="12" rx="2" fill="#777" fill-opacity="0.45" stroke="#777" stroke-dasharray="4 2"/>"##
        ),
        3 => format!(
            r##"<rect x="{x:.1}" y="{:.1}" width="22" height="3" fill="#9a9a9a"/>"##,
            y + 5.0
        ),
        _ => format!(
            r#"<rect {at} width="22" height="12" fill="{RED}" fill-opacity="0.22" stroke="{RED}"/>"#
        ),
    }
}

fn bar_title(site: &str, bar: &Bar) -> String {
    let mut t = format!(
        "{} on {site}\ncall {}\nsession {}\nadmitted {}",
        bar.tool,
        bar.call,
        session_label(bar.session.as_deref()),
        clock_time(bar.start)
    );
    if bar.waited_ms > 0 {
        let _ = write!(t, " after waiting {}", format_duration(bar.waited_ms));
    }
    let took = format_duration(bar.end.saturating_sub(bar.start));
    let _ = match bar.ended {
        End::Finish => write!(t, "\nfinished {} ({took})", clock_time(bar.end)),
        End::Hold => write!(
            t,
            "\nno finish recorded: held until {} ({took})",
            clock_time(bar.end)
        ),
        End::Cancel => write!(
            t,
            "\ntaken back at {}: it sent nothing",
            clock_time(bar.end)
        ),
    };
    t
}

fn empty_svg() -> String {
    r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="600" height="80" viewBox="0 0 600 80" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', Arial, sans-serif" font-size="14">
<title>pace-hook timeline</title>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="20" y="44" fill="#555">no admissions in the gate log yet</text>
</svg>
"##
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(event: Kind, ts: EpochMs, call: &str, session: &str) -> Record {
        let mut r = Record::new(event, ts, "navigate");
        r.sites = vec!["example.com".into()];
        r.call = Some(call.into());
        r.session = Some(session.into());
        r.interval_ms = Some(10_000);
        r.hold_ms = Some(120_000);
        r
    }

    #[test]
    fn a_call_ends_at_its_finish_or_else_its_hold() {
        let log = [
            rec(Kind::Admit, 0, "a", "s1"),
            rec(Kind::Finish, 500, "a", "s1"),
            rec(Kind::Admit, 10_500, "b", "s2"),
        ];
        let lanes = bars(&log, None);
        let b = &lanes[0].1;
        assert_eq!((b[0].end, b[0].ended), (500, End::Finish));
        assert_eq!((b[1].end, b[1].ended), (130_500, End::Hold));
    }

    #[test]
    fn text_from_the_log_cannot_break_out_of_the_picture() {
        let mut r = rec(Kind::Admit, 0, "</title><script>x</script>", "s\u{1}\"&'<");
        r.tool = "<b>".into();
        let svg = svg(&[r], None);
        assert!(!svg.contains("<script>"), "{svg}");
        assert!(!svg.contains('\u{1}'));
        assert!(svg.contains("&lt;/title&gt;&lt;script&gt;"));
        assert!(svg.contains("s&quot;&amp;&apos;&lt;"));
    }

    #[test]
    fn ticks_land_about_every_hundred_pixels() {
        assert_eq!(tick_step(20_000, 980.0), 5_000);
        assert_eq!(tick_step(600, 980.0), 100);
        assert_eq!(tick_step(3_600_000, 980.0), 600_000);
    }

    fn admit(ts: EpochMs, call: &str, waited: u64, interval: u64, hold: u64) -> Record {
        let mut r = rec(Kind::Admit, ts, call, call);
        r.waited_ms = Some(waited);
        r.interval_ms = Some(interval);
        r.hold_ms = Some(hold);
        r
    }

    /// A finish as the hook logs it: no interval or hold of its own.
    fn finish(ts: EpochMs, call: &str) -> Record {
        let mut r = rec(Kind::Finish, ts, call, call);
        r.interval_ms = None;
        r.hold_ms = None;
        r
    }

    /// The causes of the wait of `call` in `log`, on example.com.
    fn causes_of(log: &[Record], call: &str) -> Vec<(EpochMs, EpochMs, Cause)> {
        let lanes = bars(log, None);
        let bars = &lanes[0].1;
        let me = bars.iter().position(|b| b.call == call).unwrap();
        let gaps = gaps::gaps(log);
        let backoffs = backoffs(log);
        let b = &bars[me];
        wait_causes(
            me,
            b.start - b.waited_ms,
            b.start,
            bars,
            &gaps["example.com"],
            backoffs.get("example.com").map_or(&[][..], Vec::as_slice),
        )
    }

    #[test]
    fn a_wait_behind_a_call_with_no_post_is_its_hold_then_the_interval() {
        // C is admitted at 0 and its Post never comes: it holds the site
        // 5 s. D arrives at 1 s and goes at 7 s, 2 s after the hold's end.
        let log = [
            admit(0, "C", 0, 2_000, 5_000),
            admit(7_000, "D", 6_000, 2_000, 5_000),
            finish(7_100, "D"),
        ];
        assert_eq!(
            causes_of(&log, "D"),
            [
                (1_000, 5_000, Cause::InFlight),
                (5_000, 7_000, Cause::Interval)
            ]
        );
    }

    #[test]
    fn a_wait_for_a_backoff_is_the_backoffs_even_where_the_interval_also_ran() {
        // E finishes at 100 ms and the site answers 429 with Retry-After 4 s;
        // F waits from then to the backoff's end. The 2 s interval ran in
        // the same time, but the backoff is what held F longest.
        let mut backoff = rec(Kind::Backoff, 100, "E", "E");
        backoff.until_ms = Some(4_100);
        let log = [
            admit(0, "E", 0, 2_000, 5_000),
            finish(100, "E"),
            backoff,
            admit(4_100, "F", 4_000, 2_000, 5_000),
        ];
        assert_eq!(causes_of(&log, "F"), [(100, 4_100, Cause::Backoff)]);
        // A log from before `until_ms` was recorded: the interval, and
        // after it nothing said.
        let mut old = log.clone();
        old[2].until_ms = None;
        assert_eq!(
            causes_of(&old, "F"),
            [(100, 2_100, Cause::Interval), (2_100, 4_100, Cause::Other)]
        );
    }

    #[test]
    fn a_backoff_cleared_by_hand_ends_where_it_was_cleared() {
        let mut set = rec(Kind::Backoff, 100, "E", "E");
        set.until_ms = Some(60_000);
        let mut cleared = rec(Kind::Backoff, 3_000, "E", "E");
        cleared.until_ms = Some(3_000);
        let log = [set, cleared];
        let spans = backoffs(&log);
        assert_eq!(spans["example.com"], [(100, 3_000)]);
    }

    #[test]
    fn time_no_call_interval_or_backoff_explains_is_the_queue_when_others_went_first() {
        // A runs 0-1 s; B and C wait; B goes at 2 s and runs to 2.5 s; C
        // goes at 4 s, half a second after B's interval ended (jitter, a
        // slow head): while B went first, that is C's place in the queue.
        let log = [
            admit(0, "A", 0, 1_000, 5_000),
            finish(1_000, "A"),
            admit(2_000, "B", 1_500, 1_000, 5_000),
            finish(2_500, "B"),
            admit(4_000, "C", 3_400, 1_000, 5_000),
        ];
        assert_eq!(
            causes_of(&log, "C"),
            [
                (600, 1_000, Cause::InFlight),
                (1_000, 2_000, Cause::Interval),
                (2_000, 2_500, Cause::InFlight),
                (2_500, 3_500, Cause::Interval),
                (3_500, 4_000, Cause::Queue),
            ]
        );
    }

    #[test]
    fn the_summary_counts_in_words_and_the_axis_names_its_zone_clear_of_the_ticks() {
        let one = svg(&[rec(Kind::Admit, 0, "a", "s1")], None);
        assert!(one.contains(">1 call on 1 site, "), "{one}");
        assert!(one.contains(">0 gaps under the interval<"), "{one}");
        assert!(!one.contains("(s)"), "{one}");
        // A tick falls on the plot's left edge (the first call is at a
        // whole minute), its label centred there; the zone's label is in
        // the names' column, 170 px to its left, not against it.
        assert!(
            one.contains(r#"text-anchor="middle">00:00:00</text>"#)
                && one.contains(r#"x1="190.0""#),
            "{one}"
        );
        assert!(
            one.contains(r#"<text x="20" y="64.0">time (UTC)</text>"#),
            "{one}"
        );
    }

    #[test]
    fn an_empty_log_draws_a_note() {
        assert!(svg(&[], None).contains("no admissions"));
    }
}
