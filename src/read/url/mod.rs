//! Where a URL reaches: from what an agent or a page writes as a URL to the
//! host a browser would send the request to, read the way Chrome reads it.
//!
//! This module owns every reading of a URL in pace-hook: the scheme and what
//! it means, the host (WHATWG URL Standard and IDNA/UTS #46 through the `url`
//! crate, as Chrome does), `javascript:` code, the URLs inside `data:`
//! documents, and the registrable domain a host is paced under (the public
//! suffix list through `psl`). Nothing else in the crate reads a host out of a URL.
//!
//! Invariant: no spelling the browser accepts reaches fewer sites than the
//! browser would. Every reading errs towards more sites: when this module
//! cannot tell, it says so ([`Reach::Unreadable`], or a
//! [`Reach::Document`] with `unreadable` set), and the caller paces the call
//! against every site it knows. [`Reach::Nowhere`] is a claim that a page
//! loads nothing from any site, made only for schemes where that is known
//! (the browser's own pages, local files), never as a fallback.
//!
//! Three parts: where one URL reaches ([`classify`]), the URLs a text such
//! as a page or a script holds ([`find`]), and the escapes a page may spell
//! them with ([`unescape`]).

mod classify;
mod find;
mod unescape;

#[cfg(any(test, feature = "fuzz"))]
pub(crate) use classify::may_be_nowhere;
pub(crate) use classify::{Reach, data_document, reach, reach_absolute};
pub(crate) use find::absolute_urls_in;

/// Base64 as `data:` URLs carry it.
#[cfg(test)]
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::key::{normalize_host, registrable};

    use super::{
        classify::{clip, split_scheme},
        *,
    };

    /// Long inputs built to make a careless reader quadratic: each must be
    /// read in well under the time a quadratic reader would take (minutes at
    /// this size). Measured in a debug build: 0.2 to 1.6 s per input at 1 MiB,
    /// 0.8 to 3.3 s at 2 MiB, so linear; 256 KiB keeps the test quick.
    #[test]
    fn long_inputs_are_read_in_linear_time() {
        const SIZE: usize = 256 << 10;
        let fill = |unit: &str| unit.repeat(SIZE / unit.len());
        let inputs = [
            fill("https:"),
            fill("//"),
            format!("https://{}", fill("a")),
            format!("https://{}", fill("a@")),
            format!("https://{}.com/", fill("\u{AD}")),
            format!("data:text/html,{}", fill("https:")),
            format!("data:text/html,{}", fill("'//a")),
            format!("data:text/html,{}", fill("https:a@")),
            format!("data:text/html,{}", fill("data:,")),
            format!("data:text/html,{}", fill("\"data:,")),
            format!("data:text/html,{}", fill("&#x2f;")),
            format!("data:text/html,{}", fill("%25")),
            format!("data:text/html,{}", fill("\\u{2f}")),
            format!(
                "data:text/html;base64,{}",
                base64(fill("https:").as_bytes())
            ),
            format!("javascript:{}", fill("%66")),
            fill("view-source:"),
            fill("intent:#Intent;S.browser_fallback_url="),
            fill("a:"),
            fill("\t"),
            fill("[::"),
        ];
        for input in &inputs {
            let started = Instant::now();
            let _ = reach(input);
            let _ = reach_absolute(input);
            let _ = absolute_urls_in(input);
            let _ = registrable(input);
            let _ = normalize_host(input);
            let took = started.elapsed();
            assert!(
                took < Duration::from_secs(10),
                "{took:?} for {:?}…",
                clip(input, 30)
            );
        }
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        /// A scheme, sometimes one this module knows.
        fn scheme() -> impl Strategy<Value = String> {
            prop_oneof![
                prop::sample::select(
                    &[
                        "http",
                        "https",
                        "ws",
                        "ftp",
                        "file",
                        "about",
                        "chrome",
                        "data",
                        "javascript",
                        "blob",
                        "view-source",
                        "mailto",
                        "intent",
                        "HtTp",
                        "ABOUT",
                        "ja\tvascript",
                        "example.com",
                        "localhost",
                        "",
                    ][..]
                )
                .prop_map(str::to_owned),
                "[a-zA-Z][a-zA-Z0-9+.-]{0,8}",
            ]
        }

        /// Text that looks like the inside of a URL.
        fn urlish() -> impl Strategy<Value = String> {
            "[a-zA-Z0-9:/\\\\.%@\\[\\]#?&;=\"' \t\n<>()\u{AD}\u{3002}\u{FF0E}ßü-]{0,40}"
        }

        /// A domain: one to three labels and a suffix.
        fn domain() -> impl Strategy<Value = String> {
            (
                prop::collection::vec("[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,3})?", 1..4),
                prop::sample::select(
                    &["com", "org", "co.uk", "de", "io", "example", "xn--p1ai"][..],
                ),
            )
                .prop_map(|(labels, tld)| format!("{}.{tld}", labels.join(".")))
        }

        /// `c` in one of the forms a host may spell it in; `form` picks.
        fn spell(c: char, form: u8, out: &mut String) {
            let full_width = |c: char| char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c);
            match (form % 5, c) {
                (1, c) => out.push(c.to_ascii_uppercase()),
                (2, c) => {
                    let mut buf = [0; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("%{b:02X}"));
                    }
                }
                (3, '.') => out.push(['\u{FF0E}', '\u{3002}', '\u{FF61}'][usize::from(form) % 3]),
                (3, c) => out.push(full_width(c)),
                (4, '.') => out.push('.'),
                (4, c) => out.push(full_width(c.to_ascii_uppercase())),
                _ => out.push(c),
            }
        }

        prop_compose! {
            /// A plain URL and a spelling of it that reaches the same host:
            /// case changes, a trailing dot, percent-encoded and full-width
            /// host characters, backslashes and extra (or no) slashes after
            /// the scheme, tabs and newlines anywhere.
            fn spelled_url()(
                scheme in prop::sample::select(&["http", "https", "ws", "wss", "ftp"][..]),
                domain in domain(),
                path in "(/[a-zA-Z0-9._~-]{0,6}){0,3}",
                scheme_upper in prop::collection::vec(any::<bool>(), 5),
                slashes in prop::collection::vec(any::<bool>(), 0..5),
                forms in prop::collection::vec(0u8..10, 40),
                trailing_dot in any::<bool>(),
                breaks in prop::collection::vec(
                    (any::<prop::sample::Index>(), prop::sample::select(&['\t', '\n', '\r'][..])),
                    0..4,
                ),
            ) -> (String, String) {
                let plain = format!("{scheme}://{domain}{path}");
                let mut spelled: String = scheme
                    .chars()
                    .zip(scheme_upper.iter().chain(std::iter::repeat(&false)))
                    .map(|(c, up)| if *up { c.to_ascii_uppercase() } else { c })
                    .collect();
                spelled.push(':');
                for backslash in &slashes {
                    spelled.push(if *backslash { '\\' } else { '/' });
                }
                for (i, c) in domain.chars().enumerate() {
                    spell(c, forms[i % forms.len()], &mut spelled);
                }
                if trailing_dot {
                    spelled.push('.');
                }
                spelled.push_str(&path);
                let mut chars: Vec<char> = spelled.chars().collect();
                for (at, c) in breaks {
                    chars.insert(at.index(chars.len() + 1), c);
                }
                (plain, chars.into_iter().collect())
            }
        }

        fn plain_host(plain: &str) -> String {
            let url = ::url::Url::parse(plain).expect("the plain form parses");
            url.host_str().expect("it has a host").to_owned()
        }

        proptest! {
            #[test]
            fn reading_any_string_never_panics(s in any::<String>()) {
                let _ = reach(&s);
                let _ = reach_absolute(&s);
                let _ = registrable(&s);
                let _ = normalize_host(&s);
                let _ = absolute_urls_in(&s);
            }

            #[test]
            fn reading_url_like_strings_never_panics(scheme in scheme(), rest in urlish()) {
                for s in [format!("{scheme}:{rest}"), rest.clone(), format!("data:text/html,{rest}")] {
                    let _ = reach(&s);
                    let _ = reach_absolute(&s);
                    let _ = registrable(&s);
                    let _ = normalize_host(&s);
                    let _ = absolute_urls_in(&s);
                }
            }

            #[test]
            fn nowhere_only_for_schemes_proved_to_load_nothing(scheme in scheme(), rest in urlish()) {
                for s in [format!("{scheme}:{rest}"), rest.clone()] {
                    if let Reach::Nowhere(_) = reach(&s) {
                        prop_assert!(may_be_nowhere(&s), "{s:?} reaches nowhere");
                    }
                    if let Some(Reach::Nowhere(_)) = reach_absolute(&s) {
                        prop_assert!(may_be_nowhere(&s), "{s:?} reaches nowhere");
                    }
                }
            }

            #[test]
            fn every_spelling_reaches_the_plain_host((plain, spelled) in spelled_url()) {
                let want = Reach::Host(plain_host(&plain));
                prop_assert_eq!(reach(&spelled), want.clone(), "{:?}", spelled);
                prop_assert_eq!(reach_absolute(&spelled), Some(want), "{:?}", spelled);
            }

            #[test]
            fn a_navigation_without_scheme_reaches_the_plain_host((plain, spelled) in spelled_url()) {
                let want = Reach::Host(plain_host(&plain));
                let (_, rest) = split_scheme(&spelled).expect("a scheme");
                let bare = rest.trim_start_matches(['/', '\\', '\t', '\n', '\r']);
                prop_assert_eq!(reach(bare), want.clone(), "{:?}", bare);
                prop_assert_eq!(reach_absolute(&format!("//{bare}")), Some(want), "//{:?}", bare);
            }

            #[test]
            fn a_document_counts_the_hosts_it_names((plain, spelled) in spelled_url()) {
                // Other hosts may come with it: a newline in the spelling also
                // reads as the end of an unquoted attribute.
                let want = plain_host(&plain);
                let html = format!("<img src=\"{spelled}\">");
                let encoded: String = html.bytes().map(|b| format!("%{b:02X}")).collect();
                for url in [
                    format!("data:text/html;charset=utf-8,{encoded}"),
                    format!("data:text/html;base64,{}", base64(html.as_bytes())),
                ] {
                    match reach(&url) {
                        Reach::Document { hosts, unreadable: false } => {
                            prop_assert!(hosts.contains(&want), "{:?} in {:?}", want, hosts)
                        }
                        other => prop_assert!(false, "{:?}", other),
                    }
                }
            }
        }
    }
}
