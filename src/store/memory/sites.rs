//! The memory store's site steps: lock the mutex, apply, write.

use std::{sync::Arc, time::Duration};

use super::MemoryStore;
use crate::{
    error::{Error, Result},
    pacing::clock::{Clock, Mono},
    pacing::decision::SiteState,
    pacing::step::{self, Applied, Now, Step},
    store::{Sites, Stepped, Watch},
};

impl MemoryStore {
    /// Lock, apply, write: [`Sites::step`] on `site`'s state.
    fn apply(&self, site: &str, step: Step<'_>) -> Result<Stepped> {
        let mut inner = self.inner();
        self.fail(&mut inner, step.name())?;
        if inner.unreadable.remove(site) {
            let heal = step.heal(&self.lost);
            let now = self.clock.now_ceil();
            inner
                .sites
                .insert(site.to_owned(), SiteState::lost(site, now, &heal));
            if step.fails_on_lost() {
                return Err(Error::CorruptState {
                    path: format!("memory:{site}").into(),
                    moved_to: None,
                    retry_after_ms: heal.lost_for_ms(),
                });
            }
        }
        let mut state = match inner.sites.get(site) {
            Some(s) => s.clone(),
            None if step.makes_site() => SiteState::new(site),
            None => return Ok(Stepped::by(self.clock.as_ref(), Applied::Found(false))),
        };
        let mono = self.clock.mono();
        let lives = &*inner;
        let alive = |id: &str| {
            id.parse::<u64>()
                .is_ok_and(|owner| Self::alive(lives, owner, mono))
        };
        let applied = step::apply(&mut state, step, Now::of(self.clock.as_ref()), alive);
        inner.sites.insert(site.to_owned(), state);
        Ok(Stepped::by(self.clock.as_ref(), applied))
    }
}

pub(super) struct MemWatch {
    clock: Arc<dyn Clock>,
    teardown: Duration,
}

impl Drop for MemWatch {
    fn drop(&mut self) {
        if !self.teardown.is_zero() {
            self.clock.sleep(self.teardown);
        }
    }
}

impl Watch for MemWatch {
    fn wait(&mut self, timeout: Duration) -> Result<()> {
        // Changes are not signalled: a waiter sleeps until the time the
        // gate computed (never longer than RENEW_EVERY while a lease could
        // lapse) and looks again. On a fake clock, in one thread, that is
        // exact and one step; threads sharing a store on a real clock wake
        // at those times too, later than a signal would wake them, never
        // earlier than due.
        self.clock.sleep(timeout);
        Ok(())
    }
}

impl Sites for MemoryStore {
    fn step(&self, site: &str, step: Step<'_>, _deadline: Option<Mono>) -> Result<Stepped> {
        self.apply(site, step)
    }

    fn watch(&self, _site: &str) -> Result<Box<dyn Watch>> {
        Ok(Box::new(MemWatch {
            clock: self.clock.clone(),
            teardown: self.inner().watch_teardown,
        }))
    }

    fn site_state(&self, site: &str) -> Result<Option<SiteState>> {
        Ok(self.peek(site))
    }

    fn known_sites(&self) -> Result<Vec<String>> {
        Ok(self.inner().sites.keys().cloned().collect())
    }
}
