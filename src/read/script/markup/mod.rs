//! Markup a script writes into the page (`innerHTML`, `document.write`,
//! `insertAdjacentHTML`, a frame's `srcdoc`, `setContent`) or a navigation
//! carries (a `data:text/html` document): what it loads and what code it
//! runs once it is in a document.
//!
//! The markup is tokenized by `html5gum`, an implementation of the HTML
//! Standard's tokenizer (it passes html5lib's tokenizer tests): character
//! references are decoded as the browser decodes them (`javascript&colon;`,
//! `java&#9;script:`, `&lt;` in a `srcdoc`), attributes unquoted or repeated
//! mean what they mean there, and comments and `<![CDATA[` hide what they
//! hide. The tokenizer alone does not know which elements hold text rather
//! than markup (the tree builder tells it), so this reader does that part:
//! `<script>`, `<style>`, `<textarea>`, `<noscript>` (scripts run where the
//! markup goes), foreign content (inside `<svg>` and `<math>` a `<style>`
//! holds markup, and `<img>` breaks out to HTML again), and `<template>`,
//! whose content is inert. CSS text (a `style` attribute, a `<style>`) goes
//! to `cssparser` ([`css`]). What each element and attribute loads is the
//! table in `model/markup.rs`.
//!
//! html5gum rather than html5ever's tokenizer: both follow the standard and
//! pass html5lib's tokenizer tests, and both are maintained (html5ever by
//! Servo); html5gum has no dependencies, where html5ever's tokenizer brings
//! `markup5ever`, `string_cache` (a static atom table), `tendril`, `phf`
//! and `log`, and its own named-reference table. As published, neither is
//! free at start: each table of the 2,231 named character references is
//! pointers, which the loader relocates in every process (html5gum's: 4,698
//! relocations, 57 k instructions per process). pace-hook builds html5gum
//! with that table regenerated as data without pointers, answering the
//! same (`vendor/html5gum/PATCHED.md`, docs/BENCHMARKS.md), which also
//! takes 206 KB off the release binary (html5gum and cssparser had added
//! about 490 KB).
//!
//! The count errs high where the standard is not followed all the way: an
//! inline script or handler is read as if it runs (one written by
//! `innerHTML` does not), every `<source>` of a media element counts, and a
//! lazy image counts.

pub(in crate::read::script) mod css;

use std::cell::Cell;
use std::rc::Rc;

use html5gum::{DefaultEmitter, Emitter, ForwardingEmitter, State, Token, Tokenizer};

use super::model::markup::{
    Fetch, LOADS, Text, TextState, When, breaks_out, handler_runs_once, integration_point,
    rel_loads, runs_as_script, runs_on_activation, speculation_rules, text_of, text_state,
};
use crate::read::url::{Reach, data_document, reach_absolute};

/// Code the markup runs, for the caller to analyse as JavaScript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::read::script) struct Code {
    /// Where it is, as the model reads it: "an inline `<script>`".
    pub(in crate::read::script) what: String,
    /// The code.
    pub(in crate::read::script) text: String,
    /// It may run any number of times (an `onclick`).
    pub(in crate::read::script) repeats: bool,
    /// An event handler, whose `this` is its element.
    pub(in crate::read::script) handler: bool,
    /// It runs only when its element is activated (a link's `javascript:`
    /// URL, on a click), not when the markup is inserted.
    pub(in crate::read::script) on_activation: bool,
}

/// What markup loads and runs.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(in crate::read::script) struct Read {
    /// Each load, as the model reads it: "`<img src>`".
    pub(in crate::read::script) loads: Vec<String>,
    /// Code it runs.
    pub(in crate::read::script) code: Vec<Code>,
    /// What it holds that the reader cannot see into.
    pub(in crate::read::script) opaque: Vec<String>,
    /// The absolute URLs it loads or bases others on, as written.
    pub(in crate::read::script) urls: Vec<String>,
    /// It ends inside a tag, a comment or an element's text (`<img src=`,
    /// `<script>fetch(a)`): written by `document.write`, the next write
    /// goes on from there, so it is not read alone.
    pub(in crate::read::script) unfinished: bool,
}

/// Where the markup goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum Into {
    /// A page, where scripts run (`<noscript>` holds text).
    Page,
    /// A `DOMParser` document: scripts do not run there, so `<noscript>`
    /// holds markup (which loads once adopted into the page).
    Parsed,
    /// A page, by the fragment parser (`innerHTML`, `insertAdjacentHTML`):
    /// the scripts it inserts neither run nor load (the HTML Standard marks
    /// them already started); the documents of its frames run theirs.
    Fragment,
}

/// Stands for a part of the markup built at run time (`${name}`): where it
/// lands, text, it holds text; in a tag's name, an attribute's name, a
/// handler, a script or a frame's URL, what it holds is code or markup the
/// reader cannot see.
pub(in crate::read::script) const HOLE: char = '\u{E000}';

/// How many documents deep, one inside the other (`srcdoc`, `data:`
/// frames), markup is read; deeper is opaque.
const MAX_DOCUMENTS: u32 = 4;

/// Whether `html` can hold anything that loads or runs: `false` is certain.
/// Without a `<` there is no tag (a character reference never makes one),
/// and most markup a script writes is text: the tokenizer runs only on the
/// rest.
pub(in crate::read::script) fn may_load(html: &str) -> bool {
    html.contains('<')
}

/// What `html` loads and runs once inserted `into` a document.
pub(in crate::read::script) fn read(html: &str, into: Into) -> Read {
    read_based(html, into, false)
}

/// What `html` loads and runs as a `data:` document: its base URL is the
/// `data:` URL, against which a relative URL resolves to nothing (until a
/// `<base>` names an absolute one).
pub(in crate::read::script) fn read_data_document(html: &str) -> Read {
    read_based(html, Into::Page, true)
}

fn read_based(html: &str, into: Into, data_base: bool) -> Read {
    let mut out = Read::default();
    if may_load(html) {
        Reader {
            out: &mut out,
            into,
            data_base,
        }
        .document(html, 0);
    }
    out
}

/// The emitter: html5gum's, told when the tokenizer is in foreign content,
/// where `<![CDATA[` starts text rather than a comment.
struct Emit {
    inner: DefaultEmitter,
    foreign: Rc<Cell<bool>>,
}

impl ForwardingEmitter for Emit {
    type Token = Token;

    fn inner(&mut self) -> &mut impl Emitter<Token = Self::Token> {
        &mut self.inner
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&mut self) -> bool {
        self.foreign.get()
    }
}

struct Reader<'o> {
    out: &'o mut Read,
    into: Into,
    /// The document's base URL is a `data:` URL: relative URLs load
    /// nothing.
    data_base: bool,
}

/// An open element the reader keeps: foreign ones (SVG, MathML), and the
/// HTML ones whose content matters (`<template>`, a text element).
#[derive(Debug)]
struct Open {
    name: String,
    foreign: bool,
}

/// An element whose text is being collected.
struct Collect {
    name: String,
    text: Text,
    /// The text runs or loads (a script without `src` and of a JavaScript
    /// type; a style).
    live: bool,
    /// The text is speculation rules.
    rules: bool,
    body: String,
}

impl Reader<'_> {
    fn document(&mut self, html: &str, depth: u32) {
        let foreign = Rc::new(Cell::new(false));
        let emitter = Emit {
            inner: DefaultEmitter::default(),
            foreign: Rc::clone(&foreign),
        };
        let mut tokens = Tokenizer::new_with_emitter(html, emitter);
        // Foreign elements and integration points open, innermost last.
        let mut stack: Vec<Open> = Vec::new();
        // `<template>`s open in HTML: their content is inert.
        let mut inert = 0u32;
        let mut collect: Option<Collect> = None;
        // The element whose text the tokenizer is reading (`<textarea>`).
        let mut raw: Option<String> = None;
        while let Some(Ok(token)) = tokens.next() {
            let in_foreign = stack.last().is_some_and(|o| o.foreign);
            match token {
                Token::String(s) => {
                    if let Some(c) = &mut collect {
                        c.body.push_str(&String::from_utf8_lossy(&s));
                    }
                }
                Token::StartTag(tag) => {
                    let name = lossy(&tag.name);
                    let attrs: Vec<(String, String)> = tag
                        .attributes
                        .iter()
                        .map(|(k, v)| (lossy(k), lossy(v)))
                        .collect();
                    let get = |n: &str| attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
                    let font_out = name == "font"
                        && ["color", "face", "size"].iter().any(|a| get(a).is_some());
                    let html_here = !in_foreign || breaks_out(&name) || font_out;
                    if in_foreign && html_here {
                        // Back to HTML: the foreign elements close.
                        while stack.last().is_some_and(|o| o.foreign) {
                            stack.pop();
                        }
                    }
                    // In HTML the tree builder reads `<image>` as `<img>`.
                    let name = if html_here && name == "image" {
                        "img".to_owned()
                    } else {
                        name
                    };
                    let foreign_el = !html_here || matches!(name.as_str(), "svg" | "math");
                    if inert == 0 {
                        self.element(&name, &attrs, depth);
                    }
                    if !foreign_el && name == "template" && get("shadowrootmode").is_none() {
                        inert += 1;
                        stack.push(Open {
                            name: name.clone(),
                            foreign: false,
                        });
                    } else if foreign_el && !tag.self_closing {
                        // Inside an integration point markup is HTML again.
                        stack.push(Open {
                            name: name.clone(),
                            foreign: !(integration_point(&name) && in_foreign),
                        });
                    }
                    // Collect a script's or style's text, in HTML (a raw
                    // text state) or in SVG (markup; its tags still count).
                    if let Some(text) = text_of(&name)
                        && !(foreign_el && tag.self_closing)
                    {
                        let kind = get("type");
                        let live = match text {
                            Text::Script => get("src").is_none() && runs_as_script(kind),
                            Text::Css => true,
                        };
                        let inserted = text == Text::Script && self.inert_scripts(depth);
                        collect = Some(Collect {
                            name: name.clone(),
                            text,
                            live: live && inert == 0 && !inserted,
                            rules: speculation_rules(kind) && inert == 0,
                            body: String::new(),
                        });
                    }
                    if !foreign_el && let Some(state) = text_state(&name, self.into != Into::Parsed)
                    {
                        raw = Some(name.clone());
                        tokens.set_state(match state {
                            TextState::Rcdata => State::RcData,
                            TextState::Rawtext => State::RawText,
                            TextState::ScriptData => State::ScriptData,
                            TextState::Plaintext => State::PlainText,
                        });
                    }
                }
                Token::EndTag(tag) => {
                    let name = lossy(&tag.name);
                    if raw.as_ref() == Some(&name) {
                        raw = None;
                    }
                    if collect.as_ref().is_some_and(|c| c.name == name) {
                        let c = collect.take().expect("checked");
                        self.text(c);
                    }
                    if let Some(i) = stack.iter().rposition(|o| o.name == name) {
                        for o in stack.drain(i..) {
                            if o.name == "template" && !o.foreign {
                                inert = inert.saturating_sub(1);
                            }
                        }
                    }
                }
                Token::Error(e) => {
                    use html5gum::Error as E;
                    if depth == 0
                        && matches!(
                            e.value,
                            E::EofBeforeTagName
                                | E::EofInCdata
                                | E::EofInComment
                                | E::EofInDoctype
                                | E::EofInScriptHtmlCommentLikeText
                                | E::EofInTag
                        )
                    {
                        self.out.unfinished = true;
                    }
                }
                Token::Comment(_) | Token::Doctype(_) => {}
            }
            foreign.set(stack.last().is_some_and(|o| o.foreign));
        }
        // A text element the input ends in still runs what it holds.
        if depth == 0 && (collect.is_some() || raw.is_some()) {
            self.out.unfinished = true;
        }
        if let Some(c) = collect.take() {
            self.text(c);
        }
    }

    /// The text of a `<script>` or `<style>`, at its end.
    fn text(&mut self, mut c: Collect) {
        if c.body.contains(HOLE) {
            match c.text {
                Text::Script if c.live || c.rules => {
                    self.out
                        .opaque
                        .push(format!("a `<{}>` whose code is built at run time", c.name));
                    return;
                }
                // A part of CSS built at run time is a word: `url(${u})`
                // is still a `url()`.
                _ => c.body = c.body.replace(HOLE, "_"),
            }
        }
        if c.rules {
            self.out
                .opaque
                .push("speculation rules in markup, which prefetch the URLs they list".to_owned());
            return;
        }
        if !c.live {
            return;
        }
        match c.text {
            Text::Script => self.out.code.push(Code {
                what: "an inline `<script>`".to_owned(),
                text: c.body,
                repeats: false,
                handler: false,
                on_activation: false,
            }),
            Text::Css => self.css(&c.body, "`<style>`"),
        }
    }

    fn css(&mut self, text: &str, what: &str) {
        let read = css::read(text);
        for _ in 0..read.loads {
            self.out.loads.push(format!("a `url()` in {what}"));
        }
        for u in read.urls {
            let reach = reach_absolute(&u);
            self.url(&u, &reach);
        }
    }

    /// Whether the scripts of the document `depth` deep are inserted by the
    /// fragment parser, and so neither run nor load.
    fn inert_scripts(&self, depth: u32) -> bool {
        self.into == Into::Fragment && depth == 0
    }

    /// A start tag's attributes: what they load and run.
    fn element(&mut self, name: &str, attrs: &[(String, String)], depth: u32) {
        if name == "script" && self.inert_scripts(depth) {
            return;
        }
        if name.contains(HOLE) || attrs.iter().any(|(k, _)| k.contains(HOLE)) {
            self.out
                .opaque
                .push("a tag or attribute whose name is built at run time".to_owned());
            return;
        }
        let get = |n: &str| attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        let mut slots: Vec<u8> = Vec::new();
        for (attr, value) in attrs {
            if attr.starts_with("on") && attr.len() > 2 {
                if value.contains(HOLE) {
                    self.out.opaque.push(format!(
                        "the `{attr}` handler of `<{name}>`, built at run time"
                    ));
                    continue;
                }
                self.out.code.push(Code {
                    what: format!("the `{attr}` handler of `<{name}>`"),
                    text: value.clone(),
                    repeats: !handler_runs_once(attr),
                    handler: true,
                    on_activation: false,
                });
                continue;
            }
            if attr == "style" {
                let value = value.replace(HOLE, "_");
                self.css(&value, &format!("the `style` of a `<{name}>`"));
                continue;
            }
            let row = LOADS
                .iter()
                .find(|row| row.1 == attr && row.0.contains(name));
            let value = value.trim_matches(|c: char| c.is_ascii_whitespace());
            let reach = reach_absolute(value);
            if let Some(Reach::Script(code)) = &reach {
                // A `javascript:` URL, in any attribute: counted as if it
                // runs (a link's on a click, a frame's at once). What it
                // gives, if a string, becomes the frame's document
                // (`javascript:'<img src=a>'`): markup in its text counts.
                let what = format!("a `javascript:` URL in `<{name} {attr}>`");
                self.nested(code, &what, depth);
                self.out.code.push(Code {
                    what,
                    text: code.clone(),
                    repeats: false,
                    handler: false,
                    on_activation: runs_on_activation(name, attr),
                });
                continue;
            }
            let Some(row) = row else { continue };
            // A URL whose start is built at run time may be a `javascript:`
            // or `data:` URL: a frame's or a script's runs code.
            if value.starts_with(HOLE) && matches!(row.2, Fetch::Frame | Fetch::Script) {
                self.out.opaque.push(format!(
                    "`<{name} {attr}>` with a URL built at run time, which may run code"
                ));
                continue;
            }
            let holds = match row.3 {
                When::Always => true,
                When::Type(t) => get("type").is_some_and(|v| v.trim().eq_ignore_ascii_case(t)),
                When::HttpEquiv(h) => {
                    get("http-equiv").is_some_and(|v| v.trim().eq_ignore_ascii_case(h))
                }
                When::RelLoads => get("rel").is_some_and(rel_loads),
                When::NoSrcdoc => get("srcdoc").is_none(),
                When::External => !value.starts_with('#'),
                When::AnimatesUrl => get("attributename").is_some_and(|n| {
                    let n = n.trim();
                    n.eq_ignore_ascii_case("href") || n.eq_ignore_ascii_case("xlink:href")
                }),
            };
            if !holds {
                continue;
            }
            let what = format!("`<{name} {attr}>`");
            let loads = match row.2 {
                Fetch::OnAction => false,
                Fetch::Base => {
                    if reach.is_some() {
                        self.data_base = false;
                    }
                    if matches!(reach, Some(Reach::Host(_) | Reach::Unreadable { .. })) {
                        self.out.urls.push(value.to_owned());
                    }
                    false
                }
                Fetch::Refresh => {
                    // `0; url=…`, or a reload of the page.
                    if let Some(url) = refresh_url(value) {
                        self.url(&url, &reach_absolute(&url));
                    }
                    true
                }
                Fetch::Document => {
                    self.nested(value, &what, depth);
                    false
                }
                Fetch::Url | Fetch::Frame | Fetch::Script => {
                    !value.is_empty() && self.fetched(row.2, value, &reach, &what, depth)
                }
            };
            if loads && !slots.contains(&row.4) {
                slots.push(row.4);
                self.out.loads.push(what);
            }
        }
    }

    /// Whether fetching `value` for `fetch` makes a request; reads the
    /// document or code a `data:` URL carries.
    fn fetched(
        &mut self,
        fetch: Fetch,
        value: &str,
        reach: &Option<Reach>,
        what: &str,
        depth: u32,
    ) -> bool {
        match reach {
            Some(Reach::Nowhere(_)) => false,
            Some(Reach::Document { unreadable, .. }) => {
                let Some(doc) = data_document(value) else {
                    // `blob:` or `filesystem:`: made by the page's code.
                    if fetch != Fetch::Url {
                        self.out.opaque.push(format!(
                            "{what} with a `blob:` URL, whose content the analysis cannot see"
                        ));
                    }
                    return false;
                };
                match (fetch, doc) {
                    // A `data:` image or media file loads nothing.
                    (Fetch::Url, _) => {}
                    (_, None) => self
                        .out
                        .opaque
                        .push(format!("{what} with a `data:` URL that does not decode")),
                    (Fetch::Script, Some((_, body))) => self.out.code.push(Code {
                        what: format!("the `data:` script of {what}"),
                        text: body,
                        repeats: false,
                        handler: false,
                        on_activation: false,
                    }),
                    (_, Some((mime, body))) => {
                        if is_markup(&mime) {
                            let outer = std::mem::replace(&mut self.data_base, true);
                            self.nested(&body, what, depth);
                            self.data_base = outer;
                        } else if *unreadable {
                            self.out
                                .opaque
                                .push(format!("{what} with a `data:` document too deep to read"));
                        }
                    }
                }
                false
            }
            // Relative to a `data:` URL: no URL at all.
            None if self.data_base => false,
            other => {
                self.url(value, other);
                true
            }
        }
    }

    /// A URL that loads: its site, when it names one.
    fn url(&mut self, value: &str, reach: &Option<Reach>) {
        // Its site, if any, was read from the script's string.
        if value.contains(HOLE) {
            return;
        }
        if matches!(reach, Some(Reach::Host(_) | Reach::Unreadable { .. })) {
            self.out.urls.push(value.to_owned());
        }
    }

    /// A document inside this one (a `srcdoc`, a `data:` frame).
    fn nested(&mut self, html: &str, what: &str, depth: u32) {
        if depth + 1 >= MAX_DOCUMENTS {
            self.out
                .opaque
                .push(format!("{what} with documents nested too deep to read"));
            return;
        }
        if may_load(html) {
            self.document(html, depth + 1);
        }
    }
}

/// Whether a document of this MIME type is read as markup: HTML, XHTML,
/// SVG and XML (a browser renders them; an XML document's tags load as
/// HTML's do, near enough). Text, images, media and JSON load nothing.
pub(crate) fn is_markup(mime: &str) -> bool {
    let mime = mime.to_ascii_lowercase();
    !(mime == "text/plain"
        || mime == "text/css"
        || mime == "text/javascript"
        || mime == "application/json"
        || mime == "application/pdf"
        || mime == "application/octet-stream"
        || (mime.starts_with("image/") && mime != "image/svg+xml")
        || mime.starts_with("audio/")
        || mime.starts_with("video/")
        || mime.starts_with("font/"))
}

/// The URL of a refresh's `content` (`5; url=https://…`), if it names one.
fn refresh_url(content: &str) -> Option<String> {
    let rest = content
        .trim_start_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_digit() || c == '.');
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ';' || c == ',');
    let lower = rest.to_ascii_lowercase();
    let rest = if lower.starts_with("url") {
        rest[3..]
            .trim_start()
            .strip_prefix('=')
            .unwrap_or(&rest[3..])
    } else {
        rest
    };
    let url = rest.trim().trim_matches(['\'', '"']);
    (!url.is_empty()).then(|| url.to_owned())
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[cfg(test)]
mod tests;
