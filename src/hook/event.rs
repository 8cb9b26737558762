//! The hook event Claude Code writes on stdin: read with a size limit, parsed
//! into the few fields pace-hook uses, every other field tolerated.
//!
//! `tool_response` is kept as raw JSON and only its text blocks are decoded,
//! so a PostToolUse carrying a multi-megabyte screenshot costs one scan, not a
//! tree of allocations.

use std::io::Read;

use serde::{
    Deserialize, Deserializer,
    de::{IgnoredAny, MapAccess, SeqAccess, Visitor, value::MapAccessDeserializer},
};
use serde_json::{Map, Value};

use super::input::EventBytes;
use crate::error::{Error, Result};

/// The most pace-hook reads from stdin. Screenshots arrive base64-encoded
/// inside PostToolUse events, so this is generous; anything larger is refused
/// rather than buffered without bound.
pub(crate) const MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// Which hook fired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EventKind {
    /// Before the tool runs; pace-hook may block it.
    PreToolUse,
    /// After the tool succeeded.
    PostToolUse,
    /// After the tool failed or was interrupted.
    PostToolUseFailure,
    /// Any other event, which pace-hook ignores.
    Other(String),
}

/// One hook event.
#[derive(Debug)]
pub(crate) struct HookEvent {
    /// Which hook fired.
    pub(crate) kind: EventKind,
    /// The Claude Code session, for the log.
    pub(crate) session_id: Option<String>,
    /// The subagent, inside one.
    pub(crate) agent_id: Option<String>,
    /// e.g. `mcp__claude-in-chrome__navigate`.
    pub(crate) tool_name: String,
    /// The tool's input object (empty if absent).
    pub(crate) tool_input: Map<String, Value>,
    /// Ties a Pre event to its Post event.
    pub(crate) tool_use_id: Option<String>,
    /// The text blocks of `tool_response`, decoded in the one pass.
    pub(crate) response_texts: Vec<String>,
    /// `tool_response` when it is an object (WebFetch's `{code, result, …}`).
    pub(crate) response_object: Option<Value>,
    /// `error` of a PostToolUseFailure.
    pub(crate) error: Option<String>,
    /// The most this event may wait for a turn, set by whoever ran the hook
    /// (the agent kills a hook at its own timeout, and the call then runs
    /// unpaced): the config's `max_wait` applies only below it.
    pub(crate) max_wait_ms: Option<u64>,
    /// `duration_ms` of a Post: how long the tool ran.
    pub(crate) duration_ms: Option<u64>,
}

#[derive(Deserialize)]
struct RawEvent {
    hook_event_name: Option<String>,
    session_id: Option<String>,
    agent_id: Option<String>,
    tool_name: Option<String>,
    tool_input: Option<Value>,
    tool_use_id: Option<String>,
    #[serde(default)]
    tool_response: Texts,
    error: Option<Value>,
    duration_ms: Option<Value>,
    // What other agents' events carry, noted while the one parse runs, so
    // that telling who sent an event costs no second pass over it.
    #[serde(rename = "hookName")]
    cline_hook_name: Option<serde::de::IgnoredAny>,
    #[serde(rename = "toolName")]
    copilot_tool_name: Option<serde::de::IgnoredAny>,
    turn_id: Option<serde::de::IgnoredAny>,
    timestamp: Option<serde::de::IgnoredAny>,
}

/// The fields of an event that tell which agent sent it (see
/// `hook::client::Client::detect`), read in the same parse as the event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Marks {
    /// `hook_event_name`, as written.
    pub(crate) event_name: Option<String>,
    /// Cline's `hookName` is there.
    pub(crate) hook_name: bool,
    /// Copilot's camelCase `toolName` is there.
    pub(crate) tool_name_camel: bool,
    /// Codex's `turn_id` is there.
    pub(crate) turn_id: bool,
    /// VS Code's `timestamp` is there.
    pub(crate) timestamp: bool,
}

/// Visitor methods that take a JSON scalar as "no text": a response of an
/// unexpected shape must not make the whole event unreadable.
macro_rules! no_text_in_scalars {
    ($value:ty, $empty:expr) => {
        fn visit_unit<E>(self) -> std::result::Result<$value, E> {
            Ok($empty)
        }
        fn visit_bool<E>(self, _: bool) -> std::result::Result<$value, E> {
            Ok($empty)
        }
        fn visit_i64<E>(self, _: i64) -> std::result::Result<$value, E> {
            Ok($empty)
        }
        fn visit_u64<E>(self, _: u64) -> std::result::Result<$value, E> {
            Ok($empty)
        }
        fn visit_f64<E>(self, _: f64) -> std::result::Result<$value, E> {
            Ok($empty)
        }
    };
}

/// The texts of a tool response, taken while the event is parsed: an array's
/// `text` members, a string, or every text of an object (kept whole too).
/// Everything else (screenshots) is skipped without being copied.
#[derive(Default)]
struct Texts(Vec<String>, Option<Value>);

impl<'de> Deserialize<'de> for Texts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Texts;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a tool response")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Texts, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<BlockText>()? {
                    out.extend(b.0);
                }
                Ok(Texts(out, None))
            }
            fn visit_str<E>(self, s: &str) -> std::result::Result<Texts, E> {
                Ok(Texts(vec![s.to_owned()], None))
            }
            fn visit_string<E>(self, s: String) -> std::result::Result<Texts, E> {
                Ok(Texts(vec![s], None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Texts, A::Error> {
                let v = Value::deserialize(MapAccessDeserializer::new(map))?;
                let mut out = Vec::new();
                collect_texts(&v, &mut out);
                Ok(Texts(out, Some(v)))
            }
            no_text_in_scalars!(Texts, Texts::default());
        }
        d.deserialize_any(V)
    }
}

/// The `text` of one block of an array response, if it is a string.
struct BlockText(Option<String>);

impl<'de> Deserialize<'de> for BlockText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BlockText;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<BlockText, A::Error> {
                let mut text = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "text" {
                        text = map.next_value::<Option<Value>>()?.and_then(|v| match v {
                            Value::String(s) => Some(s),
                            _ => None,
                        });
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(BlockText(text))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<BlockText, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(BlockText(None))
            }
            fn visit_str<E>(self, _: &str) -> std::result::Result<BlockText, E> {
                Ok(BlockText(None))
            }
            no_text_in_scalars!(BlockText, BlockText(None));
        }
        d.deserialize_any(V)
    }
}

impl HookEvent {
    /// Parse one event from bytes.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Self> {
        Self::parse_marked(bytes).0
    }

    /// [`Self::parse`], and the marks of the agent that sent it, from the
    /// same pass; no marks when the bytes are not a JSON object.
    pub(crate) fn parse_marked(bytes: &[u8]) -> (Result<Self>, Option<Marks>) {
        match Self::raw(bytes) {
            Ok(raw) => {
                let marks = Marks {
                    event_name: raw.hook_event_name.clone(),
                    hook_name: raw.cline_hook_name.is_some(),
                    tool_name_camel: raw.copilot_tool_name.is_some(),
                    turn_id: raw.turn_id.is_some(),
                    timestamp: raw.timestamp.is_some(),
                };
                (Self::from_raw(raw), Some(marks))
            }
            Err(e) => (Err(e), None),
        }
    }

    fn raw(bytes: &[u8]) -> Result<RawEvent> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(Error::EmptyInput);
        }
        let raw: RawEvent = match serde_json::from_slice(bytes) {
            Ok(raw) => raw,
            // Node's JSON.stringify writes a lone UTF-16 surrogate when page
            // text is cut mid-emoji; the JSON standard allows it, Rust strings
            // cannot hold it. Read it as U+FFFD, as browsers do, rather than
            // lose the event.
            Err(e) if e.is_syntax() && replace_lone_surrogates(bytes) != bytes => {
                serde_json::from_slice(&replace_lone_surrogates(bytes)).map_err(|e| {
                    Error::BadEvent {
                        message: e.to_string(),
                    }
                })?
            }
            Err(e) => {
                return Err(Error::BadEvent {
                    message: e.to_string(),
                });
            }
        };
        Ok(raw)
    }

    /// An event in Claude Code's shape, already parsed: what each other
    /// client's reader builds (see `hook::client`).
    pub(crate) fn from_value(value: Value) -> Result<Self> {
        let raw: RawEvent = serde_json::from_value(value).map_err(|e| Error::BadEvent {
            message: e.to_string(),
        })?;
        Self::from_raw(raw)
    }

    fn from_raw(raw: RawEvent) -> Result<Self> {
        let name = raw.hook_event_name.ok_or(Error::MissingField {
            field: "hook_event_name",
        })?;
        let kind = match name.as_str() {
            "PreToolUse" => EventKind::PreToolUse,
            "PostToolUse" => EventKind::PostToolUse,
            "PostToolUseFailure" => EventKind::PostToolUseFailure,
            _ => EventKind::Other(name),
        };
        let is_tool_event = !matches!(kind, EventKind::Other(_));
        let tool_name = match raw.tool_name {
            Some(t) if !t.is_empty() => t,
            _ if is_tool_event => return Err(Error::MissingField { field: "tool_name" }),
            _ => String::new(),
        };
        let tool_input = match raw.tool_input {
            Some(Value::Object(map)) => map,
            None | Some(Value::Null) => Map::new(),
            Some(_) if is_tool_event => {
                return Err(Error::MissingField {
                    field: "tool_input",
                });
            }
            Some(_) => Map::new(),
        };
        let error = raw.error.map(|e| match e {
            Value::String(s) => s,
            other => other.to_string(),
        });
        Ok(Self {
            kind,
            session_id: raw.session_id,
            agent_id: raw.agent_id,
            tool_name,
            tool_input,
            tool_use_id: raw.tool_use_id.filter(|id| !id.is_empty()),
            response_texts: raw.tool_response.0,
            response_object: raw.tool_response.1,
            error,
            max_wait_ms: None,
            duration_ms: raw
                .duration_ms
                .and_then(|d| d.as_u64().or_else(|| d.as_f64().map(|f| f as u64))),
        })
    }

    /// Who made the call: the session, and the subagent inside it if any.
    /// One agent runs its paced calls one after another (Claude Code ends a
    /// call's Post hook before the next call's Pre hook), so a new call from
    /// the same agent means its earlier ones are over.
    pub(crate) fn agent(&self) -> Option<String> {
        let session = self.session_id.as_deref().filter(|s| !s.is_empty())?;
        Some(match &self.agent_id {
            Some(a) if !a.is_empty() => format!("{session}/{a}"),
            _ => session.to_owned(),
        })
    }

    /// The text a Post event carries: the response's text blocks (MCP), the
    /// response itself if it is a string, every `text` string in an object
    /// response, and the `error` string of a failure.
    #[cfg(any(test, feature = "fuzz"))]
    pub(crate) fn result_texts(&self) -> Vec<String> {
        let mut texts = self.response_texts.clone();
        if let Some(e) = &self.error {
            texts.push(e.clone());
        }
        texts
    }
}

/// `bytes` with every `\uXXXX` escape of a UTF-16 surrogate that is not
/// part of a pair, inside a JSON string, replaced by `\ufffd`. Only escapes
/// change; the length stays the same.
pub(crate) fn replace_lone_surrogates(bytes: &[u8]) -> Vec<u8> {
    fn unit(b: &[u8], at: usize) -> Option<u16> {
        if b.get(at) != Some(&b'\\') || b.get(at + 1) != Some(&b'u') {
            return None;
        }
        let hex = std::str::from_utf8(b.get(at + 2..at + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    }
    let high = |u: u16| (0xD800..0xDC00).contains(&u);
    let low = |u: u16| (0xDC00..0xE000).contains(&u);
    let mut out = bytes.to_vec();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => match unit(bytes, i) {
                Some(u) if high(u) && unit(bytes, i + 6).is_some_and(low) => i += 12,
                Some(u) if high(u) || low(u) => {
                    out[i + 2..i + 6].copy_from_slice(b"fffd");
                    i += 6;
                }
                _ => i += 2,
            },
            _ => i += 1,
        }
    }
    out
}

/// The bytes of one event from `input`, refusing more than
/// [`MAX_EVENT_BYTES`].
pub(crate) fn read_bytes(input: impl Read) -> Result<EventBytes> {
    let buf = super::input::read_at_most(input, MAX_EVENT_BYTES + 1)
        .map_err(|source| Error::Stdin { source })?;
    if buf.len() > MAX_EVENT_BYTES {
        return Err(Error::InputTooLarge {
            limit: MAX_EVENT_BYTES,
        });
    }
    Ok(buf)
}

/// Whether bytes that do not parse as an event say, in the JSON structure
/// itself (not inside a string), that they are a Post event: then the
/// message must not tell the model its call was blocked, for it already ran.
/// Only the wording depends on this, never the exit code.
pub(crate) fn looks_like_post(bytes: &[u8]) -> bool {
    key_value_starts(bytes, "hook_event_name", "PostToolUse")
}

/// Whether the first `"key"` in `bytes` that stands in the JSON structure
/// (not inside a string) has a string value starting with `prefix`: what
/// each client's reader asks of bytes that do not parse.
pub(crate) fn key_value_starts(bytes: &[u8], key: &str, prefix: &str) -> bool {
    let key = format!("\"{key}\"");
    let key = key.as_bytes();
    let prefix = format!("\"{prefix}");
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' if !in_string && bytes[i..].starts_with(key) => {
                let rest = &bytes[i + key.len()..];
                let rest = rest.trim_ascii_start();
                let Some(rest) = rest.strip_prefix(b":") else {
                    return false;
                };
                return rest.trim_ascii_start().starts_with(prefix.as_bytes());
            }
            b'"' => in_string = !in_string,
            _ => {}
        }
        i += 1;
    }
    false
}

fn collect_texts(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match v {
                    Value::String(s) if k == "text" || k == "content" || k == "result" => {
                        out.push(s.clone())
                    }
                    _ => collect_texts(v, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| collect_texts(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::input::{HUGE_FROM, SMALL};

    #[test]
    fn empty_and_blank_input_are_errors() {
        assert!(matches!(HookEvent::parse(b""), Err(Error::EmptyInput)));
        assert!(matches!(HookEvent::parse(b" \n"), Err(Error::EmptyInput)));
    }

    #[test]
    fn garbage_is_a_json_error() {
        assert!(matches!(
            HookEvent::parse(b"{nope"),
            Err(Error::BadEvent { .. })
        ));
        assert!(matches!(
            HookEvent::parse(b"[1,2]"),
            Err(Error::BadEvent { .. })
        ));
    }

    #[test]
    fn tool_event_without_tool_name_is_refused() {
        let e = HookEvent::parse(br#"{"hook_event_name":"PreToolUse"}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the hook event has no usable `tool_name` field"
        );
    }

    #[test]
    fn unknown_fields_are_tolerated() {
        let e = HookEvent::parse(
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{},"new_field":[1]}"#,
        )
        .unwrap();
        assert_eq!(e.kind, EventKind::PreToolUse);
    }

    #[test]
    fn responses_of_every_shape_give_their_text() {
        let mk = |resp: &str| {
            HookEvent::parse(
                format!(
                    r#"{{"hook_event_name":"PostToolUse","tool_name":"x","tool_response":{resp}}}"#
                )
                .as_bytes(),
            )
            .unwrap()
            .result_texts()
        };
        assert_eq!(
            mk(r#"[{"type":"text","text":"a"},{"type":"image","source":{"data":"zz"}}]"#),
            vec!["a"]
        );
        assert_eq!(mk(r#""plain""#), vec!["plain"]);
        assert_eq!(mk(r#"{"content":[{"type":"text","text":"b"}]}"#), vec!["b"]);
    }

    #[test]
    fn responses_of_odd_shapes_give_no_text_and_no_error() {
        for resp in [
            "null",
            "3",
            "true",
            "[1, null, \"x\", [2]]",
            "[{\"text\": 5}]",
        ] {
            let e = HookEvent::parse(
                format!(
                    r#"{{"hook_event_name":"PostToolUse","tool_name":"x","tool_response":{resp}}}"#
                )
                .as_bytes(),
            )
            .unwrap();
            assert!(e.result_texts().is_empty(), "{resp}");
        }
    }

    #[test]
    fn a_lone_surrogate_is_read_as_a_replacement_character() {
        let e = HookEvent::parse(
            br#"{"hook_event_name":"PostToolUse","tool_name":"x","tool_response":[{"type":"text","text":"cut \ud83d"},{"type":"text","text":"pair \ud83d\ude00 low \udc00 esc \\ud83d"}]}"#,
        )
        .unwrap();
        assert_eq!(
            e.result_texts(),
            vec!["cut \u{fffd}", "pair \u{1f600} low \u{fffd} esc \\ud83d"]
        );
    }

    #[test]
    fn only_the_structure_says_an_event_is_a_post() {
        assert!(looks_like_post(
            br#"{"a": 1, "hook_event_name" : "PostToolUse", "x": [1"#
        ));
        assert!(looks_like_post(
            br#"{"hook_event_name":"PostToolUseFailure","#
        ));
        assert!(!looks_like_post(
            br#"{"hook_event_name":"PreToolUse","t":""hook_event_name":"PostToolUse""#
        ));
        assert!(!looks_like_post(
            br#"{"tool_input":{"text":""hook_event_name": "PostToolUse""}"#
        ));
        assert!(!looks_like_post(b"garbage"));
    }

    /// A reader that hands out at most `step` bytes per call, as a pipe
    /// does.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = out.len().min(self.step).min(self.bytes.len());
            out[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn every_size_is_read_whole_in_any_steps() {
        let all: Vec<u8> = (0..3 * 1024 * 1024 + 17)
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        let k = 1024;
        for len in [
            0,
            1,
            8 * k - 1,
            8 * k,
            8 * k + 1,
            64 * k - 1,
            64 * k,
            64 * k + 1,
            128 * k,
            576 * k + 3,
            HUGE_FROM - 1,
            HUGE_FROM,
            HUGE_FROM + 1,
            HUGE_FROM + 2 * k * k,
            2 * k * k + 12_345,
            all.len(),
        ] {
            for step in [1 << 20, 65_536, 4_093, 1] {
                if step == 1 && len > 200 * k {
                    continue;
                }
                let got = read_bytes(Trickle {
                    bytes: &all[..len],
                    step,
                })
                .unwrap();
                assert!(*got == all[..len], "{len} bytes in steps of {step}");
                #[cfg(target_os = "linux")]
                assert_eq!(got.mapped(), len >= SMALL, "{len} bytes");
            }
        }
    }

    /// A reader interrupted by a signal before every other read.
    struct Interrupted<'a>(&'a [u8], bool);

    impl Read for Interrupted<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.1 = !self.1;
            if self.1 {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            let n = out.len().min(50_000).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_read_interrupted_by_a_signal_is_tried_again() {
        let all: Vec<u8> = (0..3 * 1024 * 1024).map(|i| (i % 253) as u8).collect();
        for len in [10, SMALL + 1, all.len()] {
            let got = read_bytes(Interrupted(&all[..len], false)).unwrap();
            assert!(*got == all[..len], "{len} bytes");
        }
    }

    #[test]
    fn exactly_the_limit_is_read_and_one_more_is_refused() {
        let big = vec![b' '; MAX_EVENT_BYTES + 1];
        assert_eq!(
            read_bytes(&big[..MAX_EVENT_BYTES]).unwrap().len(),
            MAX_EVENT_BYTES
        );
        assert!(matches!(
            read_bytes(&big[..]),
            Err(Error::InputTooLarge { .. })
        ));
    }

    #[test]
    fn a_read_error_is_a_stdin_error() {
        struct Broken(usize);
        impl Read for Broken {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::Error::other("gone"));
                }
                let n = out.len().min(self.0);
                out[..n].fill(b'x');
                self.0 -= n;
                Ok(n)
            }
        }
        for before in [0, 100, 70 * 1024, 700 * 1024] {
            assert!(matches!(
                read_bytes(Broken(before)),
                Err(Error::Stdin { .. })
            ));
        }
    }

    #[test]
    fn oversized_input_is_refused_without_parsing() {
        let big = vec![b' '; MAX_EVENT_BYTES + 10];
        assert!(matches!(
            read_bytes(&big[..]),
            Err(Error::InputTooLarge { .. })
        ));
    }
}
