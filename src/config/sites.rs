//! The configured sites: each a name that owns some domains, and the
//! lookups the gate makes in them (a site by name, a host's owner, a gate
//! key's site), each a search of the sites' [`Table`]: a few pages of it,
//! whatever the number of sites.

use std::path::Path;

use super::{Config, table::Broken};
use crate::{
    error::{Error, Result},
    pacing::decision::Budget,
};

/// A configured site: a name that owns some domains and their subdomains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The site's name, for messages and `pace-hook run --site`.
    pub name: String,
    /// The site's own interval, if it has one.
    pub interval_ms: Option<u64>,
    /// The site's own jitter, if it has one.
    pub jitter_ms: Option<u64>,
    /// The site's own budget, if it has one.
    pub budget: Option<Budget>,
    domains: String,
}

impl Site {
    /// Domains the site owns, lowercase, without a trailing dot.
    pub fn domains(&self) -> impl Iterator<Item = &str> {
        self.domains.split(' ').filter(|d| !d.is_empty())
    }

    /// One site line: `name interval|- jitter|- calls/window|- domain…`.
    pub(super) fn parse(line: &str) -> Option<Self> {
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
        if name.is_empty() || name.contains('\n') {
            return None;
        }
        Some(Self {
            name: name.to_owned(),
            interval_ms,
            jitter_ms,
            budget,
            domains: parts.next().unwrap_or("").to_owned(),
        })
    }
}

/// Append the line of a site to `lines` (see [`Site::parse`]).
pub(super) fn push_line<'d>(
    lines: &mut String,
    name: &str,
    interval_ms: Option<u64>,
    jitter_ms: Option<u64>,
    budget: Option<Budget>,
    domains: impl Iterator<Item = &'d str>,
) {
    use std::fmt::Write as _;
    lines.push_str(name);
    for v in [interval_ms, jitter_ms] {
        match v {
            Some(ms) => {
                let _ = write!(lines, " {ms}");
            }
            None => lines.push_str(" -"),
        }
    }
    match budget {
        Some(b) => {
            let _ = write!(lines, " {}/{}", b.calls, b.window_ms);
        }
        None => lines.push_str(" -"),
    }
    for d in domains {
        lines.push(' ');
        lines.push_str(d);
    }
    lines.push('\n');
}

impl Config {
    /// Every gate key the config names: the keys of every configured
    /// site's domains. Reads every site.
    pub fn known_keys(&self) -> Result<Vec<String>> {
        let mut keys: Vec<String> = self
            .sites()?
            .iter()
            .flat_map(|g| g.domains().map(crate::key::registrable).collect::<Vec<_>>())
            .collect();
        keys.sort();
        keys.dedup();
        Ok(keys)
    }

    /// The configured site with a domain under gate key `key`, the one with
    /// the longest interval if several (the last of equals).
    pub fn group_of_key(&self, key: &str) -> Result<Option<Site>> {
        if self.interval_ms != self.sites.interval_ms() {
            // The table picked each key's site under another global
            // interval (a config changed after its parse): pick again.
            return Ok(self
                .sites()?
                .into_iter()
                .filter(|g| g.domains().any(|d| crate::key::registrable(d) == key))
                .max_by_key(|g| g.interval_ms.unwrap_or(self.interval_ms)));
        }
        self.lookup(|t| t.by_key(key))
    }

    /// Every configured site, in the order of the file. Reads every site.
    pub fn sites(&self) -> Result<Vec<Site>> {
        self.lookup(|t| t.all())
    }

    /// The number of configured sites.
    pub fn site_count(&self) -> usize {
        self.sites.len()
    }

    /// The configured site named `name`.
    pub fn site(&self, name: &str) -> Result<Option<Site>> {
        self.lookup(|t| t.by_name(name))
    }

    /// The configured site that owns `host` (lowercase): the one listing the
    /// longest domain that is `host` or a parent of it, the first in the
    /// file if several list it.
    pub fn owner_of(&self, host: &str) -> Result<Option<Site>> {
        let mut domain = host;
        loop {
            if let Some(owner) = self.lookup(|t| t.by_domain(domain))? {
                return Ok(Some(owner));
            }
            match domain.split_once('.') {
                Some((_, parent)) if !parent.is_empty() => domain = parent,
                _ => return Ok(None),
            }
        }
    }

    /// `f` over the sites' table; if the table is found broken (a page of
    /// the config cache damaged), over the table of the TOML read again,
    /// from then on, and the damaged cache is written again from it. If
    /// the TOML cannot be read again, its error, as a fresh load gives it.
    fn lookup<T>(&self, f: impl Fn(&super::table::Table) -> Result<T, Broken>) -> Result<T> {
        let table = &self.sites;
        if table.again().get().is_none()
            && let Ok(v) = f(table)
        {
            return Ok(v);
        }
        let again = table.again().get_or_init(|| match self.source.as_deref() {
            Some(path) => Config::reload(path, table.is_cached_file()).map(|c| c.sites),
            None => Err(damaged(None)),
        });
        match again {
            Ok(t) => f(t).map_err(|_| damaged(self.source.as_deref())),
            Err(e) => Err(copy(e)),
        }
    }
}

/// The error of a lookup in a table that does not hold together, read
/// again from its file or made by a parse: not a state a config reaches.
fn damaged(path: Option<&Path>) -> Error {
    Error::Config {
        path: path.map_or_else(Default::default, Path::to_owned),
        line: None,
        message: "the parsed copy of this config does not hold together; remove the state directory's `config-cache`".to_owned(),
    }
}

/// The error of reading a config again, once more: as it was, for the
/// config's two errors, else said in a config error.
fn copy(e: &Error) -> Error {
    match e {
        Error::Config {
            path,
            line,
            message,
        } => Error::Config {
            path: path.clone(),
            line: *line,
            message: message.clone(),
        },
        Error::ConfigRead { path, source } => Error::ConfigRead {
            path: path.clone(),
            source: std::io::Error::new(source.kind(), source.to_string()),
        },
        other => Error::Config {
            path: Default::default(),
            line: None,
            message: other.to_string(),
        },
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
            sites: super::super::table::Table::build("éx - - - a.example\né - - - b.example\n", 0),
            ..Config::default()
        };
        assert_eq!(c.site("é").unwrap().map(|s| s.name).as_deref(), Some("é"));
        assert_eq!(c.owner_of("é").unwrap(), None);
    }
}
