//! A light scan of the JavaScript an agent asks the browser to run: how many
//! places in it start a request, and whether any of them may run more than
//! once.
//!
//! This is a scanner, not a parser: it skips comments and string literals so
//! that `// fetch(` or `'fetch('` do not count, and it sees `window.fetch(`,
//! `XMLHttpRequest` and `sendBeacon`, which the original regex missed. A real
//! parse of the code is planned; until then the scan errs towards blocking.

/// What the scan found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScriptRequests {
    /// Each place that starts a request, as `name at line:column`.
    pub sites: Vec<String>,
    /// The first construct that can run code repeatedly, if any.
    pub repeats: Option<&'static str>,
    /// Absolute `http(s)://` URLs written as string literals: a script can
    /// fetch any site, not only its tab's.
    pub urls: Vec<String>,
}

const REQUEST_CALLS: &[&str] = &[
    "fetch",
    "sendBeacon",
    "XMLHttpRequest",
    "ajax",
    "getJSON",
    "axios",
];
/// Objects through which `fetch` is the global one.
const GLOBAL_OBJECTS: &[&str] = &["window", "self", "globalThis", "top", "parent"];
const REPEATERS: &[&str] = &[
    "for",
    "while",
    "forEach",
    "map",
    "flatMap",
    "reduce",
    "all",
    "allSettled",
    "setInterval",
    "race",
    "any",
];

/// Scan `code` for request calls.
pub fn scan(code: &str) -> ScriptRequests {
    let b = code.as_bytes();
    let mut out = ScriptRequests::default();
    let mut i = 0;
    let (mut line, mut line_start) = (1usize, 0usize);
    // The identifier before the last `.`, to tell `window.fetch` from `api.fetch`.
    let mut prev_ident: Option<(usize, usize)> = None;
    let mut prev_dot = false;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line += 1;
                line_start = i + 1;
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    if b[i] == b'\n' {
                        line += 1;
                        line_start = i + 1;
                    }
                    i += 1;
                }
                i += 2;
            }
            b'\'' | b'"' | b'`' => {
                i += 1;
                let start = i;
                while i < b.len() && b[i] != c {
                    if b[i] == b'\\' {
                        i += 1;
                    } else if b[i] == b'\n' {
                        line += 1;
                        line_start = i + 1;
                    }
                    i += 1;
                }
                let literal = &code[start..i.min(b.len())];
                if literal.starts_with("https://") || literal.starts_with("http://") {
                    out.urls.push(literal.to_owned());
                }
                i += 1;
                prev_dot = false;
                prev_ident = None;
            }
            _ if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$')
                {
                    i += 1;
                }
                let word = &code[start..i];
                let mut j = i;
                while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                    j += 1;
                }
                let called = b.get(j) == Some(&b'(');
                let receiver_ok = !prev_dot
                    || prev_ident.is_some_and(|(s, e)| GLOBAL_OBJECTS.contains(&&code[s..e]))
                    || word != "fetch";
                if REQUEST_CALLS.contains(&word)
                    && receiver_ok
                    && (called || word == "XMLHttpRequest")
                {
                    out.sites
                        .push(format!("{word} at {line}:{}", start - line_start + 1));
                }
                if out.repeats.is_none()
                    && let Some(r) = REPEATERS.iter().find(|r| **r == word)
                    && (called || matches!(word, "for" | "while"))
                {
                    out.repeats = Some(r);
                }
                prev_ident = Some((start, i));
                prev_dot = false;
            }
            b'.' => {
                prev_dot = true;
                i += 1;
            }
            _ => {
                if !c.is_ascii_whitespace() {
                    prev_dot = false;
                    prev_ident = None;
                }
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_fetch_call() {
        let s = scan(
            "await fetch('https://example.com/api/1'); await fetch('https://example.com/api/2'); 'ok'",
        );
        assert_eq!(s.sites, vec!["fetch at 1:7", "fetch at 1:49"]);
    }

    #[test]
    fn fetch_in_comments_and_strings_does_not_count() {
        let s = scan("// fetch(a)\n/* fetch(b) */ const x = 'fetch(c)'; `fetch(${d})`; fetch(e)");
        assert_eq!(s.sites, vec!["fetch at 2:53"]);
    }

    #[test]
    fn window_fetch_counts_but_a_method_named_fetch_does_not() {
        let s = scan("window.fetch(u); globalThis.fetch(v); cache.fetch(w)");
        assert_eq!(s.sites.len(), 2);
    }

    #[test]
    fn xhr_and_beacon_count() {
        let s = scan("const x = new XMLHttpRequest(); navigator.sendBeacon('/l', d)");
        assert_eq!(s.sites.len(), 2);
    }

    #[test]
    fn loop_around_a_single_fetch_is_seen() {
        let s = scan("for (const u of urls) { await fetch(u) }");
        assert_eq!(s.sites.len(), 1);
        assert_eq!(s.repeats, Some("for"));
        let s = scan("await Promise.all(urls.map(u => fetch(u)))");
        assert_eq!(s.repeats, Some("all"));
    }

    #[test]
    fn absolute_urls_in_strings_are_collected() {
        let s = scan("await fetch(`https://api.other.com/v1/${id}`, {credentials: 'include'})");
        assert_eq!(s.urls, vec!["https://api.other.com/v1/${id}"]);
        assert!(scan("fetch('/relative')").urls.is_empty());
    }

    #[test]
    fn reading_the_page_makes_no_request() {
        let s = scan("document.title");
        assert!(s.sites.is_empty());
        assert_eq!(s.repeats, None);
    }
}
