//! The configured sites as data: each a name that owns some domains (and
//! their subdomains) with its own settings, and every domain in one sorted
//! index, for the lookup a paced event makes: a host's owner, found by
//! walking the host's label suffixes (`a.b.example.com`, `b.example.com`,
//! `example.com`, `com`) and looking each up by binary search.
//!
//! Invariant: the index holds every domain of every site, ordered by domain
//! and then by the site's place in the file, so the first entry for a domain
//! is the first site in the file that lists it. Each site's own domains are
//! kept sorted too, so a table read back from the cache is the table that was
//! written.
//!
//! The names and domains live in one string that the table's spans point
//! into, so a thousand sites are a handful of allocations. The cache holds
//! the table in the same spirit (see [`Stored`]): the config is loaded on
//! every paced event, and what it costs to load grows with its sites.

use std::{fmt, ops::Range, sync::OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Config;
use crate::pacing::decision::Budget;

/// A configured site: a name that owns some domains and their subdomains,
/// borrowed from the config.
#[derive(Clone, Copy)]
pub struct Site<'a> {
    /// The site's name, for messages and `pace-hook run --site`.
    pub name: &'a str,
    /// The site's own interval, if it has one.
    pub interval_ms: Option<u64>,
    /// The site's own jitter, if it has one.
    pub jitter_ms: Option<u64>,
    /// The site's own budget, if it has one.
    pub budget: Option<Budget>,
    domains: &'a [Span],
    text: &'a str,
}

impl<'a> Site<'a> {
    /// Domains the site owns, lowercase, without a trailing dot, sorted.
    pub fn domains(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        let text = self.text;
        self.domains.iter().map(move |s| s.of(text))
    }
}

impl PartialEq for Site<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.interval_ms == other.interval_ms
            && self.jitter_ms == other.jitter_ms
            && self.budget == other.budget
            && self.domains().eq(other.domains())
    }
}

impl Eq for Site<'_> {}

impl fmt::Debug for Site<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Site")
            .field("name", &self.name)
            .field("interval_ms", &self.interval_ms)
            .field("jitter_ms", &self.jitter_ms)
            .field("budget", &self.budget)
            .field("domains", &self.domains().collect::<Vec<_>>())
            .finish()
    }
}

/// A run of bytes of [`Sites::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

impl Span {
    fn of(self, text: &str) -> &str {
        &text[self.start..self.end]
    }
}

/// One site, in the order of the file.
#[derive(Debug, Clone)]
struct Row {
    name: Span,
    /// Its domains: a range of [`Sites::domains`].
    domains: Range<usize>,
    interval_ms: Option<u64>,
    jitter_ms: Option<u64>,
    budget: Option<Budget>,
}

/// A domain in the sorted index, with the number of the site that lists it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    domain: Span,
    site: usize,
}

/// The configured sites (see the module's invariant).
#[derive(Clone, Default)]
pub(crate) struct Sites {
    /// Every name and domain, back to back.
    text: String,
    /// The sites, in the order of the file.
    rows: Vec<Row>,
    /// Each site's domains, sorted, site after site.
    domains: Vec<Span>,
    /// Every domain with its site, sorted by domain, then site.
    sorted: Vec<Entry>,
    /// Every domain's gate key with its site, sorted by key, then site;
    /// made when first asked for, since it costs a public suffix lookup per
    /// domain and a paced navigate does not need it. Never cached on disk:
    /// a new pace-hook may key a domain differently.
    keys: OnceLock<Vec<(String, usize)>>,
}

impl Sites {
    /// The site at `i` (in file order).
    fn at(&self, i: usize) -> Site<'_> {
        let row = &self.rows[i];
        Site {
            name: row.name.of(&self.text),
            interval_ms: row.interval_ms,
            jitter_ms: row.jitter_ms,
            budget: row.budget,
            domains: &self.domains[row.domains.clone()],
            text: &self.text,
        }
    }

    /// The span of `s` appended to the text.
    fn add(&mut self, s: &str) -> Span {
        let start = self.text.len();
        self.text.push_str(s);
        Span {
            start,
            end: self.text.len(),
        }
    }

    /// The first entry in the index for `domain`.
    fn find(&self, domain: &str) -> Option<Entry> {
        let i = self
            .sorted
            .partition_point(|e| e.domain.of(&self.text) < domain);
        self.sorted
            .get(i)
            .filter(|e| e.domain.of(&self.text) == domain)
            .copied()
    }

    /// The key index, made on first use.
    fn keys(&self) -> &[(String, usize)] {
        self.keys.get_or_init(|| {
            let mut keys: Vec<(String, usize)> = self
                .sorted
                .iter()
                .map(|e| (crate::key::registrable(e.domain.of(&self.text)), e.site))
                .collect();
            keys.sort();
            keys
        })
    }
}

impl PartialEq for Sites {
    /// The same sites with the same settings and domains, however their
    /// text is laid out.
    fn eq(&self, other: &Self) -> bool {
        self.rows.len() == other.rows.len()
            && (0..self.rows.len()).all(|i| self.at(i) == other.at(i))
    }
}

impl Eq for Sites {}

impl fmt::Debug for Sites {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries((0..self.rows.len()).map(|i| self.at(i)))
            .finish()
    }
}

/// The site table as the cache holds it: the index already sorted, so that
/// loading it is one pass over its text and no sort. serde_json spends
/// about 200 instructions on each value of an array and 3 a byte on a
/// string without escapes (measured), so the table is three values, not one
/// per site: with a thousand sites, an array of sites, or of index numbers,
/// would cost more to load than the whole event does without it.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    /// The sites' names in the order of the file, a space between.
    names: String,
    /// `(site, interval, jitter, budget)` for each site that sets any.
    settings: Vec<Setting>,
    /// Every domain and its site's number, sorted by domain then site, a
    /// space after each: `a.example 0 b.example 2 `.
    index: String,
}

/// A site's own settings in a [`Stored`] table: its number, interval,
/// jitter and budget.
type Setting = (usize, Option<u64>, Option<u64>, Option<Budget>);

impl Serialize for Sites {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use std::fmt::Write as _;
        let mut names = String::new();
        let mut settings = Vec::new();
        for (i, row) in self.rows.iter().enumerate() {
            if i > 0 {
                names.push(' ');
            }
            names.push_str(row.name.of(&self.text));
            if row.interval_ms.is_some() || row.jitter_ms.is_some() || row.budget.is_some() {
                settings.push((i, row.interval_ms, row.jitter_ms, row.budget));
            }
        }
        let mut index = String::new();
        for e in &self.sorted {
            let _ = write!(index, "{} {} ", e.domain.of(&self.text), e.site);
        }
        Stored {
            names,
            settings,
            index,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Sites {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Sites::from_stored(Stored::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl Sites {
    /// The table a [`Stored`] holds, checked: every name and domain
    /// non-empty, every site number in range, the index in order.
    fn from_stored(stored: Stored) -> Result<Self, &'static str> {
        let Stored {
            names,
            settings,
            index,
        } = stored;
        // Counted first so that every table is allocated once; the counts
        // are vectorized byte compares. The passes below are hand-written
        // byte loops: `str::split` costs more per token than a thousand
        // sites' tokens can afford.
        let spaces = |t: &str| t.bytes().filter(|&b| b == b' ').count();
        let sites_n = if names.is_empty() {
            0
        } else {
            spaces(&names) + 1
        };
        let entries_n = spaces(&index) / 2;
        let mut text = String::with_capacity(names.len() + index.len());
        text.push_str(&names);
        text.push_str(&index);
        let b = text.as_bytes();
        let names_end = names.len();
        let mut rows = Vec::with_capacity(sites_n);
        let mut start = 0;
        while rows.len() < sites_n {
            let end = b[start..names_end]
                .iter()
                .position(|&c| c == b' ')
                .map_or(names_end, |n| start + n);
            if end == start {
                return Err("a site without a name");
            }
            rows.push(Row {
                name: Span { start, end },
                domains: 0..0,
                interval_ms: None,
                jitter_ms: None,
                budget: None,
            });
            start = end + 1;
        }
        let mut last = None;
        for (site, interval_ms, jitter_ms, budget) in settings {
            if site >= rows.len() || last.is_some_and(|l| site <= l) {
                return Err("settings out of order");
            }
            last = Some(site);
            let row: &mut Row = &mut rows[site];
            (row.interval_ms, row.jitter_ms, row.budget) = (interval_ms, jitter_ms, budget);
        }
        let mut sorted: Vec<Entry> = Vec::with_capacity(entries_n);
        let mut counts = vec![0usize; rows.len()];
        let mut i = names_end;
        while i < b.len() {
            let start = i;
            while i < b.len() && b[i] != b' ' {
                i += 1;
            }
            let domain = Span { start, end: i };
            i += 1;
            let digits = i;
            let mut site = 0usize;
            while i < b.len() && b[i] != b' ' {
                let d = b[i].wrapping_sub(b'0');
                if d > 9 {
                    return Err("a site number that is not one");
                }
                site = site.saturating_mul(10).saturating_add(usize::from(d));
                i += 1;
            }
            i += 1;
            if domain.end == domain.start || i - 1 <= digits || site >= rows.len() {
                return Err("a domain of no site");
            }
            if let Some(prev) = sorted.last() {
                let (p, d) = (
                    &b[prev.domain.start..prev.domain.end],
                    &b[start..domain.end],
                );
                if (p, prev.site) > (d, site) {
                    return Err("the index is out of order");
                }
            }
            counts[site] += 1;
            sorted.push(Entry { domain, site });
        }
        // Each site's domains, in index order (so sorted): a counting sort.
        let mut start = 0;
        for (row, count) in rows.iter_mut().zip(&counts) {
            row.domains = start..start;
            start += count;
        }
        let mut domains = vec![Span { start: 0, end: 0 }; sorted.len()];
        for e in &sorted {
            let row = &mut rows[e.site];
            domains[row.domains.end] = e.domain;
            row.domains.end += 1;
        }
        Ok(Sites {
            text,
            rows,
            domains,
            sorted,
            keys: OnceLock::new(),
        })
    }
}

impl Config {
    /// Every gate key the config names: the keys of every configured
    /// site's domains.
    pub fn known_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.sites.keys().iter().map(|(k, _)| k.clone()).collect();
        keys.dedup();
        keys
    }

    /// The configured site with a domain under gate key `key`, the one with
    /// the longest interval if several (the last in the file of those).
    pub fn group_of_key(&self, key: &str) -> Option<Site<'_>> {
        let keys = self.sites.keys();
        let from = keys.partition_point(|(k, _)| k.as_str() < key);
        keys[from..]
            .iter()
            .take_while(|(k, _)| k == key)
            .map(|&(_, i)| self.sites.at(i))
            .max_by_key(|g| g.interval_ms.unwrap_or(self.interval_ms))
    }

    /// Every configured site, in the order of the file.
    pub fn sites(&self) -> impl Iterator<Item = Site<'_>> {
        (0..self.sites.rows.len()).map(|i| self.sites.at(i))
    }

    /// The configured site named `name`. A scan of the names: this is for
    /// `pace-hook run --site` and the library, once per call, not for the
    /// hook's events.
    pub fn site(&self, name: &str) -> Option<Site<'_>> {
        let text = &self.sites.text;
        let i = self
            .sites
            .rows
            .iter()
            .position(|r| r.name.of(text) == name)?;
        Some(self.sites.at(i))
    }

    /// The configured site that owns `host` (lowercase): the one listing the
    /// longest domain that is `host` or a parent of it.
    pub fn owner_of(&self, host: &str) -> Option<Site<'_>> {
        let mut domain = host;
        loop {
            if let Some(e) = self.sites.find(domain) {
                return Some(self.sites.at(e.site));
            }
            match domain.split_once('.') {
                Some((_, parent)) if !parent.is_empty() => domain = parent,
                _ => return None,
            }
        }
    }

    pub(super) fn push_site<'d>(
        &mut self,
        name: &str,
        interval_ms: Option<u64>,
        jitter_ms: Option<u64>,
        budget: Option<Budget>,
        domains: impl Iterator<Item = &'d str>,
    ) {
        let sites = &mut self.sites;
        let site = sites.rows.len();
        let name = sites.add(name);
        let mut own: Vec<&str> = domains.collect();
        own.sort_unstable();
        let first = sites.domains.len();
        for d in own {
            let span = sites.add(d);
            sites.domains.push(span);
            // After every entry for the same domain: those are of earlier sites.
            let text = &sites.text;
            let at = sites.sorted.partition_point(|e| e.domain.of(text) <= d);
            sites.sorted.insert(at, Entry { domain: span, site });
        }
        sites.rows.push(Row {
            name,
            domains: first..sites.domains.len(),
            interval_ms,
            jitter_ms,
            budget,
        });
        sites.keys = OnceLock::new();
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn parse(text: &str) -> Config {
        Config::parse(text, Path::new("/x/pace-hook.toml")).unwrap()
    }

    #[test]
    fn a_host_belongs_to_the_site_of_its_longest_configured_suffix() {
        let c = parse(
            "[[site]]\nname = \"wide\"\ndomains = [\"example.com\", \"zz.org\"]\n\
             [[site]]\nname = \"narrow\"\ndomains = [\"api.example.com\"]\n\
             [[site]]\nname = \"again\"\ndomains = [\"example.com\"]\n",
        );
        let owner = |h: &str| c.owner_of(h).map(|s| s.name);
        assert_eq!(owner("example.com"), Some("wide"));
        assert_eq!(owner("www.example.com"), Some("wide"));
        assert_eq!(owner("api.example.com"), Some("narrow"));
        assert_eq!(owner("v2.api.example.com"), Some("narrow"));
        assert_eq!(owner("xapi.example.com"), Some("wide"));
        assert_eq!(owner("zz.org"), Some("wide"));
        assert_eq!(owner("com"), None);
        assert_eq!(owner("example.co"), None);
        assert_eq!(owner(""), None);
        assert_eq!(owner("a..example.com"), Some("wide"));
    }

    #[test]
    fn a_key_belongs_to_its_strictest_site_and_the_last_of_equals() {
        let c = parse(
            "interval = \"5s\"\n\
             [[site]]\nname = \"a\"\ndomains = [\"www.example.co.uk\"]\n\
             [[site]]\nname = \"b\"\ndomains = [\"api.example.co.uk\", \"b.test\"]\ninterval = \"1m\"\n\
             [[site]]\nname = \"c\"\ndomains = [\"example.co.uk\"]\ninterval = \"1m\"\n\
             [[site]]\nname = \"d\"\ndomains = [\"d.test\"]\n",
        );
        assert_eq!(c.group_of_key("example.co.uk").map(|s| s.name), Some("c"));
        assert_eq!(c.group_of_key("d.test").map(|s| s.name), Some("d"));
        assert_eq!(c.group_of_key("co.uk"), None);
        assert_eq!(
            c.known_keys(),
            ["b.test", "d.test", "example.co.uk"].map(str::to_owned)
        );
        assert_eq!(
            c.site("b").map(|s| s.domains().collect::<Vec<_>>()),
            Some(vec!["api.example.co.uk", "b.test"])
        );
    }

    #[test]
    fn the_table_reads_back_as_it_was_written() {
        let c = parse(
            "[[site]]\nname = \"z\"\ndomains = [\"b.example\", \"a.example\"]\nbudget = \"5/1h\"\n\
             [[site]]\nname = \"y\"\n\
             [[site]]\nname = \"x\"\ndomains = [\"a.example\", \"c.example\"]\njitter = \"2s\"\n",
        );
        let json = serde_json::to_string(&c.sites).unwrap();
        assert_eq!(
            json,
            r#"{"names":"z y x","settings":[[0,null,null,{"calls":5,"window_ms":3600000}],[2,null,2000,null]],"index":"a.example 0 a.example 2 b.example 0 c.example 2 "}"#
        );
        let back: Sites = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c.sites);
        assert_eq!(format!("{back:?}"), format!("{:?}", c.sites));
        let empty: Sites =
            serde_json::from_str(&serde_json::to_string(&Sites::default()).unwrap()).unwrap();
        assert_eq!(empty, Sites::default());
    }

    #[test]
    fn a_stored_table_that_breaks_the_invariant_is_refused() {
        let read = |names: &str, settings: &str, index: &str| {
            serde_json::from_str::<Sites>(&format!(
                r#"{{"names":{names:?},"settings":{settings},"index":{index:?}}}"#
            ))
            .map(|s| s.rows.len())
            .map_err(|e| e.to_string())
        };
        assert_eq!(read("a b", "[]", "x.example 1 y.example 0 "), Ok(2));
        assert!(read("a b", "[]", "y.example 0 x.example 1 ").is_err());
        assert!(read("a b", "[]", "x.example 1 x.example 0 ").is_err());
        assert!(read("a b", "[]", "x.example 2 ").is_err());
        assert!(read("a b", "[]", "x.example ").is_err());
        assert!(read("a b", "[]", "x.example one ").is_err());
        assert!(read("a  b", "[]", "").is_err());
        assert!(read("a b", "[[1,1,null,null],[0,1,null,null]]", "").is_err());
        assert!(read("a b", "[[2,1,null,null]]", "").is_err());
        assert!(read("", "[]", "x.example 0 ").is_err());
    }

    /// Found by fuzzing (`fuzz/` target `config`, issue 7), when the table
    /// was searched as text: looking up a name that is not ASCII in a table
    /// (a damaged config cache) that is not stepped into the middle of a
    /// character and panicked. Names and domains are spans now; the lookups
    /// compare whole strings.
    #[test]
    fn a_lookup_past_a_character_that_is_not_ascii_goes_on() {
        let c: Sites = serde_json::from_str(
            r#"{"names":"éx é","settings":[],"index":"a.example 0 b.example 1 "}"#,
        )
        .unwrap();
        let c = Config {
            sites: c,
            ..Config::default()
        };
        assert_eq!(c.site("é").map(|s| s.name), Some("é"));
        assert_eq!(c.owner_of("é").map(|s| s.name), None);
        assert_eq!(c.owner_of("x.b.example").map(|s| s.name), Some("é"));
    }
}
