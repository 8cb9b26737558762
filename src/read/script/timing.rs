//! How long the analysis takes on realistic scripts. Not a pass/fail test:
//! run `cargo test --release --lib script_timing -- --ignored --nocapture`
//! and read the medians (the goal is at most 1 ms for 10 KB).

use std::time::Instant;

use super::{Analysis, Env, ParseFailure, analyse, analyse_nested};

/// A script of about `size` bytes in the shape agents write: helpers that
/// scrape the page, objects, templates, a loop or two, and one fetch.
pub(super) fn realistic(size: usize) -> String {
    let mut code = String::from(
        "const r = await fetch('https://api.example.com/v1/items?page=1', { credentials: 'include' });\nconst data = await r.json();\n",
    );
    let mut i = 0;
    while code.len() < size {
        code.push_str(&format!(
            r#"// section {i}: the rows of table {i}
function collect{i}(root) {{
  const rows = [...root.querySelectorAll('tr')].map((tr, n) => {{
    const cells = [...tr.querySelectorAll('td')].map(td => td.textContent.trim());
    return {{ n, id: `row-{i}-${{n}}`, cells, link: tr.querySelector('a')?.href ?? null }};
  }});
  const byKey = {{}};
  for (const row of rows) {{
    if (!row.cells.length) continue;
    const key = row.cells[0].toLowerCase().replace(/\s+/g, '-');
    byKey[key] = (byKey[key] || []).concat(row);
  }}
  return {{ rows, byKey, total: rows.length }};
}}
const summary{i} = collect{i}(document.querySelector('#t{i}') || document.body);
const labels{i} = Object.keys(summary{i}.byKey).sort((a, b) => a.localeCompare(b));
if (labels{i}.length > 3 && summary{i}.total % 2 === 0) {{
  console.log('section {i}', labels{i}.slice(0, 3).join(', '), data.items?.length);
}} else {{
  console.debug({{ section: {i}, empty: true }});
}}
"#
        ));
        i += 1;
    }
    code.push_str("return { data, sections: ");
    code.push_str(&i.to_string());
    code.push_str(" };\n");
    code
}

fn median(code: &str, runs: usize, how: impl Fn(&str) -> Result<Analysis, ParseFailure>) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let a = how(code).expect("the script parses");
            std::hint::black_box(a);
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

#[test]
#[ignore]
fn script_timing_medians() {
    for (size, runs) in [(10_000, 201), (100_000, 51)] {
        let code = realistic(size);
        let a = analyse(&code, Env::Page).expect("the script parses");
        assert!(a.opaque.is_empty(), "{:?}", a.opaque);
        // Interleaved, so a busy machine slows both alike.
        let mut mapped = Vec::new();
        let mut inline = Vec::new();
        for _ in 0..5 {
            mapped.push(median(&code, runs, |c| analyse(c, Env::Page)));
            inline.push(median(&code, runs, |c| analyse_nested(c, Env::Page, 0)));
        }
        mapped.sort_by(f64::total_cmp);
        inline.sort_by(f64::total_cmp);
        println!(
            "analyse, {} bytes: median {:.3} ms over 5 × {runs} runs ({:.3} ms of it on the calling thread's stack, without mapping one)",
            code.len(),
            mapped[2],
            inline[2]
        );
    }
}
