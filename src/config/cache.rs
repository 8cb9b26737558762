//! A parsed copy of each config file, kept in the state directory under the
//! file's identity and change times. With a thousand sites, parsing the TOML
//! costs several times more than the event that needs it; reading the copy
//! back is one JSON parse. Any change to the file (a write changes its
//! ctime) misses the cache; a bad file is never cached, so its error is
//! reported every time.

use std::{io::Read, os::unix::fs::MetadataExt, path::Path};

use super::Config;
use crate::state_dir::{Dir, Mode};

/// dev, inode, size, mtime (s, ns), ctime (s, ns).
pub(crate) type Key = [i64; 7];

fn dir() -> Option<Dir> {
    let root = crate::state_dir::default_root().ok()?;
    Dir::open_root(&root, true)
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
        .and_then(|mut f| {
            let mut text = String::new();
            f.read_to_string(&mut text).ok().map(|_| text)
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

/// The cache's layout; a text of another one is a miss (and is replaced).
const FORMAT: u32 = 3;

/// The cache's text: the config as serde gives it (its site table in the
/// form [`super::sites`] loads fastest), under the file's key.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Cached<C> {
    format: u32,
    key: Key,
    config: C,
}

/// The cache text of `c` under `key`: JSON.
pub(crate) fn encode(key: &Key, c: &Config) -> String {
    serde_json::to_string(&Cached {
        format: FORMAT,
        key: *key,
        config: c,
    })
    .expect("a config serializes")
}

/// The key and config in a cache text; `None` for anything malformed,
/// including a text cut short (JSON ends with its last brace) and one of
/// another [`FORMAT`].
pub(crate) fn decode(text: &str, path: &Path) -> Option<(Key, Config)> {
    let cached: Cached<Config> = serde_json::from_str(text).ok()?;
    if cached.format != FORMAT {
        return None;
    }
    let mut config = cached.config;
    config.source = Some(path.to_owned());
    Some((cached.key, config))
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
        let other = text.replacen(&format!("\"format\":{FORMAT}"), "\"format\":2", 1);
        assert_ne!(other, text);
        assert!(decode(&other, path).is_none());
        // The layout before this one, a line of text per site.
        assert!(decode("pace-hook config cache 2\nkey 0 0 0 0 0 0 0\n", path).is_none());
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
