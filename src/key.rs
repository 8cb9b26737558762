//! Site keys: the registrable domain a host is paced under, a bare host in
//! canonical form, and the file name a key is stored under. The foundation
//! of every site the gate keys by; the readers in `read::url` find hosts in
//! URLs, the config and the stores key them here.

use std::net::{IpAddr, Ipv6Addr};

use url::Host;

/// A bare host (from config `domains`, or a host already stored): canonical
/// as in `read::url::Reach::Host`, `None` if it is not a host.
///
/// It goes through the same host parser as a URL's host (percent-decoding,
/// IDNA, IPv4 numbers in any base, IPv6 with or without brackets), so a
/// configured domain matches the host its URLs reach: `Bücher.DE.` is
/// `xn--bcher-kva.de`. Stricter than a URL in three ways, since a bare host
/// that breaks them is a typo: whitespace anywhere but at the ends is
/// refused (a URL parser would drop a tab); so are empty labels (`..`,
/// `.example.com`), and ports, paths and userinfo (`a/b`, `host:80`).
pub(crate) fn normalize_host(input: &str) -> Option<String> {
    let trimmed = input.trim_matches(|c: char| c.is_whitespace() || c.is_control());
    if trimmed.is_empty() || trimmed.contains(|c: char| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let host = canonical_host(trimmed)?;
    if !host.contains(':') && host.split('.').any(str::is_empty) {
        return None;
    }
    Some(host)
}

/// The gate key for a host: its registrable domain by the public suffix list
/// (`www.example.co.uk` → `example.co.uk`); IP addresses, `localhost` and
/// `*.localhost` as themselves; a host that is itself a public suffix (or has
/// no known suffix) as itself.
///
/// Private suffixes count (`a.github.io` and `b.github.io` are two sites),
/// as browsers count them for cookies. A TLD the list does not name follows
/// the list's default rule `*`, as browsers do (`a.corp.internal` →
/// `corp.internal`; the web platform tests rely on `www.web-platform.test`
/// being same-site with `web-platform.test`). The list is fed punycode, the
/// form hosts are canonical in; it holds IDN rules in both forms. A host that
/// is not canonical is made so first; one that cannot be is keyed as itself,
/// lowercased. A host with an empty label (`a..com`, which Chrome accepts and
/// DNS refuses) keys as itself rather than as the suffix `.com`.
pub(crate) fn registrable(host: &str) -> String {
    let host = canonical_host(host).unwrap_or_else(|| host.to_lowercase());
    if host.parse::<IpAddr>().is_ok() || host == "localhost" || host.ends_with(".localhost") {
        return host;
    }
    match psl::domain_str(&host) {
        Some(d) if !d.is_empty() && !d.starts_with('.') && !d.contains("..") => d.to_owned(),
        _ => host,
    }
}

/// A parsed host in canonical form; `None` for a domain of dots only.
pub(crate) fn canonical<S: AsRef<str>>(host: &Host<S>) -> Option<String> {
    match host {
        Host::Domain(d) => {
            let d = d.as_ref().trim_end_matches('.');
            (!d.is_empty()).then(|| d.to_owned())
        }
        Host::Ipv4(a) => Some(a.to_string()),
        Host::Ipv6(a) => Some(canonical_ipv6(a)),
    }
}

/// An IPv6 address in canonical form; an IPv4-mapped one (`::ffff:a.b.c.d`)
/// as its IPv4 address, since a connection to it goes to that IPv4 server:
/// one key for one server.
pub(crate) fn canonical_ipv6(a: &Ipv6Addr) -> String {
    match a.to_ipv4_mapped() {
        Some(v4) => v4.to_string(),
        None => a.to_string(),
    }
}

/// A bare host in canonical form, empty labels allowed (a URL may have them).
pub(crate) fn canonical_host(input: &str) -> Option<String> {
    if let Ok(v6) = input.parse::<Ipv6Addr>() {
        return Some(canonical_ipv6(&v6));
    }
    canonical(&Host::parse(input).ok()?)
}

/// A file name for `key`: safe characters kept, everything else (and a leading
/// dot) written as `%XX`; long keys are cut and given a hash so they stay
/// unique and under every filesystem's name limit.
pub(crate) fn file_name(key: &str) -> String {
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
pub(crate) fn key_from_file_name(name: &str) -> Option<String> {
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
