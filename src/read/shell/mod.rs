//! What a shell command (Claude Code's `Bash` tool) can fetch: the commands
//! in it that make HTTP requests, the URLs they are given, and how many
//! requests can run. The profile paces a command that makes at most one
//! request and blocks the rest, as it does scripts.
//!
//! The command is parsed as bash parses it, by `brush-parser` (the parser of
//! the brush shell), then walked word by word: quoting, `$'…'`, escapes,
//! here-documents, command and process substitutions, functions and aliases
//! defined in the same command, and the programs that run other programs
//! (`env`, `command`, `sudo`, `timeout`, `xargs`, `bash -c`, `eval`, …) are
//! followed to the command that really runs. Before any of that,
//! [`prefilter::needs_parse`] lets through at once a command that cannot lead
//! to a request: most shell commands.
//!
//! **Why brush-parser** (compared 2026-12-01, each fed the same commands in
//! a fresh release process): brush-parser 0.3 (MIT, pure Rust, the parser of
//! a bash-compatible shell tested against bash; pipes, `&&`, `;`, loops,
//! `$(…)`, backquotes, here-docs, `$'…'`, `[[ ]]`, arrays, process
//! substitution all parse; 25-55 µs a command; its dependencies are mostly
//! compile-time macros). tree-sitter-bash 0.25 parses the same, but as a
//! grammar that recovers from errors (an unterminated quote is an `ERROR`
//! node inside a tree, not a failure), through a C runtime and the `regex`
//! crate, in 90-250 µs, and doubles the binary. yash-syntax is POSIX only,
//! async, and GPL-3.0 (not linkable into this MIT/Apache binary).
//! conch-parser's last release is from 2019 (POSIX only, unmaintained).
//! shuck-parser and rable are weeks-old 0.0/0.1 crates of one author each.
//! brush-parser 0.4.0 makes `insta` (snapshot tests) a run-time dependency,
//! so 0.3.0 is pinned.
//!
//! The invariant, as for scripts: the count never says fewer requests than
//! the command can make. What cannot be read is unknown, never "nothing":
//! a URL built at run time reaches any site; a word that may split into
//! several (`curl $URLS`), a loop, `xargs`, `parallel`, `find -exec`,
//! `watch`, `&` and `--retry` make a request many; code the walk cannot see
//! (`eval` of text built at run time, `curl -K file`, `wget -i file`, a shell
//! or interpreter fed from a pipe) is opaque, and the caller blocks.
//!
//! Decisions, each with a row in `tests/fixtures/shell.toml`:
//! - `if`, `case`, `&&` and `||` add up every branch (a shell command is
//!   short; adding is never fewer).
//! - A function counts where it is called, once per call; an alias defined
//!   with `alias` in the same command is expanded where it is used.
//! - Interpreters given code inline: `node -e`, `deno eval` and `bun -e`
//!   code goes through the JavaScript analyser; Python, Ruby, Perl, PHP,
//!   Lua, R and PowerShell code is not parsed: every URL literal in it is a
//!   request to its site, code that names an HTTP library but no URL is one
//!   request to any site (paced against every known site, the README's rule
//!   for unreadable URLs), code with a loop beside a request is many, and
//!   code that runs other code (`exec`, `eval`, `subprocess`, `system`) is
//!   opaque.
//! - A program the walk does not know (`git clone https://…`, a script run
//!   by name) that is given a URL is one request to that URL's site; a script
//!   run by name (`python scrape.py`, `./run.sh`, `source x.sh`) cannot be
//!   seen into and is reported in [`Analysis::scripts`], to be logged.
//! - `pace-hook run -- cmd` paces its command itself: it counts nothing
//!   here (a loop around it is the way to make many requests), but its
//!   command must make at most one request.

mod code;
pub(crate) mod prefilter;
mod words;

#[cfg(test)]
mod corpus;

use std::collections::HashMap;

use brush_parser::ast;

use words::Arg;

use crate::names::{Names, names};

/// A request a command can make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    /// What makes it, for the model: "`curl` at 1:1".
    pub(crate) what: String,
    /// URLs (or hosts) it may go to, as written.
    pub(crate) urls: Vec<String>,
    /// Its site cannot be told (a URL built at run time): every known site.
    pub(crate) any_site: bool,
    /// Why it may run more than once, if it may.
    pub(crate) repeat: Option<String>,
}

/// What the walk found in a command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Analysis {
    /// Every request, in order.
    pub(crate) requests: Vec<Request>,
    /// What runs code the walk cannot see into: the caller blocks.
    pub(crate) opaque: Vec<String>,
    /// Scripts run by name, which may make requests of their own.
    pub(crate) scripts: Vec<String>,
    /// A `curl` asked to print the response's status and headers (`-i`,
    /// `-I`, `-D -`, `-v`), or its code alone (`-w '%{http_code}'`).
    pub(crate) shows_status: bool,
}

impl Analysis {
    /// Why the command can make more than one request, if it can.
    pub(crate) fn many(&self) -> Option<String> {
        if let Some(r) = self.requests.iter().find(|r| r.repeat.is_some()) {
            return Some(format!("{} {}", r.what, r.repeat.as_deref().unwrap_or("")));
        }
        (self.requests.len() > 1).then(|| {
            let mut list: Vec<&str> = self
                .requests
                .iter()
                .take(4)
                .map(|r| r.what.as_str())
                .collect();
            let more = self.requests.len().saturating_sub(4);
            let last = format!("{more} more");
            if more > 0 {
                list.push(&last);
            }
            format!("{} requests: {}", self.requests.len(), join_and(&list))
        })
    }
}

/// `a`, `a and b`, `a, b and c`: a list as the messages write one.
pub(crate) fn join_and(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The longest command read; longer ones are opaque. Claude Code's own
/// commands are a few hundred bytes; 64 KiB holds a long here-document.
pub(crate) const MAX_COMMAND: usize = 64 * 1024;

/// How deep commands inside commands (`bash -c "eval '…'"`, substitutions)
/// are followed.
const MAX_DEPTH: u32 = 8;

/// The stack the parse runs on, per byte of command beyond a base: brush's
/// parser recurses once per level of nesting, and an overflow would abort
/// the hook with a code that lets the call through. Inline JavaScript is
/// analysed on the same stack, and needs up to 10 KiB a byte (see
/// `script::analyse`). Reserved, not touched, beyond what the parse uses.
const STACK_PER_BYTE: usize = 12 * 1024;

/// Analyse `command`, run by bash; `background` when the tool runs it in the
/// background (Claude Code's `run_in_background`).
pub(crate) fn analyse(command: &str, background: bool) -> Analysis {
    if command.len() > MAX_COMMAND {
        return Analysis {
            opaque: vec![format!(
                "the command is {} KiB long; pace-hook reads commands of up to {} KiB",
                command.len() / 1024,
                MAX_COMMAND / 1024
            )],
            ..Analysis::default()
        };
    }
    let run = || {
        let mut w = Walker::default();
        let ctx = Ctx {
            repeat: background.then(|| {
                "runs in the background (`run_in_background`), where its end cannot be seen"
                    .to_owned()
            }),
            ..Ctx::default()
        };
        w.program(command, &ctx, "");
        if w.steps.get() > MAX_STEPS {
            w.out
                .opaque
                .push(format!("more than {MAX_STEPS} commands to follow"));
        }
        w.out
    };
    crate::read::script::stack::run_on((4 << 20) + command.len() * STACK_PER_BYTE, run)
        .unwrap_or_else(|e| Analysis {
            opaque: vec![format!("no stack to read the command on: {e}")],
            ..Analysis::default()
        })
}

/// Where a command runs.
#[derive(Debug, Clone, Default)]
struct Ctx {
    /// Why what runs here may run many times.
    repeat: Option<String>,
    /// Its standard input is a pipe.
    piped: bool,
    /// Where, for messages: " in `bash -c`".
    inside: String,
}

impl Ctx {
    fn repeated(&self, why: &str) -> Ctx {
        Ctx {
            repeat: Some(self.repeat.clone().unwrap_or_else(|| why.to_owned())),
            ..self.clone()
        }
    }

    fn within(&self, what: &str) -> Ctx {
        Ctx {
            inside: format!(" inside {what}{}", self.inside),
            ..self.clone()
        }
    }
}

/// What a command's standard input is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stdin {
    /// Whatever the tool gives it: nothing to read.
    None,
    /// A pipe or a file: text the walk cannot see.
    Unseen(String),
    /// A here-document or here-string with this text (`None`: built at run
    /// time).
    Text(Option<String>),
}

#[derive(Default)]
struct Walker {
    out: Analysis,
    functions: HashMap<String, ast::FunctionBody>,
    aliases: HashMap<String, String>,
    depth: u32,
    calling: Vec<String>,
    /// Commands followed so far, shared with every sub-walk: functions that
    /// call each other twice over (`f(){ g; g; }; g(){ h; h; }; …`) would
    /// otherwise take time exponential in the command's length, and a hook
    /// that outlives its timeout lets the call through.
    steps: std::rc::Rc<std::cell::Cell<u32>>,
}

/// The most commands one analysis follows; past it the command is opaque.
const MAX_STEPS: u32 = 20_000;

impl Walker {
    /// Parse and walk `text` as a shell program.
    fn program(&mut self, text: &str, ctx: &Ctx, what: &str) {
        if self.depth >= MAX_DEPTH {
            self.opaque(ctx, &format!("commands nested more than {MAX_DEPTH} deep"));
            return;
        }
        let options = brush_parser::ParserOptions::default();
        let source = brush_parser::SourceInfo::default();
        let mut parser =
            brush_parser::Parser::new(std::io::BufReader::new(text.as_bytes()), &options, &source);
        match parser.parse_program() {
            Ok(program) => {
                self.depth += 1;
                for list in &program.complete_commands {
                    self.list(list, ctx);
                }
                self.depth -= 1;
            }
            Err(e) => {
                let what = if what.is_empty() {
                    "the command".to_owned()
                } else {
                    format!("the {what} text")
                };
                self.opaque(ctx, &format!("{what} does not parse as bash ({e})"));
            }
        }
    }

    fn opaque(&mut self, ctx: &Ctx, what: &str) {
        self.out.opaque.push(format!("{what}{}", ctx.inside));
    }

    fn request(&mut self, ctx: &Ctx, what: String, urls: Vec<String>, any_site: bool) {
        self.out.requests.push(Request {
            what: format!("{what}{}", ctx.inside),
            urls,
            any_site,
            repeat: ctx.repeat.clone(),
        });
    }

    fn list(&mut self, list: &ast::CompoundList, ctx: &Ctx) {
        for ast::CompoundListItem(and_or, sep) in &list.0 {
            let ctx = match sep {
                ast::SeparatorOperator::Async => {
                    ctx.repeated("runs in the background (`&`), beside what follows")
                }
                ast::SeparatorOperator::Sequence => ctx.clone(),
            };
            self.pipeline(&and_or.first, &ctx);
            for more in &and_or.additional {
                match more {
                    ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p, &ctx),
                }
            }
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline, ctx: &Ctx) {
        for (i, command) in p.seq.iter().enumerate() {
            let ctx = Ctx {
                piped: ctx.piped || i > 0,
                ..ctx.clone()
            };
            self.command(command, &ctx);
        }
    }

    fn command(&mut self, command: &ast::Command, ctx: &Ctx) {
        match command {
            ast::Command::Simple(simple) => self.simple(simple, ctx),
            ast::Command::Compound(compound, redirects) => {
                let stdin = redirects
                    .as_ref()
                    .map(|r| self.redirects(r.0.iter(), ctx))
                    .unwrap_or(Stdin::None);
                let ctx = Ctx {
                    piped: ctx.piped || stdin != Stdin::None,
                    ..ctx.clone()
                };
                self.compound(compound, &ctx);
            }
            ast::Command::Function(def) => {
                let name = words::literal(&def.fname.value).unwrap_or_default();
                if name == "command_not_found_handle" {
                    // bash runs it for every command it cannot find.
                    self.opaque(ctx, "a `command_not_found_handle` function, which runs in place of any missing command");
                }
                self.functions.insert(name, def.body.clone());
            }
            ast::Command::ExtendedTest(test) => self.test(&test.expr, ctx),
        }
    }

    fn test(&mut self, expr: &ast::ExtendedTestExpr, ctx: &Ctx) {
        use ast::ExtendedTestExpr as E;
        match expr {
            E::And(a, b) | E::Or(a, b) => {
                self.test(a, ctx);
                self.test(b, ctx);
            }
            E::Not(a) | E::Parenthesized(a) => self.test(a, ctx),
            E::UnaryTest(_, w) => {
                self.word(w, ctx);
            }
            E::BinaryTest(_, a, b) => {
                self.word(a, ctx);
                self.word(b, ctx);
            }
        }
    }

    fn compound(&mut self, c: &ast::CompoundCommand, ctx: &Ctx) {
        use ast::CompoundCommand as C;
        match c {
            C::Arithmetic(a) => {
                self.arithmetic(&a.expr.value, ctx);
                // brush-parser 0.3 reads `( ( cmd ) )`, two subshells in
                // bash, as `((…))`: text that also reads as commands is
                // walked as commands too (arithmetic that happens to parse,
                // `i++`, names no fetcher and counts nothing).
                self.maybe_commands(&a.expr.value, ctx);
            }
            C::ArithmeticForClause(f) => {
                let inner = ctx.repeated("runs inside a `for ((…))` loop");
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&e.value, &inner);
                }
                self.list(&f.body.list, &inner);
            }
            C::BraceGroup(b) => self.list(&b.list, ctx),
            C::Subshell(s) => self.list(&s.list, ctx),
            C::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.word(w, ctx);
                }
                self.list(&f.body.list, &ctx.repeated("runs inside a `for` loop"));
            }
            C::CaseClause(c) => {
                self.word(&c.value, ctx);
                for item in &c.cases {
                    for p in &item.patterns {
                        self.word(p, ctx);
                    }
                    if let Some(cmd) = &item.cmd {
                        self.list(cmd, ctx);
                    }
                }
            }
            C::IfClause(i) => {
                self.list(&i.condition, ctx);
                self.list(&i.then, ctx);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c, ctx);
                    }
                    self.list(&e.body, ctx);
                }
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                let inner = ctx.repeated("runs inside a `while` or `until` loop");
                self.list(&w.0, &inner);
                self.list(&w.1.list, &inner);
            }
        }
    }

    /// Walk `text` as commands if it parses as such; text that does not is
    /// something else (arithmetic), and nothing in it runs.
    fn maybe_commands(&mut self, text: &str, ctx: &Ctx) {
        let mut sub = Walker {
            functions: self.functions.clone(),
            aliases: self.aliases.clone(),
            depth: self.depth,
            steps: self.steps.clone(),
            ..Walker::default()
        };
        sub.program(text, ctx, "");
        if !sub.out.opaque.iter().any(|o| o.contains("does not parse")) {
            self.out.requests.extend(sub.out.requests);
            self.out.opaque.extend(sub.out.opaque);
            self.out.scripts.extend(sub.out.scripts);
            self.out.shows_status |= sub.out.shows_status;
        }
    }

    /// An arithmetic expression's text: only a substitution in it runs.
    fn arithmetic(&mut self, text: &str, ctx: &Ctx) {
        if text.contains("$(") || text.contains('`') {
            self.opaque(
                ctx,
                "a command substitution inside an arithmetic expression",
            );
        }
    }

    /// Walk the substitutions in a word and read its value.
    fn word(&mut self, w: &ast::Word, ctx: &Ctx) -> Arg {
        let (arg, substitutions, trouble) = words::read(&w.value);
        for s in substitutions {
            self.program(
                &s,
                &ctx.within("a command substitution"),
                "command substitution",
            );
        }
        if let Some(t) = trouble {
            self.opaque(ctx, &t);
        }
        arg
    }

    /// Walk redirections; returns what standard input becomes.
    fn redirects<'a>(
        &mut self,
        redirects: impl Iterator<Item = &'a ast::IoRedirect>,
        ctx: &Ctx,
    ) -> Stdin {
        let mut stdin = Stdin::None;
        for r in redirects {
            match r {
                ast::IoRedirect::File(fd, kind, target) => {
                    let input = matches!(kind, ast::IoFileRedirectKind::Read)
                        && fd.is_none_or(|fd| fd == 0);
                    match target {
                        ast::IoFileRedirectTarget::Filename(w)
                        | ast::IoFileRedirectTarget::Duplicate(w) => {
                            let a = self.word(w, ctx);
                            self.dev_tcp(&a, ctx);
                            if input {
                                stdin = Stdin::Unseen(format!(
                                    "the file `{}`",
                                    a.lit.as_deref().unwrap_or(&w.value)
                                ));
                            }
                        }
                        ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                            self.list(&sub.list, &ctx.within("a process substitution"));
                            if input {
                                stdin = Stdin::Unseen("a process substitution".to_owned());
                            }
                        }
                        ast::IoFileRedirectTarget::Fd(_) => {}
                    }
                }
                ast::IoRedirect::HereDocument(fd, doc) => {
                    let text = if doc.requires_expansion {
                        let raw = &doc.doc.value;
                        if raw.contains(['$', '`', '\\']) {
                            // Its substitutions run; its text is only known
                            // at run time.
                            let (_, subs, trouble) = words::read_heredoc(raw);
                            for s in subs {
                                self.program(
                                    &s,
                                    &ctx.within("a here-document"),
                                    "command substitution",
                                );
                            }
                            if let Some(t) = trouble {
                                self.opaque(ctx, &t);
                            }
                            None
                        } else {
                            Some(raw.clone())
                        }
                    } else {
                        Some(doc.doc.value.clone())
                    };
                    if fd.is_none_or(|fd| fd == 0) {
                        stdin = Stdin::Text(text);
                    }
                }
                ast::IoRedirect::HereString(fd, w) => {
                    let a = self.word(w, ctx);
                    if fd.is_none_or(|fd| fd == 0) {
                        stdin = Stdin::Text(a.lit);
                    }
                }
                ast::IoRedirect::OutputAndError(w, _) => {
                    self.word(w, ctx);
                }
            }
        }
        stdin
    }

    fn simple(&mut self, cmd: &ast::SimpleCommand, ctx: &Ctx) {
        let mut argv: Vec<Arg> = Vec::new();
        let mut redirects: Vec<&ast::IoRedirect> = Vec::new();
        let mut concurrent: Vec<&ast::SubshellCommand> = Vec::new();
        for item in cmd.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                    self.word(w, ctx);
                }
                ast::CommandPrefixOrSuffixItem::Word(w) => argv.push(self.word(w, ctx)),
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r),
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, s) => concurrent.push(s),
            }
        }
        if let Some(w) = &cmd.word_or_name {
            let mut a = self.word(w, ctx);
            a.place = w.loc.as_ref().map(|l| (l.start.line, l.start.column));
            argv.push(a);
        }
        for item in cmd.suffix.iter().flat_map(|s| s.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w)
                | ast::CommandPrefixOrSuffixItem::Word(w) => argv.push(self.word(w, ctx)),
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r),
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, s) => concurrent.push(s),
            }
        }
        for s in concurrent {
            self.list(&s.list, &ctx.within("a process substitution"));
        }
        let mut stdin = self.redirects(redirects.into_iter(), ctx);
        if stdin == Stdin::None && ctx.piped {
            stdin = Stdin::Unseen("a pipe".to_owned());
        }
        if !argv.is_empty() {
            self.run(&argv, &stdin, ctx);
        }
    }

    /// Run `argv` (its name first), reading `stdin`.
    fn run(&mut self, argv: &[Arg], stdin: &Stdin, ctx: &Ctx) {
        self.steps.set(self.steps.get() + 1);
        if self.steps.get() > MAX_STEPS {
            // Said once, by `analyse`, whichever walk got here.
            return;
        }
        let name_arg = &argv[0];
        let args = &argv[1..];
        let at = name_arg
            .place
            .map(|(l, c)| format!(" at {l}:{c}"))
            .unwrap_or_default();
        let Some(name) = name_arg.lit.clone() else {
            // `$CMD …`, `$(…) …`, `$'\x63url'` with an escape not read: any
            // program, so any fetcher.
            // Each URL may be a request of its own; every other word it is
            // given may be a host (`$F example.com`).
            let urls = urls_in(args);
            let hosts: Vec<String> = operands(args, "", names![])
                .into_iter()
                .filter_map(|a| a.lit)
                .filter(|l| !l.contains("://") && !l.is_empty())
                .collect();
            let n = urls.len().max(1);
            for i in 0..n {
                let mut to: Vec<String> = urls.get(i).cloned().into_iter().collect();
                if i == 0 {
                    to.extend(hosts.iter().cloned());
                }
                self.request(
                    ctx,
                    format!(
                        "a command whose name is built at run time (`{}`){at}",
                        name_arg.raw
                    ),
                    to,
                    true,
                );
            }
            return;
        };
        // Functions and aliases of this command first, as bash looks them up.
        if let Some(body) = self.functions.get(&name).cloned() {
            if self.calling.contains(&name) {
                self.opaque(ctx, &format!("the function `{name}` calls itself"));
                return;
            }
            self.calling.push(name.clone());
            self.compound(&body.0, &ctx.within(&format!("the function `{name}`")));
            self.calling.pop();
            return;
        }
        if let Some(value) = self.aliases.get(&name).cloned() {
            let rest: Vec<String> = args.iter().map(|a| a.raw.clone()).collect();
            let text = format!("{value} {}", rest.join(" "));
            self.aliases.remove(&name);
            self.program(&text, &ctx.within(&format!("the alias `{name}`")), "alias");
            self.aliases.insert(name, value);
            return;
        }
        let base = program_name(&name);
        let label = |s: &str| format!("`{s}`{at}");
        match base.as_str() {
            "alias" => {
                for a in args {
                    match a.lit.as_deref().and_then(|l| l.split_once('=')) {
                        Some((n, v)) => {
                            self.aliases.insert(n.to_owned(), v.to_owned());
                        }
                        None if a.lit.is_none() => {
                            self.opaque(ctx, "an `alias` built at run time");
                        }
                        None => {}
                    }
                }
            }
            "eval" => match literal_all(args) {
                Some(text) => self.program(&text, &ctx.within("`eval`"), "`eval`"),
                None => self.opaque(ctx, &format!("`eval` of text built at run time{at}")),
            },
            "source" | "." => match args.first().and_then(|a| a.lit.as_deref()) {
                Some(file) => self.out.scripts.push(format!("{base} {file}")),
                // `source <(curl …)`, `. "$F"`: code that only exists at run time.
                None => self.opaque(
                    ctx,
                    &format!("`{base}`{at} runs code that exists only at run time"),
                ),
            },
            // `hash -p /usr/bin/curl get`: `get` runs curl from now on.
            "hash" => {
                if let [flag, path, names @ ..] = args
                    && flag.lit.as_deref() == Some("-p")
                {
                    for n in names {
                        match (&path.lit, &n.lit) {
                            (Some(p), Some(n)) => {
                                self.aliases.insert(n.clone(), p.clone());
                            }
                            _ => self.opaque(ctx, "a `hash -p` built at run time"),
                        }
                    }
                }
            }
            "trap" => {
                // `trap 'cmd' EXIT`: the text runs when the signal comes.
                if let Some(a) = args
                    .first()
                    .filter(|a| !a.lit.as_deref().is_some_and(|l| l.starts_with('-')))
                {
                    match a.lit.as_deref() {
                        Some(t) => self.program(t, &ctx.within("`trap`"), "`trap`"),
                        None => self.opaque(ctx, "a `trap` of text built at run time"),
                    }
                }
            }
            "coproc" => self.run(
                args,
                stdin,
                &ctx.repeated("runs in the background (`coproc`), beside what follows"),
            ),
            "spawn" => self.run(args, stdin, ctx),
            "awk" | "gawk" | "mawk" | "nawk" | "sed" | "gsed" => {
                // awk's `system()`, `"cmd" | getline` and `/inet/tcp`, sed's
                // `e`: their programs can run commands or connect.
                let runs = args.iter().any(|a| match a.lit.as_deref() {
                    Some(t) => {
                        prefilter::names_a_trigger(t)
                            || ["system", "getline", "|&", "/inet", "print |", "printf |"]
                                .iter()
                                .any(|w| t.contains(w) && base.ends_with("awk"))
                    }
                    None => false,
                });
                if runs {
                    self.opaque(
                        ctx,
                        &format!("`{base}`{at} may run what its program names as a command"),
                    );
                }
            }
            "command" | "builtin" | "exec" | "nohup" | "time" | "setsid" | "unbuffer"
            | "caffeinate" | "torsocks" | "tsocks" | "proxychains" | "proxychains4"
            | "firejail" | "xvfb-run" | "strace" | "ltrace" | "nice" | "ionice" | "doas"
            | "sudo" | "stdbuf" | "chrt" | "taskset" | "env" | "timeout" | "flock" | "busybox"
            | "toybox" => self.wrapper(&base, argv, stdin, ctx),
            "xargs" => {
                let rest = skip_options(args, "adEeIiLlnPsS", XARGS_LONG);
                let ctx = ctx.repeated("runs once per input item, under `xargs`");
                if rest.is_empty() {
                    return;
                }
                // Its input items are appended to the command's arguments.
                let mut argv = rest.to_vec();
                argv.push(Arg::unknown("the items `xargs` reads"));
                self.run(&argv, &Stdin::None, &ctx);
            }
            "parallel" => {
                let cmd: Vec<Arg> = args
                    .iter()
                    .take_while(|a| !a.lit.as_deref().is_some_and(|l| l.starts_with(":::")))
                    .cloned()
                    .collect();
                let rest = skip_options(&cmd, "jJSa", names![]);
                if rest.is_empty() {
                    self.opaque(ctx, "`parallel` runs commands read from its input");
                    return;
                }
                // Its inputs are appended to the command (or replace `{}`).
                let text = rest
                    .iter()
                    .map(|a| a.raw.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
                    + " $PARALLEL_INPUT";
                self.program(
                    &text,
                    &ctx.repeated("runs once per input, several at a time, under `parallel`"),
                    "`parallel`",
                );
            }
            "watch" => {
                let rest = skip_options(args, "nqc", names!["interval"]);
                let text = rest
                    .iter()
                    .map(|a| a.raw.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                self.program(
                    &text,
                    &ctx.repeated("runs again and again under `watch`"),
                    "`watch`",
                );
            }
            "find" => {
                let mut i = 0;
                while i < args.len() {
                    let l = args[i].lit.as_deref().unwrap_or("");
                    if matches!(l, "-exec" | "-execdir" | "-ok" | "-okdir") {
                        let end = args[i + 1..]
                            .iter()
                            .position(|a| matches!(a.lit.as_deref(), Some(";" | "+")))
                            .map_or(args.len(), |p| i + 1 + p);
                        if end > i + 1 {
                            self.run(
                                &args[i + 1..end],
                                &Stdin::None,
                                &ctx.repeated("runs once per file found, under `find -exec`"),
                            );
                        }
                        i = end;
                    }
                    i += 1;
                }
            }
            "su" | "script" | "runuser" => {
                if let Some(text) = option_value(args, 'c', "command") {
                    match text.lit.as_deref() {
                        Some(t) => self.program(t, &ctx.within(&format!("`{base} -c`")), "`-c`"),
                        None => self.opaque(ctx, &format!("`{base} -c` of text built at run time")),
                    }
                }
            }
            "pace-hook" => self.pace_hook(args, ctx),
            s if SHELLS.contains(s) => self.shell(&base, args, stdin, ctx),
            "curl" => self.curl(args, ctx, &label(&base)),
            "wget" | "wget2" => self.wget(args, ctx, &label(&base)),
            "http" | "https" | "httpie" | "xh" | "xhs" | "curlie" => {
                self.httpie(&base, args, ctx, &label(&base))
            }
            "aria2c" => {
                if option_value(args, 'i', "input-file").is_some() {
                    self.opaque(ctx, &format!("`aria2c -i` reads URLs from a file{at}"));
                }
                let ops = operands(args, "dodsxjktmluUi", ARIA_LONG);
                self.urls_each(&ops, ctx, &label(&base));
            }
            "lynx" | "w3m" | "links" | "elinks" => {
                if args.iter().any(|a| {
                    matches!(
                        a.lit.as_deref(),
                        Some("-crawl" | "-traversal" | "-recursive")
                    )
                }) {
                    self.request(ctx, label(&base), urls_in(args), false);
                    self.out.requests.last_mut().expect("just pushed").repeat =
                        Some("crawls (`-crawl`/`-traversal`): many pages".to_owned());
                    return;
                }
                let ops = operands_single_dash(args, TEXT_BROWSER_VALUED);
                self.urls_each(&ops, ctx, &label(&base));
            }
            "gh" => self.gh(args, ctx, &label(&base)),
            "nc" | "ncat" | "netcat" | "telnet" | "socat" => {
                if args.iter().any(|a| {
                    a.lit.as_deref().is_some_and(|l| {
                        l == "-l"
                            || l == "--listen"
                            || (l.starts_with('-') && !l.starts_with("--") && l.contains('l'))
                    })
                }) {
                    return;
                }
                let ops = operands(args, "pswWiqxXIOT", names![]);
                match ops.first().and_then(|a| a.lit.clone()) {
                    Some(host) if base != "socat" => {
                        self.request(ctx, label(&base), vec![format!("http://{host}")], false)
                    }
                    _ => self.request(ctx, label(&base), Vec::new(), true),
                }
            }
            "openssl" => {
                if args.first().and_then(|a| a.lit.as_deref()) == Some("s_client") {
                    match option_value_single(args, "-connect") {
                        Some(Arg { lit: Some(h), .. }) => self.request(
                            ctx,
                            label("openssl s_client"),
                            vec![format!("http://{h}")],
                            false,
                        ),
                        _ => self.request(ctx, label("openssl s_client"), Vec::new(), true),
                    }
                }
            }
            "chromium"
            | "chromium-browser"
            | "google-chrome"
            | "google-chrome-stable"
            | "chrome"
            | "firefox"
            | "msedge"
            | "headless_shell"
            | "httpx"
            | "links2" => {
                let ops = operands(args, "", names![]);
                self.urls_each(&ops, ctx, &label(&base));
            }
            "ab" | "hey" | "wrk" | "siege" | "oha" | "k6" | "vegeta" | "bombardier" => {
                self.request(ctx, label(&base), urls_in(args), urls_in(args).is_empty());
                self.out.requests.last_mut().expect("just pushed").repeat =
                    Some("is a load tester: it sends many requests by design".to_owned());
            }
            "yt-dlp" | "youtube-dl" | "gallery-dl" | "httrack" => {
                self.request(ctx, label(&base), urls_in(args), urls_in(args).is_empty());
                self.out.requests.last_mut().expect("just pushed").repeat =
                    Some("fetches a page and then everything it links to".to_owned());
            }
            "hurl" => self.opaque(
                ctx,
                &format!("`hurl`{at} runs the requests listed in its files"),
            ),
            "fetch" | "ftp" | "lftp" | "grpcurl" | "websocat" | "wscat" | "lwp-request"
            | "lwp-download" | "get" | "head" | "post" | "put" | "iwr" | "irm"
            | "invoke-webrequest" | "invoke-restmethod"
                if base != "head" || name.ends_with("HEAD") =>
            {
                let ops = operands(args, "", names![]);
                self.urls_each(&ops, ctx, &label(&base));
            }
            "open" | "xdg-open" => {
                for a in args {
                    if a.lit.as_deref().is_none_or(|l| l.contains("://")) {
                        self.urls_each(std::slice::from_ref(a), ctx, &label(&base));
                    }
                }
            }
            _ => {
                if let Some(lang) = code::Lang::of(&base) {
                    self.interpreter(lang, &base, args, stdin, ctx, &at);
                    return;
                }
                if INERT.contains(&base) {
                    return;
                }
                // A program the walk does not know: given a URL, it goes
                // there (`git clone https://…`); run by path, it is a
                // script that cannot be seen into.
                // It may run a command given as text (`ssh -o
                // ProxyCommand='curl …'`, `tar --to-command=…`, `git -c
                // alias.x='!curl …'`): text that names a fetcher and reads
                // as a command is walked as one it may run.
                let mut urls: Vec<String> = Vec::new();
                for a in args {
                    let Some(t) = a.lit.as_deref() else { continue };
                    if prefilter::names_a_trigger(t) {
                        let t = t
                            .split_once('=')
                            .map_or(t, |(_, v)| v)
                            .trim_start_matches('!');
                        let mut sub = Walker {
                            functions: self.functions.clone(),
                            aliases: self.aliases.clone(),
                            depth: self.depth + 1,
                            steps: self.steps.clone(),
                            ..Walker::default()
                        };
                        sub.program(
                            t,
                            &ctx.within(&format!("text given to `{base}`")),
                            "argument",
                        );
                        if sub.out.opaque.is_empty() && !sub.out.requests.is_empty() {
                            self.out.requests.extend(sub.out.requests);
                            continue;
                        }
                    }
                    if t.contains("://") {
                        urls.push(t.to_owned());
                    }
                }
                if !urls.is_empty() {
                    self.request(ctx, label(&base), urls, false);
                }
                // Text fed to it that reads as commands (`at now <<< 'curl
                // …'`, `ssh host <<EOF`) may be run.
                if let Stdin::Text(Some(t)) = stdin
                    && prefilter::names_a_trigger(t)
                {
                    self.maybe_commands(t, &ctx.within(&format!("the text fed to `{base}`")));
                }
                if name.contains('/') {
                    self.out.scripts.push(name.clone());
                }
            }
        }
    }

    /// One request per operand, each a URL.
    fn urls_each(&mut self, ops: &[Arg], ctx: &Ctx, label: &str) {
        for a in ops {
            match &a.lit {
                Some(l) => self.request(ctx, label.to_owned(), vec![l.clone()], false),
                None if a.splits => {
                    self.request(ctx, label.to_owned(), Vec::new(), true);
                    self.out
                        .requests
                        .last_mut()
                        .expect("just pushed")
                        .repeat
                        .get_or_insert_with(|| {
                            format!("is given `{}`, which may expand to several URLs", a.raw)
                        });
                }
                None => match a.url_with_known_host() {
                    Some(u) => self.request(ctx, label.to_owned(), vec![u], false),
                    None => self.request(ctx, label.to_owned(), Vec::new(), true),
                },
            }
        }
    }

    /// Programs that run the program named in their arguments.
    fn wrapper(&mut self, base: &str, argv: &[Arg], stdin: &Stdin, ctx: &Ctx) {
        let args = &argv[1..];
        let rest: &[Arg] = match base {
            "command" => {
                if args.iter().take_while(|a| is_option(a)).any(|a| {
                    a.lit
                        .as_deref()
                        .is_some_and(|l| l.contains('v') || l.contains('V'))
                }) {
                    return; // `command -v curl` only says where curl is.
                }
                skip_options(args, "", names![])
            }
            "exec" => skip_options(args, "a", names![]),
            "nice" => skip_options(args, "n", names!["adjustment"]),
            "ionice" => skip_options(args, "cnp", names!["class", "classdata", "pid"]),
            "sudo" => skip_options(args, "ughpCDrtUTR", SUDO_LONG),
            "doas" => skip_options(args, "uC", names![]),
            "stdbuf" => skip_options(args, "ioe", names!["input", "output", "error"]),
            "time" => skip_options(args, "fo", names!["format", "output"]),
            "strace" | "ltrace" => skip_options(args, "eoOpPsSuIaAXbE", names![]),
            "firejail" | "proxychains" | "proxychains4" | "xvfb-run" => {
                skip_options(args, "fnse", names![])
            }
            "chrt" => {
                let r = skip_options(args, "", names![]);
                r.get(1..).unwrap_or(&[])
            }
            // `taskset MASK cmd`, `taskset -c LIST cmd`: one operand first.
            "taskset" => skip_options(args, "", names![]).get(1..).unwrap_or(&[]),
            "timeout" => {
                let r = skip_options(args, "sk", names!["signal", "kill-after"]);
                r.get(1..).unwrap_or(&[])
            }
            "flock" => {
                if let Some(text) = option_value(args, 'c', "command") {
                    match text.lit.as_deref() {
                        Some(t) => self.program(t, &ctx.within("`flock -c`"), "`-c`"),
                        None => self.opaque(ctx, "`flock -c` of text built at run time"),
                    }
                    return;
                }
                let r = skip_options(args, "wE", names!["timeout", "conflict-exit-code"]);
                r.get(1..).unwrap_or(&[])
            }
            "env" => {
                if let Some(s) = option_value(args, 'S', "split-string") {
                    match s.lit.as_deref() {
                        Some(t) => {
                            let rest = skip_env(args);
                            let more: Vec<&str> = rest.iter().map(|a| a.raw.as_str()).collect();
                            self.program(
                                &format!("{t} {}", more.join(" ")),
                                &ctx.within("`env -S`"),
                                "`env -S`",
                            );
                        }
                        None => self.opaque(ctx, "`env -S` of text built at run time"),
                    }
                    return;
                }
                skip_env(args)
            }
            _ => skip_options(args, "", names![]),
        };
        if !rest.is_empty() {
            self.run(rest, stdin, ctx);
        }
    }

    /// `bash -c '…'`, `sh script.sh`, `bash <<EOF`, `curl … | sh`.
    fn shell(&mut self, base: &str, args: &[Arg], stdin: &Stdin, ctx: &Ctx) {
        let mut command = false;
        let mut stdin_flag = false;
        let mut i = 0;
        while i < args.len() {
            let Some(l) = args[i].lit.as_deref() else {
                break;
            };
            if l == "--" {
                i += 1;
                break;
            }
            if l.starts_with("--") {
                if matches!(l, "--rcfile" | "--init-file") {
                    i += 1;
                }
                i += 1;
                continue;
            }
            if (l.starts_with('-') || l.starts_with('+')) && l.len() > 1 {
                command |= l.contains('c');
                stdin_flag |= l.contains('s');
                if l.contains('o') || l.contains('O') {
                    i += 1;
                }
                i += 1;
                continue;
            }
            break;
        }
        let inside = format!("`{base} -c`");
        if command {
            match args.get(i).map(|a| a.lit.as_deref()) {
                Some(Some(t)) => self.program(t, &ctx.within(&inside), &inside),
                Some(None) => self.opaque(ctx, &format!("{inside} of text built at run time")),
                None => {}
            }
            return;
        }
        if !stdin_flag && let Some(file) = args.get(i) {
            self.out.scripts.push(format!("{base} {}", file.shown()));
            return;
        }
        match stdin {
            Stdin::Text(Some(t)) => self.program(
                t,
                &ctx.within(&format!("the script fed to `{base}`")),
                "here-document",
            ),
            Stdin::Text(None) => self.opaque(
                ctx,
                &format!("`{base}` runs a here-document built at run time"),
            ),
            Stdin::Unseen(from) => self.opaque(
                ctx,
                &format!("`{base}` runs the commands it reads from {from}"),
            ),
            Stdin::None => {}
        }
    }

    /// bash's own sockets: a redirection to `/dev/tcp/HOST/PORT` connects.
    fn dev_tcp(&mut self, a: &Arg, ctx: &Ctx) {
        let what = "a redirection to bash's `/dev/tcp`".to_owned();
        match a.lit.as_deref() {
            Some(l) => {
                if let Some(rest) = l
                    .strip_prefix("/dev/tcp/")
                    .or_else(|| l.strip_prefix("/dev/udp/"))
                {
                    let host = rest.split('/').next().unwrap_or("");
                    self.request(ctx, what, vec![format!("http://{host}")], host.is_empty());
                }
            }
            None if a.raw.contains("/dev/") => self.request(ctx, what, Vec::new(), true),
            None => {}
        }
    }

    fn pace_hook(&mut self, args: &[Arg], ctx: &Ctx) {
        if args.first().and_then(|a| a.lit.as_deref()) != Some("run") {
            return;
        }
        let Some(dash) = args.iter().position(|a| a.lit.as_deref() == Some("--")) else {
            return;
        };
        let inner = &args[dash + 1..];
        if inner.is_empty() {
            return;
        }
        // Its own gate paces the command as one call: it must make at most
        // one request, whatever runs around it.
        let mut sub = Walker {
            functions: self.functions.clone(),
            aliases: self.aliases.clone(),
            depth: self.depth,
            steps: self.steps.clone(),
            ..Walker::default()
        };
        sub.run(inner, &Stdin::None, &Ctx::default());
        let many = sub.out.many();
        self.out.opaque.extend(sub.out.opaque);
        self.out.scripts.extend(sub.out.scripts);
        if let Some(why) = many {
            self.opaque(
                ctx,
                &format!("`pace-hook run` gives its command one turn, and the command can make more than one request ({why})"),
            );
        }
    }

    fn interpreter(
        &mut self,
        lang: code::Lang,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        ctx: &Ctx,
        at: &str,
    ) {
        let parsed = lang.read_args(args);
        let label = format!("`{base}`{at}");
        match parsed {
            code::Source::Inline(Some(text), flag) => {
                let what = format!("`{base} {flag}` code{at}");
                self.code(lang, &text, ctx, &what);
            }
            code::Source::Inline(None, flag) => {
                self.opaque(ctx, &format!("`{base} {flag}` code built at run time{at}"))
            }
            code::Source::Script(name) => self.out.scripts.push(format!("{base} {name}")),
            code::Source::Url(url) => {
                self.request(ctx, label.clone(), vec![url.clone()], false);
                self.out.scripts.push(format!("{base} {url}"));
            }
            code::Source::Stdin => match stdin {
                Stdin::Text(Some(t)) => {
                    let what = format!("the code fed to `{base}`{at}");
                    self.code(lang, t, ctx, &what);
                }
                Stdin::Text(None) => self.opaque(
                    ctx,
                    &format!("`{base}` runs a here-document built at run time{at}"),
                ),
                Stdin::Unseen(from) => self.opaque(
                    ctx,
                    &format!("`{base}` runs the code it reads from {from}{at}"),
                ),
                Stdin::None => {}
            },
            code::Source::Nothing => {}
        }
    }

    fn code(&mut self, lang: code::Lang, text: &str, ctx: &Ctx, what: &str) {
        let found = code::read(lang, text);
        if let Some(o) = found.opaque {
            self.opaque(ctx, &format!("{what} {o}"));
            return;
        }
        for r in found.requests {
            self.request(ctx, format!("{what}: {}", r.what), r.urls, r.any_site);
            if r.repeat.is_some() && ctx.repeat.is_none() {
                self.out.requests.last_mut().expect("just pushed").repeat = r.repeat;
            }
        }
    }

    fn curl(&mut self, args: &[Arg], ctx: &Ctx, label: &str) {
        let mut urls: Vec<Arg> = Vec::new();
        let mut globoff = false;
        let mut retry = false;
        let mut only_options = true;
        let parsed = options(args, CURL_SHORT, CURL_LONG);
        for p in &parsed {
            match p {
                Parsed::Operand(a) => {
                    urls.push(a.clone());
                    only_options = false;
                }
                Parsed::Flag(f, v) => match (f.as_str(), v) {
                    ("--url", Some(v)) => {
                        urls.push(v.clone());
                        only_options = false;
                    }
                    ("-g" | "--globoff", _) => globoff = true,
                    ("-K" | "--config", v) => {
                        let f = v.as_ref().map_or("?", |a| a.shown());
                        self.opaque(
                            ctx,
                            &format!("{label} reads more options, URLs among them, from the config file `{f}` (`-K`)"),
                        );
                    }
                    ("--retry", Some(v)) => {
                        retry |= v.lit.as_deref().is_none_or(|n| n.trim() != "0");
                    }
                    ("-i" | "--include" | "-I" | "--head" | "-v" | "--verbose", _) => {
                        self.out.shows_status = true
                    }
                    ("-D" | "--dump-header", Some(v))
                        if matches!(
                            v.lit.as_deref(),
                            Some("-" | "/dev/stdout" | "/dev/stderr")
                        ) =>
                    {
                        self.out.shows_status = true
                    }
                    ("-w" | "--write-out", Some(v))
                        if v.lit.as_deref().is_some_and(|w| {
                            w.contains("%{http_code}") || w.contains("%{response_code}")
                        }) =>
                    {
                        self.out.shows_status = true
                    }
                    _ => {}
                },
            }
        }
        let _ = only_options;
        for u in &urls {
            let before = self.out.requests.len();
            self.urls_each(std::slice::from_ref(u), ctx, label);
            if let Some(l) = &u.lit
                && !globoff
                && curl_globs(l)
            {
                self.out.requests[before].repeat = Some(format!(
                    "globs `{l}` into several URLs (curl's `{{a,b}}` and `[1-9]`)"
                ));
            }
            if retry && self.out.requests.len() > before {
                self.out.requests[before].repeat.get_or_insert_with(|| {
                    "retries (`--retry`): a retry is another request".to_owned()
                });
            }
        }
    }

    fn wget(&mut self, args: &[Arg], ctx: &Ctx, label: &str) {
        let parsed = options(args, WGET_SHORT, WGET_LONG);
        let mut urls = Vec::new();
        let mut many: Option<&str> = None;
        for p in &parsed {
            match p {
                Parsed::Operand(a) => urls.push(a.clone()),
                Parsed::Flag(f, v) => {
                    match f.as_str() {
                        // `-e input=urls.txt`, `-e recursive=on`: wgetrc commands.
                        "-e" | "--execute"
                            if v.as_ref().and_then(|a| a.lit.as_deref()).is_none_or(|c| {
                                let c = c.to_ascii_lowercase().replace(['_', '-'], "");
                                ["input", "recursive", "mirror", "pagerequisites", "base"]
                                    .iter()
                                    .any(|w| c.starts_with(w))
                            }) =>
                        {
                            self.opaque(ctx, &format!("{label} runs a wgetrc command (`-e`) that reads URLs or recurses"));
                        }
                        "-i" | "--input-file" => {
                            let f = v.as_ref().map_or("?", |a| a.shown());
                            self.opaque(
                                ctx,
                                &format!("{label} reads the URLs to fetch from `{f}` (`-i`)"),
                            );
                        }
                        "--config" => self.opaque(
                            ctx,
                            &format!("{label} reads more options from a config file"),
                        ),
                        "-r" | "--recursive" | "-m" | "--mirror" => {
                            many = Some("recurses (`-r`/`-m`): many pages")
                        }
                        "-p" | "--page-requisites" => {
                            many = Some("fetches each page's images, scripts and styles (`-p`)")
                        }
                        _ => {}
                    }
                }
            }
        }
        let before = self.out.requests.len();
        self.urls_each(&urls, ctx, label);
        if let Some(why) = many {
            for r in &mut self.out.requests[before..] {
                r.repeat.get_or_insert_with(|| why.to_owned());
            }
        }
    }

    fn httpie(&mut self, base: &str, args: &[Arg], ctx: &Ctx, label: &str) {
        let parsed = options(args, "aAovps", HTTPIE_LONG);
        if parsed
            .iter()
            .any(|p| matches!(p, Parsed::Flag(f, _) if f == "--offline"))
        {
            return;
        }
        let mut ops = parsed.iter().filter_map(|p| match p {
            Parsed::Operand(a) => Some(a),
            Parsed::Flag(..) => None,
        });
        let mut first = ops.next();
        if first
            .and_then(|a| a.lit.as_deref())
            .is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_uppercase()))
        {
            first = ops.next();
        }
        let Some(url) = first else { return };
        let scheme = if base == "https" || base == "xhs" {
            "https"
        } else {
            "http"
        };
        let url = match &url.lit {
            Some(l) if l.starts_with(':') => Arg::literal(format!("{scheme}://localhost{l}")),
            _ => url.clone(),
        };
        self.urls_each(std::slice::from_ref(&url), ctx, label);
    }

    fn gh(&mut self, args: &[Arg], ctx: &Ctx, label: &str) {
        let parsed = options(args, "R", names!["repo", "hostname"]);
        let mut hostname: Option<String> = None;
        let mut ops: Vec<&Arg> = Vec::new();
        let mut watch = false;
        let mut paginate = false;
        for p in &parsed {
            match p {
                Parsed::Operand(a) => ops.push(a),
                Parsed::Flag(f, v) => match f.as_str() {
                    "--hostname" => hostname = v.as_ref().and_then(|a| a.lit.clone()),
                    "--watch" => watch = true,
                    "--paginate" => paginate = true,
                    "-h" | "--help" | "--version" if ops.is_empty() => return,
                    _ => {}
                },
            }
        }
        let sub = ops.first().and_then(|a| a.lit.as_deref()).unwrap_or("");
        let second = ops.get(1).and_then(|a| a.lit.as_deref()).unwrap_or("");
        if matches!(
            sub,
            "" | "help" | "version" | "completion" | "config" | "alias" | "--help"
        ) || (sub == "extension" && matches!(second, "list" | "ls" | "remove"))
        {
            return;
        }
        let host = hostname.unwrap_or_else(|| "api.github.com".to_owned());
        let url = if sub == "api" {
            match ops.get(1).and_then(|a| a.lit.as_deref()) {
                Some(e) if e.contains("://") => e.to_owned(),
                Some(e) => format!("https://{host}/{}", e.trim_start_matches('/')),
                None => format!("https://{host}/"),
            }
        } else {
            format!("https://{host}/")
        };
        self.request(ctx, format!("{label} {sub}"), vec![url], false);
        let repeat = if paginate {
            Some("pages through every result (`--paginate`): a request per page")
        } else if watch || second == "watch" {
            Some("polls until it is done (`watch`): a request every few seconds")
        } else {
            None
        };
        if let Some(why) = repeat {
            self.out
                .requests
                .last_mut()
                .expect("just pushed")
                .repeat
                .get_or_insert_with(|| why.to_owned());
        }
    }
}

/// Shells that run `-c` text, a script file, or their input.
const SHELLS: Names = names![
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh",
];

/// Programs that make no request and run no other program: a URL among
/// their arguments is text (`echo https://…`, `grep -r https:// .`).
const INERT: Names = names![
    "echo",
    "printf",
    "cat",
    "tac",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "jq",
    "yq",
    "head",
    "tail",
    "sort",
    "uniq",
    "wc",
    "cut",
    "tr",
    "tee",
    "less",
    "more",
    "ls",
    "cd",
    "pwd",
    "test",
    "[",
    "true",
    "false",
    "read",
    "export",
    "local",
    "declare",
    "typeset",
    "readonly",
    "set",
    "unset",
    "shift",
    "basename",
    "dirname",
    "realpath",
    "mkdir",
    "rm",
    "cp",
    "mv",
    "touch",
    "chmod",
    "date",
    "sleep",
    "diff",
    "base64",
    "xxd",
    "od",
    "column",
    "sha256sum",
    "md5sum",
    "file",
    "stat",
    "which",
    "type",
    "hash",
    "exit",
    "return",
    "break",
    "continue",
    "wait",
    "trap",
    "kill",
    "jobs",
    "fold",
    "fmt",
    "nl",
    "paste",
    "join",
    "comm",
    "expand",
    "rev",
    "seq",
    "yes",
    "tput",
    "clear",
    "stty",
    "umask",
    "ulimit",
    "shopt",
    "unalias",
    "pushd",
    "popd",
    "dirs",
    "let",
    "getopts",
    "printenv",
    "mapfile",
    "readarray",
    "ln",
];

/// The last path component, lowercased, `.exe` dropped.
fn program_name(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    base.strip_suffix(".exe").map(str::to_owned).unwrap_or(base)
}

/// Every argument, joined by spaces, when all are literal.
fn literal_all(args: &[Arg]) -> Option<String> {
    let parts: Option<Vec<&str>> = args.iter().map(|a| a.lit.as_deref()).collect();
    parts.map(|p| p.join(" "))
}

/// The literal arguments that look like URLs.
fn urls_in(args: &[Arg]) -> Vec<String> {
    args.iter()
        .filter_map(|a| a.lit.clone())
        .filter(|l| l.contains("://"))
        .collect()
}

/// Whether curl would glob `url` into several: a `{a,b}` list or a `[x-y]`
/// range.
fn curl_globs(url: &str) -> bool {
    let b = url.as_bytes();
    let after = |open: u8, close: u8, inner: &[u8]| {
        let mut i = 0;
        while let Some(s) = b[i..].iter().position(|&c| c == open) {
            let start = i + s + 1;
            if let Some(e) = b[start..].iter().position(|&c| c == close) {
                if b[start..start + e].iter().any(|c| inner.contains(c)) {
                    return true;
                }
                i = start + e;
            } else {
                return false;
            }
        }
        false
    };
    after(b'{', b'}', b",") || after(b'[', b']', b"-:")
}

fn is_option(a: &Arg) -> bool {
    a.lit
        .as_deref()
        .is_some_and(|l| l.len() > 1 && l.starts_with('-') && l != "--")
}

/// An option or operand, as getopt reads it.
#[derive(Debug, Clone)]
enum Parsed {
    /// `-x`, `--name`; with its value when it takes one.
    Flag(String, Option<Arg>),
    /// Anything else.
    Operand(Arg),
}

/// Read `args` with getopt's rules: `short` are the letters that take a
/// value, `long` the long options that do (an unknown long option takes
/// none: a URL after it then counts). A word built at run time is an
/// operand.
fn options(args: &[Arg], short: &str, long: Names) -> Vec<Parsed> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let Some(l) = a.lit.as_deref().filter(|_| !only_operands) else {
            out.push(Parsed::Operand(a.clone()));
            continue;
        };
        if l == "--" {
            only_operands = true;
            continue;
        }
        if let Some(name) = l.strip_prefix("--") {
            if let Some((n, v)) = name.split_once('=') {
                out.push(Parsed::Flag(
                    format!("--{n}"),
                    Some(Arg::literal(v.to_owned())),
                ));
            } else if long.contains(name) {
                let v = args.get(i).cloned();
                i += 1;
                out.push(Parsed::Flag(l.to_owned(), v));
            } else {
                out.push(Parsed::Flag(l.to_owned(), None));
            }
            continue;
        }
        if l.len() > 1 && l.starts_with('-') {
            let chars: Vec<char> = l[1..].chars().collect();
            for (k, c) in chars.iter().enumerate() {
                if short.contains(*c) {
                    let rest: String = chars[k + 1..].iter().collect();
                    let v = if rest.is_empty() {
                        let v = args.get(i).cloned();
                        i += 1;
                        v
                    } else {
                        Some(Arg::literal(rest))
                    };
                    out.push(Parsed::Flag(format!("-{c}"), v));
                    break;
                }
                out.push(Parsed::Flag(format!("-{c}"), None));
            }
            continue;
        }
        out.push(Parsed::Operand(a.clone()));
    }
    out
}

/// The operands of `args`.
fn operands(args: &[Arg], short: &str, long: Names) -> Vec<Arg> {
    options(args, short, long)
        .into_iter()
        .filter_map(|p| match p {
            Parsed::Operand(a) => Some(a),
            Parsed::Flag(..) => None,
        })
        .collect()
}

/// Operands of a program whose options are single-dash words (`lynx
/// -dump`), `valued` naming those that take the next word.
fn operands_single_dash(args: &[Arg], valued: Names) -> Vec<Arg> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].lit.as_deref() {
            Some(l) if l.starts_with('-') && l.len() > 1 => {
                if valued.contains(l) {
                    i += 1;
                }
            }
            _ => out.push(args[i].clone()),
        }
        i += 1;
    }
    out
}

/// The value of option `-c`/`--long` (clustered or not).
fn option_value(args: &[Arg], short: char, long: &str) -> Option<Arg> {
    let mut i = 0;
    while i < args.len() {
        let l = args[i].lit.as_deref().unwrap_or("");
        if l == "--" {
            return None;
        }
        if let Some(name) = l.strip_prefix("--") {
            if let Some(v) = name.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                return Some(Arg::literal(v.to_owned()));
            }
            if name == long {
                return args.get(i + 1).cloned();
            }
        } else if l.starts_with('-')
            && let Some(p) = l.find(short)
        {
            let rest = &l[p + short.len_utf8()..];
            return if rest.is_empty() {
                args.get(i + 1).cloned()
            } else {
                Some(Arg::literal(rest.to_owned()))
            };
        }
        i += 1;
    }
    None
}

/// The value after a single-dash long option (`-connect host:443`).
fn option_value_single(args: &[Arg], name: &str) -> Option<Arg> {
    let i = args.iter().position(|a| a.lit.as_deref() == Some(name))?;
    args.get(i + 1).cloned()
}

/// What follows the options: the command a wrapper runs.
fn skip_options<'a>(args: &'a [Arg], short: &str, long: Names) -> &'a [Arg] {
    let mut i = 0;
    while i < args.len() {
        let Some(l) = args[i].lit.as_deref() else {
            break;
        };
        if l == "--" {
            return &args[i + 1..];
        }
        if let Some(name) = l.strip_prefix("--") {
            i += 1;
            if !name.contains('=') && long.contains(name) {
                i += 1;
            }
            continue;
        }
        if l.len() > 1 && l.starts_with('-') {
            i += 1;
            let chars: Vec<char> = l[1..].chars().collect();
            if let Some(k) = chars.iter().position(|c| short.contains(*c))
                && k + 1 == chars.len()
            {
                i += 1;
            }
            continue;
        }
        break;
    }
    &args[i.min(args.len())..]
}

/// `env`'s command: after its options and `NAME=value` words.
fn skip_env(args: &[Arg]) -> &[Arg] {
    let rest = skip_options(args, "uCS", names!["unset", "chdir", "split-string"]);
    let n = rest
        .iter()
        .take_while(|a| {
            a.lit.as_deref().is_some_and(|l| {
                l.split_once('=')
                    .is_some_and(|(k, _)| !k.is_empty() && !k.contains('/'))
            })
        })
        .count();
    &rest[n..]
}

const XARGS_LONG: Names = names![
    "arg-file",
    "delimiter",
    "eof",
    "replace",
    "max-lines",
    "max-args",
    "max-procs",
];
const SUDO_LONG: Names = names![
    "user",
    "group",
    "host",
    "prompt",
    "close-from",
    "chdir",
    "role",
];
const ARIA_LONG: Names = names!["dir", "out", "input-file", "split"];
const TEXT_BROWSER_VALUED: Names = names![
    "-o",
    "-T",
    "-cols",
    "-I",
    "-O",
    "-bookmark",
    "-config",
    "-ppc",
    "-ppl",
    "-post",
    "-header",
    "-cfg",
];
const HTTPIE_LONG: Names = names![
    "auth",
    "auth-type",
    "output",
    "session",
    "session-read-only",
    "verify",
    "cert",
    "cert-key",
    "proxy",
    "timeout",
    "style",
    "pretty",
    "print",
    "default-scheme",
];
/// curl's one-letter options that take a value.
const CURL_SHORT: &str = "AbcCdDeEFHKmoPQrtTuUwxXyYz";
/// curl's long options that take a value (`curl --help all`).
const CURL_LONG: Names = names![
    "url",
    "data",
    "data-raw",
    "data-binary",
    "data-urlencode",
    "data-ascii",
    "json",
    "header",
    "user-agent",
    "referer",
    "cookie",
    "cookie-jar",
    "output",
    "dump-header",
    "write-out",
    "request",
    "user",
    "proxy",
    "max-time",
    "connect-timeout",
    "retry",
    "retry-delay",
    "retry-max-time",
    "config",
    "form",
    "form-string",
    "upload-file",
    "range",
    "resolve",
    "connect-to",
    "cacert",
    "capath",
    "cert",
    "key",
    "cert-type",
    "key-type",
    "pass",
    "interface",
    "limit-rate",
    "max-filesize",
    "max-redirs",
    "output-dir",
    "proxy-user",
    "quote",
    "trace",
    "trace-ascii",
    "stderr",
    "unix-socket",
    "abstract-unix-socket",
    "variable",
    "oauth2-bearer",
    "aws-sigv4",
    "ciphers",
    "dns-servers",
    "doh-url",
    "etag-compare",
    "etag-save",
    "local-port",
    "netrc-file",
    "noproxy",
    "parallel-max",
    "preproxy",
    "proto",
    "proto-default",
    "proto-redir",
    "pubkey",
    "request-target",
    "socks4",
    "socks4a",
    "socks5",
    "socks5-hostname",
    "speed-limit",
    "speed-time",
    "telnet-option",
    "time-cond",
    "url-query",
    "proxy-header",
    "rate",
];
const WGET_SHORT: &str = "oaOPUtTwlARDBIXQeie";
const WGET_LONG: Names = names![
    "output-document",
    "output-file",
    "append-output",
    "directory-prefix",
    "user-agent",
    "tries",
    "timeout",
    "wait",
    "level",
    "accept",
    "reject",
    "execute",
    "domains",
    "base",
    "header",
    "post-data",
    "post-file",
    "body-data",
    "method",
    "user",
    "password",
    "http-user",
    "http-password",
    "load-cookies",
    "save-cookies",
    "referer",
    "limit-rate",
    "quota",
    "input-file",
    "config",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn a(c: &str) -> Analysis {
        analyse(c, false)
    }

    #[test]
    fn one_curl_is_one_request_on_its_url() {
        let r = a("curl -s https://api.example.com/x | jq .");
        assert!(r.opaque.is_empty(), "{r:?}");
        assert_eq!(r.requests.len(), 1, "{r:?}");
        assert_eq!(r.requests[0].urls, ["https://api.example.com/x"]);
        assert_eq!(r.many(), None);
    }

    #[test]
    fn a_loop_of_curls_is_many() {
        let r = a("for u in a b; do curl \"$u\"; done");
        assert!(r.many().is_some_and(|w| w.contains("`for` loop")), "{r:?}");
    }
}
