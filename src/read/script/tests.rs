//! Unit tests of the analysis, one rule each; the table of scripts is in
//! `corpus.rs`, properties in `props.rs`.

use super::*;

fn page(code: &str) -> Analysis {
    analyse(code, Env::Page).unwrap_or_else(|e| panic!("{code}: {e:?}"))
}

fn server(code: &str) -> Analysis {
    analyse(code, Env::PlaywrightServer).unwrap_or_else(|e| panic!("{code}: {e:?}"))
}

fn why(a: &Analysis) -> &str {
    match &a.count {
        Count::Many { why } => why,
        other => panic!("not many: {other:?}"),
    }
}

fn found(what: &str, line: u32, column: u32) -> Found {
    Found {
        what: what.to_owned(),
        line,
        column,
    }
}

#[test]
fn script_body_may_await_and_return_at_top_level() {
    let a = page("const r = await fetch('/a');\nreturn r.status");
    assert_eq!(a.count, Count::One);
    assert_eq!(a.requests, vec![found("`fetch`", 1, 17)]);
}

#[test]
fn script_two_requests_in_sequence_say_which_and_where() {
    let a = page("await fetch('/a');\n  await fetch('/b')");
    assert_eq!(why(&a), "`fetch` at 1:7 and `fetch` at 2:9 both run");
}

#[test]
fn script_a_request_in_a_loop_says_which_loop() {
    let a = page("for (const u of urls) {\n  await fetch(u)\n}");
    assert_eq!(
        why(&a),
        "`fetch` at 2:9 runs inside a `for … of` loop (1:1)"
    );
}

#[test]
fn script_a_callback_says_who_it_is_passed_to() {
    let a = page("urls.forEach(u => fetch(u))");
    assert_eq!(
        why(&a),
        "`fetch` at 1:19 runs as a callback passed to `forEach` (1:1)"
    );
}

#[test]
fn script_a_function_called_twice_says_through_which_calls() {
    let a = page("function get(u) { return fetch(u) }\nget('/a')\nget('/b')");
    assert_eq!(
        why(&a),
        "`fetch` at 1:26 through `get` at 2:1 and `fetch` at 1:26 through `get` at 3:1 both run"
    );
}

#[test]
fn script_a_function_that_calls_itself_is_many() {
    let a = page("function go(n) { fetch('/p'); if (n) go(n - 1) }\ngo(3)");
    assert!(matches!(a.count, Count::Many { .. }));
}

#[test]
fn script_branches_take_the_larger_and_logical_operators_add() {
    assert_eq!(
        page("if (c) fetch(a); else if (d) fetch(b)").count,
        Count::One
    );
    assert_eq!(page("c ? fetch(a) : fetch(b)").count, Count::One);
    assert!(matches!(
        page("c || fetch(a); d ?? fetch(b)").count,
        Count::Many { .. }
    ));
}

#[test]
fn script_try_and_catch_add_up_because_a_retry_is_a_second_request() {
    let a = page("try { await fetch(a) } catch (e) { await fetch(b) }");
    assert!(matches!(a.count, Count::Many { .. }));
}

#[test]
fn script_requests_are_listed_in_source_order_even_in_functions_never_called() {
    let a = page("function never() { navigator.sendBeacon('/x') }\nlocation.href = u");
    assert_eq!(
        a.requests,
        vec![
            found("`navigator.sendBeacon`", 1, 20),
            found("assignment to `location.href`", 2, 1),
        ]
    );
    assert_eq!(a.count, Count::One);
}

#[test]
fn script_opaque_places_name_what_and_where() {
    let a = page("const s = 'x';\neval(s)");
    assert_eq!(a.opaque, vec![found("`eval`", 2, 1)]);
    let a = page("window[k](u)");
    assert_eq!(
        a.opaque,
        vec![found(
            "a member of the global object read through a computed name (`window[…]`)",
            1,
            1
        )]
    );
}

#[test]
fn script_a_value_that_escapes_is_named_with_how_in_words() {
    let a = page("Reflect.apply(fetch, window, ['/a'])");
    assert_eq!(
        a.opaque,
        vec![found(
            "the global object, used as an argument of `Reflect.apply` (1:1)",
            1,
            1
        )]
    );
}

#[test]
fn script_unknown_calls_are_possible_requests_not_opaque() {
    let a = page("const rows = table.getRows(); render(rows); return rows.length");
    assert!(a.opaque.is_empty());
    assert!(matches!(a.count, Count::Many { .. }), "{:?}", a.count);
    assert_eq!(
        a.requests,
        vec![
            found(
                "a call of `getRows`, a function the model does not know",
                1,
                14
            ),
            found(
                "a call of `render`, a function the model does not know",
                1,
                31
            ),
        ]
    );
    // What the model lists as loading nothing counts nothing.
    let a = page(
        "const rows = [...document.querySelectorAll('tr')]; return rows.map(r => r.getAttribute('id')).join(',')",
    );
    assert_eq!(a.count, Count::Zero);
    // A callback handed the elements of one tag is bound before its body
    // is walked: one round, as for page data.
    let a =
        page("document.querySelectorAll('a').forEach((a, i) => { a.href = a.href + '?n=' + i })");
    assert_eq!((walk::ROUNDS.get(), a.count), (1, Count::Zero));
}

#[test]
fn script_css_handed_to_a_call_loads_through_names_and_pieces() {
    // The walk reads a call's text for CSS only when some known piece of
    // it holds a `(`, `@` or `\`: these each have one, in a name's value,
    // in a later piece of a `+` or a template.
    for code in [
        "const bg = 'url(/a.png)'; el.style.setProperty('background', bg)",
        "el.style.setProperty('background', 'ur' + 'l(/a.png)')",
        "el.style.setProperty('background', `${'u'}rl(/a.png)`)",
        "el.style.setProperty('background', 'u\\\\72 l(/a.png)')",
        "el.style.setProperty('background', `@${'import'} '/a.css'`)",
    ] {
        assert_eq!(page(code).count, Count::One, "{code}");
    }
    // Text with none of them loads nothing, whatever builds it.
    let a = page("const k = 'tr'; el.querySelector(k + ' td', 3, `#${k}`)");
    assert_eq!(a.count, Count::Zero);
}

#[test]
fn script_columns_count_characters_not_bytes() {
    let a = page("const s = 'é€'; fetch(s)");
    assert_eq!(a.requests, vec![found("`fetch`", 1, 17)]);
}

#[test]
fn script_parse_errors_point_into_the_users_code() {
    let e = analyse("const a = 1;\nconst b = (;", Env::Page).unwrap_err();
    assert_eq!((e.line, e.column), (2, 12));
    assert!(!e.message.is_empty());
}

#[test]
fn script_code_that_closes_the_function_it_runs_in_does_not_parse() {
    let e = analyse("}); fetch(a); (async function () {", Env::Page).unwrap_err();
    assert_eq!(e.line, 1);
}

#[test]
fn script_a_lone_function_is_called_once() {
    assert_eq!(page("function () { return fetch('/a') }").count, Count::One);
    assert_eq!(page("async () => { await fetch('/a') }").count, Count::One);
    assert_eq!(page("function named() { fetch('/a') }").count, Count::One);
    assert_eq!(page("() => document.title").count, Count::Zero);
}

#[test]
fn script_a_lone_functions_arguments_are_page_elements() {
    assert_eq!(page("(el) => el.click()").count, Count::One);
}

#[test]
fn script_playwright_actions_count_only_on_the_server() {
    assert_eq!(
        server("async (page) => { await page.goto(u) }").count,
        Count::One
    );
    assert_eq!(server("await page.goto(u)").count, Count::One);
    // In the page `page` is no Playwright object: a global of the page's,
    // whose `goto` the model does not know (a possible request, so named).
    let a = page("await page.goto(u)");
    assert_eq!(a.count, Count::One);
    assert_eq!(
        a.requests,
        vec![found(
            "a call of `goto`, a function the model does not know",
            1,
            7
        )]
    );
}

#[test]
fn script_playwright_evaluate_runs_its_function_in_the_page() {
    let a = server("async (page) => page.evaluate(() => { fetch(a); fetch(b) })");
    assert!(matches!(a.count, Count::Many { .. }));
    let a = server("async (page) => page.evaluate('navigator.sendBeacon(u)')");
    assert_eq!(a.count, Count::One);
    assert_eq!(
        a.requests[0].what,
        "`navigator.sendBeacon` in the code passed to `evaluate` at 1:17"
    );
}

#[test]
fn script_urls_are_named_once_and_unknown_hosts_say_where() {
    let a = page(
        "await fetch('https://other.org/a');\nawait fetch('https://other.org/a');\nfetch(`https://${h}/x`)",
    );
    assert_eq!(a.urls, vec!["https://other.org/a"]);
    assert_eq!(a.unknown_hosts, vec![found("`https://${…}/x`", 3, 7)]);
}

#[test]
fn script_urls_fold_literals_and_constants() {
    let a = page("const base = 'https://api.' + 'other.org';\nawait fetch(`${base}/v1`)");
    assert_eq!(
        a.urls,
        vec!["https://api.other.org", "https://api.other.org/v1"]
    );
}

#[test]
fn script_an_alias_assigned_after_its_use_still_counts() {
    // The walk repeats until values settle, so order does not hide an alias.
    let a = page("let f = () => 0;\nfunction go() { f(a); f(b) }\nf = fetch;\ngo()");
    assert!(matches!(a.count, Count::Many { .. }));
}

#[test]
fn script_strings_nested_in_evaluate_that_do_not_parse_are_opaque() {
    let a = server("async (page) => page.evaluate('fetch(')");
    assert_eq!(a.opaque.len(), 1);
    assert!(a.opaque[0].what.starts_with("code that does not parse"));
}

#[test]
fn script_html_comments_hide_code_as_the_browser_does() {
    assert_eq!(page("x = 1 <!-- fetch(a)\nfetch(b)").count, Count::One);
}

/// Makes code nested `n` levels deep.
type Nest = Box<dyn Fn(usize) -> String>;

/// Code nested in each way the parser and the walk recurse on.
fn deep_shapes() -> Vec<(&'static str, Nest)> {
    vec![
        (
            "parens",
            Box::new(|n| format!("{}1{}", "(".repeat(n), ")".repeat(n))),
        ),
        ("chain", Box::new(|n| format!("x = 1{}", "+1".repeat(n)))),
        (
            "arrays",
            Box::new(|n| format!("{}{}", "[".repeat(n), "]".repeat(n))),
        ),
        (
            "blocks",
            Box::new(|n| format!("{}{}", "{".repeat(n), "}".repeat(n))),
        ),
        (
            "calls",
            Box::new(|n| format!("{}x{}", "f(".repeat(n), ")".repeat(n))),
        ),
        ("unary", Box::new(|n| format!("{}x", "!".repeat(n)))),
        ("members", Box::new(|n| format!("x{}", ".a".repeat(n)))),
        ("arrows", Box::new(|n| format!("{}0", "a=>".repeat(n)))),
        ("ternary", Box::new(|n| format!("{}0", "a?b:".repeat(n)))),
        ("assign", Box::new(|n| format!("{}0", "a=".repeat(n)))),
        (
            "template",
            Box::new(|n| format!("{}{}", "`${".repeat(n), "}`".repeat(n))),
        ),
        ("ifs", Box::new(|n| format!("{}x", "if(a)".repeat(n)))),
        ("calls2", Box::new(|n| format!("f{}", "()".repeat(n)))),
        (
            "fns",
            Box::new(|n| format!("{}{}", "function f(){".repeat(n), "}".repeat(n))),
        ),
        (
            "calls.call",
            Box::new(|n| format!("f{}(x)", ".call".repeat(n))),
        ),
    ]
}

#[test]
fn script_deep_nesting_does_not_overflow_the_stack() {
    // A stack overflow aborts the hook with a code that lets the call
    // through; every shape must come back, parsed or not.
    for (name, make) in deep_shapes() {
        let code = make(8_000);
        // Coming back at all is the test.
        let outcome = analyse(&code, Env::Page).map(|a| a.count);
        eprintln!("{name}: {outcome:?}");
    }
}

#[test]
fn script_longer_than_the_limit_is_refused() {
    let code = "x;".repeat(MAX_CODE);
    let e = analyse(&code, Env::Page).unwrap_err();
    assert!(e.message.contains("KiB"), "{e:?}");
}

/// Measures the stack each shape needs per byte of input (the numbers
/// behind `STACK_PER_BYTE`): `cargo test [--release] --lib script_deep_probe
/// -- --ignored --nocapture`.
#[test]
#[ignore]
fn script_deep_probe() {
    let stack = 16 << 20;
    for (name, make) in &deep_shapes() {
        let (mut lo, mut hi) = (1usize, 200_000usize);
        while lo + 1 < hi {
            let mid = (lo + hi) / 2;
            let code = make(mid);
            let file = std::env::temp_dir().join("pace-hook-deep-probe.js");
            std::fs::write(&file, &code).unwrap();
            let ok = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--ignored",
                    "--exact",
                    "script::tests::script_deep_child",
                    "--nocapture",
                ])
                .env("DEEP_CODE", &file)
                .env("DEEP_STACK", stack.to_string())
                .output()
                .unwrap()
                .status
                .success();
            if ok { lo = mid } else { hi = mid }
        }
        let len = make(lo).len();
        eprintln!(
            "{name}: {lo} levels, {len} bytes fit in {stack} bytes: {} stack bytes per input byte",
            stack / len
        );
    }
}

#[test]
#[ignore]
fn script_deep_child() {
    let code = std::fs::read_to_string(std::env::var("DEEP_CODE").unwrap()).unwrap();
    let stack: usize = std::env::var("DEEP_STACK").unwrap().parse().unwrap();
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            let _ = analyse_nested(&code, Env::Page, 0);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn script_a_variable_given_more_strings_than_a_set_keeps_still_settles() {
    // Past 16 strings a set holds "unknown" for them; the next round's
    // strings used to regrow it, so it never settled and the script was
    // blocked as code the analysis could not follow.
    let mut code = String::from("let x;\n");
    for i in 0..40 {
        code.push_str(&format!("x = 'https://a{i}.test/';\n"));
    }
    code.push_str("await fetch(x);\n");
    let a = page(&code);
    assert!(a.opaque.is_empty(), "{:?}", a.opaque);
    assert_eq!(a.count, Count::One);
    // Every site the strings name still counts.
    assert_eq!(a.urls.len(), 40, "{:?}", a.urls);
    assert!(a.urls.contains(&"https://a39.test/".to_owned()));
}

/// How many rounds the walk of `code` (in the page) took, and what it found.
fn rounds(code: &str) -> (usize, Analysis) {
    let a = page(code);
    (walk::ROUNDS.get(), a)
}

#[test]
fn script_walk_stops_after_a_round_that_read_every_value_in_its_final_state() {
    // Nothing read before it was written: one round.
    let (n, a) = rounds(
        "const r = await fetch('/a'); const j = await r.json(); return j.items.map(i => i.name)",
    );
    assert_eq!((n, a.count), (1, Count::One));
    // A declared function's body is walked at its first call, with the
    // call's arguments: one round.
    let (n, a) = rounds("function f(u) { location.href = u } f('https://a.test/')");
    assert_eq!((n, a.count, a.unknown_hosts), (1, Count::One, vec![]));
    // The second call gives `u` a value the body has not read: two rounds.
    let (n, a) = rounds("function f(u) { location.href = u } f('https://a.test/'); f(x)");
    assert_eq!(n, 2);
    assert!(matches!(a.count, Count::Many { .. }), "{:?}", a.count);
    // `h` reads `g` before `g` is assigned: the second round sees the
    // request, and both calls of `h` count.
    let (n, a) = rounds("let g; const h = () => g('/a'); g = fetch; h(); h()");
    assert_eq!(n, 2);
    assert!(matches!(a.count, Count::Many { .. }), "{:?}", a.count);
}

#[test]
fn script_urls_inside_an_operand_of_a_concatenation_count() {
    // Only the parts that make up the string are checked as a whole; the
    // strings inside a call, a function or a conditional used as an
    // operand are URLs of their own. These used to name no site.
    for code in [
        "const s = 'a' + (() => { fetch('https://other.org/x'); return 1 })();",
        "const s = `a${(() => { fetch('https://other.org/x'); return 1 })()}`;",
        "const s = 'a' + await fetch('https://other.org/x').then(r => r.text());",
        "const s = `${await (await fetch('https://other.org/x')).text()}!`;",
        "const s = 'p' + (c ? 'https://other.org/x' : '');",
    ] {
        let a = page(code);
        assert_eq!(
            a.urls,
            vec!["https://other.org/x".to_owned()],
            "{code}: {a:?}"
        );
    }
    // The whole string still counts once, and its parts do not.
    let a = page("const u = 'https://' + 'other.org' + '/x'; await fetch(u)");
    assert_eq!(a.urls, vec!["https://other.org/x".to_owned()]);
}

#[test]
fn script_a_function_walked_at_its_call_still_reads_the_names_around_its_declaration() {
    // `f` is walked at the first call, inside a block whose `go` is
    // `fetch`; its own `go` is the one beside it, which starts nothing.
    let a = page("const go = () => 0;\nfunction f() { go('/a') }\n{ const go = fetch; f(); f(); }");
    assert_eq!(a.count, Count::Zero, "{a:?}");
    // And the other way round.
    let a = page("const go = fetch;\nfunction f() { go('/a') }\n{ const go = () => 0; f(); }");
    assert_eq!(a.count, Count::One, "{a:?}");
    // Recursion still counts as many.
    let a = page("function f(n) { if (n) f(n - 1); fetch('/a') }\nf(3)");
    assert!(matches!(a.count, Count::Many { .. }), "{a:?}");
}

#[test]
fn script_strings_the_walk_does_not_follow_as_urls_still_name_their_sites() {
    // Keys, tagged templates, and strings holding a URL inside other text:
    // each used to name no site.
    for code in [
        "const m = {'https://other.org/x': 1}; await fetch(Object.keys(m)[0])",
        "class A { 'https://other.org/x'() {} }; await fetch(Object.getOwnPropertyNames(A.prototype)[1])",
        "const { 'https://other.org/x': u } = m; await fetch(u)",
        "await fetch(String.raw`https://other.org/x`)",
        "await fetch(String.raw`https:\\/\\/other.org/x`)",
        "await fetch(tag`https://other.org/${p}`)",
        "await fetch(JSON.parse('\"https://other.org/x\"'))",
        "await fetch(JSON.parse(`{\"u\": \"https://other.org/x\"}`).u)",
        "await fetch(decodeURIComponent('https%3A%2F%2Fother.org%2Fx'))",
        "await fetch('see https://other.org/x'.split(' ')[1])",
    ] {
        let a = page(code);
        assert!(
            a.urls.iter().any(|u| u.contains("other.org")),
            "{code}: {a:?}"
        );
    }
    // A string that is itself a URL is named once, as written.
    let a = page("await fetch('https://other.org/x')");
    assert_eq!(a.urls, vec!["https://other.org/x".to_owned()]);
}

#[test]
fn script_walk_reruns_for_a_stored_page_method_only_where_an_answer_changes() {
    // Page data kept in the script's objects, and members of them read
    // after: no answer given was "no" and then "yes", so one round (the
    // shape of the bench's 10 KB and 100 KB scripts).
    let (n, a) = rounds(
        "function c(root) { const rows = [...root.querySelectorAll('tr')].map(tr => ({ link: tr.querySelector('a')?.href })); \
         const byKey = {}; for (const row of rows) byKey[row.link] = (byKey[row.link] || []).concat(row); return byKey } \
         c(document.body)",
    );
    assert_eq!((n, a.count), (1, Count::Zero));
    // A member read before a page's method is stored under its name: the
    // read's "no" turns "yes", and a second round counts both calls.
    let (n, a) = rounds("const o = {}; function go() { o.f(); o.f() } go(); o.f = window.loadMore");
    assert_eq!(n, 2);
    assert!(matches!(a.count, Count::Many { .. }), "{:?}", a.count);
    // Under another name it does not: one round, nothing counted.
    let (n, a) = rounds("const o = {}; function go() { o.g(); o.g() } go(); o.f = window.loadMore");
    assert_eq!((n, a.count), (1, Count::Zero));
}
