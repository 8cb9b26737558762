//! Sites' published limits, built in: `preset = "github"` in a `[[site]]`
//! gives the site the pace its operator documents, so a user need not find
//! and type it. Each preset cites its source and the day it was read.
//!
//! A preset never loosens what the user set: for each setting the stricter
//! of the preset's value and the user's (the site's own, else the global
//! one) holds, a longer interval and the budget with the lower rate. So a
//! preset can only make a site slower, and `status` and `doctor` say which
//! value came from where.
//!
//! What a preset cannot say in this config's terms is said in `notes`: a
//! limit on some requests only (GitHub's counts content-creating requests,
//! and pace-hook paces every request to the site), a wait its operator asks
//! for after a push-back (pace-hook's backoff starts at the interval and
//! doubles up to `max_backoff`).

use super::{ToolClass, ToolRule};
use crate::pacing::decision::Budget;

/// A site's published limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Preset {
    /// Its name in `preset = "…"`.
    pub(crate) name: &'static str,
    /// Domains when the `[[site]]` lists none.
    pub(crate) domains: &'static [&'static str],
    /// Least gap between two requests.
    pub(crate) interval_ms: u64,
    /// At most so many requests in so long.
    pub(crate) budget: Option<Budget>,
    /// What the operator publishes, in its words as near as may be.
    pub(crate) published: &'static str,
    /// Where, and when it was read.
    pub(crate) source: &'static str,
    /// The day the source was read.
    pub(crate) read: &'static str,
    /// What the preset cannot express.
    pub(crate) notes: &'static str,
    /// The word in the name of the service's own MCP servers (`github` for
    /// `mcp__github__create_issue`): their tools, which name no URL, are
    /// requests to the site all the same, and are paced on it.
    pub(crate) server: Option<&'static str>,
}

/// Every preset.
pub(crate) static PRESETS: &[Preset] = &[
    Preset {
        name: "github",
        domains: &["github.com", "githubusercontent.com"],
        // "wait at least one second between each request" (mutative ones).
        interval_ms: 1_000,
        // "no more than 500 content-generating requests per hour"; the 80
        // a minute is kept by the interval (at most 60 a minute).
        budget: Some(Budget {
            calls: 500,
            window_ms: 3_600_000,
        }),
        published: "no more than 80 content-generating requests per minute and no more than 500 per hour (web interface included); requests serially, not concurrently; at least one second between POST, PATCH, PUT and DELETE requests; after a rate limit error, wait for `retry-after`, else at least one minute",
        source: "https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api (secondary rate limits) and https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api",
        read: "2026-12-01",
        notes: "GitHub's caps count content-generating requests; pace-hook counts every request to github.com, so reads spend the budget too. Calls are serial by design (one site, one queue). A push-back without Retry-After waits the interval doubled, not GitHub's minute: set max_backoff and interval to taste.",
        // GitHub's MCP server (github/github-mcp-server, local or hosted):
        // `create_issue`, `create_pull_request`, `push_files`, … call the
        // REST and GraphQL APIs on api.github.com.
        server: Some("github"),
    },
    Preset {
        name: "reddit",
        domains: &["reddit.com", "redd.it", "redditmedia.com"],
        interval_ms: 1_000,
        budget: Some(Budget {
            calls: 60,
            window_ms: 60_000,
        }),
        published: "clients connecting via OAuth2 may make up to 60 requests per minute (unauthenticated: 30); since July 2023 the free tier is metered per OAuth client id over a 10-minute window",
        source: "https://github.com/reddit-archive/reddit/wiki/API (Rules) and https://www.reddit.com/r/redditdev/comments/13wsiks/ (rate limits for the free tier)",
        read: "2026-12-01",
        notes: "Reddit's figure is per OAuth client; pace-hook paces the machine (or every machine on one Redis), whatever client sends.",
        server: Some("reddit"),
    },
];

/// The preset named `name`.
pub(crate) fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The names, for an error message: `"github", "reddit"`.
pub(crate) fn names() -> String {
    PRESETS
        .iter()
        .map(|p| format!("\"{}\"", p.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `[[tool]]` rule a `[[site]]` with `preset` adds after the user's
/// own: every tool of an MCP server whose name has the preset's word
/// (`mcp__github__…`, `mcp__GitHub-MCP__…`) is paced on the site (its
/// first domain), whatever its input, since it calls the service's API.
pub(crate) fn tool_rule(preset: &Preset, domain: Option<&String>) -> Option<ToolRule> {
    let (word, site) = (preset.server?, domain?);
    Some(ToolRule {
        pattern: format!("(?i)mcp__[a-z0-9_-]*{word}[a-z0-9_-]*__.+"),
        class: ToolClass::Pace,
        url: None,
        code: None,
        reason: None,
        site: Some(site.clone()),
    })
}

/// The interval and budget a site with `preset` gets, where the user's
/// values (the site's own, else the global ones) are `interval_ms` and
/// `budget`: the stricter of each.
pub(crate) fn combine(
    preset: &Preset,
    interval_ms: u64,
    budget: Option<Budget>,
) -> (u64, Option<Budget>) {
    (
        interval_ms.max(preset.interval_ms),
        stricter(budget, preset.budget),
    )
}

/// The budget with the lower rate (`gate::strictest`'s rule, which sits a
/// layer above).
fn stricter(a: Option<Budget>, b: Option<Budget>) -> Option<Budget> {
    match (a, b) {
        (Some(x), Some(y)) => {
            let rate = |b: &Budget| f64::from(b.calls) / b.window_ms.max(1) as f64;
            Some(if rate(&y) < rate(&x) { y } else { x })
        }
        (x, y) => x.or(y),
    }
}

/// How a `[[site]]`'s preset combined with the user's settings, as one
/// line for `status` and `doctor`: each value and where it came from, what
/// the site publishes, and the source.
pub(crate) fn describe(u: &super::PresetUse) -> String {
    use crate::duration::format_duration;
    let Some(p) = find(&u.preset) else {
        return format!("site `{}`: preset `{}` is not built in", u.site, u.preset);
    };
    let (interval, budget) = combine(p, u.user_interval_ms, u.user_budget);
    let whose = |preset_won: bool| if preset_won { "the preset's" } else { "yours" };
    let per = |b: Option<Budget>| {
        b.map_or("none".to_owned(), |b| {
            format!("{} per {}", b.calls, format_duration(b.window_ms))
        })
    };
    let budget_whose = if budget == u.user_budget {
        "yours".to_owned()
    } else {
        format!("the preset's; yours: {}", per(u.user_budget))
    };
    let tools = p.server.map_or(String::new(), |w| {
        format!("; the tools of MCP servers named like `{w}` are paced on it")
    });
    format!(
        "site `{}` uses preset `{}`: interval {} ({}{}), budget {} ({budget_whose}){tools}; {} publishes: {}; source {}, read {}",
        u.site,
        p.name,
        format_duration(interval),
        whose(interval != u.user_interval_ms),
        if interval != u.user_interval_ms {
            format!("; yours: {}", format_duration(u.user_interval_ms))
        } else {
            String::new()
        },
        per(budget),
        p.name,
        p.published,
        p.source,
        p.read,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preset_makes_a_looser_setting_stricter_and_never_a_stricter_one_looser() {
        let github = find("github").unwrap();
        // The defaults' 10 s is stricter than GitHub's second: it holds.
        assert_eq!(combine(github, 10_000, None).0, 10_000);
        // A user's 200 ms for GitHub is looser: the preset's second holds.
        assert_eq!(combine(github, 200, None).0, 1_000);
        // A budget of 100 an hour is stricter than 500 an hour: it holds.
        let mine = Budget {
            calls: 100,
            window_ms: 3_600_000,
        };
        assert_eq!(combine(github, 1_000, Some(mine)).1, Some(mine));
        // 1000 a day is looser as a rate than 500 an hour? No: 1000/24h is
        // 42 an hour, stricter; it holds.
        let daily = Budget {
            calls: 1_000,
            window_ms: 86_400_000,
        };
        assert_eq!(combine(github, 1_000, Some(daily)).1, Some(daily));
        // 10 000 an hour is looser: the preset's 500 holds.
        let lots = Budget {
            calls: 10_000,
            window_ms: 3_600_000,
        };
        assert_eq!(combine(github, 1_000, Some(lots)).1, github.budget);
    }

    #[test]
    fn every_preset_cites_a_source_and_a_day() {
        for p in PRESETS {
            assert!(p.source.starts_with("https://"), "{}", p.name);
            assert_eq!(p.read.len(), 10, "{}", p.name);
            assert!(!p.domains.is_empty() && p.interval_ms > 0, "{}", p.name);
        }
    }
}
