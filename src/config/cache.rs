//! A parsed copy of each config file, kept in the state directory under the
//! file's identity and change times. With a thousand sites, parsing the TOML
//! costs several times more than the event that needs it; reading the copy
//! back is one small JSON parse. Any change to the file (a write changes its
//! ctime) misses the cache; a bad file is never cached, so its error is
//! reported every time.

use std::{os::unix::fs::MetadataExt, path::Path};

use super::Config;
use crate::state_dir::{Dir, Mode};

/// dev, inode, size, mtime (s, ns), ctime (s, ns).
pub(crate) type Key = [i64; 7];

fn dir() -> Option<Dir> {
    let root = crate::state_dir::default_root().ok()?;
    // Inside a state directory that already exists: reading the config is
    // not a reason to make one (`gaps` only reads). The first paced call
    // makes it; the cache follows.
    Dir::open_root(&root, false)
        .ok()?
        .sub("config-cache", true)
        .ok()
        .flatten()
}

fn name(path: &Path) -> String {
    crate::key::file_name(&path.to_string_lossy())
}

/// The cached config for `path` if it is current, and the key to cache a
/// fresh parse under (`None` if the file cannot be looked at).
pub(super) fn read(path: &Path) -> (Option<Config>, Option<Key>) {
    let Ok(m) = std::fs::metadata(path) else {
        return (None, None);
    };
    if !m.is_file() {
        return (None, None);
    }
    let key: Key = [
        m.dev() as i64,
        m.ino() as i64,
        m.size() as i64,
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ];
    let cached = dir()
        .and_then(|d| d.open(&name(path), Mode::Read).ok())
        .and_then(|f| {
            let mut bytes = Vec::new();
            crate::state_dir::read_all(&f, &mut bytes).ok()?;
            String::from_utf8(bytes).ok()
        })
        .and_then(|text| decode(&text, path))
        .filter(|(k, _)| *k == key)
        .map(|(_, c)| c);
    (cached, Some(key))
}

/// Cache `config` for `path` under `key`, best effort.
pub(super) fn write(path: &Path, key: &Key, config: &Config) {
    if let Some(d) = dir() {
        let _ = d.write_atomic(&name(path), encode(key, config).as_bytes());
    }
}

const MAGIC: &str = "pace-hook config cache 3";

/// What the settings line does not hold, as one JSON line.
#[derive(serde::Serialize, serde::Deserialize)]
struct Extra {
    budget: Option<crate::pacing::decision::Budget>,
    backend: super::Backend,
    on_backend_error: super::OnBackendError,
    tools: Vec<super::ToolRule>,
    presets: Vec<super::PresetUse>,
}

/// The cache's text: a line of key, a line of numeric settings, a JSON
/// line of the rest, then the config's site lines as they are and `end`.
/// Loading it is a few allocations, whatever the number of sites.
pub(crate) fn encode(key: &Key, c: &Config) -> String {
    use std::fmt::Write as _;
    let mut out = format!("{MAGIC}\nkey");
    for k in key {
        let _ = write!(out, " {k}");
    }
    let _ = write!(
        out,
        "\nsettings {} {} {} {} {} {}\n",
        c.interval_ms, c.hold_ms, c.max_wait_ms, c.stale_after_ms, c.jitter_ms, c.max_backoff_ms
    );
    let extra = Extra {
        budget: c.budget,
        backend: c.backend.clone(),
        on_backend_error: c.on_backend_error,
        tools: c.tools.clone(),
        presets: c.presets.clone(),
    };
    out.push_str("extra ");
    out.push_str(&serde_json::to_string(&extra).expect("extra serializes"));
    out.push('\n');
    out.push_str(&c.sites);
    out.push_str("end\n");
    out
}

/// The key and config in a cache text; `None` for anything malformed,
/// including a text cut short (it must end with `end`).
pub(crate) fn decode(text: &str, path: &Path) -> Option<(Key, Config)> {
    let mut lines = text.lines();
    if lines.next()? != MAGIC {
        return None;
    }
    let mut key: Key = [0; 7];
    let mut fields = lines.next()?.strip_prefix("key ")?.split(' ');
    for k in &mut key {
        *k = fields.next()?.parse().ok()?;
    }
    let mut n = lines.next()?.strip_prefix("settings ")?.split(' ');
    let mut num = || -> Option<u64> { n.next()?.parse().ok() };
    let (interval_ms, hold_ms, max_wait_ms, stale_after_ms, jitter_ms, max_backoff_ms) =
        (num()?, num()?, num()?, num()?, num()?, num()?);
    let extra_line = lines.next()?;
    let extra: Extra = serde_json::from_str(extra_line.strip_prefix("extra ")?).ok()?;
    // The site lines are the config's own text, sliced out whole. The
    // file is replaced by rename, so it is whole or absent; `end` guards
    // against anything cut short all the same.
    let start = text.find("\nextra ")? + 1;
    let start = start + text[start..].find('\n')? + 1;
    let end = text.len().checked_sub(4).filter(|&e| e >= start)?;
    // `get`: four bytes from the end may fall inside a character.
    if text.get(end..) != Some("end\n") || !text[..end].ends_with('\n') && end != start {
        return None;
    }
    Some((
        key,
        Config {
            interval_ms,
            hold_ms,
            max_wait_ms,
            stale_after_ms,
            jitter_ms,
            budget: extra.budget,
            max_backoff_ms,
            backend: extra.backend,
            on_backend_error: extra.on_backend_error,
            tools: extra.tools,
            presets: extra.presets,
            sites: text[start..end].to_owned(),
            source: Some(path.to_owned()),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_text_round_trips() {
        let path = Path::new("/x/c.toml");
        let c = Config::parse(
            "interval = \"2s\"\njitter = \"1s\"\nbackend = \"redis://h:1/0\"\n[[site]]\nname = \"a\"\ndomains = [\"a.com\", \"b.org\"]\ninterval = \"30s\"\nbudget = \"5/1h\"\n[[site]]\nname = \"z\"\n[[tool]]\nmatch = \"mcp__x__go\"\nclass = \"pace\"\nurl = \"/url\"\n",
            path,
        )
        .unwrap();
        let key = [1, 2, 3, 4, 5, 6, -7];
        assert_eq!(decode(&encode(&key, &c), path), Some((key, c)));
    }

    #[test]
    fn a_cut_or_foreign_cache_text_is_a_miss() {
        let path = Path::new("/x/c.toml");
        let text = encode(
            &[0; 7],
            &Config::parse("[[site]]\nname = \"a\"\n", path).unwrap(),
        );
        assert!(decode(&text[..text.len() - 4], path).is_none());
        assert!(decode("{}", path).is_none());
    }

    /// Found by fuzzing (`fuzz/` target `config`, issue 7): a cache text
    /// whose last four bytes began inside a character panicked, and the
    /// panic blocked every paced call until the cache file was removed.
    #[test]
    fn a_cache_text_ending_inside_a_character_is_a_miss() {
        let path = Path::new("/x/c.toml");
        let text = encode(
            &[0; 7],
            &Config::parse("[[site]]\nname = \"a\"\n", path).unwrap(),
        );
        let cut = format!("{}\u{fffd}d\n", &text[..text.len() - 4]);
        assert!(decode(&cut, path).is_none());
    }
}
