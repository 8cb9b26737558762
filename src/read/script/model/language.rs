//! ECMAScript's own objects: `Reflect`, `Promise`, `Object`, the ways to
//! run a string as code, and what every function has (`call`, `apply`,
//! `bind`, `constructor`).

use super::*;

/// What reading a property's descriptor is, as the model reads it: the
/// setter it gives (`src`'s, say) starts requests the analysis cannot see.
pub(super) const DESCRIPTOR: &str = "a property descriptor's getter or setter (such as `src`'s)";

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(names!["eval"], ANYWHERE, Def::Opaque("`eval`")),
        Row(names!["Function"], ANYWHERE, Def::Opaque("`Function`")),
        Row(names!["Reflect"], ANYWHERE, Def::Obj(Obj::Reflect)),
        Row(names!["Promise"], ANYWHERE, Def::Obj(Obj::Promise)),
        Row(names!["Object"], ANYWHERE, Def::Obj(Obj::Object)),
        // Text made from text: folded where the input is known.
        Row(names!["atob"], ANYWHERE, Def::Effect(Effect::Text(TextOp::Decodes(Decoding::Base64)))),
        Row(names!["decodeURIComponent"], ANYWHERE, Def::Effect(Effect::Text(TextOp::Decodes(Decoding::Component)))),
        Row(names!["decodeURI"], ANYWHERE, Def::Effect(Effect::Text(TextOp::Decodes(Decoding::Uri)))),
        Row(names!["unescape"], ANYWHERE, Def::Effect(Effect::Text(TextOp::Decodes(Decoding::Unescape)))),
    ],
    members: &[
        (Obj::Object, Row(names!["assign"], ANYWHERE, Def::Effect(Effect::CopiesProperties("`Object.assign`")))),
        (Obj::Object, Row(names!["getOwnPropertyDescriptor"], ANYWHERE, Def::Effect(Effect::DescribesProperty(DESCRIPTOR)))),
        (Obj::Reflect, Row(names!["getOwnPropertyDescriptor"], ANYWHERE, Def::Effect(Effect::DescribesProperty(DESCRIPTOR)))),
        (Obj::Object, Row(names!["getOwnPropertyDescriptors"], ANYWHERE, Def::Opaque(DESCRIPTOR))),
        (Obj::Reflect, Row(names!["getOwnPropertyDescriptors"], ANYWHERE, Def::Opaque(DESCRIPTOR))),
        (Obj::Reflect, Row(names!["set"], ANYWHERE, Def::Effect(Effect::SetsMember))),
        (Obj::Reflect, Row(names!["apply"], ANYWHERE, Def::Effect(Effect::CallsArgument { construct: false, how: "runs as an argument of `Reflect.{name}` ({at})" }))),
        (Obj::Reflect, Row(names!["construct"], ANYWHERE, Def::Effect(Effect::CallsArgument { construct: true, how: "runs as an argument of `Reflect.{name}` ({at})" }))),
        (Obj::Reflect, Row(names!["get"], ANYWHERE, Def::Effect(Effect::GetsMember))),
    ],
    any: &[
        Row(names!["__lookupSetter__", "__lookupGetter__"], ANYWHERE, Def::Opaque(DESCRIPTOR)),
        // An array's: the callback's first argument is the accumulator.
        Row(ACCUMULATORS, ANYWHERE, Def::Effect(Effect::Accumulates)),
        // `String.fromCharCode`, `String.prototype.concat` (an array's
        // `concat` makes no text: only a string receiver is folded).
        Row(names!["fromCharCode"], ANYWHERE, Def::Effect(Effect::Text(TextOp::Decodes(Decoding::CharCodes)))),
        Row(names!["fromCodePoint"], ANYWHERE, Def::Effect(Effect::Text(TextOp::Decodes(Decoding::CodePoints)))),
        Row(names!["concat"], ANYWHERE, Def::Effect(Effect::Text(TextOp::Concat))),
    ],
};

/// An array's methods that hand their callback an accumulator.
const ACCUMULATORS: Names = names!["reduce", "reduceRight"];

/// Whether `name` hands its callback an accumulator first and the item
/// second (`reduce`).
pub(super) fn accumulates(name: &str) -> bool {
    ACCUMULATORS.contains(name)
}

/// Member `name` of an object made by a literal (`[…]`, `{}`): the
/// language's own methods, of which the model knows the accumulators; any
/// other is page data.
pub(super) fn plain_member(name: &str) -> Option<Def> {
    ACCUMULATORS
        .contains(name)
        .then_some(Def::Effect(Effect::Accumulates))
}

/// `new Promise(executor)` runs the executor once, with `resolve` and
/// `reject`.
pub(super) fn runs_executor(obj: Obj) -> bool {
    obj == Obj::Promise
}

/// A promise's methods call each callback once. (Any object's method of
/// these names is taken to be a promise's.)
pub(super) fn calls_back_once(name: &str) -> bool {
    matches!(name, "then" | "catch" | "finally")
}

/// Functions of the language that only read their argument's keys.
pub(super) fn reads_only(name: &str) -> bool {
    matches!(
        name,
        "keys"
            | "getOwnPropertyNames"
            | "ownKeys"
            | "stringify"
            | "is"
            | "isArray"
            | "String"
            | "Boolean"
    )
}

/// The global that holds no value, unless the script declares its own.
pub(in crate::read::script) const UNDEFINED: &str = "undefined";

/// `x.constructor`: of a function, `Function`, which runs a string.
pub(in crate::read::script) fn is_constructor(name: &str) -> bool {
    name == "constructor"
}

/// `arguments.callee`: the function itself.
pub(in crate::read::script) fn is_callee(name: &str) -> bool {
    name == "callee"
}

/// What every function has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum FnMember {
    /// `f.call`, `f.apply`: calling it calls `f` once.
    Call,
    /// `f.bind`: calling it gives `f` back.
    Bind,
}

/// Member `name` of a function, if it is one of these.
pub(in crate::read::script) fn function_member(name: &str) -> Option<FnMember> {
    match name {
        "call" | "apply" => Some(FnMember::Call),
        "bind" => Some(FnMember::Bind),
        _ => None,
    }
}

/// Calls that join text into a new string, whose whole the walk reads for a
/// URL as it reads `a + b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum Builder {
    /// `s.concat(a, b)`: the receiver, then each argument.
    Concat,
    /// `[a, b].join(sep)`: an array literal's elements between separators.
    Join,
}

/// What the call of member `name` builds, if it joins text.
pub(in crate::read::script) fn string_builder(name: &str) -> Option<Builder> {
    match name {
        "concat" => Some(Builder::Concat),
        "join" => Some(Builder::Join),
        _ => None,
    }
}

/// Methods and properties of a string that give no text (a number, a
/// truth value): reading them off a known string makes no URL.
const NOT_TEXT: Names = names![
    "length",
    "indexOf",
    "lastIndexOf",
    "includes",
    "startsWith",
    "endsWith",
    "charCodeAt",
    "codePointAt",
    "search",
    "localeCompare",
    "isWellFormed",
];

/// Member `name` of a known string: `concat`; a method that gives no text
/// (`None`, page data); any other a method that makes text from it, which
/// [`fold_method`] folds where it can.
pub(in crate::read::script) fn string_member(name: &str) -> Option<Def> {
    if NOT_TEXT.contains(name) || name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(Def::Effect(Effect::Text(if name == "concat" {
        TextOp::Concat
    } else {
        TextOp::Method
    })))
}

/// An argument of a folded call: text, a number, or neither.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::read::script) enum Given {
    Text(String),
    Number(f64),
    Other,
}

/// What method `name` of the string `s` gives with `args`, when the model
/// folds it exactly: case, trimming, `slice`, `substring`, `at`, `charAt`,
/// `replace` and `replaceAll` of text by text.
pub(in crate::read::script) fn fold_method(s: &str, name: &str, args: &[Given]) -> Option<String> {
    let chars: Vec<char> = s.chars().collect();
    // Offsets count UTF-16 units; folded only where each is one character.
    let bmp = s.chars().all(|c| (c as u32) < 0x10000);
    let index = |i: usize| -> Option<isize> {
        match args.get(i) {
            None => None,
            Some(Given::Number(n)) if n.is_finite() && n.fract() == 0.0 && bmp => Some(*n as isize),
            Some(_) => Some(isize::MIN),
        }
    };
    let len = chars.len() as isize;
    let text = |from: isize, to: isize| -> String {
        chars[from.clamp(0, len) as usize..to.clamp(from.clamp(0, len), len) as usize]
            .iter()
            .collect()
    };
    let relative = |i: isize| if i < 0 { (len + i).max(0) } else { i.min(len) };
    match (name, args) {
        ("toLowerCase" | "toLocaleLowerCase", _) => Some(s.to_lowercase()),
        ("toUpperCase" | "toLocaleUpperCase", _) => Some(s.to_uppercase()),
        // JavaScript trims its white space and line ends, as Rust does.
        ("trim", _) => Some(s.trim().to_owned()),
        ("trimStart" | "trimLeft", _) => Some(s.trim_start().to_owned()),
        ("trimEnd" | "trimRight", _) => Some(s.trim_end().to_owned()),
        ("toString" | "valueOf", []) => Some(s.to_owned()),
        ("slice", _) => {
            let from = index(0).unwrap_or(0);
            let to = index(1).unwrap_or(len);
            (from != isize::MIN && to != isize::MIN).then(|| text(relative(from), relative(to)))
        }
        ("substring", _) => {
            let from = index(0).unwrap_or(0);
            let to = index(1).unwrap_or(len);
            if from == isize::MIN || to == isize::MIN {
                return None;
            }
            let (a, b) = (from.clamp(0, len), to.clamp(0, len));
            Some(text(a.min(b), a.max(b)))
        }
        ("at" | "charAt", _) => {
            let i = index(0).unwrap_or(0);
            if i == isize::MIN || !bmp {
                return None;
            }
            let i = if name == "at" && i < 0 { len + i } else { i };
            Some(if (0..len).contains(&i) {
                chars[i as usize].to_string()
            } else {
                String::new()
            })
        }
        ("replace" | "replaceAll", [Given::Text(from), Given::Text(to)]) if !to.contains('$') => {
            Some(if name == "replace" {
                s.replacen(from.as_str(), to, 1)
            } else if from.is_empty() {
                return None;
            } else {
                s.replace(from.as_str(), to)
            })
        }
        _ => None,
    }
}

/// The text `how` decodes from `args`, if it does (`atob` of what is not
/// base64 throws: no text).
pub(in crate::read::script) fn decode(how: Decoding, args: &[Given]) -> Option<String> {
    let text = |i: usize| match args.get(i) {
        Some(Given::Text(s)) => Some(s.as_str()),
        _ => None,
    };
    match how {
        Decoding::Base64 => base64(text(0)?),
        Decoding::Component => percent(text(0)?, ""),
        Decoding::Uri => percent(text(0)?, ";/?:@&=+$,#"),
        Decoding::Unescape => unescape(text(0)?),
        Decoding::CharCodes => {
            let mut units = Vec::new();
            for a in args {
                let Given::Number(n) = a else { return None };
                units.push((*n as i64).rem_euclid(1 << 16) as u16);
            }
            Some(String::from_utf16_lossy(&units))
        }
        Decoding::CodePoints => args
            .iter()
            .map(|a| match a {
                Given::Number(n) if n.fract() == 0.0 => char::from_u32(*n as u32),
                _ => None,
            })
            .collect(),
    }
}

/// `atob`: forgiving base64 (white space dropped, padding optional), each
/// byte one character.
fn base64(s: &str) -> Option<String> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b" \t\n\x0c\r".contains(b)).collect();
    let digits = match digits.as_slice() {
        [rest @ .., b'=', b'='] if digits.len().is_multiple_of(4) => rest,
        [rest @ .., b'='] if digits.len().is_multiple_of(4) => rest,
        all => all,
    };
    if digits.len() % 4 == 1 {
        return None;
    }
    let value = |b: u8| -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = String::new();
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, b) in chunk.iter().enumerate() {
            n |= value(*b)? << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push(char::from((n >> (16 - 8 * i)) as u8));
        }
    }
    Some(out)
}

/// `%XX` sequences decoded as UTF-8, but for those of the characters in
/// `keep`; a malformed one throws (no text).
fn percent(s: &str, keep: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                return None;
            }
            let byte = u8::from_str_radix(hex, 16).ok()?;
            if byte.is_ascii() && keep.as_bytes().contains(&byte) {
                out.extend_from_slice(&b[i..i + 3]);
            } else {
                out.push(byte);
            }
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `unescape`: `%uXXXX` and `%XX`, each one UTF-16 unit; anything else as
/// it is.
fn unescape(s: &str) -> Option<String> {
    let units: Vec<u16> = s.encode_utf16().collect();
    let hex = |from: usize, n: usize| -> Option<u16> {
        let digits = units.get(from..from + n)?;
        let text = String::from_utf16(digits).ok()?;
        if !text.bytes().all(|h| h.is_ascii_hexdigit()) {
            return None;
        }
        u16::from_str_radix(&text, 16).ok()
    };
    let mut out = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        if units[i] == u16::from(b'%') {
            if units.get(i + 1) == Some(&u16::from(b'u'))
                && let Some(u) = hex(i + 2, 4)
            {
                out.push(u);
                i += 6;
                continue;
            }
            if let Some(u) = hex(i + 1, 2) {
                out.push(u);
                i += 3;
                continue;
            }
        }
        out.push(units[i]);
        i += 1;
    }
    Some(String::from_utf16_lossy(&out))
}
