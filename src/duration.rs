//! Durations as people write them in the config (`"10s"`, `"250ms"`) and
//! read them in messages (`4 min 30 s`). Its own module so that errors and
//! the config can both use it without depending on each other.

/// Parse a duration such as `10s`, `250ms`, `1.5s`, `2m` or `1h` into
/// milliseconds.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("`{text}` has no unit; write e.g. \"10s\" or \"250ms\""))?;
    if let Some(magnitude) = t.strip_prefix('-') {
        let example = Some(magnitude.trim())
            .filter(|m| !m.is_empty())
            .unwrap_or("10s");
        return Err(format!(
            "`{text}` is negative; a duration is 0 or longer, e.g. \"{example}\""
        ));
    }
    if split == 0 {
        return Err(format!(
            "`{text}` is not a duration; write e.g. \"10s\" or \"250ms\""
        ));
    }
    let (number, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "ms" => 1.0,
        "s" => 1_000.0,
        "m" | "min" => 60_000.0,
        "h" => 3_600_000.0,
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{text}`; use ms, s, m or h"
            ));
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration; write e.g. \"10s\" or \"250ms\""))?;
    let ms = value * scale;
    if !ms.is_finite() || ms > (u64::MAX / 4) as f64 {
        return Err(format!("`{text}` is too long"));
    }
    Ok(ms.ceil() as u64)
}

/// Format milliseconds for a person: `250 ms`, `10 s`, `2.5 s`, `4 min 30 s`.
pub fn format_duration(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        if ms.is_multiple_of(1_000) {
            format!("{} s", ms / 1_000)
        } else {
            format!("{:.1} s", ms as f64 / 1_000.0)
        }
    } else {
        let s = ms.div_ceil(1_000);
        match s % 60 {
            0 => format!("{} min", s / 60),
            r => format!("{} min {r} s", s / 60),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_in_every_unit() {
        assert_eq!(parse_duration("250ms"), Ok(250));
        assert_eq!(parse_duration("10s"), Ok(10_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500));
        assert_eq!(parse_duration("2m"), Ok(120_000));
        assert_eq!(parse_duration("1h"), Ok(3_600_000));
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("10 parsecs").is_err());
        assert_eq!(
            parse_duration("-5s"),
            Err("`-5s` is negative; a duration is 0 or longer, e.g. \"5s\"".to_owned())
        );
        assert!(parse_duration("-").unwrap_err().contains("e.g. \"10s\""));
    }

    #[test]
    fn durations_format_for_people() {
        assert_eq!(format_duration(250), "250 ms");
        assert_eq!(format_duration(10_000), "10 s");
        assert_eq!(format_duration(2_500), "2.5 s");
        assert_eq!(format_duration(270_000), "4 min 30 s");
    }
}
