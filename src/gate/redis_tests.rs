//! The gate over a real `redis-server` (started per test on a free
//! loopback port): what the Redis store's own tests cannot show without the
//! gate above it.

use crate::{
    gate::{Gate, SiteRequest, Turn},
    pacing::{
        decision::Policy,
        log::{Kind, Record},
    },
    store::{Log, Sites, Store},
};

use crate::store::redis::{
    test_server::Server,
    tests::{P, soon, store},
};

#[test]
fn the_gate_runs_on_redis_and_the_log_reads_back_from_the_stream() {
    let server = Server::start();
    let s = store(&server, "gate");
    let gate = Gate::new(&s);
    let req = [SiteRequest::new(
        "a.com",
        Policy {
            interval_ms: 300,
            ..P
        },
    )];
    let arrived = s.clock().mono();
    let Turn::Admitted(first) = gate.admit("c1", &req, arrived, 5_000, Some("s1")).unwrap() else {
        panic!()
    };
    let f = gate.finish("c1", Some("s1"), &[]).unwrap();
    assert_eq!(f.sites, ["a.com"]);
    let finished = f.at();
    let Turn::Admitted(second) = gate.admit("c2", &req, arrived, 5_000, Some("s2")).unwrap() else {
        panic!()
    };
    assert!(
        second.at_ms >= finished + 300,
        "{first:?} {finished} {second:?}"
    );
    let mut r = Record::new(Kind::Admit, second.at_ms, "navigate");
    r.sites = vec!["a.com".to_owned()];
    s.log(&r);
    let (records, bad) = s.read_log().unwrap();
    assert_eq!(bad, 0);
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].event, Kind::Backend, "the empty server, noted");
    assert_eq!(records[1], r);
}

#[test]
fn a_multi_site_call_holds_what_it_took_until_it_has_all() {
    let server = Server::start();
    let s = store(&server, "multi");
    let gate = Gate::new(&s);
    let p = Policy {
        interval_ms: 200,
        hold_ms: 60_000,
        budget: None,
    };
    // b.com is busy for a while: the call takes a.com, waits for b.com.
    s.try_admit(
        "b.com",
        "busy",
        &Policy { hold_ms: 700, ..p },
        None,
        soon(&s),
    )
    .unwrap();
    let reqs = [SiteRequest::new("a.com", p), SiteRequest::new("b.com", p)];
    let arrived = s.clock().mono();
    let Turn::Admitted(a) = gate.admit("multi", &reqs, arrived, 10_000, None).unwrap() else {
        panic!()
    };
    assert!(a.waited_ms >= 800, "{a:?}");
    let state = s.site_state("a.com").unwrap().unwrap();
    assert_eq!(state.in_flight.len(), 1);
    assert_eq!(
        state.in_flight[0].lease, None,
        "confirmed: an ordinary hold now"
    );
    assert_eq!(state.in_flight[0].until_ms, a.at_ms + 60_000);
}
