//! Claude Code's settings files, and pace-hook's entries in them: where each
//! scope's file is, and the edits `install` and `uninstall` make to its text.
//!
//! The invariant: an edit changes only pace-hook's own entries. Every other
//! byte (key order, whitespace, line endings, other hooks and settings)
//! stays as it was, and `uninstall` after `install` gives back the file
//! byte for byte when nothing else changed in between. Three rules keep it:
//!
//! - **Edits are splices.** The text is parsed with `jsonc-parser` (strict
//!   JSON options) only to learn each node's byte range; an edit replaces
//!   one range and leaves the rest of the string alone. jsonc-parser's own
//!   CST editor was tried and not used: it re-indents what it appends in a
//!   compact file, and its removal of an appended element leaves a newline
//!   behind, so `uninstall` could not undo `install` exactly.
//! - **Removal is the inverse of insertion.** `install` appends after the
//!   last member (`,` + line break + indent + the new member, in the
//!   container's own layout); `uninstall` removes from the end of the
//!   previous member to the end of its own, which is exactly that. A
//!   container that `uninstall` empties (an event's list, `hooks`) is
//!   removed with its key, as `install` added it. The one case this cannot
//!   undo byte for byte is an event list that was already present and
//!   empty (`"PreToolUse": []`, or `"hooks": {}`) before `install`:
//!   `uninstall` removes that key too, which Claude Code reads the same
//!   way; and an empty object or list with blanks inside (`{ }`) comes
//!   back as `{}`.
//! - **Every edit is checked.** After editing, the whole text must parse as
//!   JSON, and with pace-hook's entries taken out it must equal the
//!   original with them taken out; otherwise nothing is written.
//!
//! **Which entries are pace-hook's.** A matcher group whose only hook is a
//! `command` hook running a program named `pace-hook` with no arguments
//! (the shape `install` writes, and the shape the README asked people to
//! paste before `install` existed). It is recognised by the program's file
//! name, not by the exact path, so that `install` from a binary that moved
//! (another `cargo install` target, a static build) updates the entry
//! instead of adding a second one, and `uninstall` from either finds it.
//! The one reading of a hook's command is [`invocation`], which `doctor`
//! uses too, with the list of settings files ([`files`]).
//! A hook that runs pace-hook in another form (beside other hooks in its
//! group, with arguments, after `VAR=value` settings) is not one `install`
//! wrote: `install` refuses to add a second pace-hook beside it (two would
//! pace every call twice) and `uninstall` leaves it, saying so.
//!
//! **JSON, not JSONC.** Claude Code reads settings files as plain JSON and
//! discards a file with comments ("Invalid or malformed JSON",
//! anthropics/claude-code#83190), so a file with comments or trailing commas
//! is refused with what to fix rather than edited.

use std::path::{Path, PathBuf};

use jsonc_parser::{
    CollectOptions, CommentCollectionStrategy, ParseOptions, ast, common::Ranged, parse_to_ast,
};
use serde_json::{Value, json};

use self::layout::{Container, New, Out, Splice, Style, append, remove, render};

use crate::error::{Error, Result};

/// Which settings file: Claude Code reads all three and merges their hooks
/// (code.claude.com/docs/en/hooks, "Configuration").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `.claude/settings.json` in the project: shared with the repository.
    Project,
    /// `~/.claude/settings.json`: every project of this user.
    User,
    /// `.claude/settings.local.json` in the project: this machine only.
    Local,
}

impl Scope {
    /// The file this scope names, for the project in `$CLAUDE_PROJECT_DIR`
    /// (else the current directory) and the user's Claude Code directory
    /// (`$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub(crate) fn path(self) -> Result<PathBuf> {
        if self == Scope::User {
            return Ok(self.path_in(&claude_home()?, Path::new("")));
        }
        let project = project_dir()?;
        let path = self.path_in(Path::new(""), &project);
        // A mistyped $CLAUDE_PROJECT_DIR must not grow a directory tree.
        if !project.is_dir() {
            return Err(Error::Settings {
                path,
                problem: "is in a project directory that does not exist".into(),
                fix: "check $CLAUDE_PROJECT_DIR, or run pace-hook from the project without it"
                    .into(),
            });
        }
        Ok(path)
    }

    /// Every scope, in the order Claude Code merges them (a later one
    /// wins where they differ).
    pub(crate) const ALL: [Scope; 3] = [Scope::User, Scope::Project, Scope::Local];

    /// This scope's file, with the user's Claude Code directory `user_dir`
    /// and the project `project`.
    pub(crate) fn path_in(self, user_dir: &Path, project: &Path) -> PathBuf {
        match self {
            Scope::User => user_dir.join("settings.json"),
            Scope::Project => project.join(".claude").join("settings.json"),
            Scope::Local => project.join(".claude").join("settings.local.json"),
        }
    }

    /// The scope in words, for messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Scope::Project => "the project's settings",
            Scope::User => "your user settings",
            Scope::Local => "the project's local settings",
        }
    }
}

/// The project Claude Code would run in here: `$CLAUDE_PROJECT_DIR`, which
/// Claude Code sets for hooks, else the current directory, where `claude`
/// started from here would take it to be.
pub(crate) fn project_dir() -> Result<PathBuf> {
    match std::env::var_os("CLAUDE_PROJECT_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => std::env::current_dir().map_err(|e| Error::io("read", ".", e)),
    }
}

/// Claude Code's own directory: `$CLAUDE_CONFIG_DIR` when set (Claude Code
/// then reads `settings.json` there instead of `~/.claude`;
/// code.claude.com/docs/en/env-vars), else `~/.claude`.
pub(crate) fn claude_home() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| Path::new(&h).join(".claude"))
        .ok_or_else(|| Error::Settings {
            path: PathBuf::from("~/.claude/settings.json"),
            problem: "cannot be found: HOME is not set".into(),
            fix: "set HOME (or CLAUDE_CONFIG_DIR to Claude Code's directory)".into(),
        })
}

/// Every settings file Claude Code reads for `project`, with its scope:
/// the user's (when `user_dir` is known) and the project's two. A project
/// whose `.claude` is the user's directory (a project in the home) reads
/// that file once.
pub(crate) fn files(user_dir: Option<&Path>, project: Option<&Path>) -> Vec<(Scope, PathBuf)> {
    let mut out = Vec::new();
    for scope in Scope::ALL {
        let path = match (scope, user_dir, project) {
            (Scope::User, Some(u), _) => scope.path_in(u, Path::new("")),
            (Scope::Project | Scope::Local, _, Some(p)) => scope.path_in(Path::new(""), p),
            _ => continue,
        };
        out.push((scope, path));
    }
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|(_, p)| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    out
}

/// The hook events pace-hook answers in Claude Code's settings, in the
/// order `install` adds them.
pub(crate) const EVENTS: [&str; 3] = ["PreToolUse", "PostToolUse", "PostToolUseFailure"];

/// How one client's hook file is laid out and read: the same edits (splices
/// that keep every other byte) serve each, told apart by these facts, each
/// read from the client's own parser (see `commands::clients`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Format {
    /// The client, for messages: "Claude Code".
    pub(crate) name: &'static str,
    /// The events pace-hook's entries go in, in the order they are added.
    pub(crate) events: &'static [&'static str],
    /// Each event holds matcher groups (`{matcher, hooks: [handler]}`), or
    /// handlers straight (Copilot CLI's files, which have no matchers).
    pub(crate) grouped: bool,
    /// The handler's command key: `command`, or Copilot CLI's `bash`.
    pub(crate) command_key: &'static str,
    /// The handler's timeout key: `timeout`, or Copilot CLI's `timeoutSec`.
    pub(crate) timeout_key: &'static str,
    /// A `version` the top level must hold (Copilot CLI's `1`).
    pub(crate) version: Option<u64>,
    /// Comments allowed (Gemini CLI strips them before `JSON.parse`).
    pub(crate) comments: bool,
    /// A lone UTF-16 surrogate escape (`"\ud800"`) is read, as JavaScript's
    /// `JSON.parse` reads it; serde_json (Codex) refuses the file.
    pub(crate) surrogates: bool,
    /// A leading byte-order mark is stripped by the client (Claude Code),
    /// not rejected with the whole file.
    pub(crate) bom: bool,
    /// Nothing but `hooks` (and `version`) may stand at the top level:
    /// Codex's `HooksFile` is `deny_unknown_fields`, and a file with more
    /// is not read at all.
    pub(crate) only_hooks: bool,
    /// The client `--client` names in the command (`None`: Claude Code's
    /// bare `pace-hook`).
    pub(crate) flag: Option<&'static str>,
    /// The typed reading the client applies after parsing, if any: a file
    /// that fails it is not read at all.
    pub(crate) schema: Schema,
}

/// A client's typed reading of its hook file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Schema {
    /// The parsed JSON is read leniently (Claude Code, Gemini CLI, Copilot
    /// CLI, as far as their sources or docs show).
    Lenient,
    /// Codex's serde types (`crate::commands::clients::codex_reads`).
    Codex,
}

impl Format {
    /// Claude Code's settings files.
    pub(crate) const CLAUDE: Format = Format {
        name: "Claude Code",
        events: &EVENTS,
        grouped: true,
        command_key: "command",
        timeout_key: "timeout",
        version: None,
        comments: false,
        surrogates: true,
        bom: true,
        only_hooks: false,
        flag: None,
        schema: Schema::Lenient,
    };
}

/// The entry `install` writes into each event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hook {
    /// Which tools: see [`crate::read::matcher::MATCHER`] (unused where the
    /// format has no matchers).
    pub(crate) matcher: String,
    /// The command, as the shell reads it: pace-hook's absolute path, and
    /// `--client NAME --timeout N` for a client other than Claude Code.
    pub(crate) command: String,
    /// The timeout, in the unit the file counts it in (seconds; Gemini CLI's
    /// milliseconds).
    pub(crate) timeout: u64,
}

impl Hook {
    /// The entry to write, keys in the order the client's docs write them:
    /// a matcher group, or the handler itself.
    fn group(&self, f: &Format) -> Out {
        if !f.grouped {
            return self.handler(f);
        }
        Out::Obj(vec![
            ("matcher", Out::Str(self.matcher.clone())),
            ("hooks", Out::List(vec![self.handler(f)])),
        ])
    }

    fn handler(&self, f: &Format) -> Out {
        Out::Obj(vec![
            ("type", Out::Str("command".into())),
            (f.command_key, Out::Str(self.command.clone())),
            (f.timeout_key, Out::Num(self.timeout)),
        ])
    }
}

/// What is wrong with a settings file, and what to do about it; the caller
/// adds the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// What is wrong, after the file's name: "is not valid JSON (…)".
    pub(crate) problem: String,
    /// What to do.
    pub(crate) fix: String,
    /// Whether running the command again after the fix is the next step.
    retry: bool,
}

impl Problem {
    fn new(problem: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            problem: problem.into(),
            fix: fix.into(),
            retry: true,
        }
    }

    /// The error for the file at `path`, met by `pace-hook <command>`.
    pub(crate) fn at(self, path: &Path, command: &str) -> Error {
        let fix = if self.retry {
            format!("{}, then run `pace-hook {command}` again", self.fix)
        } else {
            self.fix
        };
        Error::Settings {
            path: path.to_owned(),
            problem: self.problem,
            fix,
        }
    }
}

/// What an edit did to one event's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// pace-hook's group was added.
    Added,
    /// pace-hook's group was there and was brought up to date (another
    /// path, matcher or timeout; a duplicate removed).
    Updated,
    /// pace-hook's group was there as it should be.
    Unchanged,
    /// pace-hook's group was removed.
    Removed,
    /// There was no pace-hook group to remove.
    Absent,
}

/// The result of an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    /// The new text (the old one when nothing changed).
    pub(crate) text: String,
    /// What happened in each of the format's events.
    pub(crate) changes: Vec<Change>,
    /// Hooks that run pace-hook but that `uninstall` left, described, for
    /// the user to look at.
    pub(crate) left: Vec<String>,
}

impl Edit {
    /// The edit with `bom` (a byte-order mark kept, or nothing) before its
    /// text.
    fn after(mut self, bom: &str) -> Self {
        self.text.insert_str(0, bom);
        self
    }

    /// Whether the text changed.
    pub(crate) fn changed(&self) -> bool {
        self.changes
            .iter()
            .any(|c| matches!(c, Change::Added | Change::Updated | Change::Removed))
    }
}

/// Merge `hook` into the Claude Code settings text `text` (empty for a file
/// that does not exist yet).
pub(crate) fn install(text: &str, hook: &Hook) -> Result<Edit, Problem> {
    install_in(&Format::CLAUDE, text, hook)
}

/// Remove pace-hook's groups from the Claude Code settings text `text`.
pub(crate) fn uninstall(text: &str) -> Result<Edit, Problem> {
    uninstall_in(&Format::CLAUDE, text)
}

/// Merge `hook` into the hook file text `text` of format `f`.
pub(crate) fn install_in(f: &Format, text: &str, hook: &Hook) -> Result<Edit, Problem> {
    let (bom, body) = split_bom(f, text)?;
    let before = parse(f, body)?;
    let n = f.events.len();
    let mut changes = vec![Change::Unchanged; n];
    let mut edited = if body.trim().is_empty() {
        changes = vec![Change::Added; n];
        let mut fresh = render(&fresh(f, hook), &Style::fresh(), "");
        fresh.push('\n');
        fresh
    } else {
        body.to_owned()
    };
    // One edit at a time, each on a fresh parse: edits never overlap, and
    // each is found on the text as it now is.
    for _ in 0..MAX_STEPS {
        let readable = readable(f, &edited);
        let doc = doc(f, &readable)?;
        let Some(step) = install_step(f, &readable, &doc, hook)? else {
            return finish(f, body, &before, edited, changes, Vec::new(), Some(hook))
                .map(|e| e.after(bom));
        };
        for (i, change) in step.changes.into_iter().enumerate() {
            if let Some(change) = change {
                changes[i] = stronger(changes[i], change);
            }
        }
        edited = step.splice.apply(&edited);
    }
    Err(unsure())
}

/// Remove pace-hook's entries from the hook file text `text` of format `f`.
pub(crate) fn uninstall_in(f: &Format, text: &str) -> Result<Edit, Problem> {
    let (bom, body) = split_bom(f, text)?;
    let before = parse(f, body)?;
    let mut changes = vec![Change::Absent; f.events.len()];
    let mut edited = body.to_owned();
    if before.is_none() {
        return Ok(Edit {
            text: text.to_owned(),
            changes,
            left: Vec::new(),
        });
    }
    for _ in 0..MAX_STEPS {
        let readable = readable(f, &edited);
        let doc = doc(f, &readable)?;
        let (step, left) = uninstall_step(f, &readable, &doc)?;
        let Some(step) = step else {
            return finish(f, body, &before, edited, changes, left, None).map(|e| e.after(bom));
        };
        for (i, change) in step.changes.into_iter().enumerate() {
            if let Some(change) = change {
                changes[i] = stronger(changes[i], change);
            }
        }
        edited = step.splice.apply(&edited);
    }
    Err(unsure())
}

/// Whether `text` is what `install_in` writes into an empty file of format
/// `f` with pace-hook's entries taken out again (Copilot CLI's `{"version":
/// 1}`): a file pace-hook made, that `uninstall` may delete.
pub(crate) fn is_bare_skeleton(f: &Format, text: &str) -> bool {
    let Some(v) = f.version else {
        return false;
    };
    let skeleton = Out::Obj(vec![("version", Out::Num(v))]);
    let mut fresh = render(&skeleton, &Style::fresh(), "");
    fresh.push('\n');
    text == fresh
}

/// More edits than any settings file needs: a loop that does not converge
/// is a bug, and is refused rather than run forever.
const MAX_STEPS: usize = 64;

fn unsure() -> Problem {
    Problem {
        problem: "could not be edited safely: pace-hook's edit did not check out".into(),
        fix: "edit the file by hand (the README's Install section shows the entries), and report this".into(),
        retry: false,
    }
}

/// Check the edit and wrap it up: the result must parse as its client
/// parses it, and equal the original once pace-hook's entries are taken out
/// of both.
fn finish(
    f: &Format,
    body: &str,
    before: &Option<Value>,
    edited: String,
    changes: Vec<Change>,
    left: Vec<String>,
    hook: Option<&Hook>,
) -> Result<Edit, Problem> {
    let after = parse(f, &edited).ok().flatten().ok_or_else(unsure)?;
    let before = before.clone().unwrap_or_else(|| json!({}));
    let mut fresh_skeleton = json!({});
    if let Some(v) = f.version {
        fresh_skeleton["version"] = json!(v);
    }
    let before_bare = without_ours(f, &before);
    let after_bare = without_ours(f, &after);
    // A file install created holds the skeleton (`version`) besides ours.
    if before_bare != after_bare && !(before == json!({}) && after_bare == fresh_skeleton) {
        return Err(unsure());
    }
    let ours_in = |event: &str| -> Vec<Value> {
        after["hooks"][event]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|g| owned(f, g) == Owned::Ours)
            .cloned()
            .collect()
    };
    if hook.is_none() && f.events.iter().any(|e| !ours_in(e).is_empty()) {
        return Err(unsure());
    }
    if let Some(hook) = hook {
        // Each event now holds exactly the one entry install means.
        let wanted = hook.group(f).value();
        for event in f.events {
            let ours = ours_in(event);
            if ours.len() != 1 || !same_group(f, &ours[0], &wanted) {
                return Err(unsure());
            }
        }
    }
    let changed = changes
        .iter()
        .any(|c| matches!(c, Change::Added | Change::Updated | Change::Removed));
    if !changed && edited != body {
        return Err(unsure());
    }
    Ok(Edit {
        text: edited,
        changes,
        left,
    })
}

fn stronger(a: Change, b: Change) -> Change {
    use Change::*;
    match (a, b) {
        (Added, _) | (_, Added) => Added,
        (Removed, _) | (_, Removed) => Removed,
        (Updated, _) | (_, Updated) => Updated,
        (Unchanged, _) | (_, Unchanged) => Unchanged,
        (Absent, Absent) => Absent,
    }
}

/// A leading UTF-8 byte-order mark and the rest, for a client that strips
/// one before parsing (Claude Code: its settings reader drops a leading
/// U+FEFF, and a real 2.1.332 reads such a user settings file); the text
/// refused for a client whose parser rejects one (`JSON.parse`, which
/// Gemini CLI's `strip-json-comments` 3.1.1 leaves it to, and Codex's
/// serde_json: a real 0.171.0 ignores the file), since an edit there would
/// say "installed" over a hook that never runs (issue 16).
fn split_bom<'t>(f: &Format, text: &'t str) -> Result<(&'t str, &'t str), Problem> {
    let Some(rest) = text.strip_prefix('\u{feff}') else {
        return Ok(("", text));
    };
    if f.bom {
        return Ok((&text[..3], rest));
    }
    Err(Problem::new(
        format!(
            "starts with a byte-order mark (U+FEFF), which {}'s JSON parser rejects: it reads none of the file",
            f.name
        ),
        "save it as UTF-8 without a BOM",
    ))
}

/// Parse `body` as the client does: `None` for an empty (or all-blank)
/// file. The value is only for checking; edits work on [`Doc`].
pub(crate) fn parse(f: &Format, body: &str) -> Result<Option<Value>, Problem> {
    let (_, body) = split_bom(f, body)?;
    if body.trim().is_empty() {
        return Ok(None);
    }
    let v = if f.comments {
        let readable = readable(f, body);
        let parsed = parse_to_ast(
            &readable,
            &CollectOptions {
                comments: CommentCollectionStrategy::Off,
                tokens: false,
            },
            &options(f),
        );
        match parsed {
            Ok(p) => p.value.as_ref().map(ast_value).unwrap_or(Value::Null),
            Err(e) => {
                return Err(Problem::new(
                    format!("is not valid JSON ({e})"),
                    format!("fix it ({} ignores a settings file it cannot read)", f.name),
                ));
            }
        }
    } else {
        match serde_json::from_str::<Value>(&readable(f, body)) {
            Ok(v) => v,
            Err(e) => return Err(not_json(f, body, &e)),
        }
    };
    if !v.is_object() {
        return Err(Problem::new(
            format!("holds {} where {} expects an object", kind(&v), f.name),
            "make the file's top level an object (`{}`), keeping what should stay",
        ));
    }
    if f.only_hooks
        && let Some(key) = v
            .as_object()
            .into_iter()
            .flat_map(|o| o.keys())
            .find(|k| *k != "hooks" && (f.version.is_none() || *k != "version"))
    {
        return Err(Problem::new(
            format!(
                "has `{key}` beside `hooks`, and {} reads no hook file that has anything else at its top level",
                f.name
            ),
            format!("move `{key}` out of the file"),
        ));
    }
    if f.schema == Schema::Codex
        && let Err(e) = crate::commands::clients::codex_reads(&readable(f, body))
    {
        return Err(Problem::new(
            format!("is not a hooks file Codex CLI can read ({e})"),
            "correct it: Codex ignores the whole file, with a warning",
        ));
    }
    if let Some(want) = f.version {
        let has = &v["version"];
        if !has.is_null() && has.as_f64() != Some(want as f64) {
            return Err(Problem::new(
                format!("has `version` {has}, where {} reads version {want}", f.name),
                format!("set `\"version\": {want}`"),
            ));
        }
        if has.is_null() && v.get("hooks").is_some() {
            return Err(Problem::new(
                format!("has no `version`, and {} reads only version {want}", f.name),
                format!("add `\"version\": {want}`"),
            ));
        }
    }
    Ok(Some(v))
}

/// `body` as the parsers here can read it: a lone UTF-16 surrogate escape
/// (which JavaScript's `JSON.parse` reads as that code unit, and Rust's
/// parsers refuse) becomes `\ufffd`, of the same length, so byte offsets
/// stay those of the file. Left as it is for a client that refuses it.
fn readable<'t>(f: &Format, body: &'t str) -> std::borrow::Cow<'t, str> {
    if !f.surrogates || !body.contains("\\u") {
        return std::borrow::Cow::Borrowed(body);
    }
    let fixed = crate::hook::event::replace_lone_surrogates(body.as_bytes());
    match String::from_utf8(fixed) {
        Ok(s) => std::borrow::Cow::Owned(s),
        Err(_) => std::borrow::Cow::Borrowed(body),
    }
}

/// A strict file that does not parse: say "comment" when that is what it is,
/// the usual way a hand-edited settings file stops being JSON.
fn not_json(f: &Format, body: &str, e: &serde_json::Error) -> Problem {
    let lenient = parse_to_ast(
        body,
        &CollectOptions {
            comments: CommentCollectionStrategy::Separate,
            tokens: false,
        },
        &ParseOptions::default(),
    );
    if let Some(comment) = lenient
        .as_ref()
        .ok()
        .and_then(|r| r.comments.as_ref())
        .and_then(|c| c.values().flat_map(|v| v.iter()).map(Ranged::start).min())
    {
        let (line, column) = line_column(body, comment);
        return Problem::new(
            format!("has a comment at line {line}, column {column}"),
            format!(
                "remove the comments: {} reads settings as plain JSON and ignores a file that has any",
                f.name
            ),
        );
    }
    Problem::new(
        format!("is not valid JSON ({e})"),
        format!("fix it ({} ignores a settings file it cannot read)", f.name),
    )
}

/// The JSON value of a syntax-tree node.
fn ast_value(v: &ast::Value<'_>) -> Value {
    match v {
        ast::Value::StringLit(s) => Value::String(s.value.to_string()),
        ast::Value::NumberLit(n) => serde_json::from_str(n.value).unwrap_or(Value::Null),
        ast::Value::BooleanLit(b) => Value::Bool(b.value),
        ast::Value::NullKeyword(_) => Value::Null,
        ast::Value::Array(a) => Value::Array(a.elements.iter().map(ast_value).collect()),
        ast::Value::Object(o) => Value::Object(
            o.properties
                .iter()
                .map(|p| (p.name.as_str().to_owned(), ast_value(&p.value)))
                .collect(),
        ),
    }
}

fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

/// `v`'s kind, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The syntax tree of a settings text, with byte ranges.
struct Doc<'t> {
    root: ast::Object<'t>,
}

fn options(f: &Format) -> ParseOptions {
    ParseOptions {
        allow_comments: f.comments,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The syntax tree of `body`, which [`readable`] has made parseable (its
/// offsets are the file's).
fn doc<'t>(f: &Format, body: &'t str) -> Result<Doc<'t>, Problem> {
    let parsed = parse_to_ast(body, &CollectOptions::default(), &options(f))
        .map_err(|e| Problem::new(format!("is not valid JSON ({e})"), "fix it"))?;
    match parsed.value {
        Some(ast::Value::Object(root)) => Ok(Doc { root }),
        _ => Err(unsure()),
    }
}

/// The next edit and what it does to each event.
struct Step {
    splice: Splice,
    /// What it does to each event; `None` for one it leaves alone.
    changes: Vec<Option<Change>>,
}

impl Step {
    fn one(f: &Format, event: usize, change: Change, splice: Splice) -> Self {
        let mut changes = vec![None; f.events.len()];
        changes[event] = Some(change);
        Self { splice, changes }
    }
}

/// `{ "PreToolUse": [entry], … }` for every event.
fn all_events(f: &Format, hook: &Hook) -> Out {
    Out::Obj(
        f.events
            .iter()
            .map(|e| (*e, Out::List(vec![hook.group(f)])))
            .collect(),
    )
}

/// What `install` writes into an empty file.
fn fresh(f: &Format, hook: &Hook) -> Out {
    let mut members = Vec::new();
    if let Some(v) = f.version {
        members.push(("version", Out::Num(v)));
    }
    members.push(("hooks", all_events(f, hook)));
    Out::Obj(members)
}

/// The only property of `object` named `name`. Two of them are refused:
/// Claude Code would read the last, and an edit of either could be wrong.
fn prop<'a, 't>(
    object: &'a ast::Object<'t>,
    name: &str,
    at: &str,
) -> Result<Option<&'a ast::ObjectProp<'t>>, Problem> {
    let mut found = object.properties.iter().filter(|p| p.name.as_str() == name);
    let first = found.next();
    if found.next().is_some() {
        return Err(Problem::new(
            format!("sets `{at}` twice"),
            "merge the two into one (a JSON parser reads only the last)",
        ));
    }
    Ok(first)
}

/// The `hooks` object, if the file has one.
fn hooks_object<'a, 't>(
    f: &Format,
    doc: &'a Doc<'t>,
) -> Result<Option<&'a ast::Object<'t>>, Problem> {
    let Some(hooks) = prop(&doc.root, "hooks", "hooks")? else {
        return Ok(None);
    };
    match &hooks.value {
        ast::Value::Object(o) => Ok(Some(o)),
        other => Err(wrong_shape(
            f,
            "hooks",
            other,
            "an object of hook events (`{\"PreToolUse\": [...]}`)",
        )),
    }
}

/// An event's list of matcher groups, if the file has one; every group
/// must be an object with, if any, a list of hooks.
fn event_groups<'a, 't>(
    f: &Format,
    hooks: &'a ast::Object<'t>,
    event: &str,
) -> Result<Option<(&'a ast::ObjectProp<'t>, &'a ast::Array<'t>)>, Problem> {
    let at = format!("hooks.{event}");
    let Some(p) = prop(hooks, event, &at)? else {
        return Ok(None);
    };
    let ast::Value::Array(groups) = &p.value else {
        return Err(wrong_shape(
            f,
            &at,
            &p.value,
            "an array of matcher groups (`[{\"matcher\": …, \"hooks\": [...]}]`)",
        ));
    };
    for (i, g) in groups.elements.iter().enumerate() {
        let ast::Value::Object(group) = g else {
            return Err(wrong_shape(
                f,
                &format!("{at}[{i}]"),
                g,
                "a matcher group object (`{\"matcher\": …, \"hooks\": [...]}`)",
            ));
        };
        if !f.grouped {
            continue;
        }
        if let Some(h) = prop(group, "hooks", &format!("{at}[{i}].hooks"))?
            && !matches!(h.value, ast::Value::Array(_))
        {
            return Err(wrong_shape(
                f,
                &format!("{at}[{i}].hooks"),
                &h.value,
                "an array of hooks (`[{\"type\": \"command\", …}]`)",
            ));
        }
    }
    Ok(Some((p, groups)))
}

fn wrong_shape(f: &Format, at: &str, found: &ast::Value<'_>, expected: &str) -> Problem {
    let found = match found {
        ast::Value::StringLit(_) => "a string",
        ast::Value::NumberLit(_) => "a number",
        ast::Value::BooleanLit(_) => "a boolean",
        ast::Value::Object(_) => "an object",
        ast::Value::Array(_) => "an array",
        ast::Value::NullKeyword(_) => "null",
    };
    Problem::new(
        format!("has {found} at `{at}` where {} expects {expected}", f.name),
        format!("correct `{at}`"),
    )
}

/// The JSON value of an AST node.
fn value_of(node: &ast::Value<'_>) -> Value {
    ast_value(node)
}

fn install_step(
    f: &Format,
    body: &str,
    doc: &Doc<'_>,
    hook: &Hook,
) -> Result<Option<Step>, Problem> {
    let style = Style::of(body, &doc.root);
    let Some(hooks) = hooks_object(f, doc)? else {
        let events = all_events(f, hook);
        let splice = append(
            body,
            &doc.root.members(),
            &style,
            New::Prop("hooks", &events),
        );
        return Ok(Some(Step {
            splice,
            changes: vec![Some(Change::Added); f.events.len()],
        }));
    };
    for (i, event) in f.events.iter().enumerate() {
        let Some((_, groups)) = event_groups(f, hooks, event)? else {
            let groups = Out::List(vec![hook.group(f)]);
            let splice = append(body, &hooks.members(), &style, New::Prop(event, &groups));
            return Ok(Some(Step::one(f, i, Change::Added, splice)));
        };
        let mut ours = Vec::new();
        for (j, g) in groups.elements.iter().enumerate() {
            match owned(f, &value_of(g)) {
                Owned::Ours => ours.push(j),
                Owned::Beside => {
                    return Err(Problem::new(
                        format!(
                            "already runs pace-hook at `hooks.{event}[{j}]`, in a form install does not write (beside other hooks, with arguments or with settings of its own), and a second pace-hook would pace every call twice"
                        ),
                        "delete that hook, or make it run just the pace-hook program as install writes it",
                    ));
                }
                Owned::Not => {}
            }
        }
        let Some((&first, extra)) = ours.split_first() else {
            let group = hook.group(f);
            let splice = append(body, &groups.members(), &style, New::Element(&group));
            return Ok(Some(Step::one(f, i, Change::Added, splice)));
        };
        if let Some(&dup) = extra.first() {
            let splice = remove(&groups.members(), dup);
            return Ok(Some(Step::one(f, i, Change::Updated, splice)));
        }
        let ast::Value::Object(group) = &groups.elements[first] else {
            unreachable!("checked by event_groups")
        };
        if let Some(splice) = update(f, body, group, hook, &style)? {
            return Ok(Some(Step::one(f, i, Change::Updated, splice)));
        }
    }
    Ok(None)
}

/// The first field of pace-hook's `group` that differs from `hook`, set.
fn update(
    f: &Format,
    body: &str,
    group: &ast::Object<'_>,
    hook: &Hook,
    style: &Style,
) -> Result<Option<Splice>, Problem> {
    let set = |node: &ast::Value<'_>, value: Out| Splice {
        start: node.start(),
        end: node.end(),
        with: render(&value, style, ""),
    };
    let handler = if f.grouped {
        match prop(group, "matcher", "matcher")? {
            None => {
                let matcher = Out::Str(hook.matcher.clone());
                let new = New::Prop("matcher", &matcher);
                return Ok(Some(append(body, &group.members(), style, new)));
            }
            Some(m) if value_of(&m.value) != json!(hook.matcher) => {
                return Ok(Some(set(&m.value, Out::Str(hook.matcher.clone()))));
            }
            Some(_) => {}
        }
        let Some(ast::Value::Array(handlers)) = prop(group, "hooks", "hooks")?.map(|p| &p.value)
        else {
            return Err(unsure());
        };
        let Some(ast::Value::Object(handler)) = handlers.elements.first() else {
            return Err(unsure());
        };
        handler
    } else {
        group
    };
    let fields = [
        (f.command_key, Out::Str(hook.command.clone())),
        (f.timeout_key, Out::Num(hook.timeout)),
    ];
    for (key, wanted) in fields {
        match prop(handler, key, key)? {
            None => {
                let new = New::Prop(key, &wanted);
                return Ok(Some(append(body, &handler.members(), style, new)));
            }
            Some(p) if !same_value(&value_of(&p.value), &wanted.value()) => {
                return Ok(Some(set(&p.value, wanted)));
            }
            Some(_) => {}
        }
    }
    Ok(None)
}

/// What `uninstall` removes next, and what it leaves and why.
fn uninstall_step(
    f: &Format,
    body: &str,
    doc: &Doc<'_>,
) -> Result<(Option<Step>, Vec<String>), Problem> {
    let _ = body;
    let mut left = Vec::new();
    let Some(hooks) = hooks_object(f, doc)? else {
        return Ok((None, left));
    };
    for (i, event) in f.events.iter().enumerate() {
        let Some((event_prop, groups)) = event_groups(f, hooks, event)? else {
            continue;
        };
        for (j, g) in groups.elements.iter().enumerate() {
            match owned(f, &value_of(g)) {
                Owned::Ours => {
                    // Remove the highest container this empties, as install
                    // added it: the group, else the event's key, else `hooks`.
                    let splice = if groups.elements.len() > 1 {
                        remove(&groups.members(), j)
                    } else if hooks.properties.len() > 1 {
                        let k = index_of(&hooks.properties, event_prop);
                        remove(&hooks.members(), k)
                    } else {
                        let root = &doc.root;
                        let k = root
                            .properties
                            .iter()
                            .position(|p| p.name.as_str() == "hooks")
                            .expect("found above");
                        remove(&root.members(), k)
                    };
                    return Ok((Some(Step::one(f, i, Change::Removed, splice)), left));
                }
                Owned::Beside => left.push(format!(
                    "`hooks.{event}[{j}]` runs pace-hook in a form install does not write (beside other hooks, with arguments or with settings of its own), so it was left as it is; remove it by hand if it should go"
                )),
                Owned::Not => {}
            }
        }
    }
    Ok((None, left))
}

fn index_of(props: &[ast::ObjectProp<'_>], p: &ast::ObjectProp<'_>) -> usize {
    props
        .iter()
        .position(|q| q.start() == p.start())
        .expect("a member of its object")
}

/// Whether the Claude Code settings `v` run pace-hook on any of
/// [`EVENTS`], in any form.
pub(crate) fn runs_pace_hook(v: &Value) -> bool {
    runs_pace_hook_in(&Format::CLAUDE, v)
}

/// Whether the hook file `v` of format `f` runs pace-hook on any of its
/// events, in any form.
pub(crate) fn runs_pace_hook_in(f: &Format, v: &Value) -> bool {
    f.events.iter().any(|event| {
        v["hooks"][event]
            .as_array()
            .into_iter()
            .flatten()
            .any(|g| owned(f, g) != Owned::Not)
    })
}

/// Whose an entry (a matcher group, or a handler where the format has no
/// groups) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owned {
    /// pace-hook's own: its only hook runs pace-hook as install writes it
    /// (no arguments; `--client NAME [--timeout N]` for another client).
    Ours,
    /// It runs pace-hook among other hooks, or with other arguments: not a
    /// shape `install` writes.
    Beside,
    /// It does not run pace-hook.
    Not,
}

/// The handlers of an entry.
pub(crate) fn handlers_of<'v>(f: &Format, entry: &'v Value) -> &'v [Value] {
    if f.grouped {
        entry["hooks"].as_array().map(Vec::as_slice).unwrap_or(&[])
    } else {
        std::slice::from_ref(entry)
    }
}

fn owned(f: &Format, group: &Value) -> Owned {
    let runs: Vec<Option<Invocation>> = handlers_of(f, group)
        .iter()
        .map(|h| invocation_in(f, h))
        .collect();
    match runs.as_slice() {
        [Some(run)] if run.runs == Runs::Program && is_ours(f, run) => Owned::Ours,
        r if r.iter().any(Option::is_some) => Owned::Beside,
        _ => Owned::Not,
    }
}

/// Whether `run` is the form install writes for format `f`: the program
/// alone for Claude Code; else the program, then `--client NAME` and
/// optionally `--timeout N`, nothing before it.
fn is_ours(f: &Format, run: &Invocation) -> bool {
    if run.prefixed {
        return false;
    }
    let Some(name) = f.flag else {
        return run.rest.is_empty();
    };
    let Some(rest) = run.rest.first() else {
        return false;
    };
    let Some(words) = shell_words(rest) else {
        return false;
    };
    let words: Vec<&str> = words.iter().map(|(w, _)| w.as_str()).collect();
    match words.as_slice() {
        ["--client", n] => *n == name,
        ["--client", n, "--timeout", t] => *n == name && t.parse::<u64>().is_ok_and(|t| t > 0),
        _ => false,
    }
}

/// What runs pace-hook: the program itself, or the plugin's launcher (which
/// finds the program and runs it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runs {
    /// A program whose file name is `pace-hook`.
    Program,
    /// `plugin/hooks/pace-hook-launcher`, run by `sh` or on its own.
    Launcher,
}

/// How a command hook runs pace-hook, as its command says: the one reading
/// of a hook's command that `install`, `uninstall` and `doctor` share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invocation {
    /// The program or the launcher.
    pub(crate) runs: Runs,
    /// Its path as written, quotes taken off, variables not expanded.
    pub(crate) path: String,
    /// Settings before it (`VAR=value`, `env`, `exec`).
    pub(crate) prefixed: bool,
    /// What follows it: the rest of the command line as written, or the
    /// exec form's `args`.
    pub(crate) rest: Vec<String>,
}

impl Invocation {
    /// Just the program (or the launcher), nothing around it: the form
    /// whose exit code and stderr reach Claude Code as they are.
    pub(crate) fn is_bare(&self) -> bool {
        !self.prefixed && self.rest.is_empty()
    }
}

/// How `handler` runs pace-hook; `None` when it is not a command hook that
/// runs pace-hook (or its command cannot be read: an unbalanced quote).
///
/// In exec form (`args` given) the command is the program. Otherwise the
/// command's shell words are read: `VAR=value`, `env` and `exec` before the
/// program are skipped (and make it prefixed); `sh` (or `bash`) before a
/// path to `pace-hook-launcher` is the plugin's form.
pub(crate) fn invocation(handler: &Value) -> Option<Invocation> {
    invocation_in(&Format::CLAUDE, handler)
}

/// [`invocation`] in a hook file of format `f` (whose command may be under
/// another key: Copilot CLI's `bash`).
pub(crate) fn invocation_in(f: &Format, handler: &Value) -> Option<Invocation> {
    if handler["type"] != "command" {
        return None;
    }
    let command = handler[f.command_key].as_str()?;
    let name_of = |path: &str| path.rsplit('/').next().unwrap_or(path).to_owned();
    if let Some(args) = handler.get("args") {
        let rest: Vec<String> = args
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().map_or(v.to_string(), str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let runs = match name_of(command).as_str() {
            "pace-hook" => Runs::Program,
            "pace-hook-launcher" => Runs::Launcher,
            _ => return None,
        };
        return Some(Invocation {
            runs,
            path: command.to_owned(),
            // An `args` list, even empty, is not the form install writes.
            prefixed: true,
            rest,
        });
    }
    let words = shell_words(command)?;
    let mut prefixed = false;
    let mut i = 0;
    while let Some((w, _)) = words.get(i) {
        if is_assignment(w) || w == "env" || w == "exec" {
            prefixed = true;
            i += 1;
        } else {
            break;
        }
    }
    let (first, mut end) = words.get(i)?.clone();
    let (runs, path) = match name_of(&first).as_str() {
        "pace-hook" => (Runs::Program, first),
        "pace-hook-launcher" => (Runs::Launcher, first),
        "sh" | "bash" | "dash" => {
            let (script, script_end) = words.get(i + 1)?.clone();
            if name_of(&script) != "pace-hook-launcher" {
                return None;
            }
            end = script_end;
            (Runs::Launcher, script)
        }
        _ => return None,
    };
    let rest = command[end..].trim();
    Some(Invocation {
        runs,
        path,
        prefixed,
        rest: if rest.is_empty() {
            Vec::new()
        } else {
            vec![rest.to_owned()]
        },
    })
}

/// `NAME=value`, a variable set for the command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        name.starts_with(|c: char| c == '_' || c.is_ascii_alphabetic())
            && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
    })
}

/// A shell command's words, as far as reading a hook's command needs them,
/// each with the byte offset where it ends: single quotes, double quotes
/// (in which a backslash escapes only `"`, `\`, `$` and a backquote) and
/// backslashes are honoured (what [`shell_quote`] writes and what people
/// type); each of `;&|<>()` outside quotes is a word of its own, so
/// `pace-hook||true` has words after its program. `None` for an unbalanced
/// quote or a trailing backslash.
pub(crate) fn shell_words(command: &str) -> Option<Vec<(String, usize)>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()?.1 {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()?.1 {
                        '"' => break,
                        '\\' => {
                            let next = chars.next()?.1;
                            if !matches!(next, '"' | '\\' | '$' | '`') {
                                word.push('\\');
                            }
                            word.push(next);
                        }
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?.1);
            }
            ';' | '&' | '|' | '<' | '>' | '(' | ')' => {
                if in_word {
                    words.push((std::mem::take(&mut word), i));
                    in_word = false;
                }
                words.push((c.to_string(), i + 1));
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push((std::mem::take(&mut word), i));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push((word, command.len()));
    }
    Some(words)
}

/// `path` as one shell word: as it is when it needs no quoting, else in
/// single quotes. Claude Code runs a hook's command through a shell, and
/// shows it to the model when the hook blocks, so it is kept bare when it
/// can be.
pub(crate) fn shell_quote(path: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+@%:,=".contains(c);
    if !path.is_empty() && path.chars().all(safe) {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

/// Two groups alike in what Claude Code acts on.
fn same_group(f: &Format, a: &Value, b: &Value) -> bool {
    let (ha, hb) = (handlers_of(f, a), handlers_of(f, b));
    (!f.grouped || a["matcher"] == b["matcher"])
        && ha.len() == 1
        && hb.len() == 1
        && ["type", f.command_key, f.timeout_key]
            .iter()
            .all(|k| same_value(&ha[0][k], &hb[0][k]))
}

/// Equal as JSON values, with `300` and `300.0` the same number.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// `v` without pace-hook's groups, and without the event lists and `hooks`
/// object that leaves empty: what must not change when pace-hook's entries
/// are added or removed.
fn without_ours(f: &Format, v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(hooks) = v.get_mut("hooks").and_then(Value::as_object_mut) {
        for event in f.events {
            if let Some(groups) = hooks.get_mut(*event).and_then(Value::as_array_mut) {
                groups.retain(|g| owned(f, g) != Owned::Ours);
                if groups.is_empty() {
                    hooks.remove(*event);
                }
            }
        }
        if hooks.is_empty() {
            v.as_object_mut().expect("an object").remove("hooks");
        }
    }
    v
}

mod layout;
#[cfg(test)]
mod tests;
