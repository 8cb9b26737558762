//! Chrome DevTools MCP (`chrome-devtools-mcp` 1.x): `mcp__chrome-devtools__*`,
//! `mcp__plugin_chrome-devtools-mcp_chrome-devtools__*` as a plugin, and the
//! three tools of its `--slim` mode (`navigate`, `evaluate`, `screenshot`).
//!
//! Tools act on the selected page, or on the page a `pageId` names (with
//! `--experimental-page-id-routing`). Page ids are numbered by the server,
//! one per Claude Code session, so pages are `devtools@<session>#<id>`.
//!
//! The tools that change pages (`list_pages`, `select_page`, `new_page`,
//! `navigate_page`, `close_page`, `resize_page`, `handle_dialog`) end their
//! answer with a `## Pages` listing: `<id>: <title> (<url>) [selected]`, or
//! `<id>: <url>` for a page without a title. Only those tools' listings are
//! read: any other tool never writes one, so a `## Pages` in its answer is
//! the page's text. Even in those answers page text can come before the
//! listing (a dialog's message) or after it (third-party tool
//! descriptions), so a listing is believed only when it is the one `## Pages`
//! in the answer; with two, each only adds.
//!
//! `select_page` is read-only and may run beside other reads, but the next
//! call that is not read-only starts after its Post: the selection is
//! learnt there, from the listing or, when that is not believed, from the
//! call's own `pageId`, and only if the call succeeded. Learning it at Pre
//! would point the map at a page the failed call never selected.

use super::{
    Call, Family, Learned, Profile, TabRef, TabSeen, Target, ToolResult, Verdict, mcp_parts,
    navigation, script_verdict, session_browser, str_at, tab_id,
};
use crate::names::{Names, Pairs, names, pairs};

pub(crate) struct DevTools;

/// Server names, compared after lowercasing and turning `-` into `_`.
const SERVERS: Names = names![
    "chrome_devtools",
    "chrome_devtools_mcp",
    "plugin_chrome_devtools_mcp_chrome_devtools",
];

/// The page `--slim` tools act on: that mode has no tool to select another,
/// and lists no page ids.
const SLIM_PAGE: &str = "slim";

/// How long an input tool waits for a navigation it started before it
/// answers anyway (`WaitForHelper`'s navigation timeout, 3 s times the
/// emulated network's multiplier, which is at least 1).
const NAVIGATION_WAIT_MS: u64 = 3_000;

/// The most page lines read from one listing.
const MAX_PAGE_LINES: usize = 1_024;

/// The most possibilities an unbelieved listing may add.
const MAX_GUESSES: usize = 64;

/// Tools that answer with a `## Pages` listing.
const LISTING: Names = names![
    "list_pages",
    "select_page",
    "close_page",
    "new_page",
    "navigate_page",
    "resize_page",
    "handle_dialog",
];

/// Tools that make no request to a site.
const READ_ONLY: Pairs = pairs![
    ("list_pages", "lists pages"),
    ("select_page", "selects a page"),
    ("close_page", "closes a page"),
    ("get_tab_id", "reads a page's id"),
    ("resize_page", "resizes the page"),
    ("emulate", "sets up emulation"),
    ("take_snapshot", "reads the page the browser has"),
    ("take_screenshot", "takes a screenshot"),
    ("screenshot", "takes a screenshot"),
    ("wait_for", "waits"),
    ("list_network_requests", "reads requests already made"),
    ("get_network_request", "reads a request already made"),
    ("list_console_messages", "reads the console"),
    ("get_console_message", "reads the console"),
    ("performance_stop_trace", "stops a trace"),
    ("performance_analyze_insight", "reads a trace"),
    ("take_heapsnapshot", "reads the page's memory"),
    ("close_heapsnapshot", "reads the page's memory"),
    ("compare_heapsnapshots", "reads the page's memory"),
    ("query_heapsnapshot_objects", "reads the page's memory"),
    ("list_extensions", "lists extensions"),
    ("list_webmcp_tools", "lists the page's tools"),
    ("list_third_party_developer_tools", "lists the page's tools"),
    ("screencast_start", "records the screen"),
    ("screencast_stop", "records the screen"),
    ("get_os_app_state", "reads an app's state"),
    ("get_css_styles", "reads the page's styles"),
    ("analyze_heapsnapshot_contexts", "reads the page's memory"),
    ("list_3p_developer_tools", "lists the page's tools"),
    (
        "install_extension",
        "installs an extension from a local folder",
    ),
    ("uninstall_extension", "uninstalls an extension"),
    ("uninstall_pwa", "uninstalls an app"),
];

/// Families of read-only tools, by prefix.
const READ_ONLY_PREFIXES: Pairs = pairs![("get_heapsnapshot_", "reads the page's memory")];

/// Tools that act on the page and may make requests.
const PACED: Names = names![
    "click",
    "click_at",
    "hover",
    "fill",
    "fill_form",
    "type_text",
    "drag",
    "upload_file",
    "press_key",
    "handle_dialog",
    "execute_webmcp_tool",
    "execute_3p_developer_tool",
    // An extension's code runs on the page it acts on.
    "reload_extension",
    "trigger_extension_action",
];

/// The family as settings name it, for `doctor`: the server's usual tools, under its usual name.
pub(super) const FAMILY: Family = Family {
    name: "Chrome DevTools MCP",
    matcher: "mcp__chrome-devtools__.*",
    tools: names![
        "mcp__chrome-devtools__navigate_page",
        "mcp__chrome-devtools__new_page",
        "mcp__chrome-devtools__list_pages",
        "mcp__chrome-devtools__select_page",
        "mcp__chrome-devtools__close_page",
        "mcp__chrome-devtools__click",
        "mcp__chrome-devtools__hover",
        "mcp__chrome-devtools__fill",
        "mcp__chrome-devtools__fill_form",
        "mcp__chrome-devtools__type_text",
        "mcp__chrome-devtools__drag",
        "mcp__chrome-devtools__upload_file",
        "mcp__chrome-devtools__press_key",
        "mcp__chrome-devtools__handle_dialog",
        "mcp__chrome-devtools__evaluate_script",
        "mcp__chrome-devtools__take_snapshot",
        "mcp__chrome-devtools__take_screenshot",
        "mcp__chrome-devtools__list_network_requests",
        "mcp__chrome-devtools__list_console_messages",
        "mcp__chrome-devtools__wait_for",
        "mcp__chrome-devtools__performance_start_trace",
        "mcp__chrome-devtools__lighthouse_audit",
    ],
};

impl Profile for DevTools {
    fn named_like(&self, server: &str) -> bool {
        server.contains("devtools")
    }

    fn has_tool(&self, tool: &str) -> bool {
        matches!(
            tool,
            "navigate_page"
                | "new_page"
                | "list_pages"
                | "select_page"
                | "close_page"
                | "evaluate_script"
                | "take_snapshot"
                | "list_network_requests"
                | "get_network_request"
                | "list_console_messages"
                | "get_console_message"
                | "performance_start_trace"
                | "performance_stop_trace"
                | "performance_analyze_insight"
                | "lighthouse_audit"
                | "emulate"
                | "resize_page"
        )
    }

    fn owns<'a>(&self, tool_name: &'a str) -> Option<&'a str> {
        let (server, tool) = mcp_parts(tool_name)?;
        SERVERS.contains(&server).then_some(tool)
    }

    fn examples(&self) -> &'static [&'static str] {
        &[
            "mcp__chrome-devtools__navigate_page",
            "mcp__chrome-devtools-mcp__navigate_page",
            "mcp__plugin_chrome-devtools-mcp_chrome-devtools__navigate_page",
        ]
    }

    fn page(&self, call: &Call<'_>) -> Option<TabRef> {
        let browser = browser(call);
        Some(match call.tool {
            "navigate" | "evaluate" | "screenshot" => TabRef::new(browser, SLIM_PAGE),
            _ => match tab_id(call.input.get("pageId")) {
                Some(id) => TabRef::new(browser, id),
                None => TabRef::current(browser),
            },
        })
    }

    fn classify(&self, call: &Call<'_>) -> Option<Verdict> {
        let (tool, input) = (call.tool, call.input);
        if let Some(why) = READ_ONLY.get(tool).or_else(|| {
            READ_ONLY_PREFIXES
                .iter()
                .find(|(p, _)| tool.starts_with(p))
                .map(|(_, why)| why)
        }) {
            return Some(Verdict::Skip { why });
        }
        let page = self.page(call)?;
        let on_page = |label: String| Verdict::Pace {
            target: Target::Tab(page.clone()),
            label,
        };
        Some(match tool {
            "navigate_page" => navigate_page(call, page),
            "new_page" => match str_at(input, "url") {
                Some(url) => match str_at(input, "initScript").and_then(init_script_repeats) {
                    Some(blocked) => blocked,
                    None => navigation(url, None, tool),
                },
                None => Verdict::Skip {
                    why: "opens an empty page",
                },
            },
            "navigate" => match str_at(input, "url") {
                Some(url) => navigation(url, Some(page), tool),
                None => on_page(tool.to_owned()),
            },
            "evaluate_script" => {
                script_verdict(str_at(input, "function").unwrap_or(""), Some(page), tool)
            }
            "evaluate" => script_verdict(str_at(input, "script").unwrap_or(""), Some(page), tool),
            // `reload` defaults to true.
            "performance_start_trace" => match input.get("reload").and_then(|v| v.as_bool()) {
                Some(false) => Verdict::Skip {
                    why: "starts a trace without reloading",
                },
                _ => on_page("performance_start_trace reload".to_owned()),
            },
            // `mode` defaults to `navigation`, which reloads; `snapshot`
            // audits the page as it is.
            "lighthouse_audit" => match str_at(input, "mode") {
                Some("snapshot") => Verdict::Skip {
                    why: "audits the page as it is",
                },
                _ => on_page("lighthouse_audit navigation".to_owned()),
            },
            // Installing fetches the app's manifest and pages from its URL.
            "install_pwa" => match str_at(input, "installUrlOrBundleUrl") {
                Some(url) => navigation(url, None, tool),
                None => Verdict::Pace {
                    target: Target::Unknown,
                    label: tool.to_owned(),
                },
            },
            // An app opens at `url`, else at its start URL, which the call
            // does not show: every site pace-hook knows.
            "launch_pwa" => match str_at(input, "url") {
                Some(url) => navigation(url, None, tool),
                None => Verdict::Pace {
                    target: Target::Unknown,
                    label: tool.to_owned(),
                },
            },
            t if PACED.contains(t) => on_page(t.to_owned()),
            _ => return None,
        })
    }

    /// An input tool waits up to 3 s (more under emulated slow networks)
    /// for a navigation it started, then answers as if done: `Successfully
    /// clicked on the element` with no `Page navigated to` line, while the
    /// page still loads. Such an answer after 3 s or more (or of unknown
    /// duration) cannot rule out a pending navigation; nor can a timeout.
    fn still_loading(
        &self,
        call: &Call<'_>,
        outcome: &ToolResult<'_>,
        duration_ms: Option<u64>,
    ) -> bool {
        let may_navigate = PACED.contains(call.tool)
            || matches!(call.tool, "navigate_page" | "new_page" | "navigate");
        if !may_navigate {
            return false;
        }
        match outcome.error {
            Some(error) => super::playwright::timed_out(error),
            None => {
                PACED.contains(call.tool)
                    && !outcome
                        .texts
                        .iter()
                        .any(|t| t.contains("Page navigated to "))
                    && duration_ms.is_none_or(|d| d >= NAVIGATION_WAIT_MS)
            }
        }
    }

    fn learn(&self, call: &Call<'_>, outcome: &ToolResult<'_>) -> Learned {
        let browser = browser(call);
        let mut learned = Learned::default();
        let ok = outcome.error.is_none();
        if LISTING.contains(call.tool)
            && let Some(text) = outcome.error.or(outcome.texts.first().map(String::as_str))
        {
            read_pages(text, ok, &browser, &mut learned);
        }
        if ok
            && learned.current.is_none()
            && call.tool == "select_page"
            && let Some(id) = tab_id(call.input.get("pageId"))
        {
            learned.current = Some(TabRef::new(&browser, id));
        }
        if ok
            && call.tool == "navigate"
            && let Some(url) = slim_navigated(outcome.texts)
        {
            learned.tabs.push(TabSeen {
                tab: TabRef::new(&browser, SLIM_PAGE),
                url: url.to_owned(),
                sure: true,
            });
        }
        if !matches!(self.classify(call), Some(Verdict::Skip { .. })) {
            learned.executed = match self.page(call) {
                Some(TabRef { id: None, .. }) | None => Some(
                    learned
                        .current
                        .clone()
                        .unwrap_or_else(|| TabRef::current(&browser)),
                ),
                named => named,
            };
        }
        learned
    }
}

fn browser(call: &Call<'_>) -> String {
    session_browser("devtools", "chrome_devtools", call)
}

/// `navigate_page{type?: url|back|forward|reload, url?, initScript?}`; with
/// no type, a `url` means `url`. `initScript` runs in the next document.
fn navigate_page(call: &Call<'_>, page: TabRef) -> Verdict {
    let input = call.input;
    let url = str_at(input, "url");
    let kind = str_at(input, "type").or(url.map(|_| "url"));
    let label = format!("navigate_page {}", kind.unwrap_or(""))
        .trim_end()
        .to_owned();
    let (target, history) = match (kind, url) {
        (Some("url"), Some(url)) => match navigation(url, Some(page.clone()), &label) {
            Verdict::Pace { target, .. } => (target, false),
            blocked => return blocked,
        },
        (Some("back" | "forward"), _) => (Target::History(page.clone()), true),
        // `reload`, or something this profile cannot read: the page's site.
        _ => (Target::Tab(page.clone()), false),
    };
    let Some(code) = str_at(input, "initScript") else {
        return Verdict::Pace { target, label };
    };
    if let Some(why) = url.and_then(|u| init_script_beside_document(code, u)) {
        return Verdict::Block {
            why,
            instead:
                "Navigate first, then make the script's request in its own evaluate_script call"
                    .to_owned(),
        };
    }
    if let Some(why) = init_script_doubles(code, &target) {
        return Verdict::Block {
            why,
            instead: format!(
                "Navigate first, then make the script's request in its own evaluate_script call; {label} with an initScript that makes no request is paced as one"
            ),
        };
    }
    if let Some(blocked) = init_script_repeats(code) {
        return blocked;
    }
    match script_verdict(code, Some(page), &label) {
        Verdict::Pace {
            target:
                Target::Script {
                    tab,
                    mut urls,
                    any_site,
                },
            ..
        } => {
            if let Target::Url { url, .. } = &target {
                urls.push(url.clone());
            }
            Verdict::Pace {
                target: Target::Script {
                    tab,
                    urls,
                    // Where the history leads the script's relative
                    // requests follow: anywhere the page has been.
                    any_site: any_site || history,
                },
                label,
            }
        }
        other => other,
    }
}

/// The verdict on an `initScript` that may make a request: it runs in
/// every new document while the navigation lasts, each frame of the page
/// (an `<iframe>`, an ad's) included, so one request in it may be one per
/// frame, with no gap. `None` when it cannot make one (or runs code the
/// analysis cannot see, which the script's own verdict blocks).
fn init_script_repeats(code: &str) -> Option<Verdict> {
    let analysis = crate::read::script::analyse(code, crate::read::script::Env::Page).ok()?;
    if analysis.count == crate::read::script::Count::Zero || !analysis.opaque.is_empty() {
        return None;
    }
    let first = analysis.requests.first()?;
    Some(Verdict::Block {
        why: format!(
            "its initScript makes a request ({} at {}:{}) and runs in every frame of the new document: one request per frame, with no gap",
            first.what, first.line, first.column
        ),
        instead: "Navigate without the initScript, then make the request from evaluate_script once the page has loaded; an initScript that makes no request is paced with its navigation".to_owned(),
    })
}

/// Why an `initScript` that makes a request, run in a `data:` document
/// that loads something itself, makes two with no gap between them.
fn init_script_beside_document(code: &str, url: &str) -> Option<String> {
    let document = super::data_document(url)?;
    let first = document.requests.first()?;
    let analysis = crate::read::script::analyse(code, crate::read::script::Env::Page).ok()?;
    let request = analysis.requests.first()?;
    Some(format!(
        "its initScript makes a request ({} at {}:{}) in a `data:` document that loads something too ({}): two with no gap",
        request.what, request.line, request.column, first.what
    ))
}

/// Why an `initScript` makes a second request to the site its navigation
/// loads, with no gap after the navigation's own: it runs as the new
/// document starts, so a request it makes to a relative URL, to a URL on
/// the navigation's own site, or to a host built at run time goes right
/// after the page. `None` when it makes none, or only to other sites (each
/// of which is paced with the call).
fn init_script_doubles(code: &str, target: &Target) -> Option<String> {
    let analysis = crate::read::script::analyse(code, crate::read::script::Env::Page).ok()?;
    if analysis.count == crate::read::script::Count::Zero || !analysis.opaque.is_empty() {
        // No request; or code it cannot see, which the script's own verdict blocks.
        return None;
    }
    let first = analysis.requests.first()?;
    let at = format!("{} at {}:{}", first.what, first.line, first.column);
    let key_of = |url: &str| {
        crate::read::resolve::hosts_of_url(url)
            .into_iter()
            .map(|h| crate::key::registrable(&h))
            .collect::<Vec<_>>()
    };
    let own: Vec<String> = match target {
        Target::Url { url, .. } => key_of(url),
        // A reload, back or forward: the site is the page's own, or where its
        // history leads; either way a relative request goes there.
        _ => Vec::new(),
    };
    let named: Vec<String> = analysis.urls.iter().flat_map(|u| key_of(u)).collect();
    let relative = analysis.urls.is_empty();
    let same = named.iter().any(|k| own.contains(k));
    if relative || same || !analysis.unknown_hosts.is_empty() {
        let site = own
            .first()
            .map_or("the page's site".to_owned(), Clone::clone);
        return Some(format!(
            "its initScript makes a request ({at}) to {site} as soon as the new document starts, right after the navigation's own request there"
        ));
    }
    None
}

/// Read the `## Pages` listings of `text`: believed when there is one and
/// the call succeeded, guesses otherwise.
fn read_pages(text: &str, ok: bool, browser: &str, learned: &mut Learned) {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_end() == "## Pages")
        .map(|(i, _)| i)
        .collect();
    let sure = ok && starts.len() == 1;
    let mut guesses = 0;
    for start in starts {
        for line in lines[start + 1..].iter().take(MAX_PAGE_LINES) {
            let Some(page) = parse_page_line(line) else {
                break;
            };
            if !sure {
                if guesses >= MAX_GUESSES {
                    return;
                }
                guesses += 1;
            }
            let tab = TabRef::new(browser, page.id);
            if sure && page.selected {
                learned.current = Some(tab.clone());
            }
            learned.tabs.push(TabSeen {
                tab,
                url: page.url.to_owned(),
                sure,
            });
        }
    }
}

/// A parsed `## Pages` line.
#[derive(Debug, PartialEq, Eq)]
struct PageLine<'a> {
    id: &'a str,
    url: &'a str,
    selected: bool,
}

/// `3: Title (https://x/) [selected] isolatedContext=name`, or
/// `3: https://x/`. A title may hold anything but a line break, a URL no
/// whitespace: so with a title the URL is the last blank-free stretch, in
/// parentheses, and without one it is all there is. The suffixes come after
/// the URL, where no title can reach.
fn parse_page_line(line: &str) -> Option<PageLine<'_>> {
    let (id, rest) = line.split_once(": ")?;
    if id.is_empty() || id.len() > 9 || !id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut rest = rest.trim_end();
    if let Some(i) = rest.rfind(" isolatedContext=")
        && !rest[i + 1..].contains(char::is_whitespace)
    {
        rest = &rest[..i];
    }
    let (rest, selected) = match rest.strip_suffix(" [selected]") {
        Some(r) => (r, true),
        None => (rest, false),
    };
    // The last blank of any width: a title may hold U+2000 and the like,
    // which are more than one byte.
    let url = match rest.char_indices().rfind(|(_, c)| c.is_whitespace()) {
        Some((i, c)) => rest[i + c.len_utf8()..]
            .strip_prefix('(')?
            .strip_suffix(')')?,
        None => rest,
    };
    (!url.is_empty()).then_some(PageLine { id, url, selected })
}

/// The URL of `--slim` `navigate`'s answer, `Navigated to <url>.`.
fn slim_navigated(texts: &[String]) -> Option<&str> {
    texts
        .first()?
        .lines()
        .find_map(|l| l.strip_prefix("Navigated to "))?
        .trim_end()
        .strip_suffix('.')
        .filter(|u| !u.is_empty() && !u.contains(char::is_whitespace))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn a_wide_blank_before_the_url_is_read_whole() {
        // Found by fuzzing: U+2000 before the URL split the line inside a
        // character, a panic that lost the Post.
        let line = "0: Title\u{2000}(https://example.com/)";
        assert_eq!(
            parse_page_line(line).map(|p| p.url),
            Some("https://example.com/")
        );
        let garbage = "0: Emple Domain \u{2000}\u{2000}(x:tel./T";
        assert_eq!(parse_page_line(garbage).map(|p| p.url), None);
    }
    use crate::read::profile::tests::{classify, input};

    #[test]
    fn examples_name_every_server_it_knows() {
        crate::read::profile::tests::assert_examples_cover(&DevTools, SERVERS);
    }

    fn loading(tool: &str, text: &str, error: Option<&str>, duration: Option<u64>) -> bool {
        let input = input(json!({"pageId": 1, "uid": "1_4"}));
        let call = Call {
            tool,
            server: "chrome-devtools",
            input: &input,
            session: Some("A"),
        };
        let texts = [text.to_owned()];
        let outcome = ToolResult {
            texts: &texts,
            object: None,
            error,
        };
        DevTools.still_loading(&call, &outcome, duration)
    }

    /// Issue 17: a click whose page answers slowly answers `Successfully
    /// clicked` after the server's 3 s wait for the navigation, with no
    /// `Page navigated to` line, while the browser goes on loading.
    #[test]
    fn a_click_answered_after_the_navigation_wait_may_still_be_loading() {
        let clicked = "Successfully clicked on the element";
        assert!(loading("click", clicked, None, Some(6_100)));
        assert!(
            loading("click", clicked, None, None),
            "an unknown duration cannot rule it out"
        );
        assert!(loading("press_key", clicked, None, Some(3_000)));
        // Quick, or the navigation finished: settled.
        assert!(!loading("click", clicked, None, Some(400)));
        let navigated =
            "Successfully clicked on the element\nPage navigated to https://example.com/b.";
        assert!(!loading("click", navigated, None, Some(3_500)));
        // A navigation that timed out goes on in the browser.
        assert!(loading(
            "navigate_page",
            "",
            Some("Navigation timeout of 10000 ms exceeded"),
            Some(10_000)
        ));
        assert!(!loading(
            "navigate_page",
            "Successfully navigated to https://example.com/.",
            None,
            Some(9_000)
        ));
        // A read never is.
        assert!(!loading("take_snapshot", "", None, Some(9_000)));
    }

    fn dt(tool: &str, v: Value) -> Verdict {
        classify(
            &format!("mcp__chrome-devtools__{tool}"),
            &input(v),
            Some("A"),
        )
    }

    fn current() -> TabRef {
        TabRef::current("devtools@A")
    }

    fn page(id: &str) -> TabRef {
        TabRef::new("devtools@A", id)
    }

    fn learn(tool: &str, v: Value, text: &str, error: Option<&str>) -> Learned {
        let texts = vec![text.to_owned()];
        DevTools.learn(
            &Call {
                tool,
                server: "chrome-devtools",
                input: &input(v),
                session: Some("A"),
            },
            &ToolResult {
                texts: if error.is_some() { &[] } else { &texts },
                object: None,
                error,
            },
        )
    }

    fn seen(tab: TabRef, url: &str, sure: bool) -> TabSeen {
        TabSeen {
            tab,
            url: url.into(),
            sure,
        }
    }

    const LISTED: &str = "## Pages\n1: Example Domain (https://example.com/)\n2: https://docs.example.org/a [selected]\n3: Foo (bar) - Wikipedia (https://en.wikipedia.org/wiki/Foo_(bar)) isolatedContext=research";

    #[test]
    fn every_server_name_is_owned() {
        for name in [
            "mcp__chrome-devtools__navigate_page",
            "mcp__chrome_devtools__navigate_page",
            "mcp__plugin_chrome-devtools-mcp_chrome-devtools__navigate_page",
        ] {
            assert_eq!(DevTools.owns(name), Some("navigate_page"), "{name}");
        }
        assert_eq!(DevTools.owns("mcp__playwright__browser_navigate"), None);
    }

    #[test]
    fn every_tool_is_classified() {
        for (tool, _) in READ_ONLY.iter() {
            assert!(
                matches!(dt(tool, json!({})), Verdict::Skip { .. }),
                "{tool}"
            );
        }
        assert!(matches!(
            dt("get_heapsnapshot_summary", json!({})),
            Verdict::Skip { .. }
        ));
        for tool in PACED.iter() {
            assert_eq!(
                dt(tool, json!({"uid": "1_2"})),
                Verdict::Pace {
                    target: Target::Tab(current()),
                    label: tool.into()
                },
                "{tool}"
            );
        }
        // A page named by `pageId` (page-id routing) is that page.
        assert_eq!(
            dt("click", json!({"uid": "1_2", "pageId": 3})),
            Verdict::Pace {
                target: Target::Tab(page("3")),
                label: "click".into()
            }
        );
        // A tool of a later version, that this profile does not list yet:
        // the selected page.
        assert_eq!(
            dt("some_later_tool", json!({})),
            Verdict::Pace {
                target: Target::Tab(current()),
                label: "some_later_tool".into()
            }
        );
        // An app goes where its URL says; without one, anywhere.
        assert_eq!(
            dt(
                "install_pwa",
                json!({"installUrlOrBundleUrl": "https://app.example.com/"})
            ),
            Verdict::Pace {
                target: Target::Url {
                    url: "https://app.example.com/".into(),
                    tab: None
                },
                label: "install_pwa".into()
            }
        );
        assert_eq!(
            dt("launch_pwa", json!({"manifestId": "m"})),
            Verdict::Pace {
                target: Target::Unknown,
                label: "launch_pwa".into()
            }
        );
    }

    #[test]
    fn navigate_page_goes_where_its_type_says() {
        assert_eq!(
            dt(
                "navigate_page",
                json!({"type": "url", "url": "https://example.com/"})
            ),
            Verdict::Pace {
                target: Target::Url {
                    url: "https://example.com/".into(),
                    tab: Some(current())
                },
                label: "navigate_page url".into()
            }
        );
        assert_eq!(
            dt("navigate_page", json!({"url": "https://example.com/"})),
            Verdict::Pace {
                target: Target::Url {
                    url: "https://example.com/".into(),
                    tab: Some(current())
                },
                label: "navigate_page url".into()
            }
        );
        assert_eq!(
            dt("navigate_page", json!({"type": "back"})),
            Verdict::Pace {
                target: Target::History(current()),
                label: "navigate_page back".into()
            }
        );
        assert_eq!(
            dt("navigate_page", json!({"type": "reload"})),
            Verdict::Pace {
                target: Target::Tab(current()),
                label: "navigate_page reload".into()
            }
        );
        assert_eq!(
            dt("new_page", json!({"url": "https://b.example/"})),
            Verdict::Pace {
                target: Target::Url {
                    url: "https://b.example/".into(),
                    tab: None
                },
                label: "new_page".into()
            }
        );
    }

    #[test]
    fn an_init_script_request_to_the_navigations_own_site_is_a_second_request() {
        for code in [
            "fetch('/api/1')",
            "fetch('https://www.example.com/x')",
            "new Image().src = '/pixel.gif'",
        ] {
            let v = dt(
                "navigate_page",
                json!({"type": "url", "url": "https://example.com/", "initScript": code}),
            );
            let Verdict::Block { why, .. } = &v else {
                panic!("{code}: {v:?}")
            };
            assert!(
                why.contains("right after the navigation's own request"),
                "{why}"
            );
        }
        // A reload with a relative fetch: the page's own site, twice.
        let v = dt(
            "navigate_page",
            json!({"type": "reload", "initScript": "fetch('/a')"}),
        );
        assert!(matches!(v, Verdict::Block { .. }), "{v:?}");
        // A script that makes no request, or one to another site only, is
        // paced with the navigation.
        let v = dt(
            "navigate_page",
            json!({"type": "url", "url": "https://example.com/", "initScript": "window.x = 1"}),
        );
        assert!(matches!(v, Verdict::Pace { .. }), "{v:?}");
    }

    #[test]
    fn an_init_script_is_analysed_with_its_navigation() {
        let v = dt(
            "navigate_page",
            json!({"type": "url", "url": "https://example.com/", "initScript": "fetch('/a'); fetch('/b')"}),
        );
        assert!(matches!(v, Verdict::Block { .. }), "{v:?}");
        // A request to another site still runs once per frame of the new
        // document (issue 16).
        for (tool, input) in [
            (
                "navigate_page",
                json!({"type": "url", "url": "https://example.com/", "initScript": "navigator.sendBeacon('https://t.example/x')"}),
            ),
            (
                "new_page",
                json!({"url": "https://example.com/", "initScript": "fetch('https://t.example/x')"}),
            ),
            (
                "navigate_page",
                json!({"type": "back", "initScript": "navigator.sendBeacon('https://t.example/x')"}),
            ),
        ] {
            let v = dt(tool, input);
            let Verdict::Block { why, instead } = &v else {
                panic!("{tool}: {v:?}")
            };
            assert!(
                why.contains("runs in every frame of the new document"),
                "{why}"
            );
            assert!(
                instead.contains("from evaluate_script once the page has loaded"),
                "{instead}"
            );
        }
        // One that cannot request is paced with its navigation.
        let v = dt(
            "navigate_page",
            json!({"type": "url", "url": "https://example.com/", "initScript": "window.__seen = []; document.addEventListener('click', e => window.__seen.push(e.target.tagName))"}),
        );
        assert_eq!(
            v,
            Verdict::Pace {
                target: Target::Script {
                    tab: Some(current()),
                    urls: vec!["https://example.com/".into()],
                    any_site: false
                },
                label: "navigate_page url".into()
            }
        );
        // Back with a relative fetch: wherever the history leads, the
        // script's request follows the page there (issue 16).
        let v = dt(
            "navigate_page",
            json!({"type": "back", "initScript": "fetch('/x')"}),
        );
        assert!(matches!(v, Verdict::Block { .. }), "{v:?}");
        // Back with a script that cannot request: paced on everywhere the
        // tab has been.
        let v = dt(
            "navigate_page",
            json!({"type": "back", "initScript": "window.x = 1"}),
        );
        assert!(
            matches!(
                v,
                Verdict::Pace {
                    target: Target::Script { any_site: true, .. },
                    ..
                }
            ),
            "{v:?}"
        );
    }

    #[test]
    fn reloads_are_paced_and_their_absence_skipped() {
        for (tool, v) in [
            ("performance_start_trace", json!({})),
            ("performance_start_trace", json!({"reload": true})),
            ("lighthouse_audit", json!({})),
            ("lighthouse_audit", json!({"mode": "navigation"})),
        ] {
            assert!(
                matches!(
                    dt(tool, v.clone()),
                    Verdict::Pace {
                        target: Target::Tab(_),
                        ..
                    }
                ),
                "{tool} {v}"
            );
        }
        assert!(matches!(
            dt("performance_start_trace", json!({"reload": false})),
            Verdict::Skip { .. }
        ));
        assert!(matches!(
            dt("lighthouse_audit", json!({"mode": "snapshot"})),
            Verdict::Skip { .. }
        ));
    }

    #[test]
    fn scripts_and_slim_tools() {
        let v = dt(
            "evaluate_script",
            json!({"function": "async () => { for (const u of us) await fetch(u) }"}),
        );
        assert!(matches!(v, Verdict::Block { .. }), "{v:?}");
        let slim = page(SLIM_PAGE);
        assert_eq!(
            dt("navigate", json!({"url": "https://example.com/"})),
            Verdict::Pace {
                target: Target::Url {
                    url: "https://example.com/".into(),
                    tab: Some(slim.clone())
                },
                label: "navigate".into()
            }
        );
        let v = dt("evaluate", json!({"script": "document.title"}));
        assert!(
            matches!(&v, Verdict::Pace { target: Target::Script { tab: Some(t), .. }, .. } if *t == slim),
            "{v:?}"
        );
        assert!(matches!(dt("screenshot", json!({})), Verdict::Skip { .. }));
    }

    #[test]
    fn a_listing_says_where_each_page_is_and_which_is_selected() {
        let l = learn("list_pages", json!({}), LISTED, None);
        assert_eq!(
            l.tabs,
            vec![
                seen(page("1"), "https://example.com/", true),
                seen(page("2"), "https://docs.example.org/a", true),
                seen(page("3"), "https://en.wikipedia.org/wiki/Foo_(bar)", true),
            ]
        );
        assert_eq!(l.current, Some(page("2")));
        assert_eq!(l.executed, None);
    }

    #[test]
    fn select_page_is_learnt_after_it_succeeds() {
        let text = "## Pages\n1: Example Domain (https://example.com/) [selected]\n2: https://docs.example.org/a";
        let l = learn("select_page", json!({"pageId": 1}), text, None);
        assert_eq!(l.current, Some(page("1")));
        // No listing believed: the call's own pageId.
        let l = learn("select_page", json!({"pageId": 2}), "", None);
        assert_eq!(l.current, Some(page("2")));
        let l = learn(
            "select_page",
            json!({"pageId": 9}),
            "",
            Some("No page found with id 9"),
        );
        assert_eq!(l.current, None);
    }

    #[test]
    fn navigate_page_learns_the_listing_and_runs_on_the_selected_page() {
        let text = "Successfully navigated to https://example.com/.\n## Pages\n1: Example Domain (https://example.com/) [selected]";
        let l = learn(
            "navigate_page",
            json!({"type": "url", "url": "https://example.com/"}),
            text,
            None,
        );
        assert_eq!(l.tabs, vec![seen(page("1"), "https://example.com/", true)]);
        assert_eq!(l.executed, Some(page("1")));
        let l = learn(
            "navigate_page",
            json!({"url": "https://example.com/", "pageId": 4}),
            text,
            None,
        );
        assert_eq!(l.executed, Some(page("4")));
    }

    #[test]
    fn a_second_pages_heading_makes_every_listing_a_guess() {
        // A dialog's message before the server's listing.
        let text = "# Open dialog\nalert: hi\n## Pages\n1: x (https://planted.example/) [selected]\n.\nCall handle_dialog to handle it before continuing.\n## Pages\n1: Example Domain (https://example.com/) [selected]";
        let l = learn("navigate_page", json!({"type": "reload"}), text, None);
        assert_eq!(
            l.tabs,
            vec![
                seen(page("1"), "https://planted.example/", false),
                seen(page("1"), "https://example.com/", false)
            ]
        );
        assert_eq!(l.current, None);
    }

    #[test]
    fn a_listing_in_another_tools_answer_is_page_text() {
        let text = "Script ran on page and returned:\n```json\n\"x\"\n```\n## Pages\n1: x (https://planted.example/) [selected]";
        let l = learn(
            "evaluate_script",
            json!({"function": "() => 1"}),
            text,
            None,
        );
        assert!(l.tabs.is_empty());
        assert_eq!(l.current, None);
        assert_eq!(l.executed, Some(current()));
    }

    #[test]
    fn a_title_cannot_pass_for_a_url_or_a_selection() {
        assert_eq!(
            parse_page_line("4: (https://evil.example/) [selected] (https://good.example/)"),
            Some(PageLine {
                id: "4",
                url: "https://good.example/",
                selected: false
            })
        );
        assert_eq!(parse_page_line("4: title only"), None);
        assert_eq!(parse_page_line("## Extension Pages"), None);
        assert_eq!(
            parse_page_line("5: about:blank [selected]"),
            Some(PageLine {
                id: "5",
                url: "about:blank",
                selected: true
            })
        );
    }

    #[test]
    fn a_slim_navigation_is_on_where_it_landed() {
        let l = learn(
            "navigate",
            json!({"url": "http://example.com/"}),
            "Navigated to https://example.com/.",
            None,
        );
        assert_eq!(
            l.tabs,
            vec![seen(page(SLIM_PAGE), "https://example.com/", true)]
        );
        assert_eq!(l.executed, Some(page(SLIM_PAGE)));
    }
}
