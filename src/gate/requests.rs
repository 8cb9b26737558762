//! What the config asks of the gate for a site: the policy and jitter a
//! configured site (or the global settings) require, and the gates a host or
//! a key is paced on. The config holds the settings as data; turning them
//! into [`SiteRequest`]s is the gate's side of it.

use crate::{
    config::{Config, Site},
    pacing::decision::Policy,
    pacing::request::SiteRequest,
};

/// The policy of configured site `site`, or the global one.
pub(crate) fn policy_of(config: &Config, site: Option<Site<'_>>) -> Policy {
    Policy {
        interval_ms: site
            .and_then(|s| s.interval_ms)
            .unwrap_or(config.interval_ms),
        hold_ms: config.hold_ms,
        budget: site.and_then(|s| s.budget).or(config.budget),
    }
}

/// The jitter for configured site `site`, or the global one.
pub(crate) fn jitter_of(config: &Config, site: Option<Site<'_>>) -> u64 {
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
pub(crate) fn for_host(config: &Config, host: &str) -> Vec<SiteRequest> {
    let own = crate::key::registrable(host);
    match config.owner_of(host) {
        None => vec![SiteRequest {
            site: own,
            policy: policy_of(config, None),
            jitter_ms: config.jitter_ms,
        }],
        Some(group) => {
            let policy = policy_of(config, Some(group));
            let jitter_ms = jitter_of(config, Some(group));
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
    }
}

/// The policy `config` requires on gate key `key`: the strictest
/// configured site with a domain under that key, else the global one.
/// For calls paced on sites known only by their key.
pub(crate) fn policy_for_key(config: &Config, key: &str) -> Policy {
    for_key(config, key).policy
}

/// [`policy_for_key`], with the jitter that goes with it.
pub(crate) fn for_key(config: &Config, key: &str) -> SiteRequest {
    let mut policy = policy_of(config, None);
    let mut jitter_ms = config.jitter_ms;
    if let Some(group) = config.group_of_key(key) {
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

    #[test]
    fn a_configured_site_gives_its_policy_to_its_keys_and_hosts() {
        let c = Config::parse(
            "interval = \"10s\"\n\n[[site]]\nname = \"social\"\ndomains = [\"example.social\"]\ninterval = \"30s\"\n",
            Path::new("/x/pace-hook.toml"),
        )
        .unwrap();
        assert_eq!(policy_for_key(&c, "example.social").interval_ms, 30_000);
        assert_eq!(policy_for_key(&c, "other.com").interval_ms, 10_000);
        let r = for_host(&c, "www.example.social");
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].site.as_str(), r[0].policy.interval_ms),
            ("example.social", 30_000)
        );
    }
}
