//! The gate's invariant, by property: for random sequences of admissions,
//! finishes, failures, missing Posts, dead and stopped waiters, lost states,
//! clock steps and configs that disagree, over a few sites and agents,
//!
//! 1. no admission comes earlier than the previous finish (or the end of the
//!    hold of a call still in flight) plus the strictest interval required,
//!    judged on real time by `pace-hook gaps`'s own checker ([`gaps::gaps`]);
//! 2. no caller waits longer than a hold plus an interval (plus the lease
//!    time of a dead or stopped waiter) for a site: nothing wedges.
//!
//! The gate runs on a fake clock, so every wait is a step of the clock:
//! thousands of sequences run in seconds, the same way every time
//! (`PROPTEST_CASES` sets how many). It runs on two stores: the in-memory
//! one, which can kill and stop its "processes", and the Redis store against
//! a real `redis-server`, its scripts reading the fake clock (there a dead
//! waiter is one whose lease key is gone; a stopped one cannot be faked,
//! since the server expires keys on its own clock, and is left out).

use std::sync::Arc;

use pace_hook::{
    clock::{Clock, EpochMs, FakeClock},
    decision::Policy,
    gaps,
    gate::{Gate, SiteRequest, Turn},
    log::{Kind, Record},
    store::{LEASE_TTL, MemoryStore, Queue, RENEW_EVERY, Sites, Store},
};
use proptest::prelude::*;

#[cfg(feature = "redis")]
#[path = "common/redis_server.rs"]
mod redis_server;

const T0: EpochMs = 1_800_000_000_000;
const HOLD: u64 = 60_000;
const SITES: [&str; 3] = ["a.com", "b.org", "c.net"];
const AGENTS: usize = 3;
/// Longer than any wait the gate may impose, so every call is admitted.
const MAX_WAIT: u64 = 600_000;

#[derive(Debug, Clone)]
enum Op {
    /// An agent's paced call to some sites, with its config's interval.
    Admit { agent: usize, sites: u8, slow: bool },
    /// The Post (or PostToolUseFailure) of the agent's open call.
    Post { agent: usize },
    /// The agent's open call never gets a Post.
    Forget { agent: usize },
    /// Time passes.
    Advance(u64),
    /// The wall clock is stepped back (NTP, a user), time goes on.
    StepBack(u64),
    /// A site's state is lost (torn, emptied).
    Corrupt(usize),
    /// A multi-site waiter took a site under its lease, then died or was
    /// stopped for good.
    Waiter { site: usize, dies: bool },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..AGENTS, 1u8..8, any::<bool>()).prop_map(|(agent, sites, slow)| Op::Admit { agent, sites, slow }),
        4 => (0..AGENTS).prop_map(|agent| Op::Post { agent }),
        1 => (0..AGENTS).prop_map(|agent| Op::Forget { agent }),
        3 => (0u64..30_000).prop_map(Op::Advance),
        1 => (0u64..7_200_000).prop_map(Op::StepBack),
        1 => (0..SITES.len()).prop_map(Op::Corrupt),
        1 => (0..SITES.len(), any::<bool>()).prop_map(|(site, dies)| Op::Waiter { site, dies }),
    ]
}

/// Where the gate keeps its state in a run.
enum Backend {
    Memory(MemoryStore),
    #[cfg(feature = "redis")]
    Redis(pace_hook::store::RedisStore),
}

impl Backend {
    fn store(&self) -> &dyn Store {
        match self {
            Backend::Memory(m) => m,
            #[cfg(feature = "redis")]
            Backend::Redis(r) => r,
        }
    }
}

struct World {
    clock: Arc<FakeClock>,
    backend: Backend,
    /// Each agent's open call: its key and sites.
    open: Vec<Option<String>>,
    /// The log on real (monotonic) time.
    log: Vec<Record>,
    next: u64,
    /// Leases of waiters that died or stopped, kept alive as values.
    waiters: Vec<(MemoryStore, Box<dyn pace_hook::store::Lease>)>,
    start: pace_hook::clock::Mono,
}

const LOST: Policy = Policy {
    interval_ms: 10_000,
    hold_ms: HOLD,
    budget: None,
};

impl World {
    fn new() -> Self {
        let clock = Arc::new(FakeClock::new(T0));
        let store = MemoryStore::new(clock.clone(), LOST);
        Self::with(clock, Backend::Memory(store))
    }

    /// A world on a Redis server, in a fresh database: `FLUSHDB` first.
    #[cfg(feature = "redis")]
    fn redis(url: &str, home: &std::path::Path) -> Self {
        let mut c = redis::Client::open(url).unwrap().get_connection().unwrap();
        redis::cmd("FLUSHDB").query::<()>(&mut c).unwrap();
        let clock = Arc::new(FakeClock::new(T0));
        let store = pace_hook::store::RedisStore::with_fake_clock(
            url,
            home,
            pace_hook::store::Options {
                lost: LOST,
                stale_after_ms: 15 * 60_000,
            },
            clock.clone(),
        )
        .unwrap();
        Self::with(clock, Backend::Redis(store))
    }

    fn with(clock: Arc<FakeClock>, backend: Backend) -> Self {
        Self {
            start: clock.mono(),
            clock,
            backend,
            open: vec![None; AGENTS],
            log: Vec::new(),
            next: 0,
            waiters: Vec::new(),
        }
    }

    /// Real time: the monotonic scale, on the epoch of the start.
    fn real(&self) -> EpochMs {
        T0 + self.clock.mono().since(self.start).as_millis() as u64
    }

    fn finish(&mut self, agent: usize) {
        if let Some(call) = self.open[agent].take() {
            let agent_key = format!("agent{agent}");
            let f = Gate::new(self.backend.store())
                .finish(&call, Some(&agent_key), &[])
                .unwrap();
            let mut r = Record::new(Kind::Finish, self.real(), "t");
            r.call = Some(call);
            r.sites = f.sites;
            self.log.push(r);
        }
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        match *op {
            Op::Admit { agent, sites, slow } => {
                let interval_ms = if slow { 10_000 } else { 2_000 };
                let requests: Vec<SiteRequest> = SITES
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| sites & (1 << i) != 0)
                    .map(|(_, s)| {
                        SiteRequest::new(
                            *s,
                            Policy {
                                interval_ms,
                                hold_ms: HOLD,
                                budget: None,
                            },
                        )
                    })
                    .collect();
                let agent_key = format!("agent{agent}");
                self.next += 1;
                let call = format!("{agent_key}#{}", self.next);
                let gate = Gate::new(self.backend.store());
                // The same agent's next call ends its open one.
                if let Some((prev, f)) = gate.end_previous(&agent_key, &call).unwrap() {
                    let mut r = Record::new(Kind::Finish, self.real(), "t");
                    r.call = Some(prev);
                    r.sites = f.sites;
                    self.log.push(r);
                }
                self.open[agent] = None;
                let arrived = self.clock.mono();
                let turn = loop {
                    match gate.admit(&call, &requests, arrived, MAX_WAIT, Some(&agent_key)) {
                        Ok(t) => break t,
                        // A lost state blocks this one call; it is retried, as
                        // the model would.
                        Err(pace_hook::Error::CorruptState { .. }) => continue,
                        Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
                    }
                };
                let Turn::Admitted(a) = turn else {
                    return Err(TestCaseError::fail(format!("not admitted: {turn:?}")));
                };
                // Nothing wedges: per site, a hold, an interval, and the time
                // to find a dead or stopped waiter's lease lapsed, at most.
                // Per site, because a call takes its sites one after another,
                // and a site's lost state or a clock step back is only found
                // (and counted from) when the call reaches that site.
                let per_site = HOLD + 10_000 + (LEASE_TTL + RENEW_EVERY).as_millis() as u64;
                let bound = per_site * requests.len() as u64;
                prop_assert!(a.waited_ms <= bound, "waited {} ms > {bound}", a.waited_ms);
                let mut r = Record::new(Kind::Admit, self.real(), "t");
                r.call = Some(call.clone());
                r.sites = a.sites.iter().map(|(s, _)| s.clone()).collect();
                r.intervals_ms = vec![interval_ms; r.sites.len()];
                r.hold_ms = Some(HOLD);
                self.log.push(r);
                self.open[agent] = Some(call);
            }
            Op::Post { agent } => self.finish(agent),
            Op::Forget { agent } => {
                // The call stays open in the store; the model forgets it, so
                // only a hold's end or the agent's next call can end it.
                let _ = self.open[agent].take();
            }
            Op::Advance(ms) => self.clock.advance(ms),
            Op::StepBack(ms) => self.clock.step_wall(-(ms as i64)),
            Op::Corrupt(site) => match &self.backend {
                Backend::Memory(m) => m.corrupt(SITES[site]),
                #[cfg(feature = "redis")]
                Backend::Redis(r) => r.tear(SITES[site]).unwrap(),
            },
            Op::Waiter { site, dies } => {
                let long = Policy {
                    interval_ms: 10_000,
                    hold_ms: MAX_WAIT + HOLD,
                    budget: None,
                };
                self.next += 1;
                let call = format!("waiter#{}", self.next);
                match &self.backend {
                    Backend::Memory(m) => {
                        let p = m.process();
                        let lease = p.lease().unwrap();
                        let _ = p.try_admit(
                            SITES[site],
                            &call,
                            &long,
                            Some(lease.id()),
                            self.clock.mono(),
                        );
                        if dies {
                            p.kill();
                        } else {
                            p.stop();
                        }
                        self.waiters.push((p, lease));
                    }
                    // A dead waiter's lease key is gone (it would lapse on
                    // the server's clock; here at once).
                    #[cfg(feature = "redis")]
                    Backend::Redis(r) if dies => {
                        let lease = r.lease().unwrap();
                        let _ = r.try_admit(
                            SITES[site],
                            &call,
                            &long,
                            Some(lease.id()),
                            self.clock.mono(),
                        );
                        drop(lease);
                    }
                    #[cfg(feature = "redis")]
                    Backend::Redis(_) => {}
                }
            }
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256),
        // A failure found becomes a named regression test beside the code
        // it found (as in decision.rs), not a file of seeds.
        failure_persistence: None,
        .. ProptestConfig::default()
    })]

    #[test]
    fn no_short_gap_and_no_wedge(ops in proptest::collection::vec(op(), 1..60)) {
        let mut world = World::new();
        for op in &ops {
            world.apply(op)?;
        }
        check(&world)?;
    }
}

fn check(world: &World) -> Result<(), TestCaseError> {
    for (site, gaps) in &gaps::gaps(&world.log) {
        for g in gaps {
            prop_assert!(
                !g.is_short(),
                "{site}: {} admitted {} ms after {} was busy until {}, interval {}",
                g.before.0,
                g.ms(),
                g.after.0,
                g.busy_until,
                g.interval_ms
            );
        }
    }
    Ok(())
}

/// The same property on the Redis store, against a real server: its Lua
/// scripts, queue and leases under the same sequences. Fewer cases by
/// default (each step is a few round trips); `PROPTEST_CASES` sets them.
#[cfg(feature = "redis")]
#[test]
fn no_short_gap_and_no_wedge_on_redis() {
    use proptest::test_runner::{Config, TestRunner};
    let server = redis_server::Server::start();
    let url = server.url();
    let home = std::env::temp_dir().join(format!("pace-hook-invariant-{}", std::process::id()));
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(64);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&proptest::collection::vec(op(), 1..60), |ops| {
        let mut world = World::redis(&url, &home);
        for op in &ops {
            world.apply(op)?;
        }
        check(&world)
    });
    let _ = std::fs::remove_dir_all(&home);
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The checker itself finds a short gap: an admission made too early is
/// reported (the property above cannot pass by checking nothing).
#[test]
fn the_checker_catches_an_early_admission() {
    let mut a = Record::new(Kind::Admit, T0, "t");
    a.call = Some("a".into());
    a.sites = vec!["a.com".into()];
    a.intervals_ms = vec![10_000];
    a.hold_ms = Some(HOLD);
    let mut f = Record::new(Kind::Finish, T0 + 100, "t");
    f.call = Some("a".into());
    f.sites = vec!["a.com".into()];
    let mut b = a.clone();
    b.call = Some("b".into());
    b.ts = T0 + 5_000;
    let all = gaps::gaps(&[a, f, b]);
    assert!(all["a.com"][0].is_short());
}
