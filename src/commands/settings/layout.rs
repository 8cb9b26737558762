//! Layout: how an edit's text is placed so that it looks like the file
//! around it, and the byte ranges an edit replaces. Nothing here knows what
//! the JSON means; [`super`] decides what to add or remove.

use jsonc_parser::{ast, common::Ranged};
use serde_json::{Value, json};

/// JSON to write. Its own type because `serde_json::Map` sorts keys, and
/// what `install` writes should read in the order the docs use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Out {
    Str(String),
    Num(u64),
    List(Vec<Out>),
    Obj(Vec<(&'static str, Out)>),
}

impl Out {
    /// The same as a `serde_json` value, for comparing with what a file has.
    pub(super) fn value(&self) -> Value {
        match self {
            Out::Str(s) => json!(s),
            Out::Num(n) => json!(n),
            Out::List(items) => Value::Array(items.iter().map(Out::value).collect()),
            Out::Obj(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), v.value()))
                    .collect(),
            ),
        }
    }
}

/// One edit: replace `start..end` with `with`.
#[derive(Debug)]
pub(super) struct Splice {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) with: String,
}

impl Splice {
    pub(super) fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + self.with.len());
        out.push_str(&text[..self.start]);
        out.push_str(&self.with);
        out.push_str(&text[self.end..]);
        out
    }
}

/// The byte ranges a container's edits need.
pub(super) struct Members {
    /// Offset of the opening bracket.
    open: usize,
    /// Offset of the closing bracket.
    close: usize,
    /// Each member's range: `"key": value` in an object, the value in an
    /// array.
    items: Vec<(usize, usize)>,
}

pub(super) trait Container {
    fn members(&self) -> Members;
}

impl Container for ast::Object<'_> {
    fn members(&self) -> Members {
        Members {
            open: self.start(),
            close: self.end() - 1,
            items: self
                .properties
                .iter()
                .map(|p| (p.start(), p.end()))
                .collect(),
        }
    }
}

impl Container for ast::Array<'_> {
    fn members(&self) -> Members {
        Members {
            open: self.start(),
            close: self.end() - 1,
            items: self.elements.iter().map(|e| (e.start(), e.end())).collect(),
        }
    }
}

/// Remove member `i`: from the end of the one before it (so the comma and
/// line break `append` wrote go too), else up to the one after it, else
/// everything between the brackets.
pub(super) fn remove(m: &Members, i: usize) -> Splice {
    let (start, end) = if i > 0 {
        (m.items[i - 1].1, m.items[i].1)
    } else if m.items.len() > 1 {
        (m.items[0].0, m.items[1].0)
    } else {
        (m.open + 1, m.close)
    };
    Splice {
        start,
        end,
        with: String::new(),
    }
}

/// A member to add: `"key": value` to an object, a value to an array.
#[derive(Debug, Clone, Copy)]
pub(super) enum New<'a> {
    Prop(&'a str, &'a Out),
    Element(&'a Out),
}

impl New<'_> {
    fn render(self, style: &Style, indent: &str) -> String {
        match self {
            New::Prop(key, value) => member(key, value, style, indent),
            New::Element(value) => render(value, style, indent),
        }
    }
}

/// Add `new` after the last member, in the container's layout: on a line
/// of its own at the members' indentation when they are one per line,
/// inline after a comma when they share a line. An empty container gets
/// the file's layout.
pub(super) fn append(body: &str, m: &Members, style: &Style, new: New<'_>) -> Splice {
    let (at, with) = match m.items.first() {
        Some(&(first, first_end)) => {
            let last = m.items.last().expect("not empty").1;
            let with = if body[m.open + 1..first].contains('\n') {
                let indent = line_indent(body, first);
                let style = style.laid_out(true);
                format!(",{}{indent}{}", style.newline, new.render(&style, indent))
            } else {
                // The blank after the members' commas, as the file has it.
                let gap = match m.items.get(1) {
                    Some(&(second, _)) => {
                        let between = &body[first_end..second];
                        &between[between.find(',').map_or(0, |i| i + 1)..]
                    }
                    None if style.spaced => " ",
                    None => "",
                };
                let gap = if gap.contains('\n') { " " } else { gap };
                format!(",{gap}{}", new.render(&style.laid_out(false), ""))
            };
            ((last, last), with)
        }
        None => {
            let with = if style.pretty {
                let own = line_indent(body, m.open);
                let indent = format!("{own}{}", style.unit);
                let nl = style.newline;
                format!("{nl}{indent}{}{nl}{own}", new.render(style, &indent))
            } else {
                new.render(style, "")
            };
            ((m.open + 1, m.close), with)
        }
    };
    Splice {
        start: at.0,
        end: at.1,
        with,
    }
}

/// The blanks that start the line `at` is on.
fn line_indent(body: &str, at: usize) -> &str {
    let start = body[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &body[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// How a file is laid out, so that what is added looks like what is there.
#[derive(Debug, Clone)]
pub(super) struct Style {
    /// `\n` or `\r\n`, as the file has it.
    newline: &'static str,
    /// One level of indentation: a tab, or the first indented line's spaces.
    unit: String,
    /// One member per line (any file whose top level spans lines, or is
    /// `{}`), or all on one line.
    pretty: bool,
    /// In one-line layout, a space after `:` and `,`.
    spaced: bool,
}

impl Style {
    /// A new file, as Claude Code itself writes settings: two spaces.
    pub(super) fn fresh() -> Self {
        Self {
            newline: "\n",
            unit: "  ".into(),
            pretty: true,
            spaced: true,
        }
    }

    pub(super) fn of(body: &str, root: &ast::Object<'_>) -> Self {
        let newline = if body.contains("\r\n") { "\r\n" } else { "\n" };
        let unit = body
            .lines()
            .skip(1)
            .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
            .find(|indent| !indent.is_empty())
            .map(|indent| {
                if indent.starts_with('\t') {
                    "\t".to_owned()
                } else {
                    indent.to_owned()
                }
            })
            .unwrap_or_else(|| "  ".into());
        let root_text = root.text(body);
        Self {
            newline,
            unit,
            pretty: root_text.contains('\n') || root.properties.is_empty(),
            spaced: root_text.contains("\": ") || !root_text.contains("\":"),
        }
    }

    /// This style with one member per line, or all on one line.
    fn laid_out(&self, pretty: bool) -> Self {
        Self {
            pretty,
            ..self.clone()
        }
    }
}

/// `"key": value` rendered at `indent`.
pub(super) fn member(key: &str, value: &Out, style: &Style, indent: &str) -> String {
    let colon = if style.pretty || style.spaced {
        ": "
    } else {
        ":"
    };
    format!("{}{colon}{}", json!(key), render(value, style, indent))
}

/// `value` as JSON in `style`, its first line at `indent` (the caller
/// writes that indentation; following lines carry their own).
pub(super) fn render(value: &Out, style: &Style, indent: &str) -> String {
    let inner = format!("{indent}{}", style.unit);
    let inner = if style.pretty { inner.as_str() } else { "" };
    let (open, close, items): (char, char, Vec<String>) = match value {
        Out::Str(s) => return json!(s).to_string(),
        Out::Num(n) => return n.to_string(),
        Out::Obj(members) => (
            '{',
            '}',
            members
                .iter()
                .map(|(k, v)| member(k, v, style, inner))
                .collect(),
        ),
        Out::List(items) => (
            '[',
            ']',
            items.iter().map(|v| render(v, style, inner)).collect(),
        ),
    };
    if items.is_empty() {
        format!("{open}{close}")
    } else if style.pretty {
        let nl = style.newline;
        let sep = format!(",{nl}{inner}");
        format!("{open}{nl}{inner}{}{nl}{indent}{close}", items.join(&sep))
    } else {
        let sep = if style.spaced { ", " } else { "," };
        format!("{open}{}{close}", items.join(sep))
    }
}
