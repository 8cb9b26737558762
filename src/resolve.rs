//! From what a call reaches to the site keys it is paced against.
//!
//! A tab the map does not know, or a call that names no tab, is counted
//! against every site the gate knows: waiting too long is cheaper than
//! missing one. With nothing known at all, such calls are spaced under the
//! [`UNKNOWN_SITE`] key, so they are still paced among themselves.

use crate::{config::Config, error::Result, profile::Target, site, store::Store};

/// The key for calls on an unknown tab when the gate knows no site. Brackets
/// cannot occur in a host, so it never collides with a real site.
pub const UNKNOWN_SITE: &str = "[unknown-tab]";

/// The site keys a call with `target` is paced against; empty for a call that
/// reaches no site (a navigation to `about:blank`, a tab on `chrome://…`).
pub fn sites_for(target: &Target, config: &Config, store: &impl Store) -> Result<Vec<String>> {
    match target {
        Target::Url { url, .. } => Ok(site::key_for_url(url, config).into_iter().collect()),
        Target::Tab(tab) => match store.tabs()?.tabs.get(tab) {
            Some(entry) => {
                let mut sites: Vec<String> = entry
                    .hosts
                    .iter()
                    .map(|h| site::key_for_host(h, config))
                    .collect();
                sites.sort();
                sites.dedup();
                Ok(sites)
            }
            None => every_known_site(config, store),
        },
        Target::Unknown => every_known_site(config, store),
        Target::Script { tab, urls } => {
            let mut sites = match tab {
                Some(tab) => sites_for(&Target::Tab(tab.clone()), config, store)?,
                None => every_known_site(config, store)?,
            };
            sites.extend(urls.iter().filter_map(|u| site::key_for_url(u, config)));
            sites.sort();
            sites.dedup();
            Ok(sites)
        }
    }
}

/// Every configured site and every site with state in the store.
pub fn every_known_site(config: &Config, store: &impl Store) -> Result<Vec<String>> {
    let mut sites: Vec<String> = config.sites().map(|s| s.name.to_owned()).collect();
    sites.extend(store.known_sites()?);
    sites.sort();
    sites.dedup();
    if sites.is_empty() {
        sites.push(UNKNOWN_SITE.to_owned());
    }
    Ok(sites)
}
