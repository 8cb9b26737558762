//! Sites: from a URL or host to the key that one gate is kept under, and from
//! a key to a file name.
//!
//! Invariant: whatever a URL, a tab title or a config value says, the file
//! name made from a key is one path component of safe characters, so nothing
//! is ever written outside the state directory.

use std::net::IpAddr;

#[cfg(doc)]
use crate::config::Config;

/// Schemes that name no host a request could go to.
const HOSTLESS_SCHEMES: &[&str] = &[
    "about",
    "chrome",
    "chrome-extension",
    "data",
    "javascript",
    "file",
    "blob",
    "edge",
    "devtools",
    "view-source",
    "mailto",
    "tel",
];

/// The host a URL points at, lowercase; `None` for URLs that reach no site
/// (`about:blank`, `chrome://newtab`, `file:///…`) or that are not URLs. The
/// scheme is optional, as in claude-in-chrome's `navigate`.
pub fn host_of_url(url: &str) -> Option<String> {
    let url = url.trim();
    let rest = match url.find("://") {
        Some(i) => {
            let scheme = url[..i].to_ascii_lowercase();
            if HOSTLESS_SCHEMES.contains(&scheme.as_str()) {
                return None;
            }
            &url[i + 3..]
        }
        None => {
            if let Some((scheme, _)) = url.split_once(':')
                && HOSTLESS_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str())
            {
                return None;
            }
            url.strip_prefix("//").unwrap_or(url)
        }
    };
    let authority = rest.split(['/', '?', '#', '\\']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    normalize_host(host)
}

/// A host in canonical form: lowercase, no trailing dot, no characters a host
/// cannot have. `None` if nothing usable is left.
pub fn normalize_host(host: &str) -> Option<String> {
    let trimmed = host.trim().trim_end_matches('.');
    let mut h = if trimmed.is_ascii() {
        trimmed.to_ascii_lowercase()
    } else {
        trimmed.to_lowercase()
    };
    if let Some(v) = h.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        h = v.to_owned();
    }
    let bad = |c: char| c.is_whitespace() || c.is_control() || "/\\?#@[]<>\"'`{}|^%".contains(c);
    let bad_byte = |b: &u8| {
        b.is_ascii_whitespace() || b.is_ascii_control() || b"/\\?#@[]<>\"'`{}|^%".contains(b)
    };
    let any_bad = if h.is_ascii() {
        h.as_bytes().iter().any(bad_byte)
    } else {
        h.contains(bad)
    };
    if h.is_empty() || h.len() > 253 || any_bad || h.starts_with('.') || h.contains("..") {
        return None;
    }
    Some(h)
}

/// Whether `url` is proved to load nothing from any site (`about:blank`,
/// `chrome://…`, `file://…`): only such URLs reach no site.
pub fn reaches_nowhere(url: &str) -> bool {
    let t = url.trim();
    t.split_once(':').is_some_and(|(scheme, _)| {
        let s = scheme.to_ascii_lowercase();
        HOSTLESS_SCHEMES.contains(&s.as_str()) && !matches!(s.as_str(), "data" | "javascript")
    })
}

/// The code of a `javascript:` URL, percent-decoded; `None` for any other
/// URL. Such a navigation runs the code in the tab instead of loading a page.
pub fn script_of_url(url: &str) -> Option<String> {
    let t = url.trim_start();
    let (scheme, rest) = t.split_once(':')?;
    if !scheme.eq_ignore_ascii_case("javascript") {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(h) = rest.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(h, 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// The gate key for a host: its registrable domain (`www.example.co.uk` and
/// `api.example.co.uk` are both `example.co.uk`); IP addresses and
/// `localhost` key as themselves. The config never changes a host's key (see
/// [`Config::requests_for_host`]): every process meets every other on it.
pub fn key_for_host(host: &str) -> String {
    if host.parse::<IpAddr>().is_ok() || host == "localhost" || host.ends_with(".localhost") {
        return host.to_owned();
    }
    psl::domain_str(host).unwrap_or(host).to_owned()
}

/// The gate key for a URL, or `None` for a URL that reaches no site.
pub fn key_for_url(url: &str) -> Option<String> {
    host_of_url(url).map(|h| key_for_host(&h))
}

/// A file name for `key`: safe characters kept, everything else (and a leading
/// dot) written as `%XX`; long keys are cut and given a hash so they stay
/// unique and under every filesystem's name limit.
pub fn file_name(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for (i, b) in key.bytes().enumerate() {
        let safe = b.is_ascii_lowercase()
            || b.is_ascii_digit()
            || b == b'-'
            || b == b'_'
            || (b == b'.' && i > 0);
        if safe {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.is_empty() {
        out.push_str("%00");
    }
    if out.len() > 120 {
        let hash = fnv1a(key.as_bytes());
        out.truncate(100);
        out.push_str(&format!("~{hash:016x}"));
    }
    out
}

/// The key a [`file_name`] was made from, when it was not shortened.
pub fn key_from_file_name(name: &str) -> Option<String> {
    if name.contains('~') {
        return None;
    }
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = name.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::Config;

    fn config() -> Config {
        Config::parse(
            "[[site]]\nname = \"social\"\ndomains = [\"example.social\", \"cdn.example-social.net\"]\n",
            Path::new("t.toml"),
        )
        .unwrap()
    }

    #[test]
    fn host_is_found_with_or_without_scheme() {
        assert_eq!(
            host_of_url("https://Example.COM/a?b#c").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            host_of_url("example.com/path").as_deref(),
            Some("example.com")
        );
        assert_eq!(host_of_url("example.com").as_deref(), Some("example.com"));
        assert_eq!(
            host_of_url("http://u:p@host.org:8080/x").as_deref(),
            Some("host.org")
        );
        assert_eq!(
            host_of_url("localhost:3000/x").as_deref(),
            Some("localhost")
        );
        assert_eq!(host_of_url("http://[::1]:8080/").as_deref(), Some("::1"));
        assert_eq!(
            host_of_url("https://example.com./").as_deref(),
            Some("example.com")
        );
    }

    #[test]
    fn hostless_urls_reach_no_site() {
        for url in [
            "about:blank",
            "chrome://newtab/",
            "file:///etc/passwd",
            "data:text/html,x",
            "javascript:alert(1)",
            "",
        ] {
            assert_eq!(host_of_url(url), None, "{url}");
        }
    }

    #[test]
    fn subdomains_share_their_registrable_domain() {
        assert_eq!(key_for_host("www.example.co.uk"), "example.co.uk");
        assert_eq!(key_for_host("api.example.co.uk"), "example.co.uk");
        assert_eq!(key_for_host("a.b.example.com"), "example.com");
    }

    #[test]
    fn a_configured_site_paces_its_domains_together_and_on_their_own_keys() {
        let c = config();
        let keys = |h: &str| {
            c.requests_for_host(h)
                .into_iter()
                .map(|r| r.site)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            keys("example.social"),
            ["example-social.net", "example.social"]
        );
        assert_eq!(
            keys("m.example.social"),
            ["example-social.net", "example.social"]
        );
        assert_eq!(
            keys("cdn.example-social.net"),
            ["example-social.net", "example.social"]
        );
        // A different registrable domain that only ends with the same letters.
        assert_eq!(keys("notexample.social"), ["notexample.social"]);
    }

    #[test]
    fn addresses_and_localhost_key_as_themselves() {
        assert_eq!(key_for_host("127.0.0.1"), "127.0.0.1");
        assert_eq!(key_for_host("::1"), "::1");
        assert_eq!(key_for_host("localhost"), "localhost");
    }

    #[test]
    fn file_names_stay_inside_one_directory() {
        for key in [
            "..",
            ".",
            "a/b",
            "../../etc/passwd",
            "::1",
            "%",
            "\0",
            "é.com",
        ] {
            let f = file_name(key);
            assert!(
                !f.contains('/') && !f.starts_with('.') && !f.is_empty(),
                "{key} -> {f}"
            );
            assert_eq!(key_from_file_name(&f).as_deref(), Some(key), "{key} -> {f}");
        }
    }

    #[test]
    fn long_keys_are_shortened_uniquely() {
        let a = file_name(&"a".repeat(300));
        let b = file_name(&format!("{}b", "a".repeat(299)));
        assert!(a.len() <= 120 && b.len() <= 120);
        assert_ne!(a, b);
    }
}
