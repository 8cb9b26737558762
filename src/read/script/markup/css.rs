//! CSS text (a style, a `<style>`, a sheet) as CSS Syntax Level 3 tokenizes
//! it, with Servo's `cssparser`: what it can load. Escapes mean what they
//! mean to the browser (`u\72 l(x)` is `url(x)`), a `url(` inside a string
//! or a comment is text, and `image-set()` loads one of its candidates.

use cssparser::{Parser, Token};

/// What CSS text loads.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(in crate::read::script) struct Css {
    /// How many resources it can load: one per `url()` and `@import`, one per
    /// `image-set()`.
    pub(in crate::read::script) loads: usize,
    /// The URLs, as written (for the sites they reach).
    pub(in crate::read::script) urls: Vec<String>,
}

/// How deep blocks nest before the rest is counted as loads unread (below
/// `cssparser`'s own limit, past which it skips a block).
const MAX_DEPTH: u32 = 64;

/// Whether `css` can hold anything that loads; `false` is certain. Text
/// without `url(`, `image-set`, `@import`, `src(` or an escape (which can
/// spell any of them) loads nothing, and most text a script hands the page
/// is like that: the tokenizer runs only on the rest.
pub(in crate::read::script) fn may_load(css: &str) -> bool {
    let b = css.as_bytes();
    if b.contains(&b'\\') {
        return true;
    }
    let has = |word: &[u8]| b.windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    has(b"url(") || has(b"image-set") || has(b"@import") || has(b"src(")
}

/// What `css` (a sheet, a rule or declarations: they tokenize alike) loads.
pub(in crate::read::script) fn read(css: &str) -> Css {
    let mut out = Css::default();
    if !may_load(css) {
        return out;
    }
    let mut parser = Parser::new(css);
    walk(&mut parser, &mut out, 0);
    out
}

impl Css {
    fn url(&mut self, url: &str) {
        let url = url.trim_matches(|c: char| c.is_ascii_whitespace());
        // `url("")` loads nothing; a `data:` URL is decoded, not fetched
        // (an SVG image in CSS loads nothing of its own).
        if url.is_empty() || starts_with_scheme(url, "data") {
            return;
        }
        self.loads += 1;
        self.urls.push(url.to_owned());
    }
}

fn starts_with_scheme(url: &str, scheme: &str) -> bool {
    url.len() > scheme.len()
        && url.as_bytes()[..scheme.len()].eq_ignore_ascii_case(scheme.as_bytes())
        && url.as_bytes()[scheme.len()] == b':'
}

/// What comes after a token, for the one that follows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum After {
    Nothing,
    /// `@import`: a string next is its URL.
    Import,
    /// `@namespace`: its `url()` names a namespace, and loads nothing.
    Namespace,
}

fn walk(p: &mut Parser<'_>, out: &mut Css, depth: u32) {
    let mut after = After::Nothing;
    loop {
        let token = match p.next() {
            Ok(t) => t.clone(),
            Err(_) => return,
        };
        match &token {
            Token::UnquotedUrl(u) if after != After::Namespace => out.url(u),
            Token::QuotedString(s) if after == After::Import => out.url(s),
            Token::BadUrl(_) if after != After::Namespace => {
                // Not loaded by a browser; counted, since telling needs
                // nothing but caution.
                out.loads += 1;
            }
            Token::AtKeyword(k) => {
                after = if k.eq_ignore_ascii_case("import") {
                    After::Import
                } else if k.eq_ignore_ascii_case("namespace") {
                    After::Namespace
                } else {
                    After::Nothing
                };
                continue;
            }
            Token::Semicolon | Token::CurlyBracketBlock => after = After::Nothing,
            _ => {}
        }
        let nested = match &token {
            Token::Function(name) => Some(function(name)),
            Token::ParenthesisBlock | Token::SquareBracketBlock | Token::CurlyBracketBlock => {
                Some(Nested::Walk)
            }
            _ => None,
        };
        let Some(nested) = nested else {
            continue;
        };
        if depth >= MAX_DEPTH {
            // Unread: as if it loaded more than one.
            out.loads += 2;
            continue;
        }
        let namespace = after == After::Namespace;
        let _ = p.parse_nested_block(|p| -> Result<(), cssparser::ParseError<()>> {
            match nested {
                Nested::Walk => walk(p, out, depth + 1),
                Nested::Url if namespace => {}
                Nested::Url => {
                    if let Ok(Token::QuotedString(s)) = p.next() {
                        let s = s.clone();
                        out.url(&s);
                    }
                }
                Nested::ImageSet => {
                    // One candidate loads: the set counts once, every URL
                    // in it names a site.
                    let mut inner = Css::default();
                    strings_are_urls(p, &mut inner, depth + 1);
                    if inner.loads > 0 {
                        out.loads += 1;
                    }
                    out.urls.extend(inner.urls);
                }
            }
            Ok(())
        });
    }
}

/// Inside `image-set()`: strings are URLs, as are `url()`s.
fn strings_are_urls(p: &mut Parser<'_>, out: &mut Css, depth: u32) {
    loop {
        let token = match p.next() {
            Ok(t) => t.clone(),
            Err(_) => return,
        };
        match token {
            Token::QuotedString(s) => out.url(&s),
            Token::UnquotedUrl(u) => out.url(&u),
            Token::BadUrl(_) => out.loads += 1,
            Token::Function(_) | Token::ParenthesisBlock if depth < MAX_DEPTH => {
                let _ = p.parse_nested_block(|p| -> Result<(), cssparser::ParseError<()>> {
                    strings_are_urls(p, out, depth + 1);
                    Ok(())
                });
            }
            Token::Function(_) | Token::ParenthesisBlock => out.loads += 2,
            _ => {}
        }
    }
}

/// How a function's arguments are read.
#[derive(Clone, Copy)]
enum Nested {
    /// As more CSS.
    Walk,
    /// `url("…")`, `src("…")`: the string is a URL.
    Url,
    /// `image-set(…)`: one of the candidates loads.
    ImageSet,
}

fn function(name: &str) -> Nested {
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "url" | "src" => Nested::Url,
        "image-set" | "-webkit-image-set" => Nested::ImageSet,
        _ => Nested::Walk,
    }
}

#[cfg(test)]
mod tests {
    use super::read;

    fn loads(css: &str) -> usize {
        read(css).loads
    }

    #[test]
    fn script_css_counts_urls_and_imports() {
        assert_eq!(loads("background:url(a.png)"), 1);
        assert_eq!(
            loads("background:url( 'a.png' ); border-image: URL(\"b\")"),
            2
        );
        assert_eq!(loads("@import 'a.css'; @import url(b.css) screen;"), 2);
        assert_eq!(
            loads("@font-face { font-family: x; src: url(f.woff2) format('woff2') }"),
            1
        );
        assert_eq!(loads("color: red; font-weight: bold"), 0);
    }

    #[test]
    fn script_css_escapes_strings_and_comments_mean_what_they_mean() {
        assert_eq!(loads("background: u\\72 l(a.png)"), 1);
        assert_eq!(loads("background: \\75\\72\\6c(a.png)"), 1);
        assert_eq!(loads("@\\69mport 'a.css';"), 1);
        assert_eq!(loads("content: 'url(a.png)'"), 0);
        assert_eq!(loads("/* url(a.png) */ color: red"), 0);
        assert_eq!(loads("background: url (a.png)"), 0);
        assert_eq!(loads("background: url(data:image/png;base64,AAAA)"), 0);
        assert_eq!(loads("@namespace svg url(http://www.w3.org/2000/svg);"), 0);
    }

    #[test]
    fn script_css_an_image_set_loads_one_candidate() {
        assert_eq!(loads("background: image-set('a.png' 1x, 'b.png' 2x)"), 1);
        assert_eq!(
            loads("background: -webkit-image-set(url(a.png) 1x), image-set('c.png' 1x)"),
            2
        );
        assert_eq!(
            read("background: image-set('https://other.org/a.png' 1x)").urls,
            vec!["https://other.org/a.png".to_owned()]
        );
    }

    #[test]
    fn script_css_nested_blocks_are_read_and_bounded() {
        assert_eq!(loads("@media print { a { background: url(a) } }"), 1);
        let deep = format!("{}url(a){}", "(".repeat(200), ")".repeat(200));
        assert!(loads(&deep) >= 1);
    }
}
