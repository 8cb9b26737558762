//! The fast path: the `Bash` hook fires on every shell command an agent
//! runs, and nearly all of them touch no network. This decides, in one pass
//! over the bytes and before any parser runs, that a command *cannot* lead
//! to a request; everything else goes to the parser.
//!
//! It is a pre-filter, not a reader: it never says "a request", only "no
//! request possible" or "look closer", and it errs towards looking. A command
//! is looked at when it has any of:
//! - `://` (a URL, for any program);
//! - `$` or a backquote (an expansion can name a program or build a URL:
//!   `$CMD`, `$(…)`, `$'\x63url'`), or a glob or brace character in a name
//!   (`/usr/bin/cur?`, `{cu,}rl`);
//! - `./` or `~/` (a script run by name, which is logged), `/dev/tcp/` and
//!   `/dev/udp/` (bash's own sockets);
//! - a word that, with every quote and backslash taken out (bash joins
//!   `cu''rl`, `c\url` and `"cu"rl` into `curl`), is a fetcher, an
//!   interpreter, a shell, or a program that runs commands it is handed,
//!   by its last path component and in any letter case (macOS file systems
//!   run `CURL` as `curl`): see [`TRIGGERS`].
//!
//! What it cannot see is said in the README: an alias or function defined
//! outside the command (the user's shell profile), and programs not on the
//! list that make requests of their own (package managers, `git`): their
//! requests are theirs to pace.

use crate::names::{Names, names};

/// Names that send a command to the parser: fetchers, interpreters that take
/// code, shells, and programs that run other programs from text or input.
/// Compared with the word's last `/` component, lowercased, `.exe` dropped;
/// a name followed by digits and dots (`python3.12`, `perl5.36`) counts as
/// the name.
pub(crate) const TRIGGERS: Names = names![
    // Fetchers.
    "curl",
    "curlie",
    "wget",
    "wget2",
    "http",
    "https",
    "httpie",
    "xh",
    "xhs",
    "aria2c",
    "gh",
    "lynx",
    "w3m",
    "links",
    "elinks",
    "fetch",
    "ftp",
    "lftp",
    "hurl",
    "grpcurl",
    "websocat",
    "wscat",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "openssl",
    "ab",
    "hey",
    "wrk",
    "siege",
    "oha",
    "k6",
    "vegeta",
    "bombardier",
    "yt-dlp",
    "youtube-dl",
    "gallery-dl",
    "httrack",
    "lwp-request",
    "lwp-download",
    "iwr",
    "irm",
    "invoke-webrequest",
    "invoke-restmethod",
    "open",
    "xdg-open",
    "httpx",
    "links2",
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
    "firefox",
    "msedge",
    "headless_shell",
    // Interpreters that take code inline or on stdin.
    "python",
    "pypy",
    "node",
    "nodejs",
    "deno",
    "bun",
    "ruby",
    "irb",
    "perl",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "rscript",
    "osascript",
    "pwsh",
    "powershell",
    // Shells and what runs commands from text or input.
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "yash",
    "fish",
    "csh",
    "tcsh",
    "busybox",
    "toybox",
    "eval",
    "source",
    "exec",
    "env",
    "command",
    "builtin",
    "xargs",
    "parallel",
    "watch",
    "script",
    "su",
    "alias",
    "hash",
    "trap",
    "coproc",
    "pace-hook",
];

/// `GET`, `HEAD`, `POST` and `PUT` of libwww-perl, which only an exact
/// match names: `head` is the usual `head`.
const EXACT: Names = names!["GET", "HEAD", "POST", "PUT"];

/// Whether `command` may lead to a request and must be parsed; `false` only
/// when it cannot.
pub(crate) fn needs_parse(command: &str) -> bool {
    let bytes = command.as_bytes();
    if bytes
        .iter()
        .any(|&b| matches!(b, b'$' | b'`' | b'*' | b'?' | b'[' | b'{'))
        || command.contains("://")
        || command.contains("./")
        || command.contains("~/")
        || command.contains("/dev/tcp/")
        || command.contains("/dev/udp/")
    {
        return true;
    }
    names_a_trigger(command)
}

/// Whether a word of `text`, with quotes and backslashes taken out, names a
/// trigger: the word part of [`needs_parse`].
pub(crate) fn names_a_trigger(text: &str) -> bool {
    let bytes = text.as_bytes();
    // Words with quotes and backslashes taken out: a run of name characters,
    // across quotes, ends at anything else.
    let mut word: Vec<u8> = Vec::with_capacity(32);
    let mut continued = false;
    for &b in bytes.iter().chain([b' '].iter()) {
        // A backslash before a newline joins the lines, inside a word too
        // (`c\<newline>url`): both go.
        if continued && b == b'\n' {
            continued = false;
            continue;
        }
        continued = b == b'\\';
        match b {
            b'\'' | b'"' | b'\\' => {}
            b if is_name_byte(b) => word.push(b),
            _ => {
                if !word.is_empty() && is_trigger(&word) {
                    return true;
                }
                word.clear();
            }
        }
    }
    false
}

/// Bytes a program name is made of here: letters, digits, `_ - . / + %` and
/// anything not ASCII (a name may be written in any script).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'+' | b'%') || b >= 0x80
}

/// Whether a word (quotes removed) names a trigger.
fn is_trigger(word: &[u8]) -> bool {
    let base = match word.iter().rposition(|&b| b == b'/') {
        Some(i) => &word[i + 1..],
        None => word,
    };
    if base.is_empty() {
        return false;
    }
    if let Ok(s) = std::str::from_utf8(base)
        && EXACT.contains(s)
    {
        return true;
    }
    let mut lower: Vec<u8> = base.to_ascii_lowercase();
    if lower.ends_with(b".exe") {
        lower.truncate(lower.len() - 4);
    }
    // `python3.12`: the name before trailing digits and dots.
    let stem_len = lower.len()
        - lower
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_digit() || **b == b'.')
            .count();
    let stem = &lower[..stem_len];
    let named = |name: &[u8]| std::str::from_utf8(name).is_ok_and(|n| TRIGGERS.contains(n));
    named(&lower) || (!stem.is_empty() && named(stem))
}

#[cfg(test)]
mod tests {
    use super::{EXACT, TRIGGERS, needs_parse};

    #[test]
    fn every_listed_name_is_looked_at_and_its_neighbours_are_not() {
        for name in TRIGGERS.iter().chain(EXACT.iter()) {
            assert!(needs_parse(&format!("{name} x")), "{name}");
            assert!(needs_parse(&format!("/usr/bin/{name} x")), "{name}");
        }
        // Names one letter off listed ones.
        for c in [
            "cur x", "curlx x", "wge x", "nodex x", "pyth x", "aaa x", "zzz x",
        ] {
            assert!(!needs_parse(c), "{c}");
        }
    }

    #[test]
    fn plain_commands_need_no_parse() {
        for c in [
            "ls -la",
            "cargo test --lib shell",
            "git status && git diff --stat",
            "cat src/main.rs | grep -n fn | head -20",
            "rg -n 'TODO' src",
            "mkdir -p target/tmp; touch target/tmp/x",
            "npm test",
            "head -n 5 README.md",
            "echo hello > out.txt",
        ] {
            assert!(!needs_parse(c), "{c}");
        }
    }

    #[test]
    fn every_way_to_name_a_fetcher_is_looked_at() {
        for c in [
            "curl -s example.com",
            "\\curl example.com",
            "cu''rl example.com",
            "c\"u\"rl example.com",
            "c\\url example.com",
            "/usr/bin/curl example.com",
            "CURL example.com",
            "curl.exe example.com",
            "python3.12 -c 'print(1)'",
            "busybox wget example.com",
            "env curl example.com",
            "x=1 wget example.com",
            "GET example.com",
            "echo https://example.com/",
            "$CMD example.com",
            "`printf cu`rl example.com",
            "/usr/bin/cur? example.com",
            "{cu,x}rl example.com",
            "./fetch-all.sh",
            "gh api repos/o/r",
            "ls|sh",
            "a;node -e 1",
            "c\\\nurl example.com",
            "~/bin/scrape",
        ] {
            assert!(needs_parse(c), "{c}");
        }
    }
}
