//! The table of shell commands in `tests/fixtures/shell.toml` and what the
//! `Bash` profile must say about each: the fast path, the walk and the
//! verdict together, and the record of every trick tried against them.

use serde::Deserialize;
use serde_json::json;

use crate::read::profile::{Target, Verdict};

#[derive(Deserialize)]
struct Corpus {
    command: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    run: String,
    #[serde(default)]
    background: bool,
    outcome: String,
    #[serde(default)]
    sites: Vec<String>,
    #[serde(default)]
    why: Option<String>,
}

/// The registrable-domain key of a URL as the gate keys it, or `*`.
fn site_of(url: &str) -> String {
    crate::read::site::host_of_url(url)
        .map_or_else(|| "*".to_owned(), |h| crate::read::site::key_for_host(&h))
}

/// What the profile says about `run`, in the table's terms: the outcome, the
/// sites of a paced call, the reason of a block.
fn judge(run: &str, background: bool) -> (String, Vec<String>, String) {
    let input = json!({"command": run, "description": "d", "run_in_background": background});
    let verdict = crate::read::profile::classify(
        "Bash",
        input.as_object().expect("an object"),
        Some("s"),
        || Ok(&[]),
    )
    .expect("classifies");
    match verdict {
        Verdict::NotOurs => ("pass".into(), Vec::new(), String::new()),
        Verdict::Skip { .. } => ("skip".into(), Vec::new(), String::new()),
        Verdict::Unseen { what } => ("unseen".into(), Vec::new(), what),
        Verdict::Block { why, .. } => ("block".into(), Vec::new(), why),
        Verdict::Pace { target, .. } => {
            let mut sites = match target {
                Target::Url { url, .. } => vec![site_of(&url)],
                Target::Sites { urls, any_site } => {
                    let mut s: Vec<String> = urls.iter().map(|u| site_of(u)).collect();
                    if any_site {
                        s.push("*".into());
                    }
                    s
                }
                Target::Unknown => vec!["*".into()],
                other => panic!("a shell command paced on {other:?}"),
            };
            sites.sort();
            sites.dedup();
            ("pace".into(), sites, String::new())
        }
        other => panic!("unexpected verdict {other:?}"),
    }
}

#[test]
fn shell_corpus_every_case_is_judged_as_recorded() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/shell.toml"
    ))
    .expect("the corpus is readable");
    let corpus: Corpus = toml::from_str(&text).expect("the corpus parses");
    let mut wrong = Vec::new();
    for case in &corpus.command {
        let (outcome, sites, why) = judge(&case.run, case.background);
        let mut expected_sites = case.sites.clone();
        expected_sites.sort();
        let why_ok = match (&case.why, outcome.as_str()) {
            (Some(w), _) => why.contains(w.as_str()),
            (None, "block") => false,
            (None, _) => true,
        };
        if outcome != case.outcome || sites != expected_sites || !why_ok {
            wrong.push(format!(
                "{}\n  run: {}\n  expected {} {:?} {:?}\n  got      {} {:?} {:?}",
                case.name, case.run, case.outcome, expected_sites, case.why, outcome, sites, why
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases wrong:\n{}",
        wrong.len(),
        corpus.command.len(),
        wrong.join("\n")
    );
}
