//! Tool families. A profile knows one family's tool names, sorts each call
//! into skip, block or pace, says which site or tab a paced call touches, and
//! reads which tab is on which site from the family's tool results.
//!
//! Adding a family (Playwright, Chrome DevTools, WebFetch) is adding a profile
//! here; nothing downstream of [`Verdict`] knows which family a call came from.

use serde_json::{Map, Value};

mod chrome;

/// A browser tab id, as text (claude-in-chrome sends numbers or strings).
pub type TabId = String;

/// What a paced call reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A request to this URL's site; the tab (if given) moves there.
    Url {
        /// The URL as given.
        url: String,
        /// The tab that navigates, if known.
        tab: Option<TabId>,
    },
    /// Whatever site this tab is on.
    Tab(TabId),
    /// A script: its tab's site (every known site if the tab is unknown or not
    /// given) and the site of every absolute URL the code names.
    Script {
        /// The tab it runs in.
        tab: Option<TabId>,
        /// URLs found in the code.
        urls: Vec<String>,
    },
    /// The current tab of a browser whose tab the call does not name: every
    /// site the gate knows.
    Unknown,
}

/// How one tool call is treated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Not a tool pace-hook knows: let it through, record nothing.
    NotOurs,
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

/// A tab and the URL it shows, read from a tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabSeen {
    /// The tab.
    pub tab: TabId,
    /// Its URL.
    pub url: String,
}

/// One family of browser tools.
pub(crate) trait Profile: Sync {
    /// The tool's short name if this family owns `tool_name`.
    fn owns<'a>(&self, tool_name: &'a str) -> Option<&'a str>;
    /// Sort a call of tool `tool` (short name) with `input`.
    fn classify(&self, tool: &str, input: &Map<String, Value>) -> Verdict;
    /// Tabs and their URLs that a tool result lists.
    fn tabs_seen(&self, texts: &[String]) -> Vec<TabSeen>;
}

static PROFILES: &[&dyn Profile] = &[&chrome::ClaudeInChrome];

/// The profile that owns `tool_name`, with the tool's short name.
pub(crate) fn find(tool_name: &str) -> Option<(&'static dyn Profile, &str)> {
    PROFILES
        .iter()
        .find_map(|p| p.owns(tool_name).map(|short| (*p, short)))
}

/// Classify a tool call by its full name.
pub fn classify(tool_name: &str, input: &Map<String, Value>) -> Verdict {
    match find(tool_name) {
        Some((profile, short)) => profile.classify(short, input),
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
