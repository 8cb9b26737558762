//! The gate log: one JSON line per admission, finish, skip, block and give-up,
//! appended to `gate.log` in the state directory by every process.
//!
//! It is the product's own record of what it did, read by `pace-hook gaps`,
//! the demo and the benchmarks. Nothing is logged to stderr, which on
//! PreToolUse is read by the model. Writing the log is best effort: a full
//! disk must not turn into a blocked call when the gate itself worked.

use std::{io::Read, io::Write, path::Path};

use serde::{Deserialize, Serialize};

use crate::{
    error::{Error, Result},
    pacing::clock::EpochMs,
    state_dir::{Dir, Mode},
};

/// The log is rotated to `gate.log.1` past this size.
const ROTATE_BYTES: u64 = 32 * 1024 * 1024;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A call was admitted to its sites.
    Admit,
    /// A call's finish was recorded.
    Finish,
    /// A call passed without counting.
    Skip,
    /// A call was blocked.
    Block,
    /// A call gave up waiting and was blocked.
    GiveUp,
    /// A tool of a server no profile knows passed unpaced.
    Unknown,
    /// A site answered 429 or 503 and was held back, or was held back by
    /// hand (`pace-hook backoff`).
    Backoff,
    /// An admission taken back before the call went (it was held up past
    /// its hold and queued again): it sent nothing.
    Cancel,
    /// Something about the shared backend: it was found empty (a fresh
    /// gate), or could not be reached and the gate fell back to this
    /// machine's files. The reason says which.
    Backend,
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// When (epoch ms).
    pub ts: EpochMs,
    /// What.
    pub event: Kind,
    /// The process that wrote it.
    pub pid: u32,
    /// The Claude Code session, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Site keys concerned.
    #[serde(default)]
    pub sites: Vec<String>,
    /// The tool, or `run` for `pace-hook run`.
    #[serde(default)]
    pub tool: String,
    /// The call's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// How long it waited (admit, give_up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_ms: Option<u64>,
    /// The first site's interval (admit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_ms: Option<u64>,
    /// Each site's interval, in `sites` order (admit), for `gaps`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals_ms: Vec<u64>,
    /// The in-flight hold (admit), for `gaps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_ms: Option<u64>,
    /// Queue tickets, in `sites` order, for calls that queued (admit).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tickets: Vec<Option<u64>>,
    /// Per site, in `sites` order, when it let the call in (admit), for a
    /// call that needs several sites: the earlier ones are taken first and
    /// held until the last lets it in at `ts`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub admitted_ms: Vec<EpochMs>,
    /// Per site, in `sites` order, when its finish was recorded (finish):
    /// each site's own time, for `gaps`; `ts` is the last of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finished_ms: Vec<EpochMs>,
    /// Why (skip, block, give_up, backoff).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Until when the site is held back (backoff; `ts` for one cleared),
    /// so the timeline can say a wait was the backoff's. Absent from logs
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_ms: Option<EpochMs>,
}

impl Record {
    /// A record of `event` at `ts` by this process.
    pub fn new(event: Kind, ts: EpochMs, tool: &str) -> Self {
        Self {
            ts,
            event,
            pid: std::process::id(),
            session: None,
            sites: Vec::new(),
            tool: tool.to_owned(),
            call: None,
            waited_ms: None,
            interval_ms: None,
            intervals_ms: Vec::new(),
            hold_ms: None,
            tickets: Vec::new(),
            admitted_ms: Vec::new(),
            finished_ms: Vec::new(),
            reason: None,
            until_ms: None,
        }
    }
}

/// The log's file name in the state directory.
pub const FILE: &str = "gate.log";

/// Append `record` to the log in the state directory `root`, best effort.
/// The log is opened without following a link, so a link planted in its
/// place sends nothing anywhere.
pub(crate) fn append(root: &Dir, record: &Record) {
    let Ok(mut line) = serde_json::to_vec(record) else {
        return;
    };
    line.push(b'\n');
    if let Ok((mut file, len)) = root.open_sized(FILE, Mode::Append) {
        // One write call per line: O_APPEND keeps concurrent lines whole.
        // Rotated by the length before plus this line: what others appended
        // meanwhile only moves the rotation by a line or so.
        let _ = file.write_all(&line);
        if len.saturating_add(line.len() as u64) > ROTATE_BYTES {
            let _ = root.rename(FILE, root, "gate.log.1");
        }
    }
}

/// [`append`] to the state directory at `path`, if it exists and is safe;
/// never creates it.
pub fn append_at(path: &Path, record: &Record) {
    if let Ok(root) = Dir::open_root(path, false) {
        append(&root, record);
    }
}

/// Read every well-formed record from the log in `root`, with the count of
/// lines that were not. A missing log is an empty one.
pub(crate) fn read(root: &Dir) -> Result<(Vec<Record>, usize)> {
    let mut text = String::new();
    match root.open(FILE, Mode::Read) {
        Ok(mut f) => {
            f.read_to_string(&mut text)
                .map_err(|e| Error::io("read", root.join(FILE), e))?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(root.refuse(FILE, e, "read")),
    }
    Ok(parse(&text))
}

/// The records in log text, and how many lines were not records.
pub fn parse(text: &str) -> (Vec<Record>, usize) {
    let mut records = Vec::new();
    let mut bad = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(r) => records.push(r),
            Err(_) => bad += 1,
        }
    }
    (records, bad)
}
