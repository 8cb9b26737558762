//! HTML character references and JavaScript escapes, decoded, so that a
//! URL spelled with them is found as the browser would read it.

use std::borrow::Cow;

/// `text` with HTML character references and JavaScript escapes decoded,
/// for [`absolute_urls_in`]. Linear; borrows when there is nothing to decode.
pub(super) fn unescape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '\\']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['&', '\\']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let decoded = if tail.starts_with('&') {
            char_reference(tail)
        } else {
            js_escape(tail)
        };
        match decoded {
            Some((c, used)) => {
                out.push(c);
                rest = &tail[used..];
            }
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Named character references that can spell a URL's punctuation, and the
/// few any HTML writer uses.
const NAMED_REFERENCES: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("colon", ':'),
    ("sol", '/'),
    ("bsol", '\\'),
    ("period", '.'),
    ("commat", '@'),
    ("quest", '?'),
    ("num", '#'),
    ("percnt", '%'),
    ("lowbar", '_'),
    ("hyphen", '\u{2010}'),
    ("lpar", '('),
    ("rpar", ')'),
    ("equals", '='),
    ("semi", ';'),
    ("comma", ','),
    ("Tab", '\t'),
    ("NewLine", '\n'),
    ("nbsp", '\u{A0}'),
];

/// The character an HTML character reference at the start of `tail` stands
/// for, and its length.
fn char_reference(tail: &str) -> Option<(char, usize)> {
    let b = tail.as_bytes();
    if b.get(1) == Some(&b'#') {
        let (radix, from) = match b.get(2) {
            Some(b'x' | b'X') => (16, 3),
            _ => (10, 2),
        };
        let digits = b[from..]
            .iter()
            .take(8)
            .take_while(|c| (**c as char).is_digit(radix))
            .count();
        if digits == 0 {
            return None;
        }
        let value = u32::from_str_radix(&tail[from..from + digits], radix).ok()?;
        let c = char::from_u32(value)
            .filter(|&c| c != '\0')
            .unwrap_or('\u{FFFD}');
        let semi = usize::from(b.get(from + digits) == Some(&b';'));
        return Some((c, from + digits + semi));
    }
    NAMED_REFERENCES.iter().find_map(|(name, c)| {
        let after = tail[1..].strip_prefix(name)?;
        if after.starts_with(';') {
            Some((*c, name.len() + 2))
        } else if matches!(*name, "amp" | "lt" | "gt" | "quot") {
            // Legacy references that HTML reads without the semicolon.
            Some((*c, name.len() + 1))
        } else {
            None
        }
    })
}

/// The character a JavaScript escape at the start of `tail` (a backslash)
/// stands for, and its length: `\xHH`, `\uHHHH`, `\u{H…}`, `\/`.
fn js_escape(tail: &str) -> Option<(char, usize)> {
    let hex = |s: &str| u32::from_str_radix(s, 16).ok().and_then(char::from_u32);
    let all_hex = |s: &str| s.bytes().all(|c| c.is_ascii_hexdigit());
    match tail.as_bytes().get(1)? {
        b'/' => Some(('/', 2)),
        b'x' => {
            let h = tail.get(2..4).filter(|h| all_hex(h))?;
            Some((hex(h)?, 4))
        }
        b'u' if tail.as_bytes().get(2) == Some(&b'{') => {
            let close = tail[3..].bytes().take(7).position(|c| c == b'}')?;
            let h = &tail[3..3 + close];
            (!h.is_empty() && all_hex(h)).then_some(())?;
            Some((hex(h)?, close + 4))
        }
        b'u' => {
            let h = tail.get(2..6).filter(|h| all_hex(h))?;
            Some((hex(h)?, 6))
        }
        _ => None,
    }
}
