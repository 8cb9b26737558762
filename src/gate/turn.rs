//! Taking a turn: the one operation every caller of the gate goes through —
//! the hook, `pace-hook run` and the library's [`crate::pacer::Pacer`] — so
//! each gets every protection the gate has.
//!
//! A turn is: wait for admission at every site ([`Gate::admit`]); let the
//! caller do what must happen before the call goes (the hook notes where a
//! navigation moves its tab), taking the holds back if that fails; write the
//! admission's line to the gate log; and take the last look. A caller held up
//! between its admission and that look (the process was stopped, or starved
//! of CPU) may have outlived its hold, and another call may have gone in
//! after it: the turn renews the hold, or, if it ran out, queues again. A
//! budget that is spent or a wait that reached `max_wait` ends the turn with
//! its own log line.

use std::time::Duration;

use super::{Admitted, Along, Gate, SiteRequest, Turn};
use crate::{
    error::Result,
    pacing::{
        clock::Mono,
        log::{Kind, Record},
    },
    store::TabNote,
};

/// What a caller asks of the gate for one call.
#[derive(Debug)]
pub struct Ask<'a> {
    /// The call's key in the gate (unique per agent).
    pub call: &'a str,
    /// The sites it needs, with the policy its caller requires at each.
    pub requests: &'a [SiteRequest],
    /// When the caller started, for `max_wait`.
    pub arrived: Mono,
    /// The longest it may wait, counted from `arrived`.
    pub max_wait_ms: u64,
    /// How long an admitted call holds its sites while in flight.
    pub hold_ms: u64,
    /// The agent whose call it is, if any: its open call is recorded, and
    /// its previous call, if still open, is ended first
    /// ([`Gate::end_previous`]).
    pub agent: Option<&'a str>,
    /// The change the call makes to the tab map, which `before_go` applies:
    /// a store that can applies it along with the admission
    /// ([`crate::store::AdmitCall::note`]).
    pub note: Option<&'a TabNote>,
    /// The caller's line for the gate log: tool, session. Each line the turn
    /// writes starts from it, with its own kind, time and sites.
    pub line: &'a Record,
}

impl Ask<'_> {
    fn line(&self, kind: Kind, ts: u64, sites: Vec<String>) -> Record {
        let mut r = self.line.clone();
        r.event = kind;
        r.ts = ts;
        r.call = Some(self.call.to_owned());
        r.sites = sites;
        r
    }
}

/// How long past `max_wait` a Pre's I/O may still take: the work after an
/// admission (its log line, its call record) and the message of a block.
/// Well under the slack `install` leaves between `max_wait` and the hook's
/// timeout (15 s), past which the client kills the hook and runs the call.
pub const IO_GRACE: Duration = Duration::from_secs(5);

/// The deadline for every I/O of a call that may wait `max_wait_ms` from
/// `arrived`.
pub fn io_deadline(arrived: Mono, max_wait_ms: u64) -> Mono {
    arrived.after(Duration::from_millis(max_wait_ms) + IO_GRACE)
}

/// How long a caller may be held up after its admission before the turn
/// renews its hold: a quarter of the hold, at most a second.
pub(crate) fn stall_after(hold_ms: u64) -> Duration {
    Duration::from_millis((hold_ms / 4).min(1_000))
}

impl Gate<'_> {
    /// Take `ask`'s turn: admitted (the call may go now, and is held in
    /// flight), over its budget, or given up after `max_wait`. `before_go`
    /// runs once per admission, before the call is let go; if it fails, the
    /// holds are taken back and its error returned.
    pub fn take_turn(
        &self,
        ask: &Ask<'_>,
        before_go: &mut dyn FnMut(&Admitted) -> Result<()>,
    ) -> Result<Turn> {
        let clock = self.store.clock();
        // The agent's previous call is ended before this one waits; whether
        // it is still open is asked along with the first look at the site,
        // where the store can.
        let mut check_agent = ask.agent.is_some();
        loop {
            let along = Along {
                check_agent: std::mem::take(&mut check_agent),
                note: ask.note,
            };
            let Some(turn) = self.admit_as(
                ask.call,
                ask.requests,
                ask.arrived,
                ask.max_wait_ms,
                ask.agent,
                along,
            )?
            else {
                self.end_previous_logged(ask)?;
                continue;
            };
            match &turn {
                Turn::Admitted(a) => {
                    let sites: Vec<String> = a.sites.iter().map(|(s, _)| s.clone()).collect();
                    if !a.duplicate
                        && let Err(e) = before_go(a)
                    {
                        // The call is blocked, so it sends nothing: take back
                        // its holds rather than keep its sites busy for a
                        // whole hold.
                        let _ = self.cancel(ask.call, &sites, ask.agent);
                        return Err(e);
                    }
                    self.store.log(&admission_line(ask, a, sites.clone()));
                    if !a.duplicate
                        && clock.mono().since(a.at_mono) >= stall_after(ask.hold_ms)
                        && !self.extend(ask.call, &sites, ask.hold_ms)?
                    {
                        let _ = self.cancel(ask.call, &sites, ask.agent);
                        let mut r = ask.line(Kind::Cancel, clock.now_floor(), sites);
                        r.reason =
                            Some("held up after admission past its hold; queued again".to_owned());
                        self.store.log(&r);
                        continue;
                    }
                }
                Turn::OverBudget(s) => {
                    let mut r = ask.line(Kind::Block, s.now, vec![s.site.clone()]);
                    r.reason = Some(format!("budget spent until {}", s.free_at));
                    self.store.log(&r);
                }
                Turn::GaveUp(g) => {
                    let mut r = ask.line(Kind::GiveUp, clock.now_floor(), vec![g.site.clone()]);
                    r.waited_ms = Some(g.waited_ms);
                    r.reason = Some(format!("{} ahead", g.ahead));
                    self.store.log(&r);
                }
            }
            return Ok(turn);
        }
    }
}

impl Gate<'_> {
    /// [`Gate::end_previous`] for `ask`'s agent, and its log line.
    fn end_previous_logged(&self, ask: &Ask<'_>) -> Result<()> {
        let Some(agent) = ask.agent else {
            return Ok(());
        };
        if let Some((previous, f)) = self.end_previous(agent, ask.call)?
            && !f.sites.is_empty()
        {
            let mut r = ask.line(Kind::Finish, f.at(), f.sites.clone());
            r.call = Some(previous);
            r.tool = String::new();
            r.finished_ms = f.times;
            r.reason = Some("no Post came; ended by the agent's next call".to_owned());
            self.store.log(&r);
        }
        Ok(())
    }
}

/// The gate log's line for an admission: what `gaps` replays.
fn admission_line(ask: &Ask<'_>, a: &Admitted, sites: Vec<String>) -> Record {
    let mut r = ask.line(Kind::Admit, a.at_ms, sites);
    r.intervals_ms = a.intervals_ms.clone();
    r.interval_ms = r.intervals_ms.first().copied();
    r.hold_ms = Some(ask.hold_ms);
    r.tickets = a.sites.iter().map(|(_, t)| *t).collect();
    if a.taken_ms.len() > 1 {
        r.admitted_ms = a.taken_ms.clone();
    }
    r.waited_ms = Some(a.waited_ms);
    if a.duplicate {
        r.reason = Some("duplicate: this call already holds its sites".to_owned());
    }
    r
}
