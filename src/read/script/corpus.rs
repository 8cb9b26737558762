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

#[test]
fn script_corpus_every_case_is_judged_as_recorded() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/scripts.toml"
    ))
    .expect("the corpus is readable");
    let corpus: Corpus = toml::from_str(&text).expect("the corpus parses");
    let mut wrong = Vec::new();
    for case in &corpus.script {
        let env = match case.env.as_deref() {
            None | Some("page") => Env::Page,
            Some("playwright-server") => Env::PlaywrightServer,
            Some(other) => panic!("{}: unknown env {other}", case.name),
        };
        let mut expected_sites = case.sites.clone();
        expected_sites.sort();
        let got = judge(&case.code, env);
        let expected = (case.outcome.clone(), case.count.clone(), expected_sites);
        if got != expected {
            wrong.push(format!(
                "{}\n  code: {}\n  expected {:?}\n  got      {:?}\n  analysis {:?}",
                case.name,
                case.code,
                expected,
                got,
                analyse(&case.code, env)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases wrong:\n{}",
        wrong.len(),
        corpus.script.len(),
        wrong.join("\n")
    );
}
