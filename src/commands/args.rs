//! The command line, with clap's derive API. With no arguments pace-hook is
//! the hook, the form settings.json uses, and clap is not consulted: the
//! hook's start-up does not pay for it (`scripts/bench`, docs/BENCHMARKS.md).
//!
//! Parsing never exits on its own (`try_parse_from`, never `parse`): a usage
//! error is a value, so that the caller maps it to the blocking exit code (a
//! hook command with a typo must block, see [`crate::exit`]), and `--help`
//! and `--version` come back as text to print.

use std::{ffi::OsString, path::PathBuf};

use clap::{Args, CommandFactory, Parser, Subcommand, error::ErrorKind};

use crate::{
    commands::settings::Scope,
    error::{Error, Result},
    hook::client::{self, Client},
};

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    /// Read one hook event on stdin and answer it.
    Hook {
        /// The agent that runs the hook (`--client`); `None`: told by the
        /// event's fields.
        client: Option<Client>,
        /// The hook's timeout in the agent's settings (`--timeout`, in
        /// seconds), when install wrote one.
        timeout_s: Option<u64>,
    },
    /// Add pace-hook's hooks to an agent's hook file.
    Install {
        /// Whose hook file (Claude Code's without `--client`).
        client: Client,
        /// Which settings file.
        scope: Scope,
        /// The hook timeout in seconds, if given.
        timeout_s: Option<u64>,
    },
    /// Remove pace-hook's hooks from an agent's hook file.
    Uninstall {
        /// Whose hook file.
        client: Client,
        /// Which settings file.
        scope: Scope,
    },
    /// Place pace-hook's Claude Code plugin where it lasts, and install it.
    InstallPlugin,
    /// Uninstall the plugin `InstallPlugin` installed.
    UninstallPlugin,
    /// Print the gaps in the gate log.
    Gaps {
        /// Only this site.
        site: Option<String>,
        /// Also draw the timeline to this SVG file.
        svg: Option<PathBuf>,
    },
    /// Print what the gate holds now.
    Status {
        /// As JSON (see `docs/STATUS.md`).
        json: bool,
    },
    /// Check the setup: settings, plugins, config, state, backend, queues.
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
    /// Print a shell's completion script.
    Completions(clap_complete::Shell),
    /// Print the man page (roff).
    Man,
    /// Print this text and exit 0: `--help`, `--version`.
    Print(String),
}

/// space an agent's requests to each site, across every process on the machine
///
/// With no arguments, pace-hook reads one Claude Code hook event on stdin
/// (PreToolUse, PostToolUse, PostToolUseFailure) and paces, skips or blocks
/// it: that is the command Claude Code's settings run. `pace-hook --client
/// NAME [--timeout SECONDS]` does the same for the agent NAME (claude, codex,
/// gemini, copilot, vscode, cline), answered in its own form and waiting no
/// longer than its hook timeout allows. The subcommands set it up and look at
/// the gate from outside.
#[derive(Debug, Parser)]
#[command(
    name = "pace-hook",
    version,
    after_help = ENVIRONMENT,
    subcommand_value_name = "COMMAND",
    disable_help_subcommand = false
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
}

const ENVIRONMENT: &str = "\
Environment:
  PACE_HOOK_CONFIG  config file (default: $CLAUDE_PROJECT_DIR/.claude/pace-hook.toml,
                    then ~/.config/pace-hook/config.toml)
  PACE_HOOK_HOME    state directory (default: ~/.cache/pace-hook)";

#[derive(Debug, Subcommand)]
enum Sub {
    /// Add pace-hook's hooks to Claude Code's settings, or install its plugin
    ///
    /// Leaves the rest of the settings file byte for byte, backs the file up
    /// first, and changes nothing when pace-hook is already installed. With
    /// --plugin, places pace-hook's Claude Code plugin in a directory of its
    /// own, where it lasts, and installs it with `claude plugin`.
    Install(InstallArgs),
    /// Remove what `install` added (backing the file up first)
    Uninstall(UninstallArgs),
    /// Print every finish-to-start gap in the gate log
    ///
    /// Exits 1 if any gap is under its site's interval.
    Gaps {
        /// Only this site (a site, host or URL)
        #[arg(long, value_name = "SITE")]
        site: Option<String>,
        /// Also draw each site's calls on a timeline, an SVG any browser opens
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
    },
    /// What the gate holds now
    ///
    /// Per site: the calls in flight, callers queued, next allowed start,
    /// interval, backoff and budget; the tab map; unknown tools. Reads only.
    Status {
        /// As JSON (documented in docs/STATUS.md)
        #[arg(long)]
        json: bool,
    },
    /// Check that Claude Code runs pace-hook on every web tool call
    ///
    /// Reads the settings files and Claude Code's plugin records, the config,
    /// the state directory, the backend and the queues; one line per check,
    /// each problem with its fix. Exits 0 only if all is well.
    Doctor,
    /// Wait for a site's turn, run a command, record its finish
    ///
    /// Exits with the command's code; 127 if it is not found, 126 if it
    /// cannot be run, 125 if pace-hook could not pace it (the command did
    /// not run), 128+N if a signal N ended it.
    Run {
        /// The site, host or URL the command reaches
        #[arg(long, value_name = "SITE")]
        site: String,
        /// The command and its arguments, after `--`
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<OsString>,
    },
    /// Hold a site back for every process, as a 429 would, or end its backoff
    Backoff {
        /// The site, host or URL
        #[arg(long, value_name = "SITE")]
        site: String,
        /// How long, e.g. 10m
        #[arg(
            long = "for",
            value_name = "DURATION",
            value_parser = duration,
            conflicts_with = "clear",
            required_unless_present = "clear"
        )]
        for_ms: Option<u64>,
        /// End the site's backoff now
        #[arg(long)]
        clear: bool,
    },
    /// Print a completion script for SHELL
    ///
    /// e.g. `pace-hook completions bash > ~/.local/share/bash-completion/completions/pace-hook`
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `pace-hook man | man -l -`
    Man,
}

#[derive(Debug, Args)]
#[group(id = "scope", multiple = false)]
struct Where {
    /// .claude/settings.json in $CLAUDE_PROJECT_DIR or the current directory (the default; with --client, that agent's project file)
    #[arg(long)]
    project: bool,
    /// ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json when set; with --client, that agent's user file)
    #[arg(long)]
    user: bool,
    /// .claude/settings.local.json, in the same place as --project (Claude Code only)
    #[arg(long)]
    local: bool,
    /// pace-hook's Claude Code plugin instead of a settings file
    #[arg(long)]
    plugin: bool,
}

#[derive(Debug, Args)]
struct InstallArgs {
    #[command(flatten)]
    at: Where,
    /// The agent whose hook file: claude (the default), codex, gemini, copilot, vscode, cline
    #[arg(long, value_name = "NAME", value_parser = client_name, conflicts_with = "plugin")]
    client: Option<Client>,
    /// The hook's timeout in seconds (default 300): for Claude Code at least max_wait + 15 s; for another agent, a call waits at most this less 15 s
    #[arg(long, value_name = "SECONDS", value_parser = seconds, conflicts_with = "plugin")]
    timeout: Option<u64>,
}

#[derive(Debug, Args)]
struct UninstallArgs {
    #[command(flatten)]
    at: Where,
    /// The agent whose hook file: claude (the default), codex, gemini, copilot, vscode, cline
    #[arg(long, value_name = "NAME", value_parser = client_name, conflicts_with = "plugin")]
    client: Option<Client>,
}

impl Where {
    fn scope(&self) -> Scope {
        if self.user {
            Scope::User
        } else if self.local {
            Scope::Local
        } else {
            Scope::Project
        }
    }
}

fn client_name(text: &str) -> std::result::Result<Client, String> {
    Client::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = client::ALL.iter().map(|c| c.name()).collect();
        format!("pace-hook knows {}", names.join(", "))
    })
}

fn seconds(text: &str) -> std::result::Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|&t| t > 0)
        .ok_or_else(|| "give whole seconds, e.g. `--timeout 300`".to_owned())
}

fn duration(text: &str) -> std::result::Result<u64, String> {
    crate::duration::parse_duration(text)
}

/// Parse arguments (without the program name).
pub(crate) fn parse(args: &[OsString]) -> Result<Command> {
    let Some(first) = args.first() else {
        return Ok(Command::Hook {
            client: None,
            timeout_s: None,
        });
    };
    // The hook's own flags, read by hand: the hook's start-up does not pay
    // for clap either.
    if first == "--client" || first == "--timeout" {
        return hook_flags(args, |m| Error::Usage {
            message: format!("{m}; see `pace-hook --help`"),
        });
    }
    let argv = std::iter::once(OsString::from("pace-hook")).chain(args.iter().cloned());
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            return Ok(Command::Print(e.render().to_string()));
        }
        Err(e) => {
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            return Err(Error::Usage {
                message: text.trim_end().to_owned(),
            });
        }
    };
    let Some(command) = cli.command else {
        // Arguments, but no command (`pace-hook --`): not the hook's form.
        return Err(Error::Usage {
            message: "give a command (see `pace-hook --help`), or no arguments for the hook".into(),
        });
    };
    Ok(match command {
        Sub::Install(a) if a.at.plugin => Command::InstallPlugin,
        Sub::Install(a) => Command::Install {
            client: a.client.unwrap_or(Client::ClaudeCode),
            scope: a.at.scope(),
            timeout_s: a.timeout,
        },
        Sub::Uninstall(a) if a.at.plugin => Command::UninstallPlugin,
        Sub::Uninstall(a) => Command::Uninstall {
            client: a.client.unwrap_or(Client::ClaudeCode),
            scope: a.at.scope(),
        },
        Sub::Gaps { site, svg } => Command::Gaps { site, svg },
        Sub::Status { json } => Command::Status { json },
        Sub::Doctor => Command::Doctor,
        Sub::Run { site, command } => Command::Run { site, command },
        Sub::Backoff {
            site,
            for_ms,
            clear,
        } => Command::Backoff {
            site,
            for_ms,
            clear,
        },
        Sub::Completions { shell } => Command::Completions(shell),
        Sub::Man => Command::Man,
    })
}

/// The completion script for `shell`.
pub(crate) fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "pace-hook", &mut out);
    out
}

/// The man page, in roff.
pub(crate) fn man_page() -> Vec<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .expect("writing to a Vec cannot fail");
    out
}

/// `--client NAME [--timeout SECONDS]`, the hook's own flags, in either
/// order.
fn hook_flags(args: &[OsString], usage: impl Fn(String) -> Error) -> Result<Command> {
    let (mut client, mut timeout_s) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let flag = a.to_str().unwrap_or("");
        let value = it
            .next()
            .and_then(|v| v.to_str())
            .ok_or_else(|| usage(format!("`{flag}` needs a value")))?;
        match flag {
            "--client" if client.is_none() => {
                client = Some(Client::from_name(value).ok_or_else(|| {
                    let names: Vec<&str> = client::ALL.iter().map(|c| c.name()).collect();
                    usage(format!(
                        "`--client {value}`: pace-hook knows {}",
                        names.join(", ")
                    ))
                })?);
            }
            "--timeout" if timeout_s.is_none() => {
                timeout_s = Some(value.parse::<u64>().ok().filter(|&t| t > 0).ok_or_else(
                    || {
                        usage(format!(
                            "`--timeout {value}`: give whole seconds, e.g. `--timeout 30`"
                        ))
                    },
                )?);
            }
            other => return Err(usage(format!("unexpected argument `{other}` to the hook"))),
        }
    }
    Ok(Command::Hook { client, timeout_s })
}

/// The client a command line names with `--client`, read without parsing
/// the rest: what a failure before the arguments are parsed (a panic, a
/// typo) is answered as.
pub(crate) fn client_in(args: &[OsString]) -> Option<Client> {
    args.iter()
        .position(|a| a == "--client")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.to_str())
        .and_then(Client::from_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    fn message(a: &[&str]) -> String {
        match parse(&args(a)) {
            Err(Error::Usage { message }) => message,
            other => panic!("{a:?}: {other:?}"),
        }
    }

    fn printed(a: &[&str]) -> String {
        match parse(&args(a)) {
            Ok(Command::Print(text)) => text,
            other => panic!("{a:?}: {other:?}"),
        }
    }

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn each_subcommand_has_a_help_of_its_own_but_not_after_runs_separator() {
        let help = printed(&["install", "--help"]);
        assert!(
            help.starts_with("Add pace-hook's hooks to Claude Code's settings"),
            "{help}"
        );
        assert!(help.contains("--timeout <SECONDS>"), "{help}");
        assert!(!help.contains("Per site"), "{help}");
        let help = printed(&["gaps", "-h"]);
        assert!(help.contains("--svg <FILE>"), "{help}");
        assert!(!help.contains("--timeout"), "{help}");
        for a in [
            &["uninstall", "--user", "-h"][..],
            &["status", "--help"],
            &["doctor", "-h"],
            &["backoff", "--help"],
            &["run", "--help"],
            &["help", "run"],
        ] {
            assert!(printed(a).contains("Usage: pace-hook "), "{a:?}");
        }
        let top = printed(&["--help"]);
        assert!(top.contains("Commands:\n  install"), "{top}");
        assert!(top.contains("PACE_HOOK_HOME"), "{top}");
        assert_eq!(
            parse(&args(&["run", "--site", "a.com", "--", "curl", "--help"])).unwrap(),
            Command::Run {
                site: "a.com".into(),
                command: args(&["curl", "--help"])
            }
        );
        assert_eq!(
            printed(&["--version"]),
            format!("pace-hook {}\n", env!("CARGO_PKG_VERSION"))
        );
    }

    #[test]
    fn no_arguments_is_the_hook() {
        assert_eq!(
            parse(&[]).unwrap(),
            Command::Hook {
                client: None,
                timeout_s: None
            }
        );
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
                client: Client::ClaudeCode,
                scope: Scope::Project,
                timeout_s: None
            }
        );
        assert_eq!(
            parse(&args(&["install", "--timeout", "400", "--user"])).unwrap(),
            Command::Install {
                client: Client::ClaudeCode,
                scope: Scope::User,
                timeout_s: Some(400)
            }
        );
        assert_eq!(
            parse(&args(&["uninstall", "--local"])).unwrap(),
            Command::Uninstall {
                client: Client::ClaudeCode,
                scope: Scope::Local
            }
        );
        assert_eq!(
            parse(&args(&[
                "install",
                "--client",
                "codex",
                "--user",
                "--timeout",
                "60"
            ]))
            .unwrap(),
            Command::Install {
                client: Client::Codex,
                scope: Scope::User,
                timeout_s: Some(60)
            }
        );
        assert!(matches!(
            parse(&args(&["install", "--client", "codex", "--plugin"])),
            Err(Error::Usage { .. })
        ));
        assert!(matches!(
            parse(&args(&["uninstall", "--client", "nope"])),
            Err(Error::Usage { message }) if message.contains("pace-hook knows claude, codex")
        ));
        assert_eq!(
            parse(&args(&["install", "--plugin"])).unwrap(),
            Command::InstallPlugin
        );
        assert_eq!(
            parse(&args(&["uninstall", "--plugin"])).unwrap(),
            Command::UninstallPlugin
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
    fn usage_errors_say_what_is_wrong() {
        let m = message(&["install", "--user", "--local"]);
        assert!(
            m.starts_with("the argument '--user' cannot be used with '--local'"),
            "{m}"
        );
        let m = message(&["install", "--timeout", "5m"]);
        assert!(
            m.starts_with(
                "invalid value '5m' for '--timeout <SECONDS>': give whole seconds, e.g. `--timeout 300`"
            ),
            "{m}"
        );
        let m = message(&["install", "--plugin", "--timeout", "400"]);
        assert!(
            m.starts_with("the argument '--plugin' cannot be used with '--timeout <SECONDS>'"),
            "{m}"
        );
        let m = message(&["install", "--timeout"]);
        assert!(
            m.starts_with("a value is required for '--timeout <SECONDS>'"),
            "{m}"
        );
        let m = message(&["uninstall", "--timeout", "300"]);
        assert!(
            m.starts_with("unexpected argument '--timeout' found"),
            "{m}"
        );
        let m = message(&["backoff", "--site", "a.com", "--for", "10m", "--clear"]);
        assert!(
            m.starts_with("the argument '--for <DURATION>' cannot be used with '--clear'"),
            "{m}"
        );
        let m = message(&["backoff", "--site", "a.com"]);
        assert!(
            m.starts_with(
                "the following required arguments were not provided:\n  --for <DURATION>"
            ),
            "{m}"
        );
        let m = message(&["backoff", "--site", "a.com", "--for", "soon"]);
        assert!(m.contains("`soon` is not a duration"), "{m}");
        // Every message ends with the usage line and where to look.
        assert!(m.ends_with("For more information, try '--help'."), "{m}");
    }

    #[test]
    fn a_misspelt_flag_or_command_gets_a_suggestion() {
        let m = message(&["install", "--usr"]);
        assert!(
            m.contains("tip: a similar argument exists: '--user'"),
            "{m}"
        );
        let m = message(&["staus"]);
        assert!(
            m.contains("tip: a similar subcommand exists: 'status'"),
            "{m}"
        );
    }

    #[test]
    fn usage_errors_are_values_not_exits() {
        for bad in [
            &["frobnicate"][..],
            &["--frobnicate"],
            &["run", "--", "x"],
            &["run", "--site", "a"],
            &["run", "--site", "a", "curl"],
            &["gaps", "--x"],
            &["gaps", "--svg"],
            &["status", "--json", "x"],
            &["status", "--yaml"],
            &["doctor", "--fix"],
            &["completions", "tcsh"],
            &["--"],
        ] {
            assert!(
                matches!(parse(&args(bad)), Err(Error::Usage { .. })),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_hook_takes_its_client_and_timeout_in_either_order() {
        let hook = |client, timeout_s| Command::Hook { client, timeout_s };
        assert_eq!(
            parse(&args(&["--client", "gemini"])).unwrap(),
            hook(Some(Client::Gemini), None)
        );
        assert_eq!(
            parse(&args(&["--timeout", "30", "--client", "copilot"])).unwrap(),
            hook(Some(Client::Copilot), Some(30))
        );
        for bad in [
            &["--client"][..],
            &["--client", "emacs"],
            &["--client", "cline", "--client", "codex"],
            &["--client", "cline", "--timeout", "0"],
            &["--client", "cline", "extra", "x"],
        ] {
            assert!(
                matches!(parse(&args(bad)), Err(Error::Usage { .. })),
                "{bad:?}"
            );
        }
        assert_eq!(
            client_in(&args(&["--timeout", "x", "--client", "cline"])),
            Some(Client::Cline)
        );
        assert_eq!(client_in(&args(&["install"])), None);
    }

    #[test]
    fn completions_and_the_man_page_come_from_the_same_definition() {
        let bash = String::from_utf8(completions(clap_complete::Shell::Bash)).unwrap();
        assert!(bash.contains("--timeout"), "{bash}");
        assert!(bash.contains("completions"), "{bash}");
        let zsh = String::from_utf8(completions(clap_complete::Shell::Zsh)).unwrap();
        assert!(zsh.starts_with("#compdef pace-hook"), "{zsh}");
        let man = String::from_utf8(man_page()).unwrap();
        assert!(man.starts_with(".ie \\n(.g .ds Aq"), "{man}");
        assert!(man.contains(".TH pace-hook 1"), "{man}");
        assert!(man.contains("pace\\-hook\\-install(1)"), "{man}");
    }
}
