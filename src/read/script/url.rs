//! Absolute URLs in a script's strings, after folding: which sites a script
//! names besides its tab's.
//!
//! A string is read the way a browser's URL parser would read it relative to
//! a page: leading spaces and control characters are dropped, tabs and
//! newlines anywhere are dropped, `\` counts as `/`, and a special scheme
//! (`http:`, `https:`, `ws:`, `wss:`, `ftp:`) needs no slashes after it
//! (`http:other.org` is other.org from an `https:` page). So `\\other.org/x`
//! and `//other.org/x` name other.org, as they would in `fetch`.
//!
//! A URL whose scheme is written but whose host is built at run time
//! (`https://${host}/x`, or `https://other.org` followed by an unknown part
//! that could lengthen the host) names an unknown site.

use crate::names::{Names, names};
/// One piece of a string built at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    /// Text the analysis knows.
    Lit(String),
    /// Text it does not.
    Hole,
}

/// What a string says about sites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Named {
    /// No absolute URL: relative, or not a URL at all.
    Nothing,
    /// An absolute URL whose host is known; a URL `site::host_of_url` reads.
    Url(String),
    /// An absolute URL whose host is not known, rendered with `${…}` holes.
    UnknownHost(String),
    /// A string whose start is not known followed by an absolute URL
    /// (`x + 'https://other.org/x'`): the whole may be that URL or another
    /// one that carries it, so its site and every other count. The URL
    /// found, and the string rendered with `${…}` holes.
    Behind(String, String),
}

/// Schemes whose URLs have a host and which accept `\` and missing slashes.
const SPECIAL: Names = names!["http", "https", "ws", "wss", "ftp"];

/// What the string made of `parts` names.
pub(super) fn named(parts: &[Part]) -> Named {
    // Most strings are not URLs: without a `:` or a slash before the first
    // unknown part there is no scheme and no `//`, so nothing below matches.
    let mut known = parts.iter().map_while(|p| match p {
        Part::Lit(s) => Some(s),
        Part::Hole => None,
    });
    if !known.any(|s| s.contains([':', '/', '\\'])) {
        return behind(parts);
    }
    let complete = !parts.contains(&Part::Hole);
    let mut prefix = String::new();
    for p in parts {
        match p {
            Part::Lit(s) => prefix.push_str(s),
            Part::Hole => break,
        }
    }
    let cleaned: String = prefix
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let cleaned = if complete {
        cleaned.trim_end_matches(|c: char| c <= ' ')
    } else {
        cleaned.as_str()
    };
    let slash = |c: char| c == '/' || c == '\\';
    let (scheme, rest) = if cleaned.starts_with("//")
        || cleaned.starts_with("\\\\")
        || cleaned.starts_with("/\\")
        || cleaned.starts_with("\\/")
    {
        (None, cleaned.trim_start_matches(slash))
    } else {
        let Some((scheme, rest)) = cleaned.split_once(':') else {
            return Named::Nothing;
        };
        let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        let lower = scheme.to_ascii_lowercase();
        if !valid || !SPECIAL.contains(lower.as_str()) {
            return Named::Nothing;
        }
        (Some(scheme), rest.trim_start_matches(slash))
    };
    let authority_end = rest.find(['/', '\\', '?', '#']);
    let authority = match authority_end {
        Some(end) => &rest[..end],
        None if complete => rest,
        None => return Named::UnknownHost(render(parts)),
    };
    if authority.is_empty() {
        return if complete {
            Named::Nothing
        } else {
            Named::UnknownHost(render(parts))
        };
    }
    let tail = authority_end.map_or("", |end| &rest[end..]);
    let canonical = match scheme {
        Some(s) => format!("{s}://{authority}{}", tail.replace('\\', "/")),
        None => format!("//{authority}{}", tail.replace('\\', "/")),
    };
    if canonical == cleaned {
        Named::Url(cleaned.to_owned())
    } else {
        Named::Url(canonical)
    }
}

/// A string whose known start names no scheme: an absolute URL written
/// after an unknown part (`x + 'https://other.org/x'`, `'http' + s +
/// '://other.org'`) may be where it goes. A start that is surely relative
/// (`/path`, `./`, `?q`, `#h`) keeps the request on the page's own site.
fn behind(parts: &[Part]) -> Named {
    let Some(hole) = parts.iter().position(|p| *p == Part::Hole) else {
        return Named::Nothing;
    };
    let start: String = parts[..hole]
        .iter()
        .map(|p| match p {
            Part::Lit(s) => s.as_str(),
            Part::Hole => "",
        })
        .collect();
    let start = start.trim_start_matches(|c: char| c <= ' ');
    let relative =
        (start.starts_with('/') && !start.starts_with("//")) || start.starts_with(['.', '?', '#']);
    if relative {
        return Named::Nothing;
    }
    for p in &parts[hole..] {
        let Part::Lit(s) = p else { continue };
        if let Some(url) = url_inside(s) {
            return Named::Behind(url, render(parts));
        }
    }
    Named::Nothing
}

/// The first absolute URL that starts inside `s`: at `//` (with the scheme
/// written before it, if any) or at a special scheme's colon
/// (`https:other.org`).
fn url_inside(s: &str) -> Option<String> {
    // Most text after an unknown part (`${n} items`) has neither.
    if !s.contains([':', '/', '\\']) {
        return None;
    }
    let lower = s.to_ascii_lowercase();
    let mut starts: Vec<usize> = Vec::new();
    for mark in ["//", "\\\\", "/\\", "\\/"] {
        if let Some(at) = s.find(mark) {
            // Back over the scheme written before the slashes.
            let from = s[..at]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || "+-.:".contains(c)))
                .map_or(0, |i| i + 1);
            starts.push(from);
        }
    }
    for scheme in SPECIAL.iter() {
        let mut from = 0;
        while let Some(at) = lower[from..].find(scheme) {
            let at = from + at;
            if lower[at + scheme.len()..].starts_with(':') {
                starts.push(at);
            }
            from = at + scheme.len();
        }
    }
    starts.sort_unstable();
    for from in starts {
        let tail = &s[from..];
        if let Named::Url(u) = named(&[Part::Lit(tail.to_owned())]) {
            return Some(u);
        }
        // `://other.org` or `//other.org` after the unknown part.
        if let Some(slashes) = tail.find(['/', '\\'])
            && let Named::Url(u) = named(&[Part::Lit(format!("https:{}", &tail[slashes..]))])
        {
            return Some(u);
        }
    }
    None
}

/// A scheme written alone (`'https:'`, `'wss://'`), as an array of a
/// URL's pieces holds it before they are joined at run time.
pub(super) fn bare_scheme(s: &str) -> bool {
    if matches!(s, "://" | "//") {
        return true;
    }
    let s = s.trim_end_matches(['/', '\\']);
    s.len() <= 6
        && s.strip_suffix(':')
            .is_some_and(|scheme| SPECIAL.iter().any(|sp| sp.eq_ignore_ascii_case(scheme)))
}

/// The string with its unknown parts shown as `${…}`.
pub(super) fn render(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| match p {
            Part::Lit(s) => s.as_str(),
            Part::Hole => "${…}",
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Vec<Part> {
        vec![Part::Lit(s.into())]
    }

    #[test]
    fn script_url_absolute_urls_are_named_as_written() {
        for u in [
            "https://other.org/x",
            "HTTPS://OTHER.ORG/x",
            "//other.org/x",
            "wss://ws.other.org/feed",
            "http://other.org",
        ] {
            assert_eq!(named(&lit(u)), Named::Url(u.into()), "{u}");
        }
    }

    #[test]
    fn script_url_relative_and_hostless_strings_name_nothing() {
        for s in [
            "/api/x",
            "api/x",
            "data:text/plain,x",
            "javascript:void 0",
            "mailto:a@b.c",
            "see https://x.org",
            "https://",
            "",
        ] {
            assert_eq!(named(&lit(s)), Named::Nothing, "{s}");
        }
    }

    #[test]
    fn script_url_what_a_browser_would_fix_up_is_normalized() {
        assert_eq!(
            named(&lit("\\\\other.org\\x")),
            Named::Url("//other.org/x".into())
        );
        assert_eq!(
            named(&lit(" \thtt\nps://other.org/x ")),
            Named::Url("https://other.org/x".into())
        );
        assert_eq!(
            named(&lit("http:other.org/x")),
            Named::Url("http://other.org/x".into())
        );
        assert_eq!(
            named(&lit("https:/\\other.org")),
            Named::Url("https://other.org".into())
        );
    }

    #[test]
    fn script_url_a_host_built_at_run_time_is_unknown() {
        let parts = vec![
            Part::Lit("https://".into()),
            Part::Hole,
            Part::Lit("/x".into()),
        ];
        assert_eq!(named(&parts), Named::UnknownHost("https://${…}/x".into()));
        // The unknown part could lengthen the host: other.org.evil.com.
        let parts = vec![Part::Lit("https://other.org".into()), Part::Hole];
        assert!(matches!(named(&parts), Named::UnknownHost(_)));
    }

    #[test]
    fn script_url_a_known_host_before_a_hole_is_kept() {
        let parts = vec![Part::Lit("https://other.org/items/".into()), Part::Hole];
        assert_eq!(named(&parts), Named::Url("https://other.org/items/".into()));
        // A leading hole could be anything: the URL after it, or another
        // one that carries it.
        let parts = vec![Part::Hole, Part::Lit("https://x.org".into())];
        assert_eq!(
            named(&parts),
            Named::Behind("https://x.org".into(), "${…}https://x.org".into())
        );
    }

    #[test]
    fn script_url_a_scheme_split_around_an_unknown_part_is_still_read() {
        let parts = vec![
            Part::Lit("http".into()),
            Part::Hole,
            Part::Lit("://other.org/x".into()),
        ];
        assert_eq!(
            named(&parts),
            Named::Behind(
                "https://other.org/x".into(),
                "http${…}://other.org/x".into()
            )
        );
        // A relative start keeps the request on the page's site.
        for start in ["/api?next=", "./x?u=", "?u=", "#"] {
            let parts = vec![
                Part::Lit(start.into()),
                Part::Hole,
                Part::Lit("https://other.org".into()),
            ];
            assert_eq!(named(&parts), Named::Nothing, "{start}");
        }
        // Text with no `//` after the hole names nothing.
        let parts = vec![Part::Hole, Part::Lit(" items found".into())];
        assert_eq!(named(&parts), Named::Nothing);
    }
}
