//! One site's admission together with what the gate does around it: the
//! check that the agent has no other call open, the look at the queue, and
//! saving the call's record; and a call's finish on every site it marked.
//! Each is a step of its own on any store ([`admit_in_parts`],
//! [`finish_in_parts`], the defaults); a networked store does each whole as
//! one step, so that an admission of a free site, or a Post, costs one round
//! trip.

use super::{Attempt, CallRecord, Store, TabNote};
use crate::{
    error::{Error, Result},
    pacing::{
        clock::{EpochMs, Mono},
        decision::{Decision, Policy},
        request::SiteRequest,
    },
};

/// What [`Store::admit_call`] asks: a call's admission at its one site (or
/// its last one, with no lease).
#[derive(Debug, Clone, Copy)]
pub struct AdmitCall<'a> {
    /// The site.
    pub site: &'a str,
    /// The call's key.
    pub call: &'a str,
    /// The policy its caller requires there.
    pub policy: &'a Policy,
    /// Bounds the wait for a lock.
    pub deadline: Mono,
    /// Look only if nobody queues for the site (the fast path); `false` for
    /// the caller at the head of the site's queue.
    pub if_unqueued: bool,
    /// The call's agent, whose open call the record becomes.
    pub agent: Option<&'a str>,
    /// Do nothing while the agent's open call is another one: that one is
    /// ended first ([`crate::gate::Gate::end_previous`]).
    pub check_agent: bool,
    /// The record saved if the call is admitted (not if it is a duplicate,
    /// which marked nothing); its `started_ms` becomes the admission's time.
    pub record: &'a CallRecord,
    /// The change the call makes to the tab map, which its caller applies
    /// right after it is admitted ([`super::Tabs::update_tabs`]). A store
    /// that can applies it along with the admission and reads the map
    /// along, so that the caller's update finds it done.
    pub note: Option<&'a TabNote>,
}

/// What [`Store::admit_call`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// It looked at the site; admitted ([`Decision::Go`]), the record is saved.
    Looked(Attempt),
    /// Others queue for the site: nothing was done.
    Queued,
    /// The agent's open call is another one: nothing was done.
    AgentBusy,
}

/// [`Store::admit_call`] as one step after another: the agent's open call,
/// the queue, the look, the record (whose failure takes the hold back).
pub fn admit_in_parts(store: &(impl Store + ?Sized), a: &AdmitCall<'_>) -> Result<Admission> {
    if a.check_agent
        && let Some(agent) = a.agent
        && store
            .open_call_of(agent)?
            .is_some_and(|open| open.call != a.call)
    {
        return Ok(Admission::AgentBusy);
    }
    if a.if_unqueued && !store.queue_is_empty(a.site)? {
        return Ok(Admission::Queued);
    }
    let look = store.try_admit(a.site, a.call, a.policy, None, a.deadline)?;
    if look.decision == Decision::Go {
        let record = CallRecord {
            started_ms: look.at,
            ..a.record.clone()
        };
        if let Err(e) = store.save_call(&record, a.agent) {
            // The Post could not find this hold: take it back rather than
            // leave the site held for nothing.
            let _ = store.cancel(a.site, a.call);
            return Err(e);
        }
    }
    Ok(Admission::Looked(look))
}

/// What [`Store::admit_sites`] asks: a call's admission at each of several
/// sites at once, only if every one is free (nobody queues for it, and it
/// is due now): no lease, ordinary holds, as a call of one site takes.
#[derive(Debug, Clone, Copy)]
pub struct AdmitSites<'a> {
    /// The sites, each once, with the policy its caller requires there.
    pub sites: &'a [SiteRequest],
    /// The call's key.
    pub call: &'a str,
    /// Bounds the wait for a lock.
    pub deadline: Mono,
    /// The call's agent, whose open call the record becomes.
    pub agent: Option<&'a str>,
    /// Do nothing while the agent's open call is another one.
    pub check_agent: bool,
    /// The record saved if the call is admitted (not if it is a duplicate
    /// at every site); its `started_ms` becomes the admission's time.
    pub record: &'a CallRecord,
    /// As [`AdmitCall::note`].
    pub note: Option<&'a TabNote>,
}

/// What [`Store::admit_sites`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SitesAdmission {
    /// Every site taken: for each, in order, when, and whether the call
    /// already held it (a duplicate); the record is saved.
    Taken(Vec<(EpochMs, bool)>),
    /// A site is queued for, not due or over its budget: nothing is held,
    /// and the call waits as usual.
    NotNow,
    /// The agent's open call is another one: nothing was done.
    AgentBusy,
}

/// A lost state's error says when to try again: after a hold and an
/// interval of the policy its caller asked for.
pub(crate) fn with_retry(e: Error, policy: &Policy) -> Error {
    match e {
        Error::CorruptState { path, moved_to, .. } => Error::CorruptState {
            path,
            moved_to,
            retry_after_ms: policy.hold_ms.saturating_add(policy.interval_ms),
        },
        e => e,
    }
}

/// [`Store::admit_sites`] as one step after another: the agent's open
/// call, each site's queue, each site's look (the ones taken given back if
/// a later one is not free), the record. A process killed between two
/// takes leaves ordinary holds behind, as one killed right after a one-site
/// admission does.
pub fn admit_sites_in_parts(
    store: &(impl Store + ?Sized),
    a: &AdmitSites<'_>,
) -> Result<SitesAdmission> {
    if a.check_agent
        && let Some(agent) = a.agent
        && store
            .open_call_of(agent)?
            .is_some_and(|open| open.call != a.call)
    {
        return Ok(SitesAdmission::AgentBusy);
    }
    for req in a.sites {
        if !store.queue_is_empty(&req.site)? {
            return Ok(SitesAdmission::NotNow);
        }
    }
    let give_back = |taken: &[(EpochMs, bool)]| {
        // Best effort: a hold that cannot be taken back runs its course,
        // which errs towards waiting.
        for (req, &(_, duplicate)) in a.sites.iter().zip(taken) {
            if !duplicate {
                let _ = store.cancel(&req.site, a.call);
            }
        }
    };
    let mut taken: Vec<(EpochMs, bool)> = Vec::with_capacity(a.sites.len());
    for req in a.sites {
        let look = match store.try_admit(&req.site, a.call, &req.policy, None, a.deadline) {
            Ok(look) => look,
            Err(e) => {
                give_back(&taken);
                return Err(with_retry(e, &req.policy));
            }
        };
        match look.decision {
            Decision::Go | Decision::Duplicate => {
                taken.push((look.at, look.decision == Decision::Duplicate));
            }
            Decision::WaitUntil(_) | Decision::OverBudget(_) => {
                give_back(&taken);
                return Ok(SitesAdmission::NotNow);
            }
        }
    }
    if !taken.iter().all(|&(_, duplicate)| duplicate) {
        let record = CallRecord {
            started_ms: taken.last().map_or(0, |&(at, _)| at),
            ..a.record.clone()
        };
        if let Err(e) = store.save_call(&record, a.agent) {
            // The Post could not find these holds: take them back rather
            // than leave the sites held for nothing.
            give_back(&taken);
            return Err(e);
        }
    }
    Ok(SitesAdmission::Taken(taken))
}

/// [`Store::finish_call`] as one step after another: take the call's
/// record, then finish the call on each site it names and on each of
/// `revealed` (the sites its result showed it reached), with the record's
/// interval. Returns each site written and its finish time: none if there
/// was no record and nothing was revealed.
pub fn finish_in_parts(
    store: &(impl Store + ?Sized),
    call: &str,
    agent: Option<&str>,
    revealed: &[String],
) -> Result<Vec<(String, EpochMs)>> {
    let record = store.take_call(call, agent)?;
    let (mut sites, interval) = match record {
        Some(r) => (r.sites, r.interval_ms),
        None if revealed.is_empty() => return Ok(Vec::new()),
        None => (Vec::new(), 0),
    };
    for s in revealed {
        if !sites.contains(s) {
            sites.push(s.clone());
        }
    }
    let mut done = Vec::with_capacity(sites.len());
    for site in sites {
        let at = store.finish(&site, call, interval)?;
        done.push((site, at));
    }
    Ok(done)
}
