//! Against a real `redis-server`, started per test on a free loopback
//! port with persistence off. These never skip: without `redis-server`
//! they fail, saying how to install it.

use super::*;
use crate::{
    pacing::decision::{Backoff, Budget},
    pacing::step::{self, Applied, Now, Step},
    store::{Attempt, CallRecord, Queue, Sites, Stepped, TabEntry, TabMap, TabNote, TabSeen, Tabs},
};

use super::test_server::Server;

/// The state directory `name`, emptied.
fn home(name: &str) -> PathBuf {
    let dir = home_kept(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The state directory `name`, as a store before left it.
fn home_kept(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "pace-hook-redis-unit-{}-{name}",
        std::process::id()
    ))
}

/// A store on `server` with a state directory of its own, `name`.
pub(crate) fn store(server: &Server, name: &str) -> RedisStore {
    RedisStore::open(&server.url(), home(name), Options::default()).unwrap()
}

fn raw(server: &Server, args: &[&str]) -> Value {
    let client = redis::Client::open(server.url()).unwrap();
    let mut c = client.get_connection().unwrap();
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query(&mut c).unwrap()
}

/// A deadline five seconds from now.
pub(crate) fn soon(s: &RedisStore) -> Mono {
    s.clock().mono().after(Duration::from_secs(5))
}

/// A policy for the tests: a second apart, two minutes' hold.
pub(crate) const P: Policy = Policy {
    interval_ms: 1_000,
    hold_ms: 120_000,
    budget: None,
};

#[test]
fn thirteen_digit_times_and_empty_lists_round_trip_exactly() {
    let server = Server::start();
    let s = store(&server, "round-trip");
    s.set_test_clock(Some(1_712_345_678_901_234));
    assert_eq!(
        s.try_admit("a.com", "x", &P, None, soon(&s)).unwrap().at,
        1_712_345_678_901
    );
    s.set_test_clock(Some(1_712_345_679_999_001));
    assert_eq!(s.finish("a.com", "x", 0).unwrap(), 1_712_345_680_000);
    let text = match raw(&server, &["GET", "pace-hook:site:a.com"]) {
        Value::BulkString(b) => String::from_utf8(b).unwrap(),
        v => panic!("{v:?}"),
    };
    assert_eq!(
        text,
        r#"{"site":"a.com","last_finish_ms":1712345680000,"after_ms":1000,"in_flight":[]}"#
    );
    let mut expected = SiteState::new("a.com");
    expected.last_finish_ms = Some(1_712_345_680_000);
    expected.after_ms = 1_000;
    assert_eq!(s.site_state("a.com").unwrap(), Some(expected));
    // The same bytes serde writes, so either side reads the other's.
    let state = s.site_state("a.com").unwrap().unwrap();
    assert_eq!(serde_json::to_string(&state).unwrap(), text);
}

/// A small deterministic generator for the timeline below.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// The scripts against `decision.rs`: random timelines of every step
/// (clock steps back, budgets, leases alive and lapsed, backoffs
/// included), applied to a `SiteState` here and on the server with the
/// same clock; every decision and every state must agree.
#[test]
fn scripts_step_exactly_as_decision_rs() {
    // As the library's functions, and as scripts of their own (a server
    // without functions): the same text either way, begun differently.
    stepping_as_decision_rs(true);
    stepping_as_decision_rs(false);
}

/// A store on `server` that runs its steps as scripts (`EVALSHA`), as it
/// does on a server without functions.
fn store_on_scripts(server: &Server, name: &str) -> RedisStore {
    let s = store(server, name);
    s.inner
        .functions
        .store(false, std::sync::atomic::Ordering::Relaxed);
    s
}

fn stepping_as_decision_rs(functions: bool) {
    let server = Server::start();
    let s = if functions {
        store(&server, "differential")
    } else {
        store_on_scripts(&server, "differential-scripts")
    };
    raw(&server, &["SET", "pace-hook:lease:live", "1"]);
    let mut seen = std::collections::HashMap::new();
    for seed in 1..=12u64 {
        let site = format!("s{seed}.com");
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut model: Option<SiteState> = None;
        let mut us: u64 = 1_712_000_000_000_000;
        for step in 0..250 {
            // Times land on the edges the rules turn on (a hold's end,
            // the time a caller is due) as often as between them.
            let edges: Vec<u64> = model
                .iter()
                .flat_map(|m| {
                    let due = m.ready_at(&Policy::default());
                    m.in_flight.iter().map(|f| f.until_ms).chain(due)
                })
                .filter(|&t| t * 1000 >= us)
                .collect();
            us = match rng.below(20) {
                0 => us - 3_600_000_000,
                1..=6 => us,
                7..=10 if !edges.is_empty() => rng.pick(&edges) * 1000,
                _ => us + rng.below(150_000_000),
            };
            s.set_test_clock(Some(us));
            let floor = us / 1000;
            let call = rng.pick(&["a", "b", "c", "d"]);
            // The model: the one step every store applies, on the
            // server's µs, with the same leases alive; a step that makes
            // no site leaves none.
            let apply = |model: &mut Option<SiteState>, step: Step<'_>| {
                if model.is_none() && !step.makes_site() {
                    return Applied::Found(false);
                }
                let m = model.get_or_insert_with(|| SiteState::new(&site));
                step::apply(m, step, Now::from_us(us), |id| id == "live")
            };
            let what = format!("seed {seed} step {step} at {us}");
            match rng.below(7) {
                0 | 1 => {
                    let policy = Policy {
                        interval_ms: rng.pick(&[0, 1_000, 10_000, 30_000]),
                        hold_ms: rng.pick(&[0, 500, 120_000, 400_000]),
                        budget: rng.pick(&[
                            None,
                            Some(Budget {
                                calls: 2,
                                window_ms: 60_000,
                            }),
                            Some(Budget {
                                calls: 1,
                                window_ms: 300_000,
                            }),
                        ]),
                    };
                    let lease = rng.pick(&[None, None, Some("live"), Some("dead")]);
                    let step = Step::Admit {
                        call,
                        policy: &policy,
                        lease,
                    };
                    let want = apply(&mut model, step).look().unwrap();
                    let got = s.try_admit(&site, call, &policy, lease, soon(&s)).unwrap();
                    *seen
                        .entry(std::mem::discriminant(&want.decision))
                        .or_insert(0) += 1;
                    // The wait from the server's µs, as the Rust measures it.
                    let left = match want.decision {
                        Decision::WaitUntil(t) => Duration::from_micros(t * 1000 - us),
                        _ => Duration::ZERO,
                    };
                    let want = Attempt::of(&Stepped {
                        applied: Applied::Admit(want),
                        left,
                    });
                    assert_eq!(got, want, "{what}");
                }
                2 => {
                    let interval = rng.pick(&[0, 5_000, 20_000]);
                    let step = Step::Finish {
                        call,
                        interval_ms: interval,
                    };
                    let want = apply(&mut model, step);
                    let got = s.finish(&site, call, interval).unwrap();
                    assert_eq!(Applied::Finished(got), want, "{what}");
                }
                3 => {
                    let want = apply(&mut model, Step::Cancel { call }).found();
                    assert_eq!(s.cancel(&site, call).unwrap(), want, "{what}");
                }
                4 => {
                    let started = floor - rng.below(5_000);
                    let hold = rng.pick(&[1_000, 120_000]);
                    let step = Step::Confirm {
                        call,
                        started,
                        hold_ms: hold,
                    };
                    let want = apply(&mut model, step).found();
                    assert_eq!(s.confirm(&site, call, started, hold).unwrap(), want);
                }
                5 => {
                    let hold = rng.pick(&[1_000, 120_000]);
                    let want = apply(
                        &mut model,
                        Step::Extend {
                            call,
                            hold_ms: hold,
                        },
                    )
                    .found();
                    assert_eq!(s.extend(&site, call, hold).unwrap(), want, "{what}");
                }
                _ => {
                    // Written by hand, as a client (a backoff) or a
                    // tampering user (times ahead, lengths past the
                    // ceiling) would.
                    let m = model.get_or_insert_with(|| SiteState::new(&site));
                    let day = crate::pacing::decision::CEILING_MS;
                    let ahead = floor + rng.pick(&[0, 1_000, 1_001, 3 * day]);
                    m.backoff = Some(Backoff {
                        set_ms: rng.pick(&[floor, ahead]),
                        until_ms: ahead + rng.below(90_000),
                        strikes: 1,
                    });
                    if rng.below(3) == 0 {
                        m.after_ms = rng.pick(&[day, day + 1, 5 * day]);
                        m.last_finish_ms = Some(rng.pick(&[floor, ahead]));
                        m.admits.push(ahead);
                        for f in &mut m.in_flight {
                            f.started_ms = rng.pick(&[f.started_ms, ahead]);
                            f.until_ms = f.started_ms + rng.pick(&[0, day + 7, 2 * day]);
                            f.interval_ms = rng.pick(&[f.interval_ms, day + 1]);
                        }
                    }
                    let text = serde_json::to_string(&*m).unwrap();
                    raw(&server, &["SET", &format!("pace-hook:site:{site}"), &text]);
                    raw(
                        &server,
                        &["ZADD", "pace-hook:sites", &floor.to_string(), &site],
                    );
                }
            }
            assert_eq!(s.site_state(&site).unwrap(), model, "{what}");
        }
    }
    // Every kind of decision was taken along the way.
    assert_eq!(seen.len(), 4, "{seen:?}");
    // And by the way asked for: the library is on the server only if the
    // store used it.
    let libraries = format!("{:?}", raw(&server, &["FUNCTION", "LIST"]));
    assert_eq!(
        libraries.contains(&function_prefix()),
        functions,
        "{libraries}"
    );
}

/// The library's names on `server`.
fn libraries(server: &Server) -> Vec<String> {
    let Value::Array(libs) = raw(server, &["FUNCTION", "LIST"]) else {
        panic!("FUNCTION LIST answers a list");
    };
    libs.iter()
        .filter_map(|l| match l {
            Value::Array(fields) => fields.windows(2).find_map(|w| match (&w[0], &w[1]) {
                (Value::BulkString(k), Value::BulkString(v)) if k == b"library_name" => {
                    Some(String::from_utf8_lossy(v).into_owned())
                }
                _ => None,
            }),
            _ => None,
        })
        .collect()
}

#[test]
fn the_library_is_loaded_once_and_again_when_the_server_lost_it() {
    let server = Server::start();
    let s = store(&server, "library");
    assert!(libraries(&server).is_empty());
    let first = s.try_admit("a.com", "x", &P, None, soon(&s)).unwrap();
    assert_eq!(first.decision, Decision::Go);
    let name = function_prefix().trim_end_matches('_').to_owned();
    assert_eq!(libraries(&server), std::slice::from_ref(&name));
    // Loaded once: the next step calls it (its FUNCTION LOAD count stays).
    let loads = |server: &Server| {
        let Value::BulkString(info) = raw(server, &["INFO", "commandstats"]) else {
            panic!("INFO answers text");
        };
        let info = String::from_utf8_lossy(&info).into_owned();
        info.lines()
            .find_map(|l| l.strip_prefix("cmdstat_function|load:calls="))
            .and_then(|l| l.split(',').next()?.parse::<u32>().ok())
            .unwrap_or(0)
    };
    assert_eq!(loads(&server), 1);
    s.finish("a.com", "x", 0).unwrap();
    assert_eq!(loads(&server), 1);
    // The server lost its functions (FUNCTION FLUSH; an empty restart does
    // the same): the next step loads the library again and answers as the
    // gate does, the site busy for a second after the finish.
    raw(&server, &["FUNCTION", "FLUSH"]);
    let next = s.try_admit("a.com", "y", &P, None, soon(&s)).unwrap();
    assert!(matches!(next.decision, Decision::WaitUntil(_)), "{next:?}");
    assert_eq!(libraries(&server), [name]);
    assert_eq!(loads(&server), 2);
    assert!(s.inner.functions.load(std::sync::atomic::Ordering::Relaxed));
}

#[test]
fn a_user_not_allowed_functions_runs_the_steps_as_scripts() {
    let server = Server::start();
    raw(
        &server,
        &[
            "ACL",
            "SETUSER",
            "scripts",
            "on",
            ">pw-scripts",
            "~*",
            "&*",
            "+@all",
            "-fcall",
            "-function",
        ],
    );
    let url = server
        .url()
        .replacen("redis://", "redis://scripts:pw-scripts@", 1);
    let s = RedisStore::open(&url, home("no-functions"), Options::default()).unwrap();
    let first = s.try_admit("a.com", "x", &P, None, soon(&s)).unwrap();
    assert_eq!(first.decision, Decision::Go);
    assert!(!s.inner.functions.load(std::sync::atomic::Ordering::Relaxed));
    let again = s.try_admit("a.com", "y", &P, None, soon(&s)).unwrap();
    assert!(
        matches!(again.decision, Decision::WaitUntil(_)),
        "{again:?}"
    );
    assert!(libraries(&server).is_empty());
    // The next process on this machine knows it from the note the first
    // left, and goes to scripts without an FCALL to find out.
    drop(s);
    let next = RedisStore::open(&url, home_kept("no-functions"), Options::default()).unwrap();
    assert!(
        !next
            .inner
            .functions
            .load(std::sync::atomic::Ordering::Relaxed)
    );
    let third = next.try_admit("a.com", "z", &P, None, soon(&next)).unwrap();
    assert!(
        matches!(third.decision, Decision::WaitUntil(_)),
        "{third:?}"
    );
    // Another server seen from the same machine is not taken for it.
    let other = Server::start();
    let fresh =
        RedisStore::open(&other.url(), home_kept("no-functions"), Options::default()).unwrap();
    assert!(
        fresh
            .inner
            .functions
            .load(std::sync::atomic::Ordering::Relaxed)
    );
}

#[test]
fn absurd_stored_times_are_capped_and_still_read_back() {
    let server = Server::start();
    let s = store(&server, "absurd");
    let text = r#"{"site":"a.com","last_finish_ms":18446744073709551615,"after_ms":18446744073709551615,"in_flight":[{"call":"x","started_ms":0,"until_ms":18446744073709551615,"interval_ms":18446744073709551615}]}"#;
    raw(&server, &["SET", "pace-hook:site:a.com", text]);
    let now = s.clock().now_floor();
    let a = s.try_admit("a.com", "y", &P, None, soon(&s)).unwrap();
    match a.decision {
        Decision::WaitUntil(t) => {
            assert!(t <= now + 3 * crate::pacing::decision::CEILING_MS + 5_000)
        }
        d => panic!("{d:?}"),
    }
    assert!(s.site_state("a.com").unwrap().is_some());
}

#[test]
fn an_unreadable_state_is_busy_and_kept_aside() {
    let server = Server::start();
    let s = store(&server, "corrupt");
    s.finish("a.com", "x", 0).unwrap();
    raw(&server, &["SET", "pace-hook:site:a.com", "{not json"]);
    let e = s.try_admit("a.com", "y", &P, None, soon(&s)).unwrap_err();
    let Error::CorruptState { moved_to, .. } = &e else {
        panic!("{e}")
    };
    let aside = moved_to.as_ref().unwrap().to_string_lossy().into_owned();
    assert!(aside.starts_with("pace-hook:site:a.com:lost-"), "{aside}");
    let a = s.try_admit("a.com", "y", &P, None, soon(&s)).unwrap();
    assert!(matches!(a.decision, Decision::WaitUntil(_)), "{a:?}");
    // Not a string at all, or gone while the site is known: the same.
    raw(&server, &["DEL", "pace-hook:site:a.com"]);
    raw(&server, &["LPUSH", "pace-hook:site:a.com", "x"]);
    assert!(matches!(
        s.try_admit("a.com", "y", &P, None, soon(&s)),
        Err(Error::CorruptState { .. })
    ));
    // A finish on a lost state heals it (busy) and is recorded on it,
    // as the other stores do: only an admission fails on it.
    raw(&server, &["DEL", "pace-hook:site:a.com"]);
    s.finish("a.com", "y", 0).unwrap();
    assert!(
        s.site_state("a.com")
            .unwrap()
            .unwrap()
            .in_flight
            .iter()
            .any(|f| f.call == "[lost state]")
    );
    assert!(matches!(
        s.try_admit("a.com", "y", &P, None, soon(&s))
            .unwrap()
            .decision,
        Decision::WaitUntil(_)
    ));
}

#[test]
fn a_lapsed_lease_drops_its_hold_and_confirm_says_so() {
    let server = Server::start();
    let s = store(&server, "lease");
    let lease = s.lease().unwrap();
    let id = lease.id().to_owned();
    let a = s
        .try_admit("a.com", "multi", &P, Some(&id), soon(&s))
        .unwrap();
    assert_eq!(a.decision, Decision::Go);
    let b = s.try_admit("a.com", "other", &P, None, soon(&s)).unwrap();
    assert!(matches!(b.decision, Decision::WaitUntil(_)));
    assert!(
        b.wait <= RENEW_EVERY,
        "a lease-bound hold is looked at again soon"
    );
    drop(lease);
    assert!(!s.confirm("a.com", "multi", a.at, 1_000).unwrap());
    assert_eq!(
        s.try_admit("a.com", "other", &P, None, soon(&s))
            .unwrap()
            .decision,
        Decision::Go
    );
}

#[test]
fn a_lease_lives_while_its_process_renews_it() {
    let server = Server::start();
    let s = store(&server, "renew");
    let lease = s.lease().unwrap();
    std::thread::sleep(LEASE_TTL + 2 * RENEW_EVERY);
    let key = format!("pace-hook:lease:{}", lease.id());
    assert_eq!(raw(&server, &["EXISTS", &key]), Value::Int(1));
}

#[test]
fn call_records_are_scoped_by_agent_and_taken_once() {
    let server = Server::start();
    let s = store(&server, "calls");
    let record = |call: &str| CallRecord {
        call: call.to_owned(),
        sites: vec!["a.com".to_owned()],
        started_ms: 1_712_000_000_000,
        interval_ms: 1_000,
    };
    s.save_call(&record("s#1"), Some("s")).unwrap();
    assert_eq!(s.open_call_of("s").unwrap(), Some(record("s#1")));
    assert_eq!(s.open_call_of("t").unwrap(), None);
    assert_eq!(s.take_call("s#2", Some("s")).unwrap(), None);
    assert_eq!(s.take_call("s#1", Some("s")).unwrap(), Some(record("s#1")));
    assert_eq!(s.take_call("s#1", Some("s")).unwrap(), None);
    assert_eq!(s.open_call_of("s").unwrap(), None);
    s.save_call(&record("#9"), None).unwrap();
    assert_eq!(s.take_call("#9", None).unwrap(), Some(record("#9")));
    assert_eq!(s.take_call("#9", None).unwrap(), None);
    // Every record expires.
    let Value::Int(ttl) = raw(&server, &["PTTL", "pace-hook:agent:s"]) else {
        panic!()
    };
    assert!(ttl > 0);
}

#[test]
fn the_tab_map_is_updated_as_one_step() {
    let server = Server::start();
    let s = store(&server, "tabs");
    assert_eq!(s.tabs().unwrap(), TabMap::default());
    let entry = TabEntry {
        hosts: vec!["a.com".to_owned()],
        history: Vec::new(),
        seen_ms: 5,
    };
    s.update_tabs(&|m: &mut TabMap| {
        m.tabs.insert("chrome/1".to_owned(), entry.clone());
    })
    .unwrap();
    assert_eq!(s.tabs().unwrap().tabs.get("chrome/1"), Some(&entry));
    raw(&server, &["SET", "pace-hook:tabs", "garbage"]);
    assert_eq!(s.tabs().unwrap(), TabMap::default());
}

#[test]
fn tab_notes_go_along_with_finishes_and_are_folded_in_by_the_events_after() {
    let server = Server::start();
    let s = store(&server, "tab-notes");
    let notes_in = |text: &str| text.len() - text.find('\n').unwrap_or(text.len());
    let mut expected = TabMap::default();
    let mut folds = 0;
    for i in 0..100 {
        let n = note(i);
        s.finish_call(&format!("#{i}"), None, &[], Some(&n))
            .unwrap();
        let noted = tabs_text(&s).unwrap();
        assert!(notes_in(&noted) > 0, "note {i}: {noted}");
        let at = s.clock().now_floor();
        s.update_tabs(&|m| n.apply(m, at)).unwrap();
        n.apply(&mut expected, at);
        // The fold goes out with the next command (here, the GET).
        let after = tabs_text(&s).unwrap();
        if after != noted {
            assert!(notes_in(&noted) >= tabs::TAB_NOTES_FOLD, "note {i}");
            assert_eq!(notes_in(&after), 0, "note {i}: {after}");
            folds += 1;
        } else {
            assert!(notes_in(&noted) < tabs::TAB_NOTES_FOLD, "note {i}");
        }
        // As the caller's own applying would leave it, but for the times
        // (the server's, not this clock's).
        let got = s.tabs().unwrap();
        let (g, e) = (&got.tabs["chrome#1"], &expected.tabs["chrome#1"]);
        assert_eq!((&g.hosts, &g.history), (&e.hosts, &e.history), "note {i}");
        assert_eq!(got.current, expected.current, "note {i}");
    }
    assert!(folds >= 3, "{folds} folds");
    // Notes no fold took up (another writer won each time; a server with
    // neither the function nor the script) stop at 32 KB: a change then
    // is written whole, at once, with them folded in.
    let filler = note(7);
    let mut full = serde_json::to_string(&expected).unwrap();
    while full.len() - full.find('\n').unwrap_or(full.len()) < 32_768 {
        full.push_str(&format!("\n[1,{}]", filler.text()));
    }
    raw(&server, &["SET", "pace-hook:tabs", &full]);
    let mut folded = TabMap::read(full.as_bytes());
    let n = note(200);
    s.finish_call("#full", None, &[], Some(&n)).unwrap();
    assert_eq!(tabs_text(&s).unwrap(), full, "a full map takes no note");
    let at = s.clock().now_floor();
    s.update_tabs(&|m| n.apply(m, at)).unwrap();
    n.apply(&mut folded, at);
    let text = tabs_text(&s).unwrap();
    assert_eq!(notes_in(&text), 0, "{text}");
    assert_eq!(
        TabMap::read(text.as_bytes()),
        folded,
        "the notes were folded in"
    );
    // A key of another type takes no note; the update replaces it.
    raw(&server, &["DEL", "pace-hook:tabs"]);
    raw(&server, &["HSET", "pace-hook:tabs", "a", "b"]);
    let n = note(1);
    s.finish_call("#x", None, &[], Some(&n)).unwrap();
    let at = s.clock().now_floor();
    s.update_tabs(&|m| n.apply(m, at)).unwrap();
    let text = tabs_text(&s).unwrap();
    assert_eq!(notes_in(&text), 0, "{text}");
    assert_eq!(s.tabs().unwrap().tabs["chrome#1"].hosts, ["h1.example"]);
}

#[test]
fn a_backoff_is_written_in_a_transaction_and_delays_the_site() {
    let server = Server::start();
    let s = store(&server, "backoff");
    let until = s
        .update_backoff("a.com", &mut |st, now| {
            st.backoff = Some(Backoff {
                set_ms: now,
                until_ms: now + 60_000,
                strikes: 1,
            });
            Some(now + 60_000)
        })
        .unwrap()
        .unwrap();
    let a = s.try_admit("a.com", "x", &P, None, soon(&s)).unwrap();
    assert_eq!(a.decision, Decision::WaitUntil(until));
    assert!(a.settled, "only time stands in the way");
    raw(&server, &["SET", "pace-hook:site:a.com", "[]"]);
    assert!(matches!(
        s.update_backoff("a.com", &mut |_, _| None),
        Err(Error::CorruptState { .. })
    ));
}

#[test]
fn the_scripts_constants_are_the_crates() {
    let lua = include_str!("base.lua");
    for (name, value) in [
        ("SLACK", crate::pacing::decision::CLOCK_SLACK_MS),
        ("CEILING", crate::pacing::decision::CEILING_MS),
        (
            "MAX_BUDGET",
            u64::from(crate::pacing::decision::MAX_BUDGET_CALLS),
        ),
        ("STATE_TTL", STATE_TTL_MS),
        ("WAKE_TTL", WAKE_TTL_MS),
    ] {
        let line = format!("local {name} = {value} ");
        assert!(lua.contains(&line), "base.lua has no `{line}`");
    }
}

#[test]
fn an_interrupted_read_is_told_from_other_failures() {
    let eintr = RedisError::from(std::io::Error::from(std::io::ErrorKind::Interrupted));
    assert!(is_interrupted(&eintr));
    let reset = RedisError::from(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
    assert!(!is_interrupted(&reset));
}

#[test]
fn an_empty_server_is_noticed_once() {
    let server = Server::start();
    let dir = home("marker");
    // Greeted on the first read of the clock.
    let open = || {
        let s = RedisStore::open(&server.url(), &dir, Options::default()).unwrap();
        s.clock().now_floor();
    };
    let notes = || {
        let text = std::fs::read_to_string(dir.join("gate.log")).unwrap_or_default();
        text.lines().filter(|l| l.contains("\"backend\"")).count()
    };
    open();
    assert_eq!(notes(), 1, "first use of an empty server");
    open();
    assert_eq!(notes(), 1, "nothing changed");
    raw(&server, &["FLUSHALL"]);
    open();
    assert_eq!(notes(), 2, "the data went away");
}

#[test]
fn an_admission_in_one_script_does_what_its_parts_do() {
    use crate::store::{Admission, AdmitCall, admit_in_parts};
    // The same asks on two servers at the same (test) clock: one store in
    // one script, the other through the parts, each its own step.
    let (one, parts) = (Server::start(), Server::start());
    let (a, b) = (store(&one, "at-once"), store(&parts, "in-parts"));
    let t0 = 1_800_000_000_000_000u64;
    let record = |call: &str| CallRecord {
        call: call.to_owned(),
        sites: vec!["x.com".to_owned()],
        started_ms: 0,
        interval_ms: P.interval_ms,
    };
    let mut wait_a = None;
    let mut wait_b = None;
    let steps: &[(u64, &str, Option<&str>, bool, bool)] = &[
        // (µs after t0, call, agent, check_agent, if_unqueued)
        (0, "s#1", Some("s"), true, true),
        (10, "s#2", Some("s"), true, true),
        (20, "s#1", Some("s"), true, true),
        (30, "#9", None, false, true),
        (40, "t#1", Some("t"), true, false),
    ];
    for (i, &(dt, call, agent, check_agent, if_unqueued)) in steps.iter().enumerate() {
        if i == 4 {
            // Someone queues: the fast path does nothing, the head looks.
            wait_a = Some(a.join_queue("x.com", soon(&a)).unwrap().unwrap());
            wait_b = Some(b.join_queue("x.com", soon(&b)).unwrap().unwrap());
            let ask = AdmitCall {
                site: "x.com",
                call: "u#1",
                policy: &P,
                deadline: soon(&a),
                if_unqueued: true,
                agent: Some("u"),
                check_agent: true,
                record: &record("u#1"),
                note: None,
            };
            assert_eq!(a.admit_call(&ask).unwrap(), Admission::Queued);
            assert_eq!(admit_in_parts(&b, &ask).unwrap(), Admission::Queued);
        }
        a.set_test_clock(Some(t0 + dt * 1000));
        b.set_test_clock(Some(t0 + dt * 1000));
        let rec = record(call);
        let ask = AdmitCall {
            site: "x.com",
            call,
            policy: &P,
            deadline: soon(&a),
            if_unqueued,
            agent,
            check_agent,
            record: &rec,
            note: Some(&note(i)),
        };
        let (x, y) = (
            a.admit_call(&ask).unwrap(),
            admit_in_parts(&b, &ask).unwrap(),
        );
        let strip = |m: Admission| match m {
            Admission::Looked(at) => Admission::Looked(Attempt {
                wait: Duration::ZERO,
                ..at
            }),
            other => other,
        };
        assert_eq!(strip(x), strip(y), "step {i}");
        let kind = match x {
            Admission::Looked(at) => match at.decision {
                Decision::Go => "go",
                Decision::Duplicate => "duplicate",
                Decision::WaitUntil(_) => "wait",
                Decision::OverBudget(_) => "over budget",
            },
            Admission::AgentBusy => "agent busy",
            Admission::Queued => "queued",
        };
        assert_eq!(
            kind,
            ["go", "agent busy", "duplicate", "wait", "wait"][i],
            "step {i}"
        );
        assert_eq!(
            a.site_state("x.com").unwrap(),
            b.site_state("x.com").unwrap(),
            "step {i}"
        );
        // The tab map read along with an admission answers the caller's
        // update, which finds the note applied.
        let go = kind == "go";
        same_call_and_tabs(&a, &b, agent, i, go.then(|| (note(i), t0 / 1000 + dt)));
    }
    // What was saved is what the Post takes, stamped with the admission.
    let s1 = a.take_call("s#1", Some("s")).unwrap().unwrap();
    assert_eq!(s1, b.take_call("s#1", Some("s")).unwrap().unwrap());
    assert_eq!(s1.started_ms, t0 / 1000);
    assert_eq!(
        a.take_call("#9", None).unwrap(),
        b.take_call("#9", None).unwrap()
    );
    drop((wait_a, wait_b));
}

#[test]
fn a_finish_in_one_script_does_what_its_parts_do() {
    use crate::store::finish_in_parts;
    let (one, parts) = (Server::start(), Server::start());
    let (a, b) = (store(&one, "finish-once"), store(&parts, "finish-parts"));
    let t0 = 1_800_000_000_000_000u64;
    let record = |call: &str, sites: &[&str]| CallRecord {
        call: call.to_owned(),
        sites: sites.iter().map(|s| s.to_string()).collect(),
        started_ms: t0 / 1000,
        interval_ms: 2_500,
    };
    for s in [&a, &b] {
        s.set_test_clock(Some(t0));
        for (call, site) in [("s#1", "x.com"), ("s#1", "y.com"), ("#2", "x.com")] {
            s.try_admit(site, call, &P, None, soon(s)).unwrap();
        }
        s.save_call(&record("s#1", &["x.com", "y.com"]), Some("s"))
            .unwrap();
        s.save_call(&record("#2", &["x.com"]), None).unwrap();
        // A record that does not read as one finishes nothing of its own.
        raw_on(s, &["SET", "pace-hook:call:#3", "{\"call\": 3}"]);
    }
    let revealed = |r: &[&str]| r.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let asks: &[(&str, Option<&str>, Vec<String>)] = &[
        ("s#1", Some("s"), revealed(&["z.com", "x.com"])),
        ("s#1", Some("s"), revealed(&[])),
        ("#2", None, revealed(&[])),
        ("#3", None, revealed(&["w.com"])),
        ("#4", None, revealed(&[])),
    ];
    for (i, (call, agent, revealed)) in asks.iter().enumerate() {
        let at = t0 + (i as u64 + 1) * 1_000_500;
        a.set_test_clock(Some(at));
        b.set_test_clock(Some(at));
        let x = a
            .finish_call(call, *agent, revealed, Some(&note(i)))
            .unwrap();
        let y = finish_in_parts(&b, call, *agent, revealed).unwrap();
        assert_eq!(x, y, "ask {i}");
        let sites: Vec<&str> = x.iter().map(|(s, _)| s.as_str()).collect();
        let expected: [&[&str]; 5] = [
            &["x.com", "y.com", "z.com"],
            &[],
            &["x.com"],
            &["w.com"],
            &[],
        ];
        assert_eq!(sites, expected[i], "ask {i}");
        for (site, time) in &x {
            assert_eq!(*time, at.div_ceil(1000), "ask {i}");
            // The state the script read along answers the next look.
            assert_eq!(
                a.site_state(site).unwrap(),
                b.site_state(site).unwrap(),
                "ask {i} {site}"
            );
        }
        same_call_and_tabs(&a, &b, None, i, Some((note(i), at / 1000)));
    }
    for site in ["w.com", "x.com", "y.com", "z.com"] {
        assert_eq!(a.site_state(site).unwrap(), b.site_state(site).unwrap());
    }
}

/// A navigation of one tab to a new site at step `i`: the tab map's change
/// a call makes.
fn note(i: usize) -> TabNote {
    TabNote {
        seen: vec![TabSeen {
            key: Some("chrome#1".to_owned()),
            browser: "chrome".to_owned(),
            hosts: vec![format!("h{i}.example")],
            sure: i % 2 == 1,
        }],
        current: Some(("chrome".to_owned(), "chrome#1".to_owned())),
    }
}

/// The tab map's text on `s`'s own server.
fn tabs_text(s: &RedisStore) -> Option<String> {
    s.inner
        .run(|c| redis::cmd("GET").arg("pace-hook:tabs").query(c))
        .unwrap()
}

/// The store under test and its reference agree on the agent's open call
/// (when the step had an agent) and on the tab map, after the caller's own
/// update of it with `noted` (the step's note and its time), if it made
/// one: `a`, which applied the note along with its step, finds it done and
/// writes nothing.
fn same_call_and_tabs(
    a: &RedisStore,
    b: &RedisStore,
    agent: Option<&str>,
    step: usize,
    noted: Option<(TabNote, u64)>,
) {
    if let Some(agent) = agent {
        assert_eq!(
            a.open_call_of(agent).unwrap(),
            b.open_call_of(agent).unwrap(),
            "step {step}"
        );
    }
    if let Some((note, at)) = noted {
        let text = tabs_text(a).expect("the note made a map");
        assert!(
            text.ends_with(&format!("\n[{at},{}]", note.text())),
            "step {step}: {text}"
        );
        for s in [a, b] {
            s.update_tabs(&|m| note.apply(m, at)).unwrap();
        }
        assert_eq!(tabs_text(a).as_deref(), Some(text.as_str()), "step {step}");
    }
    assert_eq!(a.tabs().unwrap(), b.tabs().unwrap(), "step {step}");
}

/// A raw command on `s`'s own server.
fn raw_on(s: &RedisStore, args: &[&str]) {
    s.inner
        .run(|c| {
            let mut cmd = redis::cmd(args[0]);
            for a in &args[1..] {
                cmd.arg(*a);
            }
            cmd.query::<Value>(c)
        })
        .unwrap();
}

/// The compiler's SHA-1 of every script is the one the server names it by:
/// the `redis` crate's, run here on the same text.
#[test]
fn every_scripts_hash_is_the_sha1_of_its_text() {
    for s in [
        &ADMIT,
        &ADMIT_SITES,
        &FINISH,
        &CANCEL,
        &CONFIRM,
        &EXTEND,
        &CHECK,
        &HELLO,
        &JOIN,
        &AHEAD,
        &TAKE_CALL,
        &FINISH_CALL,
        &SET_TABS,
    ] {
        assert_eq!(s.hash(), redis::Script::new(s.src).get_hash());
    }
    // Lengths on and either side of a block's end and of its last 8 bytes,
    // and across blocks, hashed whole and in two parts.
    let text: String = (0..300u32)
        .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
        .collect();
    for len in [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 300] {
        let part = &text[..len];
        let crate_hash = redis::Script::new(part).get_hash().to_owned();
        let whole = sha1::Sha1::NEW.update(part.as_bytes()).hex();
        let split = sha1::Sha1::NEW
            .update(&part.as_bytes()[..len / 3])
            .update(&part.as_bytes()[len / 3..])
            .hex();
        assert_eq!(whole, crate_hash.as_bytes(), "{len}");
        assert_eq!(split, whole, "{len}");
    }
}

#[test]
fn an_admission_of_several_sites_in_one_script_does_what_its_parts_do() {
    use crate::pacing::request::SiteRequest;
    use crate::store::{AdmitSites, SitesAdmission, admit_sites_in_parts};
    let (one, parts) = (Server::start(), Server::start());
    let (a, b) = (store(&one, "sites-once"), store(&parts, "sites-parts"));
    let t0 = 1_800_000_000_000_000u64;
    let req = |site: &str| SiteRequest {
        site: site.to_owned(),
        policy: P,
        jitter_ms: 0,
    };
    let (xy, zx) = ([req("x.com"), req("y.com")], [req("z.com"), req("x.com")]);
    let record = |call: &str, sites: &[SiteRequest]| CallRecord {
        call: call.to_owned(),
        sites: sites.iter().map(|r| r.site.clone()).collect(),
        started_ms: 0,
        interval_ms: P.interval_ms,
    };
    let mut queued = None;
    // (µs after t0, call, agent, sites, what both do)
    type Ask<'a> = (u64, &'a str, Option<&'a str>, &'a [SiteRequest], &'a str);
    let steps: &[Ask<'_>] = &[
        (0, "s#1", Some("s"), &xy, "taken"),
        (10, "s#2", Some("s"), &xy, "agent busy"),
        (20, "s#1", Some("s"), &xy, "duplicate"),
        // x.com is held: z.com, free, is not kept either.
        (30, "#8", None, &zx, "not now"),
        (40, "#9", None, &[req("v.com"), req("w.com")], "taken"),
        (
            50,
            "t#1",
            Some("t"),
            &[req("u.com"), req("w.com")],
            "not now",
        ),
    ];
    for (i, &(dt, call, agent, sites, what)) in steps.iter().enumerate() {
        if i == 5 {
            // Someone queues for u.com: nothing is taken.
            queued = Some((
                a.join_queue("u.com", soon(&a)).unwrap().unwrap(),
                b.join_queue("u.com", soon(&b)).unwrap().unwrap(),
            ));
        }
        a.set_test_clock(Some(t0 + dt * 1000));
        b.set_test_clock(Some(t0 + dt * 1000));
        let rec = record(call, sites);
        let ask = AdmitSites {
            sites,
            call,
            deadline: soon(&a),
            agent,
            check_agent: agent.is_some(),
            record: &rec,
            note: Some(&note(i)),
        };
        let (x, y) = (
            a.admit_sites(&ask).unwrap(),
            admit_sites_in_parts(&b, &ask).unwrap(),
        );
        assert_eq!(x, y, "step {i}");
        let got = match &x {
            SitesAdmission::Taken(t) if t.iter().all(|&(_, d)| d) => "duplicate",
            SitesAdmission::Taken(t) => {
                assert!(t.iter().all(|&(at, d)| at == (t0 + dt * 1000) / 1000 && !d));
                "taken"
            }
            SitesAdmission::NotNow => "not now",
            SitesAdmission::AgentBusy => "agent busy",
        };
        assert_eq!(got, what, "step {i}");
        for r in sites {
            let (sa, sb) = (
                a.site_state(&r.site).unwrap(),
                b.site_state(&r.site).unwrap(),
            );
            let held = |s: &Option<SiteState>| {
                s.as_ref()
                    .map(|s| {
                        s.in_flight
                            .iter()
                            .map(|f| f.call.clone())
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            };
            // The parts take z.com and give it back; the script never takes
            // it: neither holds it.
            assert_eq!(held(&sa), held(&sb), "step {i} {}", r.site);
            if what != "not now" {
                assert_eq!(sa, sb, "step {i} {}", r.site);
            }
        }
        let taken = what == "taken";
        same_call_and_tabs(&a, &b, agent, i, taken.then(|| (note(i), t0 / 1000 + dt)));
    }
    // What was saved is what the Post takes, stamped with the admission.
    let s1 = a.take_call("s#1", Some("s")).unwrap().unwrap();
    assert_eq!(s1, b.take_call("s#1", Some("s")).unwrap().unwrap());
    assert_eq!((s1.started_ms, s1.sites.len()), (t0 / 1000, 2), "{s1:?}");
    let r9 = a.take_call("#9", None).unwrap();
    assert_eq!(r9, b.take_call("#9", None).unwrap());
    assert!(r9.is_some());
    assert_eq!(a.take_call("#8", None).unwrap(), None);
    drop(queued);
    // A state that cannot be read fails the admission on both, and is set
    // aside, as a one-site admission's is.
    for s in [&a, &b] {
        raw_on(s, &["SET", "pace-hook:site:w.com", "{\"site\": \"a"]);
    }
    let rec = record("#10", &[req("q.com"), req("w.com")]);
    let ask = AdmitSites {
        sites: &[req("q.com"), req("w.com")],
        call: "#10",
        deadline: soon(&a),
        agent: None,
        check_agent: false,
        record: &rec,
        note: None,
    };
    for r in [a.admit_sites(&ask), admit_sites_in_parts(&b, &ask)] {
        let Err(Error::CorruptState {
            path,
            retry_after_ms,
            ..
        }) = r
        else {
            panic!("{r:?}")
        };
        assert!(path.to_string_lossy().contains("site:w.com"), "{path:?}");
        assert_eq!(retry_after_ms, P.hold_ms + P.interval_ms);
    }
    assert_eq!(
        a.site_state("q.com")
            .unwrap()
            .map(|s| s.in_flight.len())
            .unwrap_or(0),
        0
    );
    assert_eq!(
        b.site_state("q.com")
            .unwrap()
            .map(|s| s.in_flight.len())
            .unwrap_or(0),
        0
    );
}

/// The connections the server has open, by `CLIENT LIST` (the one that
/// asks included).
fn clients(server: &Server) -> usize {
    let client = redis::Client::open(server.url()).unwrap();
    let mut c = client.get_connection().unwrap();
    let list: String = redis::cmd("CLIENT").arg("LIST").query(&mut c).unwrap();
    list.lines().filter(|l| l.starts_with("id=")).count()
}

/// [`clients`] once the server has come to `n` (a closed connection is gone
/// from its list once it has read the close), or what it still says after
/// two seconds.
fn clients_come_to(server: &Server, n: usize) -> usize {
    let mut now = clients(server);
    for _ in 0..200 {
        if now == n {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
        now = clients(server);
    }
    now
}

#[test]
fn a_watch_closes_the_connection_it_waited_on_when_it_is_dropped() {
    // The gate drops a watch before sleeping out the last of a wait: the
    // close of its connection then falls in that sleep, not after the
    // admission.
    let server = Server::start();
    let s = store(&server, "watch-teardown");
    let alone = clients(&server);
    let mut w = s.watch("example.com").unwrap();
    w.wait(Duration::from_millis(150)).unwrap();
    assert_eq!(
        clients(&server),
        alone + 1,
        "the wait has a connection of its own"
    );
    drop(w);
    assert_eq!(
        clients_come_to(&server, alone),
        alone,
        "dropping the watch closes it"
    );
    // A later watch connects again and waits as before.
    let mut again = s.watch("example.com").unwrap();
    again.wait(Duration::from_millis(150)).unwrap();
    assert_eq!(clients(&server), alone + 1);
}
