//! From what a call reaches to the gates it is paced on, each with the
//! policy this caller's config requires there.
//!
//! What cannot be told is never "no site": a tab the map does not know, a
//! call that names no tab, a URL that cannot be read, a script that builds a
//! URL from parts it cannot read — each is counted against every site the
//! gate knows, because waiting too long is cheaper than missing one. With
//! nothing known at all, such calls are spaced under the [`UNKNOWN_SITE`]
//! key, so they are still paced among themselves. Only a URL proved to load
//! nothing (`about:blank`) reaches no site.

use crate::{
    config::Config,
    error::Result,
    gate::{SiteRequest, requests},
    read::profile::{TabRef, Target},
    read::url::{Reach, reach, reach_absolute},
    store::{Store, TabEntry, TabMap},
};

/// The key for calls whose site cannot be told when the gate knows no site.
/// Brackets cannot occur in a host, so it never collides with a real site.
pub(crate) const UNKNOWN_SITE: &str = "[unknown-tab]";

/// A host in the tab map that stands for "could not be read: every site".
pub(crate) const ANY_HOST: &str = "*";

/// The hosts a navigation to `url` reaches, as the tab map keeps them: none
/// for a page proved to be on no site, [`ANY_HOST`] for what cannot be read
/// (beside the host it most likely means), every host a `data:` document
/// names. A `javascript:` URL is a script the profile has analysed already;
/// here it counts as unreadable.
pub(crate) fn hosts_of_url(url: &str) -> Vec<String> {
    hosts_of(reach(url))
}

fn hosts_of(r: Reach) -> Vec<String> {
    match r {
        Reach::Host(h) => vec![h],
        Reach::Nowhere(_) => Vec::new(),
        Reach::Document {
            mut hosts,
            unreadable,
        } => {
            if unreadable {
                hosts.push(ANY_HOST.to_owned());
            }
            hosts
        }
        Reach::Script(_) => vec![ANY_HOST.to_owned()],
        Reach::Unreadable { guess, .. } => guess.into_iter().chain([ANY_HOST.to_owned()]).collect(),
    }
}

/// The hosts an absolute URL found in a script or a page reaches; none for a
/// relative one, which goes to the page's own site.
pub(crate) fn hosts_of_absolute(url: &str) -> Vec<String> {
    reach_absolute(url).map(hosts_of).unwrap_or_default()
}

/// The gates a call with `target` is paced on; empty for a call that
/// reaches no site (a navigation to `about:blank`, a tab on `chrome://…`).
pub(crate) fn requests_for(
    target: &Target,
    config: &Config,
    store: &dyn Store,
) -> Result<Vec<SiteRequest>> {
    let mut hosts: Vec<String> = Vec::new();
    let mut every = false;
    let mut tabs: Option<TabMap> = None;
    let mut tab_hosts = |tab: &TabRef, history: bool, hosts: &mut Vec<String>| -> Result<bool> {
        let map = match &mut tabs {
            Some(m) => m,
            None => tabs.insert(store.tabs()?),
        };
        Ok(match entry(map, tab) {
            None => true,
            Some(e) => {
                hosts.extend(e.hosts.iter().cloned());
                if history {
                    hosts.extend(e.history.iter().cloned());
                    // Nowhere to go back to that the map knows of: it
                    // cannot say where the tab goes.
                    e.hosts.is_empty() && e.history.is_empty()
                } else {
                    false
                }
            }
        })
    };
    match target {
        Target::Url { url, .. } => hosts.extend(hosts_of_url(url)),
        Target::Urls(urls) => {
            for u in urls {
                hosts.extend(hosts_of_url(u));
            }
        }
        Target::Tab(tab) => every |= tab_hosts(tab, false, &mut hosts)?,
        Target::History(tab) => every |= tab_hosts(tab, true, &mut hosts)?,
        Target::Unknown => every = true,
        Target::Sites { urls, any_site } => {
            every |= *any_site;
            for u in urls {
                hosts.extend(hosts_of_url(u));
            }
        }
        Target::Script {
            tab,
            urls,
            any_site,
        } => {
            every |= *any_site;
            match tab {
                Some(tab) => every |= tab_hosts(tab, false, &mut hosts)?,
                None => every = true,
            }
            for u in urls {
                hosts.extend(hosts_of_absolute(u));
            }
        }
    }
    let mut out: Vec<SiteRequest> = Vec::new();
    for h in &hosts {
        if h == ANY_HOST {
            every = true;
        } else {
            out.extend(requests::for_host(config, h)?);
        }
    }
    if every {
        out.extend(every_known_site(config, store)?);
    }
    out.sort_by(|a, b| a.site.cmp(&b.site));
    out.dedup_by(|b, a| {
        if a.site == b.site {
            a.policy.interval_ms = a.policy.interval_ms.max(b.policy.interval_ms);
            a.jitter_ms = a.jitter_ms.max(b.jitter_ms);
            a.policy.budget = crate::gate::strictest(a.policy.budget, b.policy.budget);
            true
        } else {
            false
        }
    });
    Ok(out)
}

/// The tab map's entry for `tab` (its browser's current tab if it names
/// none).
pub(crate) fn entry<'m>(map: &'m TabMap, tab: &TabRef) -> Option<&'m TabEntry> {
    let key = match tab.key() {
        Some(k) => k,
        None => map.current.get(&tab.browser)?.clone(),
    };
    map.tabs.get(&key)
}

/// Every configured site and every site with state in the store, each with
/// the policy this config requires there.
pub(crate) fn every_known_site(config: &Config, store: &dyn Store) -> Result<Vec<SiteRequest>> {
    let mut keys = config.known_keys()?;
    keys.extend(store.known_sites()?);
    keys.sort();
    keys.dedup();
    if keys.is_empty() {
        keys.push(UNKNOWN_SITE.to_owned());
    }
    requests::for_keys(config, &keys)
}
