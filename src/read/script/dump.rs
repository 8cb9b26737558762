//! A differential check for changes that must not change what the analysis
//! says: every script of every corpus this checkout has, analysed in both
//! environments, each result printed in full. Not a pass/fail test: run
//!
//! ```sh
//! PACE_HOOK_SCRIPT_DUMP=before.txt cargo test --lib script_dump -- --ignored
//! ```
//!
//! before a change and again after it, and compare the two files byte for
//! byte. The scripts: the rows of `tests/fixtures/scripts.toml` and
//! `ordinary.toml`; every string in the input of every captured event
//! (with the table, what the fuzz target's seeds are made of); the
//! generated scripts of `props.rs`, every sink in every pair of wrappers
//! and a fixed sample of the proptest strategy; the benchmark's realistic
//! scripts and prefixes of the 10 KB one.

use std::{fmt::Write as _, path::Path};

use proptest::{
    strategy::{Strategy, ValueTree},
    test_runner::TestRunner,
};

use super::{Env, analyse, props, timing};

/// Every script to analyse, each with where it came from.
fn scripts() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for (corpus, file) in [("corpus", "scripts.toml"), ("ordinary", "ordinary.toml")] {
        let table: toml::Table = toml::from_str(
            &std::fs::read_to_string(root.join("tests/fixtures").join(file))
                .expect("the corpus is readable"),
        )
        .expect("the corpus parses");
        for (i, row) in table["script"].as_array().expect("rows").iter().enumerate() {
            out.push((
                format!("{corpus} {i}"),
                row["code"].as_str().expect("code").to_owned(),
            ));
        }
    }
    let mut events = Vec::new();
    for dir in [
        "tests/fixtures",
        "../shared/captured",
        "../../shared/captured",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if path.extension().is_some_and(|e| e == "json") {
                let name = path
                    .file_name()
                    .expect("a name")
                    .to_string_lossy()
                    .into_owned();
                events.push((name, std::fs::read(&path).expect("an event reads")));
            }
        }
    }
    for (name, bytes) in &events {
        let Ok(event) = serde_json::from_slice::<serde_json::Value>(bytes) else {
            continue;
        };
        let mut strings = Vec::new();
        collect_strings(&event["tool_input"], &mut strings);
        for (i, s) in strings.into_iter().enumerate() {
            out.push((format!("event {name} string {i}"), s));
        }
    }
    for (s, sink) in props::SINKS.iter().enumerate() {
        out.push((format!("sink {s}"), (*sink).to_owned()));
        for (a, outer) in props::WRAPPERS.iter().enumerate() {
            let once = outer.replace('D', "0").replace('S', sink);
            out.push((format!("sink {s} in {a}"), once.clone()));
            for (b, inner) in props::WRAPPERS.iter().enumerate() {
                let twice = inner.replace('D', "1").replace('S', &once);
                out.push((format!("sink {s} in {a} in {b}"), twice));
            }
        }
    }
    let mut runner = TestRunner::deterministic();
    let strategy = props::script();
    for i in 0..3000 {
        let code = strategy.new_tree(&mut runner).expect("a script").current();
        out.push((format!("generated {i}"), code));
    }
    for size in [10_000, 100_000] {
        out.push((format!("realistic {size}"), timing::realistic(size)));
    }
    let big = timing::realistic(10_000);
    let mut cut = 0;
    while cut < big.len() {
        if big.is_char_boundary(cut) {
            out.push((format!("realistic prefix {cut}"), big[..cut].to_owned()));
        }
        cut += 37;
    }
    out
}

fn collect_strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|v| collect_strings(v, out)),
        serde_json::Value::Object(o) => o.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

#[test]
#[ignore]
fn script_dump_every_corpus_result() {
    let Some(path) = std::env::var_os("PACE_HOOK_SCRIPT_DUMP") else {
        panic!("set PACE_HOOK_SCRIPT_DUMP to the file to write");
    };
    let mut text = String::new();
    let scripts = scripts();
    for (name, code) in &scripts {
        for env in [Env::Page, Env::PlaywrightServer] {
            let _ = writeln!(
                text,
                "== {name} ({env:?})\n{code}\n-> {:?}",
                analyse(code, env)
            );
        }
    }
    std::fs::write(&path, text).expect("the dump is written");
    println!("{} scripts, both environments", scripts.len());
}
