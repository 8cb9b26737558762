//! The settings edits as text in, text out: each layout a hand-kept file
//! can have, installed into and uninstalled from, byte for byte.

use super::*;

fn hook() -> Hook {
    Hook {
        matcher: crate::read::matcher::MATCHER.to_owned(),
        command: "/home/u/.cargo/bin/pace-hook".to_owned(),
        timeout: 300,
    }
}

/// Install, check the result holds pace-hook's three groups and everything
/// else, install again (no change), uninstall (the original, exactly).
fn round_trip(original: &str) -> String {
    let installed = install(original, &hook()).unwrap();
    assert!(installed.changed(), "{original:?}");
    let value: Value = parse(&Format::CLAUDE, &installed.text)
        .unwrap_or_else(|e| panic!("{e:?}: {}", installed.text))
        .unwrap();
    for event in EVENTS {
        let ours: Vec<_> = value["hooks"][event]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| owned(&Format::CLAUDE, g) == Owned::Ours)
            .collect();
        assert_eq!(ours.len(), 1, "{event} in {}", installed.text);
        assert_eq!(*ours[0], hook().group(&Format::CLAUDE).value());
    }
    let again = install(&installed.text, &hook()).unwrap();
    assert!(!again.changed());
    assert_eq!(again.changes, [Change::Unchanged; 3]);
    assert_eq!(again.text, installed.text);
    let removed = uninstall(&installed.text).unwrap();
    assert_eq!(removed.changes, [Change::Removed; 3]);
    assert_eq!(removed.text, original, "after install:\n{}", installed.text);
    installed.text
}

#[test]
fn an_empty_object_gets_the_hooks_as_claude_code_lays_settings_out() {
    let text = round_trip("{}\n");
    assert_eq!(
        text,
        r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "mcp__.*|WebFetch|WebSearch|^Bash$",
        "hooks": [
          {
            "type": "command",
            "command": "/home/u/.cargo/bin/pace-hook",
            "timeout": 300
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "mcp__.*|WebFetch|WebSearch|^Bash$",
        "hooks": [
          {
            "type": "command",
            "command": "/home/u/.cargo/bin/pace-hook",
            "timeout": 300
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "matcher": "mcp__.*|WebFetch|WebSearch|^Bash$",
        "hooks": [
          {
            "type": "command",
            "command": "/home/u/.cargo/bin/pace-hook",
            "timeout": 300
          }
        ]
      }
    ]
  }
}
"#
    );
}

#[test]
fn a_missing_file_is_made_and_uninstall_leaves_an_empty_object() {
    let made = install("", &hook()).unwrap();
    assert_eq!(made.changes, [Change::Added; 3]);
    assert_eq!(made.text, install("{}\n", &hook()).unwrap().text);
    assert_eq!(uninstall(&made.text).unwrap().text, "{}\n");
    // Nothing to remove from nothing.
    let none = uninstall("").unwrap();
    assert_eq!(none.changes, [Change::Absent; 3]);
    assert!(!none.changed());
}

#[test]
fn other_settings_keep_their_order_and_layout() {
    round_trip("{\n  \"model\": \"opus\",\n  \"permissions\": { \"allow\": [\"Bash(ls)\"] }\n}\n");
    round_trip("{\n    \"model\": \"opus\"\n}");
    round_trip("{}");
}

#[test]
fn tabs_stay_tabs() {
    let text = round_trip("{\n\t\"model\": \"opus\"\n}\n");
    assert!(text.contains("\n\t\"hooks\": {\n\t\t\"PreToolUse\": [\n\t\t\t{\n\t\t\t\t\"matcher\""));
    assert!(!text.contains("  "), "{text}");
}

#[test]
fn crlf_stays_crlf() {
    let text = round_trip("{\r\n  \"model\": \"opus\"\r\n}\r\n");
    assert!(!text.replace("\r\n", "").contains('\n'), "{text:?}");
}

#[test]
fn a_one_line_file_stays_on_one_line() {
    let text = round_trip(
        r#"{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}"#,
    );
    assert!(!text.contains('\n'), "{text}");
    assert!(text.contains(r#","PreToolUse":[{"matcher":"mcp__.*|WebFetch|WebSearch|^Bash$","hooks":[{"type":"command","command":"/home/u/.cargo/bin/pace-hook","timeout":300}]}]"#), "{text}");
    let spaced = round_trip(r#"{ "model": "opus" }"#);
    assert!(
        spaced.starts_with(r#"{ "model": "opus", "hooks": {"PreToolUse": [{"matcher": "#),
        "{spaced}"
    );
}

#[test]
fn other_hooks_in_the_same_events_stay_where_they_are() {
    let original = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "audit-bash" }]
      }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }],
    "PostToolUse": [ { "matcher": "Edit|Write", "hooks": [ { "type": "command", "command": "fmt" } ] } ]
  },
  "model": "opus"
}"#;
    let text = round_trip(original);
    // Appended after the user's group, in the list's own layout.
    assert!(
        text.contains(
            "\"command\": \"audit-bash\" }]\n      },\n      {\n        \"matcher\": \"mcp__"
        ),
        "{text}"
    );
    // An inline list gets an inline group.
    assert!(
        text.contains("\"command\": \"fmt\" } ] }, {\"matcher\": \"mcp__"),
        "{text}"
    );
    // The event the file lacked is added at the end of `hooks`.
    assert!(
        text.contains("\"PostToolUseFailure\": [\n      {"),
        "{text}"
    );
}

/// Claude Code strips a leading BOM and reads the file (a real 2.1.332
/// does): the BOM is kept, byte for byte. Codex's serde_json and Gemini
/// CLI's `JSON.parse` reject it and read none of the file: an install there
/// would say "installed" over a hook that never runs (issue 16).
#[test]
fn a_byte_order_mark_is_kept_for_claude_code_and_refused_where_it_is_rejected() {
    let text = "\u{feff}{\n  \"model\": \"opus\"\n}\n";
    let installed = round_trip(text);
    assert!(installed.starts_with('\u{feff}'));
    for f in [
        crate::commands::clients::CODEX,
        crate::commands::clients::GEMINI,
        crate::commands::clients::COPILOT,
    ] {
        let e = install_in(&f, text, &hook()).unwrap_err();
        assert!(
            e.problem.starts_with("starts with a byte-order mark"),
            "{e:?}"
        );
        assert!(uninstall_in(&f, text).is_err());
    }
}

/// JavaScript's `JSON.parse` reads `"\ud800"` (Claude Code accepts the
/// file), serde_json refuses it: the file is edited around it, byte for
/// byte, for the clients that read it, and refused for Codex, which does
/// not.
#[test]
fn a_lone_surrogate_is_read_as_javascript_reads_it() {
    let text = "{\"model\":\"\\ud800\", \"x\": \"\\udc00a\\ud83d\\ude00\"}\n";
    assert!(serde_json::from_str::<Value>(text).is_err());
    let installed = round_trip(text);
    assert!(installed.contains(r#""model":"\ud800""#), "{installed}");
    let e = install_in(&crate::commands::clients::CODEX, text, &hook()).unwrap_err();
    assert!(e.problem.starts_with("is not valid JSON"), "{e:?}");
}

#[test]
fn an_entry_pasted_from_the_old_readme_is_updated_in_place() {
    let pasted = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "mcp__.*|WebFetch",
        "hooks": [{ "type": "command", "command": "pace-hook", "timeout": 300 }]
      }
    ]
  }
}
"#;
    let edit = install(pasted, &hook()).unwrap();
    assert_eq!(
        edit.changes,
        [Change::Updated, Change::Added, Change::Added]
    );
    assert!(edit.text.contains(
        r#"        "matcher": "mcp__.*|WebFetch|WebSearch|^Bash$",
        "hooks": [{ "type": "command", "command": "/home/u/.cargo/bin/pace-hook", "timeout": 300 }]"#
    ), "{}", edit.text);
    let removed = uninstall(&edit.text).unwrap();
    assert_eq!(removed.text, "{}\n");
}

#[test]
fn another_timeout_or_path_updates_only_that_value() {
    let first = install("{}\n", &hook()).unwrap().text;
    let longer = Hook {
        timeout: 600,
        command: "/opt/bin/pace-hook".into(),
        ..hook()
    };
    let edit = install(&first, &longer).unwrap();
    assert_eq!(edit.changes, [Change::Updated; 3]);
    assert_eq!(
        edit.text,
        first
            .replace("/home/u/.cargo/bin/pace-hook", "/opt/bin/pace-hook")
            .replace("300", "600")
    );
}

#[test]
fn a_duplicate_of_pace_hooks_group_is_removed() {
    let once = install("{}\n", &hook()).unwrap().text;
    let group = serde_json::to_string(&hook().group(&Format::CLAUDE).value()).unwrap();
    let twice = once.replacen(
        "\"PreToolUse\": [",
        &format!("\"PreToolUse\": [{group},"),
        1,
    );
    let edit = install(&twice, &hook()).unwrap();
    assert_eq!(
        edit.changes,
        [Change::Updated, Change::Unchanged, Change::Unchanged]
    );
    let value: Value = serde_json::from_str(&edit.text).unwrap();
    assert_eq!(value["hooks"]["PreToolUse"].as_array().unwrap().len(), 1);
}

#[test]
fn pace_hook_beside_other_hooks_is_refused_by_install_and_left_by_uninstall() {
    let shared = r#"{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"audit"},{"type":"command","command":"pace-hook"}]}]}}"#;
    let p = install(shared, &hook()).unwrap_err();
    assert_eq!(
        p.problem,
        "already runs pace-hook at `hooks.PreToolUse[0]`, in a form install does not write (beside other hooks, with arguments or with settings of its own), and a second pace-hook would pace every call twice"
    );
    let edit = uninstall(shared).unwrap();
    assert!(!edit.changed());
    assert_eq!(edit.text, shared);
    assert_eq!(
        edit.left,
        [
            "`hooks.PreToolUse[0]` runs pace-hook in a form install does not write (beside other hooks, with arguments or with settings of its own), so it was left as it is; remove it by hand if it should go"
        ]
    );
}

#[test]
fn settings_before_the_program_make_it_another_form_of_pace_hook() {
    let bare = |command: &str| {
        invocation(&json!({"type": "command", "command": command})).map(|i| i.is_bare())
    };
    for command in [
        "PACE_HOOK_HOME=/x pace-hook",
        "env PACE_HOOK_HOME=/x /a/pace-hook",
        "exec pace-hook",
        "pace-hook||true",
        "pace-hook 2>/dev/null",
    ] {
        assert_eq!(bare(command), Some(false), "{command}");
    }
    for command in [
        "pace-hook",
        "/a/pace-hook",
        "'/a b/pace-hook'",
        "  pace-hook  ",
    ] {
        assert_eq!(bare(command), Some(true), "{command}");
    }
    for command in ["pace", "X=1 other", "", "sh /a/other", "/a/pace-hook-x"] {
        assert_eq!(bare(command), None, "{command}");
    }
    assert_eq!(
        invocation(&json!({"type": "http", "command": "pace-hook"})),
        None
    );
    assert_eq!(
        invocation(&json!({"type": "command", "command": "pace-hook", "args": []}))
            .map(|i| i.is_bare()),
        Some(false)
    );
}

#[test]
fn what_follows_the_program_is_kept_as_written() {
    let run =
        invocation(&json!({"type": "command", "command": "X=1 pace-hook 2>/dev/null || true"}))
            .unwrap();
    assert_eq!(
        (run.runs, run.path.as_str(), run.prefixed),
        (Runs::Program, "pace-hook", true)
    );
    assert_eq!(run.rest, ["2>/dev/null || true"]);
    let run =
        invocation(&json!({"type": "command", "command": "/a/pace-hook", "args": ["x"]})).unwrap();
    assert_eq!(run.rest, ["x"]);
}

#[test]
fn the_plugins_launcher_is_read_as_pace_hook_but_not_as_installs_entry() {
    let launcher = invocation(&json!({
        "type": "command",
        "command": "sh \"${CLAUDE_PLUGIN_ROOT}/hooks/pace-hook-launcher\""
    }))
    .unwrap();
    assert_eq!(launcher.runs, Runs::Launcher);
    assert_eq!(
        launcher.path,
        "${CLAUDE_PLUGIN_ROOT}/hooks/pace-hook-launcher"
    );
    assert!(launcher.is_bare());
    let group =
        json!({"hooks": [{"type": "command", "command": "sh /p/hooks/pace-hook-launcher"}]});
    assert_eq!(owned(&Format::CLAUDE, &group), Owned::Beside);
}

#[test]
fn a_command_with_arguments_is_not_pace_hooks_entry() {
    let run =
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"pace-hook gaps"}]}]}}"#;
    assert!(install(run, &hook()).is_err());
    let other =
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/x/not-pace-hook"}]}]}}"#;
    round_trip(other);
}

#[test]
fn comments_are_refused_with_where_they_are() {
    let p = install("{\n  // mine\n  \"model\": \"opus\"\n}\n", &hook()).unwrap_err();
    assert_eq!(p.problem, "has a comment at line 2, column 3");
    assert_eq!(
        p.fix,
        "remove the comments: Claude Code reads settings as plain JSON and ignores a file that has any"
    );
    assert!(uninstall("{ /* x */ }").is_err());
}

#[test]
fn invalid_json_is_refused() {
    let p = install("{\"model\": \"opus\",}", &hook()).unwrap_err();
    assert!(
        p.problem
            .starts_with("is not valid JSON (trailing comma at line 1"),
        "{}",
        p.problem
    );
    let p = install("{\"model\": ", &hook()).unwrap_err();
    assert!(
        p.problem.starts_with("is not valid JSON ("),
        "{}",
        p.problem
    );
}

#[test]
fn the_wrong_shapes_are_refused_with_what_claude_code_expects() {
    let cases = [
        ("[]", "holds an array where Claude Code expects an object"),
        (
            r#"{"hooks": "none"}"#,
            "has a string at `hooks` where Claude Code expects an object of hook events (`{\"PreToolUse\": [...]}`)",
        ),
        (
            r#"{"hooks": {"PostToolUse": {"matcher": "x"}}}"#,
            "has an object at `hooks.PostToolUse` where Claude Code expects an array of matcher groups (`[{\"matcher\": …, \"hooks\": [...]}]`)",
        ),
        (
            r#"{"hooks": {"PreToolUse": ["pace-hook"]}}"#,
            "has a string at `hooks.PreToolUse[0]` where Claude Code expects a matcher group object (`{\"matcher\": …, \"hooks\": [...]}`)",
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": {}}]}}"#,
            "has an object at `hooks.PreToolUse[0].hooks` where Claude Code expects an array of hooks (`[{\"type\": \"command\", …}]`)",
        ),
        (r#"{"hooks": {}, "hooks": {}}"#, "sets `hooks` twice"),
    ];
    for (text, problem) in cases {
        assert_eq!(
            install(text, &hook()).unwrap_err().problem,
            problem,
            "{text}"
        );
        if text != "[]" {
            assert_eq!(uninstall(text).unwrap_err().problem, problem, "{text}");
        }
    }
    // Events pace-hook does not use are not its business.
    round_trip(r#"{"hooks": {"Stop": "whatever"}}"#);
}

#[test]
fn uninstall_removes_an_event_list_it_empties_even_one_that_was_empty_before() {
    // The cases that are not byte for byte: Claude Code reads an empty list
    // or `hooks` object and none the same way.
    let text = "{\n  \"hooks\": {\n    \"PreToolUse\": []\n  }\n}\n";
    let installed = install(text, &hook()).unwrap().text;
    assert!(
        installed.contains("\"PreToolUse\": [\n      {\n"),
        "{installed}"
    );
    assert_eq!(uninstall(&installed).unwrap().text, "{}\n");
    let text = "{\n  \"model\": \"opus\",\n  \"hooks\": {}\n}\n";
    let installed = install(text, &hook()).unwrap().text;
    assert_eq!(
        uninstall(&installed).unwrap().text,
        "{\n  \"model\": \"opus\"\n}\n"
    );
}

#[test]
fn uninstall_keeps_what_was_added_after_install() {
    let installed = install("{\n  \"model\": \"opus\"\n}\n", &hook())
        .unwrap()
        .text;
    let mut value: Value = serde_json::from_str(&installed).unwrap();
    value["hooks"]["PreToolUse"]
        .as_array_mut()
        .unwrap()
        .push(json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}));
    value["env"] = json!({"A": "1"});
    let changed = serde_json::to_string_pretty(&value).unwrap();
    let edit = uninstall(&changed).unwrap();
    let after: Value = serde_json::from_str(&edit.text).unwrap();
    assert_eq!(
        after,
        json!({
            "model": "opus",
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}]},
            "env": {"A": "1"}
        })
    );
}

#[test]
fn paths_are_quoted_only_when_the_shell_needs_it_and_read_back() {
    assert_eq!(
        shell_quote("/home/u/.cargo/bin/pace-hook"),
        "/home/u/.cargo/bin/pace-hook"
    );
    assert_eq!(
        shell_quote("/Users/Jo Doe/bin/pace-hook"),
        "'/Users/Jo Doe/bin/pace-hook'"
    );
    assert_eq!(shell_quote("/x/it's/pace-hook"), r"'/x/it'\''s/pace-hook'");
    for path in [
        "/a/pace-hook",
        "/Users/Jo Doe/bin/pace-hook",
        "/x/it's/pace-hook",
    ] {
        let quoted = shell_quote(path);
        assert_eq!(words(&quoted), [path]);
    }
    assert_eq!(words(r#""/a b/pace-hook" --x"#), ["/a b/pace-hook", "--x"]);
    assert_eq!(words(r"/a\ b/pace-hook"), ["/a b/pace-hook"]);
    assert_eq!(words(r#""a\b\"c""#), [r#"a\b"c"#]);
    assert_eq!(shell_words("'unterminated"), None);
}

fn words(command: &str) -> Vec<String> {
    shell_words(command)
        .unwrap()
        .into_iter()
        .map(|(w, _)| w)
        .collect()
}

#[test]
fn shell_words_keep_quotes_and_split_operators() {
    assert_eq!(
        words(r#""$CLAUDE_PROJECT_DIR/bin/pace-hook""#),
        ["$CLAUDE_PROJECT_DIR/bin/pace-hook"]
    );
    assert_eq!(words("pace-hook||true"), ["pace-hook", "|", "|", "true"]);
    assert_eq!(
        words(r"RUST_LOG=x '/a b/pace-hook' 2>/dev/null"),
        ["RUST_LOG=x", "/a b/pace-hook", "2", ">", "/dev/null"]
    );
    let ends: Vec<usize> = shell_words("a 'b c'  d")
        .unwrap()
        .iter()
        .map(|w| w.1)
        .collect();
    assert_eq!(ends, [1, 7, 10]);
}

#[test]
fn a_quoted_path_with_a_space_is_recognised_as_pace_hook() {
    let spaced = Hook {
        command: shell_quote("/Users/Jo Doe/.cargo/bin/pace-hook"),
        ..hook()
    };
    let text = install("{}\n", &spaced).unwrap().text;
    assert!(text.contains(r#""command": "'/Users/Jo Doe/.cargo/bin/pace-hook'""#));
    assert!(!install(&text, &spaced).unwrap().changed());
    assert_eq!(uninstall(&text).unwrap().text, "{}\n");
}

mod clients {
    use super::*;
    use crate::commands::clients::{CODEX, COPILOT, GEMINI, hook_for};
    use crate::hook::client::Client;

    /// Install, the file as its client parses it holds pace-hook's one
    /// entry per event, install again (no change), uninstall (the original,
    /// exactly).
    fn round_trip_in(f: &Format, client: Client, original: &str) -> String {
        let hook = hook_for(client, "/home/u/.cargo/bin/pace-hook", 300);
        let installed = install_in(f, original, &hook).unwrap();
        assert!(installed.changed(), "{original:?}");
        let value = parse(f, &installed.text).unwrap().unwrap();
        for event in f.events {
            let ours: Vec<_> = value["hooks"][event]
                .as_array()
                .unwrap()
                .iter()
                .filter(|g| owned(f, g) == Owned::Ours)
                .collect();
            assert_eq!(ours.len(), 1, "{event} in {}", installed.text);
            assert_eq!(*ours[0], hook.group(f).value());
        }
        let again = install_in(f, &installed.text, &hook).unwrap();
        assert!(!again.changed(), "{}", installed.text);
        assert_eq!(again.text, installed.text);
        let removed = uninstall_in(f, &installed.text).unwrap();
        assert!(removed.changes.iter().all(|c| *c == Change::Removed));
        assert_eq!(removed.text, original, "after install:\n{}", installed.text);
        installed.text
    }

    #[test]
    fn codex_files_round_trip_and_parse_as_codex_reads_them() {
        let text = round_trip_in(
            &CODEX,
            Client::Codex,
            "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n",
        );
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct HooksFile {
            hooks: serde_json::Map<String, Value>,
        }
        // Codex's own reading: serde_json, nothing beside `hooks`, whole
        // seconds.
        serde_json::from_str::<HooksFile>(&text).unwrap();
        assert!(text.contains("\"timeout\": 300\n"), "{text}");
        assert!(text.contains("--client codex --timeout 300"), "{text}");
    }

    #[test]
    fn codex_refuses_what_it_would_not_read() {
        let hook = hook_for(Client::Codex, "/b/pace-hook", 300);
        let e = install_in(&CODEX, "{\"hooks\": {}, \"model\": \"o3\"}", &hook).unwrap_err();
        assert_eq!(
            e.problem,
            "has `model` beside `hooks`, and Codex CLI reads no hook file that has anything else at its top level"
        );
        let e = install_in(&CODEX, "{\"model\": \"\\ud800\"}", &hook).unwrap_err();
        assert!(e.problem.starts_with("is not valid JSON"), "{e:?}");
    }

    #[test]
    fn gemini_settings_keep_their_comments_and_get_milliseconds() {
        let original = "{\n  // the model\n  \"model\": {\"name\": \"gemini-2.5-pro\"}, /* trailing */\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\"matcher\": \"write_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]}\n    ]\n  }\n}\n";
        let text = round_trip_in(&GEMINI, Client::Gemini, original);
        assert!(text.contains("// the model"));
        assert!(text.contains("\"timeout\": 300000"), "{text}");
        let e = install_in(
            &GEMINI,
            "{\"a\": 1,}",
            &hook_for(Client::Gemini, "/b/pace-hook", 300),
        )
        .unwrap_err();
        assert!(e.problem.starts_with("is not valid JSON"), "{e:?}");
    }

    #[test]
    fn copilot_files_are_flat_and_versioned() {
        let text = round_trip_in(
            &COPILOT,
            Client::Copilot,
            "{\n  \"version\": 1,\n  \"hooks\": {\n    \"sessionStart\": [{\"type\": \"command\", \"bash\": \"date\"}]\n  }\n}\n",
        );
        assert!(
            text.contains(
                "\"bash\": \"/home/u/.cargo/bin/pace-hook --client copilot --timeout 300\""
            ),
            "{text}"
        );
        assert!(text.contains("\"timeoutSec\": 300"), "{text}");
        let hook = hook_for(Client::Copilot, "/b/pace-hook", 300);
        let fresh = install_in(&COPILOT, "", &hook).unwrap();
        assert!(
            fresh
                .text
                .starts_with("{\n  \"version\": 1,\n  \"hooks\": {"),
            "{}",
            fresh.text
        );
        let gone = uninstall_in(&COPILOT, &fresh.text).unwrap();
        assert!(is_bare_skeleton(&COPILOT, &gone.text), "{}", gone.text);
        let e = install_in(&COPILOT, "{\"version\": 2, \"hooks\": {}}", &hook).unwrap_err();
        assert_eq!(
            e.problem,
            "has `version` 2, where Copilot CLI reads version 1"
        );
    }

    #[test]
    fn another_clients_pace_hook_is_not_ours() {
        // A Codex entry in a Gemini file (and the bare Claude form) runs
        // pace-hook in a form install does not write there: refused, never
        // doubled.
        let hook = hook_for(Client::Gemini, "/b/pace-hook", 300);
        for command in [
            "/b/pace-hook --client codex",
            "/b/pace-hook",
            "/b/pace-hook --client gemini --timeout x",
        ] {
            let text = format!(
                "{{\"hooks\": {{\"BeforeTool\": [{{\"matcher\": \".*\", \"hooks\": [{{\"type\": \"command\", \"command\": {}}}]}}]}}}}",
                serde_json::to_string(command).unwrap()
            );
            let e = install_in(&GEMINI, &text, &hook).unwrap_err();
            assert!(
                e.problem.starts_with("already runs pace-hook"),
                "{command}: {e:?}"
            );
        }
    }
}
