//! The command line. With no arguments pace-hook is the hook, the form
//! settings.json uses. Parsing never exits on its own: a usage error is a
//! value, so that the caller can map it to the blocking exit code (a
//! hand-rolled parser instead of clap, whose `parse()` would exit by itself
//! and whose weight every hook event would pay at start-up).

use std::ffi::OsString;

use crate::error::{Error, Result};

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Read one hook event on stdin and answer it.
    Hook,
    /// Print the gaps in the gate log.
    Gaps {
        /// Only this site.
        site: Option<String>,
        /// Also draw the timeline to this SVG file.
        svg: Option<std::path::PathBuf>,
    },
    /// Print what the gate holds now.
    Status {
        /// As JSON (see `docs/STATUS.md`).
        json: bool,
    },
    /// Check the setup: settings, config, state, backend, queues.
    Doctor,
    /// Wait for a site's turn, run a command, record its finish.
    Run {
        /// The site, host or URL.
        site: String,
        /// The command and its arguments.
        command: Vec<OsString>,
    },
    /// Print help.
    Help,
    /// Print the version.
    Version,
}

/// Help text.
pub const HELP: &str = "\
pace-hook: space an agent's requests to each site, across every process on the machine

USAGE:
    pace-hook                               read one Claude Code hook event on stdin (PreToolUse,
                                            PostToolUse, PostToolUseFailure) and pace, skip or block it
    pace-hook gaps [--site SITE] [--svg FILE]
                                            print every finish-to-start gap in the gate log;
                                            exits 1 if any is under the site's interval. With
                                            --svg, also draw each site's calls on a timeline
                                            (an SVG any browser opens)
    pace-hook status [--json]               what the gate holds now: per site, the calls in
                                            flight, callers queued, next allowed start, interval,
                                            backoff and budget; the tab map; unknown tools.
                                            Reads only; --json is documented in docs/STATUS.md
    pace-hook doctor                        check that Claude Code runs pace-hook on every web
                                            tool call, and that its config, state directory,
                                            backend and queues are sound; one line per check,
                                            each problem with its fix; exits 0 only if all is well
    pace-hook run --site SITE -- CMD ARGS   wait for SITE's turn, run CMD, record its finish;
                                            exits with CMD's code
    pace-hook --help | --version

ENVIRONMENT:
    PACE_HOOK_CONFIG   config file (default: $CLAUDE_PROJECT_DIR/.claude/pace-hook.toml,
                       then ~/.config/pace-hook/config.toml)
    PACE_HOOK_HOME     state directory (default: ~/.cache/pace-hook)
";

/// Parse arguments (without the program name).
pub fn parse(args: &[OsString]) -> Result<Command> {
    let usage = |m: String| Error::Usage {
        message: format!("{m}; see `pace-hook --help`"),
    };
    let text = |a: &OsString| {
        a.to_str()
            .map(str::to_owned)
            .ok_or_else(|| usage("arguments must be UTF-8".into()))
    };
    let Some(first) = args.first() else {
        return Ok(Command::Hook);
    };
    match text(first)?.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help),
        "-V" | "--version" => Ok(Command::Version),
        "gaps" => {
            let (mut site, mut svg) = (None, None);
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match text(a)?.as_str() {
                    "--site" => {
                        site = Some(text(
                            it.next()
                                .ok_or_else(|| usage("`--site` needs a value".into()))?,
                        )?)
                    }
                    "--svg" => {
                        svg = Some(std::path::PathBuf::from(
                            it.next()
                                .ok_or_else(|| usage("`--svg` needs a file name".into()))?,
                        ))
                    }
                    other => return Err(usage(format!("unexpected argument `{other}` to `gaps`"))),
                }
            }
            Ok(Command::Gaps { site, svg })
        }
        "status" => match args.get(1).map(text).transpose()?.as_deref() {
            None => Ok(Command::Status { json: false }),
            Some("--json") if args.len() == 2 => Ok(Command::Status { json: true }),
            Some(other) => Err(usage(format!(
                "unexpected argument `{other}` to `status`; it takes `--json`"
            ))),
        },
        "doctor" => match args.get(1).map(text).transpose()? {
            None => Ok(Command::Doctor),
            Some(other) => Err(usage(format!(
                "unexpected argument `{other}` to `doctor`; it takes none"
            ))),
        },
        "run" => {
            let mut site = None;
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match text(a)?.as_str() {
                    "--site" => {
                        site = Some(text(
                            it.next()
                                .ok_or_else(|| usage("`--site` needs a value".into()))?,
                        )?)
                    }
                    "--" => break,
                    other => {
                        return Err(usage(format!(
                            "unexpected argument `{other}` to `run`; put the command after `--`"
                        )));
                    }
                }
            }
            let command: Vec<OsString> = it.cloned().collect();
            let site = site.ok_or_else(|| usage("`run` needs `--site SITE`".into()))?;
            if command.is_empty() {
                return Err(usage("`run` needs a command after `--`".into()));
            }
            Ok(Command::Run { site, command })
        }
        other => Err(usage(format!("unknown command `{other}`"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn no_arguments_is_the_hook() {
        assert_eq!(parse(&[]).unwrap(), Command::Hook);
    }

    #[test]
    fn run_takes_a_site_and_a_command() {
        assert_eq!(
            parse(&args(&["run", "--site", "example.com", "--", "curl", "-s"])).unwrap(),
            Command::Run {
                site: "example.com".into(),
                command: args(&["curl", "-s"])
            }
        );
    }

    #[test]
    fn status_takes_json_and_doctor_nothing() {
        assert_eq!(
            parse(&args(&["status", "--json"])).unwrap(),
            Command::Status { json: true }
        );
        assert_eq!(parse(&args(&["doctor"])).unwrap(), Command::Doctor);
    }

    #[test]
    fn gaps_takes_an_svg_file() {
        assert_eq!(
            parse(&args(&["gaps", "--svg", "t.svg", "--site", "a.com"])).unwrap(),
            Command::Gaps {
                site: Some("a.com".into()),
                svg: Some("t.svg".into())
            }
        );
    }

    #[test]
    fn usage_errors_are_values_not_exits() {
        for bad in [
            &["frobnicate"][..],
            &["run", "--", "x"],
            &["run", "--site", "a"],
            &["gaps", "--x"],
            &["gaps", "--svg"],
            &["status", "--json", "x"],
            &["status", "--yaml"],
            &["doctor", "--fix"],
        ] {
            assert!(
                matches!(parse(&args(bad)), Err(Error::Usage { .. })),
                "{bad:?}"
            );
        }
    }
}
