//! Entry points for fuzzing every parser that reads outside data: one
//! function per target, taking the bytes a fuzzer makes, running one parser
//! (and what reads its result) and asserting the invariants that are cheap to
//! check. Not an API: `fuzz/` (cargo-fuzz, libFuzzer) calls these, and the
//! unit tests below run each one over its seeds, so a target that stops
//! compiling or panics on a captured event fails `cargo test` too.
//!
//! Invariant asserted throughout: a parser that cannot read its input never
//! concludes "no site" or "no request". Only a URL whose scheme is proved to
//! load nothing ([`crate::read::url::may_be_nowhere`]) reaches no site; a tab
//! listing read from text that page content could have written never
//! replaces what the tab map knows; a tampered state file can slow a site,
//! never admit early or wedge it for longer than a day.
//!
//! A panic anywhere is a finding: the hook turns a panic into a blocked call,
//! which fails closed but blocks every call that meets the same input.
//! Slowness is a finding too (run with libFuzzer's `-timeout`): a hook that
//! outlives Claude Code's hook timeout lets the call through.
//!
//! Seeds come from [`seeds`]: the captured events, `tests/fixtures/urls.toml`
//! and the README's config examples, turned into each target's input format,
//! and a few state files made here. See `docs/FUZZING.md`.

use std::path::Path;

use serde_json::{Map, Value};

use crate::{
    config::{self, Config, cache},
    duration,
    gate::requests,
    hook,
    hook::event::{self, EventKind, HookEvent},
    pacing::decision::{
        Budget, CEILING_MS, CLOCK_SLACK_MS, Decision, MAX_BUDGET_CALLS, Policy, SiteState,
    },
    pacing::gaps,
    pacing::log,
    read::profile::{self, Call, Learned, TabRef, Target, ToolResult, Verdict},
    read::resolve,
    read::script::{self, Count, Env},
    read::site,
    read::url::{self, Reach},
    store::{CallRecord, TabMap, file::AgentSlot},
};

/// A fuzz target: never returns an error, panics on a finding.
pub type Run = fn(&[u8]);

/// Every target, by the name `fuzz/fuzz_targets/<name>.rs` runs it under.
///
/// A new target needs a line here, a `fuzz/fuzz_targets/<name>.rs` of three lines
/// (copy `script.rs`), a `[[bin]]` in `fuzz/Cargo.toml`, its name in
/// `scripts/fuzz`'s list, and its seeds in [`seeds`].
pub const TARGETS: &[(&str, Run)] = &[
    ("event", event),
    ("tab_context", tab_context),
    ("config", config),
    ("site_state", site_state),
    ("state_files", state_files),
    ("url", url),
    ("duration", duration),
    ("script", script),
    ("listings", listings),
];

/// Run target `name` on `data`; `false` if there is no such target.
pub fn run(name: &str, data: &[u8]) -> bool {
    match TARGETS.iter().find(|(n, _)| *n == name) {
        Some((_, f)) => {
            f(data);
            true
        }
        None => false,
    }
}

// ---------------------------------------------------------------------------
// The hook event

/// The hook event as Claude Code writes it on stdin: parsed, then classified
/// and, for a Post, what its result teaches, as the hook does before any
/// I/O. Also [`event::looks_like_post`], which reads bytes that do not parse.
pub fn event(data: &[u8]) {
    let _ = event::looks_like_post(data);
    let _ = hook::client::Client::detect(data);
    // Every agent's reader, on the same bytes: each must read them into an
    // event that holds, or refuse them.
    for client in hook::client::ALL {
        let _ = client.looks_like_post(data);
        if let Ok(e) = client.read(data) {
            check_event(&e);
        }
    }
    let Ok(e) = HookEvent::parse(data) else {
        return;
    };
    check_event(&e);
}

/// What holds of every event read: a tool event names its tool, and its
/// verdict and what its result teaches are as strict as its owner requires.
fn check_event(e: &HookEvent) {
    if !matches!(e.kind, EventKind::Other(_)) {
        assert!(!e.tool_name.is_empty(), "a tool event without a tool name");
    }
    let _ = e.agent();
    let _ = hook::call_key(e, &crate::pacing::clock::SystemClock);
    let verdict = profile::classify(&e.tool_name, &e.tool_input, e.session_id.as_deref(), || {
        Ok(&[])
    })
    .expect("no rules to read");
    check_verdict(&e.tool_name, &verdict);
    if let Some((p, tool)) = profile::find(&e.tool_name) {
        let call = Call {
            tool,
            server: profile::server_of(&e.tool_name),
            input: &e.tool_input,
            session: e.session_id.as_deref(),
        };
        let texts = e.response_texts.clone();
        let outcome = ToolResult {
            texts: &texts,
            object: e.response_object.as_ref(),
            error: e.error.as_deref(),
        };
        let learned = p.learn(&call, &outcome);
        check_learned(&call, &outcome, &learned);
    }
}

/// A verdict is as strict as the tool's owner requires: a tool a profile
/// owns is never "not ours", and every URL it paces on is read fail-closed.
fn check_verdict(tool_name: &str, verdict: &Verdict) {
    match profile::find(tool_name) {
        // The shell's fast path: a command that cannot lead to a request is
        // as good as not a web tool's call.
        Some(_) if tool_name == "Bash" => assert!(!matches!(verdict, Verdict::Unknown)),
        Some(_) => assert!(
            !matches!(verdict, Verdict::NotOurs | Verdict::Unknown),
            "an owned tool {tool_name:?} passed as not ours: {verdict:?}"
        ),
        None if tool_name.starts_with("mcp__") => assert!(
            matches!(
                verdict,
                Verdict::Unknown | Verdict::Handed { .. } | Verdict::Block { .. }
            ),
            "a tool nobody knows is unknown, paced on the URLs it was handed, or blocked: {verdict:?}"
        ),
        None => assert_eq!(verdict, &Verdict::NotOurs),
    }
    if let Verdict::Pace { target, .. } | Verdict::Handed { target, .. } = verdict {
        match target {
            Target::Url { url, .. } => check_hosts_of_url(url),
            Target::Urls(urls) => {
                for u in urls {
                    check_hosts_of_url(u);
                }
            }
            Target::Script { urls, .. } => {
                for u in urls {
                    let _ = resolve::hosts_of_absolute(u);
                }
            }
            Target::Tab(t) | Target::History(t) => check_tab(t),
            Target::Sites { urls, .. } => {
                for u in urls {
                    check_hosts_of_url(u);
                }
            }
            Target::Unknown => {}
        }
    }
}

// ---------------------------------------------------------------------------
// Tab Context blocks and tab listings

/// The input of [`tab_context`] for one result: fields separated by NUL
/// bytes: the tool's short name, its input (a JSON object, else none), then
/// the result's text blocks; a field that starts with byte 1 is the error
/// text instead. Every field is read as UTF-8 with bad bytes replaced.
pub fn tab_context_input(
    tool: &str,
    input: &Map<String, Value>,
    texts: &[String],
    error: Option<&str>,
) -> Vec<u8> {
    let mut out = tool.as_bytes().to_vec();
    out.push(0);
    out.extend(serde_json::to_vec(input).unwrap_or_default());
    for t in texts {
        out.push(0);
        out.extend(t.as_bytes());
    }
    if let Some(e) = error {
        out.push(0);
        out.push(1);
        out.extend(e.as_bytes());
    }
    out
}

/// What a claude-in-chrome result teaches about tabs (the Tab Context block
/// the extension appends, the one in a failure's error, the JSON listing of
/// `tabs_context_mcp`), then folded into a tab map as the Post side does.
/// See [`tab_context_input`] for the input's layout.
pub fn tab_context(data: &[u8]) {
    let mut fields = data.split(|&b| b == 0);
    let tool = String::from_utf8_lossy(fields.next().unwrap_or_default()).into_owned();
    let input: Map<String, Value> =
        serde_json::from_slice(fields.next().unwrap_or_default()).unwrap_or_default();
    let mut texts = Vec::new();
    let mut error = None;
    for f in fields {
        match f.split_first() {
            Some((1, rest)) => error = Some(String::from_utf8_lossy(rest).into_owned()),
            _ => texts.push(String::from_utf8_lossy(f).into_owned()),
        }
    }
    let full = format!("mcp__claude-in-chrome__{tool}");
    let (p, short) = profile::find(&full).expect("claude-in-chrome owns every tool of its server");
    let call = Call {
        tool: short,
        server: profile::server_of(&full),
        input: &input,
        session: Some("fuzz"),
    };
    let outcome = ToolResult {
        texts: &texts,
        object: None,
        error: error.as_deref(),
    };
    let learned = p.learn(&call, &outcome);
    check_learned(&call, &outcome, &learned);
}

/// The most tabs one result can teach: `MAX_TAB_LINES` (1,024) lines of the
/// extension's block, as many of the error's and of a JSON listing, and the
/// navigation's own tab.
const MAX_LEARNED_TABS: usize = 3 * 1_024 + 1;

/// What a result teaches is bounded, believed only where the extension
/// writes, and never "on no site" unless the URL says so; and the tab map it
/// is folded into stays bounded and fail-closed.
fn check_learned(call: &Call<'_>, outcome: &ToolResult<'_>, learned: &Learned) {
    assert!(
        learned.tabs.len() <= MAX_LEARNED_TABS,
        "{} tabs from one result",
        learned.tabs.len()
    );
    let extension_block = outcome.texts.last().is_some_and(|t| {
        t.trim_start_matches(['\n', '\r', ' '])
            .starts_with("Tab Context:")
    });
    let listing = matches!(
        call.tool,
        "tabs_context_mcp" | "tabs_context" | "tabs_create_mcp"
    );
    let navigated = call.tool == "navigate" && outcome.error.is_none();
    let error_block = outcome
        .error
        .is_some_and(|e| e.contains("\n\nTab Context:"));
    for t in &learned.tabs {
        check_tab(&t.tab);
        // The rules below are claude-in-chrome's; other families' results
        // are checked by the `listings` target.
        if t.tab.browser != "chrome" {
            check_hosts_of_url(&t.url);
            continue;
        }
        if t.sure {
            assert!(
                extension_block || listing || navigated,
                "a sure tab {t:?} from text page content could have written"
            );
        } else {
            assert!(error_block, "an unsure tab {t:?} with no error block");
        }
        check_hosts_of_url(&t.url);
    }
    if let Some(t) = &learned.executed {
        check_tab(t);
    }
    // Fold it into a map as the Post side does, over a map that already
    // knows one of the tabs (so unsure tabs have something to add to).
    let mut map = TabMap::default();
    let known = TabRef::new("chrome", "1");
    map.note(
        &hook::seen(&known, vec!["known.example".to_owned()], true),
        1,
    );
    for t in &learned.tabs {
        let hosts = resolve::hosts_of_url(&t.url);
        map.note(&hook::seen(&t.tab, hosts, t.sure), 2);
    }
    check_tab_map(&mut map);
    for (key, entry) in &map.tabs {
        if entry.hosts.is_empty() {
            // On no site: only a URL proved to load nothing says so.
            assert!(
                learned
                    .tabs
                    .iter()
                    .any(|t| t.tab.key().as_deref() == Some(key) && may_reach_no_site(&t.url)),
                "tab {key} put on no site"
            );
        }
    }
}

fn check_tab(t: &TabRef) {
    assert!(!t.browser.is_empty());
    if let Some(id) = &t.id {
        assert!(!id.is_empty(), "an empty tab id");
    }
}

/// A map after [`TabMap::trim`] is bounded, and a trim that cut tabs left
/// no current tab pointing at one it cut. (A current tab missing from a map
/// read from a file is allowed: it is an unknown tab, paced against every
/// site.)
fn check_tab_map(map: &mut TabMap) {
    let cut = map.tabs.len() > TabMap::MAX_TABS;
    map.trim();
    assert!(map.tabs.len() <= TabMap::MAX_TABS);
    if cut {
        for (browser, key) in &map.current {
            assert!(
                map.tabs.contains_key(key),
                "current tab {key} of {browser} was cut"
            );
        }
    }
    for entry in map.tabs.values() {
        assert!(entry.history.len() <= TabMap::MAX_HISTORY);
    }
}

// ---------------------------------------------------------------------------
// The config

/// The config file ([`Config::parse`]) and what the gate asks of it, and the
/// config cache in the state directory: what parses round-trips through the
/// cache's codec, and any cache text that decodes is read like a config.
pub fn config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let path = Path::new("/fuzz/pace-hook.toml");
    if let Ok(c) = Config::parse(&text, path) {
        for (key, ms) in [
            ("interval", c.interval_ms),
            ("in_flight_hold", c.hold_ms),
            ("jitter", c.jitter_ms),
            ("max_backoff", c.max_backoff_ms),
        ] {
            assert!(ms <= CEILING_MS, "`{key}` of {ms} ms accepted");
        }
        assert!(c.stale_after_ms > c.max_wait_ms);
        let sites = c.sites().expect("a parsed config's sites read");
        for s in &sites {
            assert!(!s.name.is_empty() && !s.name.starts_with('.'));
            assert!(
                s.name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')),
                "site name {:?} accepted",
                s.name
            );
            assert_eq!(
                c.site(&s.name).unwrap().map(|f| f.name),
                Some(s.name.clone())
            );
            for d in s.domains() {
                assert_eq!(crate::key::normalize_host(d).as_deref(), Some(d));
                let owner = c
                    .owner_of(d)
                    .unwrap()
                    .expect("a configured domain has an owner");
                assert!(owner.domains().any(|o| o == d));
                let key = site::key_for_host(d);
                assert!(
                    requests::for_host(&c, d)
                        .unwrap()
                        .iter()
                        .any(|r| r.site == key),
                    "a request to {d} skips its own key {key}"
                );
            }
        }
        let key = [1, -2, 3, i64::MAX, i64::MIN, 0, 7];
        let bytes = cache::encode(&key, &c).expect("a parsed config encodes");
        assert_eq!(
            cache::decode(&bytes, path),
            Some((key, c.clone())),
            "the config cache loses what the config said"
        );
        ask(&c);
    }
    if let Some((key, c)) = cache::decode(data, path) {
        // A cache that decodes but whose sites do not read whole does not
        // encode; one that does comes back as it was.
        if let Some(bytes) = cache::encode(&key, &c) {
            assert_eq!(cache::decode(&bytes, path), Some((key, c.clone())));
        }
        ask(&c);
    }
}

/// Everything the gate asks a config, about each name and domain it lists.
fn ask(c: &Config) {
    let sites = c.sites().unwrap_or_default();
    let mut words: Vec<&str> = Vec::new();
    for s in &sites {
        words.push(&s.name);
        words.extend(s.domains());
    }
    words.extend(["", "a", "example.com", "www.example.com"]);
    for w in words {
        let _ = c.site(w);
        let _ = c.owner_of(w);
        let _ = requests::for_host(c, w);
        let _ = requests::for_key(c, w);
        let _ = c.group_of_key(w);
    }
    let _ = c.known_keys();
}

// ---------------------------------------------------------------------------
// State files

/// A cursor over fuzz bytes that yields zeros once they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    fn u64(&mut self) -> u64 {
        let mut b = [0; 8];
        for x in &mut b {
            *x = self.byte();
        }
        u64::from_le_bytes(b)
    }

    /// A length of time as a config may give it: at most [`CEILING_MS`].
    fn length(&mut self) -> u64 {
        match self.byte() % 4 {
            0 => 0,
            1 => u64::from(self.u16()),
            2 => u64::from(self.u16()) * 1_000,
            _ => self.u64() % (CEILING_MS + 1),
        }
    }

    /// A time near `now`: later, earlier (a clock stepped back), or anything.
    fn time(&mut self, now: u64) -> u64 {
        match self.byte() % 5 {
            0 => now,
            1 => now.saturating_add(u64::from(self.u16())),
            2 => now.saturating_add(self.length()),
            3 => now.saturating_sub(self.length()),
            _ => self.u64(),
        }
    }

    fn policy(&mut self) -> Policy {
        let interval_ms = self.length();
        let hold_ms = self.length();
        let budget = self.byte().is_multiple_of(3).then(|| Budget {
            calls: u32::from(self.u16()) % MAX_BUDGET_CALLS + 1,
            window_ms: self.length() % (30 * CEILING_MS) + 1,
        });
        Policy {
            interval_ms,
            hold_ms,
            budget,
        }
    }

    fn call(&mut self) -> &'static str {
        ["a", "b", "c", "[lost state]"][usize::from(self.byte() % 4)]
    }
}

/// What a run of [`site_state`] does when its input has no steps after the
/// state: admit, finish, admit again, each a little later.
const DEFAULT_STEPS: &[u8] = &[0, 1, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0, 3, 0, 0, 0, 0];

/// A site's `state.json`, as the store reads it, then driven through the
/// steps the gate takes on it at arbitrary times (admissions, finishes,
/// cancels, extensions, lapsed leases, clock steps). The input is the JSON
/// state followed by the bytes that choose the steps.
///
/// Checked: no step panics or overflows; the gate never says go before the
/// state's `ready_at`; an admission holds the site for its hold and interval;
/// a finish keeps the interval its caller requires; after the clock is read
/// (`normalize`), no tampered time keeps the site busy longer than the
/// ceilings allow; and every state written reads back the same.
pub fn site_state(data: &[u8]) {
    let _ = serde_json::from_slice::<SiteState>(data);
    let mut stream = serde_json::Deserializer::from_slice(data).into_iter::<SiteState>();
    let Some(Ok(mut state)) = stream.next() else {
        return;
    };
    let rest = &data[stream.byte_offset()..];
    let mut b = Bytes(if rest.trim_ascii().is_empty() {
        DEFAULT_STEPS
    } else {
        rest
    });
    let mut now = state.busy_until().unwrap_or(0);
    for _ in 0..64 {
        if b.0.is_empty() {
            break;
        }
        let step = b.byte();
        now = b.time(now);
        let policy = b.policy();
        let call = b.call();
        match step % 8 {
            0 => {
                let mut seen = state.clone();
                seen.normalize(now);
                let held = seen.holds(call);
                let ready = seen.ready_at(&policy);
                let lease = b.byte().is_multiple_of(2).then_some("lease");
                match state.try_admit(call, now, &policy, lease) {
                    Decision::Go => {
                        assert!(
                            ready.is_none_or(|r| r <= now),
                            "go at {now} before {ready:?}"
                        );
                        assert!(state.holds(call));
                        let until = now
                            .saturating_add(policy.hold_ms)
                            .saturating_add(policy.interval_ms);
                        assert!(
                            state.ready_at(&policy).is_some_and(|r| r >= until),
                            "an admission at {now} does not hold the site until {until}"
                        );
                    }
                    Decision::Duplicate => assert!(held),
                    Decision::WaitUntil(t) => {
                        assert!(t > now);
                        assert_eq!(Some(t), ready);
                    }
                    Decision::OverBudget(t) => assert!(t > now || t == u64::MAX),
                }
            }
            1 => {
                let interval = b.length();
                state.finish(call, now, interval);
                let zero = Policy::default();
                assert!(
                    state
                        .ready_at(&zero)
                        .is_some_and(|r| r >= now.saturating_add(interval)),
                    "a finish at {now} does not keep its interval of {interval} ms"
                );
            }
            2 => {
                state.cancel(call);
                assert!(!state.holds(call));
            }
            3 => {
                let hold = b.length();
                let _ = state.extend(call, now, hold);
            }
            4 => {
                let started = b.time(now);
                let hold = b.length();
                let _ = state.confirm(call, started, hold);
            }
            5 => {
                let alive = b.byte();
                state.drop_lapsed(|_| alive.is_multiple_of(2));
            }
            6 => {
                state.normalize(now);
                assert!(!state.normalize(now), "normalize is not idempotent");
                let bound = now
                    .saturating_add(CLOCK_SLACK_MS)
                    .saturating_add(2 * CEILING_MS);
                if let Some(r) = state.ready_at(&policy) {
                    assert!(r <= bound, "busy until {r}, past {bound}");
                }
            }
            _ => {
                let go = crate::pacing::decision::decide(now, &state, &policy) == Decision::Go;
                assert_eq!(go, state.ready_at(&policy).is_none_or(|r| r <= now));
                if let Some(budget) = &policy.budget
                    && let Some(free) = state.budget_spent(now, budget)
                {
                    assert!(free > now || free == u64::MAX);
                }
            }
        }
    }
    let bytes = serde_json::to_vec(&state).expect("a state serializes");
    let back: SiteState = serde_json::from_slice(&bytes).expect("a written state reads back");
    assert_eq!(back, state, "a written state reads back different");
}

/// The other state files, each read from the same bytes: the tab map
/// (`tabs.json`), a call record (`calls/<id>.json`), an agent's slot
/// (`agents/<session>`), the gate log read by `pace-hook gaps`, and a site
/// directory's name read back as its key.
pub fn state_files(data: &[u8]) {
    // As every store reads it: the map, then the notes after it.
    {
        let mut map = TabMap::read(data);
        let keys: Vec<String> = map.current.keys().cloned().collect();
        for browser in keys {
            let _ = resolve::entry(&map, &TabRef::current(browser));
        }
        check_tab_map(&mut map);
        let bytes = serde_json::to_vec(&map).expect("a tab map serializes");
        assert_eq!(TabMap::read(&bytes), map, "a tab map reads back");
    }
    let _ = serde_json::from_slice::<CallRecord>(data);
    let _ = serde_json::from_slice::<AgentSlot>(data);
    let text = String::from_utf8_lossy(data);
    let (records, _bad) = log::parse(&text);
    let _ = gaps::report(&records, None);
    let name = text.trim();
    if let Some(key) = crate::key::key_from_file_name(name) {
        check_file_name(&key);
    }
    check_file_name(name);
}

/// A file name made from a key is one safe path component, and names the
/// key again unless it was shortened.
fn check_file_name(key: &str) {
    let name = crate::key::file_name(key);
    assert!(!name.is_empty() && !name.starts_with('.'));
    assert!(
        name.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'%' | b'~')),
        "unsafe file name {name:?}"
    );
    assert!(name.len() <= 120, "file name of {} bytes", name.len());
    if !name.contains('~') && !key.is_empty() {
        assert_eq!(crate::key::key_from_file_name(&name).as_deref(), Some(key));
    }
}

// ---------------------------------------------------------------------------
// URLs

/// A URL as a navigation and as page content reads it ([`url::reach`],
/// [`url::reach_absolute`]), the hosts the gate keys it under, and a bare
/// host as the config reads one.
pub fn url(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    let s = s.as_ref();
    check_reach(s, &url::reach(s));
    if let Some(r) = url::reach_absolute(s) {
        check_reach(s, &r);
    }
    check_hosts_of_url(s);
    for h in resolve::hosts_of_absolute(s) {
        check_host(&h);
    }
    let _ = site::host_of_url(s);
    let _ = site::script_of_url(s);
    let urls = url::absolute_urls_in(s);
    assert!(urls.windows(2).all(|w| w[0] < w[1]), "unsorted: {urls:?}");
    if let Some(h) = crate::key::normalize_host(s) {
        // Canonical: read again, the same host. Except a domain whose last
        // label is a number once its trailing dots are dropped (`127..` is
        // `127`, `a.0.0.1..` is `a.0.0.1`): read again it is an IPv4
        // address, or not a host. Both readings key the same requests
        // together (`127` keys as `0.0.0.127`, as `https://127/` does).
        let again = crate::key::normalize_host(&h);
        assert!(
            again.as_deref() == Some(h.as_str()) || ends_in_a_number(&h),
            "{h:?} reads again as {again:?}"
        );
        check_host(&h);
    }
    let key = crate::key::registrable(s);
    let _ = crate::key::file_name(&key);
}

/// Whether a URL may reach no site: its scheme proves it loads nothing, or
/// it is a document whose whole body was read and names no site.
fn may_reach_no_site(url: &str) -> bool {
    url::may_be_nowhere(url)
        || matches!(
            url::reach(url),
            Reach::Document {
                unreadable: false,
                ..
            }
        )
}

/// Whether a host's last label is a number as the URL Standard's host
/// parser reads one (decimal, or `0x` and hex): such a host is an IPv4
/// address, or no host at all.
fn ends_in_a_number(h: &str) -> bool {
    let last = h.rsplit('.').next().unwrap_or("");
    match last.strip_prefix("0x").or_else(|| last.strip_prefix("0X")) {
        Some(hex) => hex.bytes().all(|b| b.is_ascii_hexdigit()),
        None => !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()),
    }
}

/// Fail closed: a URL reaches no site only if it is proved to.
fn check_hosts_of_url(url: &str) {
    let hosts = resolve::hosts_of_url(url);
    if hosts.is_empty() {
        assert!(may_reach_no_site(url), "{url:?} reaches no site");
    }
    for h in hosts.iter().filter(|h| *h != resolve::ANY_HOST) {
        check_host(h);
    }
}

fn check_reach(input: &str, r: &Reach) {
    match r {
        Reach::Host(h) => check_host(h),
        Reach::Nowhere(_) => {
            assert!(url::may_be_nowhere(input), "{input:?} reaches nowhere")
        }
        Reach::Script(_) => {}
        Reach::Document { hosts, .. } => {
            assert!(hosts.windows(2).all(|w| w[0] < w[1]), "unsorted: {hosts:?}");
            hosts.iter().for_each(|h| check_host(h));
        }
        Reach::Unreadable { reason, guess } => {
            assert!(!reason.is_empty());
            if let Some(g) = guess {
                check_host(g);
            }
        }
    }
}

/// A host as the gate keys it: canonical, and keyed under itself, one of
/// its parent domains, or the IP address it reads as (`127..` is the host
/// `127`, which the host parser reads as `0.0.0.127`).
fn check_host(h: &str) {
    assert!(!h.is_empty(), "an empty host");
    assert!(
        !h.bytes()
            .any(|b| b.is_ascii_uppercase() || b.is_ascii_whitespace() || b.is_ascii_control()),
        "host {h:?} is not canonical"
    );
    let key = site::key_for_host(h);
    assert!(
        key == h
            || h.ends_with(&format!(".{key}"))
            || crate::key::normalize_host(h).as_deref() == Some(key.as_str()),
        "{h:?} is keyed under {key:?}, not itself or a parent"
    );
    check_file_name(&key);
}

// ---------------------------------------------------------------------------
// Durations and budgets

/// A duration, a budget and a backend as the config spells them.
pub fn duration(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    if let Ok(ms) = duration::parse_duration(&s) {
        assert!(ms <= u64::MAX / 4, "`{s}` parsed to {ms} ms");
        let _ = duration::format_duration(ms);
    }
    if let Ok(b) = config::parse_budget(&s) {
        assert!((1..=MAX_BUDGET_CALLS).contains(&b.calls));
        assert!(b.window_ms > 0 && b.window_ms <= 30 * CEILING_MS);
    }
    let _ = config::parse_backend(&s);
    let mut b = Bytes(data);
    let _ = duration::format_duration(b.u64());
}

// ---------------------------------------------------------------------------
// Scripts

/// The JavaScript an agent asks the browser to run, in a page or in
/// Playwright's server: the analysis never panics, and a script is paced or
/// blocked, never skipped, whatever it says. (A script can name a sink and
/// still make no request: one inside a function nothing calls, as the first
/// run of this target found; the script module's property tests check that
/// a sink that always runs is never counted as none.)
pub fn script(data: &[u8]) {
    let code = String::from_utf8_lossy(data);
    for env in [Env::Page, Env::PlaywrightServer] {
        if let Ok(a) = script::analyse(&code, env) {
            // Many names where; a place found is a real place in the code.
            if let Count::Many { why } = &a.count {
                assert!(!why.is_empty());
            }
            for f in a.requests.iter().chain(&a.opaque) {
                assert!(f.line >= 1 && f.column >= 1, "{f:?}");
                assert!(f.line as usize <= js_lines(&code), "{f:?}");
            }
        }
    }
    for verdict in [
        profile::script_verdict(&code, None, "javascript_tool"),
        profile::script_verdict_server(&code, None, "browser_run_code_unsafe"),
    ] {
        assert!(
            matches!(
                verdict,
                Verdict::Block { .. }
                    | Verdict::Pace {
                        target: Target::Script { .. },
                        ..
                    }
            ),
            "a script passed: {verdict:?}"
        );
    }
}

/// How many lines JavaScript sees in `code`: `\n`, `\r`, `\r\n`, U+2028
/// and U+2029 each end one.
fn js_lines(code: &str) -> usize {
    let mut n = 1;
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                n += 1;
            }
            '\n' | '\u{2028}' | '\u{2029}' => n += 1,
            _ => {}
        }
    }
    n
}

/// The tools [`listings`] reads results of, picked by its first byte.
const LISTING_TOOLS: &[&str] = &[
    "mcp__playwright__browser_navigate",
    "mcp__playwright__browser_click",
    "mcp__playwright__browser_tabs",
    "mcp__playwright__browser_snapshot",
    "mcp__playwright__browser_network_requests",
    "mcp__chrome-devtools__navigate_page",
    "mcp__chrome-devtools__list_pages",
    "mcp__chrome-devtools__select_page",
    "mcp__chrome-devtools__new_page",
    "mcp__puppeteer__puppeteer_navigate",
    "WebFetch",
];

/// Results of the other families' tools (Playwright's sections and tab
/// lines, DevTools' page listings, Puppeteer, WebFetch's object): what they
/// teach is bounded, read fail-closed, and statuses are real HTTP codes.
/// The first byte picks the tool; then the input as JSON, then texts,
/// separated by NUL (a text starting with byte 1 is the error, with byte 2 a
/// JSON object result).
pub fn listings(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let full = LISTING_TOOLS[pick as usize % LISTING_TOOLS.len()];
    let mut fields = rest.split(|&b| b == 0);
    let input: Map<String, Value> =
        serde_json::from_slice(fields.next().unwrap_or_default()).unwrap_or_default();
    let (mut texts, mut error, mut object) = (Vec::new(), None, None);
    for f in fields {
        match f.split_first() {
            Some((1, rest)) => error = Some(String::from_utf8_lossy(rest).into_owned()),
            Some((2, rest)) => object = serde_json::from_slice::<Value>(rest).ok(),
            _ => texts.push(String::from_utf8_lossy(f).into_owned()),
        }
    }
    let (p, short) = profile::find(full).expect("a profile owns every listed tool");
    let call = Call {
        tool: short,
        server: profile::server_of(full),
        input: &input,
        session: Some("fuzz"),
    };
    let learned = p.learn(
        &call,
        &ToolResult {
            texts: &texts,
            object: object.as_ref(),
            error: error.as_deref(),
        },
    );
    let lines: usize = texts.iter().chain(&error).map(|t| t.lines().count()).sum();
    assert!(
        learned.tabs.len() <= 2 * lines + 2,
        "{} tabs from {lines} lines",
        learned.tabs.len()
    );
    for t in &learned.tabs {
        check_tab(&t.tab);
        check_hosts_of_url(&t.url);
    }
    for st in &learned.statuses {
        assert!((100..600).contains(&st.code), "status {}", st.code);
    }
    let mut map = TabMap::default();
    for t in &learned.tabs {
        map.note(
            &hook::seen(&t.tab, resolve::hosts_of_url(&t.url), t.sure),
            2,
        );
    }
    check_tab_map(&mut map);
}

// ---------------------------------------------------------------------------
// Seeds

/// Where the seeds come from: files read by the caller.
#[derive(Debug, Default)]
pub struct Sources {
    /// Captured hook events (`tests/fixtures/*.json`, the shared captures),
    /// by file name.
    pub events: Vec<(String, Vec<u8>)>,
    /// `tests/fixtures/urls.toml`.
    pub urls_toml: String,
    /// `README.md`, for its config examples.
    pub readme: String,
    /// `tests/fixtures/scripts.toml`, the script analysis's corpus.
    pub scripts_toml: String,
}

/// One seed: the target it is for, a file name, the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seed {
    /// The target's name in [`TARGETS`].
    pub target: &'static str,
    /// A file name for it in the target's corpus.
    pub name: String,
    /// The input.
    pub bytes: Vec<u8>,
}

/// Every seed the sources give, in each target's input format, and the
/// hand-made ones (state files, config cache texts).
pub fn seeds(src: &Sources) -> Vec<Seed> {
    let mut out = Vec::new();
    let mut add = |target: &'static str, name: String, bytes: Vec<u8>| {
        out.push(Seed {
            target,
            name,
            bytes,
        })
    };
    // Every JSON file is an event seed, whether it parses or not (a file
    // of another kind is a good start for what does not).
    let mut urls: Vec<String> = Vec::new();
    for (name, bytes) in &src.events {
        add("event", name.clone(), bytes.clone());
        let Ok(e) = HookEvent::parse(bytes) else {
            continue;
        };
        for v in e.tool_input.values() {
            strings(v, &mut urls);
        }
        if let Some((_, tool)) = profile::find(&e.tool_name) {
            add(
                "tab_context",
                name.clone(),
                tab_context_input(tool, &e.tool_input, &e.response_texts, e.error.as_deref()),
            );
            if let Some(code) = e.tool_input.get("text").and_then(Value::as_str) {
                add("script", name.clone(), code.as_bytes().to_vec());
            }
        }
        if let Some(pick) = LISTING_TOOLS.iter().position(|t| *t == e.tool_name) {
            let mut bytes = vec![pick as u8];
            bytes.extend(serde_json::to_vec(&e.tool_input).unwrap_or_default());
            for t in &e.response_texts {
                bytes.push(0);
                bytes.extend(t.as_bytes());
            }
            if let Some(o) = &e.response_object {
                bytes.extend([0, 2]);
                bytes.extend(serde_json::to_vec(o).unwrap_or_default());
            }
            if let Some(err) = &e.error {
                bytes.extend([0, 1]);
                bytes.extend(err.as_bytes());
            }
            add("listings", name.clone(), bytes);
        }
        for t in e.result_texts() {
            urls.extend(url::absolute_urls_in(&t));
            add("state_files", format!("text-{name}"), t.into_bytes());
        }
    }
    if let Ok(table) = toml::from_str::<toml::Table>(&src.urls_toml) {
        for rows in table.values().filter_map(toml::Value::as_array) {
            for row in rows.iter().filter_map(toml::Value::as_table) {
                for key in ["input", "a", "b", "host"] {
                    if let Some(s) = row.get(key).and_then(toml::Value::as_str) {
                        urls.push(s.to_owned());
                    }
                }
            }
        }
    }
    if let Ok(table) = toml::from_str::<toml::Table>(&src.scripts_toml)
        && let Some(rows) = table.get("script").and_then(toml::Value::as_array)
    {
        for (i, row) in rows.iter().filter_map(toml::Value::as_table).enumerate() {
            if let Some(code) = row.get("code").and_then(toml::Value::as_str) {
                add("script", format!("corpus-{i:04}"), code.as_bytes().to_vec());
            }
        }
    }
    urls.sort();
    urls.dedup();
    for (i, u) in urls.iter().enumerate() {
        add("url", format!("url-{i:04}"), u.as_bytes().to_vec());
    }
    for (i, code) in [
        "await fetch('https://example.com/api/1'); await fetch('/b'); 'ok'",
        "// fetch(a)\n/* fetch(b) */ const x = 'fetch(c)'; `fetch(${d})`; fetch(e)",
        "window.fetch(u); globalThis.fetch(v); cache.fetch(w)",
        "const x = new XMLHttpRequest(); navigator.sendBeacon('/l', d)",
        "for (const u of urls) { await fetch(u) }",
        "await Promise.all(urls.map(u => fetch(u)))",
        "await fetch(`https://api.other.com/v1/${id}`, {credentials: 'include'})",
        "document.title",
    ]
    .iter()
    .enumerate()
    {
        add("script", format!("script-{i}.js"), code.as_bytes().to_vec());
    }
    let configs = toml_blocks(&src.readme);
    let path = Path::new("/seed/pace-hook.toml");
    let mut durations = vec![
        "10s",
        "250ms",
        "1.5s",
        "2m",
        "1h",
        "30 min",
        "300/24h",
        "5/1h",
        "file",
        "redis://h:1/0",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect::<Vec<_>>();
    for (i, text) in configs.iter().enumerate() {
        add(
            "config",
            format!("readme-{i}.toml"),
            text.as_bytes().to_vec(),
        );
        if let Ok(c) = Config::parse(text, path) {
            add(
                "config",
                format!("readme-{i}.cache"),
                cache::encode(&[1, 2, 3, 4, 5, 6, 7], &c).expect("a parsed config encodes"),
            );
        }
        if let Ok(t) = toml::from_str::<toml::Table>(text) {
            let mut found = Vec::new();
            strings(&serde_json::to_value(&t).unwrap_or_default(), &mut found);
            durations.extend(found);
        }
    }
    let full = "interval = \"2s\"\nin_flight_hold = \"90s\"\nmax_wait = \"60s\"\nstale_after = \"10m\"\njitter = \"500ms\"\nbudget = \"300/24h\"\nmax_backoff = \"5m\"\nbackend = \"file\"\non_backend_error = \"block\"\n\n[[site]]\nname = \"social\"\ndomains = [\"example.social\", \"Bücher.example.\"]\ninterval = \"30s\"\njitter = \"1s\"\nbudget = \"50/1h\"\n\n[[site]]\nname = \"b\"\ndomains = [\"b.example.co.uk\"]\n\n[[tool]]\nmatch = \"mcp__x__(go|open)\"\nclass = \"pace\"\nurl = \"/url\"\ncode = \"/code\"\n\n[[tool]]\nmatch = \"mcp__x__batch\"\nclass = \"block\"\nreason = \"one at a time\"\n";
    add("config", "full.toml".to_owned(), full.as_bytes().to_vec());
    if let Ok(c) = Config::parse(full, path) {
        add(
            "config",
            "full.cache".to_owned(),
            cache::encode(&[9, 8, 7, 6, 5, 4, 3], &c).expect("a parsed config encodes"),
        );
    }
    durations.sort();
    durations.dedup();
    for (i, d) in durations.iter().enumerate() {
        add(
            "duration",
            format!("duration-{i:03}"),
            d.as_bytes().to_vec(),
        );
    }
    for (name, bytes) in state_seeds() {
        add(name.0, name.1.to_owned(), bytes);
    }
    out
}

/// Every string inside `v`, recursively.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        Value::Object(m) => m.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// The text of each fenced ```` ```toml ```` block in a Markdown text.
fn toml_blocks(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for line in markdown.lines() {
        match &mut block {
            None if line.trim_start().starts_with("```toml") => block = Some(String::new()),
            None => {}
            Some(_) if line.trim_start().starts_with("```") => out.extend(block.take()),
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
        }
    }
    out
}

/// Hand-made state files: what the gate writes after a few steps, a lost
/// state, and tampered ones (times in the future, absurd lengths, unsorted
/// admissions, leases), each as the target that reads it.
fn state_seeds() -> Vec<((&'static str, &'static str), Vec<u8>)> {
    let policy = Policy {
        interval_ms: 10_000,
        hold_ms: 120_000,
        budget: Some(Budget {
            calls: 3,
            window_ms: 3_600_000,
        }),
    };
    let now = 1_767_225_600_000; // 2026-01-01
    let mut busy = SiteState::new("example.com");
    busy.try_admit("s#a", now, &policy, None);
    busy.finish("s#a", now + 1_500, 0);
    busy.try_admit("s#b", now + 20_000, &policy, Some("lease-1"));
    busy.backoff = Some(crate::pacing::decision::Backoff {
        set_ms: now + 21_000,
        until_ms: now + 81_000,
        strikes: 2,
    });
    let json = |s: &SiteState| serde_json::to_vec(s).expect("a state serializes");
    let tampered = br#"{"site":"example.com","last_finish_ms":18446744073709551615,"after_ms":18446744073709551615,"in_flight":[{"call":"a","started_ms":18446744073709551000,"until_ms":18446744073709551615,"interval_ms":18446744073709551615,"lease":"x"},{"call":"b","started_ms":5,"until_ms":1}],"backoff":{"set_ms":18446744073709551615,"until_ms":0,"strikes":4294967295},"admits":[9,3,18446744073709551615,0],"keep":4294967295}"#;
    let mut tabs = TabMap::default();
    tabs.note(
        &hook::seen(
            &TabRef::new("chrome", "1"),
            vec!["example.com".to_owned()],
            true,
        ),
        now,
    );
    tabs.note(
        &hook::seen(
            &TabRef::new("chrome", "2"),
            vec!["*".to_owned(), "other.org".to_owned()],
            false,
        ),
        now,
    );
    tabs.current
        .insert("chrome".to_owned(), "chrome#2".to_owned());
    let record = CallRecord {
        call: "s/agent#toolu_1".to_owned(),
        sites: vec!["example.com".to_owned()],
        started_ms: now,
        interval_ms: 10_000,
    };
    let slot = AgentSlot {
        record: record.clone(),
        open: true,
    };
    let log = concat!(
        r#"{"ts":1000,"event":"admit","pid":1,"sites":["a.com"],"tool":"navigate","call":"s#1","interval_ms":10000,"intervals_ms":[10000],"hold_ms":120000}"#,
        "\n",
        r#"{"ts":2000,"event":"finish","pid":1,"sites":["a.com"],"tool":"navigate","call":"s#1"}"#,
        "\n",
        r#"{"ts":5000,"event":"admit","pid":2,"sites":["a.com"],"tool":"computer","call":"s#2","interval_ms":10000,"reason":"duplicate"}"#,
        "\n",
        r#"{"ts":18446744073709551615,"event":"admit","pid":3,"sites":["a.com"],"tool":"x","call":"s#3"}"#,
        "\n",
        "not json\n",
    );
    vec![
        (
            ("site_state", "new.json"),
            json(&SiteState::new("example.com")),
        ),
        (("site_state", "busy.json"), json(&busy)),
        (
            ("site_state", "lost.json"),
            json(&SiteState::lost("example.com", now, &policy)),
        ),
        (("site_state", "tampered.json"), tampered.to_vec()),
        (
            ("site_state", "busy-steps.json"),
            [
                json(&busy),
                vec![0, 3, 7, 1, 0, 6, 0, 0, 0, 0, 5, 1, 1, 2, 0],
            ]
            .concat(),
        ),
        (
            ("state_files", "tabs.json"),
            serde_json::to_vec(&tabs).expect("a tab map serializes"),
        ),
        (
            ("state_files", "tabs-noted.json"),
            [
                serde_json::to_vec(&tabs).expect("a tab map serializes"),
                b"\n[7,".to_vec(),
                crate::store::TabNote {
                    seen: vec![hook::seen(
                        &TabRef::new("chrome", "1"),
                        vec!["other.org".to_owned()],
                        false,
                    )],
                    current: Some(("chrome".to_owned(), "chrome#1".to_owned())),
                }
                .text()
                .into_bytes(),
                b"]".to_vec(),
            ]
            .concat(),
        ),
        (
            ("state_files", "call.json"),
            serde_json::to_vec(&record).expect("a record serializes"),
        ),
        (
            ("state_files", "slot.json"),
            serde_json::to_vec(&slot).expect("a slot serializes"),
        ),
        (("state_files", "gate.log"), log.as_bytes().to_vec()),
        (
            ("state_files", "site-dir-name"),
            crate::key::file_name("xn--bcher-kva.example").into_bytes(),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sources as `scripts/fuzz` reads them, from this checkout.
    fn sources() -> Sources {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut events = Vec::new();
        for dir in [root.join("tests/fixtures"), root.join("../shared/captured")] {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(".json") {
                    events.push((name, std::fs::read(e.path()).expect("a fixture reads")));
                }
            }
        }
        Sources {
            events,
            urls_toml: std::fs::read_to_string(root.join("tests/fixtures/urls.toml"))
                .expect("urls.toml reads"),
            readme: std::fs::read_to_string(root.join("README.md")).expect("README reads"),
            scripts_toml: std::fs::read_to_string(root.join("tests/fixtures/scripts.toml"))
                .expect("scripts.toml reads"),
        }
    }

    #[test]
    fn every_target_runs_its_seeds() {
        let seeds = seeds(&sources());
        for (name, _) in TARGETS {
            let n = seeds.iter().filter(|s| s.target == *name).count();
            assert!(n > 0, "no seed for target {name}");
        }
        for s in &seeds {
            assert!(run(s.target, &s.bytes), "no target {}", s.target);
        }
    }

    /// A target added here but not to the fuzz crate or the script would
    /// never run.
    #[test]
    fn every_target_is_built_and_run_by_the_script() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let read = |p: &str| std::fs::read_to_string(root.join(p)).expect(p);
        let manifest = read("fuzz/Cargo.toml");
        let script = read("scripts/fuzz");
        let list = script
            .lines()
            .find_map(|l| l.strip_prefix("targets=("))
            .and_then(|l| l.strip_suffix(')'))
            .expect("scripts/fuzz lists its targets");
        let listed: Vec<&str> = list.split(' ').collect();
        let names: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
        assert_eq!(listed, names, "scripts/fuzz's targets");
        for name in names {
            let source = read(&format!("fuzz/fuzz_targets/{name}.rs"));
            assert!(
                source.contains(&format!("pace_hook::fuzz::{name}(data)")),
                "fuzz/fuzz_targets/{name}.rs"
            );
            assert!(
                manifest.contains(&format!(
                    "name = \"{name}\"\npath = \"fuzz_targets/{name}.rs\""
                )),
                "no [[bin]] for {name} in fuzz/Cargo.toml"
            );
        }
    }

    #[test]
    fn the_captured_tab_context_teaches_its_tab() {
        let seeds = seeds(&sources());
        let s = seeds
            .iter()
            .find(|s| s.target == "tab_context" && s.name == "PostToolUse.tabs_context_mcp.json")
            .expect("the tabs_context_mcp capture is a seed");
        assert!(s.bytes.starts_with(b"tabs_context_mcp\0{}\0"));
        tab_context(&s.bytes);
    }

    #[test]
    fn the_readme_config_is_a_seed() {
        let seeds = seeds(&sources());
        assert!(
            seeds
                .iter()
                .any(|s| s.target == "config" && s.name == "readme-0.cache")
        );
    }
}
