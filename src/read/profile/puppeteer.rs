//! Puppeteer MCP (`@modelcontextprotocol/server-puppeteer`, archived in 2025
//! and still installed): `mcp__puppeteer__puppeteer_*`.
//!
//! The server drives one page of a browser it starts for its session, so
//! every call acts on `puppeteer@<session>#page`. Its answers are a line of
//! its own (`Navigated to <url>`, `Clicked: <selector>`); a successful
//! navigation is on the URL it was given.

use super::{
    Call, Family, Learned, Profile, TabRef, TabSeen, Target, ToolResult, Verdict, mcp_parts,
    navigation, script_verdict, session_browser, str_at,
};
use crate::names::{Names, names};

pub(crate) struct Puppeteer;

/// Server names, compared after lowercasing and turning `-` into `_`.
const SERVERS: Names = names!["puppeteer", "server_puppeteer"];

/// The one page's id.
const PAGE: &str = "page";

/// Tools that act on the page and may make requests.
const PACED: Names = names![
    "puppeteer_click",
    "puppeteer_click_position",
    "puppeteer_fill",
    "puppeteer_select",
    "puppeteer_hover",
    "puppeteer_scroll",
];

/// The family as settings name it, for `doctor`: the server's tools, under its usual name.
pub(super) const FAMILY: Family = Family {
    name: "Puppeteer MCP",
    matcher: "mcp__puppeteer__.*",
    tools: names![
        "mcp__puppeteer__puppeteer_navigate",
        "mcp__puppeteer__puppeteer_click",
        "mcp__puppeteer__puppeteer_fill",
        "mcp__puppeteer__puppeteer_select",
        "mcp__puppeteer__puppeteer_hover",
        "mcp__puppeteer__puppeteer_evaluate",
        "mcp__puppeteer__puppeteer_screenshot",
    ],
};

impl Profile for Puppeteer {
    fn named_like(&self, server: &str) -> bool {
        server.contains("puppeteer")
    }

    fn has_tool(&self, tool: &str) -> bool {
        tool.starts_with("puppeteer_")
    }

    fn owns<'a>(&self, tool_name: &'a str) -> Option<&'a str> {
        let (server, tool) = mcp_parts(tool_name)?;
        SERVERS.contains(&server).then_some(tool)
    }

    fn examples(&self) -> &'static [&'static str] {
        &[
            "mcp__puppeteer__puppeteer_navigate",
            "mcp__server-puppeteer__puppeteer_navigate",
        ]
    }

    fn page(&self, call: &Call<'_>) -> Option<TabRef> {
        Some(TabRef::new(
            session_browser("puppeteer", "puppeteer", call),
            PAGE,
        ))
    }

    fn classify(&self, call: &Call<'_>) -> Option<Verdict> {
        let (tool, input) = (call.tool, call.input);
        let page = self.page(call)?;
        Some(match tool {
            "puppeteer_screenshot" => Verdict::Skip {
                why: "takes a screenshot",
            },
            "puppeteer_navigate" => match str_at(input, "url") {
                Some(url) => navigation(url, Some(page), tool),
                None => Verdict::Pace {
                    target: Target::Tab(page),
                    label: tool.to_owned(),
                },
            },
            "puppeteer_evaluate" => {
                script_verdict(str_at(input, "script").unwrap_or(""), Some(page), tool)
            }
            t if PACED.contains(t) => Verdict::Pace {
                target: Target::Tab(page),
                label: t.to_owned(),
            },
            _ => return None,
        })
    }

    fn learn(&self, call: &Call<'_>, outcome: &ToolResult<'_>) -> Learned {
        let mut learned = Learned::default();
        let Some(page) = self.page(call) else {
            return learned;
        };
        if outcome.error.is_none()
            && call.tool == "puppeteer_navigate"
            && let Some(url) = str_at(call.input, "url")
        {
            learned.tabs.push(TabSeen {
                tab: page.clone(),
                url: url.to_owned(),
                sure: true,
            });
        }
        if !matches!(self.classify(call), Some(Verdict::Skip { .. })) {
            learned.executed = Some(page);
        }
        learned
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::read::profile::tests::{classify, input};

    #[test]
    fn examples_name_every_server_it_knows() {
        crate::read::profile::tests::assert_examples_cover(&Puppeteer, SERVERS);
    }

    fn pp(tool: &str, v: Value) -> Verdict {
        classify(&format!("mcp__puppeteer__{tool}"), &input(v), Some("A"))
    }

    fn page() -> TabRef {
        TabRef::new("puppeteer@A", PAGE)
    }

    #[test]
    fn every_tool_is_classified() {
        assert!(matches!(
            pp("puppeteer_screenshot", json!({"name": "x"})),
            Verdict::Skip { .. }
        ));
        assert_eq!(
            pp("puppeteer_navigate", json!({"url": "https://example.com/"})),
            Verdict::Pace {
                target: Target::Url {
                    url: "https://example.com/".into(),
                    tab: Some(page())
                },
                label: "puppeteer_navigate".into()
            }
        );
        for tool in PACED.iter() {
            assert_eq!(
                pp(tool, json!({"selector": "#go"})),
                Verdict::Pace {
                    target: Target::Tab(page()),
                    label: tool.into()
                }
            );
        }
        let v = pp(
            "puppeteer_evaluate",
            json!({"script": "fetch('/a').then(() => fetch('/b'))"}),
        );
        assert!(matches!(v, Verdict::Block { .. }), "{v:?}");
        assert_eq!(Puppeteer.owns("mcp__playwright__browser_click"), None);
    }

    #[test]
    fn a_navigation_that_succeeded_is_on_its_url() {
        let i = input(json!({"url": "https://example.com/"}));
        let call = |input_v| Call {
            tool: "puppeteer_navigate",
            server: "puppeteer",
            input: input_v,
            session: Some("A"),
        };
        let texts = vec!["Navigated to https://example.com/".to_owned()];
        let l = Puppeteer.learn(
            &call(&i),
            &ToolResult {
                texts: &texts,
                object: None,
                error: None,
            },
        );
        assert_eq!(
            l.tabs,
            vec![TabSeen {
                tab: page(),
                url: "https://example.com/".into(),
                sure: true
            }]
        );
        assert_eq!(l.executed, Some(page()));
        let l = Puppeteer.learn(
            &call(&i),
            &ToolResult {
                texts: &[],
                object: None,
                error: Some("net::ERR_NAME_NOT_RESOLVED"),
            },
        );
        assert!(l.tabs.is_empty());
    }
}
