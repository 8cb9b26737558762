//! What the JavaScript an agent asks a browser (or a Playwright server) to run
//! can fetch: every place that starts a request, how many requests can run
//! at most, the code the analysis cannot see into, and the sites the code
//! names. The profile paces a script only when this says it makes at most
//! one request and hides nothing.
//!
//! The code is parsed with `oxc_parser`, a complete ECMAScript parser that
//! reads a 10 KB script in well under a millisecond, so the analysis works on
//! the real syntax tree: strings, comments, regular expressions and Unicode
//! escapes (`f\u0065tch`) mean what the browser takes them to mean.
//!
//! The invariant: the count never says fewer requests than the code can make.
//! Where the analysis cannot follow a value (a computed name on the global
//! object, `eval`, markup built at run time) it reports the place as opaque,
//! and the caller blocks; where a request may repeat (a loop, a callback, a
//! function called twice) it counts many. It is flow-insensitive: a variable
//! holds every value ever assigned to it anywhere, and the walk repeats until
//! nothing it learns changes, so an assignment after a use still counts.
//!
//! Decisions the counting makes (each with a test or a row in
//! `tests/fixtures/scripts.toml`):
//! - `if`/`else`, `?:` and `switch` cases that end in `break` take the larger
//!   branch; `&&`, `||`, `??` and `try`/`catch`/`finally` add up, since the
//!   right side may run too and a `catch` may run after the `try` already sent
//!   its request (a retry is a second request). Dead code counts.
//! - A function counts where it is called: once per call, many in a loop or
//!   when it calls itself. A function handed to code the analysis does not
//!   model (a callback, an event handler, a timer, `queueMicrotask`, an
//!   object's method or getter, a class member) may be called any number of
//!   times; `.then`/`.catch`/`.finally`, the `new Promise` executor,
//!   `Reflect.apply` and `.call`/`.apply` call it once (a `.then` only on
//!   what may be a promise: not on an object of the script's, nor once the
//!   script gives any object a `then` of its own). `this` in a function is
//!   what its calls give: the receiver, the global object for a plain call,
//!   what `.call`/`.apply`/`.bind` give, a page object for code the
//!   analysis does not see.
//! - On an object it cannot name (page data, a parameter, an element) a
//!   method or property with a request's name counts (`send`, `click`,
//!   `submit`, `load`, `back`, `sendBeacon`; `src`, `href`, `action`, `data`,
//!   `ping`, … assigned), so an alias it lost track of still counts. A link's
//!   `href` or a form's `action` set on an element the script created with
//!   that tag is not a request: the click or submit is.
//! - Opaque: a computed member of the global object unless its key is written
//!   as a literal (`window['fetch']` is `fetch`; `window['fe' + 'tch']` is
//!   opaque), `eval`, `Function` and anything reached through
//!   `.constructor`, a timer given anything but a known function, markup or a
//!   `document.write` the analysis cannot read, a created script's code,
//!   workers and imports from `data:`/`blob:` or unreadable URLs, property
//!   descriptors (their setters load), and the global object or `location`,
//!   `history`, `navigator` handed to code the analysis does not see (to read
//!   its keys or log it is fine).
//! - Markup is tokenized as the HTML Standard does (`markup`, with
//!   `html5gum`) and counts one load per element and attribute that loads
//!   (the table in `model/markup.rs`: `<video src poster>` is two), CSS
//!   (`cssparser`) one per `url()`, `@import` and `image-set()`; the code
//!   markup runs (inline scripts, `on…` handlers, `javascript:` URLs,
//!   `data:` scripts, and the markup of `srcdoc` and `data:` frames) is
//!   analysed with it, a handler that may run many times (`onclick`) as
//!   repeating. `<template>` content is inert; `DOMParser` documents are
//!   too, so only literal markup parsed there (which is parsed to be
//!   inserted) counts, and their nodes put in the page, when their markup
//!   is not known, are opaque.
//! - A string of code passed to Playwright's `evaluate` is analysed as page
//!   code; Node's module loaders (`require`, `import('node:…')`, `process`)
//!   are opaque on the Playwright server.
//! - A script that makes no request is still paced on its tab by the caller:
//!   the page's own code may load things when the script touches it.
//! - Columns count Unicode characters; a request is placed where its call or
//!   assignment starts.
//!
//! What the platform's names mean lives in [`model`], one file per platform
//! (`language`, `dom`, `navigation`, `network`, `libraries`, `playwright`,
//! `node`); the walk ([`walk`]) applies it and names no API itself.
//!
//! # Adding a request sink
//!
//! One row in the table of its platform's file in `model/`, and one row in
//! `tests/fixtures/scripts.toml` that shows it counted. `new EventSource(url)`
//! is this row of `model/network.rs`'s `globals`:
//!
//! ```text
//! Row(&["EventSource"], ANYWHERE, Def::Sink(sink!("`new EventSource`"))),
//! ```
//!
//! and this row of the table:
//!
//! ```toml
//! [[script]]
//! name = "two event streams"
//! code = "new EventSource('https://other.org/a'); new EventSource('https://other.org/b')"
//! outcome = "block"
//! count = "many"
//! sites = ["other.org"]
//! ```
//!
//! The table is `globals` for a property of the global object (`fetch`),
//! `members` for a member of a known object (`location.assign`, keyed by its
//! `Obj`), `any` for a method judged by its name on any object (`sendBeacon`,
//! `click`). The environment is `ANYWHERE`, `PAGE` or `SERVER` (Playwright's
//! server). The label is what the model is told; `sink!(…, loads Always)`
//! marks one whose URL is code that runs (a worker: a `data:`, `blob:` or
//! unreadable URL is then opaque), `returns Window` one that gives a window
//! (`window.open`). A function whose count depends on its arguments is an
//! [`model::Effect`] (`importScripts` loads one script per argument).

mod cost;
mod markup;
mod model;

pub(crate) use markup::is_markup;
pub(crate) mod stack;
mod url;
mod value;
mod walk;

#[cfg(test)]
mod corpus;
#[cfg(test)]
mod dump;
#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod timing;

use oxc_allocator::Allocator;
use oxc_ast::ast::{Expression, Function, Statement};
use oxc_parser::{ParseOptions, Parser};
use oxc_span::SourceType;

/// Where the code runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Env {
    /// In a page: claude-in-chrome's `javascript_tool`, Playwright MCP's
    /// `browser_evaluate`, Chrome DevTools MCP's `evaluate_script`.
    Page,
    /// In Node beside Playwright, with a `page` (Playwright MCP's
    /// `browser_run_code_unsafe`).
    PlaywrightServer,
}

/// A place in the code, 1-based, columns counted in characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// What is there, as the model reads it: "`fetch`", "assignment to
    /// `location.href`", "`eval`".
    pub what: String,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1, in characters.
    pub column: u32,
}

/// How many requests the code can start, at most.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Count {
    /// None.
    Zero,
    /// One.
    One,
    /// More than one.
    Many {
        /// Why, e.g. "`fetch` at 3:5 runs inside a `for` loop (2:1)".
        why: String,
    },
}

/// What the analysis found in a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Analysis {
    /// Every place that starts a request, in source order, whether or not it
    /// runs.
    pub requests: Vec<Found>,
    /// How many requests can run, at most.
    pub count: Count,
    /// Places that run code the analysis cannot see: the caller blocks.
    pub opaque: Vec<Found>,
    /// Absolute URLs the code names, after folding literals, as written (or
    /// normalized where the browser would fix them up), each once.
    pub urls: Vec<String>,
    /// URLs whose scheme is written but whose host is built at run time: the
    /// caller paces against every known site.
    pub unknown_hosts: Vec<Found>,
    /// What the `javascript:` links the code inserts do when clicked, for
    /// the code around it (a string passed to `page.evaluate`); at the top
    /// it is in `count` already.
    pub dormant: Count,
}

/// A script that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseFailure {
    /// The parser's message.
    pub message: String,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1, in characters.
    pub column: u32,
}

/// How deep strings of code inside code (`page.evaluate("…")`) are followed.
const MAX_NESTING: u32 = 3;

/// Analyse `code` run in `env`.
///
/// `code` is either a script body, run the way `javascript_tool` runs it (as
/// the body of an async function: top-level `await` and `return` work), or a
/// single function (`() => document.title`, `async (page) => { … }`,
/// `function () { … }`), which is called once, with Playwright's `page` as
/// its first argument in [`Env::PlaywrightServer`].
///
/// The parser and the walk recurse once per level of nesting, and a stack
/// overflow would abort the hook with a code that lets the call through; so
/// the analysis runs on a stack that grows with the code (measured: at most
/// 1.2 KB per byte of input in release, for `!!!…x`; 4.6 KB in debug
/// builds): the main thread's when it can grow that far
/// ([`main_stack_holds`]), else one mapped for it ([`stack::run_on`]); and
/// code longer than [`MAX_CODE`] is refused.
pub(crate) fn analyse(code: &str, env: Env) -> Result<Analysis, ParseFailure> {
    if code.len() > MAX_CODE {
        return Err(ParseFailure {
            message: format!(
                "the code is {} KiB long; pace-hook reads scripts of up to {} KiB",
                code.len() / 1024,
                MAX_CODE / 1024
            ),
            line: 1,
            column: 1,
        });
    }
    let stack = (1 << 20) + code.len() * STACK_PER_BYTE;
    if main_stack_holds(stack) {
        return analyse_nested(code, env, 0);
    }
    stack::run_on(stack, || analyse_nested(code, env, 0)).unwrap_or_else(|e| {
        Err(ParseFailure {
            message: format!("no stack to analyse the code on: {e}"),
            line: 1,
            column: 1,
        })
    })
}

/// What the markup of a document loads and runs once a browser shows it
/// (a `data:text/html` document a navigation carries, which `label` names
/// for the model): one request per load, its scripts and handlers
/// analysed as page code.
/// Markup longer than [`MAX_CODE`] is opaque, as code is.
/// `data_base`: the document is a `data:` URL's, whose relative URLs load
/// nothing.
pub(crate) fn analyse_document(html: &str, label: &str, data_base: bool) -> Analysis {
    let refused = |why: String| Analysis {
        requests: Vec::new(),
        count: Count::Zero,
        opaque: vec![Found {
            what: why,
            line: 1,
            column: 1,
        }],
        urls: Vec::new(),
        unknown_hosts: Vec::new(),
        dormant: Count::Zero,
    };
    if html.len() > MAX_CODE {
        return refused(format!(
            "{label}, {} KiB long; pace-hook reads documents of up to {} KiB",
            html.len() / 1024,
            MAX_CODE / 1024
        ));
    }
    let run = || {
        let positions = Positions::new("");
        walk::Walker::new(Env::Page, &positions, 0, 0).document(html, label, data_base)
    };
    let stack = (1 << 20) + html.len() * STACK_PER_BYTE;
    if main_stack_holds(stack) {
        return run();
    }
    stack::run_on(stack, run)
        .unwrap_or_else(|e| refused(format!("no stack to analyse {label} on: {e}")))
}

/// Whether this is the process's main thread and its stack may grow by
/// `need` bytes beyond what it already uses: then the analysis runs here,
/// without the system calls that map a stack. The main thread's stack grows
/// on demand up to `RLIMIT_STACK` (8 MiB unless set otherwise), enough for
/// scripts of up to about 2 KB, most of what agents send. Other threads'
/// stacks (tests', a library caller's) do not grow.
#[cfg(target_os = "linux")]
fn main_stack_holds(need: usize) -> bool {
    /// What the hook already has on the stack by here, with room to spare.
    const IN_USE: usize = 1 << 20;
    // SAFETY: plain system calls; `limit` is plain old data for getrlimit.
    let main = unsafe { libc::syscall(libc::SYS_gettid) == libc::getpid() as libc::c_long };
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: as above.
    if !main || unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } != 0 {
        return false;
    }
    limit.rlim_cur == libc::RLIM_INFINITY
        || usize::try_from(limit.rlim_cur).is_ok_and(|cur| cur >= need.saturating_add(IN_USE))
}

#[cfg(not(target_os = "linux"))]
fn main_stack_holds(_need: usize) -> bool {
    false
}

/// The longest code analysed: 256 KiB (a 768 MiB stack reservation, touched
/// only as deep as the code nests).
const MAX_CODE: usize = 256 * 1024;

/// Stack reserved per byte of code, over twice the most measured, since a
/// string of code passed to `page.evaluate` is parsed while its caller is
/// walked.
#[cfg(not(debug_assertions))]
const STACK_PER_BYTE: usize = 3 * 1024;
#[cfg(debug_assertions)]
const STACK_PER_BYTE: usize = 10 * 1024;

/// The text parsed for a script body: the code inside an async function, in
/// sloppy-mode script. This is what the code is at run time, so `await`,
/// `return`, `with`, `arguments` and HTML-like comments (`<!--`) all mean
/// what they mean there. Parsing as a module instead would allow top-level
/// `await` but not `return`, and would read `<!--` differently.
const PREFIX: &str = "(async function () {\n";
const SUFFIX: &str = "\n})";

/// The first error's message and offset, to report.
macro_rules! first_error {
    ($diagnostics:expr) => {
        $diagnostics.errors().next().map(|d| {
            (
                d.message.to_string(),
                d.labels.first().map_or(0, |l| l.offset()),
            )
        })
    };
}

fn analyse_nested(code: &str, env: Env, depth: u32) -> Result<Analysis, ParseFailure> {
    analyse_with(code, env, depth, false)
}

/// An event handler's code (`<img onerror="…">`), where `this` is the
/// element, not the global object.
fn analyse_handler(code: &str, depth: u32) -> Result<Analysis, ParseFailure> {
    analyse_with(code, Env::Page, depth, true)
}

fn analyse_with(
    code: &str,
    env: Env,
    depth: u32,
    element_this: bool,
) -> Result<Analysis, ParseFailure> {
    let positions = Positions::new(code);
    let allocator = Allocator::default();
    let wrapped = format!("{PREFIX}{code}{SUFFIX}");
    let options = ParseOptions {
        preserve_parens: false,
        ..ParseOptions::default()
    };
    let body = Parser::new(&allocator, &wrapped, SourceType::script())
        .with_options(options)
        .parse();
    let body_error = if body.panicked || body.diagnostics.errors().next().is_some() {
        Some(failure(
            first_error!(body.diagnostics),
            &positions,
            PREFIX.len() as u32,
        ))
    } else {
        let program = allocator.alloc(body.program);
        match wrapper(&program.body, wrapped.len()) {
            Ok(function) => {
                let walker = walk::Walker::new(env, &positions, PREFIX.len() as u32, depth)
                    .element_this(element_this);
                return Ok(walker.run(walk::Root::Body(function)));
            }
            Err(offset) => Some(positions.failure(
                "the code closes the function it runs in".to_owned(),
                offset.saturating_sub(PREFIX.len() as u32),
            )),
        }
    };
    // Not a body: perhaps a lone function, `function () { … }`, which is a
    // statement without a name only where an expression is expected.
    let allocator = Allocator::default();
    match Parser::new(&allocator, code, SourceType::script())
        .with_options(options)
        .parse_expression()
    {
        Ok(expr) => {
            let expr = allocator.alloc(expr);
            if matches!(
                expr,
                Expression::FunctionExpression(_) | Expression::ArrowFunctionExpression(_)
            ) {
                let walker =
                    walk::Walker::new(env, &positions, 0, depth).element_this(element_this);
                return Ok(walker.run(walk::Root::Function(expr)));
            }
            Err(body_error.expect("a body that parsed returned above"))
        }
        Err(errors) => {
            let expr_error = failure(first_error!(errors), &positions, 0);
            let body_error = body_error.expect("a body that parsed returned above");
            // The reading that got further is the likelier intent.
            if (expr_error.line, expr_error.column) > (body_error.line, body_error.column) {
                Err(expr_error)
            } else {
                Err(body_error)
            }
        }
    }
}

/// The wrapper function, if the parsed body is exactly it; else the offset
/// where the code broke out of it.
fn wrapper<'a>(body: &'a [Statement<'a>], len: usize) -> Result<&'a Function<'a>, u32> {
    if let [Statement::ExpressionStatement(stmt)] = body
        && let Expression::FunctionExpression(f) = &stmt.expression
        && f.span.start == 1
        && f.span.end as usize == len - 1
    {
        return Ok(f);
    }
    let at = body
        .iter()
        .map(|s| oxc_span::GetSpan::span(s).end)
        .next()
        .unwrap_or(0);
    Err(at)
}

fn failure(error: Option<(String, u32)>, positions: &Positions, base: u32) -> ParseFailure {
    let (message, offset) = error.unwrap_or_else(|| ("the code does not parse".to_owned(), 0));
    positions.failure(message, offset.saturating_sub(base))
}

/// From offsets in the code to lines and columns. The line starts are found
/// the first time a place is asked for: most scripts name few places, and
/// scanning every byte of a 100 KB script up front cost a twentieth of its
/// analysis (callgrind).
pub(super) struct Positions<'c> {
    code: &'c str,
    /// Whether the code is ASCII, and where its lines start.
    lines: std::cell::OnceCell<(bool, Vec<usize>)>,
}

impl<'c> Positions<'c> {
    fn new(code: &'c str) -> Positions<'c> {
        Positions {
            code,
            lines: std::cell::OnceCell::new(),
        }
    }

    /// The code's length in bytes.
    pub(super) fn len(&self) -> usize {
        self.code.len()
    }

    fn lines(&self) -> &(bool, Vec<usize>) {
        self.lines.get_or_init(|| {
            let mut line_starts = vec![0];
            let b = self.code.as_bytes();
            let mut i = 0;
            while i < b.len() {
                match b[i] {
                    b'\n' => line_starts.push(i + 1),
                    b'\r' if b.get(i + 1) != Some(&b'\n') => line_starts.push(i + 1),
                    // U+2028 and U+2029 end lines in JavaScript.
                    0xE2 if b.get(i + 1) == Some(&0x80)
                        && matches!(b.get(i + 2), Some(0xA8 | 0xA9)) =>
                    {
                        line_starts.push(i + 3);
                    }
                    _ => {}
                }
                i += 1;
            }
            (self.code.is_ascii(), line_starts)
        })
    }

    /// Line and column of `offset` (bytes into the code), clamped to it.
    pub(super) fn at(&self, offset: u32) -> (u32, u32) {
        let mut offset = (offset as usize).min(self.code.len());
        while !self.code.is_char_boundary(offset) {
            offset -= 1;
        }
        let (ascii, line_starts) = self.lines();
        let line = line_starts.partition_point(|&s| s <= offset);
        let start = line_starts[line - 1];
        // Counting characters scans the line: skip it for ASCII code, where
        // a long minified line would make every finding cost its length.
        let column = if *ascii {
            offset - start + 1
        } else {
            self.code[start..offset].chars().count() + 1
        };
        (line as u32, column as u32)
    }

    /// `line:column` of `offset`.
    pub(super) fn label(&self, offset: u32) -> String {
        let (l, c) = self.at(offset);
        format!("{l}:{c}")
    }

    fn failure(&self, message: String, offset: u32) -> ParseFailure {
        let (line, column) = self.at(offset);
        ParseFailure {
            message,
            line,
            column,
        }
    }
}
