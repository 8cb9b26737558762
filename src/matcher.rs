//! Claude Code's hook matchers, as version 2.1.332 reads them (see
//! `shared/protocol.md`, "Matchers"): which tool names a settings entry's
//! `matcher` sends to its hooks.
//!
//! A matcher made only of letters, digits, `_`, `-`, `|`, `,` and spaces is a
//! list of exact tool names; `*` and an empty or missing matcher match every
//! tool; anything else is an unanchored JavaScript regular expression. So
//! `mcp__claude-in-chrome` matches no tool at all, while
//! `mcp__claude-in-chrome__.*` matches every tool of that server.
//!
//! Stand-in: the `install` branch adds this module with the same signature;
//! at merge, its file replaces this one. The rule is small enough that both
//! agree; `doctor` only calls [`matcher_matches`].

use regex_lite::Regex;

/// Whether a hook entry with `matcher` runs for a call of `tool`.
///
/// The regular expression is read by `regex-lite`, whose syntax is
/// JavaScript's for everything a tool matcher uses (classes, groups,
/// alternation, anchors, repetition). A pattern only JavaScript accepts
/// (look-around, back-references) is read as matching nothing, which
/// `doctor` then reports: it errs towards saying "check this matcher".
pub(crate) fn matcher_matches(matcher: &str, tool: &str) -> bool {
    let m = matcher.trim();
    if m.is_empty() || m == "*" {
        return true;
    }
    if is_exact_list(m) {
        return m.split(['|', ',']).map(str::trim).any(|name| name == tool);
    }
    Regex::new(m).is_ok_and(|re| re.is_match(tool))
}

/// Whether Claude Code reads `matcher` as a list of exact tool names.
pub(crate) fn is_exact_list(matcher: &str) -> bool {
    matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|' | ',' | ' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_name_alone_matches_none_of_its_tools() {
        assert!(!matcher_matches(
            "mcp__claude-in-chrome",
            "mcp__claude-in-chrome__navigate"
        ));
        assert!(matcher_matches(
            "mcp__claude-in-chrome",
            "mcp__claude-in-chrome"
        ));
    }

    #[test]
    fn regexes_are_unanchored_and_star_matches_everything() {
        for m in [
            "mcp__claude-in-chrome__.*",
            "^mcp__claude-in-chrome__",
            "mcp__.*",
            "mcp__.*|WebFetch",
            "*",
            "",
        ] {
            assert!(matcher_matches(m, "mcp__claude-in-chrome__computer"), "{m}");
        }
        assert!(matcher_matches("mcp__.*|WebFetch", "WebFetch"));
        assert!(!matcher_matches("mcp__.*", "WebFetch"));
        assert!(matcher_matches("Fetch$", "WebFetch"), "unanchored");
    }

    #[test]
    fn an_exact_list_names_whole_tools() {
        assert!(matcher_matches("Edit | WebFetch", "WebFetch"));
        assert!(matcher_matches("Edit,WebFetch", "WebFetch"));
        assert!(!matcher_matches("Edit|Web", "WebFetch"));
    }

    #[test]
    fn a_pattern_regex_lite_cannot_read_matches_nothing() {
        assert!(!matcher_matches("mcp__(?!x)", "mcp__y__z"));
    }
}
