//! The sites' table answers every lookup as the substring search over the
//! site lines it replaced did (kept here, as it was, as the oracle), over
//! random configs whose domains share names, parents and gate keys.

use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::config::{Config, cache, sites::push_line};

/// The lookups as they were before the table: a substring search over the
/// site lines, one line per site (`config/sites.rs` at `4515dd9`).
mod old {
    use crate::config::Site;

    fn line_with<'t>(
        text: &'t str,
        needle: &str,
        fits: impl Fn(&str, usize) -> bool,
    ) -> Option<&'t str> {
        if needle.is_empty() {
            return None;
        }
        let mut from = 0;
        loop {
            let at = from + text[from..].find(needle)?;
            if fits(text, at) {
                let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
                return Some(&text[start..end]);
            }
            from = at + needle.chars().next().map_or(1, char::len_utf8);
        }
    }

    pub(super) fn site(text: &str, name: &str) -> Option<Site> {
        line_with(text, name, |text, at| {
            (at == 0 || text.as_bytes()[at - 1] == b'\n')
                && text.as_bytes().get(at + name.len()) == Some(&b' ')
        })
        .and_then(Site::parse)
        .filter(|s| s.name == name)
    }

    pub(super) fn owner_of(text: &str, host: &str) -> Option<Site> {
        let mut domain = host;
        loop {
            let owner = line_with(text, domain, |text, at| {
                text.as_bytes()[at.saturating_sub(1)] == b' '
                    && matches!(
                        text.as_bytes().get(at + domain.len()),
                        Some(b' ' | b'\n') | None
                    )
            })
            .and_then(Site::parse)
            .filter(|s| s.domains().any(|d| d == domain));
            if owner.is_some() {
                return owner;
            }
            match domain.split_once('.') {
                Some((_, parent)) if !parent.is_empty() => domain = parent,
                _ => return None,
            }
        }
    }

    pub(super) fn group_of_key(text: &str, key: &str, interval_ms: u64) -> Option<Site> {
        text.lines()
            .filter_map(Site::parse)
            .filter(|g| g.domains().any(|d| crate::key::registrable(d) == key))
            .max_by_key(|g| g.interval_ms.unwrap_or(interval_ms))
    }

    pub(super) fn known_keys(text: &str) -> Vec<String> {
        let mut keys: Vec<String> = text
            .lines()
            .filter_map(Site::parse)
            .flat_map(|g| g.domains().map(crate::key::registrable).collect::<Vec<_>>())
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }
}

/// A config's site lines, as the parse writes them.
fn lines_of(c: &Config) -> String {
    let mut lines = String::new();
    for s in c.sites().unwrap() {
        push_line(
            &mut lines,
            &s.name,
            s.interval_ms,
            s.jitter_ms,
            s.budget,
            s.domains(),
        );
    }
    lines
}

/// Every word worth asking a config about: its names and domains, their
/// subdomains and parents, their keys, and words it does not hold.
fn questions(c: &Config) -> Vec<String> {
    let mut out: Vec<String> = ["", "com", "test", "nothing.example", "s", "-"]
        .map(str::to_owned)
        .to_vec();
    for s in c.sites().unwrap() {
        out.push(s.name.clone());
        out.push(format!("{}x", s.name));
        for d in s.domains() {
            out.push(d.to_owned());
            out.push(format!("www.{d}"));
            out.push(format!("a.b.{d}"));
            out.push(format!("x{d}"));
            out.push(crate::key::registrable(d));
            if let Some((_, parent)) = d.split_once('.') {
                out.push(parent.to_owned());
            }
        }
    }
    out
}

fn same(a: Option<Site>, b: Option<Site>) -> Result<(), TestCaseError> {
    prop_assert_eq!(a, b);
    Ok(())
}

/// Each lookup of `c` (and of `c` through the config cache's bytes) against
/// the old search over the same lines.
fn agrees(c: &Config) -> Result<(), TestCaseError> {
    let lines = lines_of(c);
    let bytes = cache::encode(&[1, 2, 3, 4, 5, 6, 7], c).unwrap();
    let (_, cached) = cache::decode(&bytes, Path::new("/nowhere/c.toml")).unwrap();
    for config in [c, &cached] {
        prop_assert_eq!(config.known_keys().unwrap(), old::known_keys(&lines));
        let questions = questions(c);
        for q in &questions {
            same(config.site(q).unwrap(), old::site(&lines, q))?;
            same(config.owner_of(q).unwrap(), old::owner_of(&lines, q))?;
        }
        // The keys, and a few words that are none (the old search reads
        // every site's keys for each: the questions' keys are enough).
        let mut keys = old::known_keys(&lines);
        keys.extend(["", "com", "a.b.com", "nothing.example"].map(str::to_owned));
        for k in &keys {
            same(
                config.group_of_key(k).unwrap(),
                old::group_of_key(&lines, k, config.interval_ms),
            )?;
        }
    }
    Ok(())
}

fn domain() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["", "a.", "b.", "a.b.", "www."]),
        "[a-c]{1,2}",
        prop::sample::select(vec!["com", "co.uk", "test", "github.io", "x.com"]),
    )
        .prop_map(|(sub, label, suffix)| format!("{sub}{label}.{suffix}"))
}

fn site_toml() -> impl Strategy<Value = (Vec<String>, Option<&'static str>)> {
    (
        prop::collection::vec(domain(), 0..4),
        prop::sample::select(vec![None, Some("1s"), Some("5s"), Some("10s"), Some("1m")]),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn the_table_answers_as_the_old_search_did(
        sites in prop::collection::vec(site_toml(), 0..32),
        global in prop::sample::select(vec!["1s", "5s", "10s"]),
    ) {
        let mut text = format!("interval = \"{global}\"\n");
        for (i, (domains, interval)) in sites.iter().enumerate() {
            let list = domains.iter().map(|d| format!("\"{d}\"")).collect::<Vec<_>>().join(", ");
            text.push_str(&format!("[[site]]\nname = \"s{i}\"\ndomains = [{list}]\n"));
            if let Some(iv) = interval {
                text.push_str(&format!("interval = \"{iv}\"\n"));
            }
        }
        let c = Config::parse(&text, Path::new("/nowhere/c.toml")).unwrap();
        agrees(&c)?;
        // A config whose global interval changed after its parse picks
        // each key's site again, as the old search did.
        let mut changed = c.clone();
        changed.interval_ms = 30_000;
        agrees(&changed)?;
    }
}

#[test]
fn names_and_domains_that_are_not_ascii_are_found_as_before() {
    // Found by fuzzing the old search (issue 7): a lookup past a character
    // that is not ASCII stepped into its middle.
    let c = Config {
        sites: Table::build("éx - - - a.example\né - - - b.example\n", 0),
        ..Config::default()
    };
    agrees(&c).unwrap();
    assert_eq!(c.site("é").unwrap().map(|s| s.name).as_deref(), Some("é"));
    assert_eq!(c.owner_of("é").unwrap(), None);
}

#[test]
fn equal_hashes_are_told_apart_by_the_record() {
    // Two words of one hash: each lookup reads both records and keeps the
    // one that holds its word.
    let words: Vec<String> = (0..300_000).map(|i| format!("w{i}.test")).collect();
    let mut seen = std::collections::HashMap::new();
    let pair = words
        .iter()
        .find_map(|w| {
            seen.insert(hash(w), w.clone())
                .filter(|o| o != w)
                .map(|o| (o, w.clone()))
        })
        .expect("300,000 words hold a 32-bit collision");
    let lines = format!("a - - - {}\nb - - - {}\n", pair.0, pair.1);
    let t = Table::build(&lines, 0);
    assert_eq!(hash(&pair.0), hash(&pair.1));
    assert_eq!(t.by_domain(&pair.0).unwrap().unwrap().name, "a");
    assert_eq!(t.by_domain(&pair.1).unwrap().unwrap().name, "b");
    assert_eq!(t.by_domain("other.test").unwrap(), None);
}

#[test]
fn a_table_of_no_sites_answers_none() {
    let t = Table::default();
    assert_eq!(t.len(), 0);
    assert_eq!(t.all().unwrap(), Vec::new());
    assert_eq!(t.by_name("a").unwrap(), None);
    assert_eq!(t.by_domain("a.com").unwrap(), None);
    assert_eq!(t.by_key("a.com").unwrap(), None);
}
