//! Time, as the gate reads it: wall-clock milliseconds since the Unix epoch
//! for everything stored or compared across processes, and a monotonic
//! reading for deadlines and sleeps within one process.
//!
//! An `Instant` means nothing to another process, so everything written to the
//! store is epoch milliseconds. Two roundings keep a gap from ever coming out
//! short: a finish is recorded rounded *up* ([`Clock::now_ceil`]) and an
//! admission rounded *down* ([`Clock::now_floor`]), so the recorded gap is never
//! larger than the real one.
//!
//! Nothing in the gate or the stores reads the system clock directly: they
//! take a [`Clock`], so that [`FakeClock`] can drive them through timelines,
//! clock steps included, without sleeping.

use std::{
    sync::{
        Mutex, OnceLock,
        atomic::{AtomicI64, Ordering},
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

/// Milliseconds since the Unix epoch, as stored on disk and in the gate log.
pub type EpochMs = u64;

/// A point on a clock's monotonic scale: never goes back, means nothing
/// outside this process. Used for deadlines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mono(Duration);

impl Mono {
    /// `d` after this point.
    pub fn after(self, d: Duration) -> Mono {
        Mono(self.0.saturating_add(d))
    }

    /// How long from `earlier` to this point (zero if `earlier` is later).
    pub fn since(self, earlier: Mono) -> Duration {
        self.0.saturating_sub(earlier.0)
    }
}

/// A source of time. The gate and the stores take one so that library
/// callers and tests can control time; the binary uses [`SystemClock`].
pub trait Clock: Send + Sync {
    /// Wall-clock now, rounded down to the millisecond: use for admissions.
    fn now_floor(&self) -> EpochMs;
    /// Wall-clock now, rounded up to the millisecond: use for finishes.
    fn now_ceil(&self) -> EpochMs;
    /// How long from now until wall-clock time `at`, to the clock's full
    /// precision (zero if `at` has passed). A sleep of this length never
    /// wakes before `at`.
    fn until(&self, at: EpochMs) -> Duration;
    /// Now on the monotonic scale.
    fn mono(&self) -> Mono;
    /// Sleep for `d`.
    fn sleep(&self, d: Duration);

    /// How long until monotonic point `deadline` (zero if it has passed).
    fn left(&self, deadline: Mono) -> Duration {
        deadline.since(self.mono())
    }
}

/// The machine's clocks: `SystemTime` for the wall, `Instant` for deadlines.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

/// Shifts the wall clock of this process, for tests only: two "machines"
/// whose clocks disagree. Read once; signed milliseconds.
const OFFSET_VAR: &str = "PACE_HOOK_TEST_CLOCK_OFFSET_MS";

fn offset_ms() -> i64 {
    static OFFSET: OnceLock<i64> = OnceLock::new();
    *OFFSET.get_or_init(|| {
        std::env::var(OFFSET_VAR)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    })
}

fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

impl SystemClock {
    fn since_epoch() -> Duration {
        // A clock before 1970 is a broken machine; treating it as the epoch makes
        // every stored finish look recent, which errs towards waiting.
        let d = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        match offset_ms() {
            0 => d,
            o if o > 0 => d.saturating_add(Duration::from_millis(o as u64)),
            o => d.saturating_sub(Duration::from_millis(o.unsigned_abs())),
        }
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

    fn until(&self, at: EpochMs) -> Duration {
        Duration::from_millis(at).saturating_sub(Self::since_epoch())
    }

    fn mono(&self) -> Mono {
        Mono(origin().elapsed())
    }

    fn sleep(&self, d: Duration) {
        std::thread::sleep(d)
    }
}

/// The system clock set to another machine's wall time: the Redis store's
/// clock, whose readings are the server's (as last measured, to within a
/// round trip), so that what this process stamps on its own (a log line, a
/// tab's `seen_ms`, a message's "free in") agrees with the times the server
/// compares. Admissions and finishes never come from here: the server's
/// scripts take them from its `TIME`.
#[derive(Debug, Default)]
pub struct OffsetClock {
    offset_us: AtomicI64,
}

impl OffsetClock {
    /// Set the server's time minus this machine's, in µs.
    pub fn set_offset_us(&self, us: i64) {
        self.offset_us.store(us, Ordering::Relaxed);
    }

    /// This machine's wall clock in µs since the epoch, the base the offset
    /// is measured from.
    pub fn local_us() -> i64 {
        SystemClock::since_epoch().as_micros() as i64
    }

    fn now_us(&self) -> u64 {
        Self::local_us()
            .saturating_add(self.offset_us.load(Ordering::Relaxed))
            .max(0) as u64
    }
}

impl Clock for OffsetClock {
    fn now_floor(&self) -> EpochMs {
        self.now_us() / 1000
    }

    fn now_ceil(&self) -> EpochMs {
        self.now_us().div_ceil(1000)
    }

    fn until(&self, at: EpochMs) -> Duration {
        Duration::from_micros(at.saturating_mul(1000).saturating_sub(self.now_us()))
    }

    fn mono(&self) -> Mono {
        SystemClock.mono()
    }

    fn sleep(&self, d: Duration) {
        SystemClock.sleep(d)
    }
}

/// A clock that only moves when told to, or when someone sleeps on it, for
/// timeline tests. The wall clock can also be stepped on its own, as NTP or a
/// user does, while the monotonic scale goes on.
#[derive(Debug)]
pub struct FakeClock {
    inner: Mutex<(EpochMs, Duration)>,
}

impl FakeClock {
    /// A fake clock whose wall reads `start`.
    pub fn new(start: EpochMs) -> Self {
        Self {
            inner: Mutex::new((start, Duration::ZERO)),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut (EpochMs, Duration)) -> R) -> R {
        f(&mut self.inner.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Move time forward by `ms`, on both scales.
    pub fn advance(&self, ms: u64) {
        self.with(|(wall, mono)| {
            *wall = wall.saturating_add(ms);
            *mono = mono.saturating_add(Duration::from_millis(ms));
        })
    }

    /// Step the wall clock by `ms` (back if negative); the monotonic scale
    /// does not move.
    pub fn step_wall(&self, ms: i64) {
        self.with(|(wall, _)| {
            *wall = if ms >= 0 {
                wall.saturating_add(ms as u64)
            } else {
                wall.saturating_sub(ms.unsigned_abs())
            }
        })
    }
}

impl Clock for FakeClock {
    fn now_floor(&self) -> EpochMs {
        self.with(|(wall, _)| *wall)
    }

    fn now_ceil(&self) -> EpochMs {
        self.with(|(wall, _)| *wall)
    }

    fn until(&self, at: EpochMs) -> Duration {
        Duration::from_millis(at.saturating_sub(self.now_floor()))
    }

    fn mono(&self) -> Mono {
        self.with(|(_, mono)| Mono(*mono))
    }

    /// Sleeping on a fake clock moves it: a waiter's sleep *is* the passing
    /// of time in a timeline test. Rounded up to the millisecond, so a sleep
    /// until a time always reaches it.
    fn sleep(&self, d: Duration) {
        let ms = d.as_millis() as u64 + u64::from(!d.subsec_nanos().is_multiple_of(1_000_000));
        self.advance(ms);
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
    fn fake_clock_advances_only_when_told_or_slept_on() {
        let c = FakeClock::new(1_000);
        assert_eq!(c.now_floor(), 1_000);
        c.advance(250);
        assert_eq!(c.now_floor(), 1_250);
        assert_eq!(c.now_ceil(), 1_250);
        assert_eq!(c.until(1_300), Duration::from_millis(50));
        assert_eq!(c.until(1_000), Duration::ZERO);
        let before = c.mono();
        c.sleep(Duration::from_micros(1_500));
        assert_eq!(c.now_floor(), 1_252);
        assert_eq!(c.mono().since(before), Duration::from_millis(2));
    }

    #[test]
    fn a_wall_step_leaves_the_monotonic_scale_alone() {
        let c = FakeClock::new(100_000);
        let m = c.mono();
        c.step_wall(-60_000);
        assert_eq!(c.now_floor(), 40_000);
        assert_eq!(c.mono(), m);
        c.step_wall(5);
        assert_eq!(c.now_floor(), 40_005);
    }

    #[test]
    fn an_offset_clock_reads_the_other_machines_time() {
        let c = OffsetClock::default();
        c.set_offset_us(-3_600_000_000);
        let here = SystemClock.now_floor();
        let there = c.now_floor();
        assert!(
            here - there >= 3_599_999 && here - there <= 3_600_100,
            "{here} {there}"
        );
        assert!(c.now_ceil() >= there);
        assert_eq!(c.until(there), Duration::ZERO);
    }

    #[test]
    fn until_a_past_time_is_zero() {
        assert_eq!(SystemClock.until(0), Duration::ZERO);
    }

    #[test]
    fn deadlines_saturate() {
        let c = FakeClock::new(0);
        let d = c.mono().after(Duration::from_millis(10));
        assert_eq!(c.left(d), Duration::from_millis(10));
        c.advance(20);
        assert_eq!(c.left(d), Duration::ZERO);
    }
}
