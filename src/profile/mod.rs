//! Tool families. A profile knows one family's tool names, sorts each call
//! into skip, block or pace, says which site, tab or page a paced call
//! touches, and reads what the family's results say about tabs.
//!
//! Everything that names a tool, an input field or a result format lives in
//! a profile; the hook and the gate speak only of sites, calls and tabs.
//! Adding a family is adding a file here and a line to [`PROFILES`].
//!
//! Tab ids of different browsers never meet: every tab is named by a
//! [`TabRef`] whose browser part says whose id it is (claude-in-chrome's one
//! Chrome, or one session's Playwright browser), so a Playwright tab `1`, a
//! DevTools page `1` and a Chrome tab `1` are three different tabs.

use serde_json::{Map, Value};

mod chrome;

/// A browser tab id, as text (ids come as numbers or strings).
pub type TabId = String;

/// A tab of one browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabRef {
    /// Whose ids these are: the profile, and the session when each session
    /// has a browser of its own (`playwright@<session>`).
    pub browser: String,
    /// The tab's id; `None` for "the browser's current tab".
    pub id: Option<TabId>,
}

impl TabRef {
    /// Tab `id` of `browser`.
    pub fn new(browser: impl Into<String>, id: impl Into<String>) -> Self {
        Self {
            browser: browser.into(),
            id: Some(id.into()),
        }
    }

    /// The current tab of `browser`.
    pub fn current(browser: impl Into<String>) -> Self {
        Self {
            browser: browser.into(),
            id: None,
        }
    }

    /// The tab's key in the tab map, for a tab with an id.
    pub fn key(&self) -> Option<String> {
        self.id.as_ref().map(|id| format!("{}#{id}", self.browser))
    }
}

/// What a paced call reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
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
    /// A call whose site cannot be told: every site the gate knows.
    Unknown,
}

/// How one tool call is treated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Not a web tool: let it through, record nothing.
    NotOurs,
    /// A tool of a server no profile knows and the config does not declare:
    /// let it through, and log it so `status` and `doctor` can say how to
    /// declare it.
    Unknown,
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
pub struct Call<'a> {
    /// The tool's short name within its family (`navigate`).
    pub tool: &'a str,
    /// The tool's input.
    pub input: &'a Map<String, Value>,
    /// The Claude Code session, which scopes per-session browsers.
    pub session: Option<&'a str>,
}

/// A tool's result as a profile sees it.
#[derive(Debug, Clone, Copy)]
pub struct Outcome<'a> {
    /// The text blocks of a successful result, in order.
    pub texts: &'a [String],
    /// The result when it is a JSON object (WebFetch).
    pub object: Option<&'a Value>,
    /// The error text of a failed call.
    pub error: Option<&'a str>,
}

/// Where a tab was seen, from a tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabSeen {
    /// The tab.
    pub tab: TabRef,
    /// Its URL.
    pub url: String,
    /// Said where the tool itself writes (a listing the server appends): it
    /// replaces what the map held. Otherwise (text that page content could
    /// have written) it only adds to it.
    pub sure: bool,
}

/// What a result teaches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Learned {
    /// Tabs and their URLs.
    pub tabs: Vec<TabSeen>,
    /// The tab that is now its browser's current one.
    pub current: Option<TabRef>,
    /// The tab the call ran on, when the result names it: the sites it shows
    /// are where the call's requests went.
    pub executed: Option<TabRef>,
}

/// One family of browser tools.
pub(crate) trait Profile: Sync {
    /// The tool's short name if this family owns `tool_name`.
    fn owns<'a>(&self, tool_name: &'a str) -> Option<&'a str>;
    /// Sort a call.
    fn classify(&self, call: &Call<'_>) -> Verdict;
    /// What a result of `call` says about tabs.
    fn learn(&self, call: &Call<'_>, outcome: &Outcome<'_>) -> Learned;
}

static PROFILES: &[&dyn Profile] = &[&chrome::ClaudeInChrome];

/// The profile that owns `tool_name`, with the tool's short name.
pub(crate) fn find(tool_name: &str) -> Option<(&'static dyn Profile, &str)> {
    PROFILES
        .iter()
        .find_map(|p| p.owns(tool_name).map(|short| (*p, short)))
}

/// Classify a tool call by its full name.
pub fn classify(tool_name: &str, input: &Map<String, Value>, session: Option<&str>) -> Verdict {
    match find(tool_name) {
        Some((profile, tool)) => profile.classify(&Call {
            tool,
            input,
            session,
        }),
        None if tool_name.starts_with("mcp__") => Verdict::Unknown,
        None => Verdict::NotOurs,
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

/// The verdict for a script that will run in `tab` (or in the page a
/// navigation to a `javascript:` URL runs it in): paced when it makes at
/// most one request, blocked otherwise.
pub(crate) fn script_verdict(code: &str, tab: Option<TabRef>, label: &str) -> Verdict {
    let found = crate::js::scan(code);
    let instead = format!("Make one request per {label} call");
    if found.sites.len() >= 2 {
        Verdict::Block {
            why: format!(
                "the script starts {} requests back to back ({})",
                found.sites.len(),
                found.sites.join(", ")
            ),
            instead,
        }
    } else if let (Some(site), Some(repeat)) = (found.sites.first(), found.repeats) {
        Verdict::Block {
            why: format!("the script's request ({site}) may run more than once, inside `{repeat}`"),
            instead: format!("{instead}, with no loop around it"),
        }
    } else {
        Verdict::Pace {
            target: Target::Script {
                tab,
                urls: found.urls,
                any_site: false,
            },
            label: label.to_owned(),
        }
    }
}
