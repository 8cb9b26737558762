//! What pace-hook lets through as one request makes at most one, in a real
//! browser: every row of `tests/fixtures/ordinary.toml` and the rows of
//! `tests/fixtures/scripts.toml` it paces are each sent to the built binary
//! as its tool's PreToolUse event (it must pace them), then run the way that
//! tool runs them, in Debian's headless Chromium, against a shop page on
//! loopback whose server counts every request (`tests/e2e/chromium/run.mjs`).
//! A row whose count is zero must make none; one, at most one. Two rows that
//! make two requests, which pace-hook blocks, show the counting sees them.
//!
//! Never skipped: with no Chromium, Node or the e2e suite's npm packages
//! (`scripts/e2e --install`, which `scripts/test` runs first), it fails
//! saying what is missing.

mod common;
use common::*;

use serde::Deserialize;

#[derive(Deserialize)]
struct Table {
    script: Vec<Row>,
}

#[derive(Deserialize)]
struct Row {
    name: String,
    code: String,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    env: Option<String>,
    outcome: String,
    count: String,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    args: Vec<String>,
}

/// A script to run, with the most requests it may make.
struct Case {
    name: String,
    tool: String,
    code: String,
    target: Option<String>,
    args: Vec<String>,
    most: usize,
}

fn table(name: &str) -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let t: Table = toml::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    t.script
}

fn most(count: &str) -> usize {
    match count {
        "zero" => 0,
        "one" => 1,
        other => panic!("a paced row counts zero or one, not {other}"),
    }
}

/// The PreToolUse event of `tool` sending `code`, as its server's tool.
fn event(tool: &str, code: &str, id: usize) -> Value {
    let (name, input) = match tool {
        "javascript_tool" => (
            "mcp__claude-in-chrome__javascript_tool",
            json!({"action": "javascript_exec", "text": code, "tabId": 1}),
        ),
        "browser_evaluate" => (
            "mcp__playwright__browser_evaluate",
            json!({"function": code}),
        ),
        "evaluate_script" => (
            "mcp__chrome-devtools__evaluate_script",
            json!({"function": code}),
        ),
        "browser_run_code" => (
            "mcp__playwright__browser_run_code_unsafe",
            json!({"code": code}),
        ),
        other => panic!("unknown tool {other}"),
    };
    let mut e = with_id(
        fixture("PreToolUse.javascript_tool"),
        &format!("chromium-{id}"),
    );
    e["tool_name"] = json!(name);
    e["tool_input"] = input;
    e.as_object_mut().unwrap().remove("mcp_server");
    e
}

/// Whether the binary paces `tool`'s call of `code` (exit 0) or blocks it.
fn paced(tool: &str, code: &str, id: usize) -> (bool, String) {
    let gate = Gate::new("");
    let out = gate.run(&event(tool, code, id));
    (code_of(&out) == 0, stderr(&out))
}

fn code_of(o: &Output) -> i32 {
    common::code(o)
}

/// A lone function (`() => …`, `async (page) => …`, `function () …`): a
/// page row of scripts.toml written so is sent as browser_evaluate's
/// function, a body as javascript_tool's text.
fn looks_like_function(code: &str) -> bool {
    let c = code.trim_start();
    c.starts_with("function") || c.starts_with("async") || (c.starts_with('(') && c.contains("=>"))
}

/// What the run needs, or why it cannot run.
fn prerequisites(repo: &Path) -> Result<(), String> {
    let chromium =
        std::env::var("PACE_HOOK_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        return Err(format!(
            "{chromium} is missing: install Debian's chromium (scripts/e2e --install)"
        ));
    }
    if Command::new("node").arg("--version").output().is_err() {
        return Err("node is missing".into());
    }
    for m in ["playwright-core", "jquery"] {
        if !repo.join("tests/e2e/node_modules").join(m).exists() {
            return Err(format!(
                "tests/e2e/node_modules/{m} is missing: run scripts/e2e --install"
            ));
        }
    }
    Ok(())
}

#[test]
fn chromium_what_pace_hook_paces_makes_at_most_the_requests_it_counts() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Err(why) = prerequisites(repo) {
        panic!("the Chromium test cannot run: {why}");
    }
    let mut cases = Vec::new();
    for r in table("ordinary.toml") {
        assert_eq!(r.outcome, "pace", "{}", r.name);
        cases.push(Case {
            tool: r.tool.clone().expect("an ordinary row names its tool"),
            most: most(&r.count),
            name: format!("ordinary: {}", r.name),
            code: r.code,
            target: r.target,
            args: r.args,
        });
    }
    let ordinary = cases.len();
    // Every other paced row of scripts.toml.
    let paced_rows = table("scripts.toml")
        .into_iter()
        .filter(|r| r.outcome == "pace");
    for r in paced_rows.step_by(2) {
        cases.push(Case {
            tool: match r.env.as_deref() {
                Some("playwright-server") => "browser_run_code".into(),
                _ if looks_like_function(&r.code) => "browser_evaluate".into(),
                _ => "javascript_tool".into(),
            },
            most: most(&r.count),
            name: format!("scripts.toml: {}", r.name),
            code: r.code,
            target: None,
            args: Vec::new(),
        });
    }
    let sample = cases.len() - ordinary;
    // The counting sees requests: two of each kind, which pace-hook blocks.
    let controls = [
        (
            "javascript_tool",
            "await fetch('/api/a'); await fetch('/api/b')",
        ),
        (
            "browser_run_code",
            "async (page) => { await page.goto('http://shop.test/x'); await page.goto('http://shop.test/y') }",
        ),
    ];
    for (tool, code) in controls {
        cases.push(Case {
            name: format!("control: {code}"),
            tool: tool.into(),
            code: code.into(),
            target: None,
            args: Vec::new(),
            most: 2,
        });
    }

    // pace-hook's verdict on each, from the built binary.
    let mut wrong = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let (is_paced, err) = paced(&c.tool, &c.code, i);
        let control = c.name.starts_with("control");
        if is_paced == control {
            wrong.push(format!(
                "{}: pace-hook {}: {err}",
                c.name,
                if is_paced { "paced it" } else { "blocked it" }
            ));
        }
        // The runner leaves Chromium's own services out of the count.
        for host in ["google.com", "googleapis.com", "gstatic.com"] {
            assert!(
                !c.code.contains(host),
                "{}: names {host}, which the runner does not count",
                c.name
            );
        }
    }
    assert!(
        wrong.is_empty(),
        "{} verdicts wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );

    // Their requests, from Chromium.
    let input: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| json!({"id": i, "tool": c.tool, "code": c.code, "target": c.target, "args": c.args}))
        .collect();
    let file = std::env::temp_dir().join(format!(
        "pace-hook-chromium-cases-{}.json",
        std::process::id()
    ));
    fs::write(&file, serde_json::to_vec(&input).unwrap()).unwrap();
    let child = Command::new("node")
        .arg(repo.join("tests/e2e/chromium/run.mjs"))
        .arg(&file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let out = finish(child, Duration::from_secs(600));
    let _ = fs::remove_file(&file);
    assert!(out.status.success(), "the runner failed: {}", stderr(&out));
    let results: Vec<Value> = serde_json::from_slice(&out.stdout).expect("the runner's results");
    assert_eq!(results.len(), cases.len(), "every case ran");
    for r in &results {
        let c = &cases[r["id"].as_u64().unwrap() as usize];
        let list = |key: &str| -> Vec<String> {
            r[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_owned())
                .collect()
        };
        // What the site saw, less a reloaded page's own loads (the runner
        // says which): a navigation is one request.
        let arrivals = list("counted");
        let all = list("arrivals");
        if r["loaded"] != true {
            wrong.push(format!(
                "{}: the page did not load ({})",
                c.name, r["error"]
            ));
        } else if c.name.starts_with("control") {
            if arrivals.len() < 2 {
                wrong.push(format!(
                    "{}: two requests, but the site saw {arrivals:?}",
                    c.name
                ));
            }
        } else if arrivals.len() > c.most {
            wrong.push(format!(
                "{} ({}): pace-hook counts at most {}, the site saw {}: {all:?} (error: {})\n  code: {}",
                c.name, c.tool, c.most, arrivals.len(), r["error"], c.code
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases ({ordinary} ordinary, {sample} from scripts.toml) wrong in Chromium:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}
