//! The user's own tools: `[[tool]]` rules in the config, for MCP tools no
//! profile lists (a Browserbase or browser-use server, a newer tool of a
//! known server).
//!
//! The first rule whose regex matches the whole tool name decides. A rule
//! never overrides a tool a profile lists: the profile knows the tool's
//! inputs and results, the rule only a name.

use regex_lite::Regex;
use serde_json::{Map, Value};

use super::{TabRef, Target, Verdict, navigation, script_verdict};
use crate::config::{ToolClass, ToolRule};

/// The verdict of the first rule matching `tool_name`, or `None`. `page` is
/// the page the tool's server acts on, when a profile knows the server.
pub(crate) fn decide(
    rules: &[ToolRule],
    tool_name: &str,
    input: &Map<String, Value>,
    page: Option<&TabRef>,
) -> Option<Verdict> {
    let rule = rule_for(rules, tool_name)?;
    let label = tool_name.rsplit("__").next().unwrap_or(tool_name);
    Some(match rule.class {
        ToolClass::Skip => Verdict::Skip {
            why: "declared `skip` by a [[tool]] rule",
        },
        ToolClass::Block => Verdict::Block {
            why: format!(
                "{} (the user's pace-hook config blocks `{}`)",
                rule.reason
                    .as_deref()
                    .map(|r| r.trim().trim_end_matches('.'))
                    .filter(|r| !r.is_empty())
                    .unwrap_or("this tool is not to be used"),
                rule.pattern
            ),
            instead: String::new(),
        },
        ToolClass::Pace => pace(rule, input, page, label),
    })
}

/// The first rule whose pattern matches all of `tool_name`.
pub(crate) fn rule_for<'r>(rules: &'r [ToolRule], tool_name: &str) -> Option<&'r ToolRule> {
    rules.iter().find(|r| {
        // Checked when the config was parsed; a pattern that no longer
        // compiles matches nothing.
        Regex::new(&format!("^(?:{})$", r.pattern)).is_ok_and(|re| re.is_match(tool_name))
    })
}

/// A declared `pace`: the URL at `url` if the input has it, the code at
/// `code` analysed as a page script, else the rule's `site`, else the
/// server's current page, else every known site.
fn pace(
    rule: &ToolRule,
    input: &Map<String, Value>,
    page: Option<&TabRef>,
    label: &str,
) -> Verdict {
    // A pointer that reaches something other than text (an array of
    // scripts, an object) cannot be read as the rule says: blocked, not
    // counted as one request.
    for (field, pointer) in [("code", &rule.code), ("url", &rule.url)] {
        if let Some(p) = pointer.as_deref()
            && let Some(found) = value_at(input, p)
            && !found.is_string()
        {
            let kind = match found {
                Value::Array(_) => "a list",
                Value::Object(_) => "an object",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            };
            return Verdict::Block {
                why: format!(
                    "the [[tool]] rule for `{}` reads its {field} at `{p}`, but this call has {kind} there, which pace-hook cannot read as one {}",
                    rule.pattern,
                    if field == "code" { "script" } else { "URL" }
                ),
                instead: format!(
                    "Pass one {field} as text, or change the rule's `{field}` pointer"
                ),
            };
        }
    }
    let url = rule.url.as_deref().and_then(|p| string_at(input, p));
    if let Some(code) = rule.code.as_deref().and_then(|p| string_at(input, p)) {
        return match (script_verdict(code, page.cloned(), label), url) {
            (
                Verdict::Pace {
                    target:
                        Target::Script {
                            tab,
                            mut urls,
                            any_site,
                        },
                    label,
                },
                Some(url),
            ) => {
                urls.push(url.to_owned());
                Verdict::Pace {
                    target: Target::Script {
                        tab,
                        urls,
                        any_site,
                    },
                    label,
                }
            }
            (verdict, _) => verdict,
        };
    }
    match (url, &rule.site) {
        (Some(url), _) => navigation(url, page.cloned(), label),
        (None, Some(site)) => Verdict::Pace {
            target: Target::Sites {
                urls: vec![site.clone()],
                any_site: false,
            },
            label: label.to_owned(),
        },
        (None, None) => Verdict::Pace {
            target: page.cloned().map_or(Target::Unknown, Target::Tab),
            label: label.to_owned(),
        },
    }
}

/// The value at JSON pointer `pointer` in `input`, if there is one.
fn value_at<'a>(input: &'a Map<String, Value>, pointer: &str) -> Option<&'a Value> {
    let rest = pointer.strip_prefix('/')?;
    let (first, rest) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let key = first.replace("~1", "/").replace("~0", "~");
    input.get(&key)?.pointer(rest)
}

/// The non-blank string at JSON pointer `pointer` in `input`.
fn string_at<'a>(input: &'a Map<String, Value>, pointer: &str) -> Option<&'a str> {
    value_at(input, pointer)?
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::read::profile::tests::input;

    fn rule(pattern: &str, class: ToolClass) -> ToolRule {
        ToolRule {
            pattern: pattern.into(),
            class,
            url: None,
            code: None,
            reason: None,
            site: None,
        }
    }

    fn classify(rules: &[ToolRule], tool: &str, v: Value) -> Verdict {
        crate::read::profile::classify(tool, &input(v), Some("s"), || Ok(rules)).unwrap()
    }

    #[test]
    fn pace_with_a_url_pointer_goes_to_that_url() {
        let mut r = rule("mcp__browserbase__navigate", ToolClass::Pace);
        r.url = Some("/url".into());
        assert_eq!(
            classify(
                &[r],
                "mcp__browserbase__navigate",
                json!({"url": "https://a.example/x"})
            ),
            Verdict::Pace {
                target: Target::Url {
                    url: "https://a.example/x".into(),
                    tab: None
                },
                label: "navigate".into()
            }
        );
    }

    #[test]
    fn a_nested_pointer_is_followed() {
        let mut r = rule("mcp__x__go", ToolClass::Pace);
        r.url = Some("/target/href".into());
        let v = classify(&[r], "mcp__x__go", json!({"target": {"href": "b.example"}}));
        assert!(
            matches!(&v, Verdict::Pace { target: Target::Url { url, .. }, .. } if url == "b.example"),
            "{v:?}"
        );
    }

    #[test]
    fn pace_without_a_url_is_every_known_site_for_an_unknown_server() {
        let mut r = rule("mcp__browserbase__.*", ToolClass::Pace);
        r.url = Some("/url".into());
        assert_eq!(
            classify(&[r], "mcp__browserbase__act", json!({"action": "click"})),
            Verdict::Pace {
                target: Target::Unknown,
                label: "act".into()
            }
        );
    }

    #[test]
    fn pace_without_a_url_on_a_known_server_is_its_page() {
        let mut r = rule("mcp__claude-in-chrome__.*", ToolClass::Pace);
        r.url = Some("/href".into());
        assert_eq!(
            classify(
                &[r],
                "mcp__claude-in-chrome__brand_new",
                json!({"tabId": 4})
            ),
            Verdict::Pace {
                target: Target::Tab(TabRef::new("chrome", "4")),
                label: "brand_new".into()
            }
        );
    }

    #[test]
    fn a_url_on_a_known_server_moves_its_page() {
        let mut r = rule("mcp__claude-in-chrome__go", ToolClass::Pace);
        r.url = Some("/href".into());
        assert_eq!(
            classify(
                &[r],
                "mcp__claude-in-chrome__go",
                json!({"tabId": 4, "href": "https://a.example/"})
            ),
            Verdict::Pace {
                target: Target::Url {
                    url: "https://a.example/".into(),
                    tab: Some(TabRef::new("chrome", "4"))
                },
                label: "go".into()
            }
        );
    }

    #[test]
    fn a_rule_does_not_override_a_listed_tool() {
        let r = rule("mcp__claude-in-chrome__.*", ToolClass::Block);
        let v = classify(
            &[r],
            "mcp__claude-in-chrome__read_page",
            json!({"tabId": 1}),
        );
        assert!(matches!(v, Verdict::Skip { .. }), "{v:?}");
    }

    #[test]
    fn skip_and_block_with_its_reason() {
        let mut block = rule(
            "mcp__browser_use__retry_with_browser_use_agent",
            ToolClass::Block,
        );
        block.reason =
            Some("it hands the job to an agent that makes many requests at once.".into());
        let rules = [rule("mcp__browserbase__observe", ToolClass::Skip), block];
        assert!(matches!(
            classify(&rules, "mcp__browserbase__observe", json!({})),
            Verdict::Skip { .. }
        ));
        assert_eq!(
            classify(&rules, "mcp__browser_use__retry_with_browser_use_agent", json!({})),
            Verdict::Block {
                why: "it hands the job to an agent that makes many requests at once (the user's pace-hook config blocks `mcp__browser_use__retry_with_browser_use_agent`)".into(),
                instead: String::new()
            }
        );
    }

    #[test]
    fn the_first_matching_rule_decides_and_the_match_is_anchored() {
        let rules = [
            rule("mcp__bb__nav", ToolClass::Skip),
            rule("mcp__bb__.*", ToolClass::Block),
        ];
        assert!(matches!(
            classify(&rules, "mcp__bb__nav", json!({})),
            Verdict::Skip { .. }
        ));
        assert!(matches!(
            classify(&rules, "mcp__bb__navigate", json!({})),
            Verdict::Block { .. }
        ));
        // `nav` does not match inside a longer name.
        assert_eq!(
            classify(&[rule("nav", ToolClass::Skip)], "mcp__bb__nav", json!({})),
            Verdict::Unknown
        );
    }

    #[test]
    fn a_pointer_that_reaches_no_text_blocks_instead_of_counting_one_request() {
        let mut r = rule("mcp__bb__run", ToolClass::Pace);
        r.code = Some("/script".into());
        let v = classify(
            &[r],
            "mcp__bb__run",
            json!({"script": ["fetch('/a')", "fetch('/b')"]}),
        );
        let Verdict::Block { why, .. } = v else {
            panic!("blocked: {v:?}")
        };
        assert!(why.contains("has a list there"), "{why}");
        let mut r = rule("mcp__bb__go", ToolClass::Pace);
        r.url = Some("/to".into());
        let v = classify(
            &[r],
            "mcp__bb__go",
            json!({"to": {"href": "https://a.org"}}),
        );
        assert!(matches!(v, Verdict::Block { .. }), "{v:?}");
    }

    #[test]
    fn a_code_pointer_is_analysed_as_a_page_script() {
        let mut r = rule("mcp__bb__run", ToolClass::Pace);
        r.code = Some("/script".into());
        r.url = Some("/url".into());
        let two = classify(
            std::slice::from_ref(&r),
            "mcp__bb__run",
            json!({"script": "fetch('/a'); fetch('/b')"}),
        );
        assert!(matches!(two, Verdict::Block { .. }), "{two:?}");
        let one = classify(
            &[r],
            "mcp__bb__run",
            json!({"script": "fetch('https://api.example/x')", "url": "https://a.example/"}),
        );
        assert_eq!(
            one,
            Verdict::Pace {
                target: Target::Script {
                    tab: None,
                    urls: vec!["https://api.example/x".into(), "https://a.example/".into()],
                    any_site: false
                },
                label: "run".into()
            }
        );
    }
}
