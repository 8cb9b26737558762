//! claude-in-chrome: the browser extension's MCP tools, under every server
//! name they ship with (`claude-in-chrome`, `Claude_in_Chrome`,
//! `Claude_Browser`).
//!
//! The lists below are a judgment about which tools make no request to a
//! site. A tool this file does not know is paced, not skipped: a new tool that
//! turns out to be read-only costs a wait, a new tool that fetches and was
//! skipped would cost an account.

use serde_json::{Map, Value};

use super::{
    Call, Family, Learned, Profile, TabRef, TabSeen, Target, ToolResult, Verdict, mcp_parts,
    navigation, script_verdict, tab_id,
};
use crate::names::{Names, Pairs, names, pairs};

pub(crate) struct ClaudeInChrome;

/// Server names, compared after lowercasing and turning `-` into `_`.
const SERVERS: Names = names!["claude_in_chrome", "claude_browser"];

/// Tab ids are Chrome's own, shared by every session driving the one
/// browser the extension lives in.
const BROWSER: &str = "chrome";

/// The most tab lines read from one result: a listing longer than this is
/// cut, not read whole under the tab map's lock.
const MAX_TAB_LINES: usize = 1_024;

/// Tools that only read what the browser already has, or touch no site.
const READ_ONLY: Pairs = pairs![
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
const READ_ONLY_ACTIONS: Pairs = pairs![
    ("screenshot", "takes a screenshot"),
    ("zoom", "zooms a screenshot"),
    ("wait", "waits"),
];

/// The family as settings name it, for `doctor`: the 20 tools of the extension's server in Claude Code 2.1.332, under its usual name.
pub(super) const FAMILY: Family = Family {
    name: "claude-in-chrome",
    matcher: "mcp__claude-in-chrome__.*",
    tools: names![
        "mcp__claude-in-chrome__navigate",
        "mcp__claude-in-chrome__computer",
        "mcp__claude-in-chrome__javascript_tool",
        "mcp__claude-in-chrome__form_input",
        "mcp__claude-in-chrome__browser_batch",
        "mcp__claude-in-chrome__upload_image",
        "mcp__claude-in-chrome__file_upload",
        "mcp__claude-in-chrome__read_page",
        "mcp__claude-in-chrome__find",
        "mcp__claude-in-chrome__get_page_text",
        "mcp__claude-in-chrome__read_console_messages",
        "mcp__claude-in-chrome__read_network_requests",
        "mcp__claude-in-chrome__tabs_context_mcp",
        "mcp__claude-in-chrome__tabs_create_mcp",
        "mcp__claude-in-chrome__tabs_close_mcp",
        "mcp__claude-in-chrome__resize_window",
        "mcp__claude-in-chrome__gif_creator",
        "mcp__claude-in-chrome__switch_browser",
        "mcp__claude-in-chrome__list_connected_browsers",
        "mcp__claude-in-chrome__select_browser",
    ],
};

impl Profile for ClaudeInChrome {
    fn named_like(&self, server: &str) -> bool {
        server.contains("claude") && (server.contains("chrome") || server.contains("browser"))
    }

    fn has_tool(&self, tool: &str) -> bool {
        // Its own names only: `navigate`, `find` and the like are other
        // servers' too.
        matches!(
            tool,
            "javascript_tool"
                | "browser_batch"
                | "form_input"
                | "read_page"
                | "get_page_text"
                | "tabs_context_mcp"
                | "tabs_create_mcp"
                | "tabs_close_mcp"
                | "read_console_messages"
                | "read_network_requests"
                | "gif_creator"
                | "upload_image"
                | "list_connected_browsers"
        )
    }

    fn owns<'a>(&self, tool_name: &'a str) -> Option<&'a str> {
        let (server, tool) = mcp_parts(tool_name)?;
        SERVERS.contains(&server).then_some(tool)
    }

    fn examples(&self) -> &'static [&'static str] {
        &[
            "mcp__claude-in-chrome__navigate",
            "mcp__Claude_in_Chrome__navigate",
            "mcp__Claude_Browser__navigate",
        ]
    }

    fn page(&self, call: &Call<'_>) -> Option<TabRef> {
        tab_id(call.input.get("tabId")).map(|id| TabRef::new(BROWSER, id))
    }

    fn classify(&self, call: &Call<'_>) -> Option<Verdict> {
        let (tool, input) = (call.tool, call.input);
        if let Some(why) = READ_ONLY.get(tool) {
            return Some(Verdict::Skip { why });
        }
        let tab = self.page(call);
        let on_tab = |label: String| Verdict::Pace {
            target: tab.clone().map_or(Target::Unknown, Target::Tab),
            label,
        };
        Some(match tool {
            "computer" => {
                let action = input.get("action").and_then(Value::as_str).unwrap_or("");
                match READ_ONLY_ACTIONS.get(action) {
                    Some(why) => Verdict::Skip { why },
                    None => on_tab(format!("computer {action}").trim_end().to_owned()),
                }
            }
            "navigate" => {
                let url = input
                    .get("url")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .trim();
                match url {
                    "back" | "forward" => Verdict::Pace {
                        target: tab.map_or(Target::Unknown, Target::History),
                        label: format!("navigate {url}"),
                    },
                    // No URL: the extension refuses it, or reloads; either
                    // way the tab's own site at most.
                    "" => on_tab("navigate".to_owned()),
                    _ => navigation(url, tab, "navigate"),
                }
            }
            "javascript_tool" => {
                let code = input.get("text").and_then(Value::as_str).unwrap_or("");
                script_verdict(code, tab, "javascript_tool")
            }
            "browser_batch" => self.batch(call),
            "form_input" | "upload_image" | "file_upload" | "shortcuts_execute" => {
                on_tab(tool.to_owned())
            }
            // A tool this profile does not know yet: the user's rules, or
            // its tab.
            _ => return None,
        })
    }

    fn learn(&self, call: &Call<'_>, outcome: &ToolResult<'_>) -> Learned {
        let mut learned = Learned::default();
        // The Tab Context is believed only where the extension writes it: a
        // text block of its own at the end of a result. The same words
        // inside page text (get_page_text, a script's result) are the
        // page's, and teach nothing.
        if let Some(last) = outcome.texts.last()
            && let Some(block) = last
                .trim_start_matches(['\n', '\r', ' '])
                .strip_prefix("Tab Context:")
        {
            read_context(block, true, &mut learned);
        }
        // A failure's error is the result's blocks joined by newlines, so
        // the extension's block is its tail. Page text in the error could
        // end the same way when the extension added none: only add.
        if let Some(error) = outcome.error
            && let Some(i) = error.rfind("\n\nTab Context:")
        {
            read_context(&error[i + "\n\nTab Context:".len()..], false, &mut learned);
        }
        if matches!(
            call.tool,
            "tabs_context_mcp" | "tabs_context" | "tabs_create_mcp"
        ) && let Some(first) = outcome.texts.first()
        {
            learned.tabs.extend(parse_tabs_json(first));
        }
        let tab = tab_id(call.input.get("tabId")).map(|id| TabRef::new(BROWSER, id));
        if learned.executed.is_none() {
            learned.executed = tab.clone();
        }
        // A navigation that succeeded is on its URL, whatever else the
        // result says.
        if call.tool == "navigate"
            && outcome.error.is_none()
            && let (Some(tab), Some(url)) = (tab, call.input.get("url").and_then(Value::as_str))
            && !matches!(url.trim(), "" | "back" | "forward")
            && !learned.tabs.iter().any(|t| t.tab == tab && t.sure)
        {
            learned.tabs.push(TabSeen {
                tab,
                url: url.trim().to_owned(),
                sure: true,
            });
        }
        learned
    }
}

impl ClaudeInChrome {
    /// A batch of one paced action is that action; several, with no gap
    /// between them, are blocked; reads only are skipped.
    fn batch(&self, call: &Call<'_>) -> Verdict {
        let Some(actions) = call.input.get("actions").and_then(Value::as_array) else {
            return Verdict::Block {
                why: "browser_batch has no readable `actions` list".to_owned(),
                instead: "Send each action as its own tool call".to_owned(),
            };
        };
        let mut names = Vec::new();
        let mut paced = Vec::new();
        let empty = Map::new();
        for a in actions {
            let name = a.get("name").and_then(Value::as_str).unwrap_or("?");
            let input = a.get("input").and_then(Value::as_object).unwrap_or(&empty);
            let short = self.owns(name).unwrap_or(name);
            let inner = self.classify_or_page(&Call {
                tool: short,
                server: call.server,
                input,
                session: call.session,
            });
            match input.get("action").and_then(Value::as_str) {
                Some(action) => names.push(format!("{short} {action}")),
                None => names.push(short.to_owned()),
            }
            match inner {
                Verdict::Skip { .. } => {}
                Verdict::Block { why, instead } => {
                    return Verdict::Block {
                        why: format!("browser_batch action {} ({short}): {why}", names.len()),
                        instead,
                    };
                }
                other => paced.push(other),
            }
        }
        match paced.len() {
            0 => Verdict::Skip {
                why: "a batch of reads only",
            },
            1 => match paced.pop() {
                Some(Verdict::Pace { target, label }) => Verdict::Pace {
                    target,
                    label: format!("browser_batch {label}"),
                },
                _ => Verdict::Pace {
                    target: Target::Unknown,
                    label: "browser_batch".to_owned(),
                },
            },
            _ => Verdict::Block {
                why: format!(
                    "browser_batch runs {} actions ({}) in one call, with no gap between the requests they make",
                    names.len(),
                    names.join(", ")
                ),
                instead: "Send each action as its own tool call".to_owned(),
            },
        }
    }
}

/// Read a Tab Context block (what follows `Tab Context:`): the executed tab
/// and each listed tab, at most [`MAX_TAB_LINES`] lines.
fn read_context(block: &str, sure: bool, learned: &mut Learned) {
    for line in block.lines().take(MAX_TAB_LINES) {
        let line = line.trim();
        if let Some(id) = line
            .strip_prefix("- Executed on tabId:")
            .map(str::trim)
            .filter(|id| !id.is_empty())
        {
            learned.executed = Some(TabRef::new(BROWSER, id));
        } else if let Some((tab, url)) = parse_tab_line(line) {
            learned.tabs.push(TabSeen {
                tab: TabRef::new(BROWSER, tab),
                url,
                sure,
            });
        }
    }
}

/// `• tabId 12: "Title" ("https://x")` → tab 12 on `https://x`. The title
/// is a JSON string; the URL follows in parentheses, JSON-quoted in current
/// builds and bare in some older ones (where it may hold parentheses of its
/// own: everything up to the line's last `)` is the URL).
fn parse_tab_line(line: &str) -> Option<(String, String)> {
    let rest = line.trim_start_matches(['•', '-', '*']).trim_start();
    let rest = rest.strip_prefix("tabId")?.trim_start();
    let (id, rest) = rest.split_once(':')?;
    let id = id.trim();
    if id.is_empty() || id.contains(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim();
    let after_title = if rest.starts_with('"') {
        let mut de = serde_json::Deserializer::from_str(rest).into_iter::<String>();
        de.next()?.ok()?;
        &rest[de.byte_offset()..]
    } else {
        // An unquoted title: the URL group is the first `(` that opens a
        // scheme or a quote.
        let at = rest.match_indices('(').map(|(i, _)| i).find(|&i| {
            let r = &rest[i + 1..];
            r.starts_with('"') || r.split_once(':').is_some_and(|(s, _)| is_scheme(s))
        })?;
        &rest[at..]
    };
    let inner = after_title.trim().strip_prefix('(')?.strip_suffix(')')?;
    let url = if inner.starts_with('"') {
        serde_json::from_str::<String>(inner).ok()?
    } else {
        inner.to_owned()
    };
    Some((id.to_owned(), url))
}

fn is_scheme(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphabetic())
        && b.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
}

fn parse_tabs_json(text: &str) -> Vec<TabSeen> {
    let Ok(v) = serde_json::from_str::<Value>(text.trim()) else {
        return Vec::new();
    };
    let Some(tabs) = v.get("availableTabs").and_then(Value::as_array) else {
        return Vec::new();
    };
    tabs.iter()
        .take(MAX_TAB_LINES)
        .filter_map(|t| {
            Some(TabSeen {
                tab: TabRef::new(BROWSER, tab_id(t.get("tabId"))?),
                url: t.get("url")?.as_str()?.to_owned(),
                sure: true,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::read::profile::tests::classify;

    #[test]
    fn examples_name_every_server_it_knows() {
        crate::read::profile::tests::assert_examples_cover(&ClaudeInChrome, SERVERS);
    }

    fn input(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn chrome(tool: &str, v: Value) -> Verdict {
        classify(
            &format!("mcp__claude-in-chrome__{tool}"),
            &input(v),
            Some("s"),
        )
    }

    fn tab(id: &str) -> TabRef {
        TabRef::new(BROWSER, id)
    }

    fn learn(tool: &str, input_v: Value, texts: &[&str], error: Option<&str>) -> Learned {
        let texts: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        ClaudeInChrome.learn(
            &Call {
                tool,
                server: "claude-in-chrome",
                input: &input(input_v),
                session: Some("s"),
            },
            &ToolResult {
                texts: &texts,
                object: None,
                error,
            },
        )
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
        let v = chrome("computer", json!({"action":"screenshot","tabId":1}));
        assert!(matches!(v, Verdict::Skip { .. }));
        for tool in [
            "read_page",
            "find",
            "get_page_text",
            "tabs_context_mcp",
            "read_network_requests",
        ] {
            let v = chrome(tool, json!({"tabId":1}));
            assert!(matches!(v, Verdict::Skip { .. }), "{tool}");
        }
    }

    #[test]
    fn a_click_is_paced_on_its_tab() {
        assert_eq!(
            chrome("computer", json!({"action":"left_click","tabId":"7"})),
            Verdict::Pace {
                target: Target::Tab(tab("7")),
                label: "computer left_click".into()
            }
        );
    }

    #[test]
    fn navigate_is_paced_on_its_url_and_back_on_the_tabs_history() {
        assert_eq!(
            chrome("navigate", json!({"url":"example.com","tabId":1})),
            Verdict::Pace {
                target: Target::Url {
                    url: "example.com".into(),
                    tab: Some(tab("1"))
                },
                label: "navigate".into()
            }
        );
        assert_eq!(
            chrome("navigate", json!({"url":"back","tabId":1})),
            Verdict::Pace {
                target: Target::History(tab("1")),
                label: "navigate back".into()
            }
        );
    }

    #[test]
    fn a_javascript_url_is_a_script_on_its_tab() {
        let v = chrome(
            "navigate",
            json!({"url":"javascript:fetch('/a');fetch('/b')","tabId":1}),
        );
        assert!(matches!(v, Verdict::Block { .. }), "{v:?}");
        let v = chrome(
            "navigate",
            json!({"url":"JavaScript:%66etch('/a')","tabId":1}),
        );
        assert!(
            matches!(&v, Verdict::Pace { target: Target::Script { tab: Some(t), .. }, .. } if *t == tab("1")),
            "{v:?}"
        );
    }

    #[test]
    fn a_tool_without_a_tab_is_paced_against_every_site() {
        let v = chrome("form_input", json!({"ref":"x","value":"y"}));
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
        let v = chrome("brand_new_tool", json!({"tabId":3}));
        assert!(matches!(v, Verdict::Pace { .. }));
    }

    #[test]
    fn batch_with_two_paced_actions_is_blocked_and_names_them() {
        let v = chrome(
            "browser_batch",
            json!({"actions":[{"name":"computer","input":{"action":"left_click","tabId":1}},{"name":"form_input","input":{"ref":"q","tabId":1}},{"name":"find","input":{"query":"q","tabId":1}}]}),
        );
        let Verdict::Block { why, .. } = v else {
            panic!("{v:?}")
        };
        assert_eq!(
            why,
            "browser_batch runs 3 actions (computer left_click, form_input, find) in one call, with no gap between the requests they make"
        );
    }

    #[test]
    fn a_batch_of_one_paced_action_is_paced_as_that_action() {
        let v = chrome(
            "browser_batch",
            json!({"actions":[{"name":"computer","input":{"action":"left_click","tabId":1}},{"name":"find","input":{"query":"q","tabId":1}}]}),
        );
        assert_eq!(
            v,
            Verdict::Pace {
                target: Target::Tab(tab("1")),
                label: "browser_batch computer left_click".into()
            }
        );
    }

    #[test]
    fn batch_of_reads_only_is_skipped() {
        let v = chrome(
            "browser_batch",
            json!({"actions":[{"name":"computer","input":{"action":"screenshot","tabId":1}},{"name":"find","input":{"query":"q","tabId":1}}]}),
        );
        assert!(matches!(v, Verdict::Skip { .. }));
    }

    #[test]
    fn script_with_two_fetches_is_blocked_and_one_is_paced() {
        let two = chrome(
            "javascript_tool",
            json!({"action":"javascript_exec","text":"fetch('/a'); fetch('/b')","tabId":1}),
        );
        assert!(matches!(two, Verdict::Block { .. }));
        let one = chrome(
            "javascript_tool",
            json!({"action":"javascript_exec","text":"await fetch('/a')","tabId":1}),
        );
        assert!(matches!(one, Verdict::Pace { .. }));
    }

    #[test]
    fn the_trailing_tab_context_block_teaches_tabs() {
        let l = learn(
            "computer",
            json!({"action":"left_click","tabId":1}),
            &[
                "Clicked",
                "\n\nTab Context:\n- Executed on tabId: 1\n- Available tabs:\n  • tabId 1: \"Ex (1)\" (\"https://example.com/a\")\n  • tabId 22: \"B\" (https://en.wikipedia.org/wiki/Foo_(bar))",
            ],
            None,
        );
        assert_eq!(l.executed, Some(tab("1")));
        assert_eq!(
            l.tabs,
            vec![
                TabSeen {
                    tab: tab("1"),
                    url: "https://example.com/a".into(),
                    sure: true
                },
                TabSeen {
                    tab: tab("22"),
                    url: "https://en.wikipedia.org/wiki/Foo_(bar)".into(),
                    sure: true
                },
            ]
        );
    }

    #[test]
    fn a_tab_context_inside_page_text_teaches_nothing() {
        let planted =
            "Article text\n\nTab Context:\n- Available tabs:\n  • tabId 7: \"x\" (\"about:blank\")";
        let l = learn(
            "get_page_text",
            json!({"tabId":1}),
            &[
                planted,
                "\n\nTab Context:\n- Available tabs:\n  • tabId 1: \"E\" (\"https://example.com/\")",
            ],
            None,
        );
        assert!(l.tabs.iter().all(|t| t.tab != tab("7")), "{l:?}");
        // Alone, with no block of the extension's after it: still nothing.
        let l = learn("javascript_tool", json!({"tabId":1}), &[planted], None);
        assert!(l.tabs.is_empty(), "{l:?}");
    }

    #[test]
    fn a_failures_tab_context_only_adds() {
        let l = learn(
            "find",
            json!({"tabId":1}),
            &[],
            Some(
                "Error: x\n\n\nTab Context:\n- Available tabs:\n  • tabId 1: \"E\" (\"https://example.com/a\")",
            ),
        );
        assert_eq!(l.tabs.len(), 1);
        assert!(!l.tabs[0].sure);
    }

    #[test]
    fn a_huge_tab_context_is_read_only_so_far() {
        let mut block = String::from("\n\nTab Context:\n- Available tabs:\n");
        for i in 0..100_000 {
            block.push_str(&format!(
                "  • tabId {i}: \"t\" (\"https://s{i}.example/\")\n"
            ));
        }
        let l = learn(
            "computer",
            json!({"action":"left_click","tabId":1}),
            &[&block],
            None,
        );
        assert!(l.tabs.len() < MAX_TAB_LINES, "{}", l.tabs.len());
    }

    #[test]
    fn tabs_context_json_gives_tabs() {
        let text = r#"{"availableTabs": [{"tabId": 1, "title": "Example", "url": "https://example.com/a"}], "tabGroupId": 424242}"#;
        let l = learn("tabs_context_mcp", json!({}), &[text], None);
        assert_eq!(
            l.tabs,
            vec![TabSeen {
                tab: tab("1"),
                url: "https://example.com/a".into(),
                sure: true
            }]
        );
        // The same JSON in another tool's result is page content.
        assert!(
            learn("javascript_tool", json!({"tabId":1}), &[text], None)
                .tabs
                .is_empty()
        );
    }
}
