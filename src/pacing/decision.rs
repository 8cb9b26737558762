//! The pacing decision, and the per-site state it reads: pure functions of
//! `now`, the state and the policy, with no I/O and no clock of their own.
//! Every store applies these same steps under its own atomicity (a file lock,
//! a mutex); the Redis store runs the same rules in one server-side script.
//!
//! Invariant kept here: a call is admitted to a site only when `now` is at
//! least the strictest interval after the site was last busy, where "busy"
//! covers the real finish of every completed call and the hold of every call
//! still in flight, and "strictest" is the largest interval required by the
//! caller now asking or by the caller of any of those earlier calls. Processes
//! whose configs disagree therefore still meet on one gate: each finish and
//! each hold carries the interval its own caller requires.
//!
//! Time arithmetic saturates, so an absurd timestamp can only make the gate
//! wait longer, never admit early; and a time found in the future (the wall
//! clock stepped back, or a file was edited) is brought back to `now`, keeping
//! its length, and written back, so a step back of any size costs at most
//! one hold plus one interval.

use serde::{Deserialize, Serialize};

use crate::pacing::clock::EpochMs;

/// A stored time more than this far in the future means the clock stepped
/// back (or the state was edited): finishes are rounded up and admissions
/// down, so honest times are never more than a millisecond ahead of a reader.
pub const CLOCK_SLACK_MS: u64 = 1_000;

/// No hold, interval or backoff read from the state lasts longer than this,
/// whatever a tampered file says: a bad file can slow a site, not wedge it.
pub const CEILING_MS: u64 = 24 * 3_600_000;

/// How a site is paced, as one caller's config says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Policy {
    /// Least time from the end of one request to the start of the next.
    pub interval_ms: u64,
    /// How long an admitted call keeps the site busy if no Post event comes.
    pub hold_ms: u64,
    /// At most this many admissions in any window of this length.
    pub budget: Option<Budget>,
}

impl Policy {
    /// How long a state rebuilt as lost with this policy ([`SiteState::lost`])
    /// keeps its site busy: a hold, then an interval.
    pub fn lost_for_ms(&self) -> u64 {
        self.hold_ms.saturating_add(self.interval_ms)
    }
}

/// At most `calls` admissions to a site in any sliding window of
/// `window_ms`, counted across every process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// How many.
    pub calls: u32,
    /// In how long.
    pub window_ms: u64,
}

/// The most admission times a site keeps for budgets, whatever a config asks.
pub const MAX_BUDGET_CALLS: u32 = 10_000;

/// What the gate should do with a call for one site, now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Admit the call now.
    Go,
    /// This very call already holds the site (a second pace-hook for the
    /// same call, from a second settings file): let it through, record
    /// nothing new.
    Duplicate,
    /// Not before `until` (epoch ms); the state may change sooner.
    WaitUntil(EpochMs),
    /// The caller's budget for the site is spent until `until`: block now,
    /// a wait that long would outlive the hook.
    OverBudget(EpochMs),
}

/// A call admitted to a site whose finish has not been recorded yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlight {
    /// The call's key: its session, agent and `tool_use_id` (or a generated
    /// id for `pace-hook run`).
    pub call: String,
    /// When it was admitted.
    pub started_ms: EpochMs,
    /// When its hold runs out if no finish is recorded.
    pub until_ms: EpochMs,
    /// The interval its caller requires after it.
    #[serde(default)]
    pub interval_ms: u64,
    /// Set while the call still waits for another of its sites: the lease of
    /// the waiting process. A hold whose lease has lapsed was never used (the
    /// call sent nothing) and is dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<String>,
}

/// The site was told to slow down (HTTP 429 or 503, or by hand): no start
/// before `until_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backoff {
    /// When it was set.
    pub set_ms: EpochMs,
    /// No start before this.
    pub until_ms: EpochMs,
    /// How many times in a row the site pushed back; the next doubling
    /// starts from here. Reset by a success.
    #[serde(default)]
    pub strikes: u32,
}

/// Everything the gate keeps about one site.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteState {
    /// The site key this state belongs to.
    pub site: String,
    /// Latest real finish of a request to the site.
    #[serde(default)]
    pub last_finish_ms: Option<EpochMs>,
    /// The strictest wait after `last_finish_ms` that any finish so far
    /// requires: the next start is not before `last_finish_ms + after_ms`.
    #[serde(default)]
    pub after_ms: u64,
    /// Calls admitted and not yet finished.
    #[serde(default)]
    pub in_flight: Vec<InFlight>,
    /// Set while the site has asked for less traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff: Option<Backoff>,
    /// The latest admission times, oldest first, for budgets: at most
    /// `keep` of them, the largest budget any caller has asked about.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub admits: Vec<EpochMs>,
    /// How many admission times to keep.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub keep: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl SiteState {
    /// An empty state for `site`.
    pub fn new(site: &str) -> Self {
        Self {
            site: site.to_owned(),
            ..Self::default()
        }
    }

    /// A site whose state was lost (unreadable, emptied, removed): busy as if
    /// a call had been admitted at `now` and were still in flight for `hold`,
    /// since one may well be. Unreadable never means free.
    pub fn lost(site: &str, now: EpochMs, policy: &Policy) -> Self {
        let mut s = Self::new(site);
        s.last_finish_ms = Some(now);
        s.after_ms = policy.interval_ms;
        s.in_flight.push(InFlight {
            call: "[lost state]".to_owned(),
            started_ms: now,
            until_ms: now.saturating_add(policy.hold_ms),
            interval_ms: policy.interval_ms,
            lease: None,
        });
        s
    }

    /// The earliest time a caller with `policy` may start, as the state
    /// stands (`None`: at once, nothing was ever recorded).
    pub fn ready_at(&self, policy: &Policy) -> Option<EpochMs> {
        let finish = self
            .last_finish_ms
            .map(|t| t.saturating_add(self.after_ms.max(policy.interval_ms)));
        let holds = self.in_flight.iter().map(|f| {
            f.until_ms
                .saturating_add(f.interval_ms.max(policy.interval_ms))
        });
        let backoff = self.backoff.map(|b| b.until_ms);
        finish.into_iter().chain(holds).chain(backoff).max()
    }

    /// The time until which the site counts as busy: the latest real finish or
    /// the latest hold of a call still in flight, whichever is later.
    pub fn busy_until(&self) -> Option<EpochMs> {
        let holds = self.in_flight.iter().map(|f| f.until_ms);
        self.last_finish_ms.into_iter().chain(holds).max()
    }

    /// When a caller with `budget` may be admitted again, if its budget is
    /// spent now: the admission that would fall out of the window.
    pub fn budget_spent(&self, now: EpochMs, budget: &Budget) -> Option<EpochMs> {
        let n = budget.calls as usize;
        if n == 0 {
            return Some(now.saturating_add(budget.window_ms));
        }
        let oldest = *self
            .admits
            .len()
            .checked_sub(n)
            .and_then(|i| self.admits.get(i))?;
        let free = oldest.saturating_add(budget.window_ms);
        (free > now).then_some(free)
    }

    /// The site answered "too many requests" (429) or "unavailable" (503)
    /// at `now`: no start before `now + retry_after` when the site said how
    /// long, else a wait that doubles with each push-back in a row, from the
    /// interval up to `max_ms`. An existing backoff is never shortened.
    /// Returns the time the site is free again.
    pub fn push_back(
        &mut self,
        now: EpochMs,
        retry_after_ms: Option<u64>,
        interval_ms: u64,
        max_ms: u64,
    ) -> EpochMs {
        let strikes = self.backoff.map_or(0, |b| b.strikes).saturating_add(1);
        let wait = match retry_after_ms {
            Some(ms) => ms,
            None => interval_ms
                .max(1)
                .saturating_mul(1u64 << (strikes - 1).min(40))
                .min(max_ms),
        }
        .min(CEILING_MS);
        let until = now
            .saturating_add(wait)
            .max(self.backoff.map_or(0, |b| b.until_ms));
        self.backoff = Some(Backoff {
            set_ms: now,
            until_ms: until,
            strikes,
        });
        until
    }

    /// Hold the site back by hand until `now + for_ms` (`pace-hook backoff`).
    pub fn hold_back(&mut self, now: EpochMs, for_ms: u64) -> EpochMs {
        let until = now.saturating_add(for_ms.min(CEILING_MS));
        self.backoff = Some(Backoff {
            set_ms: now,
            until_ms: until,
            strikes: self.backoff.map_or(0, |b| b.strikes),
        });
        until
    }

    /// The site answered a request well: the next push-back starts the
    /// doubling afresh. A backoff still running stays (the success came
    /// from a call that started before it, or it was set by hand).
    /// Returns whether anything changed.
    pub fn relieve(&mut self, now: EpochMs) -> bool {
        match &mut self.backoff {
            Some(b) if b.until_ms <= now => {
                self.backoff = None;
                true
            }
            Some(b) if b.strikes > 0 => {
                b.strikes = 0;
                true
            }
            _ => false,
        }
    }

    /// Whether `call` is already in flight here.
    pub fn holds(&self, call: &str) -> bool {
        self.in_flight.iter().any(|f| f.call == call)
    }

    /// Bring times that lie in the future back to `now`, keeping each hold's
    /// and backoff's length, and cap lengths at [`CEILING_MS`]. Returns
    /// whether anything changed (the caller then writes the state back, so
    /// the correction is made once, not recomputed on every wake).
    pub fn normalize(&mut self, now: EpochMs) -> bool {
        let ahead = |t: EpochMs| t > now.saturating_add(CLOCK_SLACK_MS);
        let before = self.clone();
        if let Some(t) = self.last_finish_ms
            && ahead(t)
        {
            self.last_finish_ms = Some(now);
        }
        self.after_ms = self.after_ms.min(CEILING_MS);
        for f in &mut self.in_flight {
            let len = f.until_ms.saturating_sub(f.started_ms).min(CEILING_MS);
            if ahead(f.started_ms) {
                f.started_ms = now;
            }
            f.until_ms = f.until_ms.min(f.started_ms.saturating_add(len));
            f.interval_ms = f.interval_ms.min(CEILING_MS);
        }
        for t in &mut self.admits {
            if ahead(*t) {
                *t = now;
            }
        }
        if let Some(b) = &mut self.backoff {
            let len = b.until_ms.saturating_sub(b.set_ms).min(CEILING_MS);
            if ahead(b.set_ms) {
                b.set_ms = now;
            }
            b.until_ms = b.until_ms.min(b.set_ms.saturating_add(len));
        }
        *self != before
    }

    /// Drop the holds of calls that were never sent: those whose lease
    /// `alive` says has lapsed. Returns whether any was dropped.
    pub fn drop_lapsed(&mut self, alive: impl Fn(&str) -> bool) -> bool {
        let n = self.in_flight.len();
        self.in_flight
            .retain(|f| f.lease.as_deref().is_none_or(&alive));
        self.in_flight.len() != n
    }

    /// Admit `call` now if the site is due for a caller with `policy`;
    /// otherwise say until when to wait. `lease` marks a hold taken while the
    /// call still waits for another site.
    pub fn try_admit(
        &mut self,
        call: &str,
        now: EpochMs,
        policy: &Policy,
        lease: Option<&str>,
    ) -> Decision {
        self.normalize(now);
        if self.holds(call) {
            return Decision::Duplicate;
        }
        if let Some(budget) = &policy.budget {
            self.keep = self.keep.max(budget.calls.min(MAX_BUDGET_CALLS));
            if let Some(free) = self.budget_spent(now, budget) {
                return Decision::OverBudget(free);
            }
        }
        match decide(now, self, policy) {
            Decision::Go => {
                self.admit(call, now, policy, lease);
                Decision::Go
            }
            other => other,
        }
    }

    /// Mark `call` as in flight from `now`: the site is busy until `now + hold`
    /// or until the call's finish is recorded.
    pub fn admit(&mut self, call: &str, now: EpochMs, policy: &Policy, lease: Option<&str>) {
        self.fold_expired(now);
        self.in_flight.retain(|f| f.call != call);
        if self.keep > 0 {
            self.admits.push(now);
            let excess = self.admits.len().saturating_sub(self.keep as usize);
            self.admits.drain(..excess);
        }
        self.in_flight.push(InFlight {
            call: call.to_owned(),
            started_ms: now,
            until_ms: now.saturating_add(policy.hold_ms),
            interval_ms: policy.interval_ms,
            lease: lease.map(str::to_owned),
        });
    }

    /// Push `call`'s hold to `now + hold`, for a call known to be still
    /// running (`pace-hook run` while its command runs, or a Pre that was
    /// held up after its admission). Returns whether the call still held the
    /// site: a hold that has run out is not brought back, since another call
    /// may have been admitted after it; the caller must queue again.
    pub fn extend(&mut self, call: &str, now: EpochMs, hold_ms: u64) -> bool {
        self.normalize(now);
        let mut found = false;
        for f in self
            .in_flight
            .iter_mut()
            .filter(|f| f.call == call && f.until_ms > now)
        {
            f.until_ms = f.until_ms.max(now.saturating_add(hold_ms));
            found = true;
        }
        found
    }

    /// Make `call`'s hold an ordinary one: from `started` for `hold_ms`, no
    /// longer tied to a lease. Returns whether the call still held the site
    /// (`false`: its hold lapsed while it waited, and it must start over).
    pub fn confirm(&mut self, call: &str, started: EpochMs, hold_ms: u64) -> bool {
        let mut found = false;
        for f in self.in_flight.iter_mut().filter(|f| f.call == call) {
            f.started_ms = started;
            f.until_ms = started.saturating_add(hold_ms);
            f.lease = None;
            found = true;
        }
        found
    }

    /// Record that `call` finished at `now`: its hold is replaced by the real
    /// finish time, which keeps the interval the call's caller required
    /// (`interval_ms` if the call is no longer listed). A finish for a call
    /// the state no longer lists (its hold ran out, or the site was only
    /// revealed by the result) still counts: a request to the site really
    /// ended at `now`. Returns whether the call was listed.
    pub fn finish(&mut self, call: &str, now: EpochMs, interval_ms: u64) -> bool {
        // Times from before a clock step back must be brought to `now`
        // first, or the interval this finish requires would be counted from
        // a finish that looks later than it was.
        self.normalize(now);
        let mut required = interval_ms;
        let mut found = false;
        self.in_flight.retain(|f| {
            if f.call == call {
                required = required.max(f.interval_ms);
                found = true;
                false
            } else {
                true
            }
        });
        self.record_finish(now, required);
        found
    }

    /// Forget `call` without recording a finish: it was admitted here but never
    /// sent (it gave up waiting for another site, or failed before it ran), so
    /// it made no request.
    pub fn cancel(&mut self, call: &str) -> bool {
        let n = self.in_flight.len();
        self.in_flight.retain(|f| f.call != call);
        self.in_flight.len() != n
    }

    /// A request ended at `at`, and its caller requires `interval_ms` after it.
    fn record_finish(&mut self, at: EpochMs, interval_ms: u64) {
        let ready = self
            .last_finish_ms
            .map(|t| t.saturating_add(self.after_ms))
            .into_iter()
            .chain([at.saturating_add(interval_ms)])
            .max()
            .unwrap_or(at);
        let last = self.last_finish_ms.map_or(at, |t| t.max(at));
        self.last_finish_ms = Some(last);
        self.after_ms = ready.saturating_sub(last);
    }

    /// Turn holds that have run out into finishes, so the list stays short.
    /// The busy time is unchanged: an expired hold counts as a finish at its
    /// end, with its caller's interval.
    fn fold_expired(&mut self, now: EpochMs) {
        let expired: Vec<(EpochMs, u64)> = self
            .in_flight
            .iter()
            .filter(|f| f.until_ms <= now)
            .map(|f| (f.until_ms, f.interval_ms))
            .collect();
        self.in_flight.retain(|f| f.until_ms > now);
        for (at, interval) in expired {
            self.record_finish(at, interval);
        }
    }
}

/// Decide whether a caller with `policy` may start on a site now.
///
/// A call that would wait past `now + hold + interval` can only be waiting on
/// a time from the future, which [`SiteState::normalize`] brings back; this
/// function reads the state as it is.
pub fn decide(now: EpochMs, state: &SiteState, policy: &Policy) -> Decision {
    match state.ready_at(policy) {
        Some(ready) if now < ready => Decision::WaitUntil(ready),
        _ => Decision::Go,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: Policy = Policy {
        interval_ms: 10_000,
        hold_ms: 120_000,
        budget: None,
    };

    fn policy(interval_ms: u64) -> Policy {
        Policy {
            interval_ms,
            ..POLICY
        }
    }

    #[test]
    fn first_call_to_a_site_goes_at_once() {
        assert_eq!(decide(5, &SiteState::new("a.com"), &POLICY), Decision::Go);
    }

    #[test]
    fn second_call_waits_until_interval_after_the_finish() {
        let mut s = SiteState::new("a.com");
        assert_eq!(s.try_admit("nav", 1_000, &POLICY, None), Decision::Go);
        s.finish("nav", 1_500, 0);
        assert_eq!(decide(2_000, &s, &POLICY), Decision::WaitUntil(11_500));
        assert_eq!(decide(11_499, &s, &POLICY), Decision::WaitUntil(11_500));
        assert_eq!(decide(11_500, &s, &POLICY), Decision::Go);
    }

    #[test]
    fn call_in_flight_holds_the_site_until_hold_plus_interval() {
        let mut s = SiteState::new("a.com");
        s.try_admit("nav", 1_000, &POLICY, None);
        // No Post: the next call waits for the hold and then the interval.
        assert_eq!(decide(2_000, &s, &POLICY), Decision::WaitUntil(131_000));
        assert_eq!(decide(131_000, &s, &POLICY), Decision::Go);
    }

    #[test]
    fn finish_replaces_the_hold_with_the_real_end() {
        let mut s = SiteState::new("a.com");
        s.try_admit("nav", 1_000, &POLICY, None);
        assert!(s.finish("nav", 3_000, 0));
        assert!(s.in_flight.is_empty());
        assert_eq!(decide(3_001, &s, &POLICY), Decision::WaitUntil(13_000));
    }

    #[test]
    fn the_strictest_interval_holds_whoever_asks() {
        // A caller whose config says 10 s finishes; one whose config says
        // 1 s comes next, and still waits 10 s.
        let mut s = SiteState::new("a.com");
        s.try_admit("slow", 0, &policy(10_000), None);
        s.finish("slow", 500, 0);
        assert_eq!(
            s.try_admit("fast", 1_900, &policy(1_000), None),
            Decision::WaitUntil(10_500)
        );
        // And the 10 s caller after a 1 s caller's call waits its own 10 s.
        assert_eq!(
            s.try_admit("fast", 10_500, &policy(1_000), None),
            Decision::Go
        );
        s.finish("fast", 11_000, 0);
        assert_eq!(
            decide(12_000, &s, &policy(10_000)),
            Decision::WaitUntil(21_000)
        );
        assert_eq!(decide(12_000, &s, &policy(1_000)), Decision::Go);
    }

    #[test]
    fn an_earlier_finish_with_a_longer_interval_still_counts() {
        let mut s = SiteState::new("a.com");
        s.finish("a", 100, 10_000);
        s.finish("b", 105, 1);
        assert_eq!(s.last_finish_ms, Some(105));
        assert_eq!(decide(106, &s, &policy(1)), Decision::WaitUntil(10_100));
    }

    #[test]
    fn a_hold_carries_its_callers_interval() {
        let mut s = SiteState::new("a.com");
        s.try_admit("x", 0, &policy(30_000), None);
        assert_eq!(
            decide(1, &s, &policy(1_000)),
            Decision::WaitUntil(120_000 + 30_000)
        );
        // Expired, it folds into a finish that still requires 30 s.
        s.try_admit("y", 150_000, &policy(1_000), None);
        assert_eq!(s.last_finish_ms, Some(120_000));
        assert_eq!(s.after_ms, 30_000);
    }

    #[test]
    fn late_finish_of_an_expired_call_does_not_release_a_newer_hold() {
        let mut s = SiteState::new("a.com");
        s.try_admit("slow", 0, &POLICY, None);
        // The slow call's hold ran out; a second call is admitted after it.
        assert_eq!(s.try_admit("next", 130_000, &POLICY, None), Decision::Go);
        // The slow call's Post arrives now; the next call is still in flight.
        s.finish("slow", 131_000, 10_000);
        assert_eq!(decide(140_000, &s, &POLICY), Decision::WaitUntil(260_000));
    }

    #[test]
    fn expired_holds_are_folded_into_the_last_finish() {
        let mut s = SiteState::new("a.com");
        s.try_admit("a", 0, &POLICY, None);
        s.try_admit("b", 200_000, &POLICY, None);
        assert_eq!(s.in_flight.len(), 1);
        assert_eq!(s.last_finish_ms, Some(120_000));
    }

    #[test]
    fn the_same_call_again_is_a_duplicate_and_changes_nothing() {
        let mut s = SiteState::new("a.com");
        s.try_admit("x", 1_000, &POLICY, None);
        let before = s.clone();
        assert_eq!(s.try_admit("x", 1_001, &POLICY, None), Decision::Duplicate);
        assert_eq!(s, before);
        assert_eq!(
            s.try_admit("y", 1_001, &POLICY, None),
            Decision::WaitUntil(131_000)
        );
    }

    #[test]
    fn extend_pushes_the_hold_forward_never_back() {
        let mut s = SiteState::new("a.com");
        s.try_admit("run", 0, &POLICY, None);
        assert!(s.extend("run", 60_000, 120_000));
        assert_eq!(s.busy_until(), Some(180_000));
        s.extend("run", 10_000, 120_000);
        assert_eq!(s.busy_until(), Some(180_000));
        assert!(!s.extend("other", 10_000, 120_000));
        // Run out, it is not brought back.
        assert!(!s.extend("run", 180_000, 120_000));
        assert_eq!(s.busy_until(), Some(180_000));
    }

    #[test]
    fn cancel_forgets_the_hold_without_a_finish() {
        let mut s = SiteState::new("a.com");
        s.try_admit("x", 1_000, &POLICY, None);
        assert!(s.cancel("x"));
        assert_eq!(decide(1_001, &s, &POLICY), Decision::Go);
    }

    #[test]
    fn finishes_never_move_backwards() {
        let mut s = SiteState::new("a.com");
        s.finish("a", 5_000, 0);
        s.finish("b", 4_000, 0);
        assert_eq!(s.last_finish_ms, Some(5_000));
    }

    #[test]
    fn a_lapsed_lease_drops_its_hold_and_a_live_one_keeps_it() {
        let mut s = SiteState::new("a.com");
        s.admit("multi", 0, &POLICY, Some("lease-1"));
        s.admit("plain", 0, &POLICY, None);
        assert!(!s.drop_lapsed(|l| l == "lease-1"));
        assert!(s.drop_lapsed(|_| false));
        assert!(!s.holds("multi"));
        assert!(s.holds("plain"));
    }

    #[test]
    fn confirm_cuts_a_long_hold_back_and_reports_a_lapsed_one() {
        let mut s = SiteState::new("a.com");
        let long = Policy {
            hold_ms: 400_000,
            ..POLICY
        };
        s.try_admit("multi", 0, &long, Some("l"));
        assert!(s.confirm("multi", 5_000, 120_000));
        assert_eq!(s.busy_until(), Some(125_000));
        assert_eq!(s.in_flight[0].lease, None);
        s.cancel("multi");
        assert!(!s.confirm("multi", 5_000, 120_000));
    }

    #[test]
    fn a_clock_stepped_back_costs_at_most_hold_plus_interval() {
        // Written an hour "later", then the clock stepped back an hour.
        let hour = 3_600_000;
        let mut s = SiteState::new("a.com");
        s.finish("a", hour + 5_000, 10_000);
        s.admit("b", hour + 6_000, &POLICY, None);
        let now = 5_000;
        let d = s.try_admit("c", now, &POLICY, None);
        assert_eq!(d, Decision::WaitUntil(now + 120_000 + 10_000));
        // The correction was made in the state, so a later look agrees
        // instead of moving the wait along with the clock.
        assert!(!s.normalize(now + 60_000));
        assert_eq!(
            decide(now + 60_000, &s, &POLICY),
            Decision::WaitUntil(now + 130_000)
        );
    }

    #[test]
    fn a_finish_after_a_clock_step_back_counts_from_itself() {
        // Found by the property test: a finish recorded after the clock went
        // back 11 s, against a state whose last finish looked later than it,
        // required only the rest of the interval from that finish.
        let mut s = SiteState::new("a.com");
        s.finish("a", 100_000, 2_000);
        s.admit("b", 110_000, &POLICY, None);
        let now = 110_000 - 11_001;
        s.finish("b", now, 0);
        assert_eq!(
            decide(now, &s, &policy(2_000)),
            Decision::WaitUntil(now + 10_000)
        );
    }

    #[test]
    fn a_small_lead_is_not_taken_for_a_clock_step() {
        let mut s = SiteState::new("a.com");
        s.finish("a", 1_001, 10_000);
        assert!(!s.normalize(1_000));
        assert_eq!(s.last_finish_ms, Some(1_001));
    }

    #[test]
    fn absurd_times_are_capped_not_trusted() {
        let mut s = SiteState::new("a.com");
        s.last_finish_ms = Some(u64::MAX);
        s.after_ms = u64::MAX;
        s.in_flight.push(InFlight {
            call: "x".into(),
            started_ms: 0,
            until_ms: u64::MAX,
            interval_ms: u64::MAX,
            lease: None,
        });
        assert!(s.normalize(5_000));
        match decide(5_000, &s, &POLICY) {
            Decision::WaitUntil(t) => assert!(t <= 5_000 + 3 * CEILING_MS, "{t}"),
            d => panic!("{d:?}"),
        }
    }

    #[test]
    fn a_backoff_delays_the_next_start() {
        let mut s = SiteState::new("a.com");
        s.finish("a", 1_000, 10_000);
        s.backoff = Some(Backoff {
            set_ms: 1_000,
            until_ms: 61_000,
            strikes: 1,
        });
        assert_eq!(decide(11_000, &s, &POLICY), Decision::WaitUntil(61_000));
    }

    #[test]
    fn a_spent_budget_blocks_until_the_oldest_admission_leaves_the_window() {
        let p = Policy {
            interval_ms: 0,
            budget: Some(Budget {
                calls: 2,
                window_ms: 60_000,
            }),
            ..POLICY
        };
        let mut s = SiteState::new("a.com");
        assert_eq!(s.try_admit("a", 1_000, &p, None), Decision::Go);
        s.finish("a", 1_000, 0);
        assert_eq!(s.try_admit("b", 2_000, &p, None), Decision::Go);
        s.finish("b", 2_000, 0);
        assert_eq!(
            s.try_admit("c", 3_000, &p, None),
            Decision::OverBudget(61_000)
        );
        assert_eq!(s.try_admit("c", 61_000, &p, None), Decision::Go);
        // A caller without a budget still has its admissions counted.
        s.finish("c", 61_000, 0);
        assert_eq!(
            s.try_admit("d", 61_500, &POLICY, None),
            Decision::WaitUntil(71_000)
        );
        assert_eq!(s.admits, vec![2_000, 61_000]);
    }

    #[test]
    fn a_push_back_waits_its_retry_after_or_doubles_from_the_interval() {
        let mut s = SiteState::new("a.com");
        assert_eq!(s.push_back(1_000, Some(60_000), 10_000, 600_000), 61_000);
        assert_eq!(decide(2_000, &s, &POLICY), Decision::WaitUntil(61_000));
        // Without Retry-After: the interval, doubled for each strike in a row.
        assert_eq!(s.push_back(70_000, None, 10_000, 600_000), 90_000);
        assert_eq!(s.push_back(90_000, None, 10_000, 600_000), 130_000);
        // Never past max_backoff, never shorter than what stands.
        for _ in 0..10 {
            s.push_back(130_000, None, 10_000, 600_000);
        }
        assert_eq!(s.backoff.unwrap().until_ms, 730_000);
        assert_eq!(s.push_back(130_000, Some(1_000), 10_000, 600_000), 730_000);
    }

    #[test]
    fn a_success_resets_the_doubling() {
        let mut s = SiteState::new("a.com");
        s.push_back(0, None, 10_000, 600_000);
        s.push_back(10_000, None, 10_000, 600_000);
        assert!(s.relieve(30_000));
        assert_eq!(s.backoff, None);
        assert_eq!(s.push_back(40_000, None, 10_000, 600_000), 50_000);
        // A success while a backoff runs keeps it, with no strikes.
        assert!(s.relieve(45_000));
        assert_eq!(s.backoff.unwrap().until_ms, 50_000);
        assert_eq!(s.backoff.unwrap().strikes, 0);
        assert!(!s.relieve(46_000));
    }

    #[test]
    fn lost_state_is_busy_for_a_hold_and_an_interval() {
        let s = SiteState::lost("a.com", 1_000, &POLICY);
        assert_eq!(decide(1_000, &s, &POLICY), Decision::WaitUntil(131_000));
        assert_eq!(1_000 + POLICY.lost_for_ms(), 131_000);
    }
}
