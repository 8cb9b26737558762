//! One step on a site's state, as every store applies it: the one function
//! ([`apply`]) that the file and memory stores run under their lock and the
//! Redis store's scripts mirror (checked by `scripts_step_exactly_as_decision_rs`
//! in `store/redis/tests.rs`). The store only locks, reads, calls it and writes;
//! what a step means (which rounding of the clock it reads, which policy a
//! lost state is rebuilt with before it, whether a lost state fails it,
//! whether it makes a site that has no state, what it tells the waiter) is
//! decided here, once.
//!
//! Invariant kept here: every step first drops the holds whose lease lapsed
//! (a call that never sent anything), so no store can forget to; and an
//! admission is answered with what the waiter needs to sleep without missing
//! a change: whether anything is still in flight, and whether a hold that
//! may lapse without a write stands.

use crate::pacing::{
    clock::{Clock, EpochMs},
    decision::{Decision, Policy, SiteState},
};

/// A change to one site's state, as the gate asks it of a store.
pub enum Step<'a> {
    /// [`SiteState::try_admit`] `call` for a caller with `policy`; `lease`
    /// marks a hold taken while the call still waits for another site.
    Admit {
        /// The call's key.
        call: &'a str,
        /// What its caller requires of the site.
        policy: &'a Policy,
        /// The lease of the waiting process, for a call with more sites.
        lease: Option<&'a str>,
    },
    /// [`SiteState::finish`]: `call` ended now.
    Finish {
        /// The call's key.
        call: &'a str,
        /// The interval its caller requires after it, if it is not listed.
        interval_ms: u64,
    },
    /// [`SiteState::cancel`]: `call` sent nothing.
    Cancel {
        /// The call's key.
        call: &'a str,
    },
    /// [`SiteState::confirm`]: `call`'s hold becomes an ordinary one.
    Confirm {
        /// The call's key.
        call: &'a str,
        /// When it was admitted.
        started: EpochMs,
        /// Its hold from then.
        hold_ms: u64,
    },
    /// [`SiteState::extend`]: `call` is still running.
    Extend {
        /// The call's key.
        call: &'a str,
        /// Its hold from now.
        hold_ms: u64,
    },
    /// Change the site's backoff: the closure gets the state (its times
    /// brought back to now, [`SiteState::normalize`]) and now.
    Backoff(&'a mut dyn FnMut(&mut SiteState, EpochMs) -> Option<EpochMs>),
}

impl Step<'_> {
    /// The policy a state that cannot be read is rebuilt with before this
    /// step, from `lost` (the config's): for an admission, with the caller's
    /// interval if it is stricter, but never the long hold of a site taken
    /// while the call waits for another.
    pub fn heal(&self, lost: &Policy) -> Policy {
        match self {
            Step::Admit { policy, .. } => Policy {
                interval_ms: policy.interval_ms.max(lost.interval_ms),
                ..*lost
            },
            _ => *lost,
        }
    }

    /// Whether a state that cannot be read fails this step: an admission is
    /// blocked and told why; a finish, a cancel and the like go on against
    /// the healed (busy) state.
    pub fn fails_on_lost(&self) -> bool {
        matches!(self, Step::Admit { .. })
    }

    /// Whether the step writes a site that has no state yet. A cancel, a
    /// confirm or an extend finds nothing there ([`Applied::Found`] `false`)
    /// and leaves no state behind.
    pub fn makes_site(&self) -> bool {
        matches!(
            self,
            Step::Admit { .. } | Step::Finish { .. } | Step::Backoff(_)
        )
    }

    /// The step's name, as the store's operations are called (for messages
    /// and the memory store's injected failures).
    pub fn name(&self) -> &'static str {
        match self {
            Step::Admit { .. } => "try_admit",
            Step::Finish { .. } => "finish",
            Step::Cancel { .. } => "cancel",
            Step::Confirm { .. } => "confirm",
            Step::Extend { .. } => "extend",
            Step::Backoff(_) => "update_backoff",
        }
    }
}

/// The time a step reads, both ways rounded: admissions count from the
/// floor and finishes from the ceiling (see [`crate::pacing::clock`]), so a
/// recorded gap is never longer than the real one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    /// Rounded down to the millisecond.
    pub floor: EpochMs,
    /// Rounded up to the millisecond.
    pub ceil: EpochMs,
}

impl Now {
    /// Now by `clock`.
    pub fn of(clock: &dyn Clock) -> Self {
        let floor = clock.now_floor();
        Self {
            floor,
            ceil: clock.now_ceil().max(floor),
        }
    }

    /// Now from a reading in µs since the epoch (a server's `TIME`).
    pub fn from_us(us: u64) -> Self {
        Self {
            floor: us / 1000,
            ceil: us.div_ceil(1000),
        }
    }
}

/// What an admission found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Look {
    /// The time of the look (the admission time, if admitted).
    pub at: EpochMs,
    /// What it decided.
    pub decision: Decision,
    /// Nothing is in flight on the site: only finishes and a backoff stand
    /// in the way, and nothing but a hand-cleared backoff can make the site
    /// due sooner.
    pub settled: bool,
    /// A hold tied to a lease stands: it may lapse without any write a watch
    /// would see, so a waiter must look again before its wait is up.
    pub lease_bound: bool,
}

/// What a step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// An admission's look.
    Admit(Look),
    /// A finish, recorded at this time.
    Finished(EpochMs),
    /// A cancel, confirm or extend: whether the call still held the site.
    Found(bool),
    /// What a backoff's closure returned.
    Backoff(Option<EpochMs>),
}

impl Applied {
    /// The admission's look (`None` for any other step).
    pub fn look(&self) -> Option<Look> {
        match self {
            Applied::Admit(look) => Some(*look),
            _ => None,
        }
    }

    /// Whether the call still held the site (a cancel, confirm or extend).
    pub fn found(&self) -> bool {
        matches!(self, Applied::Found(true))
    }
}

/// Apply `step` to `state` at `now`, as one step: drop the holds whose lease
/// `alive` says has lapsed, then the step of [`crate::pacing::decision`].
/// The store writes the state back if it changed.
pub fn apply(
    state: &mut SiteState,
    step: Step<'_>,
    now: Now,
    alive: impl Fn(&str) -> bool,
) -> Applied {
    state.drop_lapsed(alive);
    match step {
        Step::Admit {
            call,
            policy,
            lease,
        } => {
            let decision = state.try_admit(call, now.floor, policy, lease);
            Applied::Admit(Look {
                at: now.floor,
                decision,
                settled: state.in_flight.is_empty(),
                lease_bound: state.in_flight.iter().any(|f| f.lease.is_some()),
            })
        }
        Step::Finish { call, interval_ms } => {
            state.finish(call, now.ceil, interval_ms);
            Applied::Finished(now.ceil)
        }
        Step::Cancel { call } => Applied::Found(state.cancel(call)),
        Step::Confirm {
            call,
            started,
            hold_ms,
        } => Applied::Found(state.confirm(call, started, hold_ms)),
        Step::Extend { call, hold_ms } => Applied::Found(state.extend(call, now.ceil, hold_ms)),
        Step::Backoff(f) => {
            state.normalize(now.ceil);
            Applied::Backoff(f(state, now.ceil))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reading between two milliseconds.
    fn at(ms: EpochMs) -> Now {
        Now {
            floor: ms,
            ceil: ms + 1,
        }
    }

    const P: Policy = Policy {
        interval_ms: 10_000,
        hold_ms: 120_000,
        budget: None,
    };

    fn admit<'a>(call: &'a str, lease: Option<&'a str>) -> Step<'a> {
        Step::Admit {
            call,
            policy: &P,
            lease,
        }
    }

    #[test]
    fn an_admission_reads_the_floor_and_a_finish_the_ceiling() {
        let mut s = SiteState::new("a.com");
        let look = apply(&mut s, admit("x", None), at(1_000), |_| true)
            .look()
            .unwrap();
        assert_eq!((look.at, look.decision), (1_000, Decision::Go));
        assert!(!look.settled, "the call it admitted is in flight");
        let step = Step::Finish {
            call: "x",
            interval_ms: 0,
        };
        assert_eq!(
            apply(&mut s, step, at(2_000), |_| true),
            Applied::Finished(2_001)
        );
        let look = apply(&mut s, admit("y", None), at(3_000), |_| true)
            .look()
            .unwrap();
        assert_eq!(look.decision, Decision::WaitUntil(12_001));
        assert!(look.settled && !look.lease_bound);
    }

    #[test]
    fn every_step_first_drops_the_holds_of_lapsed_leases() {
        let mut s = SiteState::new("a.com");
        apply(&mut s, admit("multi", Some("l")), at(0), |_| true);
        let look = apply(&mut s, admit("other", None), at(1), |_| true)
            .look()
            .unwrap();
        assert!(matches!(look.decision, Decision::WaitUntil(_)));
        assert!(look.lease_bound, "the wait must be looked at again soon");
        let confirm = Step::Confirm {
            call: "multi",
            started: 0,
            hold_ms: 1_000,
        };
        assert!(!apply(&mut s, confirm, at(2), |_| false).found());
        let look = apply(&mut s, admit("other", None), at(3), |_| false)
            .look()
            .unwrap();
        assert_eq!(look.decision, Decision::Go);
    }

    #[test]
    fn a_lost_state_is_healed_with_this_callers_interval_but_the_configs_hold() {
        let lost = Policy {
            interval_ms: 5_000,
            hold_ms: 60_000,
            budget: None,
        };
        let long = Policy {
            interval_ms: 20_000,
            hold_ms: 400_000,
            budget: None,
        };
        let step = Step::Admit {
            call: "x",
            policy: &long,
            lease: Some("l"),
        };
        assert_eq!(
            step.heal(&lost),
            Policy {
                interval_ms: 20_000,
                ..lost
            }
        );
        assert!(step.fails_on_lost() && step.makes_site());
        let cancel = Step::Cancel { call: "x" };
        assert_eq!(cancel.heal(&lost), lost);
        assert!(!cancel.fails_on_lost() && !cancel.makes_site());
    }

    #[test]
    fn a_backoff_sees_its_times_brought_back_to_now() {
        let mut s = SiteState::new("a.com");
        s.last_finish_ms = Some(10 * 3_600_000);
        let mut f = |st: &mut SiteState, now: EpochMs| {
            assert_eq!(st.last_finish_ms, Some(now));
            Some(st.hold_back(now, 1_000))
        };
        assert_eq!(
            apply(&mut s, Step::Backoff(&mut f), at(5_000), |_| true),
            Applied::Backoff(Some(6_001))
        );
    }
}
