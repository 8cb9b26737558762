//! Configuration: where it is found, what it may say, and the policy it gives
//! each site.
//!
//! The file is TOML. Unknown keys are errors, so a typo such as `intervall`
//! is reported with its line instead of silently leaving the default in force.

use std::{
    env,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

pub use crate::duration::{format_duration, parse_duration};
use crate::{
    decision::{Budget, CEILING_MS, MAX_BUDGET_CALLS, Policy},
    error::{Error, Result},
    gate::SiteRequest,
};

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

/// Where the gate's state lives.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Backend {
    /// Files in the state directory: one machine.
    #[default]
    File,
    /// A Redis server (`redis://` or `rediss://` URL): every machine that
    /// points at it.
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

/// How a declared tool is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolClass {
    /// Paced on its site.
    Pace,
    /// Passed at once, uncounted.
    Skip,
    /// Blocked with the declared reason.
    Block,
}

/// A tool the user declared with `[[tool]]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolRule {
    /// A regex over the full tool name, anchored at both ends.
    pub pattern: String,
    /// How its calls are treated.
    pub class: ToolClass,
    /// JSON pointer into the input to the URL the call goes to.
    pub url: Option<String>,
    /// JSON pointer into the input to JavaScript to analyse.
    pub code: Option<String>,
    /// For `block`: what the model is told.
    pub reason: Option<String>,
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
    /// Configured sites, a line each (see [`Site::parse`]). Names and
    /// domains are checked to hold no blanks, so nothing needs quoting. One
    /// string rather than a `Vec` of structs: a config with a thousand sites
    /// is loaded on every paced event, and this loads with one allocation.
    sites: String,
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
            sites: String::new(),
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
    /// A built-in site's published limits (`src/preset.rs`).
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
}

/// The backend URL from `PACE_HOOK_BACKEND`, which overrides the config's.
const BACKEND_VAR: &str = "PACE_HOOK_BACKEND";

impl Config {
    /// Find and load the config: `PACE_HOOK_CONFIG`, else
    /// `$CLAUDE_PROJECT_DIR/.claude/pace-hook.toml`, else
    /// `$XDG_CONFIG_HOME/pace-hook/config.toml` (`~/.config/...`), else the
    /// defaults. A file named by `PACE_HOOK_CONFIG` must exist.
    /// `PACE_HOOK_BACKEND` overrides the backend.
    pub fn discover() -> Result<Self> {
        let project = env::var_os("CLAUDE_PROJECT_DIR").filter(|p| !p.is_empty());
        Self::discover_for(project.as_deref().map(Path::new))
    }

    /// [`Config::discover`] as a hook of the Claude Code project `project`
    /// would: `project` stands for `$CLAUDE_PROJECT_DIR`, which only hooks
    /// have (`install` runs in a plain shell).
    pub fn discover_for(project: Option<&Path>) -> Result<Self> {
        let mut config = Self::find(project)?;
        if let Some(url) = env::var(BACKEND_VAR).ok().filter(|v| !v.trim().is_empty()) {
            config.backend = parse_backend(&url).map_err(|message| Error::Config {
                path: PathBuf::from(format!("${BACKEND_VAR}")),
                line: None,
                message,
            })?;
        }
        Ok(config)
    }

    /// The config a hook run for `project_dir` would load (as
    /// [`Self::discover`] with `CLAUDE_PROJECT_DIR` set to it), read fresh
    /// from its file: nothing is written, not even the parsed copy kept in
    /// the state directory. For `status` and `doctor`, which run from a
    /// terminal where `CLAUDE_PROJECT_DIR` is not set, and must not write.
    pub fn read_for(project_dir: Option<&Path>) -> Result<Self> {
        let mut config = match env::var_os("PACE_HOOK_CONFIG").filter(|p| !p.is_empty()) {
            Some(path) => Self::load_text(Path::new(&path))?,
            None => {
                let project = project_dir.map(|d| d.join(".claude").join("pace-hook.toml"));
                let mut found = None;
                for path in project.into_iter().chain(user_config_path()) {
                    match Self::load_text(&path) {
                        Err(Error::ConfigRead { source, .. })
                            if source.kind() == std::io::ErrorKind::NotFound =>
                        {
                            continue;
                        }
                        other => {
                            found = Some(other?);
                            break;
                        }
                    }
                }
                found.unwrap_or_default()
            }
        };
        if let Some(url) = env::var(BACKEND_VAR).ok().filter(|v| !v.trim().is_empty()) {
            config.backend = parse_backend(&url).map_err(|message| Error::Config {
                path: PathBuf::from(format!("${BACKEND_VAR}")),
                line: None,
                message,
            })?;
        }
        Ok(config)
    }

    /// The project a hook would run for, seen from a terminal:
    /// `CLAUDE_PROJECT_DIR` when set, else the current directory.
    pub fn project_dir() -> Option<PathBuf> {
        env::var_os("CLAUDE_PROJECT_DIR")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| env::current_dir().ok())
    }

    fn find(project: Option<&Path>) -> Result<Self> {
        if let Some(path) = env::var_os("PACE_HOOK_CONFIG").filter(|p| !p.is_empty()) {
            return Self::load(Path::new(&path));
        }
        for path in candidate_paths(project) {
            match Self::load(&path) {
                Err(Error::ConfigRead { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    continue;
                }
                other => return other,
            }
        }
        Ok(Self::default())
    }

    /// Load the config at `path`, from the parsed copy in the state
    /// directory while the file is unchanged.
    pub fn load(path: &Path) -> Result<Self> {
        let cached = cache::read(path);
        if let Some(c) = cached.0 {
            return Ok(c);
        }
        let c = Self::load_text(path)?;
        if let Some(key) = cached.1 {
            cache::write(path, &key, &c);
        }
        Ok(c)
    }

    fn load_text(path: &Path) -> Result<Self> {
        let text = read_regular(path).map_err(|source| Error::ConfigRead {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, path)
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
            bad(line, e.message().trim().to_owned())
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
            sites: String::new(),
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
                Some(p) => Some(crate::preset::find(p).ok_or_else(|| {
                    bad(
                        site_line("preset"),
                        format!(
                            "site `{name}`: no preset `{p}`; the presets are {}",
                            crate::preset::names()
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
                let host = crate::site::normalize_host(d).ok_or_else(|| {
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
                    let (i, b) = crate::preset::combine(p, user_interval_ms, user_budget);
                    (Some(i), b)
                }
            };
            config.push_site(
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
            config.tools.push(ToolRule {
                pattern: tool.pattern,
                class,
                url: tool.url,
                code: tool.code,
                reason: tool.reason,
            });
        }
        Ok(config)
    }

    /// The policy of configured site `site`, or the global one.
    pub fn policy_of(&self, site: Option<Site<'_>>) -> Policy {
        Policy {
            interval_ms: site.and_then(|s| s.interval_ms).unwrap_or(self.interval_ms),
            hold_ms: self.hold_ms,
            budget: site.and_then(|s| s.budget).or(self.budget),
        }
    }

    /// The jitter for configured site `site`, or the global one.
    pub fn jitter_of(&self, site: Option<Site<'_>>) -> u64 {
        site.and_then(|s| s.jitter_ms).unwrap_or(self.jitter_ms)
    }

    /// The gates a request to `host` goes through, each with the policy
    /// this config requires there.
    ///
    /// A host is always paced on its own gate key (its registrable domain),
    /// whatever the config says, so that processes whose configs differ
    /// still meet on one gate. A host owned by a configured `[[site]]` is
    /// also paced on the key of every domain of that site, with the site's
    /// interval: the group shares one pace, and a process that does not
    /// define the group still meets it on each domain.
    pub fn requests_for_host(&self, host: &str) -> Vec<SiteRequest> {
        let own = crate::site::key_for_host(host);
        match self.owner_of(host) {
            None => vec![SiteRequest {
                site: own,
                policy: self.policy_of(None),
                jitter_ms: self.jitter_ms,
            }],
            Some(group) => {
                let policy = self.policy_of(Some(group));
                let jitter_ms = self.jitter_of(Some(group));
                let mut keys: Vec<String> =
                    group.domains().map(crate::site::key_for_host).collect();
                keys.push(own);
                keys.sort();
                keys.dedup();
                keys.into_iter()
                    .map(|site| SiteRequest {
                        site,
                        policy,
                        jitter_ms,
                    })
                    .collect()
            }
        }
    }

    /// The configured site with a domain under gate key `key`, the one with
    /// the longest interval if several.
    pub fn group_of_key(&self, key: &str) -> Option<Site<'_>> {
        self.sites()
            .filter(|g| g.domains().any(|d| crate::site::key_for_host(d) == key))
            .max_by_key(|g| g.interval_ms.unwrap_or(self.interval_ms))
    }

    /// The policy this config requires on gate key `key`: the strictest
    /// configured site with a domain under that key, else the global one.
    /// For calls paced on sites known only by their key.
    pub fn policy_for_key(&self, key: &str) -> Policy {
        self.request_for_key(key).policy
    }

    /// [`Self::policy_for_key`], with the jitter that goes with it.
    pub fn request_for_key(&self, key: &str) -> SiteRequest {
        let mut policy = self.policy_of(None);
        let mut jitter_ms = self.jitter_ms;
        if let Some(group) = self.group_of_key(key) {
            let p = self.policy_of(Some(group));
            policy.interval_ms = policy.interval_ms.max(p.interval_ms);
            policy.budget = p.budget;
            jitter_ms = self.jitter_of(Some(group));
        }
        SiteRequest {
            site: key.to_owned(),
            policy,
            jitter_ms,
        }
    }

    /// Every gate key the config names: the keys of every configured
    /// site's domains.
    pub fn known_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .sites()
            .flat_map(|g| {
                g.domains()
                    .map(crate::site::key_for_host)
                    .collect::<Vec<_>>()
            })
            .collect();
        keys.sort();
        keys.dedup();
        keys
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

    fn push_site<'d>(
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

/// `"file"`, or a `redis://` / `rediss://` URL.
pub fn parse_backend(text: &str) -> Result<Backend, String> {
    let t = text.trim();
    if t == "file" {
        return Ok(Backend::File);
    }
    let lower = t.to_ascii_lowercase();
    if lower.starts_with("redis://") || lower.starts_with("rediss://") {
        return Ok(Backend::Redis(t.to_owned()));
    }
    Err(format!(
        "`{t}` is not a backend; write \"file\" or a URL such as \"redis://host:6379/0\""
    ))
}

/// The text of the regular file at `path`. Anything else (a FIFO would hang
/// the hook until its timeout, which lets the call through) is refused.
fn read_regular(path: &Path) -> std::io::Result<String> {
    use std::{io::Read, os::unix::fs::OpenOptionsExt};
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other(
            "not a regular file; a config must be a plain TOML file",
        ));
    }
    let mut text = String::new();
    f.read_to_string(&mut text)?;
    Ok(text)
}

fn candidate_paths(project: Option<&Path>) -> Vec<PathBuf> {
    let mut paths = Vec::with_capacity(2);
    if let Some(dir) = project {
        paths.push(dir.join(".claude").join("pace-hook.toml"));
    }
    paths.extend(user_config_path());
    paths
}

/// `$XDG_CONFIG_HOME/pace-hook/config.toml`, else `~/.config/…`.
fn user_config_path() -> Option<PathBuf> {
    env::var_os("XDG_CONFIG_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| Path::new(&h).join(".config")))
        .map(|dir| dir.join("pace-hook").join("config.toml"))
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
        let site = c.sites().next().unwrap();
        assert_eq!(site.name, "social");
        assert_eq!(
            c.owner_of("m.example.social").map(|s| s.name),
            Some("social")
        );
        assert_eq!(c.owner_of("example.social").map(|s| s.name), Some("social"));
        assert_eq!(c.owner_of("other.social"), None);
        assert_eq!(c.site("social").map(|s| s.interval_ms), Some(Some(30_000)));
        assert_eq!(c.site("soc"), None);
        assert_eq!(site.domains().collect::<Vec<_>>(), vec!["example.social"]);
        assert_eq!(c.policy_for_key("example.social").interval_ms, 30_000);
        assert_eq!(c.policy_for_key("other.com").interval_ms, 10_000);
        let r = c.requests_for_host("www.example.social");
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].site.as_str(), r[0].policy.interval_ms),
            ("example.social", 30_000)
        );
    }

    #[test]
    fn unknown_key_names_file_and_line() {
        let e = parse("interval = \"1s\"\nintervall = \"2s\"\n").unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("config `/x/pace-hook.toml` line 2:"), "{m}");
        assert!(m.contains("intervall"), "{m}");
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

    #[test]
    fn a_preset_fills_in_its_domains_and_never_loosens_the_users_settings() {
        // The default 10 s is stricter than GitHub's second, and holds; the
        // preset adds its budget and its domains.
        let c = parse("[[site]]\nname = \"gh\"\npreset = \"github\"\n").unwrap();
        let site = c.site("gh").unwrap();
        assert_eq!(
            site.domains().collect::<Vec<_>>(),
            ["github.com", "githubusercontent.com"]
        );
        let p = c.policy_for_key("github.com");
        assert_eq!(p.interval_ms, 10_000);
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
        assert_eq!(c.policy_for_key("github.com").interval_ms, 1_000);
        assert_eq!(c.policy_for_key("example.com").interval_ms, 200);
        // The site's own stricter values hold over the preset's.
        let c = parse(
            "interval = \"200ms\"\n[[site]]\nname = \"r\"\npreset = \"reddit\"\ninterval = \"30s\"\nbudget = \"5/1h\"\ndomains = [\"reddit.com\"]\n",
        )
        .unwrap();
        let p = c.policy_for_key("reddit.com");
        assert_eq!(p.interval_ms, 30_000);
        assert_eq!(
            p.budget,
            Some(Budget {
                calls: 5,
                window_ms: 3_600_000
            })
        );
        assert_eq!(
            c.site("r").unwrap().domains().collect::<Vec<_>>(),
            ["reddit.com"]
        );
        // A looser site budget: the preset's 60 a minute holds, and says so.
        let c = parse("[[site]]\nname = \"r\"\npreset = \"reddit\"\ninterval = \"1s\"\nbudget = \"1000/1m\"\n")
            .unwrap();
        assert_eq!(
            c.policy_for_key("reddit.com").budget,
            Some(Budget {
                calls: 60,
                window_ms: 60_000
            })
        );
        let line = crate::preset::describe(&c.presets[0]);
        assert!(
            line.starts_with("site `r` uses preset `reddit`: interval 1 s (yours), budget 60 per 1 min (the preset's; yours: 1000 per 1 min); reddit publishes: clients connecting via OAuth2 may make up to 60 requests per minute"),
            "{line}"
        );
        assert!(line.ends_with("read 2026-12-01"), "{line}");
        // It survives the config cache.
        let text = super::cache::encode(&[1, 2, 3, 4, 5, 6, 7], &c);
        let (_, back) = super::cache::decode(&text, Path::new("/x")).unwrap();
        assert_eq!(back.presets, c.presets);
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
    fn stale_after_must_outlast_max_wait() {
        let e = parse("max_wait = \"20m\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "config `/x/pace-hook.toml` line 1: `stale_after` (15 min) must be longer than `max_wait` (20 min)"
        );
    }
}

/// A parsed copy of each config file, kept in the state directory under the
/// file's identity and change times. With a thousand sites, parsing the TOML
/// costs several times more than the event that needs it; reading the copy
/// back is one small JSON parse. Any change to the file (a write changes its
/// ctime) misses the cache; a bad file is never cached, so its error is
/// reported every time.
pub(crate) mod cache {
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
        crate::site::file_name(&path.to_string_lossy())
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

    const MAGIC: &str = "pace-hook config cache 3";

    /// What the settings line does not hold, as one JSON line.
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Extra {
        budget: Option<crate::decision::Budget>,
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
            c.interval_ms,
            c.hold_ms,
            c.max_wait_ms,
            c.stale_after_ms,
            c.jitter_ms,
            c.max_backoff_ms
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
                sites: text[start..end].to_owned(),
                presets: extra.presets,
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
}
