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

/// The hook events pace-hook answers, in the order `install` adds them.
pub(crate) const EVENTS: [&str; 3] = ["PreToolUse", "PostToolUse", "PostToolUseFailure"];

/// The matcher group `install` writes into each event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hook {
    /// Which tools: see [`crate::read::matcher::MATCHER`].
    pub(crate) matcher: String,
    /// The command, as the shell reads it: pace-hook's absolute path.
    pub(crate) command: String,
    /// Seconds before Claude Code gives up on the hook.
    pub(crate) timeout_s: u64,
}

impl Hook {
    /// The group to write, keys in the order Claude Code's docs write them.
    fn group(&self) -> Out {
        Out::Obj(vec![
            ("matcher", Out::Str(self.matcher.clone())),
            ("hooks", Out::List(vec![self.handler()])),
        ])
    }

    fn handler(&self) -> Out {
        Out::Obj(vec![
            ("type", Out::Str("command".into())),
            ("command", Out::Str(self.command.clone())),
            ("timeout", Out::Num(self.timeout_s)),
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
    /// What happened in each of [`EVENTS`].
    pub(crate) changes: [Change; 3],
    /// Hooks that run pace-hook but that `uninstall` left, described, for
    /// the user to look at.
    pub(crate) left: Vec<String>,
}

impl Edit {
    /// Whether the text changed.
    pub(crate) fn changed(&self) -> bool {
        self.changes
            .iter()
            .any(|c| matches!(c, Change::Added | Change::Updated | Change::Removed))
    }
}

/// Merge `hook` into the settings text `text` (empty for a file that does
/// not exist yet).
pub(crate) fn install(text: &str, hook: &Hook) -> Result<Edit, Problem> {
    let (bom, body) = split_bom(text);
    let before = parse(body)?;
    let mut changes = [Change::Unchanged; 3];
    let mut edited = if body.trim().is_empty() {
        changes = [Change::Added; 3];
        let root = Out::Obj(vec![("hooks", all_events(hook))]);
        let mut fresh = render(&root, &Style::fresh(), "");
        fresh.push('\n');
        fresh
    } else {
        body.to_owned()
    };
    // One edit at a time, each on a fresh parse: edits never overlap, and
    // each is found on the text as it now is.
    for _ in 0..MAX_STEPS {
        let doc = doc(&edited)?;
        let Some(step) = install_step(&edited, &doc, hook)? else {
            return finish(bom, body, &before, edited, changes, Vec::new(), Some(hook));
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

/// Remove pace-hook's groups from the settings text `text`.
pub(crate) fn uninstall(text: &str) -> Result<Edit, Problem> {
    let (bom, body) = split_bom(text);
    let before = parse(body)?;
    let mut changes = [Change::Absent; 3];
    let mut edited = body.to_owned();
    if before.is_none() {
        return Ok(Edit {
            text: text.to_owned(),
            changes,
            left: Vec::new(),
        });
    }
    for _ in 0..MAX_STEPS {
        let doc = doc(&edited)?;
        let (step, left) = uninstall_step(&edited, &doc)?;
        let Some(step) = step else {
            return finish(bom, body, &before, edited, changes, left, None);
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

/// Check the edit and wrap it up: the result must be JSON, and equal to the
/// original once pace-hook's groups are taken out of both.
fn finish(
    bom: &str,
    body: &str,
    before: &Option<Value>,
    edited: String,
    changes: [Change; 3],
    left: Vec<String>,
    hook: Option<&Hook>,
) -> Result<Edit, Problem> {
    let after: Value = serde_json::from_str(&edited).map_err(|_| unsure())?;
    let before = before.clone().unwrap_or_else(|| json!({}));
    if without_ours(&before) != without_ours(&after) {
        return Err(unsure());
    }
    let ours_in = |event: &str| -> Vec<Value> {
        after["hooks"][event]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|g| owned(g) == Owned::Ours)
            .cloned()
            .collect()
    };
    if hook.is_none() && EVENTS.iter().any(|e| !ours_in(e).is_empty()) {
        return Err(unsure());
    }
    if let Some(hook) = hook {
        // Each event now holds exactly the one group install means.
        let wanted = hook.group().value();
        for event in EVENTS {
            let ours = ours_in(event);
            if ours.len() != 1 || !same_group(&ours[0], &wanted) {
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
        text: format!("{bom}{edited}"),
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

/// A leading UTF-8 byte-order mark, kept as it was, and the rest.
fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => (&text[..3], rest),
        None => ("", text),
    }
}

/// Parse `body` as strict JSON: `None` for an empty (or all-blank) file.
/// The value is only for checking; edits work on [`Doc`].
fn parse(body: &str) -> Result<Option<Value>, Problem> {
    if body.trim().is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(body) {
        Ok(v) => {
            if !v.is_object() {
                return Err(Problem::new(
                    format!("holds {} where Claude Code expects an object", kind(&v)),
                    "make the file's top level an object (`{}`), keeping what should stay",
                ));
            }
            Ok(Some(v))
        }
        Err(e) => {
            // Say "comment" when that is what it is: the usual way a
            // hand-edited settings file stops being JSON.
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
                return Err(Problem::new(
                    format!("has a comment at line {line}, column {column}"),
                    "remove the comments: Claude Code reads settings as plain JSON and ignores a file that has any",
                ));
            }
            Err(Problem::new(
                format!("is not valid JSON ({e})"),
                "fix it (Claude Code ignores a settings file it cannot read)",
            ))
        }
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

fn doc(body: &str) -> Result<Doc<'_>, Problem> {
    let strict = ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let parsed = parse_to_ast(body, &CollectOptions::default(), &strict)
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
    changes: [Option<Change>; 3],
}

impl Step {
    fn one(event: usize, change: Change, splice: Splice) -> Self {
        let mut changes = [None; 3];
        changes[event] = Some(change);
        Self { splice, changes }
    }
}

/// `{ "PreToolUse": [group], … }` for every event.
fn all_events(hook: &Hook) -> Out {
    Out::Obj(
        EVENTS
            .iter()
            .map(|e| (*e, Out::List(vec![hook.group()])))
            .collect(),
    )
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
            "merge the two into one (Claude Code reads only the last)",
        ));
    }
    Ok(first)
}

/// The `hooks` object, if the file has one.
fn hooks_object<'a, 't>(doc: &'a Doc<'t>) -> Result<Option<&'a ast::Object<'t>>, Problem> {
    let Some(hooks) = prop(&doc.root, "hooks", "hooks")? else {
        return Ok(None);
    };
    match &hooks.value {
        ast::Value::Object(o) => Ok(Some(o)),
        other => Err(wrong_shape(
            "hooks",
            other,
            "an object of hook events (`{\"PreToolUse\": [...]}`)",
        )),
    }
}

/// An event's list of matcher groups, if the file has one; every group
/// must be an object with, if any, a list of hooks.
fn event_groups<'a, 't>(
    hooks: &'a ast::Object<'t>,
    event: &str,
) -> Result<Option<(&'a ast::ObjectProp<'t>, &'a ast::Array<'t>)>, Problem> {
    let at = format!("hooks.{event}");
    let Some(p) = prop(hooks, event, &at)? else {
        return Ok(None);
    };
    let ast::Value::Array(groups) = &p.value else {
        return Err(wrong_shape(
            &at,
            &p.value,
            "an array of matcher groups (`[{\"matcher\": …, \"hooks\": [...]}]`)",
        ));
    };
    for (i, g) in groups.elements.iter().enumerate() {
        let ast::Value::Object(group) = g else {
            return Err(wrong_shape(
                &format!("{at}[{i}]"),
                g,
                "a matcher group object (`{\"matcher\": …, \"hooks\": [...]}`)",
            ));
        };
        if let Some(h) = prop(group, "hooks", &format!("{at}[{i}].hooks"))?
            && !matches!(h.value, ast::Value::Array(_))
        {
            return Err(wrong_shape(
                &format!("{at}[{i}].hooks"),
                &h.value,
                "an array of hooks (`[{\"type\": \"command\", …}]`)",
            ));
        }
    }
    Ok(Some((p, groups)))
}

fn wrong_shape(at: &str, found: &ast::Value<'_>, expected: &str) -> Problem {
    let found = match found {
        ast::Value::StringLit(_) => "a string",
        ast::Value::NumberLit(_) => "a number",
        ast::Value::BooleanLit(_) => "a boolean",
        ast::Value::Object(_) => "an object",
        ast::Value::Array(_) => "an array",
        ast::Value::NullKeyword(_) => "null",
    };
    Problem::new(
        format!("has {found} at `{at}` where Claude Code expects {expected}"),
        format!("correct `{at}`"),
    )
}

/// The JSON value of an AST node, read from its own text.
fn value_of(body: &str, node: &impl Ranged) -> Value {
    serde_json::from_str(node.text(body)).unwrap_or(Value::Null)
}

fn install_step(body: &str, doc: &Doc<'_>, hook: &Hook) -> Result<Option<Step>, Problem> {
    let style = Style::of(body, &doc.root);
    let Some(hooks) = hooks_object(doc)? else {
        let events = all_events(hook);
        let splice = append(
            body,
            &doc.root.members(),
            &style,
            New::Prop("hooks", &events),
        );
        return Ok(Some(Step {
            splice,
            changes: [Some(Change::Added); 3],
        }));
    };
    for (i, event) in EVENTS.iter().enumerate() {
        let Some((_, groups)) = event_groups(hooks, event)? else {
            let groups = Out::List(vec![hook.group()]);
            let splice = append(body, &hooks.members(), &style, New::Prop(event, &groups));
            return Ok(Some(Step::one(i, Change::Added, splice)));
        };
        let mut ours = Vec::new();
        for (j, g) in groups.elements.iter().enumerate() {
            match owned(&value_of(body, g)) {
                Owned::Ours => ours.push(j),
                Owned::Beside => {
                    return Err(Problem::new(
                        format!(
                            "already runs pace-hook at `hooks.{event}[{j}]`, in a form install does not write (beside other hooks, with arguments or with settings of its own), and a second pace-hook would pace every call twice"
                        ),
                        "delete that hook, or make it the only hook of its group, running just the pace-hook program",
                    ));
                }
                Owned::Not => {}
            }
        }
        let Some((&first, extra)) = ours.split_first() else {
            let splice = append(body, &groups.members(), &style, New::Element(&hook.group()));
            return Ok(Some(Step::one(i, Change::Added, splice)));
        };
        if let Some(&dup) = extra.first() {
            let splice = remove(&groups.members(), dup);
            return Ok(Some(Step::one(i, Change::Updated, splice)));
        }
        let ast::Value::Object(group) = &groups.elements[first] else {
            unreachable!("checked by event_groups")
        };
        if let Some(splice) = update(body, group, hook, &style)? {
            return Ok(Some(Step::one(i, Change::Updated, splice)));
        }
    }
    Ok(None)
}

/// The first field of pace-hook's `group` that differs from `hook`, set.
fn update(
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
    match prop(group, "matcher", "matcher")? {
        None => {
            let matcher = Out::Str(hook.matcher.clone());
            let new = New::Prop("matcher", &matcher);
            return Ok(Some(append(body, &group.members(), style, new)));
        }
        Some(m) if value_of(body, &m.value) != json!(hook.matcher) => {
            return Ok(Some(set(&m.value, Out::Str(hook.matcher.clone()))));
        }
        Some(_) => {}
    }
    let Some(ast::Value::Array(handlers)) = prop(group, "hooks", "hooks")?.map(|p| &p.value) else {
        return Err(unsure());
    };
    let Some(ast::Value::Object(handler)) = handlers.elements.first() else {
        return Err(unsure());
    };
    let fields = [
        ("command", Out::Str(hook.command.clone())),
        ("timeout", Out::Num(hook.timeout_s)),
    ];
    for (key, wanted) in fields {
        match prop(handler, key, key)? {
            None => {
                let new = New::Prop(key, &wanted);
                return Ok(Some(append(body, &handler.members(), style, new)));
            }
            Some(p) if !same_value(&value_of(body, &p.value), &wanted.value()) => {
                return Ok(Some(set(&p.value, wanted)));
            }
            Some(_) => {}
        }
    }
    Ok(None)
}

/// What `uninstall` removes next, and what it leaves and why.
fn uninstall_step(body: &str, doc: &Doc<'_>) -> Result<(Option<Step>, Vec<String>), Problem> {
    let mut left = Vec::new();
    let Some(hooks) = hooks_object(doc)? else {
        return Ok((None, left));
    };
    for (i, event) in EVENTS.iter().enumerate() {
        let Some((event_prop, groups)) = event_groups(hooks, event)? else {
            continue;
        };
        for (j, g) in groups.elements.iter().enumerate() {
            match owned(&value_of(body, g)) {
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
                    return Ok((Some(Step::one(i, Change::Removed, splice)), left));
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

/// Whether the settings `v` run pace-hook on any of [`EVENTS`], in any form.
pub(crate) fn runs_pace_hook(v: &Value) -> bool {
    EVENTS.iter().any(|event| {
        v["hooks"][event]
            .as_array()
            .into_iter()
            .flatten()
            .any(|g| owned(g) != Owned::Not)
    })
}

/// Whose a matcher group is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owned {
    /// pace-hook's own: its only hook runs pace-hook, with no arguments.
    Ours,
    /// It runs pace-hook among other hooks, or with arguments: not a shape
    /// `install` writes.
    Beside,
    /// It does not run pace-hook.
    Not,
}

fn owned(group: &Value) -> Owned {
    let handlers = group["hooks"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let runs: Vec<Option<Invocation>> = handlers.iter().map(invocation).collect();
    match runs.as_slice() {
        [Some(run)] if run.is_bare() && run.runs == Runs::Program => Owned::Ours,
        r if r.iter().any(Option::is_some) => Owned::Beside,
        _ => Owned::Not,
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
    if handler["type"] != "command" {
        return None;
    }
    let command = handler["command"].as_str()?;
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
fn same_group(a: &Value, b: &Value) -> bool {
    a["matcher"] == b["matcher"]
        && a["hooks"].as_array().map(Vec::len) == Some(1)
        && ["type", "command", "timeout"]
            .iter()
            .all(|k| same_value(&a["hooks"][0][k], &b["hooks"][0][k]))
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
fn without_ours(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(hooks) = v.get_mut("hooks").and_then(Value::as_object_mut) {
        for event in EVENTS {
            if let Some(groups) = hooks.get_mut(event).and_then(Value::as_array_mut) {
                groups.retain(|g| owned(g) != Owned::Ours);
                if groups.is_empty() {
                    hooks.remove(event);
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
