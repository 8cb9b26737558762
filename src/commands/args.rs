//! The command line. With no arguments pace-hook is the hook, the form
//! settings.json uses. Parsing never exits on its own: a usage error is a
//! value, so that the caller can map it to the blocking exit code (a
//! hand-rolled parser instead of clap, whose `parse()` would exit by itself
//! and whose weight every hook event would pay at start-up).

use std::ffi::OsString;

use crate::{
    commands::settings::Scope,
    error::{Error, Result},
};

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    /// Read one hook event on stdin and answer it.
    Hook,
    /// Add pace-hook's hooks to a Claude Code settings file.
    Install {
        /// Which settings file.
        scope: Scope,
        /// The hook timeout in seconds, if given.
        timeout_s: Option<u64>,
    },
    /// Remove pace-hook's hooks from a Claude Code settings file.
    Uninstall {
        /// Which settings file.
        scope: Scope,
    },
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
    /// Hold a site back by hand, or clear its backoff.
    Backoff {
        /// The site, host or URL.
        site: String,
        /// How long; `None` with `clear`.
        for_ms: Option<u64>,
        /// Clear the backoff instead.
        clear: bool,
    },
    /// Print help.
    Help,
    /// Print the version.
    Version,
}

/// Help text.
pub(crate) const HELP: &str = "\
pace-hook: space an agent's requests to each site, across every process on the machine

USAGE:
    pace-hook                               read one Claude Code hook event on stdin (PreToolUse,
                                            PostToolUse, PostToolUseFailure) and pace, skip or block it
    pace-hook install [--project | --user | --local] [--timeout SECONDS]
                                            add pace-hook's hooks to Claude Code's settings, leaving
                                            the rest of the file byte for byte; backs the file up
                                            first, and changes nothing when already installed
                                              --project  .claude/settings.json (the default), in
                                                         $CLAUDE_PROJECT_DIR or the current directory
                                              --local    .claude/settings.local.json, same place
                                              --user     ~/.claude/settings.json
                                              --timeout  the hook's timeout (default 300); at least
                                                         max_wait + 15 s
    pace-hook uninstall [--project | --user | --local]
                                            remove what install added (backing the file up first)
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
    pace-hook backoff --site SITE --for D   hold SITE's next call back for D (e.g. 10m), for
                                            every process, as a 429 would
    pace-hook backoff --site SITE --clear   end SITE's backoff now
    pace-hook --help | --version

ENVIRONMENT:
    PACE_HOOK_CONFIG   config file (default: $CLAUDE_PROJECT_DIR/.claude/pace-hook.toml,
                       then ~/.config/pace-hook/config.toml)
    PACE_HOOK_HOME     state directory (default: ~/.cache/pace-hook)
";

/// Parse arguments (without the program name).
pub(crate) fn parse(args: &[OsString]) -> Result<Command> {
    let usage = |m: String| Error::Usage {
        message: format!("{m}; see `pace-hook --help`"),
    };
    let text = |a: &OsString| {
        a.to_str()
            .map(str::to_owned)
            .ok_or_else(|| usage("arguments must be UTF-8".into()))
    };
    // The value after `flag`, which says what it needs when there is none.
    let value = |it: &mut std::slice::Iter<'_, OsString>, flag: &str, what: &str| {
        text(
            it.next()
                .ok_or_else(|| usage(format!("`{flag}` needs {what}")))?,
        )
    };
    let Some(first) = args.first() else {
        return Ok(Command::Hook);
    };
    // `pace-hook install --help` and the like: the help, not a usage error.
    // After `run`'s `--` the arguments are the command's own.
    const SUBCOMMANDS: [&str; 7] = [
        "install",
        "uninstall",
        "gaps",
        "status",
        "doctor",
        "run",
        "backoff",
    ];
    if first.to_str().is_some_and(|f| SUBCOMMANDS.contains(&f))
        && args[1..]
            .iter()
            .take_while(|a| *a != "--")
            .any(|a| a == "-h" || a == "--help")
    {
        return Ok(Command::Help);
    }
    match text(first)?.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help),
        "-V" | "--version" => Ok(Command::Version),
        "install" | "uninstall" => {
            let install = text(first)? == "install";
            let name = if install { "install" } else { "uninstall" };
            let mut scope = None;
            let mut timeout_s = None;
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                let flag = text(a)?;
                let chosen = match flag.as_str() {
                    "--project" => Scope::Project,
                    "--user" => Scope::User,
                    "--local" => Scope::Local,
                    "--timeout" if install => {
                        let value = value(&mut it, "--timeout", "a number of seconds")?;
                        timeout_s = Some(value.parse::<u64>().ok().filter(|&t| t > 0).ok_or_else(
                            || {
                                usage(format!(
                                    "`--timeout {value}`: give whole seconds, e.g. `--timeout 300`"
                                ))
                            },
                        )?);
                        continue;
                    }
                    other => {
                        return Err(usage(format!("unexpected argument `{other}` to `{name}`")));
                    }
                };
                if scope.replace(chosen).is_some_and(|s| s != chosen) {
                    return Err(usage(format!(
                        "`{name}` takes one of --project, --user and --local"
                    )));
                }
            }
            let scope = scope.unwrap_or(Scope::Project);
            Ok(if install {
                Command::Install { scope, timeout_s }
            } else {
                Command::Uninstall { scope }
            })
        }
        "gaps" => {
            let (mut site, mut svg) = (None, None);
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match text(a)?.as_str() {
                    "--site" => site = Some(value(&mut it, "--site", "a value")?),
                    "--svg" => {
                        svg = Some(std::path::PathBuf::from(value(
                            &mut it,
                            "--svg",
                            "a file name",
                        )?))
                    }
                    other => return Err(usage(format!("unexpected argument `{other}` to `gaps`"))),
                }
            }
            Ok(Command::Gaps { site, svg })
        }
        "backoff" => {
            let (mut site, mut for_ms, mut clear) = (None, None, false);
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match text(a)?.as_str() {
                    "--site" => site = Some(value(&mut it, "--site", "a value")?),
                    "--for" => {
                        let v = value(&mut it, "--for", "a duration")?;
                        for_ms = Some(
                            crate::duration::parse_duration(&v)
                                .map_err(|m| usage(format!("`--for`: {m}")))?,
                        );
                    }
                    "--clear" => clear = true,
                    other => {
                        return Err(usage(format!("unexpected argument `{other}` to `backoff`")));
                    }
                }
            }
            let site = site.ok_or_else(|| usage("`backoff` needs `--site SITE`".into()))?;
            if clear == for_ms.is_some() {
                return Err(usage(
                    "`backoff` needs either `--for DURATION` or `--clear`".into(),
                ));
            }
            Ok(Command::Backoff {
                site,
                for_ms,
                clear,
            })
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
                    "--site" => site = Some(value(&mut it, "--site", "a value")?),
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
    fn help_after_a_subcommand_is_the_help_but_not_after_runs_separator() {
        for a in [
            &["install", "--help"][..],
            &["uninstall", "--user", "-h"],
            &["gaps", "--svg", "t.svg", "--help"],
            &["status", "--help"],
            &["doctor", "-h"],
            &["backoff", "--help"],
            &["run", "--help"],
        ] {
            assert_eq!(parse(&args(a)).unwrap(), Command::Help, "{a:?}");
        }
        assert_eq!(
            parse(&args(&["run", "--site", "a.com", "--", "curl", "--help"])).unwrap(),
            Command::Run {
                site: "a.com".into(),
                command: args(&["curl", "--help"])
            }
        );
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
    fn install_defaults_to_the_project_and_the_default_timeout() {
        assert_eq!(
            parse(&args(&["install"])).unwrap(),
            Command::Install {
                scope: Scope::Project,
                timeout_s: None
            }
        );
        assert_eq!(
            parse(&args(&["install", "--timeout", "400", "--user"])).unwrap(),
            Command::Install {
                scope: Scope::User,
                timeout_s: Some(400)
            }
        );
        assert_eq!(
            parse(&args(&["uninstall", "--local"])).unwrap(),
            Command::Uninstall {
                scope: Scope::Local
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
    fn install_usage_errors_say_what_is_wrong() {
        let message = |a: &[&str]| match parse(&args(a)) {
            Err(Error::Usage { message }) => message,
            other => panic!("{a:?}: {other:?}"),
        };
        assert_eq!(
            message(&["install", "--user", "--local"]),
            "`install` takes one of --project, --user and --local; see `pace-hook --help`"
        );
        assert_eq!(
            message(&["install", "--timeout", "5m"]),
            "`--timeout 5m`: give whole seconds, e.g. `--timeout 300`; see `pace-hook --help`"
        );
        assert_eq!(
            message(&["install", "--timeout"]),
            "`--timeout` needs a number of seconds; see `pace-hook --help`"
        );
        assert_eq!(
            message(&["uninstall", "--timeout", "300"]),
            "unexpected argument `--timeout` to `uninstall`; see `pace-hook --help`"
        );
        for (a, m) in [
            (&["gaps", "--site"][..], "`--site` needs a value"),
            (&["gaps", "--svg"], "`--svg` needs a file name"),
            (
                &["backoff", "--site", "a.com", "--for"],
                "`--for` needs a duration",
            ),
            (&["run", "--site"], "`--site` needs a value"),
        ] {
            assert_eq!(message(a), format!("{m}; see `pace-hook --help`"));
        }
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
