//! What the config asks of the gate for a site: the policy, the jitter and
//! the gates a host is paced on.

use crate::{
    config::{Config, Site},
    pacing::decision::Policy,
    pacing::request::SiteRequest,
};

impl Config {
    /// The policy of configured site `site`, or the global one.
    pub fn policy_of(&self, site: Option<Site<'_>>) -> Policy {
        Policy {
            interval_ms: site.and_then(|s| s.interval_ms).unwrap_or(self.interval_ms),
            hold_ms: self.hold_ms,
            budget: site.and_then(|s| s.budget).or(self.budget),
        }
    }

    /// The jitter for configured site `site`, or the global one.
    pub fn jitter_of(&self, site: Option<Site<'_>>) -> u64 {
        site.and_then(|s| s.jitter_ms).unwrap_or(self.jitter_ms)
    }

    /// The gates a request to `host` goes through, each with the policy
    /// this config requires there.
    ///
    /// A host is always paced on its own gate key (its registrable domain),
    /// whatever the config says, so that processes whose configs differ
    /// still meet on one gate. A host owned by a configured `[[site]]` is
    /// also paced on the key of every domain of that site, with the site's
    /// interval: the group shares one pace, and a process that does not
    /// define the group still meets it on each domain.
    pub fn requests_for_host(&self, host: &str) -> Vec<SiteRequest> {
        let own = crate::key::registrable(host);
        match self.owner_of(host) {
            None => vec![SiteRequest {
                site: own,
                policy: self.policy_of(None),
                jitter_ms: self.jitter_ms,
            }],
            Some(group) => {
                let policy = self.policy_of(Some(group));
                let jitter_ms = self.jitter_of(Some(group));
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

    /// The configured site with a domain under gate key `key`, the one with
    /// the longest interval if several.
    pub fn group_of_key(&self, key: &str) -> Option<Site<'_>> {
        self.sites()
            .filter(|g| g.domains().any(|d| crate::key::registrable(d) == key))
            .max_by_key(|g| g.interval_ms.unwrap_or(self.interval_ms))
    }

    /// The policy this config requires on gate key `key`: the strictest
    /// configured site with a domain under that key, else the global one.
    /// For calls paced on sites known only by their key.
    pub fn policy_for_key(&self, key: &str) -> Policy {
        self.request_for_key(key).policy
    }

    /// [`Self::policy_for_key`], with the jitter that goes with it.
    pub fn request_for_key(&self, key: &str) -> SiteRequest {
        let mut policy = self.policy_of(None);
        let mut jitter_ms = self.jitter_ms;
        if let Some(group) = self.group_of_key(key) {
            let p = self.policy_of(Some(group));
            policy.interval_ms = policy.interval_ms.max(p.interval_ms);
            policy.budget = p.budget;
            jitter_ms = self.jitter_of(Some(group));
        }
        SiteRequest {
            site: key.to_owned(),
            policy,
            jitter_ms,
        }
    }
}
