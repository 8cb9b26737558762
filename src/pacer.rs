//! The gate for programs other than Claude Code: scripts through
//! `pace-hook run`, Rust programs through [`Pacer`]. They wait in the same
//! queues as the hook, so a script and an agent never hit one site back to
//! back.
//!
//! ```no_run
//! let pacer = pace_hook::Pacer::from_env()?;
//! let permit = pacer.wait_turn("https://api.example.com/v1/items")?;
//! // ... make the one request ...
//! permit.finish()?;
//! # Ok::<(), pace_hook::Error>(())
//! ```

use crate::{
    config::Config,
    duration::format_duration,
    error::{Error, Result},
    gate::{Ask, Gate, SiteRequest, Turn, requests},
    pacing::log::{Kind, Record},
    read::site,
    store::{self, Store},
};

/// A handle on the gate this machine's config points at.
pub struct Pacer {
    store: Box<dyn Store>,
    config: Config,
}

impl std::fmt::Debug for Pacer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pacer")
            .field("store", &self.store.describe())
            .finish()
    }
}

/// Permission to make one request. Record its end with [`Permit::finish`];
/// dropping the permit records it too, best effort.
#[derive(Debug)]
pub struct Permit<'a> {
    pacer: &'a Pacer,
    call: String,
    sites: Vec<String>,
    done: bool,
}

impl Pacer {
    /// The gate as the hook finds it: config and store from the environment
    /// (see the README).
    pub fn from_env() -> Result<Self> {
        let config = Config::discover()?;
        let store = store::open(&config)?;
        Ok(Self { store, config })
    }

    /// The gate `config` points at (its `backend`), with this machine's
    /// state in directory `root`: the file gate itself, or the local gate
    /// log beside a shared one.
    pub fn new(root: impl Into<std::path::PathBuf>, config: Config) -> Result<Self> {
        let store = store::open_in(root.into(), &config)?;
        Ok(Self { store, config })
    }

    /// The gate in `store`, paced by `config`: for a store of the caller's
    /// own (the in-memory one in tests, on a fake clock).
    pub fn with_store(store: Box<dyn Store>, config: Config) -> Self {
        Self { store, config }
    }

    /// The gates for `site_or_url`: a configured site's name (all its
    /// domains), a URL, or a host.
    pub fn requests(&self, site_or_url: &str) -> Result<Vec<SiteRequest>> {
        let wanted = site_or_url.trim().to_ascii_lowercase();
        if let Some(group) = self.config.site(&wanted)? {
            let mut out: Vec<SiteRequest> = Vec::new();
            for d in group.domains() {
                out.extend(requests::for_host(&self.config, d)?);
            }
            if out.is_empty() {
                return Err(Error::Usage {
                    message: format!("configured site `{wanted}` lists no domains"),
                });
            }
            // The gate sorts and merges them.
            return Ok(out);
        }
        match site::host_of_url(site_or_url) {
            Some(host) => requests::for_host(&self.config, &host),
            None => Err(Error::Usage {
                message: format!("`{site_or_url}` is not a site, a host or a URL"),
            }),
        }
    }

    /// Wait for the turn of `site_or_url` and mark it in flight. Fails with
    /// [`Error::NotAdmitted`] after `max_wait`.
    pub fn wait_turn(&self, site_or_url: &str) -> Result<Permit<'_>> {
        let clock = self.store.clock();
        let arrived = clock.mono();
        let requests: Vec<SiteRequest> = self
            .requests(site_or_url)?
            .into_iter()
            .map(SiteRequest::jittered)
            .collect();
        let call = format!(
            "run-{}-{}-{}",
            std::process::id(),
            clock.now_floor(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let gate = Gate::new(self.store.as_ref());
        let line = Record::new(Kind::Admit, 0, "run");
        let ask = Ask {
            call: &call,
            requests: &requests,
            arrived,
            max_wait_ms: self.config.max_wait_ms,
            hold_ms: self.config.hold_ms,
            agent: None,
            note: None,
            line: &line,
        };
        // The wait and its I/O end by the deadline; what the caller does
        // with the permit afterwards is its own.
        self.store.bound_io(Some(crate::gate::io_deadline(
            arrived,
            self.config.max_wait_ms,
        )));
        let turn = gate.take_turn(&ask, &mut |_| Ok(()));
        self.store.bound_io(None);
        match turn? {
            Turn::Admitted(a) => Ok(Permit {
                pacer: self,
                call,
                sites: a.sites.into_iter().map(|(s, _)| s).collect(),
                done: false,
            }),
            Turn::OverBudget(s) => Err(Error::BudgetSpent {
                site: s.site,
                free_in: format_duration(s.free_at.saturating_sub(s.now).max(1)),
            }),
            Turn::GaveUp(g) => Err(Error::NotAdmitted {
                site: g.site,
                ahead: g.ahead,
                waited: format_duration(g.waited_ms),
                more: format_duration(g.more_ms.max(1)),
            }),
        }
    }
}

impl Pacer {
    /// Hold the site(s) of `site_or_url` back for `how_long` from now, for
    /// every process, as a 429 from the site would. Returns the sites and
    /// when they are free again.
    pub fn backoff(
        &self,
        site_or_url: &str,
        how_long: std::time::Duration,
    ) -> Result<(Vec<String>, crate::pacing::clock::EpochMs)> {
        let mut until = 0;
        let mut sites = Vec::new();
        for r in self.requests(site_or_url)? {
            let ms = how_long.as_millis() as u64;
            // The record's time is the store's, the one the backoff counts
            // from, so `until_ms - ts` is the hold asked for.
            let mut set_at = 0;
            let u = self
                .store
                .update_backoff(&r.site, &mut |s, now| {
                    set_at = now;
                    Some(s.hold_back(now, ms))
                })?
                .unwrap_or(0);
            until = until.max(u);
            let mut rec = Record::new(Kind::Backoff, set_at, "backoff");
            rec.sites = vec![r.site.clone()];
            rec.reason = Some(format!("held back by hand for {}", format_duration(ms)));
            rec.until_ms = Some(u);
            self.store.log(&rec);
            sites.push(r.site);
        }
        Ok((sites, until))
    }

    /// End the backoff of the site(s) of `site_or_url` now.
    pub fn clear_backoff(&self, site_or_url: &str) -> Result<Vec<String>> {
        let mut sites = Vec::new();
        for r in self.requests(site_or_url)? {
            self.store.update_backoff(&r.site, &mut |s, _| {
                s.backoff = None;
                None
            })?;
            let mut rec = Record::new(Kind::Backoff, self.store.clock().now_floor(), "backoff");
            rec.sites = vec![r.site.clone()];
            rec.reason = Some("cleared by hand".to_owned());
            rec.until_ms = Some(rec.ts);
            self.store.log(&rec);
            sites.push(r.site);
        }
        Ok(sites)
    }
}

static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Permit<'_> {
    /// The site keys this permit is for.
    pub fn sites(&self) -> &[String] {
        &self.sites
    }

    /// Keep the sites held for another `in_flight_hold` from now: the
    /// request is still running. Call it more often than the hold runs out
    /// for work that may outlast it; if the process dies, the hold lapses on
    /// its own.
    pub fn keep_alive(&self) -> Result<()> {
        Gate::new(self.pacer.store.as_ref())
            .extend(&self.call, &self.sites, self.pacer.config.hold_ms)
            .map(|_| ())
    }

    /// How often [`Permit::keep_alive`] should be called.
    pub fn keep_alive_every(&self) -> std::time::Duration {
        std::time::Duration::from_millis((self.pacer.config.hold_ms / 3).max(20))
    }

    /// Record that the request has finished; the site's interval counts from
    /// now.
    pub fn finish(mut self) -> Result<()> {
        self.done = true;
        self.record_finish()
    }

    fn record_finish(&self) -> Result<()> {
        let gate = Gate::new(self.pacer.store.as_ref());
        let f = gate.finish(&self.call, None, &[])?;
        let mut r = Record::new(Kind::Finish, f.at(), "run");
        r.call = Some(self.call.clone());
        r.finished_ms = f.times;
        r.sites = f.sites;
        self.pacer.store.log(&r);
        Ok(())
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.record_finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::Arc, time::Duration};

    use super::*;
    use crate::{pacing::clock::FakeClock, store::MemoryStore};

    const T0: u64 = 1_800_000_000_000;

    /// `hook::tests::a_pre_held_up_past_its_hold_after_admission_queues_again`,
    /// through the library: both go through `Gate::take_turn`.
    #[test]
    fn a_stalled_run_queues_again_as_a_stalled_hook_does() {
        let mut config = Config::default();
        config.interval_ms = 2_000;
        config.hold_ms = 1_000;
        let clock = Arc::new(FakeClock::new(T0));
        let store = MemoryStore::new(clock, requests::policy_of(&config, None));
        store.stall_after_next(Kind::Admit, Duration::from_millis(1_500));
        let pacer = Pacer::with_store(Box::new(store.process()), config);
        let permit = pacer.wait_turn("https://example.com/x").expect("admitted");
        assert_eq!(permit.sites(), ["example.com"]);
        let records = store.records();
        let kinds: Vec<Kind> = records.iter().map(|r| r.event).collect();
        assert_eq!(
            kinds,
            [Kind::Admit, Kind::Cancel, Kind::Admit],
            "{records:#?}"
        );
        assert_eq!(records[2].tool, "run");
        assert_eq!(records[2].ts, T0 + 1_500);
        permit.finish().expect("finished");
        assert_eq!(store.records().last().map(|r| r.event), Some(Kind::Finish));
    }
}
