//! One site's admission together with what the gate does around it: the
//! check that the agent has no other call open, the look at the queue, and
//! saving the call's record; and a call's finish on every site it marked.
//! Each is a step of its own on any store ([`admit_in_parts`],
//! [`finish_in_parts`], the defaults); a networked store does each whole as
//! one step, so that an admission of a free site, or a Post, costs one round
//! trip.

use super::{Attempt, CallRecord, Store};
use crate::{
    error::Result,
    pacing::{
        clock::{EpochMs, Mono},
        decision::{Decision, Policy},
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
    /// The caller reads the tab map right after: a store that can reads it
    /// along with the admission, and its next [`super::Tabs::tabs`] answers
    /// from that read.
    pub tabs: bool,
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
