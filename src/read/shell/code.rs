//! Code an interpreter is given inline (`python -c`, `node -e`, `ruby -e`,
//! …) or on standard input (`python3 - <<EOF`). JavaScript goes through the
//! JavaScript analyser. The other languages are not parsed: the rule is the
//! README's for what cannot be read. Every URL literal in the code is a
//! request to its site; code that names an HTTP library but no URL makes one
//! request to a site that cannot be told; a request beside a loop may repeat;
//! code that runs other code (`exec`, `eval`, `subprocess`, `system`) is
//! opaque.

use super::{Request, words::Arg};
use crate::names::{Names, names};

/// A language an interpreter runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    JavaScript,
    Ruby,
    Perl,
    Php,
    Lua,
    R,
    PowerShell,
    AppleScript,
    Tcl,
}

/// Where an interpreter's code comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// Given inline with this flag (`None`: built at run time).
    Inline(Option<String>, &'static str),
    /// A script file or module, by name.
    Script(String),
    /// A script loaded from a URL (`deno run https://…`).
    Url(String),
    /// Read from standard input.
    Stdin,
    /// Nothing runs (`python --version`, `deno fmt`).
    Nothing,
}

impl Lang {
    /// The language of interpreter `base` (a lowercased program name).
    pub(crate) fn of(base: &str) -> Option<Lang> {
        let stem = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        Some(match stem {
            "python" | "pypy" => Lang::Python,
            "node" | "nodejs" | "deno" | "bun" => Lang::JavaScript,
            "ruby" | "irb" => Lang::Ruby,
            "perl" => Lang::Perl,
            "php" => Lang::Php,
            "lua" | "luajit" => Lang::Lua,
            "rscript" => Lang::R,
            "pwsh" | "powershell" => Lang::PowerShell,
            "osascript" => Lang::AppleScript,
            "tclsh" => Lang::Tcl,
            _ => return None,
        })
    }

    /// The flags that take code, and those that take another value.
    fn flags(self) -> (Names, &'static str) {
        match self {
            Lang::Python => (names!["-c"], "mWXQ"),
            Lang::JavaScript => (names!["-e", "--eval", "-p", "--print"], "r"),
            Lang::Ruby => (names!["-e"], "rICEF"),
            Lang::Perl => (names!["-e", "-E"], "IMmx"),
            Lang::Php => (names!["-r"], "cdf"),
            Lang::Lua => (names!["-e"], "l"),
            Lang::R => (names!["-e"], ""),
            Lang::PowerShell => (names!["-c", "-command", "-Command", "-C"], "f"),
            Lang::AppleScript => (names!["-e"], "l"),
            Lang::Tcl => (names![], ""),
        }
    }

    /// Where the code comes from, read from the interpreter's arguments.
    pub(crate) fn read_args(self, args: &[Arg]) -> Source {
        let (code_flags, valued) = self.flags();
        // `deno eval CODE`, `bun eval CODE`, `deno run FILE`, `bun run FILE`.
        if self == Lang::JavaScript
            && let Some(sub) = args.first().and_then(|a| a.lit.as_deref())
            && !sub.starts_with('-')
        {
            let rest = &args[1..];
            let operand = || {
                rest.iter()
                    .find(|a| !a.lit.as_deref().is_some_and(|l| l.starts_with('-')))
            };
            match sub {
                "eval" | "e" => {
                    return match operand() {
                        Some(a) => Source::Inline(a.lit.clone(), "eval"),
                        None => Source::Stdin,
                    };
                }
                "run" | "x" | "test" | "serve" | "compile" | "bundle" | "install" | "i" | "add" => {
                    return match operand().map(|a| a.shown().to_owned()) {
                        Some(f) if f.contains("://") => Source::Url(f),
                        Some(f) => Source::Script(format!("{sub} {f}")),
                        None => Source::Script(sub.to_owned()),
                    };
                }
                "fmt" | "lint" | "check" | "doc" | "types" | "info" | "completions" | "upgrade"
                | "--version" => return Source::Nothing,
                _ => {}
            }
        }
        if self == Lang::PowerShell {
            // PowerShell takes any prefix of a parameter's name: `-e`,
            // `-enc`, `-EncodedCommand` are base64 code.
            for (k, a) in args.iter().enumerate() {
                let l = a.lit.as_deref().unwrap_or("").to_ascii_lowercase();
                if l.starts_with("-e") {
                    return Source::Inline(None, "-EncodedCommand");
                }
                if l.starts_with("-c") {
                    let rest: Option<Vec<&str>> =
                        args[k + 1..].iter().map(|a| a.lit.as_deref()).collect();
                    return Source::Inline(rest.map(|r| r.join(" ")), "-Command");
                }
                if l.starts_with("-f") {
                    return Source::Script(args.get(k + 1).map_or("?", |a| a.shown()).to_owned());
                }
            }
        }
        let mut codes: Vec<Option<String>> = Vec::new();
        // What the options add to the code, for the word reader: the
        // modules they load (`perl -MLWP::Simple`, `ruby -rnet/http`), and a
        // loop around the code for `perl -n`/`-p`, `ruby -n`/`-p`.
        let mut preamble = String::new();
        let mut flag: &'static str = "";
        let mut i = 0;
        while i < args.len() {
            let Some(l) = args[i].lit.as_deref() else {
                if codes.is_empty() {
                    return Source::Script(args[i].raw.clone());
                }
                break;
            };
            if let Some(f) = code_flags.iter().find(|f| *f == l) {
                flag = f;
                codes.push(args.get(i + 1).and_then(|a| a.lit.clone()));
                if args.get(i + 1).is_none() {
                    codes.push(None);
                }
                i += 2;
                continue;
            }
            if l == "-" {
                return if codes.is_empty() {
                    Source::Stdin
                } else {
                    break_inline(codes, flag)
                };
            }
            if l == "--" {
                i += 1;
                break;
            }
            if let Some((name, value)) = l.split_once('=')
                && let Some(f) = code_flags.iter().find(|f| *f == name)
            {
                // `--eval=code`.
                flag = f;
                codes.push(Some(value.to_owned()));
                i += 1;
                continue;
            }
            if matches!(l, "--version" | "-V" | "--help" | "-h") && codes.is_empty() {
                return Source::Nothing;
            }
            if l.starts_with("--") {
                i += 1;
                continue;
            }
            if l.starts_with('-') && l.len() > 1 {
                // A cluster of one-letter options, as getopt reads them:
                // `-Sc code`, `-ne 'code'`, `-e'code'`, `-mjson.tool`.
                let chars: Vec<char> = l[1..].chars().collect();
                let mut took_next = false;
                for (k, c) in chars.iter().enumerate() {
                    let rest: String = chars[k + 1..].iter().collect();
                    let mut value = || {
                        if rest.is_empty() {
                            took_next = true;
                            args.get(i + 1).and_then(|a| a.lit.clone())
                        } else {
                            Some(rest.clone())
                        }
                    };
                    if let Some(f) = code_flags.iter().find(|f| f.len() == 2 && f.ends_with(*c)) {
                        flag = f;
                        let has_next = !rest.is_empty() || args.get(i + 1).is_some();
                        codes.push(if has_next { value() } else { None });
                        break;
                    }
                    if self == Lang::Python && *c == 'm' {
                        let m = value().unwrap_or_else(|| "?".to_owned());
                        return Source::Script(format!("-m {m}"));
                    }
                    if matches!(self, Lang::Perl | Lang::Ruby) && matches!(c, 'n' | 'p') {
                        preamble.push_str("while (<>) {}\n");
                    }
                    if valued.contains(*c) {
                        let v = value();
                        if matches!((self, c), (Lang::Perl, 'M' | 'm') | (Lang::Ruby, 'r')) {
                            preamble.push_str(&format!("use {};\n", v.unwrap_or_default()));
                        }
                        break;
                    }
                }
                i += if took_next { 2 } else { 1 };
                continue;
            }
            break;
        }
        if !codes.is_empty() {
            if !preamble.is_empty() {
                codes.insert(0, Some(preamble));
            }
            return break_inline(codes, flag);
        }
        match args.get(i) {
            Some(a) if a.lit.as_deref().is_some_and(|l| l.contains("://")) => {
                Source::Url(a.shown().to_owned())
            }
            Some(a) => Source::Script(a.shown().to_owned()),
            None => Source::Stdin,
        }
    }

    /// Words that name an HTTP client (a library or a call).
    fn http_words(self) -> Names {
        match self {
            Lang::Python => names![
                "requests",
                "urllib",
                "http.client",
                "httpx",
                "aiohttp",
                "urllib3",
                "pycurl",
                "socket",
                "httplib",
                "webbrowser",
                "ftplib",
                "websocket",
                "mechanize",
                "selenium",
                "playwright",
            ],
            Lang::JavaScript => names![
                "require('http",
                "require(\"http",
                "'node:http",
                "\"node:http",
                "'https'",
                "\"https\"",
                "'http'",
                "\"http\"",
                "undici",
                "axios",
                "node-fetch",
                "got",
                "'net'",
                "\"net\"",
                "node:net",
                "websocket",
                "WebSocket",
                "superagent",
                "puppeteer",
                "playwright",
                "Deno.connect",
                "Bun.connect",
            ],
            Lang::Ruby => names![
                "net/http",
                "Net::HTTP",
                "open-uri",
                "URI.open",
                "Faraday",
                "HTTParty",
                "RestClient",
                "Socket",
                "httpx",
                "Typhoeus",
                "Excon",
                "Mechanize",
            ],
            Lang::Perl => names![
                "LWP",
                "HTTP::Tiny",
                "IO::Socket",
                "Mojo::UserAgent",
                "WWW::Mechanize",
                "Net::HTTP",
                "HTTP::Request",
                "Furl",
            ],
            Lang::Php => names![
                "curl_",
                "file_get_contents",
                "fopen",
                "fsockopen",
                "stream_socket_client",
                "Guzzle",
                "get_headers",
                "readfile",
                "file(",
            ],
            Lang::Lua => names![
                "socket.http",
                "http.request",
                "luasocket",
                "ssl.https",
                "curl",
            ],
            Lang::R => names![
                "download.file",
                "url(",
                "httr",
                "curl",
                "RCurl",
                "readLines",
                "read.csv",
                "fromJSON",
                "xml2",
                "rvest",
            ],
            Lang::PowerShell => names![
                "Invoke-WebRequest",
                "Invoke-RestMethod",
                "iwr",
                "irm",
                "WebClient",
                "HttpClient",
                "Start-BitsTransfer",
                "curl",
                "wget",
            ],
            Lang::AppleScript => names!["open location", "URL", "curl"],
            Lang::Tcl => names!["http::geturl", "socket"],
        }
    }

    /// Words that run other code or programs.
    fn exec_words(self) -> Names {
        match self {
            Lang::Python => names![
                "exec(",
                "eval(",
                "__import__",
                "importlib",
                "compile(",
                "subprocess",
                "os.system",
                "os.popen",
                "os.exec",
                "os.spawn",
                "pty.spawn",
                "runpy",
                "getattr(",
            ],
            Lang::JavaScript => names![],
            Lang::Ruby => names![
                "eval",
                "system",
                "exec",
                "spawn",
                "`",
                "%x",
                "IO.popen",
                "Open3",
                "send(",
                "public_send",
                "instance_eval",
                "class_eval",
                "Kernel.",
                "load ",
                "require_relative",
            ],
            Lang::Perl => names![
                "eval", "system", "exec", "`", "qx", "open(", "do ", "require ",
            ],
            Lang::Php => names![
                "eval",
                "system",
                "exec",
                "shell_exec",
                "passthru",
                "popen",
                "proc_open",
                "`",
                "include",
                "require",
                "call_user_func",
                "$$",
            ],
            Lang::Lua => names![
                "os.execute",
                "io.popen",
                "load(",
                "loadstring",
                "dofile",
                "require",
            ],
            Lang::R => names!["system", "eval(", "parse(", "source(", "do.call"],
            Lang::PowerShell => names![
                "Invoke-Expression",
                "iex",
                "Start-Process",
                "&",
                "Invoke-Command",
                ".Invoke(",
                "ScriptBlock",
                "Add-Type",
            ],
            Lang::AppleScript => names!["do shell script", "run script", "tell application"],
            Lang::Tcl => names!["exec", "eval", "source", "open |", "uplevel", "subst"],
        }
    }

    /// Words that repeat what they hold.
    fn loop_words(self) -> Names {
        match self {
            Lang::Python => names![
                "for ", "while ", "map(", "async ", "Thread", "Pool", "gather", "lambda",
            ],
            Lang::JavaScript => names![
                "for ",
                "for(",
                "while",
                ".map(",
                ".forEach(",
                "setInterval",
                "setTimeout",
                "Promise.all",
                ".on(",
            ],
            Lang::Ruby => names![
                ".each", "loop", "while ", "until ", ".times", ".map", "for ", "Thread",
            ],
            Lang::Perl => names!["for", "while", "map ", "until"],
            Lang::Php => names!["for", "while", "array_map", "do {"],
            Lang::Lua => names!["for ", "while ", "repeat"],
            Lang::R => names![
                "for ", "for(", "while", "apply(", "lapply", "sapply", "Map(", "repeat",
            ],
            Lang::PowerShell => names![
                "foreach",
                "ForEach-Object",
                "for ",
                "for(",
                "while",
                "%{",
                "|%",
            ],
            Lang::AppleScript => names!["repeat"],
            Lang::Tcl => names!["foreach", "for ", "while"],
        }
    }
}

fn break_inline(codes: Vec<Option<String>>, flag: &'static str) -> Source {
    let all: Option<Vec<String>> = codes.into_iter().collect();
    Source::Inline(all.map(|c| c.join("\n")), flag)
}

/// What code makes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) requests: Vec<Request>,
    /// What it runs that cannot be seen, if anything.
    pub(crate) opaque: Option<String>,
}

/// Read `code` in `lang`.
pub(crate) fn read(lang: Lang, code: &str) -> Found {
    if lang == Lang::JavaScript {
        return javascript(code);
    }
    let mut found = Found::default();
    if let Some(w) = lang.exec_words().iter().find(|w| code.contains(*w)) {
        found.opaque = Some(format!("runs other code or programs (`{}`)", w.trim()));
        return found;
    }
    found.requests = by_words(lang, code, url_literals(code), false);
    found
}

/// The requests of code read by its words: one per URL literal; one to any
/// site for an HTTP client named with no URL (or a URL whose host is built
/// at run time, `unknown_host`); each may repeat when a loop word is there.
fn by_words(lang: Lang, code: &str, urls: Vec<String>, unknown_host: bool) -> Vec<Request> {
    let lib = lang.http_words().iter().find(|w| code.contains(*w));
    let repeat = lang
        .loop_words()
        .iter()
        .find(|w| code.contains(*w))
        .filter(|_| !urls.is_empty() || lib.is_some() || unknown_host)
        .map(|w| format!("may run again and again (`{}` in the code)", w.trim()));
    let mut out: Vec<Request> = urls
        .iter()
        .map(|u| Request {
            what: format!("the URL `{u}`"),
            urls: vec![u.clone()],
            any_site: false,
            repeat: repeat.clone(),
        })
        .collect();
    if out.is_empty() && (lib.is_some() || unknown_host) {
        out.push(Request {
            what: format!(
                "`{}` with no URL pace-hook can read",
                lib.map_or("a URL built at run time", |l| l.trim_end_matches('('))
            ),
            urls: Vec::new(),
            any_site: true,
            repeat,
        });
    }
    out
}

/// JavaScript through the script analyser (as a page's code runs, where
/// `fetch`, XHR and the rest count), and Node's own clients by name.
fn javascript(code: &str) -> Found {
    let mut found = Found::default();
    let analysis = match crate::read::script::analyse(code, crate::read::script::Env::Page) {
        Ok(a) => a,
        Err(e) => {
            found.opaque = Some(format!(
                "does not parse ({} at {}:{})",
                e.message, e.line, e.column
            ));
            return found;
        }
    };
    if let Some(o) = analysis.opaque.first() {
        found.opaque = Some(format!(
            "runs code pace-hook cannot count requests in: {} at {}:{}",
            o.what, o.line, o.column
        ));
        return found;
    }
    for w in [
        "child_process",
        "execSync",
        "spawn(",
        "vm.",
        "Deno.Command",
        "Deno.run",
        "Bun.spawn",
        "Bun.$",
        "eval(",
        "new Function",
        "import(",
    ] {
        if code.contains(w) {
            found.opaque = Some(format!("runs other code or programs (`{w}`)"));
            return found;
        }
    }
    let any_site = !analysis.unknown_hosts.is_empty();
    let place = |f: &crate::read::script::Found| format!("{} at {}:{}", f.what, f.line, f.column);
    match analysis.count {
        crate::read::script::Count::Many { why } => found.requests.push(Request {
            what: why,
            urls: analysis.urls.clone(),
            any_site,
            repeat: Some("can start more than one request".to_owned()),
        }),
        crate::read::script::Count::One => found.requests.push(Request {
            what: analysis
                .requests
                .first()
                .map(place)
                .unwrap_or_else(|| "a request".to_owned()),
            urls: analysis.urls.clone(),
            any_site: any_site || analysis.urls.is_empty(),
            repeat: None,
        }),
        // Node's clients the page model does not know: `https.get(u)`.
        crate::read::script::Count::Zero => {
            found.requests = by_words(Lang::JavaScript, code, analysis.urls.clone(), any_site);
        }
    }
    found
}

/// Absolute URLs written in `code`: from a scheme's `://` to the first
/// character a URL literal cannot hold unescaped in code (a quote, a space,
/// a bracket that closes).
pub(crate) fn url_literals(code: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("://") {
        let at = from + p;
        let start = code[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let end = code[at + 3..]
            .find(|c: char| {
                c.is_whitespace()
                    || matches!(
                        c,
                        '\'' | '"' | '`' | ')' | '>' | '<' | ']' | '}' | ',' | ';' | '\\'
                    )
            })
            .map_or(code.len(), |e| at + 3 + e);
        if start < at {
            let url = &code[start..end];
            if !out.iter().any(|u| u == url) {
                out.push(url.to_owned());
            }
        } else {
            // `"://" + host`: a URL whose host is built at run time.
            out.push("https://[".to_owned());
        }
        from = end.max(at + 3);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_literals_are_cut_at_quotes() {
        assert_eq!(
            url_literals("import requests; requests.get('https://a.example/x?y=1').json()"),
            ["https://a.example/x?y=1"]
        );
        assert_eq!(
            url_literals("f(\"http://a.example\", 'ws://b.example/s')").len(),
            2
        );
    }

    #[test]
    fn python_with_a_library_and_no_url_reaches_any_site() {
        let f = read(
            Lang::Python,
            "import requests, os; requests.get(os.environ['U'])",
        );
        assert_eq!(f.requests.len(), 1);
        assert!(f.requests[0].any_site);
        let f = read(Lang::Python, "import json; print(json.dumps({'a': 1}))");
        assert!(f.requests.is_empty() && f.opaque.is_none());
    }
}
