//! The report's pieces: the machine, medians and quantiles, verdicts, times.

#[allow(unused_imports)]
use super::*;

pub(crate) fn machine(out: &mut String, work: &Path, rounds: usize) {
    let cpus = thread::available_parallelism().map_or(0, |n| n.get());
    let model = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let kernel = fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|k| k.trim().to_owned())
        .unwrap_or_else(|_| "unknown".to_owned());
    let rustc = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("-V")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    let size = fs::metadata(BIN).map_or(0, |m| m.len());
    let commit = Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "describe",
            "--always",
            "--dirty",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    let _ = writeln!(
        out,
        "Machine: {cpus} CPUs ({model}), Linux {kernel}, {rustc}; state directories on {} \
         (`{}`). pace-hook at commit `{commit}`, release build (`lto = \"fat\"`, \
         `codegen-units = 1`), {:.1} MB. \
         Per-event figures are over {rounds} rounds, every command once per round.\n",
        filesystem(work),
        work.display(),
        size as f64 / 1e6
    );
}

pub(crate) fn filesystem(path: &Path) -> &'static str {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return "an unknown filesystem";
    };
    // SAFETY: statfs is plain old data, for statfs(2) to fill.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a live struct.
    if unsafe { libc::statfs(c.as_ptr(), &mut s) } != 0 {
        return "an unknown filesystem";
    }
    match s.f_type as u64 {
        0xEF53 => "ext4",
        0x0102_1994 => "tmpfs",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0x794C_7630 => "overlayfs",
        0x6969 => "NFS",
        _ => "an unknown filesystem",
    }
}

/// The `q` quantile (nearest rank) of sorted `v`.
pub(crate) fn quantile<T: Copy>(v: &[T], q: f64) -> T {
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub(crate) fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "**not met**" }
}

pub(crate) fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

/// `t` as `YYYY-MM-DD HH:MM UTC`.
pub(crate) fn utc(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3_600,
        rem % 3_600 / 60
    )
}

/// ` (N failed)` after a row's label, or nothing.
pub(crate) fn failed_note(failures: usize) -> String {
    if failures > 0 {
        format!(" ({failures} failed)")
    } else {
        String::new()
    }
}
