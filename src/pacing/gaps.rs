//! `pace-hook gaps`: the gate log turned back into gaps.
//!
//! For each site the log is replayed through the same [`SiteState`] the gate
//! keeps, so a call whose Post never came counts as busy until its hold ran
//! out, exactly as the gate saw it. A gap is from the moment the site was last
//! busy to the next admission.

use std::{collections::BTreeMap, fmt::Write as _};

use crate::{
    duration::format_duration,
    pacing::clock::EpochMs,
    pacing::decision::{Policy, SiteState},
    pacing::log::{Kind, Record},
};

/// One finish→next-start gap on one site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// The call that last kept the site busy, and its tool.
    pub after: (String, String),
    /// The call admitted next, and its tool.
    pub before: (String, String),
    /// When the site stopped being busy.
    pub busy_until: EpochMs,
    /// When the next call was admitted.
    pub admitted: EpochMs,
    /// The interval in force at that admission: the strictest of the one
    /// its caller required and those the callers of earlier calls did.
    pub interval_ms: u64,
}

impl Gap {
    /// The gap in ms; negative if the call was admitted while the site was busy.
    pub fn ms(&self) -> i64 {
        self.admitted as i64 - self.busy_until as i64
    }

    /// Whether the gap is shorter than the interval in force.
    pub fn is_short(&self) -> bool {
        self.ms() < self.interval_ms as i64
    }
}

/// Whether a log record is a second pace-hook for a call already admitted
/// (two settings files running the hook): the gate lets it through on
/// purpose, and it starts nothing.
pub fn is_duplicate(r: &Record) -> bool {
    r.reason
        .as_deref()
        .is_some_and(|w| w.starts_with("duplicate"))
}

/// Every gap, per site, in order. This is the gate's own invariant checked
/// from the outside: the log is replayed through the same [`SiteState`]
/// steps the gate applies, and an admission earlier than the state allows
/// is a short gap.
pub fn gaps(records: &[Record]) -> BTreeMap<String, Vec<Gap>> {
    // One step per site of each record, at that site's own time: a call
    // that needs several sites takes them one after another (admitted_ms),
    // and its finish is written on them one after another (finished_ms).
    struct Step<'r> {
        at: EpochMs,
        seq: usize,
        record: &'r Record,
        site: usize,
    }
    let mut steps: Vec<Step<'_>> = Vec::new();
    for r in records
        .iter()
        .filter(|r| matches!(r.event, Kind::Admit | Kind::Finish | Kind::Cancel))
        .filter(|r| !is_duplicate(r))
    {
        for i in 0..r.sites.len() {
            let own = match r.event {
                Kind::Admit => r.admitted_ms.get(i),
                Kind::Finish => r.finished_ms.get(i),
                _ => None,
            };
            steps.push(Step {
                at: own.copied().unwrap_or(r.ts).min(r.ts),
                seq: steps.len(),
                record: r,
                site: i,
            });
        }
    }
    steps.sort_by_key(|s| (s.at, s.seq));
    let mut tools: BTreeMap<&str, &str> = BTreeMap::new();
    let mut sites: BTreeMap<String, (SiteState, BTreeMap<String, EpochMs>)> = BTreeMap::new();
    let mut out: BTreeMap<String, Vec<Gap>> = BTreeMap::new();
    for Step {
        at,
        record: r,
        site: i,
        ..
    } in steps
    {
        let call = r.call.as_deref().unwrap_or("");
        let site = &r.sites[i];
        if r.event == Kind::Admit {
            tools.insert(call, &r.tool);
        }
        let (state, finishes) = sites
            .entry(site.clone())
            .or_insert_with(|| (SiteState::new(site), BTreeMap::new()));
        let interval_ms = r
            .intervals_ms
            .get(i)
            .copied()
            .or(r.interval_ms)
            .unwrap_or(0);
        match r.event {
            Kind::Admit => {
                // A site taken before the call's last one was held from then
                // until a hold after the last one let it in.
                let policy = Policy {
                    interval_ms,
                    hold_ms: r.hold_ms.unwrap_or(0).saturating_add(r.ts - at),
                    budget: None,
                };
                if let (Some(busy), Some(ready)) = (state.busy_until(), state.ready_at(&policy)) {
                    let by = state
                        .in_flight
                        .iter()
                        .find(|f| f.until_ms == busy)
                        .map(|f| f.call.clone())
                        .or_else(|| {
                            finishes
                                .iter()
                                .find(|(_, t)| **t == busy)
                                .map(|(c, _)| c.clone())
                        })
                        .unwrap_or_default();
                    let by_tool = tools.get(by.as_str()).copied().unwrap_or("").to_owned();
                    out.entry(site.clone()).or_default().push(Gap {
                        after: (by, by_tool),
                        before: (call.to_owned(), r.tool.clone()),
                        busy_until: busy,
                        admitted: at,
                        interval_ms: ready.saturating_sub(busy),
                    });
                }
                state.admit(call, at, &policy, None);
            }
            Kind::Cancel => {
                state.cancel(call);
            }
            _ => {
                state.finish(call, at, interval_ms);
                finishes.insert(call.to_owned(), at);
            }
        }
    }
    out
}

/// The report `pace-hook gaps` prints, and whether any gap was short.
/// Every site the log admitted a call to is listed (one with no gap yet
/// says so); a site asked for that the log never admitted is said to be
/// missing, with the sites the log does have.
pub fn report(records: &[Record], only_site: Option<&str>) -> (String, bool) {
    let mut text = String::new();
    let mut any_short = false;
    let all = gaps(records);
    let admitted: std::collections::BTreeSet<&str> = records
        .iter()
        .filter(|r| r.event == Kind::Admit && !is_duplicate(r))
        .flat_map(|r| r.sites.iter().map(String::as_str))
        .collect();
    let none = Vec::new();
    for site in admitted
        .iter()
        .copied()
        .filter(|s| only_site.is_none_or(|o| o == *s))
    {
        let gaps = all.get(site).unwrap_or(&none);
        let smallest = gaps.iter().map(Gap::ms).min();
        let _ = writeln!(text, "{site}");
        for g in gaps {
            let mark = if g.is_short() { "  SHORT" } else { "" };
            let _ = writeln!(
                text,
                "  {} {} busy until {} -> {} {} admitted {}: {} ms (interval {}){mark}",
                g.after.1,
                g.after.0,
                clock_time(g.busy_until),
                g.before.1,
                g.before.0,
                clock_time(g.admitted),
                group(g.ms()),
                format_duration(g.interval_ms),
            );
        }
        let short: Vec<&Gap> = gaps.iter().filter(|g| g.is_short()).collect();
        any_short |= !short.is_empty();
        match smallest {
            Some(s) => {
                let _ = writeln!(
                    text,
                    "  {} gap{}, smallest {} ms, {} under the interval",
                    gaps.len(),
                    if gaps.len() == 1 { "" } else { "s" },
                    group(s),
                    short.len()
                );
            }
            None => {
                let _ = writeln!(text, "  no gaps yet");
            }
        }
    }
    if admitted.is_empty() {
        text.push_str("no admissions in the log yet\n");
    } else if let Some(site) = only_site
        && !admitted.contains(site)
    {
        let known: Vec<&str> = admitted.iter().copied().collect();
        let _ = writeln!(
            text,
            "no calls to {site} in the gate log; it has {}",
            known.join(", ")
        );
    }
    (text, any_short)
}

/// `01:18:28.058` (UTC) for an epoch ms.
pub fn clock_time(ms: EpochMs) -> String {
    let day = ms % 86_400_000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        day / 3_600_000,
        day / 60_000 % 60,
        day / 1_000 % 60,
        day % 1_000
    )
}

/// `10000` → `10,000`.
pub fn group(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(event: Kind, ts: EpochMs, call: &str) -> Record {
        let mut r = Record::new(event, ts, "navigate");
        r.sites = vec!["example.com".into()];
        r.call = Some(call.into());
        r.interval_ms = Some(10_000);
        r.hold_ms = Some(120_000);
        r
    }

    #[test]
    fn gap_runs_from_finish_to_next_admission() {
        let log = [
            rec(Kind::Admit, 0, "a"),
            rec(Kind::Finish, 500, "a"),
            rec(Kind::Admit, 10_500, "b"),
        ];
        let g = &gaps(&log)["example.com"];
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].ms(), 10_000);
        assert!(!g[0].is_short());
        assert_eq!(g[0].after.0, "a");
    }

    #[test]
    fn missing_post_counts_the_hold() {
        let log = [rec(Kind::Admit, 0, "a"), rec(Kind::Admit, 130_000, "b")];
        assert_eq!(gaps(&log)["example.com"][0].ms(), 10_000);
    }

    #[test]
    fn short_gaps_are_reported() {
        let log = [
            rec(Kind::Admit, 0, "a"),
            rec(Kind::Finish, 500, "a"),
            rec(Kind::Admit, 9_000, "b"),
        ];
        let (text, short) = report(&log, None);
        assert!(short);
        assert!(text.contains("8,500 ms (interval 10 s)  SHORT"), "{text}");
    }

    #[test]
    fn each_site_is_checked_against_its_own_interval() {
        let mut slow = rec(Kind::Admit, 0, "a");
        slow.sites = vec!["example.com".into(), "social".into()];
        slow.intervals_ms = vec![10_000, 30_000];
        let mut done = rec(Kind::Finish, 1_000, "a");
        done.sites = slow.sites.clone();
        let mut next = rec(Kind::Admit, 21_000, "b");
        next.sites = slow.sites.clone();
        next.intervals_ms = vec![10_000, 30_000];
        let all = gaps(&[slow, done, next]);
        assert!(!all["example.com"][0].is_short());
        assert!(all["social"][0].is_short());
    }

    #[test]
    fn a_gap_is_judged_by_the_strictest_interval_in_force() {
        // The first caller required 10 s; the next one's config says 1 s.
        let mut fast = rec(Kind::Admit, 5_000, "b");
        fast.interval_ms = Some(1_000);
        let log = [rec(Kind::Admit, 0, "a"), rec(Kind::Finish, 500, "a"), fast];
        let g = &gaps(&log)["example.com"][0];
        assert_eq!(g.interval_ms, 10_000);
        assert!(g.is_short());
    }

    #[test]
    fn a_duplicate_hook_for_a_call_is_no_gap() {
        let mut dup = rec(Kind::Admit, 100, "a");
        dup.reason = Some("duplicate: this call already holds its sites".into());
        let log = [
            rec(Kind::Admit, 0, "a"),
            dup,
            rec(Kind::Finish, 500, "a"),
            rec(Kind::Admit, 10_500, "b"),
        ];
        let g = &gaps(&log)["example.com"];
        assert_eq!(g.len(), 1);
        assert!(!g[0].is_short());
    }

    #[test]
    fn a_site_taken_before_the_calls_last_is_judged_when_it_was_taken() {
        // a's hold on b.test ran out at 1,500; the multi-site call took
        // b.test at 1,700 and c.test at 5,000; a's Post came late, at 4,000.
        let mut a = rec(Kind::Admit, 0, "a");
        a.hold_ms = Some(1_500);
        a.interval_ms = Some(150);
        a.sites = vec!["b.test".into()];
        let mut late = rec(Kind::Finish, 4_000, "a");
        late.sites = vec!["b.test".into()];
        let mut m = rec(Kind::Admit, 5_000, "m");
        m.sites = vec!["b.test".into(), "c.test".into()];
        m.admitted_ms = vec![1_700, 5_000];
        m.interval_ms = Some(150);
        let all = gaps(&[a, late, m.clone()]);
        assert!(!all["b.test"][0].is_short(), "{:?}", all["b.test"]);
        // Without the per-site times it would look like a short gap.
        m.admitted_ms.clear();
        let mut a = rec(Kind::Admit, 0, "a");
        a.hold_ms = Some(1_500);
        a.interval_ms = Some(150);
        a.sites = vec!["b.test".into()];
        let mut late = rec(Kind::Finish, 4_000, "a");
        late.sites = vec!["b.test".into()];
        let mut m2 = m;
        m2.ts = 4_050;
        assert!(gaps(&[a, late, m2])["b.test"][0].is_short());
    }

    #[test]
    fn times_and_numbers_are_formatted() {
        assert_eq!(clock_time(86_400_000 + 4_698_058), "01:18:18.058");
        assert_eq!(group(10_000), "10,000");
        assert_eq!(group(-1_234_567), "-1,234,567");
    }
}
