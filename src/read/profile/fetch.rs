//! MCP servers that fetch a URL for the agent: the reference `fetch` server
//! (`fetch{url, max_length?, start_index?, raw?}`, one request to its URL,
//! which it also checks against the site's robots.txt first) and the
//! `fetch-mcp` variants (`fetch_html`, `fetch_markdown`, `fetch_txt`,
//! `fetch_json`, each `{url}`). Each call is one request to its URL's site,
//! paced like WebFetch; a call with no readable URL is paced against every
//! known site.
//!
//! Servers of this kind run under many names; a server whose name says
//! `fetch` is read as one (see [`Profile::named_like`]). A tool called
//! `fetch` on a server named otherwise is not claimed here (a git server's
//! `fetch` takes no URL); if it is handed a URL, the rule for tools nobody
//! knows paces it on that URL's site anyway.

use super::{
    Call, Family, Learned, Profile, TabRef, Target, ToolResult, Verdict, mcp_parts, str_at,
};
use crate::names::{Names, names};

pub(crate) struct Fetch;

/// The usual server names, lowercased with `-` as `_`.
const SERVERS: Names = names!["fetch", "mcp_server_fetch", "fetch_mcp"];

/// The tools, each one request to its `url`.
const TOOLS: Names = names![
    "fetch",
    "fetch_html",
    "fetch_markdown",
    "fetch_txt",
    "fetch_json",
];

/// The family as settings name it, for `doctor`: the reference server.
pub(super) const FAMILY: Family = Family {
    name: "MCP fetch server",
    matcher: "mcp__fetch__.*",
    tools: names!["mcp__fetch__fetch"],
};

impl Profile for Fetch {
    fn owns<'a>(&self, tool_name: &'a str) -> Option<&'a str> {
        let (server, tool) = mcp_parts(tool_name)?;
        SERVERS.contains(&server).then_some(tool)
    }

    fn examples(&self) -> &'static [&'static str] {
        &["mcp__fetch__fetch", "mcp__mcp-server-fetch__fetch"]
    }

    fn named_like(&self, server: &str) -> bool {
        server.contains("fetch")
    }

    fn page(&self, _call: &Call<'_>) -> Option<TabRef> {
        None
    }

    fn classify(&self, call: &Call<'_>) -> Option<Verdict> {
        if !TOOLS.contains(call.tool) {
            return None;
        }
        let target = match str_at(call.input, "url") {
            Some(url) => Target::Url {
                url: url.to_owned(),
                tab: None,
            },
            None => Target::Unknown,
        };
        Some(Verdict::Pace {
            target,
            label: call.tool.to_owned(),
        })
    }

    fn learn(&self, _call: &Call<'_>, _outcome: &ToolResult<'_>) -> Learned {
        Learned::default()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::read::profile::tests::classify;

    #[test]
    fn a_fetch_is_one_request_to_its_url_under_any_server_name_that_says_fetch() {
        for name in [
            "mcp__fetch__fetch",
            "mcp__mcp-server-fetch__fetch",
            "mcp__my_fetcher__fetch_markdown",
        ] {
            let v = classify(
                name,
                json!({"url": "https://example.org/a"}).as_object().unwrap(),
                None,
            );
            assert_eq!(
                v,
                Verdict::Pace {
                    target: Target::Url {
                        url: "https://example.org/a".to_owned(),
                        tab: None
                    },
                    label: name.rsplit("__").next().unwrap().to_owned(),
                },
                "{name}"
            );
        }
    }

    #[test]
    fn a_fetch_without_a_url_is_paced_against_every_site() {
        let v = classify("mcp__fetch__fetch", json!({}).as_object().unwrap(), None);
        assert!(
            matches!(
                v,
                Verdict::Pace {
                    target: Target::Unknown,
                    ..
                }
            ),
            "{v:?}"
        );
    }
}
