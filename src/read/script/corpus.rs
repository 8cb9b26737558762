//! The table of scripts in `tests/fixtures/scripts.toml` and what the
//! analysis must say about each: the proof that the rules hold together,
//! and the record of every trick tried against them.

use serde::Deserialize;

use super::{Count, Env, analyse};
use crate::read::site;

#[derive(Deserialize)]
struct Corpus {
    script: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    code: String,
    #[serde(default)]
    env: Option<String>,
    outcome: String,
    count: String,
    #[serde(default)]
    sites: Vec<String>,
}

/// What the analysis says about `code`, in the table's terms.
fn judge(code: &str, env: Env) -> (String, String, Vec<String>) {
    let a = match analyse(code, env) {
        Ok(a) => a,
        Err(_) => return ("block".into(), "parse-error".into(), Vec::new()),
    };
    let count = if !a.opaque.is_empty() {
        "opaque"
    } else {
        match a.count {
            Count::Zero => "zero",
            Count::One => "one",
            Count::Many { .. } => "many",
        }
    };
    let outcome = if matches!(count, "zero" | "one") {
        "pace"
    } else {
        "block"
    };
    let mut sites: Vec<String> = a.urls.iter().filter_map(|u| site::host_of_url(u)).collect();
    if !a.unknown_hosts.is_empty() {
        sites.push("*".into());
    }
    sites.sort();
    sites.dedup();
    (outcome.into(), count.into(), sites)
}

/// One row to judge: its name, code, where it runs, and what the table
/// records (outcome, count, sites).
type Row = (String, String, Env, (String, String, Vec<String>));

/// Every row judged as recorded, or the list of those that are not.
fn assert_judged(table: &str, rows: &[Row]) {
    let mut wrong = Vec::new();
    for (name, code, env, expected) in rows {
        let mut expected = expected.clone();
        expected.2.sort();
        let got = judge(code, *env);
        if got != expected {
            wrong.push(format!(
                "{name} ({env:?})\n  code: {code}\n  expected {expected:?}\n  got      {got:?}\n  analysis {:?}",
                analyse(code, *env)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} rows of {table} wrong:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("the table is readable")
}

#[test]
fn script_corpus_every_case_is_judged_as_recorded() {
    let corpus: Corpus = toml::from_str(&fixture("scripts.toml")).expect("the corpus parses");
    let rows: Vec<Row> = corpus
        .script
        .into_iter()
        .map(|case| {
            let env = match case.env.as_deref() {
                None | Some("page") => Env::Page,
                Some("playwright-server") => Env::PlaywrightServer,
                Some(other) => panic!("{}: unknown env {other}", case.name),
            };
            (
                case.name,
                case.code,
                env,
                (case.outcome, case.count, case.sites),
            )
        })
        .collect();
    assert_judged("scripts.toml", &rows);
}

/// A row of `tests/fixtures/ordinary.toml`: a script an agent would send,
/// by the tool it would send it with.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Ordinary {
    name: String,
    tool: String,
    code: String,
    outcome: String,
    count: String,
    #[serde(default)]
    sites: Vec<String>,
    /// The element `(element) => …` is called with, in the Chromium test.
    #[serde(default, rename = "target")]
    _target: Option<String>,
    /// The elements a DevTools function is called with, there.
    #[serde(default, rename = "args")]
    _args: Vec<String>,
}

#[derive(Deserialize)]
struct OrdinaryCorpus {
    script: Vec<Ordinary>,
}

/// Where each script tool's code runs.
fn env_of_tool(tool: &str) -> Env {
    match tool {
        "javascript_tool" | "browser_evaluate" | "evaluate_script" => Env::Page,
        "browser_run_code" => Env::PlaywrightServer,
        other => panic!("unknown tool {other}"),
    }
}

#[test]
fn script_ordinary_corpus_every_row_is_paced_as_recorded() {
    let corpus: OrdinaryCorpus =
        toml::from_str(&fixture("ordinary.toml")).expect("the ordinary corpus parses");
    assert!(corpus.script.len() >= 120, "{} rows", corpus.script.len());
    let rows: Vec<Row> = corpus
        .script
        .into_iter()
        .map(|case| {
            assert_eq!(
                case.outcome, "pace",
                "{}: every ordinary row is paced",
                case.name
            );
            assert!(
                matches!(case.count.as_str(), "zero" | "one"),
                "{}",
                case.name
            );
            let env = env_of_tool(&case.tool);
            (
                case.name,
                case.code,
                env,
                (case.outcome, case.count, case.sites),
            )
        })
        .collect();
    assert_judged("ordinary.toml", &rows);
}
