//! Properties of the analysis over generated scripts. `PROPTEST_CASES` sets
//! the number of cases (proptest's default, 256, runs in a few seconds).

use proptest::prelude::*;

use super::{Count, Env, analyse};

/// Code around which a sink is placed; each runs what `S` stands for at
/// least once whenever the script runs.
pub(super) const WRAPPERS: &[&str] = &[
    "{ S }",
    "if (c) { S } else { other(); }",
    "if (c) { other(); } else { S }",
    "for (const v of list) { S }",
    "while (n--) { S }",
    "do { S } while (more());",
    "try { S } catch (e) { console.warn(e); }",
    "try { other(); } finally { S }",
    "(() => { S })();",
    "(async function () { S })();",
    "function helper(p) { S } helper(1);",
    "const h = async () => { S }; h();",
    "list.forEach(v => { S });",
    "switch (k) { case 1: S break; default: other(); }",
    "lbl_D: { S }",
    "c ? (() => { S })() : 0;",
    "new Promise(r => { S r(); });",
    "Promise.resolve().then(() => { S });",
    "class K { static { S } }",
    "el.addEventListener('click', () => { S });",
    "setTimeout(() => { S }, 0);",
];

/// Statements that start no request.
const FILLERS: &[&str] = &[
    "let a = 1;",
    "const o = { k: 'v', n: [1, 2] };",
    "console.log(document.title);",
    "const t = [1, 2].map(x => x * 2);",
    "var q = 'https://other.org/x';",
    "function unused() { return 1 }",
    "if (a) { a++ }",
    "const rows = [...document.querySelectorAll('tr')].map(r => r.textContent);",
    "for (const k in o) { console.log(k) }",
    "/* fetch(x) */ const s = 'fetch(y)';",
];

/// Places that start a request.
pub(super) const SINKS: &[&str] = &[
    "fetch(u);",
    "fetch('/api').then(r => r.json());",
    "window.fetch(u);",
    "globalThis['fetch'](u);",
    "navigator.sendBeacon(u, d);",
    "location.href = u;",
    "new Image().src = u;",
    "const x = new XMLHttpRequest(); x.open('GET', u); x.send();",
    "document.querySelector('a').click();",
    "document.forms[0].submit();",
    "new WebSocket('wss://other.org');",
    "import('https://cdn.other.org/m.js');",
    "const f = fetch; f(u);",
    "el.innerHTML = '<img src=a>';",
    "history.back();",
    "axios.get(u);",
    "$.getJSON(u);",
    "window.open(u);",
];

pub(super) fn script() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(0..FILLERS.len(), 0..4),
        prop::collection::vec(0..WRAPPERS.len(), 0..4),
        0..SINKS.len(),
        prop::collection::vec(0..FILLERS.len(), 0..4),
    )
        .prop_map(|(before, wrappers, sink, after)| {
            let mut s = SINKS[sink].to_owned();
            for (depth, w) in wrappers.into_iter().enumerate() {
                let wrapper = WRAPPERS[w].replace('D', &depth.to_string());
                s = wrapper.replace('S', &s);
            }
            // Each filler once: `const o` twice would not parse.
            let mut fillers: Vec<usize> = before.iter().chain(&after).copied().collect();
            fillers.sort_unstable();
            fillers.dedup();
            let split = fillers.len() / 2;
            let mut code: Vec<&str> = fillers[..split].iter().map(|&i| FILLERS[i]).collect();
            code.push(&s);
            code.extend(fillers[split..].iter().map(|&i| FILLERS[i]));
            code.join("\n")
        })
}

proptest! {
    #[test]
    fn script_props_analysis_never_panics_on_any_text(code in any::<String>()) {
        let _ = analyse(&code, Env::Page);
        let _ = analyse(&code, Env::PlaywrightServer);
    }

    #[test]
    fn script_props_analysis_never_panics_on_script_like_text(
        code in "[a-z(){}\\[\\];.,=+'`$ \\n/*<>!-]{0,80}"
    ) {
        let _ = analyse(&code, Env::Page);
    }

    #[test]
    fn script_props_a_script_with_a_sink_is_never_counted_as_nothing(code in script()) {
        match analyse(&code, Env::Page) {
            Err(e) => panic!("generated code does not parse: {e:?}\n{code}"),
            Ok(a) => prop_assert!(
                a.count != Count::Zero || !a.opaque.is_empty(),
                "counted as no request:\n{code}\n{a:?}"
            ),
        }
    }
}
