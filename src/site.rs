//! Sites: from a URL or host to the key that one gate is kept under, and from
//! a key to a file name. Reading the URL is the `reach` module's job.
//!
//! Invariant: whatever a URL, a tab title or a config value says, the file
//! name made from a key is one path component of safe characters, so nothing
//! is ever written outside the state directory.

use crate::{
    config::Config,
    reach::{self, Reach},
};

/// The host a URL points at, canonical (see `reach::reach`); `None` for
/// URLs that reach no one host: pages on no site (`about:blank`,
/// `chrome://newtab`, `file:///…`), scripts, `data:` documents. The scheme is
/// optional, as in claude-in-chrome's `navigate`. For a URL that cannot be
/// read, the host it most likely means, if any (`foo:bar` is `foo`), so it is
/// still paced on that host.
pub fn host_of_url(url: &str) -> Option<String> {
    match reach::reach(url) {
        Reach::Host(host)
        | Reach::Unreadable {
            guess: Some(host), ..
        } => Some(host),
        _ => None,
    }
}

/// A host in canonical form, as URLs' hosts are (see
/// `reach::normalize_host`): `Bücher.DE.` is `xn--bcher-kva.de`. `None` if
/// it is not a host.
pub fn normalize_host(host: &str) -> Option<String> {
    reach::normalize_host(host)
}

/// The site key for a host: the configured site that owns it (longest domain
/// wins), else its registrable domain (`www.example.co.uk` and
/// `api.example.co.uk` are both `example.co.uk`); IP addresses and `localhost`
/// key as themselves. See `reach::registrable`.
pub fn key_for_host(host: &str, config: &Config) -> String {
    if let Some(site) = config.owner_of(host) {
        return site.name.to_owned();
    }
    reach::registrable(host)
}

/// The site key for a URL, or `None` for a URL that reaches no one host.
pub fn key_for_url(url: &str, config: &Config) -> Option<String> {
    host_of_url(url).map(|h| key_for_host(&h, config))
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
        let c = Config::default();
        assert_eq!(key_for_host("www.example.co.uk", &c), "example.co.uk");
        assert_eq!(key_for_host("api.example.co.uk", &c), "example.co.uk");
        assert_eq!(key_for_host("a.b.example.com", &c), "example.com");
    }

    #[test]
    fn configured_site_owns_its_domains_and_subdomains() {
        let c = config();
        assert_eq!(key_for_host("example.social", &c), "social");
        assert_eq!(key_for_host("m.example.social", &c), "social");
        assert_eq!(key_for_host("cdn.example-social.net", &c), "social");
        // A different registrable domain that only ends with the same letters.
        assert_eq!(key_for_host("notexample.social", &c), "notexample.social");
    }

    #[test]
    fn addresses_and_localhost_key_as_themselves() {
        let c = Config::default();
        assert_eq!(key_for_host("127.0.0.1", &c), "127.0.0.1");
        assert_eq!(key_for_host("::1", &c), "::1");
        assert_eq!(key_for_host("localhost", &c), "localhost");
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
