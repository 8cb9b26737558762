//! Moments for people: an epoch-ms time as UTC clock time, and how far it
//! is from now ("in 3 s", "2 min ago"). Used by `status` and `doctor`; the
//! JSON they print keeps epoch ms.

use crate::pacing::clock::EpochMs;

/// `12:00:03 UTC (in 3 s)`; a time on another day than `now` gets its date.
pub(crate) fn at(t: EpochMs, now: EpochMs) -> String {
    format!("{} ({})", clock(t, now), relative(t, now))
}

/// `12:00:03 UTC`, or `2026-05-01 12:00:03 UTC` when `t` is not on `now`'s
/// day (UTC).
pub(crate) fn clock(t: EpochMs, now: EpochMs) -> String {
    let day = t / 86_400_000;
    let s = t / 1_000;
    let time = format!("{:02}:{:02}:{:02}", s / 3_600 % 24, s / 60 % 60, s % 60);
    if day == now / 86_400_000 {
        format!("{time} UTC")
    } else {
        let (y, m, d) = civil(day as i64);
        format!("{y:04}-{m:02}-{d:02} {time} UTC")
    }
}

/// `in 3 s`, `2 min ago`, `now`.
pub(crate) fn relative(t: EpochMs, now: EpochMs) -> String {
    let (d, future) = if t >= now {
        (t - now, true)
    } else {
        (now - t, false)
    };
    let amount = if d < 100 {
        return "now".to_owned();
    } else if d < 10_000 {
        let tenths = d / 100;
        if tenths.is_multiple_of(10) {
            format!("{} s", tenths / 10)
        } else {
            format!("{}.{} s", tenths / 10, tenths % 10)
        }
    } else if d < 60_000 {
        format!("{} s", d / 1_000)
    } else if d < 3_570_000 {
        // Rounded: a hold with 1 min 58 s left reads "in 2 min".
        format!("{} min", (d + 30_000) / 60_000)
    } else if d < 47 * 3_600_000 + 1_800_000 {
        format!("{} h", (d + 1_800_000) / 3_600_000)
    } else {
        format!("{} days", (d + 43_200_000) / 86_400_000)
    };
    if future {
        format!("in {amount}")
    } else {
        format!("{amount} ago")
    }
}

/// Year, month, day of day `z` since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
pub(crate) fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOON: EpochMs = 1_777_636_800_000; // 2026-05-01 12:00:00 UTC

    #[test]
    fn times_today_are_clock_times_and_others_carry_their_date() {
        assert_eq!(clock(NOON + 3_000, NOON), "12:00:03 UTC");
        assert_eq!(clock(NOON - 86_400_000, NOON), "2026-04-30 12:00:00 UTC");
        assert_eq!(clock(0, NOON), "1970-01-01 00:00:00 UTC");
    }

    #[test]
    fn distances_read_as_people_say_them() {
        assert_eq!(relative(NOON + 3_000, NOON), "in 3 s");
        assert_eq!(relative(NOON + 2_500, NOON), "in 2.5 s");
        assert_eq!(relative(NOON - 120_000, NOON), "2 min ago");
        assert_eq!(relative(NOON + 118_000, NOON), "in 2 min");
        assert_eq!(relative(NOON + 3_580_000, NOON), "in 1 h");
        assert_eq!(relative(NOON + 30, NOON), "now");
        assert_eq!(relative(NOON - 3 * 3_600_000, NOON), "3 h ago");
        assert_eq!(relative(NOON - 3 * 86_400_000, NOON), "3 days ago");
        assert_eq!(at(NOON + 3_000, NOON), "12:00:03 UTC (in 3 s)");
    }
}
