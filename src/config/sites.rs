//! The configured sites: each a name that owns some domains, and the
//! lookups the gate makes in them (a site by name, a host's owner).

use super::Config;
use crate::pacing::decision::Budget;

/// A configured site: a name that owns some domains and their subdomains,
/// borrowed from the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site<'a> {
    /// The site's name, for messages and `pace-hook run --site`.
    pub name: &'a str,
    /// The site's own interval, if it has one.
    pub interval_ms: Option<u64>,
    /// The site's own jitter, if it has one.
    pub jitter_ms: Option<u64>,
    /// The site's own budget, if it has one.
    pub budget: Option<Budget>,
    domains: &'a str,
}

impl<'a> Site<'a> {
    /// Domains the site owns, lowercase, without a trailing dot.
    pub fn domains(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        self.domains.split(' ').filter(|d| !d.is_empty())
    }

    /// One line of [`Config`]'s site list:
    /// `name interval|- jitter|- calls/window|- domain…`.
    fn parse(line: &'a str) -> Option<Self> {
        let mut parts = line.splitn(5, ' ');
        let name = parts.next()?;
        let num = |t: &str| -> Option<Option<u64>> {
            match t {
                "-" => Some(None),
                ms => Some(Some(ms.parse().ok()?)),
            }
        };
        let interval_ms = num(parts.next()?)?;
        let jitter_ms = num(parts.next()?)?;
        let budget = match parts.next()? {
            "-" => None,
            b => {
                let (calls, window) = b.split_once('/')?;
                Some(Budget {
                    calls: calls.parse().ok()?,
                    window_ms: window.parse().ok()?,
                })
            }
        };
        Some(Self {
            name,
            interval_ms,
            jitter_ms,
            budget,
            domains: parts.next().unwrap_or(""),
        })
    }
}

impl Config {
    /// Every gate key the config names: the keys of every configured
    /// site's domains.
    pub fn known_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .sites()
            .flat_map(|g| g.domains().map(crate::key::registrable).collect::<Vec<_>>())
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// The configured site with a domain under gate key `key`, the one with
    /// the longest interval if several.
    pub fn group_of_key(&self, key: &str) -> Option<Site<'_>> {
        self.sites()
            .filter(|g| g.domains().any(|d| crate::key::registrable(d) == key))
            .max_by_key(|g| g.interval_ms.unwrap_or(self.interval_ms))
    }

    /// Every configured site, in the order of the file.
    pub fn sites(&self) -> impl Iterator<Item = Site<'_>> {
        self.sites.lines().filter_map(Site::parse)
    }

    /// The configured site named `name`.
    pub fn site(&self, name: &str) -> Option<Site<'_>> {
        // A substring search for the line that starts with `name` and a
        // blank: this runs on every paced event, over every configured site.
        self.line_with(name, |text, at| {
            (at == 0 || text.as_bytes()[at - 1] == b'\n')
                && text.as_bytes().get(at + name.len()) == Some(&b' ')
        })
        .filter(|s| s.name == name)
    }

    /// The configured site that owns `host` (lowercase): the one listing the
    /// longest domain that is `host` or a parent of it.
    pub fn owner_of(&self, host: &str) -> Option<Site<'_>> {
        let mut domain = host;
        loop {
            let owner = self
                .line_with(domain, |text, at| {
                    text.as_bytes()[at.saturating_sub(1)] == b' '
                        && matches!(
                            text.as_bytes().get(at + domain.len()),
                            Some(b' ' | b'\n') | None
                        )
                })
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

    /// The site on the first line where `needle` occurs at a place `fits`.
    fn line_with(&self, needle: &str, fits: impl Fn(&str, usize) -> bool) -> Option<Site<'_>> {
        let text = self.sites.as_str();
        if needle.is_empty() {
            return None;
        }
        let mut from = 0;
        loop {
            let at = from + text[from..].find(needle)?;
            if fits(text, at) {
                let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
                return Site::parse(&text[start..end]);
            }
            // Past the match's first character, not its first byte: the
            // text may come from a cache file, and the needle from
            // `pace-hook run --site`, neither of them ASCII.
            from = at + needle.chars().next().map_or(1, char::len_utf8);
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
        use std::fmt::Write as _;
        self.sites.push_str(name);
        for v in [interval_ms, jitter_ms] {
            match v {
                Some(ms) => {
                    let _ = write!(self.sites, " {ms}");
                }
                None => self.sites.push_str(" -"),
            }
        }
        match budget {
            Some(b) => {
                let _ = write!(self.sites, " {}/{}", b.calls, b.window_ms);
            }
            None => self.sites.push_str(" -"),
        }
        for d in domains {
            self.sites.push(' ');
            self.sites.push_str(d);
        }
        self.sites.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing (`fuzz/` target `config`, issue 7): looking up a
    /// name that is not ASCII in site lines that are not (a damaged config
    /// cache) stepped one byte past a match that did not fit, into the
    /// middle of a character, and panicked.
    #[test]
    fn a_lookup_past_a_character_that_is_not_ascii_goes_on() {
        let c = Config {
            sites: "éx - - - a.example\né - - - b.example\n".to_owned(),
            ..Config::default()
        };
        assert_eq!(c.site("é").map(|s| s.name), Some("é"));
        assert_eq!(c.owner_of("é").map(|s| s.name), None);
    }
}
