//! Navigations that carry their document (`data:text/html,…`, percent- or
//! base64-encoded) through the binary, on every browser family: the
//! document's markup is read as the page loads it (issue 16), so two images
//! or a script with two fetches block, one is paced as one, and a document
//! that loads nothing makes no request to any site.

use super::*;

/// Each navigation tool, with the input that sends it to `url`.
fn navigations(url: &str) -> Vec<(&'static str, Value)> {
    vec![
        (
            "mcp__claude-in-chrome__navigate",
            json!({"url": url, "tabId": 1}),
        ),
        ("mcp__playwright__browser_navigate", json!({"url": url})),
        ("mcp__chrome-devtools__new_page", json!({"url": url})),
        (
            "mcp__chrome-devtools__navigate_page",
            json!({"type": "url", "url": url}),
        ),
    ]
}

/// Documents that load more than one thing, and what the model is told.
const BLOCKED: &[(&str, &str)] = &[
    (
        "<img src=https://a.example/1.png><img src=https://a.example/2.png>",
        "loads 2 resources",
    ),
    (
        "<video src=https://a.example/v.mp4 poster=https://a.example/p.jpg></video>",
        "loads 2 resources",
    ),
    (
        "<script>fetch('https://a.example/1'); fetch('https://a.example/2')</script>",
        "both run",
    ),
    (
        "<img src=https://a.example/1.png onerror=\"fetch('https://a.example/2')\">",
        "both run",
    ),
    (
        "<iframe srcdoc=\"&lt;img src=https://a.example/1&gt;&lt;img src=https://a.example/2&gt;\"></iframe>",
        "loads 2 resources",
    ),
    (
        "<style>body { background: u\\72 l(https://a.example/1) } p { background: url(https://a.example/2) }</style>",
        "loads 2 resources",
    ),
];

/// Two of the rows of [`BLOCKED`], base64-encoded.
const BASE64: &[(&str, &str)] = &[
    (
        "data:text/html;base64,PGltZyBzcmM9aHR0cHM6Ly9hLmV4YW1wbGUvMS5wbmc+PGltZyBzcmM9aHR0cHM6Ly9hLmV4YW1wbGUvMi5wbmc+",
        "loads 2 resources",
    ),
    (
        "data:text/html;charset=utf-8;base64,PHNjcmlwdD5mZXRjaCgnaHR0cHM6Ly9hLmV4YW1wbGUvMScpOyBmZXRjaCgnaHR0cHM6Ly9hLmV4YW1wbGUvMicpPC9zY3JpcHQ+",
        "both run",
    ),
];

#[test]
fn a_data_document_that_loads_twice_is_blocked_on_every_navigation_tool() {
    let gate = Gate::new("");
    let mut n = 0;
    let encoded = BLOCKED.iter().map(|(html, says)| {
        let url = format!(
            "data:text/html,{}",
            html.replace('%', "%25").replace('#', "%23")
        );
        (url, *says)
    });
    let base64 = BASE64.iter().map(|(url, says)| ((*url).to_owned(), *says));
    for (url, says) in encoded.chain(base64) {
        for (tool, input) in navigations(&url) {
            n += 1;
            let out = gate.run(&call(tool, input, &format!("d{n}"), "A"));
            assert_eq!(code(&out), 2, "{tool} {url}: {}", stderr(&out));
            let err = stderr(&out);
            assert!(
                err.contains("the `data:` document this") && err.contains(says),
                "{tool} {url}: {err}"
            );
        }
    }
    assert!(gate.events("admit").is_empty());
}

#[test]
fn a_data_document_that_loads_once_is_paced_on_its_site_and_one_with_nothing_passes() {
    let gate = Gate::new("interval = \"10ms\"\n");
    let mut n = 0;
    for (tool, input) in navigations("data:text/html,<p>hi</p><img src=https://one.example/a.png>")
    {
        n += 1;
        let id = format!("one{n}");
        let out = gate.run(&call(tool, input, &id, "A"));
        assert_eq!(code(&out), 0, "{tool}: {}", stderr(&out));
        assert_eq!(sites(&gate, &id), json!(["one.example"]), "{tool}");
    }
    // Text, an image or a document with nothing to load makes no request
    // to a site.
    for url in [
        "data:text/html,<h1>Report</h1><p>No loads &amp; no scripts.</p>",
        "data:text/plain,<img src=https://a.example/1><img src=https://a.example/2>",
        "data:text/html,<template><img src=https://a.example/1><img src=https://a.example/2></template>",
    ] {
        for (tool, input) in navigations(url) {
            n += 1;
            let out = gate.run(&call(tool, input, &format!("none{n}"), "A"));
            assert_eq!(code(&out), 0, "{tool} {url}: {}", stderr(&out));
        }
    }
}

#[test]
fn an_init_script_request_in_a_data_document_that_loads_is_a_second_request() {
    let gate = Gate::new("");
    let out = gate.run(&call(
        "mcp__chrome-devtools__navigate_page",
        json!({
            "type": "url",
            "url": "data:text/html,<img src=https://a.example/1.png>",
            "initScript": "navigator.sendBeacon('https://a.example/b')",
        }),
        "init",
        "A",
    ));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("two with no gap"), "{}", stderr(&out));
}

#[test]
fn an_init_script_that_requests_runs_in_every_frame_and_is_blocked() {
    let gate = Gate::new("");
    let navigate = |init: &str, id: &str| {
        gate.run(&call(
            "mcp__chrome-devtools__navigate_page",
            json!({"type": "url", "url": "https://shop.example/", "initScript": init}),
            id,
            "A",
        ))
    };
    // A beacon to another site, once per frame of the new document.
    let out = navigate("navigator.sendBeacon('https://t.example/b')", "beacon");
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("runs in every frame of the new document")
            && stderr(&out).contains("from evaluate_script once the page has loaded"),
        "{}",
        stderr(&out)
    );
    // One that cannot request is paced with the navigation.
    let out = navigate("window.__clicks = 0", "inert");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn a_javascript_url_whose_string_is_a_document_that_loads_twice_is_blocked() {
    let gate = Gate::new("");
    let navigate = |url: &str, id: &str| {
        gate.run(&call(
            "mcp__claude-in-chrome__navigate",
            json!({"url": url, "tabId": 1}),
            id,
            "A",
        ))
    };
    let out = navigate(
        "javascript:'<img src=https://a.example/1><img src=https://a.example/2>'",
        "two",
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("may give markup that loads"),
        "{}",
        stderr(&out)
    );
    // One image and no request in the code: one request.
    let out = navigate(
        "javascript:'<p>done</p><img src=https://a.example/1>'",
        "one",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}
