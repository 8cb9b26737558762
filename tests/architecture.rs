//! The import rule of ARCHITECTURE.md, checked: a module imports only from
//! its own layer and the layers below it, so the folders of `src/` read top
//! to bottom as the flow of an event and nothing loops back up.
//!
//! It reads the crate's own source as text (every `crate::` path, and the
//! names inside `use crate::{…}` groups), skipping comments; unit tests
//! inside a file keep the file's rule. A module that is not in the table
//! fails the test too, so a new top-level module must be given its layer.

use std::{
    fs,
    path::{Path, PathBuf},
};

/// The layers, top to bottom, and the top-level modules in each. A module
/// may import its own layer and every layer after it in this list.
const LAYERS: &[(&str, &[&str])] = &[
    ("fuzzing entry points", &["fuzz"]),
    ("entry points", &["commands", "pacer"]),
    ("hook", &["hook"]),
    ("readers", &["read"]),
    ("gate", &["gate"]),
    ("stores", &["store"]),
    ("config", &["config"]),
    ("pacing rules", &["pacing"]),
    (
        "foundation",
        &["duration", "error", "exit", "key", "names", "state_dir"],
    ),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, mods)| mods.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments: `//` to the end of the line, `/* */`
/// blocks; string literals are kept as they are (a `crate::` inside a string
/// is rare and would only make the check stricter).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        if in_str {
            if b[i] == b'\\' && i + 1 < b.len() {
                out.push(b[i] as char);
                out.push(b[i + 1] as char);
                i += 2;
                continue;
            }
            if b[i] == b'"' {
                in_str = false;
            }
            out.push(b[i] as char);
            i += 1;
        } else if b[i] == b'"' && (i == 0 || b[i - 1] != b'\'') {
            in_str = true;
            out.push('"');
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            i = end;
        } else {
            // Multi-byte characters outside strings and comments are
            // identifiers' business; keep them whole.
            let c = text[i..].chars().next().expect("a char at a boundary");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Every top-level module a text names after `crate::`, with its offset.
fn imports(text: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut rest = 0;
    while let Some(at) = text[rest..].find("crate::") {
        let start = rest + at;
        rest = start + "crate::".len();
        // `pace_hook::crate::` cannot occur; `$crate::` is a macro's own.
        if start > 0 {
            let before = text.as_bytes()[start - 1];
            if before.is_ascii_alphanumeric() || before == b'_' || before == b'$' {
                continue;
            }
        }
        if text[rest..].starts_with('{') {
            let mut depth = 0usize;
            let mut item_start = true;
            let mut i = rest;
            for (off, c) in text[rest..].char_indices() {
                i = rest + off;
                match c {
                    '{' => {
                        depth += 1;
                        if depth == 1 {
                            item_start = true;
                        }
                        continue;
                    }
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                        continue;
                    }
                    ',' if depth == 1 => {
                        item_start = true;
                        continue;
                    }
                    _ => {}
                }
                if depth == 1 && item_start && (c.is_ascii_alphabetic() || c == '_') {
                    let name: String = text[i..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    found.push((name, i));
                    item_start = false;
                } else if !c.is_whitespace() {
                    item_start = false;
                }
            }
            rest = i;
        } else {
            let name: String = text[rest..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            found.push((name, rest));
        }
    }
    found
}

/// The top-level module a file belongs to: its first path component under
/// `src/`, without `.rs`.
fn module_of(path: &Path, src: &Path) -> String {
    let rel = path.strip_prefix(src).expect("under src/");
    let first = rel.components().next().expect("a component");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_owned()
}

#[test]
fn every_module_imports_only_from_its_layer_and_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    for path in &files {
        let module = module_of(path, &src);
        // The crate root is the table of contents and the binary's main is
        // a few lines over it: both may name every layer.
        if module == "lib" || module == "main" {
            continue;
        }
        let Some(own) = layer_of(&module) else {
            wrong.push(format!(
                "{}: module `{module}` has no layer in tests/architecture.rs (and ARCHITECTURE.md)",
                path.display()
            ));
            continue;
        };
        let text = strip_comments(&fs::read_to_string(path).expect("a readable source file"));
        for (name, at) in imports(&text) {
            if name == "self" || name == "super" {
                continue;
            }
            let line = text[..at].matches('\n').count() + 1;
            match layer_of(&name) {
                None => wrong.push(format!(
                    "{}:{line}: `crate::{name}` is not a module of any layer (a re-export of the crate root? use the module's own path)",
                    path.display()
                )),
                Some(theirs) if theirs < own => wrong.push(format!(
                    "{}:{line}: `{module}` ({}) imports `crate::{name}` ({}), a layer above it",
                    path.display(),
                    LAYERS[own].0,
                    LAYERS[theirs].0
                )),
                Some(_) => {}
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against ARCHITECTURE.md's rule:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_reader_of_imports_sees_groups_and_paths() {
    let text = "use crate::{a::{b, c}, d, e::f};\nfn g() { crate::h::i(); x_crate::j(); }";
    let names: Vec<_> = imports(text).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["a", "d", "e", "h"]);
    assert_eq!(
        strip_comments("a // crate::x\nb /* crate::y */ c \"// kept\""),
        "a \nb  c \"// kept\""
    );
}
