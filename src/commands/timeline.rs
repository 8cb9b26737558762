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
        "{calls} call(s) on {} site(s), {} – {} UTC; ",
        lanes.len(),
        &clock_time(t0)[..8],
        &clock_time(t1)[..8]
    );
    let _ = writeln!(
        out,
        r##"<text x="20" y="48" fill="#555">{}<tspan fill="{}" font-weight="{}">{short} gap(s) under the interval</tspan></text>"##,
        esc(&summary),
        if short > 0 { RED } else { "#555" },
        if short > 0 { "600" } else { "400" }
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
    let _ = writeln!(
        out,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="end">UTC</text></g>"##,
        LEFT - 8.0,
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
        for bar in bars {
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
                let xw = x(bar.start.saturating_sub(bar.waited_ms));
                let _ = write!(
                    out,
                    r##"<rect class="wait" x="{xw:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}" fill-opacity="0.25"/>"##,
                    by + 3.0,
                    (xs - xw).max(0.5),
                    BAR - 6.0
                );
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
    "waiting for its turn",
    "no finish recorded: to its hold's end",
    "interval in force after the site was busy",
    "gap under the interval",
];

/// The swatch of [`KEY`]'s `i`-th mark, its top left at (`x`, `y`).
fn key_swatch(i: usize, x: f64, y: f64) -> String {
    let at = format!(r#"x="{x:.1}" y="{y:.1}""#);
    match i {
        0 => format!(r##"<rect {at} width="22" height="12" rx="2" fill="#777"/>"##),
        1 => format!(r##"<rect {at} width="22" height="12" fill="#777" fill-opacity="0.25"/>"##),
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

    #[test]
    fn an_empty_log_draws_a_note() {
        assert!(svg(&[], None).contains("no admissions"));
    }
}
