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

use std::time::Instant;

use crate::{
    clock::{Clock, SystemClock},
    config::{Config, format_duration},
    error::{Error, Result},
    gate::{Gate, Turn},
    log::{self, Kind, Record},
    site,
    store::FileStore,
};

/// A handle on this machine's gate.
#[derive(Debug)]
pub struct Pacer {
    store: FileStore,
    config: Config,
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
    /// The gate as the hook finds it: config and state directory from the
    /// environment (see the README).
    pub fn from_env() -> Result<Self> {
        let config = Config::discover()?;
        Self::new(FileStore::default_root()?, config)
    }

    /// The gate in state directory `root`, with `config`.
    pub fn new(root: impl Into<std::path::PathBuf>, config: Config) -> Result<Self> {
        let store = FileStore::open(root, config.stale_after_ms)?;
        Ok(Self { store, config })
    }

    /// The site key for `site_or_url`: a configured site's name, a URL, or a
    /// host.
    pub fn site_key(&self, site_or_url: &str) -> Result<String> {
        let wanted = site_or_url.trim().to_ascii_lowercase();
        if self.config.site(&wanted).is_some() {
            return Ok(wanted);
        }
        site::key_for_url(site_or_url, &self.config).ok_or_else(|| Error::Usage {
            message: format!("`{site_or_url}` is not a site, a host or a URL"),
        })
    }

    /// Wait for the turn of `site_or_url` and mark it in flight. Fails with
    /// [`Error::NotAdmitted`] after `max_wait`.
    pub fn wait_turn(&self, site_or_url: &str) -> Result<Permit<'_>> {
        let arrived = Instant::now();
        let site = self.site_key(site_or_url)?;
        let clock = SystemClock;
        let call = format!("run-{}-{}", std::process::id(), clock.now_floor());
        let gate = Gate::new(&self.store, &clock, &self.config);
        match gate.admit(&call, std::slice::from_ref(&site), arrived, None)? {
            Turn::Admitted(a) => {
                let mut r = Record::new(Kind::Admit, a.at_ms, "run");
                r.call = Some(call.clone());
                r.sites = vec![site.clone()];
                r.tickets = a.sites.iter().map(|(_, t)| *t).collect();
                r.waited_ms = Some(a.waited_ms);
                r.interval_ms = Some(self.config.policy_for(&site).interval_ms);
                r.hold_ms = Some(self.config.hold_ms);
                log::append(self.store.root(), &r);
                Ok(Permit {
                    pacer: self,
                    call,
                    sites: vec![site],
                    done: false,
                })
            }
            Turn::GaveUp(g) => {
                let mut r = Record::new(Kind::GiveUp, clock.now_floor(), "run");
                r.sites = vec![site];
                r.waited_ms = Some(g.waited_ms);
                log::append(self.store.root(), &r);
                Err(Error::NotAdmitted {
                    site: g.site,
                    ahead: g.ahead,
                    waited: format_duration(g.waited_ms),
                    more: format_duration(g.more_ms.max(1)),
                })
            }
        }
    }
}

impl Permit<'_> {
    /// The site key this permit is for.
    pub fn site(&self) -> &str {
        &self.sites[0]
    }

    /// Keep the site held for another `in_flight_hold` from now: the request
    /// is still running. Call it more often than the hold runs out for work
    /// that may outlast it; if the process dies, the hold lapses on its own.
    pub fn keep_alive(&self) -> Result<()> {
        let clock = SystemClock;
        Gate::new(&self.pacer.store, &clock, &self.pacer.config).extend(&self.call, &self.sites)
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
        let clock = SystemClock;
        let gate = Gate::new(&self.pacer.store, &clock, &self.pacer.config);
        let (sites, at) = gate.finish(&self.call, None)?;
        let mut r = Record::new(Kind::Finish, at, "run");
        r.call = Some(self.call.clone());
        r.sites = sites;
        log::append(self.pacer.store.root(), &r);
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
