//! A parsed copy of each config file, kept in the state directory under the
//! file's identity and change times, and read in place: an event reads the
//! copy's first page (the settings, the tools, where the sites' table is)
//! and then only the pages of the sites' table its lookups touch
//! (`table.rs`), so that what it reads does not grow with the number of
//! sites. With a thousand sites, parsing the TOML costs several times more
//! than the event that needs it; with 100,000, reading a copy whole did.
//!
//! Any change to the file (a write changes its ctime) misses the cache; a
//! bad file is never cached, so its error is reported every time. A copy is
//! used only when it shows itself whole and this config's: a regular file of
//! this user's (`Dir::open` refuses links and anything but a regular file),
//! of the size its head says, its version, the key of the file as it is
//! now, and every page it reads passing its checksum (which is seeded with
//! the key, so a page of another config's copy fails). Anything else is a
//! miss, and the TOML is parsed; a page that fails later, in a lookup, has
//! the lookup read the TOML again (`Config::lookup`).

use std::{
    fs::File,
    os::unix::fs::{FileExt, MetadataExt},
    path::Path,
};

use super::{
    Config,
    table::{self, Layout, PAGE, PAYLOAD, Table, u32_at, u64_at},
};
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

/// The key of the config file at `path` as it is now, if it is a file.
pub(super) fn key_of(path: &Path) -> Option<Key> {
    let m = std::fs::metadata(path).ok()?;
    m.is_file().then(|| {
        [
            m.dev() as i64,
            m.ino() as i64,
            m.size() as i64,
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        ]
    })
}

/// The cached config for `path` if it is current, and the key to cache a
/// fresh parse under (`None` if the file cannot be looked at).
pub(super) fn read(path: &Path) -> (Option<Config>, Option<Key>) {
    let Some(key) = key_of(path) else {
        return (None, None);
    };
    let cached = dir()
        .and_then(|d| d.open(&name(path), Mode::Read).ok())
        .and_then(|f| open(f, &key, path));
    (cached, Some(key))
}

/// The config in cache file `file` if it is whole, this user's and `key`'s;
/// its sites stay in the file, read as lookups need them.
fn open(file: File, key: &Key, path: &Path) -> Option<Config> {
    let m = file.metadata().ok()?;
    if m.uid() != crate::state_dir::euid() {
        return None;
    }
    let at = |offset: u64, buf: &mut [u8]| file.read_exact_at(buf, offset).is_ok();
    let head = Head::read(&at, m.len(), path).filter(|h| h.key == *key)?;
    let (mut config, layout, base, seed) = (head.config, head.layout, head.pages, seed(key));
    config.sites = Table::from_file(file, layout, base, seed);
    Some(config)
}

/// Cache `config` for `path` under `key`, best effort.
pub(super) fn write(path: &Path, key: &Key, config: &Config) {
    if let Some(d) = dir()
        && let Some(bytes) = encode(key, config)
    {
        let _ = d.write_atomic(&name(path), &bytes);
    }
}

/// The version, padded to its field.
const MAGIC: &[u8; 32] = b"pace-hook config cache 4\n\0\0\0\0\0\0\0";

/// Where the head's fields are (its first page's payload).
const KEY_AT: usize = 32;
const PAGES_AT: usize = KEY_AT + 7 * 8;
const SETTINGS_AT: usize = PAGES_AT + 8;
const LAYOUT_AT: usize = SETTINGS_AT + 6 * 8;
const EXTRA_LEN_AT: usize = LAYOUT_AT + Layout::BYTES;
const EXTRA_AT: usize = EXTRA_LEN_AT + 4;

/// What the head's fixed fields do not hold, as JSON.
#[derive(serde::Serialize, serde::Deserialize)]
struct Extra {
    budget: Option<crate::pacing::decision::Budget>,
    backend: super::Backend,
    on_backend_error: super::OnBackendError,
    tools: Vec<super::ToolRule>,
    presets: Vec<super::PresetUse>,
}

/// The checksums' seed of a cache of `key`.
fn seed(key: &Key) -> u64 {
    let mut words = Vec::with_capacity(7 * 8);
    for k in key {
        words.extend_from_slice(&k.to_le_bytes());
    }
    words.resize(64, 0);
    table::checksum(&words, u32::MAX, 0x7061_6365_2d68_6f6b)
}

/// The cache's bytes: the head's pages (the version, the key, the page
/// counts, the numeric settings, the table's layout, the rest of the
/// settings as JSON), then the sites' table. `None` if the config's own
/// table cannot be read whole.
pub(crate) fn encode(key: &Key, c: &Config) -> Option<Vec<u8>> {
    let seed = seed(key);
    let extra = serde_json::to_vec(&Extra {
        budget: c.budget,
        backend: c.backend.clone(),
        on_backend_error: c.on_backend_error,
        tools: c.tools.clone(),
        presets: c.presets.clone(),
    })
    .expect("extra serializes");
    let layout = c.sites.layout();
    let stream = EXTRA_AT + extra.len();
    let head_pages = u32::try_from(stream.div_ceil(PAYLOAD)).ok()?;
    let mut head = Vec::with_capacity(stream);
    head.extend_from_slice(MAGIC);
    for k in key {
        head.extend_from_slice(&k.to_le_bytes());
    }
    head.extend_from_slice(&head_pages.to_le_bytes());
    head.extend_from_slice(&layout.pages().to_le_bytes());
    for v in [
        c.interval_ms,
        c.hold_ms,
        c.max_wait_ms,
        c.stale_after_ms,
        c.jitter_ms,
        c.max_backoff_ms,
    ] {
        head.extend_from_slice(&v.to_le_bytes());
    }
    layout.encode(&mut head);
    head.extend_from_slice(&u32::try_from(extra.len()).ok()?.to_le_bytes());
    head.extend_from_slice(&extra);
    let table = c.sites.pages(head_pages, seed).ok()?;
    let mut out = Vec::with_capacity(head_pages as usize * PAGE + table.len());
    for chunk in head.chunks(PAYLOAD) {
        out.extend_from_slice(chunk);
        out.resize(out.len() + PAYLOAD - chunk.len() + 8, 0);
    }
    table::seal(&mut out, 0, seed);
    out.extend_from_slice(&table);
    Some(out)
}

/// The key and config in cache bytes held in memory; `None` for anything
/// that does not show itself whole (as [`read`] checks a file). The sites'
/// pages are checked as lookups read them.
#[cfg(any(test, feature = "fuzz"))]
pub(crate) fn decode(bytes: &[u8], path: &Path) -> Option<(Key, Config)> {
    let at = |offset: u64, buf: &mut [u8]| {
        let Ok(offset) = usize::try_from(offset) else {
            return false;
        };
        match bytes.get(offset..offset.saturating_add(buf.len())) {
            Some(b) => {
                buf.copy_from_slice(b);
                true
            }
            None => false,
        }
    };
    let head = Head::read(&at, bytes.len() as u64, path)?;
    let mut config = head.config;
    config.sites = Table::from_bytes(bytes.to_vec(), head.layout, head.pages, seed(&head.key));
    Some((head.key, config))
}

/// A cache's head, read and checked.
struct Head {
    key: Key,
    /// Its pages: the table's first page.
    pages: u32,
    layout: Layout,
    /// The config, its sites not yet attached.
    config: Config,
}

impl Head {
    /// The head of a cache of `size` bytes that `at` reads from, if the
    /// cache is whole: of this version, as long as its head says, each
    /// page of the head passing its checksum, its layout and settings read.
    fn read(at: &dyn Fn(u64, &mut [u8]) -> bool, size: u64, path: &Path) -> Option<Self> {
        if size < PAGE as u64 || !size.is_multiple_of(PAGE as u64) {
            return None;
        }
        let mut first = vec![0u8; PAGE];
        if !at(0, &mut first) || &first[..MAGIC.len()] != MAGIC {
            return None;
        }
        let mut key: Key = [0; 7];
        for (i, k) in key.iter_mut().enumerate() {
            *k = u64_at(&first, KEY_AT + 8 * i) as i64;
        }
        let seed = seed(&key);
        if !table::sound(&first, 0, seed) {
            return None;
        }
        let (pages, table_pages) = (u32_at(&first, PAGES_AT), u32_at(&first, PAGES_AT + 4));
        let extra_len = u32_at(&first, EXTRA_LEN_AT) as usize;
        if (u64::from(pages) + u64::from(table_pages)) * PAGE as u64 != size
            || (EXTRA_AT + extra_len).div_ceil(PAYLOAD) != pages as usize
        {
            return None;
        }
        let layout = Layout::decode(&first[LAYOUT_AT..EXTRA_LEN_AT], table_pages)?;
        let mut stream = first[..PAYLOAD].to_vec();
        if pages > 1 {
            let mut rest = vec![0u8; (pages as usize - 1) * PAGE];
            if !at(PAGE as u64, &mut rest) {
                return None;
            }
            for (n, p) in rest.chunks(PAGE).enumerate() {
                if !table::sound(p, n as u32 + 1, seed) {
                    return None;
                }
                stream.extend_from_slice(&p[..PAYLOAD]);
            }
        }
        let extra: Extra =
            serde_json::from_slice(stream.get(EXTRA_AT..EXTRA_AT + extra_len)?).ok()?;
        let setting = |i: usize| u64_at(&first, SETTINGS_AT + 8 * i);
        Some(Self {
            key,
            pages,
            layout,
            config: Config {
                interval_ms: setting(0),
                hold_ms: setting(1),
                max_wait_ms: setting(2),
                stale_after_ms: setting(3),
                jitter_ms: setting(4),
                budget: extra.budget,
                max_backoff_ms: setting(5),
                backend: extra.backend,
                on_backend_error: extra.on_backend_error,
                tools: extra.tools,
                presets: extra.presets,
                sites: Table::default(),
                source: Some(path.to_owned()),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    const KEY: Key = [1, 2, 3, 4, 5, 6, -7];

    fn parse(text: &str) -> Config {
        Config::parse(text, Path::new("/x/c.toml")).unwrap()
    }

    fn two_sites() -> Config {
        parse(
            "interval = \"2s\"\njitter = \"1s\"\nbackend = \"redis://h:1/0\"\n[[site]]\nname = \"a\"\ndomains = [\"a.com\", \"b.org\"]\ninterval = \"30s\"\nbudget = \"5/1h\"\n[[site]]\nname = \"z\"\n[[site]]\nname = \"gh\"\npreset = \"github\"\n[[tool]]\nmatch = \"mcp__x__go\"\nclass = \"pace\"\nurl = \"/url\"\n",
        )
    }

    /// A temporary file, removed at the end.
    struct Temp(std::path::PathBuf);

    impl Temp {
        fn new(name: &str, bytes: &[u8]) -> Self {
            let path =
                std::env::temp_dir().join(format!("pace-hook-cache-{}-{name}", std::process::id()));
            std::fs::write(&path, bytes).unwrap();
            Self(path)
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    #[test]
    fn the_cache_round_trips() {
        let c = two_sites();
        let bytes = encode(&KEY, &c).unwrap();
        assert_eq!(bytes.len() % PAGE, 0);
        assert_eq!(decode(&bytes, Path::new("/x/c.toml")), Some((KEY, c)));
    }

    #[test]
    fn a_cut_longer_foreign_or_damaged_head_is_a_miss() {
        let path = Path::new("/x/c.toml");
        let bytes = encode(&KEY, &two_sites()).unwrap();
        // Cut anywhere, or one page more.
        for n in (0..bytes.len()).step_by(511) {
            assert!(decode(&bytes[..n], path).is_none(), "cut at {n}");
        }
        assert!(decode(&[&bytes[..], &[0; PAGE]].concat(), path).is_none());
        // Any byte of the head page changed.
        for i in 0..PAGE {
            let mut b = bytes.clone();
            b[i] ^= 0x20;
            assert!(decode(&b, path).is_none(), "byte {i} of the head");
        }
        // The text of the cache before this one, and nothing at all.
        assert!(decode(b"pace-hook config cache 3\nkey 0 0 0 0 0 0 0\n", path).is_none());
        assert!(decode(b"", path).is_none());
        // A table page of another cache (another key) in this one's place.
        let other = encode(&[9; 7], &two_sites()).unwrap();
        let mut b = bytes.clone();
        b[PAGE..2 * PAGE].copy_from_slice(&other[PAGE..2 * PAGE]);
        let (_, c) = decode(&b, path).unwrap();
        assert!(c.sites.all().is_err());
    }

    /// Found by fuzzing (`fuzz/` target `config`, issue 7): a cache text
    /// whose last four bytes began inside a character panicked the decoder
    /// of the text format before this one, and the panic blocked every
    /// paced call until the cache file was removed. Bytes that are no
    /// cache, whatever they end in, are a miss.
    #[test]
    fn a_cache_text_ending_inside_a_character_is_a_miss() {
        let path = Path::new("/x/c.toml");
        let text = "pace-hook config cache 3\nkey 0 0 0 0 0 0 0\nsettings 1 2 3 4 5 6\nextra {}\na - - - a.com\n\u{fffd}d\n";
        assert!(decode(text.as_bytes(), path).is_none());
        let mut page = encode(&KEY, &two_sites()).unwrap();
        page.truncate(PAGE - 3);
        page.extend_from_slice("\u{fffd}".as_bytes());
        assert!(decode(&page, path).is_none());
    }

    /// Every lookup of `c` and whether it failed, as one comparable value.
    fn answers(c: &Config) -> Vec<String> {
        let mut out = vec![format!("{:?}", c.sites().map(|s| s.len()).ok())];
        for w in ["a", "z", "gh", "a.com", "www.b.org", "github.com", "x.com"] {
            out.push(format!(
                "{:?} {:?} {:?}",
                c.site(w).ok(),
                c.owner_of(w).ok(),
                c.group_of_key(w).ok()
            ));
        }
        out
    }

    #[test]
    fn a_damaged_table_page_has_the_lookup_read_the_toml_again() {
        let text = "interval = \"2s\"\n[[site]]\nname = \"a\"\ndomains = [\"a.com\", \"b.org\"]\ninterval = \"30s\"\n[[site]]\nname = \"z\"\ndomains = [\"z.net\"]\n";
        let toml = Temp::new("damaged.toml", text.as_bytes());
        let fresh = Config::parse(text, &toml.0).unwrap();
        let truth = answers(&fresh);
        assert!(fresh.owner_of("www.b.org").unwrap().is_some());
        let bytes = encode(&KEY, &fresh).unwrap();
        let pages = bytes.len() / PAGE;
        assert!(pages >= 5, "a head and four streams");
        for page in 1..pages {
            for at in [0, 9, PAYLOAD - 1, PAGE - 1] {
                let mut b = bytes.clone();
                b[page * PAGE + at] ^= 1;
                let (_, c) = decode(&b, &toml.0).unwrap();
                assert_eq!(answers(&c), truth, "page {page}, byte {at}");
            }
        }
        // With the TOML gone, a lookup that meets the damage fails: it never
        // answers "no site".
        drop(toml);
        let mut b = bytes.clone();
        b[PAGE + 9] ^= 1;
        let (_, c) = decode(&b, Path::new("/nowhere/c.toml")).unwrap();
        assert!(c.owner_of("www.b.org").is_err());
        assert!(c.site("a").is_err());
        assert!(c.sites().is_err());
    }

    #[test]
    fn a_cache_file_is_used_only_whole_and_of_this_key() {
        let c = two_sites();
        let bytes = encode(&KEY, &c).unwrap();
        let f = Temp::new("whole", &bytes);
        let opened = open(File::open(&f.0).unwrap(), &KEY, Path::new("/x/c.toml")).unwrap();
        assert_eq!(opened, c);
        assert_eq!(
            opened.owner_of("www.a.com").unwrap().map(|s| s.name),
            Some("a".to_owned())
        );
        // Another key: the file changed since, or another config's copy
        // under this name.
        assert!(open(File::open(&f.0).unwrap(), &[0; 7], Path::new("/x/c.toml")).is_none());
        // Cut short, or grown.
        let cut = Temp::new("cut", &bytes[..bytes.len() - PAGE]);
        assert!(open(File::open(&cut.0).unwrap(), &KEY, Path::new("/x/c.toml")).is_none());
        let grown = Temp::new("grown", &bytes);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&grown.0)
            .unwrap()
            .write_all(b"end\n")
            .unwrap();
        assert!(open(File::open(&grown.0).unwrap(), &KEY, Path::new("/x/c.toml")).is_none());
        // Another user's: only root can make one to try.
        if crate::state_dir::euid() == 0 {
            let theirs = Temp::new("theirs", &bytes);
            std::os::unix::fs::chown(&theirs.0, Some(65_534), None).unwrap();
            assert!(open(File::open(&theirs.0).unwrap(), &KEY, Path::new("/x/c.toml")).is_none());
        }
    }

    #[test]
    fn a_file_cut_after_it_was_opened_fails_the_lookup_and_is_read_again() {
        let text = "[[site]]\nname = \"a\"\ndomains = [\"a.com\"]\n";
        let toml = Temp::new("cut-later.toml", text.as_bytes());
        let bytes = encode(&KEY, &Config::parse(text, &toml.0).unwrap()).unwrap();
        let f = Temp::new("cut-later", &bytes);
        let c = open(File::open(&f.0).unwrap(), &KEY, &toml.0).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&f.0)
            .unwrap()
            .set_len(PAGE as u64)
            .unwrap();
        assert!(c.sites.by_domain("a.com").is_err());
        // Through the config: the TOML again (a table not from the state
        // directory's copy is not written back).
        assert_eq!(
            c.owner_of("a.com").unwrap().map(|s| s.name),
            Some("a".to_owned())
        );
    }

    #[test]
    fn a_lookup_among_100000_sites_reads_a_few_pages() {
        let mut lines = String::new();
        for i in 0..100_000 {
            lines.push_str(&format!("site{i} - - - site{i}.test site{i}-cdn.test\n"));
        }
        let c = Config {
            sites: Table::build(&lines, 10_000),
            ..Config::default()
        };
        let bytes = encode(&KEY, &c).unwrap();
        assert!(bytes.len() > 2_000 * PAGE, "{} pages", bytes.len() / PAGE);
        let f = Temp::new("many", &bytes);
        for i in [0, 1, 4_999, 50_000, 99_999] {
            let c = open(File::open(&f.0).unwrap(), &KEY, Path::new("/x/c.toml")).unwrap();
            // A navigate's lookups: the owner of a host (its own name
            // missed first), a key's site, a site by name.
            let owner = c.owner_of(&format!("www.site{i}-cdn.test")).unwrap();
            assert_eq!(owner.map(|s| s.name), Some(format!("site{i}")));
            let group = c.group_of_key(&format!("site{i}.test")).unwrap();
            assert_eq!(group.map(|s| s.name), Some(format!("site{i}")));
            assert_eq!(
                c.site(&format!("site{i}")).unwrap().map(|s| s.name),
                Some(format!("site{i}"))
            );
            assert_eq!(c.owner_of("www.unlisted.example").unwrap(), None);
            let read = c.sites.pages_read();
            assert!(
                read <= 16,
                "site{i}: {read} pages of {}",
                bytes.len() / PAGE
            );
        }
    }
}
