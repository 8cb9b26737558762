//! The vendored serde_json's string scan (`vendor/serde_json/src/read.rs`,
//! 16 bytes per comparison on x86_64) against upstream's own reader of the
//! same grammar: `from_reader` reads a string byte by byte (`IoRead`) and
//! never runs the scan that the patch changed, so for every input both must
//! give the same value, or the same error at the same line and column. The
//! inputs put each kind of byte a string can hold (an escape, a control
//! character, a quote, UTF-8 good and bad) at every place of strings of
//! every length around the scan's blocks of 16 and 64 bytes, and in each way
//! serde_json reads a string: borrowed, into a `String`, inside a `Value`,
//! and skipped (`IgnoredAny`, what a screenshot's data is to pace-hook). See
//! `vendor/serde_json/PATCHED.md`.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

/// What one reading of a document gave: its value (debug-printed), or its
/// error's category, message and place (the byte offset its line and
/// column name in `doc`). A type error (a string where the target wants a
/// sequence) is placed by each reader its own way, upstream as much as here,
/// and has nothing to do with the scan: its place is not compared.
fn outcome<T: std::fmt::Debug>(
    doc: &[u8],
    r: serde_json::Result<T>,
) -> Result<String, (String, Option<usize>)> {
    r.map(|v| format!("{v:?}")).map_err(|e| {
        let text = e.to_string();
        let cut = text.rfind(" at line ").unwrap_or(text.len());
        let what = format!("{:?}: {}", e.classify(), &text[..cut]);
        if e.classify() == serde_json::error::Category::Data {
            return (what, None);
        }
        let line_start = doc
            .split_inclusive(|&b| b == b'\n')
            .take(e.line() - 1)
            .map(<[u8]>::len)
            .sum::<usize>();
        (what, Some(line_start + e.column()))
    })
}

/// Every way of reading `doc`, through the slice reader (patched) and
/// through the byte reader (upstream's, untouched).
fn same_both_ways(doc: &[u8]) {
    /// `skipped`: the target skips strings. Upstream's slice reader then
    /// places a control character's error at the character, where the byte
    /// reader (and the slice reader, reading a string) places it after.
    fn both<T: for<'de> Deserialize<'de> + std::fmt::Debug>(doc: &[u8], what: &str, skipped: bool) {
        let slice = outcome(doc, serde_json::from_slice::<T>(doc));
        let mut reader = outcome(doc, serde_json::from_reader::<_, T>(doc));
        if let Err((message, Some(at))) = &mut reader
            && skipped
            && message.contains("control character")
        {
            *at -= 1;
        }
        assert_eq!(
            slice,
            reader,
            "{what} of {:?}",
            String::from_utf8_lossy(doc)
        );
    }
    both::<Value>(doc, "Value", false);
    both::<String>(doc, "String", false);
    both::<Vec<Value>>(doc, "Vec<Value>", false);
    both::<std::collections::BTreeMap<String, Value>>(doc, "map", false);
    both::<IgnoredAny>(doc, "IgnoredAny", true);
    // A sequence's elements are skipped; a string where the sequence
    // should be is read, for the error to show it.
    let array = doc.trim_ascii_start().starts_with(b"[");
    both::<Vec<IgnoredAny>>(doc, "Vec<IgnoredAny>", array);
    // Borrowed: only the slice reader can lend a `&str`; it must when the
    // string has no escape, and give the same text as the byte reader.
    if let Ok(s) = serde_json::from_slice::<&str>(doc) {
        assert_eq!(
            Ok(format!("{s:?}")),
            outcome(doc, serde_json::from_reader::<_, String>(doc)),
            "&str of {:?}",
            String::from_utf8_lossy(doc)
        );
    }
}

/// The documents a string body makes: alone, in an array, as a map's
/// value and key, cut short, and on a second line.
fn documents(body: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (before, after) in [
        (&b"\""[..], &b"\""[..]),
        (b"[\"", b"\", 1]"),
        (b"{\"k\": \"", b"\"}"),
        (b"{\"", b"\": 1}"),
        (b"\"", b""),
        (b"[\"", b""),
        (b"\n \"", b"\"\n"),
    ] {
        let mut d = before.to_vec();
        d.extend_from_slice(body);
        d.extend_from_slice(after);
        out.push(d);
    }
    out
}

/// What may stand at one place of a string's body.
const PIECES: &[&[u8]] = &[
    b"\"",
    b"\\",
    b"\\\"",
    b"\\\\",
    b"\\n",
    b"\\/",
    b"\\u00e9",
    b"\\ud83d\\ude00",
    b"\\ud83d",
    b"\\x",
    b"\\u12",
    b"\x00",
    b"\x01",
    b"\n",
    b"\t",
    b"\x1f",
    b" ",
    b"!",
    b"#",
    b"\x7f",
    "é".as_bytes(),
    "😀".as_bytes(),
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
];

#[test]
fn each_piece_at_every_place_of_strings_around_the_blocks() {
    // Every length to 20, then each side of a block of 16 and of the loop's
    // 64 (the scan itself is checked at every length to 140 in the vendored
    // crate's own tests).
    let lens = (0..=20usize).chain([31, 32, 33, 47, 48, 63, 64, 65, 66, 80, 81, 128, 129, 140]);
    for len in lens {
        for at in 0..=len {
            for piece in PIECES {
                let mut body = vec![b'a'; len];
                body.splice(at..at, piece.iter().copied());
                for doc in documents(&body) {
                    same_both_ways(&doc);
                }
            }
        }
    }
}

#[test]
fn two_pieces_in_and_across_blocks() {
    for len in [15usize, 17, 63, 65, 130] {
        for first in 0..len {
            for second in (first..len).step_by(5) {
                for (x, y) in [
                    (&b"\\n"[..], &b"\""[..]),
                    (b"\x01", b"\\"),
                    (b"\xff", b"\""),
                    (b"\"", b"\x00"),
                ] {
                    let mut body = vec![b'b'; len];
                    body.splice(second..second, y.iter().copied());
                    body.splice(first..first, x.iter().copied());
                    for doc in documents(&body) {
                        same_both_ways(&doc);
                    }
                }
            }
        }
    }
}

#[test]
fn a_screenshot_sized_string_is_skipped_and_read_alike() {
    // 2 MB of base64, as a PostToolUse's image block carries it, then a
    // control character near its end, then a quote.
    let b64: Vec<u8> = (0..2 * 1024 * 1024 + 7)
        .map(|i: usize| {
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[i * 7 % 64]
        })
        .collect();
    let doc = [&b"[{\"data\": \""[..], &b64, b"\"}, 2]"].concat();
    let mut bad = doc.clone();
    let at = 11 + b64.len() - 5;
    bad[at] = b'\n';
    let mut cut = doc.clone();
    cut[at] = b'"';
    for doc in [doc, bad, cut] {
        let slice = outcome(&doc, serde_json::from_slice::<IgnoredAny>(&doc));
        let reader = outcome(&doc, serde_json::from_reader::<_, IgnoredAny>(&doc[..]));
        // Skipped, the slice reader places a control character one byte
        // before the byte reader (see `same_both_ways`).
        let reader = reader.map_err(|(m, at)| {
            let at = at.map(|a| a - usize::from(m.contains("control character")));
            (m, at)
        });
        assert_eq!(slice, reader);
        assert_eq!(
            outcome(&doc, serde_json::from_slice::<Value>(&doc)),
            outcome(&doc, serde_json::from_reader::<_, Value>(&doc[..]))
        );
    }
}
