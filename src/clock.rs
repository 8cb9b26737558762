//! Time as the gate stores it: wall-clock milliseconds since the Unix epoch.
//!
//! An `Instant` means nothing to another process, so everything written to the
//! store is epoch milliseconds. Two roundings keep a gap from ever coming out
//! short: a finish is recorded rounded *up* ([`Clock::now_ceil`]) and an
//! admission rounded *down* ([`Clock::now_floor`]), so the recorded gap is never
//! larger than the real one.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, as stored on disk and in the gate log.
pub type EpochMs = u64;

/// A source of wall-clock time. The gate takes one so that library callers and
/// tests can control time; the binary uses [`SystemClock`].
pub trait Clock {
    /// Now, rounded down to the millisecond: use for admissions.
    fn now_floor(&self) -> EpochMs;
    /// Now, rounded up to the millisecond: use for finishes.
    fn now_ceil(&self) -> EpochMs;
    /// How long from now until `at`, to the clock's full precision (zero if
    /// `at` has passed). A sleep of this length never wakes before `at`.
    fn until(&self, at: EpochMs) -> std::time::Duration;
}

/// The machine's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl SystemClock {
    fn since_epoch() -> std::time::Duration {
        // A clock before 1970 is a broken machine; treating it as the epoch makes
        // every stored finish look recent, which errs towards waiting.
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
    }
}

impl Clock for SystemClock {
    fn now_floor(&self) -> EpochMs {
        Self::since_epoch().as_millis() as EpochMs
    }

    fn now_ceil(&self) -> EpochMs {
        let d = Self::since_epoch();
        let ms = d.as_millis() as EpochMs;
        if d.subsec_nanos().is_multiple_of(1_000_000) {
            ms
        } else {
            ms + 1
        }
    }

    fn until(&self, at: EpochMs) -> std::time::Duration {
        std::time::Duration::from_millis(at).saturating_sub(Self::since_epoch())
    }
}

/// A clock that only moves when told to, for timeline tests.
#[derive(Debug, Default)]
pub struct FakeClock {
    now: std::cell::Cell<EpochMs>,
}

impl FakeClock {
    /// A fake clock reading `start`.
    pub fn new(start: EpochMs) -> Self {
        Self {
            now: std::cell::Cell::new(start),
        }
    }

    /// Move time forward by `ms`.
    pub fn advance(&self, ms: u64) {
        self.now.set(self.now.get().saturating_add(ms));
    }
}

impl Clock for FakeClock {
    fn now_floor(&self) -> EpochMs {
        self.now.get()
    }

    fn now_ceil(&self) -> EpochMs {
        self.now.get()
    }

    fn until(&self, at: EpochMs) -> std::time::Duration {
        std::time::Duration::from_millis(at.saturating_sub(self.now.get()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_is_never_below_floor() {
        let c = SystemClock;
        for _ in 0..1000 {
            let f = c.now_floor();
            let x = c.now_ceil();
            assert!(x >= f, "ceil {x} < floor {f}");
        }
    }

    #[test]
    fn fake_clock_advances_only_when_told() {
        let c = FakeClock::new(1_000);
        assert_eq!(c.now_floor(), 1_000);
        c.advance(250);
        assert_eq!(c.now_floor(), 1_250);
        assert_eq!(c.now_ceil(), 1_250);
        assert_eq!(c.until(1_300), std::time::Duration::from_millis(50));
        assert_eq!(c.until(1_000), std::time::Duration::ZERO);
    }

    #[test]
    fn until_a_past_time_is_zero() {
        assert_eq!(SystemClock.until(0), std::time::Duration::ZERO);
    }
}
