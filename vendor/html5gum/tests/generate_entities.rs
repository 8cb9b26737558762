//! Writes `src/entities.rs`, the named character reference table, from
//! upstream's `tests/upstream_entities.rs` (html5gum 0.9.0's own
//! `src/entities.rs`, generated from the WHATWG `entities.json`).
//!
//! The same candidates in the same order, as data without pointers: one
//! string of length-prefixed (name, characters) pairs and a table of `u16`
//! offsets into it. See `PATCHED.md` for why. Regenerate with
//!
//! ```sh
//! cd vendor/html5gum
//! rustc --edition 2021 -O tests/generate_entities.rs -o /tmp/generate_entities
//! /tmp/generate_entities < tests/upstream_entities.rs > src/entities.rs
//! ```
//!
//! pace-hook's `tests/html5gum_entities.rs` checks that `src/entities.rs` is
//! what this program makes of the upstream file, and that both tables give
//! the same answers.

use std::fmt::Write as _;
use std::io::{Read as _, Write as _};

/// The characters a name's first and second characters may be, in the order
/// of the generated `alphanumeric_index`.
const ALPHANUMERIC: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// How many characters [`ALPHANUMERIC`] has.
const ALPHANUMERICS: usize = ALPHANUMERIC.len();

/// The index of `c` in [`ALPHANUMERIC`], or `None`.
fn alphanumeric_index(c: char) -> Option<usize> {
    ALPHANUMERIC.find(c)
}

/// One candidate of a (first, second) pair: the rest of its name and the
/// characters it stands for.
type Candidate = (String, String);

/// Every (first, second) pair's candidates, in upstream's order.
type Groups = Vec<((char, char), Vec<Candidate>)>;

#[derive(Debug, PartialEq)]
enum Token {
    Char(char),
    Str(String),
    Punct(char),
    Arrow,
}

/// Rust's escapes in char and string literals, as upstream writes them.
fn unescape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<char, String> {
    match chars.next() {
        Some('n') => Ok('\n'),
        Some('t') => Ok('\t'),
        Some('r') => Ok('\r'),
        Some('0') => Ok('\0'),
        Some(c @ ('\\' | '"' | '\'')) => Ok(c),
        Some('u') => {
            if chars.next() != Some('{') {
                return Err("\\u without {".to_owned());
            }
            let mut hex = String::new();
            loop {
                match chars.next() {
                    Some('}') => break,
                    Some(c) if c.is_ascii_hexdigit() => hex.push(c),
                    other => return Err(format!("bad \\u{{}} escape at {other:?}")),
                }
            }
            u32::from_str_radix(&hex, 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| format!("\\u{{{hex}}} is no character"))
        }
        other => Err(format!("unknown escape \\{other:?}")),
    }
}

/// The literals and punctuation of a Rust file; identifiers, lifetimes and
/// comments are left out.
fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '"' => {
                let mut s = String::new();
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => s.push(unescape(&mut chars)?),
                        Some(c) => s.push(c),
                        None => return Err("unterminated string".to_owned()),
                    }
                }
                out.push(Token::Str(s));
            }
            '\'' => {
                // A char literal ('x' or '\u{..}'), or a lifetime ('static).
                let mut ahead = chars.clone();
                let literal = match ahead.next() {
                    Some('\\') => Some(unescape(&mut ahead)?),
                    Some(c) => Some(c),
                    None => None,
                };
                if let Some(literal) = literal.filter(|_| ahead.peek() == Some(&'\'')) {
                    ahead.next();
                    chars = ahead;
                    out.push(Token::Char(literal));
                }
            }
            '=' if chars.peek() == Some(&'>') => {
                chars.next();
                out.push(Token::Arrow);
            }
            '{' | '}' | '[' | ']' | '(' | ')' | ',' | '&' => out.push(Token::Punct(c)),
            _ => {}
        }
    }
    Ok(out)
}

/// Upstream's table: each `'X' => {` arm of the first character holds
/// `'Y' => &[("rest", "characters"), ...]` arms of the second.
fn parse(text: &str) -> Result<Groups, String> {
    let tokens = tokens(text)?;
    let mut groups: Groups = Vec::new();
    let mut first = None;
    let mut i = 0;
    while i < tokens.len() {
        let Token::Char(c) = tokens[i] else {
            i += 1;
            continue;
        };
        match tokens.get(i + 1..i + 4) {
            Some([Token::Arrow, Token::Punct('{'), ..]) => {
                first = Some(c);
                i += 3;
            }
            Some([Token::Arrow, Token::Punct('&'), Token::Punct('[')]) => {
                let first =
                    first.ok_or_else(|| format!("'{c}' => &[ outside a first character"))?;
                i += 4;
                let mut candidates = Vec::new();
                loop {
                    match tokens.get(i..i + 5) {
                        Some(
                            [
                                Token::Punct('('),
                                Token::Str(name),
                                Token::Punct(','),
                                Token::Str(characters),
                                Token::Punct(')'),
                            ],
                        ) => {
                            candidates.push((name.clone(), characters.clone()));
                            i += 5;
                            if tokens.get(i) == Some(&Token::Punct(',')) {
                                i += 1;
                            }
                        }
                        _ if tokens.get(i) == Some(&Token::Punct(']')) => break,
                        _ => return Err(format!("unexpected {:?} in '{first}{c}'", tokens.get(i))),
                    }
                }
                if groups.iter().any(|(pair, _)| *pair == (first, c)) {
                    return Err(format!("'{first}{c}' twice"));
                }
                groups.push(((first, c), candidates));
            }
            _ => i += 1,
        }
    }
    if groups.is_empty() {
        return Err("no candidates found".to_owned());
    }
    Ok(groups)
}

/// One byte that says how long `s` is, as an escape in a string literal.
fn length_prefix(s: &str, what: &str) -> Result<String, String> {
    // Below 0x80 the byte is one ASCII character, so the table stays a `str`
    // and every slice of it falls on character boundaries.
    if s.len() < 0x80 {
        Ok(format!("\\x{:02x}", s.len()))
    } else {
        Err(format!("{what} `{s}` is {} bytes, over 127", s.len()))
    }
}

/// `src/entities.rs` for upstream's file `text`.
pub(crate) fn generate(text: &str) -> Result<String, String> {
    let groups = parse(text)?;
    let mut table = String::new();
    let mut starts = vec![None; ALPHANUMERICS * ALPHANUMERICS];
    let mut offset = 0usize;
    let mut by_index: Vec<_> = groups
        .iter()
        .map(|((first, second), candidates)| {
            let index = alphanumeric_index(*first)
                .zip(alphanumeric_index(*second))
                .map(|(f, s)| f * ALPHANUMERICS + s)
                .ok_or_else(|| format!("'{first}{second}' is not two ASCII alphanumerics"))?;
            Ok((index, (*first, *second), candidates))
        })
        .collect::<Result<_, String>>()?;
    by_index.sort_by_key(|(index, _, _)| *index);
    for (index, (first, second), candidates) in by_index {
        starts[index] = Some(offset);
        table.push_str("    \"");
        for (name, characters) in candidates {
            if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b';') {
                return Err(format!(
                    "name `{first}{second}{name}` is not ASCII alphanumerics and `;`"
                ));
            }
            table.push_str(&length_prefix(name, "name")?);
            table.push_str(name);
            table.push_str(&length_prefix(characters, "characters")?);
            for c in characters.chars() {
                let _ = write!(table, "\\u{{{:x}}}", u32::from(c));
            }
            offset += 2 + name.len() + characters.len();
        }
        let _ = writeln!(table, "\", // {first}{second}");
    }
    if offset > usize::from(u16::MAX) {
        return Err(format!("the table is {offset} bytes, over u16::MAX"));
    }
    // A pair without candidates starts where the next one does: its slice is
    // empty.
    let mut next = offset;
    let starts: Vec<usize> = starts
        .iter()
        .rev()
        .map(|start| {
            next = start.unwrap_or(next);
            next
        })
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let mut rows = String::new();
    for (row, first) in starts.chunks(ALPHANUMERICS).zip(ALPHANUMERIC.chars()) {
        let numbers: Vec<String> = row.iter().map(usize::to_string).collect();
        let _ = writeln!(rows, "    {}, // {first}", numbers.join(", "));
    }
    let _ = writeln!(rows, "    {offset}, // the end");
    let candidates: usize = groups.iter().map(|(_, c)| c.len()).sum();
    Ok(TEMPLATE
        .replace("{CANDIDATES}", &candidates.to_string())
        .replace("{TABLE_BYTES}", &offset.to_string())
        .replace("{TABLE}", &table)
        .replace("{STARTS}", &rows))
}

const TEMPLATE: &str = r#"// @generated by tests/generate_entities.rs from tests/upstream_entities.rs
// (upstream's file, generated from the WHATWG entities.json); do not edit.
//
// The same candidates in the same order as upstream's `match`, kept as data
// without pointers: upstream's `&[(&str, &str)]` slices put about 5,000
// pointers in `.data.rel.ro`, each a relocation applied at every start of a
// position-independent program. See PATCHED.md.

pub(crate) struct CharRef {
    /// Name as it appears escaped in HTML, without its first two characters
    pub(crate) name: &'static str,
    /// Unescaped character codepoints
    pub(crate) characters: &'static str,
}

pub(crate) fn try_read_character_reference<E>(
    first_char: char,
    second_char: char,
    mut try_read: impl FnMut(&str) -> Result<bool, E>,
) -> Result<Option<CharRef>, E> {
    let (Some(first), Some(second)) = (
        alphanumeric_index(first_char),
        alphanumeric_index(second_char),
    ) else {
        return Ok(None);
    };
    let pair = first * ALPHANUMERICS + second;
    let mut candidates = &TABLE[usize::from(STARTS[pair])..usize::from(STARTS[pair + 1])];
    while !candidates.is_empty() {
        let (name, rest) = split_prefixed(candidates);
        let (characters, rest) = split_prefixed(rest);
        if name.is_empty() || try_read(name)? {
            return Ok(Some(CharRef { name, characters }));
        }
        candidates = rest;
    }
    Ok(None)
}

/// The string whose length is the first byte of `s`, and what follows it.
fn split_prefixed(s: &'static str) -> (&'static str, &'static str) {
    let len = usize::from(s.as_bytes()[0]);
    s[1..].split_at(len)
}

/// The index of `c` in `0-9A-Za-z`, or `None`.
fn alphanumeric_index(c: char) -> Option<usize> {
    match c {
        '0'..='9' => Some(c as usize - '0' as usize),
        'A'..='Z' => Some(c as usize - 'A' as usize + 10),
        'a'..='z' => Some(c as usize - 'a' as usize + 36),
        _ => None,
    }
}

/// How many characters [`alphanumeric_index`] numbers.
const ALPHANUMERICS: usize = 62;

/// The {CANDIDATES} candidates ({TABLE_BYTES} bytes), grouped by their first two
/// characters and in upstream's order within a group: the rest of the name
/// and the characters, each after one byte that gives its length.
#[rustfmt::skip]
const TABLE: &str = concat!(
{TABLE});

/// Where the candidates of first character `f` and second `s` start in
/// `TABLE`, at `alphanumeric_index(f) * ALPHANUMERICS + alphanumeric_index(s)`;
/// they end where the next pair's start, and the last entry is the end.
#[rustfmt::skip]
static STARTS: [u16; ALPHANUMERICS * ALPHANUMERICS + 1] = [
{STARTS}];
"#;

fn main() {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("generate_entities: reading upstream's entities.rs from stdin: {e}");
        std::process::exit(1);
    }
    match generate(&text) {
        Ok(out) => {
            if let Err(e) = std::io::stdout().write_all(out.as_bytes()) {
                eprintln!("generate_entities: writing: {e}");
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("generate_entities: {e}");
            std::process::exit(1);
        }
    }
}
