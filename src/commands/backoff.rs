//! `pace-hook backoff SITE --for D | --clear`: hold a site back by hand, or
//! lift a hold.

use super::{print, say};
use crate::{
    exit::{Doing, Exit},
    pacer::Pacer,
    pacing::gaps,
};

pub(super) fn run(site: &str, for_ms: Option<u64>, clear: bool) -> Exit {
    let result = Pacer::from_env().and_then(|p| match (clear, for_ms) {
        (true, _) => p.clear_backoff(site).map(|sites| (sites, None)),
        (false, ms) => p
            .backoff(site, std::time::Duration::from_millis(ms.unwrap_or(0)))
            .map(|(sites, until)| (sites, Some(until))),
    });
    match result {
        Ok((sites, Some(until))) => {
            print(&format!(
                "{} held back until {} UTC\n",
                sites.join(", "),
                gaps::clock_time(until)
            ));
            Exit::Success
        }
        Ok((sites, None)) => {
            print(&format!("{}: backoff cleared\n", sites.join(", ")));
            Exit::Success
        }
        Err(e) => {
            say(&format!("pace-hook: {e}"));
            Exit::for_error(Doing::Operator, &e)
        }
    }
}
