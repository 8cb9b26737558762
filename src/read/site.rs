//! Sites: from a URL or host to the key that one gate is kept under, and from
//! a key to a file name. Reading the URL is the `url` module's job.
//!
//! Invariant: whatever a URL, a tab title or a config value says, the file
//! name made from a key is one path component of safe characters, so nothing
//! is ever written outside the state directory.

#[cfg(doc)]
use crate::config::Config;
use crate::read::url::{Reach, reach};

/// The host a URL, a host or a site a person typed means (`pace-hook run
/// --site`, the library's `Pacer`): the URL's host, or for a URL that cannot
/// be read, the host it most likely means (`foo:bar` is `foo`). `None` for
/// URLs that reach no one host (`about:blank`, scripts, `data:` documents).
/// For hook events, where what cannot be read must pace every site, use
/// [`crate::read::resolve::hosts_of_url`].
pub(crate) fn host_of_url(url: &str) -> Option<String> {
    match reach(url) {
        Reach::Host(host)
        | Reach::Unreadable {
            guess: Some(host), ..
        } => Some(host),
        _ => None,
    }
}

/// The code of a `javascript:` URL, decoded as the browser runs it; `None`
/// for any other URL. Such a navigation runs the code in the tab instead of
/// loading a page.
pub(crate) fn script_of_url(url: &str) -> Option<String> {
    match reach(url) {
        Reach::Script(code) => Some(code),
        _ => None,
    }
}

/// The gate key for a host: its registrable domain (`www.example.co.uk` and
/// `api.example.co.uk` are both `example.co.uk`); IP addresses and
/// `localhost` key as themselves. The config never changes a host's key (see
/// [`crate::gate::requests::for_host`]): every process meets every other on it.
pub(crate) fn key_for_host(host: &str) -> String {
    crate::key::registrable(host)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::Config;
    use crate::key::{file_name, key_from_file_name};

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
            crate::gate::requests::for_host(&c, h)
                .unwrap()
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
