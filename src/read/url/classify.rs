//! Where one URL reaches, read the way Chrome reads it: its scheme, its
//! host, a `javascript:` URL's code, a `data:` document's URLs.

use crate::names::{Names, names};
use std::borrow::Cow;

use data_url::DataUrl;
use percent_encoding::percent_decode_str;
use url::{Host, Url};

use super::find::absolute_urls_in;
use crate::key::{canonical, normalize_host};

/// Where loading a URL reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reach {
    /// A request to this host: lowercase ASCII (punycode for IDN), IPv4
    /// dotted-decimal, IPv6 in canonical form without brackets (RFC 5952, as
    /// Rust writes it). Trailing dots are dropped (`example.com.` is
    /// `example.com`: the same server), and an IPv4-mapped IPv6 address is
    /// its IPv4 address (`[::ffff:127.0.0.1]` is `127.0.0.1`).
    Host(String),
    /// Loads nothing from any site; `why` is a short phrase for the log.
    ///
    /// Only for: `about:` (every `about:` page is the browser's own:
    /// `about:blank`, `about:srcdoc`, and the rest are `chrome://` aliases);
    /// the browser's own pages (`chrome:`, `chrome-untrusted:`,
    /// `chrome-search:`, `edge:`, `brave:`, `opera:`, `vivaldi:`,
    /// `devtools:`); `chrome-extension:` (the page comes from the installed
    /// extension's files; what its script then fetches is page traffic, which
    /// pace-hook does not pace for any page); and `file:` URLs with no host or
    /// `localhost` (`file://server/…` and `file:////server/…` are requests to
    /// `server`, SMB on Windows, so they are a [`Reach::Host`]). Known gap:
    /// with a third-party default search engine, `chrome://newtab` shows that
    /// engine's web page.
    ///
    /// Not here, on purpose: `mailto:`, `tel:` and the other schemes a
    /// website can register itself for (`registerProtocolHandler`: Gmail
    /// handles `mailto:`), which are [`Reach::Unreadable`]; `blob:` and
    /// `filesystem:`, which are [`Reach::Document`]s.
    Nowhere(&'static str),
    /// A `javascript:` URL: this (percent-decoded) code runs in the tab; the
    /// caller analyses it as a script on the tab's site. The code is what the
    /// browser runs: tabs and newlines are already removed (the URL parser
    /// strips them before anything else), `%0A` is a newline.
    Script(String),
    /// A document whose content is in the URL (`data:`) or in the browser
    /// (`blob:`, `filesystem:`). Every absolute URL in its decoded body
    /// (percent- or base64-encoded, nested `data:` documents included, see
    /// [`absolute_urls_in`]) reaches its site; `hosts` are those hosts
    /// (canonical as in [`Reach::Host`], sorted, no repeats). `unreadable` is
    /// true if the body could not be decoded: the caller then paces against
    /// every known site.
    ///
    /// `blob:https://origin/…` and `filesystem:https://origin/…` load no
    /// request, but their document was made by the origin's script and can
    /// load anything, and its content is not in the URL: `hosts` is the
    /// origin's host and `unreadable` is true.
    Document {
        /// The hosts the document's URLs reach.
        hosts: Vec<String>,
        /// The body could not be read, so it may reach any site.
        unreadable: bool,
    },
    /// Not readable, or a scheme this module does not know: the caller paces
    /// it against every known site (or blocks).
    Unreadable {
        /// A lowercase phrase naming the problem, for a message to the model.
        reason: String,
        /// The host the input most likely means, so that a site is paced
        /// even when none is known yet. For an unknown scheme, the host after
        /// its `//` if it has one (`zoommtg://zoom.us/j`: `zoom.us`), else the
        /// host of the `https://`-prefixed reading (`example.com:abc`:
        /// `example.com`); for a URL that does not parse, a lenient reading
        /// of its authority, userinfo and port dropped
        /// (`https://example.com:99999/`: `example.com`); for a navigation,
        /// the host claude-in-chrome's own prefixed reading reaches, if
        /// other than the scheme (`mailto:a@b.example`: `b.example`, see
        /// [`reach`]).
        guess: Option<String>,
    },
}

/// How an input without a scheme is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// As the agent's `navigate` reads it: `https://` goes in front.
    Navigation,
    /// As a page reads it: only `//host/…` names a host; the rest is
    /// relative to the page.
    Content,
}

/// How many `data:` documents deep, one inside the other, bodies are read.
/// Past this the innermost document counts as unreadable. Browsers have no
/// such limit, so the limit must fail towards more sites, and does.
const MAX_NESTING: u8 = 4;

/// Schemes whose URLs name a host that a request goes to: the WHATWG special
/// schemes, less `file`. `ws:`/`wss:` are WebSocket connections and `ftp:`
/// (which Chrome no longer loads itself) may still reach its host, so all of
/// them are hosts.
const HOST_SCHEMES: Names = names!["http", "https", "ws", "wss", "ftp"];

/// Schemes of the browser's own pages: a navigation to them loads nothing
/// from a site.
const BROWSER_SCHEMES: Names = names![
    "about",
    "chrome",
    "chrome-untrusted",
    "chrome-search",
    "edge",
    "brave",
    "opera",
    "vivaldi",
    "devtools",
];

/// Schemes that HTML lets a website register itself to handle
/// (`registerProtocolHandler`'s safelist; `web+…` is checked apart). The
/// browser may turn a navigation to one into a request to that website, so
/// they are never `Nowhere`; and `tel:5551234` must not read as host `tel`
/// with port 5551234.
const HANDLER_SCHEMES: Names = names![
    "bitcoin",
    "cabal",
    "dat",
    "did",
    "doi",
    "dweb",
    "ethereum",
    "geo",
    "hyper",
    "im",
    "ipfs",
    "ipns",
    "irc",
    "ircs",
    "magnet",
    "mailto",
    "matrix",
    "mms",
    "news",
    "nntp",
    "openpgp4fpr",
    "sftp",
    "sip",
    "sms",
    "smsto",
    "ssb",
    "ssh",
    "tel",
    "urn",
    "webcal",
    "wtai",
    "xmpp",
];

/// Where a navigation to `input` reaches. The scheme is optional, as
/// claude-in-chrome's `navigate` reads it: an input without a scheme gets
/// `https://` prepended (so `example.com/?next=https://other.org/` is
/// `example.com`, `localhost:3000/x` is `localhost`). Leading and trailing
/// spaces and control characters are trimmed first, as the URL parser trims
/// them.
///
/// An input whose "scheme" is not one this module knows is either a host and
/// port (`localhost:3000/x`, `example.com:8080`: the URL Standard would read
/// `example.com` as the scheme, an omnibox reads a host) when one or more
/// digits follow the colon up to the end, `/`, `?` or `#`, and then it is
/// read with `https://` in front; or else [`Reach::Unreadable`] with a guess
/// (`example.com:abc` and `example.com:` guess `example.com`, `foo:bar`
/// guesses `foo`, `zoommtg://zoom.us/j` guesses `zoom.us`). Never
/// [`Reach::Nowhere`].
///
/// `view-source:URL` loads URL (read like a navigation, so
/// `view-source:example.com` is `example.com`); `view-source:` inside
/// `view-source:` is refused by Chrome and is [`Reach::Unreadable`] here.
/// `intent:` URLs (Android) open an app or their `S.browser_fallback_url`:
/// [`Reach::Unreadable`], guessing the fallback's host.
///
/// claude-in-chrome's `navigate` in fact prepends `https://` to every URL
/// that does not start with `http`, scheme or not (anthropics/claude-code
/// issues 19911 and 68659, January to June 2026): `chrome://newtab` loads
/// `https://chrome//newtab`, a lookup of the name `chrome` that reaches no
/// site, and `about:blank` is an invalid URL. Whoever fixes that, the answer
/// must hold for both readings, so where the prepended reading names a host
/// other than the scheme itself (`mailto:x@y.example` is
/// `https://mailto:x@y.example`, a page on `y.example`), that host is added:
/// a `Nowhere` becomes that host, a `Document` gains it, a `Script` or an
/// `Unreadable` becomes `Unreadable` guessing it.
pub(crate) fn reach(input: &str) -> Reach {
    let read = classify(input, Reading::Navigation, 0)
        .unwrap_or_else(|| unreadable("the url is empty", None));
    match prepended_host(input) {
        Some(host) => with_prepended_host(read, host),
        None => read,
    }
}

/// The host of `https://` + `input` when `input` does not start with `http`
/// and that host is not the input's own scheme (the reading of
/// claude-in-chrome's `navigate`, see [`reach`]).
fn prepended_host(input: &str) -> Option<String> {
    let input = trim_c0(input);
    let (scheme, _) = split_scheme(input)?;
    if input.starts_with("http") {
        return None;
    }
    let url = Url::parse(&format!("https://{input}")).ok()?;
    let host = canonical(&url.host()?)?;
    (host != scheme).then_some(host)
}

/// `read` with `host` also reached.
fn with_prepended_host(read: Reach, host: String) -> Reach {
    match read {
        Reach::Host(h) if h == host => Reach::Host(h),
        Reach::Host(h) => unreadable(
            &format!(
                "it reaches `{h}`; with `https://` in front, as claude-in-chrome reads it, `{host}`"
            ),
            Some(h),
        ),
        Reach::Nowhere(_) => Reach::Host(host),
        Reach::Document {
            mut hosts,
            unreadable,
        } => {
            hosts.push(host);
            hosts.sort_unstable();
            hosts.dedup();
            Reach::Document { hosts, unreadable }
        }
        Reach::Script(_) => unreadable(
            &format!(
                "it runs as a script in the tab; with `https://` in front, as claude-in-chrome reads it, it loads `{host}`"
            ),
            Some(host),
        ),
        Reach::Unreadable { reason, guess } => Reach::Unreadable {
            reason,
            guess: guess.or(Some(host)),
        },
    }
}

/// Where an absolute URL found in page content or a script reaches (no
/// scheme is prepended; `//host/x` and `\\host\x` are read as
/// `https://host/x`; a relative URL is `None`: it goes to the page's own
/// site, which the caller already counts).
///
/// `https:host/x` (scheme, no slashes) is read as `https://host/x`: that is
/// what it means on a `data:` page or any page of another scheme; on an
/// `https:` page it would be a relative path, so this errs towards the extra
/// host.
pub(crate) fn reach_absolute(input: &str) -> Option<Reach> {
    classify(input, Reading::Content, 0)
}

/// own pages or an extension's, a `file:` URL, or any of them inside
/// `view-source:`. The outside check of the module's invariant, for the
/// property tests and the fuzz targets: [`reach`] says [`Reach::Nowhere`]
/// only for such an input.
#[cfg(any(test, feature = "fuzz"))]
pub(crate) fn may_be_nowhere(input: &str) -> bool {
    match split_scheme(trim_c0(input)) {
        Some((s, rest)) if s == "view-source" => may_be_nowhere(rest),
        Some((s, _)) => {
            BROWSER_SCHEMES.contains(s.as_str()) || s == "chrome-extension" || s == "file"
        }
        None => false,
    }
}

/// The reach of `input` read as `reading`, `depth` `data:` documents deep;
/// `None` for a relative URL in content.
fn classify(input: &str, reading: Reading, depth: u8) -> Option<Reach> {
    let input = trim_c0(input);
    let Some((scheme, rest)) = split_scheme(input) else {
        let spaced = input.trim_start_matches(char::is_whitespace);
        return match reading {
            _ if input.is_empty() => None,
            // A space the URL parser keeps (no-break, ideographic) before a
            // URL: the browser loads nothing, but the URL after it is meant.
            Reading::Navigation if spaced.len() < input.len() => Some(unreadable(
                "the url starts with a space character the browser does not remove",
                match classify(spaced, reading, depth) {
                    Some(Reach::Host(h)) => Some(h),
                    Some(Reach::Unreadable { guess, .. }) => guess,
                    _ => None,
                },
            )),
            Reading::Navigation => Some(host_reach(&format!("https://{input}"))),
            Reading::Content if starts_with_two_slashes(input) => {
                Some(host_reach(&format!("https:{input}")))
            }
            Reading::Content => None,
        };
    };
    let scheme = scheme.as_str();
    Some(match scheme {
        s if HOST_SCHEMES.contains(s) => host_reach(input),
        "javascript" => script(input),
        "data" => document(input, depth),
        "file" => file(input, rest),
        "view-source" => view_source(rest, depth),
        "blob" | "filesystem" => Reach::Document {
            hosts: origin_host(rest).into_iter().collect(),
            unreadable: true,
        },
        "chrome-extension" => Reach::Nowhere("a page of an installed extension"),
        s if BROWSER_SCHEMES.contains(s) => Reach::Nowhere("a page of the browser itself"),
        "intent" => unreadable(
            "an `intent:` url opens an app, or on android its fallback web page",
            intent_fallback(input),
        ),
        s if HANDLER_SCHEMES.contains(s) || s.starts_with("web+") => unreadable(
            &format!("a `{s}:` url opens the app or website set to handle it"),
            None,
        ),
        _ if is_port(rest) => host_reach(&format!("https://{input}")),
        _ => unreadable(
            &format!("`{}:` is not a scheme pace-hook knows", clip(scheme, 40)),
            unknown_scheme_guess(input, rest),
        ),
    })
}

/// The host an input with an unknown scheme most likely means: the host
/// after `//` if the scheme is followed by one (`zoommtg://zoom.us/j` means
/// `zoom.us`), else the host of the `https://`-prefixed reading
/// (`example.com:abc` means `example.com`).
fn unknown_scheme_guess(input: &str, rest: &str) -> Option<String> {
    if starts_with_two_slashes(rest) {
        return lenient_host(rest);
    }
    let prefixed = format!("https://{input}");
    match Url::parse(&prefixed) {
        Ok(u) => u.host().as_ref().and_then(canonical),
        Err(_) => lenient_host(&prefixed),
    }
}

/// The input without the leading and trailing C0 controls and spaces the URL
/// parser ignores.
fn trim_c0(input: &str) -> &str {
    input.trim_matches(|c: char| c <= ' ')
}

/// The scheme of `input`, lowercase, and what follows its colon; `None` if
/// the input does not start with one. Tabs and newlines inside are skipped,
/// as the URL parser removes them first (`java\tscript:` is `javascript:`).
pub(super) fn split_scheme(input: &str) -> Option<(String, &str)> {
    let mut scheme = String::new();
    for (i, c) in input.char_indices() {
        match c {
            '\t' | '\n' | '\r' => {}
            ':' if !scheme.is_empty() => return Some((scheme, &input[i + 1..])),
            c if c.is_ascii_alphabetic() => scheme.push(c.to_ascii_lowercase()),
            c if !scheme.is_empty() && (c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) => {
                scheme.push(c)
            }
            _ => return None,
        }
    }
    None
}

/// Whether `input` starts with two slashes or backslashes (a scheme-relative
/// URL), tabs and newlines aside.
fn starts_with_two_slashes(input: &str) -> bool {
    input
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .take(2)
        .filter(|c| matches!(c, '/' | '\\'))
        .count()
        == 2
}

/// Whether what follows a colon reads as a port: one or more digits, then
/// the end, `/`, `\`, `?` or `#`.
fn is_port(rest: &str) -> bool {
    let mut chars = rest.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r'));
    chars.next().is_some_and(|c| c.is_ascii_digit())
        && chars
            .find(|c| !c.is_ascii_digit())
            .is_none_or(|c| matches!(c, '/' | '\\' | '?' | '#'))
}

/// The reach of a URL of a scheme whose URLs have a host.
fn host_reach(url: &str) -> Reach {
    match Url::parse(url) {
        Ok(u) => match u.host().as_ref().map(canonical) {
            Some(Some(host)) => Reach::Host(host),
            Some(None) => unreadable("the host is only dots", None),
            None => unreadable("the url has no host", None),
        },
        Err(e) => unreadable(problem(e), lenient_host(url)),
    }
}

/// The host of a URL that does not parse, read leniently: after the scheme
/// and any slashes, up to the path, after the last `@`, before the port.
fn lenient_host(url: &str) -> Option<String> {
    let after = split_scheme(url).map_or(url, |(_, rest)| rest);
    let authority = after
        .trim_start_matches(['/', '\\', '\t', '\n', '\r'])
        .split(['/', '\\', '?', '#'])
        .next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => host_port.split(':').next()?,
    };
    let host: String = host
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    normalize_host(&host)
}

/// The host of the origin at the start of `inner` (the part of a `blob:` or
/// `filesystem:` URL after its scheme); `None` for an opaque origin.
fn origin_host(inner: &str) -> Option<String> {
    let url = Url::parse(trim_c0(inner)).ok()?;
    if !HOST_SCHEMES.contains(url.scheme()) {
        return None;
    }
    canonical(&url.host()?)
}

/// The host of an `intent:` URL's `S.browser_fallback_url`, if it has one.
fn intent_fallback(input: &str) -> Option<String> {
    let (_, extras) = input.split_once("#Intent;")?;
    let encoded = extras
        .split(';')
        .find_map(|kv| kv.strip_prefix("S.browser_fallback_url="))?;
    let fallback = percent_decode_str(encoded).decode_utf8_lossy();
    // Only a URL with a host: reading any other kind here could nest
    // `intent:` inside `intent:` without end.
    let (scheme, _) = split_scheme(trim_c0(&fallback))?;
    match host_reach(trim_c0(&fallback)) {
        Reach::Host(h) if HOST_SCHEMES.contains(scheme.as_str()) => Some(h),
        _ => None,
    }
}

/// The reach of a `javascript:` URL: its code, percent-decoded.
fn script(input: &str) -> Reach {
    match Url::parse(input) {
        Ok(u) => {
            let code = &u.as_str()[u.scheme().len() + 1..];
            Reach::Script(percent_decode_str(code).decode_utf8_lossy().into_owned())
        }
        Err(e) => unreadable(problem(e), None),
    }
}

/// The reach of a `file:` URL (`rest` is what follows `file:`): a host if
/// it names one other than this machine (the URL parser turns `localhost`
/// into no host). The URL Standard reads `file:////server/share` as no host
/// and a local path; Chrome on Windows reads four or more slashes as the
/// share on `server`, so it is `server`.
fn file(input: &str, rest: &str) -> Reach {
    let url = match Url::parse(input) {
        Ok(u) => u,
        Err(e) => return unreadable(problem(e), lenient_host(input)),
    };
    if let Some(host) = url.host().as_ref().and_then(canonical) {
        return Reach::Host(host);
    }
    let rest: String = rest
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let unc = rest.trim_start_matches(['/', '\\']);
    if rest.len() - unc.len() < 4 {
        return Reach::Nowhere("a file on this machine");
    }
    let server = unc.split(['/', '\\', '?', '#']).next().unwrap_or("");
    match Host::parse(server).ok().as_ref().map(canonical) {
        Some(Some(host)) => Reach::Host(host),
        _ => unreadable("the file share's server is not a host", lenient_host(unc)),
    }
}

/// The reach of `view-source:` followed by `inner`: the inner URL's.
fn view_source(inner: &str, depth: u8) -> Reach {
    if split_scheme(trim_c0(inner)).is_some_and(|(s, _)| s == "view-source") {
        return unreadable("`view-source:` inside `view-source:`", None);
    }
    classify(inner, Reading::Navigation, depth)
        .unwrap_or_else(|| unreadable("`view-source:` with nothing after it", None))
}

/// The reach of a `data:` URL: the hosts of the URLs in its body.
///
/// The fragment is read too. Chrome leaves it out of the body (the Fetch
/// Standard's data: URL processor does), so its URLs load nothing; reading
/// it costs at most an extra site, and an unescaped `#` in a body is easy to
/// write without meaning it.
fn document(input: &str, depth: u8) -> Reach {
    if depth >= MAX_NESTING {
        return Reach::Document {
            hosts: Vec::new(),
            unreadable: true,
        };
    }
    let Ok(data) = DataUrl::process(input) else {
        return unreadable("a `data:` url needs a comma before its body", None);
    };
    let Ok((body, fragment)) = data.decode_to_vec() else {
        return Reach::Document {
            hosts: Vec::new(),
            unreadable: true,
        };
    };
    let mut hosts = Vec::new();
    let mut unreadable = false;
    let mut read = |text: &str| {
        for url in absolute_urls_in(text) {
            match classify(&url, Reading::Content, depth + 1) {
                Some(Reach::Host(h)) => hosts.push(h),
                Some(Reach::Document {
                    hosts: inner,
                    unreadable: u,
                }) => {
                    hosts.extend(inner);
                    unreadable |= u;
                }
                // A URL the browser cannot load either: only its guess.
                Some(Reach::Unreadable { guess, .. }) => hosts.extend(guess),
                _ => {}
            }
        }
    };
    read(&body_text(&data, &body));
    if let Some(fragment) = fragment {
        read(&percent_decode_str(&fragment.to_percent_encoded()).decode_utf8_lossy());
    }
    hosts.sort_unstable();
    hosts.dedup();
    Reach::Document { hosts, unreadable }
}

/// A `data:` URL's document as the browser decodes it: its MIME type's
/// essence (`text/html`) and its body as text. `None` for a URL that is not
/// `data:`, `Some(None)` for one whose body cannot be decoded (no comma, bad
/// base64).
pub(crate) fn data_document(input: &str) -> Option<Option<(String, String)>> {
    let (scheme, _) = split_scheme(trim_c0(input))?;
    if scheme != "data" {
        return None;
    }
    let Ok(data) = DataUrl::process(input) else {
        return Some(None);
    };
    let Ok((body, _)) = data.decode_to_vec() else {
        return Some(None);
    };
    let mime = data.mime_type();
    let essence = format!("{}/{}", mime.type_, mime.subtype);
    Some(Some((essence, body_text(&data, &body).into_owned())))
}

/// A decoded `data:` body as text: UTF-16 when a byte-order mark or the
/// charset says so (the only encodings browsers support that are not
/// ASCII-compatible), else UTF-8, with bytes that are not UTF-8 replaced;
/// URLs are ASCII in every other encoding a browser reads HTML in.
fn body_text<'b>(data: &DataUrl<'_>, body: &'b [u8]) -> Cow<'b, str> {
    let charset = data
        .mime_type()
        .get_parameter("charset")
        .map(str::to_ascii_lowercase);
    let big_endian = match (body, charset.as_deref()) {
        ([0xFF, 0xFE, ..], _) => false,
        ([0xFE, 0xFF, ..], _) => true,
        (_, Some("utf-16be")) => true,
        (_, Some("utf-16" | "utf-16le")) => false,
        _ => return String::from_utf8_lossy(body),
    };
    let units = body.chunks_exact(2).map(|p| {
        let pair = [p[0], p[1]];
        if big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    });
    Cow::Owned(
        char::decode_utf16(units)
            .map(|c| c.unwrap_or('\u{FFFD}'))
            .collect(),
    )
}

/// Why a URL does not parse, as a phrase for the model.
fn problem(e: url::ParseError) -> &'static str {
    use url::ParseError as E;
    match e {
        E::EmptyHost => "the url has no host",
        E::IdnaError => "the host is not a valid domain name",
        E::InvalidDomainCharacter => "the host has a character no domain name can have",
        E::InvalidPort => "the port is not a number from 0 to 65535",
        E::InvalidIpv4Address => "the host is a malformed IPv4 address",
        E::InvalidIpv6Address => "the host is a malformed IPv6 address",
        E::RelativeUrlWithoutBase => "the url is relative",
        E::Overflow => "the url is longer than 4 GB",
        _ => "the url does not parse",
    }
}

/// An [`Reach::Unreadable`] with `reason`.
fn unreadable(reason: &str, guess: Option<String>) -> Reach {
    Reach::Unreadable {
        reason: reason.to_owned(),
        guess,
    }
}

/// At most `max` characters of `s`, with `…` if cut.
pub(super) fn clip(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
        None => Cow::Borrowed(s),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;
    use crate::{
        key::{normalize_host, registrable},
        read::url::base64,
    };

    /// `tests/fixtures/urls.toml`; its head says what each table means.
    #[derive(Deserialize)]
    struct Corpus {
        reach: Vec<ReachRow>,
        alike: Vec<Pair>,
        apart: Vec<Pair>,
        registrable: Vec<KeyRow>,
        normalize: Vec<NormalizeRow>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct ReachRow {
        input: String,
        #[serde(default)]
        absolute: bool,
        host: Option<String>,
        #[serde(default)]
        nowhere: bool,
        script: Option<String>,
        hosts: Option<Vec<String>>,
        #[serde(default)]
        unreadable_body: bool,
        #[serde(default)]
        unreadable: bool,
        guess: Option<String>,
        #[serde(default)]
        any_guess: bool,
        #[serde(default)]
        relative: bool,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Pair {
        a: String,
        b: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct KeyRow {
        host: String,
        key: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct NormalizeRow {
        input: String,
        host: Option<String>,
        #[serde(default)]
        none: bool,
    }

    fn corpus() -> Corpus {
        toml::from_str(include_str!("../../../tests/fixtures/urls.toml"))
            .expect("the corpus parses")
    }

    /// What a row expects, or why the row itself is wrong.
    fn expected(row: &ReachRow) -> Result<Option<Reach>, String> {
        let kinds = [
            row.host.is_some(),
            row.nowhere,
            row.script.is_some(),
            row.hosts.is_some(),
            row.unreadable,
            row.relative,
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err("needs exactly one expectation".into());
        }
        Ok(if let Some(h) = &row.host {
            Some(Reach::Host(h.clone()))
        } else if let Some(code) = &row.script {
            Some(Reach::Script(code.clone()))
        } else if let Some(hosts) = &row.hosts {
            Some(Reach::Document {
                hosts: hosts.clone(),
                unreadable: row.unreadable_body,
            })
        } else if row.unreadable {
            Some(Reach::Unreadable {
                reason: String::new(),
                guess: row.guess.clone(),
            })
        } else if row.relative {
            None
        } else {
            // `Nowhere`'s phrase is not pinned; any phrase matches.
            Some(Reach::Nowhere(""))
        })
    }

    /// Whether `got` is what `want` asks for: reasons and `Nowhere` phrases
    /// are not compared, a guess only when the row names one or none.
    fn matches(got: &Option<Reach>, want: &Option<Reach>, any_guess: bool) -> bool {
        match (got, want) {
            (Some(Reach::Nowhere(_)), Some(Reach::Nowhere(_))) => true,
            (
                Some(Reach::Unreadable { reason, guess }),
                Some(Reach::Unreadable { guess: want, .. }),
            ) => !reason.is_empty() && (any_guess || guess == want),
            _ => got == want,
        }
    }

    fn host_of(input: &str) -> Result<String, String> {
        match reach(input) {
            Reach::Host(h) => Ok(h),
            other => Err(format!("{input:?} reaches {other:?}, not a host")),
        }
    }

    #[test]
    fn corpus_urls_reach_what_the_corpus_says() {
        let corpus = corpus();
        let mut failures = Vec::new();
        for row in &corpus.reach {
            let want = match expected(row) {
                Ok(w) => w,
                Err(e) => {
                    failures.push(format!("row {:?}: {e}", row.input));
                    continue;
                }
            };
            let got = if row.absolute {
                reach_absolute(&row.input)
            } else {
                Some(reach(&row.input))
            };
            if !matches(&got, &want, row.any_guess) {
                failures.push(format!(
                    "{}{:?}\n    got  {got:?}\n    want {want:?}",
                    if row.absolute { "absolute " } else { "" },
                    row.input
                ));
            }
        }
        for pair in &corpus.alike {
            match (host_of(&pair.a), host_of(&pair.b)) {
                (Ok(a), Ok(b)) if registrable(&a) == registrable(&b) => {}
                (a, b) => failures.push(format!(
                    "alike {:?} / {:?}: {a:?} / {b:?} key {:?} / {:?}",
                    pair.a,
                    pair.b,
                    a.as_deref().map(registrable),
                    b.as_deref().map(registrable)
                )),
            }
        }
        for pair in &corpus.apart {
            match (host_of(&pair.a), host_of(&pair.b)) {
                (Ok(a), Ok(b)) if registrable(&a) != registrable(&b) => {}
                (a, b) => {
                    failures.push(format!("apart {:?} / {:?}: {a:?} / {b:?}", pair.a, pair.b))
                }
            }
        }
        for row in &corpus.registrable {
            let got = registrable(&row.host);
            if got != row.key {
                failures.push(format!(
                    "registrable {:?}: got {got:?}, want {:?}",
                    row.host, row.key
                ));
            }
        }
        for row in &corpus.normalize {
            let got = normalize_host(&row.input);
            if row.none == row.host.is_some() || got != row.host {
                failures.push(format!(
                    "normalize {:?}: got {got:?}, want {:?}",
                    row.input, row.host
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{} corpus row(s) failed:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }

    /// The reasons reach the model: their wording is reviewed here.
    #[test]
    fn unreadable_urls_say_what_is_wrong() {
        let reason = |input: &str| match reach(input) {
            Reach::Unreadable { reason, .. } => reason,
            other => panic!("{input:?} reaches {other:?}"),
        };
        assert_eq!(reason(""), "the url is empty");
        assert_eq!(reason("https://"), "the url has no host");
        assert_eq!(
            reason("https://example.com:99999/"),
            "the port is not a number from 0 to 65535"
        );
        assert_eq!(
            reason("https://xn--a.com/"),
            "the host is not a valid domain name"
        );
        assert_eq!(
            reason("https://[::1/"),
            "the host is a malformed IPv6 address"
        );
        assert_eq!(reason("foo:bar"), "`foo:` is not a scheme pace-hook knows");
        assert_eq!(
            reason(&format!("{}:bar", "a".repeat(100))),
            format!("`{}…:` is not a scheme pace-hook knows", "a".repeat(40))
        );
        assert_eq!(
            reason("tel:5551234"),
            "a `tel:` url opens the app or website set to handle it"
        );
        assert_eq!(
            reason("data:text/html"),
            "a `data:` url needs a comma before its body"
        );
        assert_eq!(
            reason("\u{A0}https://example.com/"),
            "the url starts with a space character the browser does not remove"
        );
    }

    #[test]
    fn nested_data_documents_are_read_to_a_depth_then_unreadable() {
        let mut url = "data:text/html,<img src=\"https://deep.example/\">".to_owned();
        for depth in 1..=6 {
            url = format!(
                "data:text/html;base64,{}",
                base64(format!("<iframe src=\"{url}\"></iframe>").as_bytes())
            );
            // `depth` base64 layers around a plain document: the plain one is
            // read as text by the document around it, at `depth - 1`.
            let max = usize::from(MAX_NESTING);
            let want = Reach::Document {
                hosts: if depth <= max {
                    vec!["deep.example".into()]
                } else {
                    vec![]
                },
                unreadable: depth >= max,
            };
            assert_eq!(reach(&url), want, "{depth} deep");
        }
    }
}
