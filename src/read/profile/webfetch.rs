//! Claude Code's built-in web tools. `WebFetch` (`{url, prompt, offset?}`)
//! makes one request to its URL: it follows no redirect (it reports one
//! instead), so it reaches one site, and is paced like a navigation.
//! `WebSearch` asks Anthropic's search, not the sites: skipped.
//!
//! Other agents' built-in fetches and searches are read into these names by
//! their clients' readers (`hook::client`): a fetch of one URL as `WebFetch`,
//! a search as `WebSearch`, and a fetch of several URLs as [`URLS_TOOL`].
//!
//! WebFetch accepts any status, so a 429 or 503 arrives as a successful
//! PostToolUse whose `tool_response` is an object `{bytes, code, codeText,
//! result, durationMs, url}`; `result` then starts with the status line and
//! the `Retry-After` header when the site sent one.

use serde_json::Value;

use super::{Call, Family, Learned, Profile, Status, TabRef, Target, ToolResult, Verdict, str_at};
use crate::names::names;

pub(crate) struct WebFetch;

/// The name a client's reader gives a built-in fetch of several URLs
/// (Gemini CLI's `web_fetch`, Cline's `fetch_web_content`), with the input
/// `{"urls": [..], "unreadable": bool, "label": ".."}`: no client's tool
/// names hold a space, so no real tool is ever read as this one.
pub(crate) const URLS_TOOL: &str = "pace-hook urls";

/// The most lines of `result` read for `Retry-After`: WebFetch writes the
/// status line and the headers it keeps first, and the body after them.
const HEADER_LINES: usize = 8;

/// The family as settings name it, for `doctor`: WebFetch only: WebSearch reaches no site pace-hook paces.
pub(super) const FAMILY: Family = Family {
    name: "WebFetch",
    matcher: "WebFetch",
    tools: names!["WebFetch"],
};

impl Profile for WebFetch {
    fn owns<'a>(&self, tool_name: &'a str) -> Option<&'a str> {
        matches!(tool_name, "WebFetch" | "WebSearch" | URLS_TOOL).then_some(tool_name)
    }

    fn examples(&self) -> &'static [&'static str] {
        &["WebFetch", "WebSearch"]
    }

    fn classify(&self, call: &Call<'_>) -> Option<Verdict> {
        Some(match call.tool {
            "WebSearch" => Verdict::Skip {
                why: "searches through the agent's provider, not the sites",
            },
            URLS_TOOL => {
                let urls = super::strings_at(call.input, "urls");
                let unreadable =
                    urls.is_none() || call.input.get("unreadable") != Some(&Value::Bool(false));
                super::fetch_all(
                    urls.unwrap_or_default(),
                    unreadable,
                    str_at(call.input, "label").unwrap_or("web_fetch"),
                )
            }
            // Not `navigation`: WebFetch runs no script a `javascript:`
            // URL could hold; such a URL reaches no site.
            _ => match str_at(call.input, "url") {
                Some(url) => Verdict::Pace {
                    target: Target::Url {
                        url: url.to_owned(),
                        tab: None,
                    },
                    label: "WebFetch".to_owned(),
                },
                // Claude Code refuses it; if not, no one can say where it goes.
                None => Verdict::Pace {
                    target: Target::Unknown,
                    label: "WebFetch".to_owned(),
                },
            },
        })
    }

    fn page(&self, _: &Call<'_>) -> Option<TabRef> {
        None
    }

    fn learn(&self, call: &Call<'_>, outcome: &ToolResult<'_>) -> Learned {
        let mut learned = Learned::default();
        if let Some(object) = outcome.object
            && let Some(status) = status_of(object, str_at(call.input, "url"))
        {
            learned.statuses.push(status);
        }
        learned
    }
}

/// The status a WebFetch response reports: `code` (0 is "Not Fetched": no
/// request was made), for the URL it fetched.
fn status_of(response: &Value, asked: Option<&str>) -> Option<Status> {
    let code = u16::try_from(response.get("code")?.as_u64()?).ok()?;
    // 0 is "Not Fetched"; anything else outside 100-599 is no HTTP status
    // (the listings fuzz target found a 29 taken for one).
    if !(100..600).contains(&code) {
        return None;
    }
    let url = response
        .get("url")
        .and_then(Value::as_str)
        .filter(|u| !u.trim().is_empty())
        .or(asked)?;
    // A 2xx result is the page's own text, where a `Retry-After:` line
    // would be content, not a header.
    let retry_after_ms = if (200..300).contains(&code) {
        None
    } else {
        response
            .get("result")
            .and_then(Value::as_str)
            .and_then(retry_after)
    };
    Some(Status {
        url: url.trim().to_owned(),
        code,
        retry_after_ms,
    })
}

/// `Retry-After: N` among the first lines of `result`, before the first
/// blank one: N seconds, 1 to 6 digits (WebFetch keeps no other form).
fn retry_after(result: &str) -> Option<u64> {
    for line in result.lines().take(HEADER_LINES) {
        let line = line.trim();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("retry-after")
        {
            let value = value.trim();
            return ((1..=6).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_digit()))
                .then(|| value.parse::<u64>().ok().map(|s| s * 1000))
                .flatten();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::read::profile::tests::{classify, input};

    fn learn(v: Value) -> Learned {
        WebFetch.learn(
            &Call {
                tool: "WebFetch",
                server: "",
                input: &input(json!({"url": "https://example.com/a", "prompt": "p"})),
                session: Some("s"),
            },
            &ToolResult {
                texts: &[],
                object: Some(&v),
                error: None,
            },
        )
    }

    #[test]
    fn webfetch_is_paced_on_its_url_and_websearch_is_skipped() {
        assert_eq!(
            classify(
                "WebFetch",
                &input(json!({"url": "https://example.com/a", "prompt": "summarise"})),
                Some("s")
            ),
            Verdict::Pace {
                target: Target::Url {
                    url: "https://example.com/a".into(),
                    tab: None
                },
                label: "WebFetch".into()
            }
        );
        assert!(matches!(
            classify("WebSearch", &input(json!({"query": "q"})), Some("s")),
            Verdict::Skip { .. }
        ));
        assert!(matches!(
            classify("WebFetch", &input(json!({"prompt": "p"})), Some("s")),
            Verdict::Pace {
                target: Target::Unknown,
                ..
            }
        ));
        // WebFetch runs no script: a `javascript:` URL is a URL on no site.
        assert!(matches!(
            classify(
                "WebFetch",
                &input(json!({"url": "javascript:fetch(1);fetch(2)", "prompt": "p"})),
                Some("s")
            ),
            Verdict::Pace {
                target: Target::Url { .. },
                ..
            }
        ));
        // Neither is an MCP tool of another name.
        assert_eq!(WebFetch.owns("mcp__x__WebFetch"), None);
    }

    #[test]
    fn a_429_gives_its_status_and_retry_after() {
        let l = learn(json!({
            "bytes": 0, "code": 429, "codeText": "Too Many Requests",
            "result": "The server returned HTTP 429 Too Many Requests.\nRetry-After: 30\n\nSlow down.",
            "durationMs": 120, "url": "https://example.com/a"
        }));
        assert_eq!(
            l.statuses,
            vec![Status {
                url: "https://example.com/a".into(),
                code: 429,
                retry_after_ms: Some(30_000)
            }]
        );
        assert!(l.tabs.is_empty() && l.current.is_none() && l.executed.is_none());
    }

    #[test]
    fn retry_after_is_read_only_as_1_to_6_digits_in_the_header_lines() {
        assert_eq!(retry_after("HTTP 503\nretry-after:  120 \n"), Some(120_000));
        assert_eq!(retry_after("HTTP 503\nRetry-After: 1234567"), None);
        assert_eq!(
            retry_after("HTTP 503\nRetry-After: Wed, 21 Oct 2026 07:28:00 GMT"),
            None
        );
        assert_eq!(retry_after("HTTP 503\n\nbody says\nRetry-After: 5"), None);
        assert_eq!(retry_after("HTTP 503\nRetry-After: "), None);
    }

    #[test]
    fn a_page_saying_retry_after_in_a_200_is_content() {
        let l = learn(
            json!({"code": 200, "codeText": "OK", "result": "Retry-After: 99", "url": "https://example.com/a"}),
        );
        assert_eq!(l.statuses[0].retry_after_ms, None);
        assert_eq!(l.statuses[0].code, 200);
    }

    #[test]
    fn not_fetched_is_no_status() {
        let l = learn(json!({"code": 0, "codeText": "Not Fetched", "result": ""}));
        assert!(l.statuses.is_empty());
        // No `url` in the response: the input's.
        let l = learn(json!({"code": 503, "result": "HTTP 503"}));
        assert_eq!(l.statuses[0].url, "https://example.com/a");
    }
}
