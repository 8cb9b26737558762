//! Claude Code's hook matchers, emulated: which tool names a `matcher`
//! string selects. `install` checks the matcher it writes with it, and the
//! doctor can check a user's.
//!
//! The rules, as seen on Claude Code 2.1.332 (`shared/protocol.md`,
//! "Matchers"; the hooks reference at code.claude.com/docs/en/hooks says the
//! same): an empty matcher or `*` selects every tool; a matcher made only of
//! ASCII letters, digits, `_`, `-`, `|`, `,` and spaces is a list of exact
//! tool names (separated by `|` or `,`); anything else is a JavaScript
//! regular expression, unanchored, so it selects a tool when it matches
//! anywhere in the name. That is why `mcp__claude-in-chrome` selects no tool
//! at all while `mcp__claude-in-chrome__.*` selects every tool of the server.
//!
//! The regex is compiled with `regex-lite`, whose syntax is JavaScript's for
//! everything a tool matcher needs (classes, alternation, repetition,
//! anchors). What it lacks (look-around, back-references) fails to compile
//! here and counts as matching nothing: the caller then reports a matcher it
//! cannot vouch for, which is the safe mistake for a pacer.
//! Claude Code versions before 2.1.195 read hyphenated names as regexes;
//! that older rule is not emulated.

/// The matcher `install` writes: every MCP tool (each profile's servers
/// under every name they ship with, `[[tool]]` rules, and servers nobody
/// knows yet, which pace-hook logs as `unknown`), Claude Code's two web
/// tools, and its shell (`Bash`), where `curl` and the rest run. pace-hook sorts every call itself, so a broad matcher costs only a
/// process start on MCP calls that are not web calls.
pub(crate) const MATCHER: &str = "mcp__.*|WebFetch|WebSearch|^Bash$";

/// Whether Claude Code runs a hook with `matcher` for a call to `tool`.
pub(crate) fn matcher_matches(matcher: &str, tool: &str) -> bool {
    if matcher.is_empty() || matcher == "*" {
        return true;
    }
    if is_exact_list(matcher) {
        return matcher
            .split(['|', ','])
            .map(str::trim)
            .any(|name| name == tool);
    }
    regex_lite::Regex::new(matcher).is_ok_and(|re| re.is_match(tool))
}

/// Whether Claude Code reads `matcher` as a list of exact tool names: only
/// letters, digits, `_`, `-`, `|`, `,` and spaces. Anything else is a regex.
pub(crate) fn is_exact_list(matcher: &str) -> bool {
    matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|' | ',' | ' '))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::profile;

    use crate::names::{Names, names};
    /// Claude Code's own tools that are not web tools: a broad matcher must
    /// not start pace-hook for them.
    const NOT_WEB: Names = names![
        "Read",
        "Write",
        "Edit",
        "MultiEdit",
        "Glob",
        "Grep",
        "Task",
        "TodoWrite",
        "NotebookEdit",
        "BashOutput",
    ];

    #[test]
    fn the_installed_matcher_covers_every_profile_under_every_server_name() {
        let examples: Vec<_> = profile::examples().collect();
        assert!(examples.len() >= 12, "{examples:?}");
        for tool in examples {
            assert!(matcher_matches(MATCHER, tool), "{MATCHER} misses {tool}");
        }
    }

    #[test]
    fn the_installed_matcher_covers_servers_no_profile_knows() {
        // So that their tools reach pace-hook and are logged as unknown.
        for tool in [
            "mcp__browserbase__navigate",
            "mcp__browser-use__browser_go_back",
        ] {
            assert!(matcher_matches(MATCHER, tool), "{tool}");
        }
    }

    #[test]
    fn the_installed_matcher_leaves_claude_codes_other_tools_alone() {
        for tool in NOT_WEB.iter() {
            assert!(!matcher_matches(MATCHER, tool), "{tool}");
        }
    }

    #[test]
    fn a_plain_name_is_exact_not_a_prefix() {
        // The documented trap: a server name alone selects nothing.
        assert!(!matcher_matches(
            "mcp__claude-in-chrome",
            "mcp__claude-in-chrome__navigate"
        ));
        assert!(matcher_matches("Bash", "Bash"));
        assert!(!matcher_matches("Bash", "BashOutput"));
        assert!(!matcher_matches("Web", "WebFetch"));
    }

    #[test]
    fn a_plain_list_splits_on_bars_and_commas() {
        for m in ["Edit|Write", "Edit, Write", "Edit , Write", "Edit,Write"] {
            assert!(matcher_matches(m, "Write"), "{m}");
            assert!(matcher_matches(m, "Edit"), "{m}");
            assert!(!matcher_matches(m, "Read"), "{m}");
        }
        assert!(matcher_matches(
            "WebFetch|mcp__puppeteer__puppeteer_navigate",
            "WebFetch"
        ));
    }

    #[test]
    fn anything_else_is_an_unanchored_regex() {
        assert!(matcher_matches(
            "mcp__claude-in-chrome__.*",
            "mcp__claude-in-chrome__navigate"
        ));
        assert!(matcher_matches(
            "^mcp__claude-in-chrome__",
            "mcp__claude-in-chrome__navigate"
        ));
        // Unanchored: a match anywhere in the name counts.
        assert!(matcher_matches("Fetch.", "WebFetchX"));
        assert!(matcher_matches("Notebook.*", "NotebookEdit"));
        assert!(!matcher_matches("^Bash$", "BashOutput"));
        // Case counts, as in JavaScript without the `i` flag.
        assert!(!matcher_matches("webfetch.*", "WebFetch"));
    }

    #[test]
    fn empty_and_star_select_everything() {
        assert!(matcher_matches("", "Bash"));
        assert!(matcher_matches("*", "mcp__x__y"));
    }

    #[test]
    fn a_regex_this_emulation_cannot_read_matches_nothing() {
        // Look-ahead is JavaScript but not regex-lite; an unbalanced group is
        // no regex at all. Neither is vouched for.
        assert!(!matcher_matches("(?=mcp__).*", "mcp__x__y"));
        assert!(!matcher_matches("mcp__(", "mcp__x__y"));
    }
}
