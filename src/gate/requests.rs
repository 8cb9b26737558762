//! What the config asks of the gate for a site: the policy and jitter a
//! configured site (or the global settings) require, and the gates a host or
//! a key is paced on. The config holds the settings as data; turning them
//! into [`SiteRequest`]s is the gate's side of it.

use crate::{
    config::{Config, Site},
    error::Result,
    pacing::decision::Policy,
    pacing::request::SiteRequest,
};

/// The policy of configured site `site`, or the global one.
pub(crate) fn policy_of(config: &Config, site: Option<&Site>) -> Policy {
    Policy {
        interval_ms: site
            .and_then(|s| s.interval_ms)
            .unwrap_or(config.interval_ms),
        hold_ms: config.hold_ms,
        budget: site.and_then(|s| s.budget).or(config.budget),
    }
}

/// The jitter for configured site `site`, or the global one.
pub(crate) fn jitter_of(config: &Config, site: Option<&Site>) -> u64 {
    site.and_then(|s| s.jitter_ms).unwrap_or(config.jitter_ms)
}

/// The gates a request to `host` goes through, each with the policy
/// `config` requires there.
///
/// A host is always paced on its own gate key (its registrable domain),
/// whatever the config says, so that processes whose configs differ
/// still meet on one gate. A host owned by a configured `[[site]]` is
/// also paced on the key of every domain of that site, with the site's
/// interval: the group shares one pace, and a process that does not
/// define the group still meets it on each domain.
pub(crate) fn for_host(config: &Config, host: &str) -> Result<Vec<SiteRequest>> {
    let own = crate::key::registrable(host);
    Ok(match config.owner_of(host)? {
        None => vec![SiteRequest {
            site: own,
            policy: policy_of(config, None),
            jitter_ms: config.jitter_ms,
        }],
        Some(group) => {
            let policy = policy_of(config, Some(&group));
            let jitter_ms = jitter_of(config, Some(&group));
            let mut keys: Vec<String> = group.domains().map(crate::key::registrable).collect();
            keys.push(own);
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .map(|site| SiteRequest {
                    site,
                    policy,
                    jitter_ms,
                })
                .collect()
        }
    })
}

/// The policy `config` requires on gate key `key`: the strictest
/// configured site with a domain under that key, else the global one.
/// For calls paced on sites known only by their key.
pub(crate) fn policy_for_key(config: &Config, key: &str) -> Result<Policy> {
    Ok(for_key(config, key)?.policy)
}

/// [`policy_for_key`], with the jitter that goes with it.
pub(crate) fn for_key(config: &Config, key: &str) -> Result<SiteRequest> {
    Ok(with_group(config, key, config.group_of_key(key)?.as_ref()))
}

/// [`for_key`] for each of `keys`, in order. Finding a key's configured
/// site is a lookup in the sites' table; for many keys (a call paced on
/// every known site), the sites are read once, whole, into a table of each
/// key's site instead: reading a key's site one at a time read a million
/// site lines with 1,000 sites (BENCHMARKS.md, section 6), and its table
/// lookups would read a page each.
pub(crate) fn for_keys(config: &Config, keys: &[String]) -> Result<Vec<SiteRequest>> {
    let sites = config.sites()?;
    let mut groups: std::collections::HashMap<String, &Site> = std::collections::HashMap::new();
    let interval = |g: &Site| g.interval_ms.unwrap_or(config.interval_ms);
    for site in &sites {
        for d in site.domains() {
            let slot = groups.entry(crate::key::registrable(d)).or_insert(site);
            // As `group_of_key`: the longest interval, the last of equals.
            if interval(site) >= interval(slot) {
                *slot = site;
            }
        }
    }
    Ok(keys
        .iter()
        .map(|k| with_group(config, k, groups.get(k.as_str()).copied()))
        .collect())
}

/// The request on `key` with the policy of its configured site, if any.
fn with_group(config: &Config, key: &str, group: Option<&Site>) -> SiteRequest {
    let mut policy = policy_of(config, None);
    let mut jitter_ms = config.jitter_ms;
    if let Some(group) = group {
        let p = policy_of(config, Some(group));
        policy.interval_ms = policy.interval_ms.max(p.interval_ms);
        policy.budget = p.budget;
        jitter_ms = jitter_of(config, Some(group));
    }
    SiteRequest {
        site: key.to_owned(),
        policy,
        jitter_ms,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The table `for_keys` reads the sites into picks each key's site as
    /// `group_of_key` does: the longest interval, the last of equals.
    #[test]
    fn many_keys_at_once_get_what_each_gets_alone() {
        let c = Config::parse(
            "interval = \"10s\"\njitter = \"1s\"\n\
             [[site]]\nname = \"a\"\ndomains = [\"x.social\"]\ninterval = \"30s\"\n\
             [[site]]\nname = \"b\"\ndomains = [\"cdn.x.social\", \"y.org\"]\ninterval = \"60s\"\njitter = \"2s\"\n\
             [[site]]\nname = \"c\"\ndomains = [\"y.org\"]\ninterval = \"60s\"\njitter = \"3s\"\n\
             [[site]]\nname = \"d\"\ndomains = [\"z.net\"]\n",
            Path::new("/x/pace-hook.toml"),
        )
        .unwrap();
        let keys: Vec<String> = ["x.social", "y.org", "z.net", "other.com"]
            .map(str::to_owned)
            .to_vec();
        let each: Vec<SiteRequest> = keys.iter().map(|k| for_key(&c, k).unwrap()).collect();
        assert_eq!(for_keys(&c, &keys).unwrap(), each);
        // Not all alike: the table tells them apart.
        assert_eq!(each[0].policy.interval_ms, 60_000);
        assert_eq!(each[1].jitter_ms, 3_000);
        assert_eq!(each[3].policy.interval_ms, 10_000);
    }

    #[test]
    fn a_configured_site_gives_its_policy_to_its_keys_and_hosts() {
        let c = Config::parse(
            "interval = \"10s\"\n\n[[site]]\nname = \"social\"\ndomains = [\"example.social\"]\ninterval = \"30s\"\n",
            Path::new("/x/pace-hook.toml"),
        )
        .unwrap();
        assert_eq!(
            policy_for_key(&c, "example.social").unwrap().interval_ms,
            30_000
        );

        assert_eq!(policy_for_key(&c, "other.com").unwrap().interval_ms, 10_000);
        let r = for_host(&c, "www.example.social").unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].site.as_str(), r[0].policy.interval_ms),
            ("example.social", 30_000)
        );
    }
}
