//! What a call asks of one site: the site's key and the policy its caller
//! requires there. The config's settings become requests in
//! `gate::requests`; the gate takes them in turn.

use crate::pacing::decision::Policy;

/// One site a call needs, and the policy its caller requires there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteRequest {
    /// The site key.
    pub site: String,
    /// The caller's interval and hold for it.
    pub policy: Policy,
    /// Up to this much random extra on the interval, drawn per call.
    pub jitter_ms: u64,
}

impl SiteRequest {
    /// A request for `site` with `policy` and no jitter.
    pub fn new(site: impl Into<String>, policy: Policy) -> Self {
        Self {
            site: site.into(),
            policy,
            jitter_ms: 0,
        }
    }

    /// This request with its jitter drawn: a random extra of up to
    /// `jitter_ms` on the interval, so that calls do not fall into a
    /// machine-regular cadence, nor machines into step.
    pub fn jittered(mut self) -> Self {
        if self.jitter_ms > 0 {
            self.policy.interval_ms = self
                .policy
                .interval_ms
                .saturating_add(random_u64() % (self.jitter_ms + 1));
            self.jitter_ms = 0;
        }
        self
    }
}

/// A random number from the kernel; the time's nanoseconds if that fails.
pub(crate) fn random_u64() -> u64 {
    let mut buf = [0u8; 8];
    // SAFETY: buf is valid for its length.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    if n == 8 {
        u64::from_ne_bytes(buf)
    } else {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .subsec_nanos() as u64
    }
}
