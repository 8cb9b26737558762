//! claude-in-chrome: the browser extension's MCP tools, under every server
//! name they ship with (`claude-in-chrome`, `Claude_in_Chrome`,
//! `Claude_Browser`).
//!
//! The lists below are a judgment about which tools make no request to a
//! site. A tool this file does not know is paced, not skipped: a new tool that
//! turns out to be read-only costs a wait, a new tool that fetches and was
//! skipped would cost an account.

use serde_json::{Map, Value};

use super::{Profile, TabSeen, Target, Verdict, tab_id};
use crate::script::{self, Count, Env};

pub(crate) struct ClaudeInChrome;

/// Server names, compared after lowercasing and turning `-` into `_`.
const SERVERS: &[&str] = &["claude_in_chrome", "claude_browser"];

/// Tools that only read what the browser already has, or touch no site.
const READ_ONLY: &[(&str, &str)] = &[
    ("read_page", "reads the page the browser has"),
    ("find", "searches the page the browser has"),
    ("get_page_text", "reads the page the browser has"),
    ("read_console_messages", "reads the console"),
    ("read_network_requests", "reads requests already made"),
    ("tabs_context_mcp", "lists tabs"),
    ("tabs_context", "lists tabs"),
    ("tabs_create_mcp", "opens an empty tab"),
    ("tabs_close_mcp", "closes a tab"),
    ("resize_window", "resizes the window"),
    ("gif_creator", "records the screen"),
    ("switch_browser", "picks a browser"),
    ("list_connected_browsers", "lists browsers"),
    ("select_browser", "picks a browser"),
    ("update_plan", "touches no site"),
];

/// `computer` actions that make no request.
const READ_ONLY_ACTIONS: &[(&str, &str)] = &[
    ("screenshot", "takes a screenshot"),
    ("zoom", "zooms a screenshot"),
    ("wait", "waits"),
];

impl Profile for ClaudeInChrome {
    fn owns<'a>(&self, tool_name: &'a str) -> Option<&'a str> {
        let rest = tool_name.strip_prefix("mcp__")?;
        let (server, tool) = rest.split_once("__")?;
        let server = server.to_ascii_lowercase().replace('-', "_");
        SERVERS.contains(&server.as_str()).then_some(tool)
    }

    fn classify(&self, tool: &str, input: &Map<String, Value>) -> Verdict {
        if let Some((_, why)) = READ_ONLY.iter().find(|(t, _)| *t == tool) {
            return Verdict::Skip { why };
        }
        let tab = tab_id(input.get("tabId"));
        let on_tab = |label: String| Verdict::Pace {
            target: tab.clone().map_or(Target::Unknown, Target::Tab),
            label,
        };
        match tool {
            "computer" => {
                let action = input.get("action").and_then(Value::as_str).unwrap_or("");
                match READ_ONLY_ACTIONS.iter().find(|(a, _)| *a == action) {
                    Some((_, why)) => Verdict::Skip { why },
                    None => on_tab(format!("computer {action}").trim_end().to_owned()),
                }
            }
            "navigate" => {
                let url = input
                    .get("url")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .trim();
                if url.is_empty() || url == "back" || url == "forward" {
                    on_tab(format!("navigate {url}").trim_end().to_owned())
                } else {
                    Verdict::Pace {
                        target: Target::Url {
                            url: url.to_owned(),
                            tab,
                        },
                        label: "navigate".to_owned(),
                    }
                }
            }
            "javascript_tool" => {
                let code = input.get("text").and_then(Value::as_str).unwrap_or("");
                script_verdict(code, tab)
            }
            "browser_batch" => {
                let actions = input.get("actions").and_then(Value::as_array);
                let Some(actions) = actions else {
                    return Verdict::Block {
                        why: "browser_batch has no readable `actions` list".to_owned(),
                        instead: "Send each action as its own tool call".to_owned(),
                    };
                };
                let mut names = Vec::new();
                let mut all_skip = true;
                for a in actions {
                    let name = a.get("name").and_then(Value::as_str).unwrap_or("?");
                    let empty = Map::new();
                    let input = a.get("input").and_then(Value::as_object).unwrap_or(&empty);
                    let short = self.owns(name).unwrap_or(name);
                    let inner = self.classify(short, input);
                    all_skip &= matches!(inner, Verdict::Skip { .. });
                    match input.get("action").and_then(Value::as_str) {
                        Some(action) => names.push(format!("{short} {action}")),
                        None => names.push(short.to_owned()),
                    }
                }
                if all_skip {
                    Verdict::Skip {
                        why: "a batch of reads only",
                    }
                } else {
                    Verdict::Block {
                        why: format!(
                            "browser_batch runs {} actions ({}) in one call, with no gap between the requests they make",
                            names.len(),
                            names.join(", ")
                        ),
                        instead: "Send each action as its own tool call".to_owned(),
                    }
                }
            }
            // form_input, upload_image, file_upload, shortcuts_execute and any
            // tool this profile does not know yet.
            other => on_tab(other.to_owned()),
        }
    }

    fn tabs_seen(&self, texts: &[String]) -> Vec<TabSeen> {
        let mut seen = Vec::new();
        for text in texts {
            if let Some(context) = text.find("Tab Context:").map(|i| &text[i..]) {
                seen.extend(context.lines().filter_map(parse_tab_line));
            }
            if text.trim_start().starts_with('{') && text.contains("availableTabs") {
                seen.extend(parse_tabs_json(text));
            }
        }
        seen
    }
}

/// How `javascript_tool` code is treated: paced when the analysis shows at
/// most one request and nothing it cannot see; blocked otherwise, with what
/// it found. The tab's site is always paced; sites the code names are added,
/// and a URL whose host is built at run time paces against every known site.
fn script_verdict(code: &str, tab: Option<String>) -> Verdict {
    const ONE: &str = "Make one request per javascript_tool call";
    let analysis = match script::analyse(code, Env::Page) {
        Ok(a) => a,
        Err(e) => {
            return Verdict::Block {
                why: format!(
                    "the script does not parse ({} at {}:{})",
                    e.message, e.line, e.column
                ),
                instead: format!("Fix the script; {ONE}"),
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
            instead: format!("{ONE}, written out plainly"),
        };
    }
    if let Count::Many { why } = analysis.count {
        return Verdict::Block {
            why: format!("the script can start more than one request: {why}"),
            instead: format!("{ONE}, with no loop or callback around it"),
        };
    }
    let tab = if analysis.unknown_hosts.is_empty() {
        tab
    } else {
        None
    };
    if analysis.urls.is_empty()
        && let Some(tab) = tab
    {
        return Verdict::Pace {
            target: Target::Tab(tab),
            label: "javascript_tool".to_owned(),
        };
    }
    Verdict::Pace {
        target: Target::Script {
            tab,
            urls: analysis.urls,
        },
        label: "javascript_tool".to_owned(),
    }
}

/// `  • tabId 12: "Title" ("https://x")` → tab 12 on `https://x`. The URL is
/// the last parenthesised group, quoted as JSON in current builds and bare in
/// some older ones.
fn parse_tab_line(line: &str) -> Option<TabSeen> {
    let rest = line.trim().trim_start_matches(['•', '-', '*']).trim();
    let rest = rest.strip_prefix("tabId")?.trim_start();
    let (id, rest) = rest.split_once(':')?;
    let rest = rest.trim_end().strip_suffix(')')?;
    let url = if rest.ends_with('"') {
        let open = rest.rfind("(\"")?;
        serde_json::from_str::<String>(&rest[open + 1..]).ok()?
    } else {
        rest[rest.rfind('(')? + 1..].to_owned()
    };
    let id = id.trim();
    (!id.is_empty()).then(|| TabSeen {
        tab: id.to_owned(),
        url,
    })
}

fn parse_tabs_json(text: &str) -> Vec<TabSeen> {
    let Ok(v) = serde_json::from_str::<Value>(text.trim()) else {
        return Vec::new();
    };
    let Some(tabs) = v.get("availableTabs").and_then(Value::as_array) else {
        return Vec::new();
    };
    tabs.iter()
        .filter_map(|t| {
            Some(TabSeen {
                tab: tab_id(t.get("tabId"))?,
                url: t.get("url")?.as_str()?.to_owned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::profile::classify;

    fn input(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn every_server_name_is_owned() {
        for name in [
            "mcp__claude-in-chrome__navigate",
            "mcp__Claude_in_Chrome__navigate",
            "mcp__Claude_Browser__navigate",
        ] {
            assert_eq!(ClaudeInChrome.owns(name), Some("navigate"), "{name}");
        }
        assert_eq!(
            ClaudeInChrome.owns("mcp__playwright__browser_navigate"),
            None
        );
        assert_eq!(ClaudeInChrome.owns("Bash"), None);
    }

    #[test]
    fn screenshots_and_reads_are_skipped() {
        let v = classify(
            "mcp__claude-in-chrome__computer",
            &input(json!({"action":"screenshot","tabId":1})),
        );
        assert!(matches!(v, Verdict::Skip { .. }));
        for tool in [
            "read_page",
            "find",
            "get_page_text",
            "tabs_context_mcp",
            "read_network_requests",
        ] {
            let v = classify(
                &format!("mcp__claude-in-chrome__{tool}"),
                &input(json!({"tabId":1})),
            );
            assert!(matches!(v, Verdict::Skip { .. }), "{tool}");
        }
    }

    #[test]
    fn a_click_is_paced_on_its_tab() {
        let v = classify(
            "mcp__claude-in-chrome__computer",
            &input(json!({"action":"left_click","tabId":"7"})),
        );
        assert_eq!(
            v,
            Verdict::Pace {
                target: Target::Tab("7".into()),
                label: "computer left_click".into()
            }
        );
    }

    #[test]
    fn navigate_is_paced_on_its_url_and_back_on_its_tab() {
        let v = classify(
            "mcp__claude-in-chrome__navigate",
            &input(json!({"url":"example.com","tabId":1})),
        );
        assert_eq!(
            v,
            Verdict::Pace {
                target: Target::Url {
                    url: "example.com".into(),
                    tab: Some("1".into())
                },
                label: "navigate".into()
            }
        );
        let v = classify(
            "mcp__claude-in-chrome__navigate",
            &input(json!({"url":"back","tabId":1})),
        );
        assert!(matches!(
            v,
            Verdict::Pace {
                target: Target::Tab(_),
                ..
            }
        ));
    }

    #[test]
    fn a_tool_without_a_tab_is_paced_against_every_site() {
        let v = classify(
            "mcp__claude-in-chrome__form_input",
            &input(json!({"ref":"x","value":"y"})),
        );
        assert!(matches!(
            v,
            Verdict::Pace {
                target: Target::Unknown,
                ..
            }
        ));
    }

    #[test]
    fn unknown_tools_of_the_server_are_paced_not_skipped() {
        let v = classify(
            "mcp__claude-in-chrome__brand_new_tool",
            &input(json!({"tabId":3})),
        );
        assert!(matches!(v, Verdict::Pace { .. }));
    }

    #[test]
    fn batch_with_a_click_is_blocked_and_names_its_actions() {
        let v = classify(
            "mcp__claude-in-chrome__browser_batch",
            &input(
                json!({"actions":[{"name":"computer","input":{"action":"left_click","tabId":1}},{"name":"find","input":{"query":"q","tabId":1}}]}),
            ),
        );
        let Verdict::Block { why, .. } = v else {
            panic!("{v:?}")
        };
        assert_eq!(
            why,
            "browser_batch runs 2 actions (computer left_click, find) in one call, with no gap between the requests they make"
        );
    }

    #[test]
    fn batch_of_reads_only_is_skipped() {
        let v = classify(
            "mcp__claude-in-chrome__browser_batch",
            &input(
                json!({"actions":[{"name":"computer","input":{"action":"screenshot","tabId":1}},{"name":"find","input":{"query":"q","tabId":1}}]}),
            ),
        );
        assert!(matches!(v, Verdict::Skip { .. }));
    }

    fn script(text: &str) -> Verdict {
        classify(
            "mcp__claude-in-chrome__javascript_tool",
            &input(json!({"action":"javascript_exec","text":text,"tabId":1})),
        )
    }

    fn block_reason(v: Verdict) -> String {
        match v {
            Verdict::Block { why, .. } => why,
            other => panic!("not blocked: {other:?}"),
        }
    }

    #[test]
    fn script_with_two_fetches_is_blocked_and_one_is_paced() {
        assert_eq!(
            block_reason(script("fetch('/a'); fetch('/b')")),
            "the script can start more than one request: `fetch` at 1:1 and `fetch` at 1:14 both run"
        );
        assert_eq!(
            script("await fetch('/a')"),
            Verdict::Pace {
                target: Target::Tab("1".into()),
                label: "javascript_tool".into()
            }
        );
    }

    #[test]
    fn script_with_one_fetch_in_each_branch_is_paced() {
        assert!(matches!(
            script("if (c) { await fetch('/a') } else { await fetch('/b') }"),
            Verdict::Pace { .. }
        ));
    }

    #[test]
    fn script_with_a_request_in_a_loop_is_blocked_with_the_loop() {
        assert_eq!(
            block_reason(script("for (const u of urls) await fetch(u)")),
            "the script can start more than one request: `fetch` at 1:29 runs inside a `for … of` loop (1:1)"
        );
    }

    #[test]
    fn script_with_code_the_analysis_cannot_see_is_blocked_with_where() {
        assert_eq!(
            block_reason(script("const s = 'x';\neval(s)")),
            "the script runs code pace-hook cannot count requests in: `eval` at 2:1"
        );
    }

    #[test]
    fn script_that_does_not_parse_is_blocked_with_the_error() {
        let why = block_reason(script("await fetch("));
        assert!(why.starts_with("the script does not parse ("), "{why}");
        assert!(why.ends_with(" at 1:13)"), "{why}");
    }

    #[test]
    fn script_with_an_unknown_host_is_paced_against_every_site() {
        assert_eq!(
            script("await fetch(`https://${host}/x`)"),
            Verdict::Pace {
                target: Target::Script {
                    tab: None,
                    urls: vec![]
                },
                label: "javascript_tool".into()
            }
        );
    }

    #[test]
    fn script_fetching_another_site_is_paced_on_both() {
        assert_eq!(
            script("await fetch('https://api.other.com/x')"),
            Verdict::Pace {
                target: Target::Script {
                    tab: Some("1".into()),
                    urls: vec!["https://api.other.com/x".into()]
                },
                label: "javascript_tool".into()
            }
        );
    }

    #[test]
    fn tab_context_lines_give_tabs_and_urls() {
        let text = "\n\nTab Context:\n- Executed on tabId: 1\n- Available tabs:\n  • tabId 1: \"Ex (1)\" (\"https://example.com/a\")\n  • tabId 22: \"B\" (https://b.org/x)".to_owned();
        let seen = ClaudeInChrome.tabs_seen(&[text]);
        assert_eq!(
            seen,
            vec![
                TabSeen {
                    tab: "1".into(),
                    url: "https://example.com/a".into()
                },
                TabSeen {
                    tab: "22".into(),
                    url: "https://b.org/x".into()
                },
            ]
        );
    }

    #[test]
    fn tabs_context_json_gives_tabs() {
        let text = r#"{"availableTabs": [{"tabId": 1, "title": "Example", "url": "https://example.com/a"}], "tabGroupId": 424242}"#.to_owned();
        assert_eq!(
            ClaudeInChrome.tabs_seen(&[text]),
            vec![TabSeen {
                tab: "1".into(),
                url: "https://example.com/a".into()
            }]
        );
    }
}
