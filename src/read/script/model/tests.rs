//! The tables hold together: no name in two rows that hold at once, so no
//! row hides another and the order of the platforms does not matter.

use super::*;

/// `(table, environment, name)` for every name of every row.
fn names() -> Vec<(String, Option<Env>, &'static str)> {
    let mut out = Vec::new();
    for p in PLATFORMS {
        for Row(names, env, _) in p.globals {
            out.extend(names.iter().map(|n| ("globals".to_owned(), *env, *n)));
        }
        for (obj, Row(names, env, _)) in p.members {
            out.extend(names.iter().map(|n| (format!("{obj:?}"), *env, *n)));
        }
        for Row(names, env, _) in p.any {
            out.extend(names.iter().map(|n| ("any".to_owned(), *env, *n)));
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
                for n in *names {
                    assert_eq!(global(n, env), Some(*def), "global `{n}` in {env:?}");
                }
            }
            for (obj, Row(names, _, def)) in p.members.iter().filter(|m| holds(&m.1.1)) {
                for n in *names {
                    assert_eq!(member(*obj, n, env), Some(*def), "{obj:?}.{n} in {env:?}");
                }
            }
            for Row(names, _, def) in p.any.iter().filter(|r| holds(&r.1)) {
                for n in *names {
                    assert_eq!(by_name(n, env), Some(*def), "`.{n}` in {env:?}");
                }
            }
        }
    }
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
