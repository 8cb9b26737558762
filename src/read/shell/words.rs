//! A word of a shell command as bash expands it, read by brush-parser's
//! word parser: its value when it is known before the command runs (quotes
//! removed, `$'…'` escapes decoded), whether it may split into several
//! words, and the command substitutions that run when it is expanded.

use brush_parser::word::{self, WordPiece, WordPieceWithSource};

/// A word's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Arg {
    /// Its text once expanded, when no expansion is needed to know it.
    pub(crate) lit: Option<String>,
    /// An unquoted expansion or a brace list may make it several words.
    pub(crate) splits: bool,
    /// The word as written.
    pub(crate) raw: String,
    /// Line and column, for a command's name.
    pub(crate) place: Option<(usize, usize)>,
    /// The text known before the first expansion (all of it when `lit`).
    pub(crate) prefix: String,
}

impl Arg {
    /// A word known to be `text`.
    pub(crate) fn literal(text: String) -> Self {
        Self {
            raw: text.clone(),
            prefix: text.clone(),
            lit: Some(text),
            splits: false,
            place: None,
        }
    }

    /// The value, or the word as written.
    pub(crate) fn shown(&self) -> &str {
        self.lit.as_deref().unwrap_or(&self.raw)
    }

    /// A word read from input at run time (`xargs`' items).
    pub(crate) fn unknown(what: &str) -> Self {
        Self {
            lit: None,
            splits: true,
            raw: what.to_owned(),
            place: None,
            prefix: String::new(),
        }
    }

    /// The URL this word starts with when the part of it that names the
    /// host is written out (`"https://a.example/$1"`): the known text up to
    /// the end of the host, which no expansion after it can change.
    pub(crate) fn url_with_known_host(&self) -> Option<String> {
        if let Some(l) = &self.lit {
            return Some(l.clone());
        }
        let (_, rest) = self.prefix.split_once("://")?;
        let end = rest.find(['/', '?', '#'])?;
        (end > 0).then(|| self.prefix[..self.prefix.len() - rest.len() + end + 1].to_owned())
    }
}

/// The literal value of `raw`, if it has one.
pub(crate) fn literal(raw: &str) -> Option<String> {
    read(raw).0.lit
}

/// Read `raw`: its value, the text of each command substitution in it, and
/// what could not be read (for the caller to report as opaque).
pub(crate) fn read(raw: &str) -> (Arg, Vec<String>, Option<String>) {
    let options = brush_parser::ParserOptions::default();
    let mut arg = Arg {
        lit: Some(String::new()),
        splits: false,
        raw: raw.to_owned(),
        place: None,
        prefix: String::new(),
    };
    let mut subs = Vec::new();
    let mut trouble = None;
    match word::parse(raw, &options) {
        Ok(pieces) => pieces_into(&pieces, raw, false, &mut arg, &mut subs, &mut trouble),
        Err(e) => {
            arg.lit = None;
            arg.splits = true;
            trouble = Some(format!("a word pace-hook cannot read (`{raw}`: {e})"));
        }
    }
    (arg, subs, trouble)
}

/// Read a here-document's text that bash expands: it expands as inside
/// double quotes, with `"` an ordinary character.
pub(crate) fn read_heredoc(text: &str) -> (Arg, Vec<String>, Option<String>) {
    let quoted = format!("\"{}\"", text.replace('"', "\\\""));
    read(&quoted)
}

fn pieces_into(
    pieces: &[WordPieceWithSource],
    raw: &str,
    quoted: bool,
    arg: &mut Arg,
    subs: &mut Vec<String>,
    trouble: &mut Option<String>,
) {
    for p in pieces {
        let source = raw.get(p.start_index..p.end_index).unwrap_or("");
        let text: Option<String> = match &p.piece {
            WordPiece::Text(t) => {
                if !quoted && braces(t) {
                    arg.splits = true;
                }
                Some(t.clone())
            }
            WordPiece::SingleQuotedText(t) => Some(t.clone()),
            WordPiece::AnsiCQuotedText(t) => ansi_c(t),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                // `"$@"` and `"${a[@]}"` are as many words as there are
                // items, quoted as they are.
                if ["$@", "${@", "[@]", "${!"]
                    .iter()
                    .any(|w| source.contains(w))
                {
                    arg.splits = true;
                }
                let mut sub = Arg {
                    lit: Some(String::new()),
                    splits: false,
                    raw: String::new(),
                    place: None,
                    prefix: String::new(),
                };
                pieces_into(inner, raw, true, &mut sub, subs, trouble);
                if arg.lit.is_some() {
                    arg.prefix.push_str(&sub.prefix);
                }
                sub.lit
            }
            WordPiece::EscapeSequence(s) => {
                let c = s.strip_prefix('\\').unwrap_or(s);
                Some(if quoted && !matches!(c, "$" | "`" | "\"" | "\\") {
                    s.clone()
                } else {
                    c.to_owned()
                })
            }
            // The home directory: a path whose last part is still written
            // out (`~/bin/curl` is curl).
            WordPiece::TildePrefix(user) => Some(format!("~{user}")),
            WordPiece::ParameterExpansion(_) => {
                if source.contains("$(") || source.contains('`') || source.contains("<(") {
                    *trouble = Some(format!(
                        "a command substitution inside the parameter expansion `{source}`"
                    ));
                }
                if !quoted {
                    arg.splits = true;
                }
                None
            }
            WordPiece::CommandSubstitution(s) => {
                subs.push(s.clone());
                if !quoted {
                    arg.splits = true;
                }
                None
            }
            WordPiece::BackquotedCommandSubstitution(s) => {
                subs.push(unbackquote(s));
                if !quoted {
                    arg.splits = true;
                }
                None
            }
            WordPiece::ArithmeticExpression(e) => {
                if e.value.contains("$(") || e.value.contains('`') {
                    *trouble = Some(format!(
                        "a command substitution inside the arithmetic expansion `{source}`"
                    ));
                }
                None
            }
        };
        match (text, &mut arg.lit) {
            (Some(t), Some(lit)) => {
                lit.push_str(&t);
                if !matches!(
                    p.piece,
                    WordPiece::DoubleQuotedSequence(_) | WordPiece::GettextDoubleQuotedSequence(_)
                ) {
                    arg.prefix.push_str(&t);
                }
            }
            _ => arg.lit = None,
        }
    }
}

/// A brace expansion in unquoted text: `{a,b}` or `{1..9}`.
fn braces(t: &str) -> bool {
    let Some(open) = t.find('{') else {
        return false;
    };
    t[open..].find('}').is_some_and(|close| {
        let inner = &t[open + 1..open + close];
        inner.contains(',') || inner.contains("..")
    })
}

/// The command in a backquoted substitution: `\$`, `` \` `` and `\\` lose
/// their backslash.
fn unbackquote(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&n) = chars.peek()
            && matches!(n, '$' | '`' | '\\')
        {
            out.push(n);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// The text of `$'…'`, its escapes decoded as bash decodes them; `None` for
/// an escape this does not know (the value is then unknown).
fn ansi_c(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        let simple = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            continue;
        }
        let (radix, max) = match e {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 3),
            _ => return None,
        };
        let mut digits = String::new();
        if radix == 8 {
            digits.push(e);
        }
        while digits.len() < max
            && let Some(&d) = chars.peek()
            && d.is_digit(radix)
        {
            digits.push(d);
            chars.next();
        }
        let n = u32::from_str_radix(&digits, radix).ok()?;
        out.push(char::from_u32(n)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_escapes_join_into_one_value() {
        for (raw, lit) in [
            ("cu''rl", "curl"),
            ("c\\url", "curl"),
            ("\"cu\"rl", "curl"),
            ("$'\\x63url'", "curl"),
            ("$'\\143url'", "curl"),
            ("$'\\u0063url'", "curl"),
            (
                "'https://a.example/x?q=1&r=2'",
                "https://a.example/x?q=1&r=2",
            ),
        ] {
            assert_eq!(literal(raw).as_deref(), Some(lit), "{raw}");
        }
    }

    #[test]
    fn expansions_have_no_value_and_unquoted_ones_split() {
        let (a, subs, _) = read("\"$BASE/x\"");
        assert_eq!((a.lit, a.splits), (None, false));
        assert!(subs.is_empty());
        let (a, subs, _) = read("$(cat urls.txt)");
        assert_eq!((a.lit, a.splits), (None, true));
        assert_eq!(subs, ["cat urls.txt"]);
        let (a, subs, _) = read("`curl \\$X`");
        assert!(a.lit.is_none());
        assert_eq!(subs, ["curl $X"]);
        assert!(read("https://a.example/{x,y}").0.splits);
        let url = |raw: &str| read(raw).0.url_with_known_host();
        assert_eq!(
            url("\"https://a.example/$1\"").as_deref(),
            Some("https://a.example/")
        );
        assert_eq!(
            url("https://a.example/x$(date)").as_deref(),
            Some("https://a.example/")
        );
        assert_eq!(url("\"https://a.example$P/x\""), None);
        assert_eq!(url("\"https://$HOST/x\""), None);
        assert_eq!(url("\"$BASE/x\""), None);
    }

    #[test]
    fn a_heredoc_expands_substitutions_even_in_single_quotes() {
        let (_, subs, _) = read_heredoc("say '$(curl https://a.example/)' \"ok\"\n");
        assert_eq!(subs, ["curl https://a.example/"]);
    }
}
