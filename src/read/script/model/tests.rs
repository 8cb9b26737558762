//! The tables hold together: no name in two rows that hold at once, so no
//! row hides another and the order of the platforms does not matter.

use super::*;

/// `(table, environment, name)` for every name of every row.
fn names() -> Vec<(String, Option<Env>, &'static str)> {
    let mut out = Vec::new();
    for p in PLATFORMS {
        for Row(names, env, _) in p.globals {
            out.extend(names.iter().map(|n| ("globals".to_owned(), *env, n)));
        }
        for (obj, Row(names, env, _)) in p.members {
            out.extend(names.iter().map(|n| (format!("{obj:?}"), *env, n)));
        }
        for Row(names, env, _) in p.any {
            out.extend(names.iter().map(|n| ("any".to_owned(), *env, n)));
        }
    }
    out
}

#[test]
fn script_model_no_name_is_in_two_rows_that_hold_at_once() {
    let names = names();
    let mut twice = Vec::new();
    for (i, (table, env, name)) in names.iter().enumerate() {
        for (other_table, other_env, other) in &names[i + 1..] {
            let overlap = env.is_none() || other_env.is_none() || env == other_env;
            if table == other_table && name == other && overlap {
                twice.push(format!("{table}: `{name}`"));
            }
        }
    }
    assert!(twice.is_empty(), "names in two rows: {twice:?}");
}

#[test]
fn script_model_a_name_is_found_in_its_environment_only() {
    assert_eq!(global("page", Env::Page), None);
    assert_eq!(
        global("page", Env::PlaywrightServer),
        Some(Def::Obj(Obj::Page))
    );
    assert!(
        matches!(by_name("goto", Env::PlaywrightServer), Some(Def::Sink(s)) if s.label == "`page.goto`")
    );
    assert_eq!(by_name("goto", Env::Page), None);
    assert_eq!(
        by_name("waitForURL", Env::PlaywrightServer),
        Some(Def::Inert)
    );
    assert_eq!(by_name("naturalWidth", Env::Page), None);
}

#[test]
fn script_model_what_a_sink_loads_and_gives_is_its_own_not_its_label() {
    let Some(Def::Sink(worker)) = global("Worker", Env::Page) else {
        panic!("`Worker` is a sink");
    };
    assert_eq!(worker.loads, Loads::Always);
    let Some(Def::Sink(open)) = global("open", Env::Page) else {
        panic!("`open` is a sink");
    };
    assert_eq!(open.returns, Returns::Window);
    assert_eq!(open.loads, Loads::No);
}

#[test]
fn script_model_every_row_is_what_its_names_are_looked_up_as() {
    for p in PLATFORMS {
        for env in [Env::Page, Env::PlaywrightServer] {
            let holds = |only: &Option<Env>| only.is_none_or(|e| e == env);
            for Row(names, _, def) in p.globals.iter().filter(|r| holds(&r.1)) {
                for n in names.iter() {
                    assert_eq!(global(n, env), Some(*def), "global `{n}` in {env:?}");
                }
            }
            for (obj, Row(names, _, def)) in p.members.iter().filter(|m| holds(&m.1.1)) {
                for n in names.iter() {
                    assert_eq!(member(*obj, n, env), Some(*def), "{obj:?}.{n} in {env:?}");
                }
            }
            for Row(names, _, def) in p.any.iter().filter(|r| holds(&r.1)) {
                for n in names.iter() {
                    assert_eq!(by_name(n, env), Some(*def), "`.{n}` in {env:?}");
                }
            }
        }
    }
}

#[test]
fn script_model_decoders_decode_as_the_browser_does() {
    use super::{Decoding as D, Given as G};
    let t = |s: &str| vec![G::Text(s.to_owned())];
    assert_eq!(
        decode(D::Base64, &t(" aHR0cHM6Ly9v\ndGhlci5vcmc ")),
        Some("https://other.org".to_owned())
    );
    assert_eq!(decode(D::Base64, &t("aHR0c")), None, "one digit too many");
    assert_eq!(decode(D::Base64, &t("a*==")), None);
    assert_eq!(
        decode(D::Component, &t("https%3A%2F%2Fother.org")),
        Some("https://other.org".to_owned())
    );
    assert_eq!(decode(D::Component, &t("%+1")), None, "URIError");
    assert_eq!(decode(D::Component, &t("%E2%82")), None, "not UTF-8");
    assert_eq!(
        decode(D::Uri, &t("https%3A//o.org/%7E")),
        Some("https%3A//o.org/~".to_owned())
    );
    assert_eq!(
        decode(D::Unescape, &t("%u0068ttps%3a//o.org%")),
        Some("https://o.org%".to_owned())
    );
    let codes: Vec<G> = "wss:"
        .chars()
        .map(|c| G::Number(f64::from(c as u32)))
        .collect();
    assert_eq!(decode(D::CharCodes, &codes), Some("wss:".to_owned()));
    assert_eq!(
        decode(D::CharCodes, &[G::Number(65.0 + 65536.0)]),
        Some("A".to_owned())
    );
    assert_eq!(
        decode(D::CodePoints, &[G::Number(0x1F600 as f64)]),
        Some("😀".to_owned())
    );
    assert_eq!(decode(D::CharCodes, &[G::Other]), None);
}

#[test]
fn script_model_string_methods_fold_exactly_or_not_at_all() {
    let n = |x: f64| Given::Number(x);
    let t = |s: &str| Given::Text(s.to_owned());
    assert_eq!(
        fold_method("https://o.org", "slice", &[n(0.0), n(8.0)]).as_deref(),
        Some("https://")
    );
    assert_eq!(
        fold_method("https://o.org", "slice", &[n(-5.0)]).as_deref(),
        Some("o.org")
    );
    assert_eq!(
        fold_method("abc", "substring", &[n(2.0), n(0.0)]).as_deref(),
        Some("ab")
    );
    assert_eq!(fold_method("abc", "at", &[n(-1.0)]).as_deref(), Some("c"));
    assert_eq!(
        fold_method("abc", "charAt", &[n(-1.0)]).as_deref(),
        Some("")
    );
    assert_eq!(
        fold_method("a.a", "replace", &[t("a"), t("b")]).as_deref(),
        Some("b.a")
    );
    assert_eq!(
        fold_method("a.a", "replaceAll", &[t("a"), t("b")]).as_deref(),
        Some("b.b")
    );
    // `$&` and the like are patterns; a regular expression is not text.
    assert_eq!(fold_method("a", "replace", &[t("a"), t("$&$&")]), None);
    assert_eq!(fold_method("a", "replace", &[Given::Other, t("b")]), None);
    assert_eq!(fold_method("a b", "split", &[t(" ")]), None);
    assert_eq!(
        fold_method("😀x", "slice", &[n(1.0)]),
        None,
        "UTF-16 offsets"
    );
    assert!(string_member("length").is_none() && string_member("0").is_none());
    assert!(string_member("split").is_some() && string_member("normalize").is_some());
}

#[test]
fn script_model_a_selector_names_the_tag_it_selects() {
    for (selector, tag) in [
        ("a", Some("a")),
        ("table a[href]", Some("a")),
        ("#nav > a.link:hover", Some("a")),
        ("a[href^=\"http\"], nav A", Some("a")),
        ("a[title='x, img']", Some("a")),
        ("a, img", None),
        (".link", None),
        ("*", None),
        ("a:not(.x)", None),
        ("svg|a", None),
        ("a::before", None),
        ("a[href", None),
    ] {
        assert_eq!(selected_tag(selector).as_deref(), tag, "{selector}");
    }
}

/// What a scan of `table`'s rows in the platforms' order finds for `name`
/// (of `obj`, in the members' table) in `env`: the first row that holds.
fn scanned(table: &str, obj: Option<Obj>, name: &str, env: Env) -> Option<Def> {
    let holds = |only: &Option<Env>| only.is_none_or(|e| e == env);
    PLATFORMS.iter().find_map(|p| {
        let rows: Vec<&Row> = match table {
            "globals" => p.globals.iter().collect(),
            "members" => p
                .members
                .iter()
                .filter(|(o, _)| Some(*o) == obj)
                .map(|(_, row)| row)
                .collect(),
            _ => p.any.iter().collect(),
        };
        rows.into_iter()
            .find(|Row(names, only, _)| holds(only) && names.contains(name))
            .map(|row| row.2)
    })
}

#[test]
fn script_model_the_compiled_index_finds_what_a_scan_of_the_rows_finds() {
    let mut objs: Vec<Obj> = PLATFORMS
        .iter()
        .flat_map(|p| p.members.iter().map(|(o, _)| *o))
        .collect();
    objs.dedup();
    let all: Vec<&'static str> = names().into_iter().map(|(_, _, n)| n).collect();
    let mut tried = 0;
    for name in &all {
        // The name, and names one change away from it that a script could
        // read: a letter more, one fewer, the first one's case turned.
        let mut turned = name.to_string();
        if let Some(c) = turned.get(..1) {
            let c = if c == c.to_lowercase() {
                c.to_uppercase()
            } else {
                c.to_lowercase()
            };
            turned.replace_range(..1, &c);
        }
        let near = [
            name.to_string(),
            format!("{name}x"),
            name[..name.len().saturating_sub(1)].to_string(),
            turned,
        ];
        for candidate in &near {
            for env in [Env::Page, Env::PlaywrightServer] {
                assert_eq!(
                    scan_globals(candidate, env),
                    scanned("globals", None, candidate, env),
                    "global `{candidate}` in {env:?}"
                );
                assert_eq!(
                    scan_any(candidate, env),
                    scanned("any", None, candidate, env),
                    "`{candidate}` of any object in {env:?}"
                );
                for &obj in &objs {
                    assert_eq!(
                        scan_members(obj, candidate, env),
                        scanned("members", Some(obj), candidate, env),
                        "{obj:?}.{candidate} in {env:?}"
                    );
                }
                tried += 1;
            }
        }
    }
    assert!(tried > 1000, "only {tried} names tried");
}
