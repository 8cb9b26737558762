//! Tool families. A profile knows one family's tool names, sorts each call
//! into skip, block or pace, says which site, tab or page a paced call
//! touches, and reads what the family's results say about tabs and HTTP
//! statuses.
//!
//! Everything that names a tool, an input field or a result format lives in
//! a profile; the hook and the gate speak only of sites, calls and tabs.
//! Adding a family is adding a file here and a line to [`PROFILES`].
//!
//! A profile lists the tools it knows. A tool of its server that it does not
//! list (a newer version's) is left open: the user's `[[tool]]` rules may
//! decide it (see [`declared`]), and otherwise it is paced on the page the
//! server acts on. Only such open calls read the config; listed tools, skips
//! above all, are sorted from the event alone.
//!
//! Tab ids of different browsers never meet: every tab is named by a
//! [`TabRef`] whose browser part says whose id it is (claude-in-chrome's one
//! Chrome, or the browser one session's Playwright, DevTools or Puppeteer
//! server drives), so a Playwright tab `1`, a DevTools page `1` and a Chrome
//! tab `1` are three different tabs, and so are two sessions' tab `1`s.
//!
//! Results carry page text beside what the server writes, and a page can
//! imitate the server's lines. A profile believes (`TabSeen::sure`) only
//! what stands where no page text can reach; anything else only adds a site
//! a tab may be on. So a page can make a call wait for a site it is not
//! on, never let a call pass its own site unpaced.

use serde_json::{Map, Value};

use crate::names::{Names, names};
use crate::read::script::{Count, Env};

use crate::{config::ToolRule, error::Result};

mod chrome;
pub(crate) mod declared;
mod devtools;
mod fetch;
mod playwright;
mod puppeteer;
pub(crate) mod shell;
pub(crate) mod webfetch;

/// A URL no parser reads (an IPv6 host never closed): a tab seen on it
/// counts as on a page that cannot be told, so calls on it are paced
/// against every site. For listings a page could have written into
/// ambiguously.
pub(crate) const UNREADABLE_URL: &str = "https://[";

/// A browser tab id, as text (ids come as numbers or strings).
pub(crate) type TabId = String;

/// A tab of one browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TabRef {
    /// Whose ids these are: the profile, and the session when each session
    /// has a browser of its own (`playwright@<session>`).
    pub(crate) browser: String,
    /// The tab's id; `None` for "the browser's current tab".
    pub(crate) id: Option<TabId>,
}

impl TabRef {
    /// Tab `id` of `browser`.
    pub(crate) fn new(browser: impl Into<String>, id: impl Into<String>) -> Self {
        Self {
            browser: browser.into(),
            id: Some(id.into()),
        }
    }

    /// The current tab of `browser`.
    pub(crate) fn current(browser: impl Into<String>) -> Self {
        Self {
            browser: browser.into(),
            id: None,
        }
    }

    /// The tab's key in the tab map, for a tab with an id.
    pub(crate) fn key(&self) -> Option<String> {
        self.id.as_ref().map(|id| format!("{}#{id}", self.browser))
    }
}

/// What a paced call reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A request to this URL's site (the URL as given, scheme optional); the
    /// tab, if any, moves there.
    Url {
        /// The URL as given.
        url: String,
        /// The tab that navigates, if any.
        tab: Option<TabRef>,
    },
    /// Whatever site this tab is on.
    Tab(TabRef),
    /// `back` or `forward`: anywhere the tab has been.
    History(TabRef),
    /// A script: its tab's site (every known site if the tab is unknown or
    /// not given), the site of every absolute URL the code names, and every
    /// known site if it builds a URL whose host cannot be read.
    Script {
        /// The tab it runs in.
        tab: Option<TabRef>,
        /// Absolute URLs found in the code.
        urls: Vec<String>,
        /// The code builds a URL whose host the analysis cannot read.
        any_site: bool,
    },
    /// One request to a site among these URLs' (a shell command whose code
    /// names several), and every known site when `any_site`.
    Sites {
        /// URLs (or hosts) as written; one without a scheme is read as
        /// `https://`.
        urls: Vec<String>,
        /// The site cannot be told: every known site too.
        any_site: bool,
    },
    /// Requests to each of these URLs' sites, one each.
    Urls(Vec<String>),
    /// A call whose site cannot be told: every site the gate knows.
    Unknown,
}

/// How one tool call is treated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Not a web tool: let it through, record nothing.
    NotOurs,
    /// A tool of a server no profile knows and the config does not declare,
    /// handed no URL: let it through, and log it so `status` and `doctor`
    /// can say how to declare it.
    Unknown,
    /// Runs something pace-hook cannot see into (a script run by name from
    /// the shell): let it through, and log what, so `status` shows it.
    Unseen {
        /// What ran, for the log.
        what: String,
    },
    /// A tool nobody knows that was handed absolute URLs: it most likely
    /// fetches them, so it is paced on their sites, and logged like
    /// [`Verdict::Unknown`] so `status` can say how to declare it.
    Handed {
        /// The sites of the URLs it was handed.
        target: Target,
        /// The tool's full name.
        label: String,
    },
    /// Reads what the browser already has: let it through at once, uncounted.
    Skip {
        /// Why, for the log.
        why: &'static str,
    },
    /// Would make several requests with no gap: block it.
    Block {
        /// What the call would do, for the model.
        why: String,
        /// What to do instead, for the model.
        instead: String,
    },
    /// Wait for the site's turn.
    Pace {
        /// What the call reaches.
        target: Target,
        /// A short label for the log, e.g. `navigate` or `computer left_click`.
        label: String,
    },
}

/// A tool call as a profile sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call<'a> {
    /// The tool's short name within its family (`navigate`).
    pub(crate) tool: &'a str,
    /// The MCP server as the tool name spells it (`playwright` in
    /// `mcp__playwright__browser_click`); empty for Claude Code's own tools.
    pub(crate) server: &'a str,
    /// The tool's input.
    pub(crate) input: &'a Map<String, Value>,
    /// The Claude Code session, which scopes per-session browsers.
    pub(crate) session: Option<&'a str>,
}

/// A tool's result as a profile sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolResult<'a> {
    /// The text blocks of a successful result, in order.
    pub(crate) texts: &'a [String],
    /// The result when it is a JSON object (WebFetch).
    pub(crate) object: Option<&'a Value>,
    /// The error text of a failed call.
    pub(crate) error: Option<&'a str>,
}

/// Where a tab was seen, from a tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TabSeen {
    /// The tab.
    pub(crate) tab: TabRef,
    /// Its URL.
    pub(crate) url: String,
    /// Said where the tool itself writes (a listing the server appends): it
    /// replaces what the map held. Otherwise (text that page content could
    /// have written) it only adds to it.
    pub(crate) sure: bool,
}

/// An HTTP status a result reports for a URL. Exposed for backoff (a 429 or
/// 503 with its `Retry-After`); nothing acts on it yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Status {
    /// The URL that answered.
    pub(crate) url: String,
    /// The HTTP status code.
    pub(crate) code: u16,
    /// `Retry-After`, when the result carries it as seconds.
    pub(crate) retry_after_ms: Option<u64>,
}

/// What a result teaches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Learned {
    /// Tabs and their URLs.
    pub(crate) tabs: Vec<TabSeen>,
    /// The tab that is now its browser's current one.
    pub(crate) current: Option<TabRef>,
    /// The tab the call ran on, when the result names it: the sites it shows
    /// are where the call's requests went.
    pub(crate) executed: Option<TabRef>,
    /// HTTP statuses the result reports, where the server itself wrote them.
    pub(crate) statuses: Vec<Status>,
}

/// One family of browser tools.
pub(crate) trait Profile: Sync {
    /// The tool's short name if this family owns `tool_name`.
    fn owns<'a>(&self, tool_name: &'a str) -> Option<&'a str>;
    /// A tool name of this family as Claude Code spells it, one for every
    /// server name the family is known under: what a hook matcher must
    /// select to cover the family (`install` and the doctor check matchers
    /// against these).
    fn examples(&self) -> &'static [&'static str];
    /// Sort a call of a tool this profile lists; `None` for a tool of its
    /// server that it does not list.
    fn classify(&self, call: &Call<'_>) -> Option<Verdict>;
    /// The page a call acts on when nothing more is known of the tool: the
    /// server's current page, or the tab the input names; `None` when the
    /// server has no such page.
    fn page(&self, call: &Call<'_>) -> Option<TabRef>;
    /// What a result of `call` says about tabs and statuses.
    fn learn(&self, call: &Call<'_>, outcome: &ToolResult<'_>) -> Learned;
    /// Whether a server no profile lists is this family's by its name
    /// (lowercased, `-` as `_`): users name servers what they like, and
    /// often after what they run (`mcp__pw__…` is not, `mcp__my_playwright__…` is).
    fn named_like(&self, _server: &str) -> bool {
        false
    }
    /// Whether `tool` (a short name) is one that only this family has, so
    /// that a server no profile lists whose tools are this family's is
    /// read as this family.
    fn has_tool(&self, _tool: &str) -> bool {
        false
    }

    /// Whether the result of `call` says, or cannot rule out, that a
    /// navigation the call started is still loading: the server stopped
    /// waiting for it (a click's page that answers slowly). The site then
    /// stays held, since the next request would cut that load short at the
    /// site, with no gap at all. `duration_ms` is how long the call took.
    fn still_loading(
        &self,
        _call: &Call<'_>,
        _outcome: &ToolResult<'_>,
        _duration_ms: Option<u64>,
    ) -> bool {
        false
    }

    /// Whether a Post of `call` can have anything to record: `false` only
    /// for a call its Pre could not have paced (a shell command that makes
    /// no request), whose Post then touches no state and no config.
    fn post_matters(&self, _call: &Call<'_>) -> bool {
        true
    }

    /// [`Profile::classify`], with an unlisted tool paced on
    /// [`Profile::page`].
    fn classify_or_page(&self, call: &Call<'_>) -> Verdict {
        self.classify(call)
            .unwrap_or_else(|| on_page(self.page(call), call.tool))
    }
}

static PROFILES: &[&dyn Profile] = &[
    &chrome::ClaudeInChrome,
    &playwright::Playwright,
    &devtools::DevTools,
    &puppeteer::Puppeteer,
    &webfetch::WebFetch,
    &shell::Shell,
    &fetch::Fetch,
];

/// Every profile's [`Profile::examples`].
pub(crate) fn examples() -> impl Iterator<Item = &'static str> {
    PROFILES.iter().flat_map(|p| p.examples().iter().copied())
}

/// A family of tools as Claude Code's settings name them: what `doctor`
/// checks a hook's matchers against. The tools are full names under the
/// server's usual name; each profile keeps its own beside its code.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Family {
    /// The family, for messages.
    pub(crate) name: &'static str,
    /// The matcher that covers it alone.
    pub(crate) matcher: &'static str,
    /// Its tools by full name: every one must reach pace-hook.
    pub(crate) tools: Names,
}

/// Every family, in the order of [`PROFILES`].
pub(crate) static FAMILIES: &[Family] = &[
    chrome::FAMILY,
    playwright::FAMILY,
    devtools::FAMILY,
    puppeteer::FAMILY,
    webfetch::FAMILY,
    shell::FAMILY,
    fetch::FAMILY,
];

/// The profile that owns `tool_name`, with the tool's short name: the
/// family whose server name it has, else, for a server no profile lists,
/// the family the server is named after, else the family whose own tool it
/// is. So a known server's tools are never "unknown" under a name of the
/// user's choosing (`mcp__pw__browser_evaluate`).
pub(crate) fn find(tool_name: &str) -> Option<(&'static dyn Profile, &str)> {
    find_owner(tool_name).map(|(p, tool, _)| (p, tool))
}

/// [`find`], and whether the family was found by its own server name
/// (`true`) or only by resemblance.
fn find_owner(tool_name: &str) -> Option<(&'static dyn Profile, &str, bool)> {
    if let Some(found) = PROFILES
        .iter()
        .find_map(|p| p.owns(tool_name).map(|short| (*p, short, true)))
    {
        return Some(found);
    }
    let (server, _) = mcp_parts(tool_name)?;
    let tool = tool_name.strip_prefix("mcp__")?.split_once("__")?.1;
    PROFILES
        .iter()
        .find(|p| p.named_like(&server))
        .or_else(|| PROFILES.iter().find(|p| p.has_tool(tool)))
        .map(|p| (*p, tool, false))
}

/// Classify a tool call by its full name. `rules` gives the user's
/// `[[tool]]` rules; it is called only for an MCP tool no profile lists, so a
/// listed tool is classified without reading the config.
///
/// The rules apply to MCP tools only: every other tool is Claude Code's own,
/// and those that reach sites (`WebFetch`, `Bash`) have a profile. So a
/// broad matcher's `Read` calls pass without touching the config.
pub(crate) fn classify<'r>(
    tool_name: &str,
    input: &Map<String, Value>,
    session: Option<&str>,
    rules: impl FnOnce() -> Result<&'r [ToolRule]>,
) -> Result<Verdict> {
    let (page, fallback) = match find_owner(tool_name) {
        Some((profile, tool, by_server)) => {
            let call = Call {
                tool,
                server: server_of(tool_name),
                input,
                session,
            };
            if let Some(verdict) = profile.classify(&call) {
                // A family read into a server by resemblance may be wrong
                // about a tool of the same name: what would pass as reading
                // the page is paced instead when it was handed a URL.
                if !by_server
                    && matches!(verdict, Verdict::Skip { .. })
                    && !matches!(handed(tool_name, input), Verdict::Unknown)
                {
                    return Ok(handed(tool_name, input));
                }
                return Ok(verdict);
            }
            let page = profile.page(&call);
            (page.clone(), on_page(page, tool))
        }
        None if tool_name.starts_with("mcp__") => (None, handed(tool_name, input)),
        None => return Ok(Verdict::NotOurs),
    };
    Ok(declared::decide(rules()?, tool_name, input, page.as_ref()).unwrap_or(fallback))
}

/// The most input values read for URLs: an input is a handful of fields; a
/// larger one is read this far and counted as unreadable past it.
const MAX_INPUT_VALUES: usize = 1_000;

/// A tool nobody knows: [`Verdict::Handed`] if its input holds URLs,
/// [`Verdict::Unknown`] if it holds none. Read as URLs it would fetch: a
/// value that is an absolute URL (`http`, `https`, `ws`, `wss`, `ftp`, any
/// case, or `//host/…`), and a host or `host/path` under a key that names
/// one (`url`, `href`, `link`, `host`, `domain`, `endpoint`, `targetUrl`,
/// …). Two of those on one site would be two requests with no gap: blocked.
/// A URL inside longer text (a prompt, a message, percent-encoded in a
/// query) may be fetched too: paced on its site, never blocked for sharing
/// one, since text names a site many times. A tool whose name says it
/// crawls or maps a site (`crawl`, `spider`, `sitemap`) handed a URL makes
/// many requests: blocked. An input too large to read whole is paced
/// against every known site.
pub(crate) fn handed(tool_name: &str, input: &Map<String, Value>) -> Verdict {
    let mut urls: Vec<String> = Vec::new();
    let mut in_text: Vec<String> = Vec::new();
    let mut seen = 0usize;
    let mut stack: Vec<(&str, &Value)> = input.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let mut cut = false;
    while let Some((key, v)) = stack.pop() {
        seen += 1;
        if seen > MAX_INPUT_VALUES {
            cut = true;
            break;
        }
        match v {
            Value::String(s) => match handed_url(key, s) {
                Some(url) => urls.push(url),
                None => {
                    if s.contains([':', '%', '/', '&', '\\']) {
                        in_text.extend(crate::read::url::absolute_urls_in(s));
                    }
                }
            },
            Value::Array(a) => stack.extend(a.iter().map(|v| (key, v))),
            Value::Object(o) => stack.extend(o.iter().map(|(k, v)| (k.as_str(), v))),
            _ => {}
        }
    }
    let label = tool_name.to_owned();
    if cut {
        return Verdict::Handed {
            target: Target::Unknown,
            label,
        };
    }
    urls.sort();
    urls.dedup();
    if !(urls.is_empty() && in_text.is_empty())
        && let Some(word) = name_words(tool_name.rsplit("__").next().unwrap_or(tool_name))
            .find(|w| CRAWLS.contains(w.as_str()))
    {
        return Verdict::Block {
            why: format!(
                "`{tool_name}` is a tool pace-hook does not know, its name says it crawls or maps a site (`{word}`), and it was handed a URL: that is many requests with no gap between them"
            ),
            instead: "Fetch the pages one per call with a tool pace-hook paces, or declare what this tool does with a [[tool]] rule in pace-hook's config".to_owned(),
        };
    }
    if let Some(site) = shared_site(&urls) {
        return Verdict::Block {
            why: format!(
                "`{tool_name}` is a tool pace-hook does not know, and it was handed several URLs on {site} at once, which it would most likely fetch with no gap between them"
            ),
            instead: "Hand it one URL per call, or declare what it does with a [[tool]] rule in pace-hook's config".to_owned(),
        };
    }
    if !in_text.is_empty() {
        urls.extend(in_text);
        urls.sort();
        urls.dedup();
        return Verdict::Handed {
            target: Target::Sites {
                urls,
                any_site: false,
            },
            label,
        };
    }
    match url_target(urls) {
        None => Verdict::Unknown,
        Some(target) => Verdict::Handed { target, label },
    }
}

/// Words in a tool's name that say it fetches a whole site, page after
/// page (Firecrawl's and Tavily's `crawl` and `map`, a `spider`).
const CRAWLS: Names = names!["crawl", "crawler", "crawling", "spider", "sitemap", "map"];

/// The lowercase words of a tool's short name: split at `_`, `-`, `.` and
/// where a lowercase letter meets an uppercase one (`firecrawl_crawl` is
/// `firecrawl`, `crawl`; `deepCrawl` is `deep`, `crawl`).
fn name_words(name: &str) -> impl Iterator<Item = String> + '_ {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' || c == '.' {
            words.push(std::mem::take(&mut word));
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    words.push(word);
    words.into_iter().filter(|w| !w.is_empty())
}

/// `value`, under `key`, as a URL a tool would fetch: an absolute URL of a
/// scheme that reaches a server, `//host/…`, or a host or `host/path` under
/// a key that names one. `None` for anything else.
fn handed_url(key: &str, value: &str) -> Option<String> {
    let v = value.trim();
    if v.is_empty() || v.len() > 8_192 || v.contains(char::is_whitespace) {
        return None;
    }
    let head = v.get(..8).unwrap_or(v).to_ascii_lowercase();
    if ["http://", "https://", "ws://", "wss://", "ftp://"]
        .iter()
        .any(|s| head.starts_with(s))
    {
        return Some(v.to_owned());
    }
    if let Some(rest) = v.strip_prefix("//") {
        return Some(format!("https://{rest}"));
    }
    let k = key.to_ascii_lowercase().replace(['_', '-'], "");
    let names_one = [
        "url", "urls", "uri", "uris", "href", "link", "links", "host", "hostname", "domain",
        "website", "endpoint", "site",
    ]
    .iter()
    .any(|n| k.ends_with(n))
        || ["target", "page", "location", "address", "src"].contains(&k.as_str());
    if !names_one || v.contains("://") {
        return None;
    }
    // `a.example/x`, `localhost:3000`: read as the tools that take them do,
    // with `https://` in front; a word with no dot is not a host.
    let host = v.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once(':').map_or(host, |(h, port)| {
        if port.bytes().all(|b| b.is_ascii_digit()) {
            h
        } else {
            host
        }
    });
    (host.contains('.') || host == "localhost")
        .then(|| crate::key::normalize_host(host))
        .flatten()
        .map(|_| format!("https://{v}"))
}

/// A site two of `urls` share: fetched in one call, they would reach it
/// with no gap between them.
fn shared_site(urls: &[String]) -> Option<String> {
    let mut keys: Vec<String> = urls
        .iter()
        .flat_map(|u| crate::read::resolve::hosts_of_url(u))
        .filter(|h| h != crate::read::resolve::ANY_HOST)
        .map(|h| crate::key::registrable(&h))
        .collect();
    keys.sort();
    keys.windows(2).find(|w| w[0] == w[1]).map(|w| w[0].clone())
}

/// The target of requests to `urls` (sorted, without repeats), one each.
fn url_target(mut urls: Vec<String>) -> Option<Target> {
    match urls.len() {
        0 => None,
        1 => Some(Target::Url {
            url: urls.remove(0),
            tab: None,
        }),
        _ => Some(Target::Urls(urls)),
    }
}

/// A built-in fetch of every URL in `urls` (Gemini CLI's `web_fetch`, whose
/// URLs stand in its prompt): paced on each one's site, or blocked when two
/// share a site; paced against every known site when the reader could not
/// read them all (`unreadable`) or found none.
pub(crate) fn fetch_all(mut urls: Vec<String>, unreadable: bool, label: &str) -> Verdict {
    urls.sort();
    urls.dedup();
    if let Some(site) = shared_site(&urls) {
        return Verdict::Block {
            why: format!(
                "`{label}` was asked to fetch several URLs on {site} in one call, which it does with no gap between them"
            ),
            instead: "Fetch one URL of a site per call".to_owned(),
        };
    }
    let target = if unreadable {
        Target::Unknown
    } else {
        url_target(urls).unwrap_or(Target::Unknown)
    };
    Verdict::Pace {
        target,
        label: label.to_owned(),
    }
}

/// A call paced on `page`, or on every known site when there is none.
fn on_page(page: Option<TabRef>, label: &str) -> Verdict {
    Verdict::Pace {
        target: page.map_or(Target::Unknown, Target::Tab),
        label: label.to_owned(),
    }
}

/// The server part of an MCP tool name (`mcp__<server>__<tool>`), lowercased
/// with `-` as `_`, and the tool's short name.
pub(crate) fn mcp_parts(tool_name: &str) -> Option<(String, &str)> {
    let rest = tool_name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    Some((server.to_ascii_lowercase().replace('-', "_"), tool))
}

/// The server part of an MCP tool name as spelt; empty for other tools.
pub(crate) fn server_of(tool_name: &str) -> &str {
    tool_name
        .strip_prefix("mcp__")
        .and_then(|r| r.split_once("__"))
        .map_or("", |(server, _)| server)
}

/// The name of the browser a per-session server drives: each Claude Code
/// session starts its own MCP servers, each with a browser of its own. The
/// usual server name gives `<profile>@<session>`; another (the same server
/// installed as a plugin too) gives `<profile>.<server>@<session>`, so two
/// servers' tab numbers never meet. `usual` is compared after lowercasing
/// and turning `-` into `_`.
pub(crate) fn session_browser(profile: &str, usual: &str, call: &Call<'_>) -> String {
    let server = call.server.to_ascii_lowercase().replace('-', "_");
    let session = call.session.unwrap_or("-");
    if server.is_empty() || server == usual {
        format!("{profile}@{session}")
    } else {
        format!("{profile}.{server}@{session}")
    }
}

/// A non-blank string in `input` at `key`, trimmed.
pub(crate) fn str_at<'a>(input: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    input
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The strings of the array in `input` at `key`; `None` when it is missing
/// or holds anything but strings.
pub(crate) fn strings_at(input: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    input
        .get(key)?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// A navigation to `url` (moving `tab` if given), or the script a
/// `javascript:` URL runs.
///
/// A `data:` document makes no request by itself; what its markup loads
/// and its scripts fetch does, read as the page would load it: more than
/// one request, or code pace-hook cannot see into, blocks; else the call is
/// paced as one, on every site the document names.
pub(crate) fn navigation(url: &str, tab: Option<TabRef>, label: &str) -> Verdict {
    if let Some(code) = crate::read::site::script_of_url(url) {
        // What the code gives, if a string, becomes the tab's document
        // (`javascript:'<img src=a>'`): markup in its text counts too.
        if code.contains('<') {
            let document =
                crate::read::script::analyse_document(&code, "the `javascript:` URL", false);
            let code_requests = || {
                crate::read::script::analyse(&code, Env::Page)
                    .map_or(true, |a| a.count != Count::Zero)
            };
            let twice = match document.count {
                Count::Zero => false,
                Count::One => !document.opaque.is_empty() || code_requests(),
                Count::Many { .. } => true,
            };
            if let Some(first) = document.requests.first().filter(|_| twice) {
                return Verdict::Block {
                    why: format!(
                        "the `javascript:` URL this {label} runs may give markup that loads ({}) besides what its code does",
                        first.what
                    ),
                    instead: format!("Make one request per {label} call, written out plainly"),
                };
            }
        }
        return script_verdict(&code, tab, label);
    }
    if let Some(why) = document_blocks(url, label) {
        return Verdict::Block {
            why,
            instead: format!(
                "Navigate to a document that loads at most one thing, or load each resource in its own {label} call"
            ),
        };
    }
    Verdict::Pace {
        target: Target::Url {
            url: url.to_owned(),
            tab,
        },
        label: label.to_owned(),
    }
}

/// The analysis of the markup document a `data:` URL carries; `None` for
/// any other URL, or a `data:` body that is not markup (text, an image),
/// which loads nothing. A body that does not decode is left to the URL's
/// reach, which paces it on every known site.
pub(crate) fn data_document(url: &str) -> Option<crate::read::script::Analysis> {
    let (mime, body) = crate::read::url::data_document(url)??;
    if !crate::read::script::is_markup(&mime) {
        return None;
    }
    Some(crate::read::script::analyse_document(
        &body,
        "the document",
        true,
    ))
}

/// Why navigating to `url` makes more than one request, or runs code
/// pace-hook cannot see into: for a `data:` document only.
fn document_blocks(url: &str, label: &str) -> Option<String> {
    let analysis = data_document(url)?;
    if !analysis.opaque.is_empty() {
        let places: Vec<&str> = analysis.opaque.iter().map(|f| f.what.as_str()).collect();
        return Some(format!(
            "the `data:` document this {label} opens runs code pace-hook cannot count requests in: {}",
            places.join("; ")
        ));
    }
    match analysis.count {
        Count::Many { why } => Some(format!(
            "the `data:` document this {label} opens can start more than one request: {why}"
        )),
        _ => None,
    }
}

/// A tab id from a JSON value that may be a number or a string.
pub(crate) fn tab_id(v: Option<&Value>) -> Option<TabId> {
    match v? {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        _ => None,
    }
}

/// The verdict for a script that will run in a page (`tab`, or the page a
/// navigation to a `javascript:` URL runs it in): paced when the analysis
/// shows it makes at most one request and runs nothing it cannot see;
/// blocked otherwise, saying what was found where. Paced on the tab's site
/// and every site the code names; a URL whose host is built at run time
/// paces it against every known site.
pub(crate) fn script_verdict(code: &str, tab: Option<TabRef>, label: &str) -> Verdict {
    verdict_of(crate::read::script::analyse(code, Env::Page), tab, label)
}

/// The verdict for Playwright code that runs in the MCP server's Node
/// process, handed a `page` (`browser_run_code_unsafe`): its own requests
/// (`page.goto`, `page.request.get`, actions that may navigate, a
/// `page.evaluate` whose function fetches) count beside Node's `fetch`.
pub(crate) fn script_verdict_server(code: &str, tab: Option<TabRef>, label: &str) -> Verdict {
    verdict_of(
        crate::read::script::analyse(code, Env::PlaywrightServer),
        tab,
        label,
    )
}

fn verdict_of(
    analysis: Result<crate::read::script::Analysis, crate::read::script::ParseFailure>,
    tab: Option<TabRef>,
    label: &str,
) -> Verdict {
    let one = format!("Make one request per {label} call");
    let analysis = match analysis {
        Ok(a) => a,
        Err(e) => {
            return Verdict::Block {
                why: format!(
                    "the script does not parse ({} at {}:{})",
                    e.message, e.line, e.column
                ),
                instead: format!("Fix the script; {one}"),
            };
        }
    };
    if !analysis.opaque.is_empty() {
        let places: Vec<String> = analysis
            .opaque
            .iter()
            .map(|f| format!("{} at {}:{}", f.what, f.line, f.column))
            .collect();
        return Verdict::Block {
            why: format!(
                "the script runs code pace-hook cannot count requests in: {}",
                places.join("; ")
            ),
            instead: format!("{one}, written out plainly"),
        };
    }
    if let Count::Many { why } = analysis.count {
        return Verdict::Block {
            why: format!("the script can start more than one request: {why}"),
            instead: format!("{one}, with no loop or callback around it"),
        };
    }
    Verdict::Pace {
        target: Target::Script {
            tab,
            urls: analysis.urls,
            any_site: !analysis.unknown_hosts.is_empty(),
        },
        label: label.to_owned(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn known_families_under_server_names_of_the_users_choosing_are_never_unknown() {
        let url = "https://shop.example.com/a";
        for name in [
            "mcp__playwright-mcp__browser_navigate",
            "mcp__pw__browser_navigate",
            "mcp__devtools__navigate_page",
            "mcp__my-browser__navigate_page",
            "mcp__puppeteer-mcp__puppeteer_navigate",
        ] {
            let v = classify(name, &input(json!({"url": url})), Some("s"));
            let Verdict::Pace {
                target: Target::Url { url: got, .. },
                ..
            } = &v
            else {
                panic!("{name}: {v:?}")
            };
            assert_eq!(got, url, "{name}");
        }
        // Two fetches in one evaluate, under a name nobody lists: blocked.
        let v = classify(
            "mcp__pw__browser_evaluate",
            &input(json!({"function": "async () => { await fetch('/a'); await fetch('/b') }"})),
            Some("s"),
        );
        assert!(matches!(v, Verdict::Block { .. }), "{v:?}");
        // A click is paced on the page of that server's own browser.
        let v = classify(
            "mcp__microsoft-playwright__browser_click",
            &input(json!({"target": "e5"})),
            Some("s"),
        );
        let Verdict::Pace {
            target: Target::Tab(tab),
            ..
        } = &v
        else {
            panic!("{v:?}")
        };
        assert_eq!(tab.browser, "playwright.microsoft_playwright@s");
        // A DevTools tool of a server named after it.
        let v = classify(
            "mcp__devtools__click",
            &input(json!({"uid": "1_2"})),
            Some("s"),
        );
        assert!(matches!(v, Verdict::Pace { .. }), "{v:?}");
        // claude-in-chrome's batch is read as a batch, not as a Playwright tool.
        let (p, _) = find("mcp__chrome_ext__browser_batch").expect("a family");
        assert_eq!(p.examples()[0], "mcp__claude-in-chrome__navigate");
    }

    #[test]
    fn a_tool_nobody_knows_is_paced_on_the_urls_it_is_handed() {
        let v = classify(
            "mcp__browserbase__navigate",
            &input(json!({"url": "https://news.example.org/x"})),
            None,
        );
        assert_eq!(
            v,
            Verdict::Handed {
                target: Target::Url {
                    url: "https://news.example.org/x".to_owned(),
                    tab: None
                },
                label: "mcp__browserbase__navigate".to_owned(),
            }
        );
        // URLs anywhere in the input, any case of scheme.
        let v = classify(
            "mcp__scraper__scrape_many",
            &input(
                json!({"jobs": [{"target": "HTTPS://a.example.org/"}, {"target": "https://b.example.net/"}]}),
            ),
            None,
        );
        assert!(
            matches!(&v, Verdict::Handed { target: Target::Urls(u), .. } if u.len() == 2),
            "{v:?}"
        );
        // Two on one site would go with no gap between them.
        let v = classify(
            "mcp__firecrawl__firecrawl_batch_scrape",
            &input(json!({"urls": ["https://a.example.org/1", "https://www.example.org/2"]})),
            None,
        );
        let Verdict::Block { why, .. } = &v else {
            panic!("{v:?}")
        };
        assert!(why.contains("several URLs on example.org at once"), "{why}");
        // A server with no URL in its input (an issue tracker's) still passes.
        let v = classify(
            "mcp__github__create_issue",
            &input(json!({"title": "x", "body": "see the docs"})),
            None,
        );
        assert_eq!(v, Verdict::Unknown);
    }

    #[test]
    fn a_tool_nobody_knows_reads_urls_as_such_tools_take_them() {
        let sites = |tool: &str, v: Value| match classify(tool, &input(v), None) {
            Verdict::Handed { target, .. } => match target {
                Target::Url { url, .. } => vec![url],
                Target::Urls(u) => u,
                Target::Sites { urls, any_site } => {
                    assert!(!any_site);
                    urls
                }
                t => panic!("{t:?}"),
            },
            v => panic!("{tool}: {v:?}"),
        };
        // A host under a key that names one, `//host`, other schemes; in
        // text, percent-encoded too.
        for (tool, v, want) in [
            (
                "mcp__x__go",
                json!({"target": "a.example/x"}),
                "https://a.example/x",
            ),
            (
                "mcp__x__go",
                json!({"link": "//a.example/x"}),
                "https://a.example/x",
            ),
            (
                "mcp__x__go",
                json!({"pageUrl": "localhost:3000/x"}),
                "https://localhost:3000/x",
            ),
            (
                "mcp__x__go",
                json!({"host": "A.example", "path": "/x"}),
                "https://A.example",
            ),
            (
                "mcp__x__ws",
                json!({"u": "wss://a.example/s"}),
                "wss://a.example/s",
            ),
            (
                "mcp__x__get",
                json!({"u": "FTP://a.example/f"}),
                "FTP://a.example/f",
            ),
            (
                "mcp__x__ask",
                json!({"prompt": "summarise https://a.example/x please"}),
                "https://a.example",
            ),
            (
                "mcp__x__go",
                json!({"q": "https%3A%2F%2Fa.example%2Fx"}),
                "https://a.example",
            ),
        ] {
            assert_eq!(sites(tool, v), [want]);
        }
        // Text naming one site twice is paced, not blocked: a message with
        // two links to one site fetches neither twice.
        let v = classify(
            "mcp__slack__post_message",
            &input(json!({"text": "see https://docs.example/a and https://docs.example/b"})),
            None,
        );
        assert!(matches!(v, Verdict::Handed { .. }), "{v:?}");
        // A word with no dot, under a URL-ish key, is not a host; a key that
        // names none holds none.
        for v in [json!({"target": "submit"}), json!({"title": "a.example"})] {
            assert_eq!(
                classify("mcp__x__go", &input(v.clone()), None),
                Verdict::Unknown,
                "{v}"
            );
        }
    }

    #[test]
    fn a_tool_nobody_knows_that_crawls_by_its_name_is_blocked() {
        for (tool, v) in [
            (
                "mcp__firecrawl__firecrawl_crawl",
                json!({"url": "https://a.example/", "limit": 50}),
            ),
            (
                "mcp__tavily__tavily_map",
                json!({"url": "https://a.example/"}),
            ),
            ("mcp__exa__crawling", json!({"url": "a.example/x"})),
            ("mcp__x__deepCrawl", json!({"start": "https://a.example/"})),
            ("mcp__x__site-spider", json!({"url": "https://a.example/"})),
        ] {
            let v = classify(tool, &input(v), None);
            let Verdict::Block { why, .. } = &v else {
                panic!("{tool}: {v:?}")
            };
            assert!(why.contains("crawls or maps a site"), "{why}");
        }
        // The word inside another (Firecrawl's own name) is not the word.
        let v = classify(
            "mcp__firecrawl__firecrawl_scrape",
            &input(json!({"url": "https://a.example/"})),
            None,
        );
        assert!(matches!(v, Verdict::Handed { .. }), "{v:?}");
        // Handed no URL, a crawler's status check passes, logged.
        let v = classify(
            "mcp__firecrawl__firecrawl_check_crawl_status",
            &input(json!({"id": "j1"})),
            None,
        );
        assert_eq!(v, Verdict::Unknown);
    }

    #[test]
    fn a_read_only_name_read_into_a_stranger_does_not_pass_a_url_unpaced() {
        // DevTools' `take_snapshot` reads the page; a stranger's tool of that
        // name handed a URL most likely fetches it.
        let v = classify(
            "mcp__sitegrab__take_snapshot",
            &input(json!({"url": "https://example.org/"})),
            None,
        );
        assert!(matches!(v, Verdict::Handed { .. }), "{v:?}");
        let v = classify("mcp__sitegrab__take_snapshot", &input(json!({})), None);
        assert!(matches!(v, Verdict::Skip { .. }), "{v:?}");
    }

    /// [`super::classify`] with no `[[tool]]` rules.
    /// Issue 17: every tool the pinned server versions list, from their own
    /// `tools/list` (captured by `scripts/e2e` into `tests/fixtures/tools/`,
    /// with every option that adds tools), is classified by its profile,
    /// not left to the fallback for tools a profile does not list yet; and
    /// a tool the server marks read-only is skipped, not paced.
    #[test]
    fn every_tool_of_the_pinned_server_versions_is_classified() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tools");
        let mut servers = Vec::new();
        let mut problems = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let fixture: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let server = match fixture["server"].as_str().unwrap() {
                "@playwright/mcp" => "playwright",
                "chrome-devtools-mcp" => "chrome-devtools",
                other => panic!("{}: no profile for server {other}", path.display()),
            };
            servers.push(format!("{server} {}", fixture["version"]));
            for tool in fixture["tools"].as_array().unwrap() {
                let name = tool["name"].as_str().unwrap();
                let full = format!("mcp__{server}__{name}");
                let (profile, short) = find(&full).unwrap_or_else(|| panic!("{full}: no profile"));
                let empty = Map::new();
                let call = Call {
                    tool: short,
                    server,
                    input: &empty,
                    session: Some("s"),
                };
                match profile.classify(&call) {
                    None => problems.push(format!("{full}: not classified")),
                    Some(Verdict::Skip { .. }) => {}
                    Some(v) if tool["readOnlyHint"] == true => problems.push(format!(
                        "{full}: the server marks it read-only, the profile says {v:?}"
                    )),
                    Some(_) => {}
                }
            }
        }
        servers.sort();
        assert_eq!(
            servers,
            ["chrome-devtools \"1.11.0\"", "playwright \"0.0.83\""]
        );
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    pub(crate) fn classify(
        tool_name: &str,
        input: &Map<String, Value>,
        session: Option<&str>,
    ) -> Verdict {
        super::classify(tool_name, input, session, || Ok(&[])).unwrap()
    }

    pub(crate) fn input(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    /// `profile`'s examples are its own tools and name every server in
    /// `servers` (its list, compared as [`mcp_parts`] compares).
    pub(crate) fn assert_examples_cover(profile: &dyn Profile, servers: Names) {
        for example in profile.examples() {
            let (owner, _) = find(example).unwrap_or_else(|| panic!("no profile owns {example}"));
            assert!(
                std::ptr::addr_eq(owner, profile),
                "{example} is another profile's"
            );
        }
        for server in servers.iter() {
            assert!(
                profile
                    .examples()
                    .iter()
                    .any(|e| mcp_parts(e).is_some_and(|(s, _)| s == *server)),
                "no example for server {server}"
            );
        }
    }

    #[test]
    fn webfetchs_examples_are_its_two_tools() {
        assert_examples_cover(&webfetch::WebFetch, names![]);
        assert_eq!(webfetch::WebFetch.examples(), ["WebFetch", "WebSearch"]);
    }

    #[test]
    fn every_family_names_tools_its_own_profile_owns() {
        assert_eq!(FAMILIES.len(), PROFILES.len());
        for (family, profile) in FAMILIES.iter().zip(PROFILES) {
            for tool in family.tools.iter() {
                assert!(profile.owns(tool).is_some(), "{}: {tool}", family.name);
                assert!(
                    crate::read::matcher::matcher_matches(family.matcher, tool),
                    "{}: {tool}",
                    family.name
                );
            }
        }
    }

    #[test]
    fn listed_tools_never_read_the_rules() {
        let v = super::classify(
            "mcp__claude-in-chrome__read_page",
            &Map::new(),
            Some("s"),
            || panic!("the rules were read"),
        )
        .unwrap();
        assert!(matches!(v, Verdict::Skip { .. }));
        let input = serde_json::json!({"command": "curl https://a.example/"});
        let v = super::classify("Bash", input.as_object().unwrap(), Some("s"), || {
            panic!("the rules were read")
        })
        .unwrap();
        assert!(matches!(v, Verdict::Pace { .. }), "{v:?}");
        let v = super::classify("Read", &Map::new(), Some("s"), || {
            panic!("the rules were read")
        })
        .unwrap();
        assert_eq!(v, Verdict::NotOurs);
    }

    #[test]
    fn a_tool_of_an_unknown_server_is_unknown_and_not_ours_outside_mcp() {
        assert_eq!(
            classify("mcp__github__create_issue", &Map::new(), Some("s")),
            Verdict::Unknown
        );
        assert_eq!(classify("Read", &Map::new(), Some("s")), Verdict::NotOurs);
    }

    #[test]
    fn an_unlisted_tool_of_a_known_server_is_paced_on_its_page() {
        let input = serde_json::json!({"tabId": 3});
        assert_eq!(
            classify(
                "mcp__claude-in-chrome__brand_new",
                input.as_object().unwrap(),
                Some("s")
            ),
            Verdict::Pace {
                target: Target::Tab(TabRef::new("chrome", "3")),
                label: "brand_new".into()
            }
        );
    }

    #[test]
    fn a_config_that_cannot_be_read_fails_an_open_call_only() {
        let err = || {
            Err(crate::error::Error::Panic {
                message: "x".into(),
            })
        };
        assert!(super::classify("mcp__x__y", &Map::new(), None, err).is_err());
        assert!(super::classify("mcp__claude-in-chrome__computer", &Map::new(), None, err).is_ok());
    }

    #[test]
    fn server_code_counts_playwright_navigations_as_requests() {
        let two = script_verdict_server(
            "async (page) => { await page.goto('https://a.example/');\n  await page.goto('https://b.example/'); }",
            None,
            "browser_run_code_unsafe",
        );
        let Verdict::Block { why, .. } = two else {
            panic!("{two:?}")
        };
        assert_eq!(
            why,
            "the script can start more than one request: `page.goto` at 1:25 and `page.goto` at 2:9 both run"
        );
        let api = script_verdict_server(
            "async (page) => { const r = await page.request.get('https://api.example/x'); await fetch('https://api.example/y') }",
            None,
            "browser_run_code_unsafe",
        );
        assert!(matches!(api, Verdict::Block { .. }), "{api:?}");
        let looped = script_verdict_server(
            "async (page) => { for (const u of urls) await page.goto(u) }",
            None,
            "x",
        );
        assert!(matches!(looped, Verdict::Block { .. }), "{looped:?}");
        let one = script_verdict_server(
            "async (page) => { await page.goto('https://a.example/'); return page.title() }",
            None,
            "x",
        );
        assert_eq!(
            one,
            Verdict::Pace {
                target: Target::Script {
                    tab: None,
                    urls: vec!["https://a.example/".into()],
                    any_site: false
                },
                label: "x".into()
            }
        );
    }

    #[test]
    fn page_code_does_not_count_a_method_named_goto() {
        // In a page, `router.goto(` is the page's own function, one
        // possible request; only the server environment knows `page.goto`.
        let v = script_verdict("router.goto('/a')", None, "x");
        assert!(matches!(v, Verdict::Pace { .. }), "{v:?}");
    }
}
