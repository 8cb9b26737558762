//! The absolute URLs in a text such as an HTML document or a script,
//! however the text spells them.

use crate::names::{Names, names};
use percent_encoding::percent_decode_str;

use super::unescape::unescape;

/// Absolute URLs (any case of scheme: http, https, ws, wss, ftp; and `//host`
/// in src/href/action attributes and CSS url()) in a text such as an HTML
/// document; used for `data:` documents and exported for others. Each is
/// returned as its scheme and host only (`https://other.org`, `//evil.example`;
/// userinfo, port and path dropped), sorted, without repeats; `data:` URLs in
/// the text are returned whole, for [`reach_absolute`] to read their own
/// bodies.
///
/// What it reads, since a page can spell a URL many ways:
/// - the text as it is; with HTML character references (`&#58;`, `&#x2F;`,
///   `&colon;`, `&sol;`, `&amp;`…) and JavaScript escapes (`\x2f`, `\u002f`,
///   `\u{2f}`, `\/`) decoded; and that again percent-decoded (for
///   `javascript:` URLs and nested `data:` bodies, which the browser decodes);
/// - a scheme (any case, tabs and newlines inside ignored, as the URL parser
///   does) not glued to a letter or digit before it, then any run of `/` and
///   `\`, or none (`https:evil.example`);
/// - `//` or `\\` after the start of the text, a quote, `=`, `(`, `,` or
///   whitespace: attributes, CSS `url()`, `srcset`, JS strings, and also JS
///   line comments (an extra site, never a missed one);
/// - the host after the last `@` of the authority; the host read both up to a
///   tab or newline (an unquoted attribute ends there) and across it (a quoted
///   one does not).
///
/// Not read: CSS escapes (`\68 ttps:`), named character references beyond
/// the few above, and URLs a script builds at run time (`'ht' + 'tps://'`).
pub(crate) fn absolute_urls_in(text: &str) -> Vec<String> {
    let mut urls = Vec::new();
    let unescaped = unescape(text);
    let decoded = percent_decode_str(&unescaped).decode_utf8_lossy();
    scan_hosts(text, &mut urls);
    if *unescaped != *text {
        scan_hosts(&unescaped, &mut urls);
    }
    if *decoded != *unescaped {
        scan_hosts(&decoded, &mut urls);
    }
    scan_data(&unescaped, &mut urls);
    urls.sort_unstable();
    urls.dedup();
    urls
}

/// Schemes [`scan_hosts`] and [`scan_data`] look for, longest first so that
/// `https` is tried before `http`.
const SCANNED_SCHEMES: Names = names!["https", "http", "data", "wss", "ftp", "ws"];

/// Append to `out` each absolute URL's scheme and host in `text` (see
/// [`absolute_urls_in`]).
///
/// Linear in the text, which may be a megabyte: authorities are found with a
/// cursor that only moves forward ([`AuthorityReader`]), and two candidates
/// never read the same host characters twice, since a host spelling holds no
/// `:`, `/`, `\` or `@`, one of which ends every scheme or `//` before a
/// host.
fn scan_hosts(text: &str, out: &mut Vec<String>) {
    let b = text.as_bytes();
    let mut readers = [AuthorityReader::new(false), AuthorityReader::new(true)];
    for i in 0..b.len() {
        let (prefix, from) = match b[i] {
            b':' => match scheme_before(b, i) {
                Some((scheme, _)) if scheme != "data" => (scheme, i + 1),
                _ => continue,
            },
            b'/' | b'\\'
                if (i == 0 || opens_url(b[i - 1]))
                    && matches!(
                        b[i + 1..]
                            .iter()
                            .find(|c| !matches!(c, b'\t' | b'\n' | b'\r')),
                        Some(b'/' | b'\\')
                    ) =>
            {
                ("", i)
            }
            _ => continue,
        };
        let mut start = from;
        while matches!(b.get(start), Some(b'/' | b'\\' | b'\t' | b'\n' | b'\r')) {
            start += 1;
        }
        for reader in &mut readers {
            if let Some(host) = reader.host_at(text, start) {
                out.push(if prefix.is_empty() {
                    format!("//{host}")
                } else {
                    format!("{prefix}://{host}")
                });
            }
        }
    }
}

/// Append to `out` each `data:` URL in `text`, whole: from its scheme to the
/// quote that opened it, or, unquoted, to the first space, `>` or `)`.
fn scan_data(text: &str, out: &mut Vec<String>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b':' {
            i += 1;
            continue;
        }
        let Some(("data", start)) = scheme_before(b, i) else {
            i += 1;
            continue;
        };
        let quote = b[..start]
            .iter()
            .rev()
            .find(|c| !matches!(c, b'\t' | b'\n' | b'\r' | b' '))
            .filter(|c| matches!(c, b'"' | b'\'' | b'`'));
        let end = match quote {
            Some(&q) => b[i..].iter().position(|&c| c == q),
            None => b[i..].iter().position(|&c| {
                matches!(
                    c,
                    b' ' | b'\n' | b'\x0c' | b'>' | b')' | b'"' | b'\'' | b'`'
                )
            }),
        }
        .map_or(b.len(), |n| i + n);
        out.push(text[start..end].to_owned());
        i = end.max(i + 1);
    }
}

/// The scanned scheme that ends just before the colon at `colon`, with the
/// index of its first letter. Tabs and newlines between its letters are
/// skipped; the scheme must not be glued to a letter, digit, `+`, `-` or `.`
/// before it (`xhttps:` is another scheme).
fn scheme_before(b: &[u8], colon: usize) -> Option<(&'static str, usize)> {
    // The up to 6 letters before the colon, nearest first, with their places.
    let mut letters = [(0u8, 0usize); 6];
    let mut count = 0;
    let mut j = colon;
    let mut before: Option<u8> = None;
    while j > 0 && count < letters.len() {
        j -= 1;
        match b[j] {
            b'\t' | b'\n' | b'\r' => {}
            c if c.is_ascii_alphabetic() => {
                letters[count] = (c.to_ascii_lowercase(), j);
                count += 1;
            }
            c => {
                before = Some(c);
                break;
            }
        }
    }
    SCANNED_SCHEMES.iter().find_map(|scheme| {
        let len = scheme.len();
        if count < len {
            return None;
        }
        let spelled = scheme.bytes().rev().eq(letters[..len].iter().map(|l| l.0));
        let glued = if count > len {
            true
        } else {
            before.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
        };
        (spelled && !glued).then_some((scheme, letters[len - 1].1))
    })
}

/// Whether a `//` after byte `c` starts a scheme-relative URL: after a quote,
/// `=`, `(`, `,` or whitespace.
fn opens_url(c: u8) -> bool {
    matches!(
        c,
        b'"' | b'\'' | b'`' | b'=' | b'(' | b',' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0c'
    )
}

/// Reads the host of each authority in a text, candidates in order.
struct AuthorityReader {
    /// Whether tabs and newlines are skipped (a quoted attribute) or end the
    /// authority (an unquoted one).
    skip_newlines: bool,
    /// The last authority found: where its scan started and ended, and its
    /// last `@`. A later candidate that starts inside it ends where it ends.
    segment: (usize, usize, Option<usize>),
    /// Where the last host read started: a candidate with the same host is
    /// not read again.
    last_host: Option<usize>,
}

impl AuthorityReader {
    fn new(skip_newlines: bool) -> Self {
        Self {
            skip_newlines,
            segment: (0, 0, None),
            last_host: None,
        }
    }

    /// Whether `c` ends an authority.
    fn ends_authority(&self, c: u8) -> bool {
        matches!(
            c,
            b'/' | b'\\'
                | b'?'
                | b'#'
                | b' '
                | b'\x0b'
                | b'\x0c'
                | b'"'
                | b'\''
                | b'`'
                | b'<'
                | b'>'
        ) || (!self.skip_newlines && matches!(c, b'\t' | b'\n' | b'\r'))
    }

    /// The host spelled in the authority starting at `start`, tabs and
    /// newlines removed; `None` if empty or already read.
    fn host_at(&mut self, text: &str, start: usize) -> Option<String> {
        let b = text.as_bytes();
        let (seg_start, seg_end, _) = self.segment;
        if !(seg_start <= start && start < seg_end) {
            let mut end = start;
            let mut at = None;
            while end < b.len() && !self.ends_authority(b[end]) {
                if b[end] == b'@' {
                    at = Some(end);
                }
                end += 1;
            }
            self.segment = (start, end, at);
        }
        let host_start = match self.segment.2 {
            Some(at) if at >= start => at + 1,
            _ => start,
        };
        if self.last_host == Some(host_start) {
            return None;
        }
        self.last_host = Some(host_start);
        let mut host = String::new();
        let rest = &text[host_start..];
        if rest.starts_with('[') {
            for c in rest.chars() {
                match c {
                    '\t' | '\n' | '\r' if self.skip_newlines => {}
                    ']' => {
                        host.push(c);
                        return Some(host);
                    }
                    c if c == '[' || c == ':' || c == '.' || c.is_ascii_hexdigit() => host.push(c),
                    _ => return None,
                }
            }
            return None;
        }
        for c in rest.chars() {
            match c {
                '\t' | '\n' | '\r' if self.skip_newlines => {}
                c if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '%') => {
                    host.push(c)
                }
                c if !c.is_ascii() && !c.is_whitespace() => host.push(c),
                _ => break,
            }
        }
        (!host.is_empty()).then_some(host)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_urls_are_given_as_scheme_and_host() {
        assert_eq!(
            absolute_urls_in(
                "<a href=\"HTTPS://u:p@Other.org:8443/x?y\">, url(//cdn.example/a.png), \
                 <img src='data:image/png;base64,AAAA'> wss://[::1]:9/ see:http://"
            ),
            vec![
                "//cdn.example",
                "data:image/png;base64,AAAA",
                "https://Other.org",
                "wss://[::1]",
            ]
        );
    }
}
