//! Configuration: where it is found, what it may say, and the policy it gives
//! each site.
//!
//! The file is TOML. Unknown keys are errors, so a typo such as `intervall`
//! is reported with its line instead of silently leaving the default in force.
//!
//! Its parts: the file's format and its checks (here), the site table
//! ([`sites`]), declared tools ([`tools`]), where the file is found
//! ([`discover`]) and the parsed copy kept in the state directory
//! ([`cache`]). What the settings ask of the gate for a site is built in
//! `gate::requests`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{
    duration::{format_duration, parse_duration},
    error::{Error, Result},
    pacing::decision::{Budget, CEILING_MS, MAX_BUDGET_CALLS},
};

pub(crate) mod cache;
mod discover;
pub(crate) mod preset;
mod sites;
mod table;
mod tools;

pub use sites::Site;
pub use tools::{ToolClass, ToolRule};

/// Default least gap between two requests to one site.
pub const DEFAULT_INTERVAL_MS: u64 = 10_000;
/// Default time an admitted call holds its site if no Post event comes.
pub const DEFAULT_HOLD_MS: u64 = 120_000;
/// Default longest wait before a call gives up and is blocked. Under the
/// 300 s hook timeout `install` writes, so pace-hook always answers before
/// Claude Code would kill it and let the call through.
pub const DEFAULT_MAX_WAIT_MS: u64 = 270_000;
/// Default age after which a lock or queue place is reclaimed even if its
/// owner still seems alive.
pub const DEFAULT_STALE_AFTER_MS: u64 = 15 * 60_000;
/// Default longest backoff a site's 429 or 503 without `Retry-After` grows to.
pub const DEFAULT_MAX_BACKOFF_MS: u64 = 10 * 60_000;

/// Where the gate's state lives.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Backend {
    /// Files in the state directory: one machine.
    #[default]
    File,
    /// A Redis server (`redis://`, `rediss://` or `redis+unix://` URL):
    /// every machine that points at it.
    Redis(String),
}

/// What a Pre does when the backend cannot be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum OnBackendError {
    /// Block the call (fail closed).
    #[default]
    Block,
    /// Fall back to the file gate on this machine, with a warning.
    Local,
}

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Least gap, finish to start, between two requests to one site.
    pub interval_ms: u64,
    /// How long an admitted call keeps its site busy if no Post event comes.
    pub hold_ms: u64,
    /// How long a call may wait for its turn before it is blocked.
    pub max_wait_ms: u64,
    /// Age after which a queue place or lock is reclaimed regardless.
    pub stale_after_ms: u64,
    /// Up to this much random extra on each call's interval.
    pub jitter_ms: u64,
    /// At most so many calls per site in any window of so long.
    pub budget: Option<Budget>,
    /// The longest a doubling backoff grows to.
    pub max_backoff_ms: u64,
    /// Where the gate's state lives.
    pub backend: Backend,
    /// What to do when the backend cannot be reached.
    pub on_backend_error: OnBackendError,
    /// Tools the user declared.
    pub tools: Vec<ToolRule>,
    /// Configured sites, as a table of their lines and indexes by name,
    /// domain and gate key (`table.rs`): a config of 100,000 sites is loaded
    /// on every paced event, from the config cache, and a lookup reads a
    /// few pages of it. Names and domains are checked to hold no blanks, so
    /// a site's line needs no quoting.
    sites: table::Table,
    /// The `[[site]]`s that name a preset, and what the user set beside it.
    pub presets: Vec<PresetUse>,
    /// The file this came from, if any.
    pub source: Option<PathBuf>,
}

/// A `[[site]]` with a `preset`: the site's interval and budget are the
/// stricter of the preset's and what the user set (the site's own, else the
/// global ones), recorded here so `status` and `doctor` can say which held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PresetUse {
    /// The site's name.
    pub site: String,
    /// The preset's name.
    pub preset: String,
    /// The interval the user's settings gave the site.
    pub user_interval_ms: u64,
    /// The budget the user's settings gave the site.
    pub user_budget: Option<Budget>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            interval_ms: DEFAULT_INTERVAL_MS,
            hold_ms: DEFAULT_HOLD_MS,
            max_wait_ms: DEFAULT_MAX_WAIT_MS,
            stale_after_ms: DEFAULT_STALE_AFTER_MS,
            jitter_ms: 0,
            budget: None,
            max_backoff_ms: DEFAULT_MAX_BACKOFF_MS,
            backend: Backend::File,
            on_backend_error: OnBackendError::Block,
            tools: Vec::new(),
            sites: table::Table::default(),
            presets: Vec::new(),
            source: None,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    interval: Option<String>,
    in_flight_hold: Option<String>,
    max_wait: Option<String>,
    stale_after: Option<String>,
    jitter: Option<String>,
    budget: Option<String>,
    max_backoff: Option<String>,
    backend: Option<String>,
    on_backend_error: Option<String>,
    #[serde(default)]
    site: Vec<RawSite>,
    #[serde(default)]
    tool: Vec<RawTool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSite {
    name: String,
    #[serde(default)]
    domains: Vec<String>,
    interval: Option<String>,
    jitter: Option<String>,
    budget: Option<String>,
    /// A built-in site's published limits (`preset.rs`).
    preset: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    #[serde(rename = "match")]
    pattern: String,
    class: String,
    url: Option<String>,
    code: Option<String>,
    reason: Option<String>,
    site: Option<String>,
}

impl Config {
    /// What this config allows but likely does not mean, one sentence each,
    /// for `status` and `doctor` to show. An `interval` of 0 is allowed, not
    /// refused: calls still go one at a time, and backoffs and budgets still
    /// hold (the benchmarks use it to time the gate's own work); but nothing
    /// spaces them, which is what pace-hook is for, and nothing else says so.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.interval_ms == 0 {
            out.push(format!(
                "`interval` is 0: a call to a site starts as soon as the previous one ends, with no gap; set the gap you want (the default is {})",
                format_duration(DEFAULT_INTERVAL_MS)
            ));
        }
        out
    }

    /// Parse config text; `path` is only for messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        let bad = |line: Option<usize>, message: String| Error::Config {
            path: path.to_owned(),
            line,
            message,
        };
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            bad(line, explain(text, e.span(), e.message().trim()))
        })?;
        // Lines for value errors found after parsing; only looked up on error.
        let line_for = |key: &str| key_line(text, None, key);
        let duration = |key: &str, value: Option<String>, default: u64| -> Result<u64> {
            match value {
                None => Ok(default),
                Some(v) => {
                    parse_duration(&v).map_err(|m| bad(line_for(key), format!("`{key}`: {m}")))
                }
            }
        };
        let mut config = Config {
            interval_ms: duration("interval", raw.interval, DEFAULT_INTERVAL_MS)?,
            hold_ms: duration("in_flight_hold", raw.in_flight_hold, DEFAULT_HOLD_MS)?,
            max_wait_ms: duration("max_wait", raw.max_wait, DEFAULT_MAX_WAIT_MS)?,
            stale_after_ms: duration("stale_after", raw.stale_after, DEFAULT_STALE_AFTER_MS)?,
            jitter_ms: duration("jitter", raw.jitter, 0)?,
            budget: match raw.budget {
                None => None,
                Some(b) => Some(
                    parse_budget(&b)
                        .map_err(|m| bad(line_for("budget"), format!("`budget`: {m}")))?,
                ),
            },
            max_backoff_ms: duration("max_backoff", raw.max_backoff, DEFAULT_MAX_BACKOFF_MS)?,
            backend: match raw.backend {
                None => Backend::File,
                Some(b) => parse_backend(&b)
                    .map_err(|m| bad(line_for("backend"), format!("`backend`: {m}")))?,
            },
            on_backend_error: match raw.on_backend_error.as_deref() {
                None | Some("block") => OnBackendError::Block,
                Some("local") => OnBackendError::Local,
                Some(other) => {
                    return Err(bad(
                        line_for("on_backend_error"),
                        format!("`on_backend_error`: `{other}` is not `block` or `local`"),
                    ));
                }
            },
            tools: Vec::new(),
            sites: table::Table::default(),
            presets: Vec::new(),
            source: Some(path.to_owned()),
        };
        for (key, ms) in [
            ("interval", config.interval_ms),
            ("in_flight_hold", config.hold_ms),
            ("jitter", config.jitter_ms),
            ("max_backoff", config.max_backoff_ms),
        ] {
            if ms > CEILING_MS {
                return Err(bad(
                    line_for(key),
                    format!("`{key}` ({}) is longer than a day", format_duration(ms)),
                ));
            }
        }
        if config.stale_after_ms <= config.max_wait_ms {
            // A waiter may legitimately sit in a queue for max_wait; reclaiming
            // its place sooner would let the next caller jump it.
            return Err(bad(
                line_for("stale_after").or(line_for("max_wait")),
                format!(
                    "`stale_after` ({}) must be longer than `max_wait` ({})",
                    format_duration(config.stale_after_ms),
                    format_duration(config.max_wait_ms)
                ),
            ));
        }
        let mut names = std::collections::HashSet::with_capacity(raw.site.len());
        // A [[tool]]'s `site` may name a [[site]]: its first domain.
        let mut first_domain = std::collections::HashMap::new();
        let mut preset_rules = Vec::new();
        let mut lines = String::new();
        for (i, site) in raw.site.into_iter().enumerate() {
            let site_line = |key: &str| key_line(text, Some(("site", i)), key);
            let name = site.name.trim().to_ascii_lowercase();
            if name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
                || name.starts_with('.')
            {
                return Err(bad(
                    site_line("name"),
                    format!(
                        "site name `{}` must be letters, digits, `-`, `_` or `.`, not starting with `.`",
                        site.name
                    ),
                ));
            }
            if !names.insert(name.clone()) {
                return Err(bad(
                    site_line("name"),
                    format!("site `{name}` is configured twice"),
                ));
            }
            let preset = match site.preset.as_deref() {
                None => None,
                Some(p) => Some(preset::find(p).ok_or_else(|| {
                    bad(
                        site_line("preset"),
                        format!(
                            "site `{name}`: no preset `{p}`; the presets are {}",
                            preset::names()
                        ),
                    )
                })?),
            };
            let mut domains = Vec::new();
            let listed = if site.domains.is_empty() {
                preset.map_or(Vec::new(), |p| {
                    p.domains.iter().map(|d| (*d).to_owned()).collect()
                })
            } else {
                site.domains
            };
            for d in &listed {
                let host = crate::key::normalize_host(d).ok_or_else(|| {
                    bad(
                        site_line("domains"),
                        format!("site `{name}`: `{d}` is not a domain"),
                    )
                })?;
                domains.push(host);
            }
            let site_duration = |key: &str, v: Option<String>| -> Result<Option<u64>> {
                v.map(|v| {
                    parse_duration(&v)
                        .map_err(|m| bad(site_line(key), format!("site `{name}`: `{key}`: {m}")))
                        .and_then(|ms| {
                            if ms > CEILING_MS {
                                Err(bad(
                                    site_line(key),
                                    format!("site `{name}`: `{key}` is longer than a day"),
                                ))
                            } else {
                                Ok(ms)
                            }
                        })
                })
                .transpose()
            };
            let interval_ms = site_duration("interval", site.interval)?;
            let jitter_ms = site_duration("jitter", site.jitter)?;
            let budget = site
                .budget
                .map(|b| {
                    parse_budget(&b).map_err(|m| {
                        bad(site_line("budget"), format!("site `{name}`: `budget`: {m}"))
                    })
                })
                .transpose()?;
            let (interval_ms, budget) = match preset {
                None => (interval_ms, budget),
                Some(p) => {
                    let user_interval_ms = interval_ms.unwrap_or(config.interval_ms);
                    let user_budget = budget.or(config.budget);
                    config.presets.push(PresetUse {
                        site: name.clone(),
                        preset: p.name.to_owned(),
                        user_interval_ms,
                        user_budget,
                    });
                    let (i, b) = preset::combine(p, user_interval_ms, user_budget);
                    (Some(i), b)
                }
            };
            if let Some(first) = domains.first() {
                first_domain.insert(name.clone(), first.clone());
            }
            if let Some(p) = preset {
                preset_rules.extend(preset::tool_rule(p, domains.first()));
            }
            sites::push_line(
                &mut lines,
                &name,
                interval_ms,
                jitter_ms,
                budget,
                domains.iter().map(String::as_str),
            );
        }
        for (i, tool) in raw.tool.into_iter().enumerate() {
            let tool_line = |key: &str| key_line(text, Some(("tool", i)), key);
            let anchored = format!("^(?:{})$", tool.pattern);
            if let Err(e) = regex_lite::Regex::new(&anchored) {
                return Err(bad(
                    tool_line("match"),
                    format!("tool `{}`: not a regex: {e}", tool.pattern),
                ));
            }
            let class = match tool.class.as_str() {
                "pace" => ToolClass::Pace,
                "skip" => ToolClass::Skip,
                "block" => ToolClass::Block,
                other => {
                    return Err(bad(
                        tool_line("class"),
                        format!(
                            "tool `{}`: class `{other}` is not `pace`, `skip` or `block`",
                            tool.pattern
                        ),
                    ));
                }
            };
            for (key, pointer) in [("url", &tool.url), ("code", &tool.code)] {
                if let Some(p) = pointer
                    && !(p.is_empty() || p.starts_with('/'))
                {
                    return Err(bad(
                        tool_line(key),
                        format!(
                            "tool `{}`: `{key}` must be a JSON pointer such as \"/url\"",
                            tool.pattern
                        ),
                    ));
                }
            }
            let site = match tool.site {
                None => None,
                Some(_) if class != ToolClass::Pace => {
                    return Err(bad(
                        tool_line("site"),
                        format!(
                            "tool `{}`: `site` is for `class = \"pace\"`: a call that is skipped or blocked reaches no site",
                            tool.pattern
                        ),
                    ));
                }
                Some(s) => Some(match first_domain.get(&s) {
                    Some(d) => d.clone(),
                    None => crate::key::normalize_host(&s).ok_or_else(|| {
                        bad(
                            tool_line("site"),
                            format!(
                                "tool `{}`: site `{s}` is neither a [[site]] name nor a domain",
                                tool.pattern
                            ),
                        )
                    })?,
                }),
            };
            config.tools.push(ToolRule {
                pattern: tool.pattern,
                class,
                url: tool.url,
                code: tool.code,
                reason: tool.reason,
                site,
            });
        }
        // After the user's own rules, which come first and so win.
        config.tools.extend(preset_rules);
        // The table's offsets are 32 bits: four gigabytes of site lines.
        if lines.len() + 4 * names.len() > u32::MAX as usize {
            return Err(bad(
                None,
                format!("{} sites are more than pace-hook keeps", names.len()),
            ));
        }
        config.sites = table::Table::build(&lines, config.interval_ms);
        Ok(config)
    }
}

/// `"300/24h"`: at most 300 calls in any 24 hours.
pub fn parse_budget(text: &str) -> Result<Budget, String> {
    let (calls, window) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not a budget; write e.g. \"300/24h\""))?;
    let calls: u32 = calls
        .trim()
        .parse()
        .map_err(|_| format!("`{calls}` is not a number of calls"))?;
    if calls == 0 || calls > MAX_BUDGET_CALLS {
        return Err(format!(
            "the number of calls must be between 1 and {MAX_BUDGET_CALLS}"
        ));
    }
    let window_ms = parse_duration(window)?;
    if window_ms == 0 || window_ms > 30 * CEILING_MS {
        return Err("the window must be longer than 0 and at most 30 days".to_owned());
    }
    Ok(Budget { calls, window_ms })
}

/// `"file"`, or a `redis://` / `rediss://` URL, or `redis+unix:///path`
/// for a server on this machine's Unix socket.
pub fn parse_backend(text: &str) -> Result<Backend, String> {
    let t = text.trim();
    if t == "file" {
        return Ok(Backend::File);
    }
    let lower = t.to_ascii_lowercase();
    if ["redis://", "rediss://", "redis+unix://"]
        .iter()
        .any(|s| lower.starts_with(s))
    {
        return Ok(Backend::Redis(t.to_owned()));
    }
    Err(format!(
        "`{t}` is not a backend; write \"file\" or a URL such as \"redis://host:6379/0\""
    ))
}

/// The 1-based line where `key` is set: among the top-level keys (`table`
/// `None`) or in the `i`-th `[[name]]` table for `Some((name, i))`, else
/// that table's header.
fn key_line(text: &str, table: Option<(&str, usize)>, key: &str) -> Option<usize> {
    let mut section: Option<(String, usize)> = None;
    let mut counts: std::collections::HashMap<String, usize> = Default::default();
    let mut header = None;
    let wanted = table.map(|(n, i)| (n.to_owned(), i));
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start();
        if let Some(name) = line
            .strip_prefix("[[")
            .and_then(|r| r.split_once("]]"))
            .map(|(name, _)| name.trim().to_owned())
        {
            let c = counts.entry(name.clone()).or_insert(0);
            section = Some((name, *c));
            *c += 1;
            if section == wanted {
                header = Some(n + 1);
            }
            continue;
        }
        let sets_key = line
            .strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='));
        if section == wanted && sets_key {
            return Some(n + 1);
        }
    }
    header
}

/// Keys whose value is a duration, at the top level or in a `[[site]]`.
const DURATION_KEYS: [&str; 6] = [
    "interval",
    "in_flight_hold",
    "max_wait",
    "stale_after",
    "jitter",
    "max_backoff",
];

/// The TOML reader's `message` about the text at `span`, said in the
/// config's own terms: what was written, and what to write instead. A
/// message it has nothing to add to is kept as it is.
fn explain(text: &str, span: Option<std::ops::Range<usize>>, message: &str) -> String {
    let at = span.clone().map_or(0, |s| s.start.min(text.len()));
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = text[start..end].trim();
    // The key the line sets, or the table its header opens.
    let key = line
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_owned())
        .or_else(|| {
            line.strip_prefix('[')
                .and_then(|l| l.split_once(']'))
                .map(|(name, _)| name.trim_matches(['[', ']']).trim().to_owned())
        })
        .unwrap_or_default();

    // `interval = 10`: a number where a string goes.
    for kind in ["integer", "floating point"] {
        if let Some(rest) = message.strip_prefix(&format!("invalid type: {kind} `")) {
            let number = rest.split('`').next().unwrap_or_default();
            // `interval = 10` as written, or a number inside a list.
            let whole = line
                .split_once('=')
                .is_some_and(|(_, v)| v.trim() == number);
            if !whole {
                return format!(
                    "`{key}` holds the number {number} where a string goes: write it in quotes"
                );
            }
            let written = format!("`{key} = {number}` is a number");
            return if DURATION_KEYS.contains(&key.as_str()) {
                format!(
                    "{written}; a duration is a string with its unit: write `{key} = \"{number}s\"` (or ms, m, h)"
                )
            } else if key == "budget" {
                format!(
                    "{written}; a budget is a string of calls per window: write e.g. `budget = \"{number}/24h\"`"
                )
            } else {
                format!("{written}; `{key}` takes a string, in quotes")
            };
        }
    }
    // `[tool]` where `[[tool]]` goes: one table, not a list of them.
    if message == "invalid type: map, expected a sequence" {
        return if line.starts_with('[') && !line.starts_with("[[") {
            format!(
                "`[{key}]` opens one table; each `{key}` entry is its own `[[{key}]]`, with double brackets"
            )
        } else {
            format!(
                "`{key}` is a table; each `{key}` entry is its own `[[{key}]]`, with double brackets"
            )
        };
    }
    if message == "duplicate key" {
        let name = span
            .and_then(|s| text.get(s))
            .map(|k| k.trim().trim_matches('"'))
            .filter(|k| !k.is_empty() && !k.contains('\n'))
            .unwrap_or(&key);
        return format!("`{name}` is set twice here; keep one");
    }
    // `unknown field `intervl`, expected one of `interval`, ...`
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (unknown, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let list = known
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ");
        return match closest(unknown, &known) {
            Some(near) => {
                format!("unknown key `{unknown}`: did you mean `{near}`? (known here: {list})")
            }
            None => format!("unknown key `{unknown}` (known here: {list})"),
        };
    }
    message.to_owned()
}

/// The one of `known` that `word` is most likely a slip for: within two
/// edits (one for a word of four letters or fewer), nearest first.
fn closest<'k>(word: &str, known: &[&'k str]) -> Option<&'k str> {
    let most = if word.chars().count() <= 4 { 1 } else { 2 };
    known
        .iter()
        .map(|k| (edit_distance(word, k), *k))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

fn line_of(text: &str, byte: usize) -> usize {
    text.as_bytes()[..byte.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(text, Path::new("/x/pace-hook.toml"))
    }

    #[test]
    fn a_preset_fills_in_its_domains_and_never_loosens_the_users_settings() {
        // The default 10 s is stricter than GitHub's second, and holds; the
        // preset adds its budget and its domains.
        let c = parse("[[site]]\nname = \"gh\"\npreset = \"github\"\n").unwrap();
        let site = c.site("gh").unwrap().unwrap();
        assert_eq!(
            site.domains().collect::<Vec<_>>(),
            ["github.com", "githubusercontent.com"]
        );
        let p = c.site("gh").unwrap().unwrap();
        assert_eq!(p.interval_ms, Some(10_000));
        assert_eq!(
            p.budget,
            Some(Budget {
                calls: 500,
                window_ms: 3_600_000
            })
        );
        // A looser global interval: the preset's second holds.
        let c =
            parse("interval = \"200ms\"\n[[site]]\nname = \"gh\"\npreset = \"github\"\n").unwrap();
        assert_eq!(c.site("gh").unwrap().unwrap().interval_ms, Some(1_000));
        assert_eq!(c.interval_ms, 200);
        // The site's own stricter values hold over the preset's.
        let c = parse(
            "interval = \"200ms\"\n[[site]]\nname = \"r\"\npreset = \"reddit\"\ninterval = \"30s\"\nbudget = \"5/1h\"\ndomains = [\"reddit.com\"]\n",
        )
        .unwrap();
        let p = c.site("r").unwrap().unwrap();
        assert_eq!(p.interval_ms, Some(30_000));
        assert_eq!(
            p.budget,
            Some(Budget {
                calls: 5,
                window_ms: 3_600_000
            })
        );
        assert_eq!(
            c.site("r").unwrap().unwrap().domains().collect::<Vec<_>>(),
            ["reddit.com"]
        );
        // A looser site budget: the preset's 60 a minute holds, and says so.
        let c = parse("[[site]]\nname = \"r\"\npreset = \"reddit\"\ninterval = \"1s\"\nbudget = \"1000/1m\"\n")
            .unwrap();
        assert_eq!(
            c.site("r").unwrap().unwrap().budget,
            Some(Budget {
                calls: 60,
                window_ms: 60_000
            })
        );
        let line = preset::describe(&c.presets[0]);
        assert!(
            line.starts_with("site `r` uses preset `reddit`: interval 1 s (yours), budget 60 per 1 min (the preset's; yours: 1000 per 1 min); the tools of MCP servers named like `reddit` are paced on it; reddit publishes: clients connecting via OAuth2 may make up to 60 requests per minute"),
            "{line}"
        );
        assert!(line.ends_with("read 2026-12-01"), "{line}");
        // It survives the config cache.
        let bytes = cache::encode(&[1, 2, 3, 4, 5, 6, 7], &c).unwrap();
        let (_, back) = cache::decode(&bytes, Path::new("/x")).unwrap();
        assert_eq!(back.presets, c.presets);
        assert_eq!(back.tools, c.tools);
        assert_eq!(back.tools[0].site.as_deref(), Some("reddit.com"));
    }

    #[test]
    fn a_preset_with_a_service_server_adds_a_rule_after_the_users_own() {
        let c = parse(
            "[[site]]\nname = \"gh\"\npreset = \"github\"\n\n[[tool]]\nmatch = \"mcp__github__get_.*\"\nclass = \"skip\"\n",
        )
        .unwrap();
        // The user's skip comes first, so it decides the tools it names.
        assert_eq!(c.tools.len(), 2);
        assert_eq!(c.tools[0].class, ToolClass::Skip);
        assert_eq!(c.tools[1].class, ToolClass::Pace);
        assert_eq!(c.tools[1].site.as_deref(), Some("github.com"));
        let re = regex_lite::Regex::new(&format!("^(?:{})$", c.tools[1].pattern)).unwrap();
        for name in [
            "mcp__github__create_issue",
            "mcp__GitHub-MCP__push_files",
            "mcp__my_github__x",
        ] {
            assert!(re.is_match(name), "{name}");
        }
        for name in [
            "mcp__gitlab__create_issue",
            "github__create_issue",
            "mcp__github__",
        ] {
            assert!(!re.is_match(name), "{name}");
        }
        // A site listing its own domains: the rule paces on the first.
        let c = parse(
            "[[site]]\nname = \"gh\"\npreset = \"github\"\ndomains = [\"ghe.example.com\"]\n",
        )
        .unwrap();
        assert_eq!(c.tools[0].site.as_deref(), Some("ghe.example.com"));
    }

    #[test]
    fn a_tool_rules_site_is_a_site_name_or_a_domain_and_only_for_pace() {
        let c = parse("[[site]]\nname = \"lin\"\ndomains = [\"Linear.app\"]\n\n[[tool]]\nmatch = \"a\"\nclass = \"pace\"\nsite = \"lin\"\n\n[[tool]]\nmatch = \"b\"\nclass = \"pace\"\nsite = \"API.Example.com\"\n").unwrap();
        assert_eq!(c.tools[0].site.as_deref(), Some("linear.app"));
        assert_eq!(c.tools[1].site.as_deref(), Some("api.example.com"));
        let e = parse("[[tool]]\nmatch = \"a\"\nclass = \"pace\"\nsite = \"not a host/\"\n")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "config `/x/pace-hook.toml` line 4: tool `a`: site `not a host/` is neither a [[site]] name nor a domain"
        );
        let e =
            parse("[[tool]]\nmatch = \"a\"\nclass = \"skip\"\nsite = \"a.example\"\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("line 4: tool `a`: `site` is for `class = \"pace\"`"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_preset_names_its_line_and_the_presets() {
        let e = parse("[[site]]\nname = \"x\"\npreset = \"gitlab\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "config `/x/pace-hook.toml` line 3: site `x`: no preset `gitlab`; the presets are \"github\", \"reddit\""
        );
    }

    #[test]
    fn empty_file_gives_the_defaults() {
        let c = parse("").unwrap();
        assert_eq!(c.interval_ms, 10_000);
        assert_eq!(c.hold_ms, 120_000);
        assert_eq!(c.max_wait_ms, 270_000);
    }

    #[test]
    fn the_documented_example_parses() {
        let c = parse(
            "interval = \"10s\"\nin_flight_hold = \"120s\"\nmax_wait = \"270s\"\n\n[[site]]\nname = \"social\"\ndomains = [\"example.social\"]\ninterval = \"30s\"\n",
        )
        .unwrap();
        let site = c.sites().unwrap().remove(0);
        assert_eq!(site.name, "social");
        let owner = |host: &str| c.owner_of(host).unwrap().map(|s| s.name);
        assert_eq!(owner("m.example.social").as_deref(), Some("social"));
        assert_eq!(owner("example.social").as_deref(), Some("social"));
        assert_eq!(owner("other.social"), None);
        assert_eq!(
            c.site("social").unwrap().map(|s| s.interval_ms),
            Some(Some(30_000))
        );
        assert_eq!(c.site("soc").unwrap(), None);
        assert_eq!(site.domains().collect::<Vec<_>>(), vec!["example.social"]);
    }

    #[test]
    fn unknown_key_names_file_and_line() {
        let e = parse("interval = \"1s\"\nintervall = \"2s\"\n").unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("config `/x/pace-hook.toml` line 2:"), "{m}");
        assert!(m.contains("intervall"), "{m}");
    }

    #[test]
    fn a_slip_of_a_key_is_matched_to_the_nearest_and_nothing_far_is() {
        let known = ["interval", "in_flight_hold", "max_wait", "site", "tool"];
        assert_eq!(closest("intervl", &known), Some("interval"));
        assert_eq!(closest("max-wait", &known), Some("max_wait"));
        assert_eq!(closest("sites", &known), Some("site"));
        // Short words get one edit, not two: `to` is not a slip for `tool`.
        assert_eq!(closest("to", &known), None);
        assert_eq!(closest("backoff", &known), None);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("día", "dia"), 1);
    }
    #[test]
    fn bad_duration_names_the_key_and_line() {
        let e = parse("\nmax_wait = \"ten\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "config `/x/pace-hook.toml` line 2: `max_wait`: `ten` is not a duration; write e.g. \"10s\" or \"250ms\""
        );
    }

    #[test]
    fn a_bad_value_in_the_second_site_names_its_own_line() {
        let e = parse(
            "interval = \"1s\"\n[[site]]\nname = \"a\"\ninterval = \"2s\"\n[[site]]\nname = \"b\"\ninterval = \"fast\"\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "config `/x/pace-hook.toml` line 7: site `b`: `interval`: `fast` is not a duration; write e.g. \"10s\" or \"250ms\""
        );
        let e = parse("[[site]]\nname = \"a\"\n[[site]]\nname = \"a\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "config `/x/pace-hook.toml` line 4: site `a` is configured twice"
        );
    }

    #[test]
    fn site_names_cannot_escape_the_state_dir() {
        for name in ["../etc", "a/b", ".hidden", ""] {
            let text = format!("[[site]]\nname = \"{name}\"\ndomains = [\"a.com\"]\n");
            assert!(parse(&text).is_err(), "{name} accepted");
        }
    }

    #[test]
    fn stale_after_must_outlast_max_wait() {
        let e = parse("max_wait = \"20m\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "config `/x/pace-hook.toml` line 1: `stale_after` (15 min) must be longer than `max_wait` (20 min)"
        );
    }
}
