//! Claude Code's shell: the `Bash` tool, input `{command, description?,
//! timeout?, run_in_background?}`. A command is read by [`crate::read::shell`]:
//! one request is paced on its site like a navigation; two or more, or one
//! that may repeat, or code that cannot be seen, are blocked; a command that
//! makes none passes uncounted, and the commands that cannot lead to a
//! request pass before any parser runs.
//!
//! The other clients' shell tools (Codex's `shell`, Gemini CLI's
//! `run_shell_command`, …) are issue 20's: this profile owns `Bash` only.
//!
//! The Post's `tool_response` is an object `{stdout, stderr, interrupted,
//! isImage}` (Claude Code's Bash tool; `returnCodeInterpretation` and
//! `backgroundTaskId` may be there too). When the command was one `curl`
//! that printed its status (`-i`, `-I`, `-D -`, `-v`, or `-w
//! '%{http_code}'`), a 429 or 503 there, with its `Retry-After`, holds the
//! site back as WebFetch's does.

use serde_json::Value;

use super::{Call, Family, Learned, Profile, Status, TabRef, Target, ToolResult, Verdict, str_at};
use crate::names::names;
use crate::read::shell;

pub(crate) struct Shell;

/// The family as settings name it, for `doctor`.
pub(super) const FAMILY: Family = Family {
    name: "the shell (Bash)",
    matcher: "Bash",
    tools: names!["Bash"],
};

/// What the model is told to do instead of a blocked command.
const INSTEAD: &str = "Make one request per Bash call (one `curl` or `wget` with one URL, with no loop, `xargs`, `&` or `--retry` around it), or wrap each request of a loop or script in `pace-hook run --site SITE -- …` (or use the library) so that each one waits its turn";

impl Profile for Shell {
    fn owns<'a>(&self, tool_name: &'a str) -> Option<&'a str> {
        (tool_name == "Bash").then_some(tool_name)
    }

    fn examples(&self) -> &'static [&'static str] {
        &["Bash"]
    }

    fn classify(&self, call: &Call<'_>) -> Option<Verdict> {
        let Some(command) = call.input.get("command").and_then(Value::as_str) else {
            // Claude Code refuses it; if not, no one can say what it runs.
            return Some(Verdict::Pace {
                target: Target::Unknown,
                label: "Bash".to_owned(),
            });
        };
        let background = call.input.get("run_in_background").and_then(Value::as_bool) == Some(true);
        if !shell::prefilter::needs_parse(command) {
            return Some(Verdict::NotOurs);
        }
        Some(verdict(&shell::analyse(command, background)))
    }

    fn post_matters(&self, call: &Call<'_>) -> bool {
        // The Pre of a command that cannot lead to a request passed before
        // any parser ran, and one that makes none was skipped: neither was
        // admitted, so their Posts have nothing to finish. This keeps the
        // Post of an ordinary command as cheap as its Pre.
        matches!(self.classify(call), Some(Verdict::Pace { .. }))
    }

    fn page(&self, _: &Call<'_>) -> Option<TabRef> {
        None
    }

    fn learn(&self, call: &Call<'_>, outcome: &ToolResult<'_>) -> Learned {
        let mut learned = Learned::default();
        let Some(command) = str_at(call.input, "command") else {
            return learned;
        };
        let Some(response) = outcome.object else {
            return learned;
        };
        if !shell::prefilter::needs_parse(command) {
            return learned;
        }
        let analysis = shell::analyse(command, false);
        let [request] = analysis.requests.as_slice() else {
            return learned;
        };
        let [url] = request.urls.as_slice() else {
            return learned;
        };
        if !analysis.shows_status || request.any_site {
            return learned;
        }
        let text = |k: &str| response.get(k).and_then(Value::as_str).unwrap_or("");
        if let Some((code, retry_after_ms)) = status_in(text("stdout"), text("stderr"))
            && matches!(code, 429 | 503)
        {
            learned.statuses.push(Status {
                url: url.clone(),
                code,
                retry_after_ms,
            });
        }
        learned
    }
}

/// The verdict for a command the walk read.
fn verdict(a: &shell::Analysis) -> Verdict {
    if !a.opaque.is_empty() {
        return Verdict::Block {
            why: format!(
                "the command runs what pace-hook cannot count requests in: {}{}",
                a.opaque
                    .iter()
                    .take(4)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; "),
                match a.opaque.len().saturating_sub(4) {
                    0 => String::new(),
                    n => format!("; and {n} more"),
                }
            ),
            instead: INSTEAD.to_owned(),
        };
    }
    if let Some(why) = a.many() {
        return Verdict::Block {
            why: format!("the command can make more than one request: {why}"),
            instead: INSTEAD.to_owned(),
        };
    }
    match a.requests.as_slice() {
        [] if a.scripts.is_empty() => Verdict::Skip {
            why: "a shell command that makes no request",
        },
        [] => Verdict::Unseen {
            what: format!(
                "runs {} by name, which pace-hook cannot see into; it passed unpaced (a script's requests wait their turn under `pace-hook run` or the library)",
                a.scripts
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
        [r] => Verdict::Pace {
            target: match (r.urls.as_slice(), r.any_site) {
                ([url], false) => Target::Url {
                    url: url.clone(),
                    tab: None,
                },
                _ => Target::Sites {
                    urls: r.urls.clone(),
                    any_site: r.any_site,
                },
            },
            label: "Bash".to_owned(),
        },
        _ => unreachable!("many() is Some for two or more requests"),
    }
}

/// The last HTTP status a `curl` printed, and its `Retry-After` in ms: from
/// the header blocks at the very start of stdout (`-i`, `-D -`; one block
/// per redirect or interim answer, the body after the final one is the page's and is not read), from
/// its `< `-prefixed lines on stderr (`-v`, where the page's body never
/// goes), or from a last stdout line of three digits alone (`-w
/// '%{http_code}'`).
fn status_in(stdout: &str, stderr: &str) -> Option<(u16, Option<u64>)> {
    let mut last = None;
    let mut lines = stdout.lines().map(|l| l.trim_end_matches('\r')).peekable();
    while let Some(code) = lines.peek().and_then(|l| status_line(l)) {
        lines.next();
        let mut retry = None;
        for line in lines.by_ref() {
            if line.trim().is_empty() {
                break;
            }
            retry = retry.or_else(|| retry_after(line));
        }
        last = Some((code, retry));
        // Only a redirect or an interim answer has another block after it:
        // after the final one comes the page's body.
        if !(100..200).contains(&code) && !(300..400).contains(&code) {
            break;
        }
    }
    if last.is_some() {
        return last;
    }
    for line in stderr.lines().filter_map(|l| l.strip_prefix("< ")) {
        let line = line.trim_end_matches('\r');
        if let Some(code) = status_line(line) {
            last = Some((code, None));
        } else if let Some(l) = last.as_mut()
            && l.1.is_none()
        {
            l.1 = retry_after(line);
        }
    }
    if last.is_some() {
        return last;
    }
    let tail = stdout.trim_end().rsplit('\n').next().unwrap_or("").trim();
    (tail.len() == 3 && tail.bytes().all(|b| b.is_ascii_digit()))
        .then(|| tail.parse::<u16>().ok())
        .flatten()
        .filter(|c| (100..600).contains(c))
        .map(|c| (c, None))
}

/// The code of a status line, `HTTP/1.1 429 Too Many Requests`.
fn status_line(line: &str) -> Option<u16> {
    line.strip_prefix("HTTP/")?
        .split_whitespace()
        .nth(1)?
        .parse::<u16>()
        .ok()
        .filter(|c| (100..600).contains(c))
}

/// A `Retry-After: N` header line: N seconds, 1 to 6 digits.
fn retry_after(line: &str) -> Option<u64> {
    let (name, value) = line.split_once(':')?;
    let v = value.trim();
    (name.trim().eq_ignore_ascii_case("retry-after")
        && (1..=6).contains(&v.len())
        && v.bytes().all(|b| b.is_ascii_digit()))
    .then(|| v.parse::<u64>().ok().map(|s| s * 1000))
    .flatten()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::read::profile::tests::{classify, input};

    fn bash(command: &str) -> Verdict {
        classify(
            "Bash",
            &input(json!({"command": command, "description": "d"})),
            Some("s"),
        )
    }

    #[test]
    fn a_plain_command_is_not_ours_and_one_curl_is_paced_on_its_url() {
        assert_eq!(bash("ls -la && cargo test"), Verdict::NotOurs);
        assert_eq!(
            bash("curl -s https://api.example.com/v1/items | jq ."),
            Verdict::Pace {
                target: Target::Url {
                    url: "https://api.example.com/v1/items".into(),
                    tab: None
                },
                label: "Bash".into()
            }
        );
    }

    #[test]
    fn two_curls_are_blocked_saying_where() {
        let Verdict::Block { why, .. } =
            bash("curl https://a.example/1 && curl https://b.example/2")
        else {
            panic!()
        };
        assert_eq!(
            why,
            "the command can make more than one request: 2 requests: `curl` at 1:1 and `curl` at 1:29"
        );
    }

    #[test]
    fn a_background_request_is_blocked() {
        let v = classify(
            "Bash",
            &input(json!({"command": "curl https://a.example/", "run_in_background": true})),
            Some("s"),
        );
        assert!(matches!(v, Verdict::Block { .. }), "{v:?}");
    }

    fn learn(command: &str, stdout: &str, stderr: &str) -> Learned {
        let i = input(json!({"command": command}));
        let response =
            json!({"stdout": stdout, "stderr": stderr, "interrupted": false, "isImage": false});
        Shell.learn(
            &Call {
                tool: "Bash",
                server: "",
                input: &i,
                session: Some("s"),
            },
            &ToolResult {
                texts: &[],
                object: Some(&response),
                error: None,
            },
        )
    }

    #[test]
    fn a_429_that_curl_printed_gives_its_retry_after() {
        let l = learn(
            "curl -si https://api.example.com/x",
            "HTTP/2 429\r\ncontent-type: text/plain\r\nretry-after: 30\r\n\r\nslow down\n",
            "",
        );
        assert_eq!(
            l.statuses,
            vec![Status {
                url: "https://api.example.com/x".into(),
                code: 429,
                retry_after_ms: Some(30_000)
            }]
        );
        // Behind a redirect: the last status counts.
        let l = learn(
            "curl -siL https://a.example/x",
            "HTTP/1.1 301 Moved\r\nLocation: /y\r\n\r\nHTTP/1.1 503 Busy\r\nRetry-After: 5\r\n\r\n",
            "",
        );
        assert_eq!(l.statuses[0].code, 503);
        assert_eq!(l.statuses[0].retry_after_ms, Some(5_000));
        let l = learn(
            "curl -v https://a.example/x",
            "body",
            "> GET /x HTTP/1.1\n< HTTP/1.1 429 Too Many\n< Retry-After: 7\n<\n",
        );
        assert_eq!(l.statuses[0].retry_after_ms, Some(7_000));
        let l = learn(
            "curl -s -o /dev/null -w '%{http_code}' https://a.example/x",
            "429",
            "",
        );
        assert_eq!(
            (l.statuses[0].code, l.statuses[0].retry_after_ms),
            (429, None)
        );
    }

    #[test]
    fn a_status_is_believed_only_when_curl_was_asked_to_print_it() {
        // Without -i, the body is the page's: a page may say anything.
        assert!(
            learn(
                "curl -s https://a.example/x",
                "HTTP/1.1 429\nRetry-After: 9\n\n",
                ""
            )
            .statuses
            .is_empty()
        );
        // A success is no push-back; it is not reported either.
        assert!(
            learn("curl -si https://a.example/x", "HTTP/1.1 200 OK\n\n", "")
                .statuses
                .is_empty()
        );
        // A page whose body imitates a status line after a real 200.
        assert!(
            learn(
                "curl -si https://a.example/x",
                "HTTP/1.1 200 OK\n\nHTTP/1.1 429\nRetry-After: 9\n\n",
                ""
            )
            .statuses
            .is_empty()
        );
    }
}
