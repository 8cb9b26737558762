//! The pacing decision, and the per-site state it reads: pure functions of
//! `now`, the state and the policy, with no I/O and no clock of their own.
//!
//! Invariant kept here: a call is admitted to a site only when `now` is at
//! least `interval` after the site was last busy, where "busy" covers both the
//! real finish of every completed call and the hold of every call still in
//! flight. Time arithmetic saturates, so a corrupt or absurd timestamp can only
//! make the gate wait longer, never admit early.

use serde::{Deserialize, Serialize};

use crate::clock::EpochMs;

/// How a site is paced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Least time from the end of one request to the start of the next.
    pub interval_ms: u64,
    /// How long an admitted call keeps the site busy if no Post event comes.
    pub hold_ms: u64,
}

/// What the gate should do with a call for one site, now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Admit the call now.
    Go,
    /// Not before `until` (epoch ms); the state may change sooner.
    WaitUntil(EpochMs),
}

/// A call admitted to a site whose Post event has not arrived yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlight {
    /// The call's `tool_use_id` (or a generated id for `pace-hook run`).
    pub call: String,
    /// When it was admitted.
    pub started_ms: EpochMs,
    /// When its hold runs out if no finish is recorded.
    pub until_ms: EpochMs,
}

/// Everything the gate keeps about one site.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteState {
    /// The site key this state belongs to.
    pub site: String,
    /// Latest real finish of a request to the site.
    #[serde(default)]
    pub last_finish_ms: Option<EpochMs>,
    /// Calls admitted and not yet finished.
    #[serde(default)]
    pub in_flight: Vec<InFlight>,
}

impl SiteState {
    /// An empty state for `site`.
    pub fn new(site: &str) -> Self {
        Self {
            site: site.to_owned(),
            ..Self::default()
        }
    }

    /// The time until which the site counts as busy: the latest real finish or
    /// the latest hold of a call still in flight, whichever is later.
    pub fn busy_until(&self) -> Option<EpochMs> {
        let holds = self.in_flight.iter().map(|f| f.until_ms);
        self.last_finish_ms.into_iter().chain(holds).max()
    }

    /// Whether `call` is already in flight here (a second pace-hook for the
    /// same call, from a second settings file, must not wait behind the first).
    pub fn holds(&self, call: &str) -> bool {
        self.in_flight.iter().any(|f| f.call == call)
    }

    /// Push `call`'s hold to `now + hold`, for a call known to be still
    /// running (`pace-hook run` while its command runs).
    pub fn extend(&mut self, call: &str, now: EpochMs, policy: &Policy) {
        for f in self.in_flight.iter_mut().filter(|f| f.call == call) {
            f.until_ms = f.until_ms.max(now.saturating_add(policy.hold_ms));
        }
    }

    /// Mark `call` as in flight from `now`: the site is busy until `now + hold`
    /// or until the call's finish is recorded.
    pub fn admit(&mut self, call: &str, now: EpochMs, policy: &Policy) {
        self.fold_expired(now);
        self.in_flight.retain(|f| f.call != call);
        self.in_flight.push(InFlight {
            call: call.to_owned(),
            started_ms: now,
            until_ms: now.saturating_add(policy.hold_ms),
        });
    }

    /// Set `call`'s hold to run from `started` to `until`.
    pub fn set_hold(&mut self, call: &str, started: EpochMs, until: EpochMs) {
        for f in self.in_flight.iter_mut().filter(|f| f.call == call) {
            f.started_ms = started;
            f.until_ms = until;
        }
    }

    /// Record that `call` finished at `now`: its hold is replaced by the real
    /// finish time. A finish for a call the state no longer lists (its hold ran
    /// out) still counts: a request to the site really ended at `now`.
    pub fn finish(&mut self, call: &str, now: EpochMs) {
        self.in_flight.retain(|f| f.call != call);
        self.last_finish_ms = Some(self.last_finish_ms.map_or(now, |t| t.max(now)));
    }

    /// Forget `call` without recording a finish: it was admitted here but never
    /// sent (it gave up waiting for another site), so it made no request.
    pub fn cancel(&mut self, call: &str) {
        self.in_flight.retain(|f| f.call != call);
    }

    /// Turn holds that have run out into finishes, so the list stays short.
    /// The busy time is unchanged: an expired hold counts as a finish at its end.
    fn fold_expired(&mut self, now: EpochMs) {
        let mut latest = self.last_finish_ms;
        self.in_flight.retain(|f| {
            if f.until_ms <= now {
                latest = Some(latest.map_or(f.until_ms, |t| t.max(f.until_ms)));
                false
            } else {
                true
            }
        });
        self.last_finish_ms = latest;
    }
}

/// Decide whether a call may go to a site now.
///
/// No state the gate writes is ever busy later than `now + hold` (a hold is the
/// furthest ahead it looks), so a later time means the wall clock stepped
/// back or the file was edited. It is clamped to `now + hold`: still busy, as
/// fail-closed wants, but not for the hour the clock jumped.
pub fn decide(now: EpochMs, state: &SiteState, policy: &Policy) -> Decision {
    match state.busy_until() {
        None => Decision::Go,
        Some(busy) => {
            let busy = busy.min(now.saturating_add(policy.hold_ms));
            let ready = busy.saturating_add(policy.interval_ms);
            if now >= ready {
                Decision::Go
            } else {
                Decision::WaitUntil(ready)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: Policy = Policy {
        interval_ms: 10_000,
        hold_ms: 120_000,
    };

    #[test]
    fn first_call_to_a_site_goes_at_once() {
        assert_eq!(decide(5, &SiteState::new("a.com"), &POLICY), Decision::Go);
    }

    #[test]
    fn second_call_waits_until_interval_after_the_finish() {
        let mut s = SiteState::new("a.com");
        s.admit("nav", 1_000, &POLICY);
        s.finish("nav", 1_500);
        assert_eq!(decide(2_000, &s, &POLICY), Decision::WaitUntil(11_500));
        assert_eq!(decide(11_499, &s, &POLICY), Decision::WaitUntil(11_500));
        assert_eq!(decide(11_500, &s, &POLICY), Decision::Go);
    }

    #[test]
    fn call_in_flight_holds_the_site_until_hold_plus_interval() {
        let mut s = SiteState::new("a.com");
        s.admit("nav", 1_000, &POLICY);
        // No Post: the next call waits for the hold and then the interval.
        assert_eq!(decide(2_000, &s, &POLICY), Decision::WaitUntil(131_000));
        assert_eq!(decide(131_000, &s, &POLICY), Decision::Go);
    }

    #[test]
    fn finish_replaces_the_hold_with_the_real_end() {
        let mut s = SiteState::new("a.com");
        s.admit("nav", 1_000, &POLICY);
        s.finish("nav", 3_000);
        assert!(s.in_flight.is_empty());
        assert_eq!(decide(3_001, &s, &POLICY), Decision::WaitUntil(13_000));
    }

    #[test]
    fn late_finish_of_an_expired_call_does_not_release_a_newer_hold() {
        let mut s = SiteState::new("a.com");
        s.admit("slow", 0, &POLICY);
        // The slow call's hold ran out; a second call is admitted after it.
        assert_eq!(decide(130_000, &s, &POLICY), Decision::Go);
        s.admit("next", 130_000, &POLICY);
        // The slow call's Post arrives now; the next call is still in flight.
        s.finish("slow", 131_000);
        assert_eq!(decide(140_000, &s, &POLICY), Decision::WaitUntil(260_000));
    }

    #[test]
    fn expired_holds_are_folded_into_the_last_finish() {
        let mut s = SiteState::new("a.com");
        s.admit("a", 0, &POLICY);
        s.admit("b", 200_000, &POLICY);
        assert_eq!(s.in_flight.len(), 1);
        assert_eq!(s.last_finish_ms, Some(120_000));
    }

    #[test]
    fn a_call_already_in_flight_is_recognised() {
        let mut s = SiteState::new("a.com");
        s.admit("x", 1_000, &POLICY);
        assert!(s.holds("x"));
        assert!(!s.holds("y"));
    }

    #[test]
    fn extend_pushes_the_hold_forward_never_back() {
        let mut s = SiteState::new("a.com");
        s.admit("run", 0, &POLICY);
        s.extend("run", 60_000, &POLICY);
        assert_eq!(s.busy_until(), Some(180_000));
        s.extend("run", 10_000, &POLICY);
        assert_eq!(s.busy_until(), Some(180_000));
    }

    #[test]
    fn cancel_forgets_the_hold_without_a_finish() {
        let mut s = SiteState::new("a.com");
        s.admit("x", 1_000, &POLICY);
        s.cancel("x");
        assert_eq!(decide(1_001, &s, &POLICY), Decision::Go);
    }

    #[test]
    fn finishes_never_move_backwards() {
        let mut s = SiteState::new("a.com");
        s.finish("a", 5_000);
        s.finish("b", 4_000);
        assert_eq!(s.last_finish_ms, Some(5_000));
    }

    #[test]
    fn a_time_beyond_any_hold_still_waits_but_only_hold_plus_interval() {
        // The clock stepped back an hour after this finish was written.
        let mut s = SiteState::new("a.com");
        s.last_finish_ms = Some(3_600_000 + 5_000);
        assert_eq!(decide(5_000, &s, &POLICY), Decision::WaitUntil(135_000));
        s.last_finish_ms = Some(u64::MAX);
        assert_eq!(decide(5_000, &s, &POLICY), Decision::WaitUntil(135_000));
        assert_eq!(
            decide(u64::MAX - 1, &s, &POLICY),
            Decision::WaitUntil(u64::MAX)
        );
    }
}
