//! The tables' names, indexed by the compiler.
//!
//! A name the filter lets through is looked up in every platform's rows of
//! its table. Building a hash map of them on the first such lookup cost
//! about 200 k instructions, more than half of what the event of a one-line
//! script runs, whichever name it was. The index here is a constant instead:
//! an open-addressing table (linear probing) made at compile time, of plain
//! numbers, so a lookup probes a slot or two and a position-independent
//! build has nothing in it to relocate.
//!
//! A slot holds the place of the name's first row (platform, row, and the
//! name's index and byte in that row's [`Names`], to compare it), and for
//! each environment the first row, in the platforms' order, that holds
//! there: what a scan of the rows in order would find.

use super::{Def, Env, Obj, PLATFORMS, Platform, Row, slot};

/// A table of every platform.
#[derive(Clone, Copy)]
pub(super) enum Table {
    /// Properties of the global object.
    Globals,
    /// Members of the known objects, by object and name.
    Members,
    /// Members of any object, by name alone.
    Any,
}

/// The index of one table: `CAP` slots, a power of two, at least twice the
/// names it holds.
pub(super) struct Index<const CAP: usize> {
    /// The name's place, packed by [`pack`]; 0 for an empty slot.
    keys: [u64; CAP],
    /// For `Env::Page` and `Env::PlaywrightServer` ([`slot`]): the row that
    /// holds there, as `(platform << 16 | row) + 1`; 0 for none.
    rows: [[u32; 2]; CAP],
}

/// How many rows `platform` has in `table`.
pub(super) const fn rows_in(platform: &Platform, table: Table) -> usize {
    match table {
        Table::Globals => platform.globals.len(),
        Table::Members => platform.members.len(),
        Table::Any => platform.any.len(),
    }
}

/// Row `r` of `platform`'s `table`, and its object (`obj as u8 + 1`; 0 in
/// the tables keyed by name alone).
pub(super) const fn row_of(
    platform: &'static Platform,
    table: Table,
    r: usize,
) -> (&'static Row, u8) {
    match table {
        Table::Globals => (&platform.globals[r], 0),
        Table::Members => (&platform.members[r].1, platform.members[r].0 as u8 + 1),
        Table::Any => (&platform.any[r], 0),
    }
}

/// Every name of `table`, counted once per row it is in.
pub(super) const fn count(table: Table) -> usize {
    let mut total = 0;
    let mut p = 0;
    while p < PLATFORMS.len() {
        let mut r = 0;
        while r < rows_in(PLATFORMS[p], table) {
            total += row_of(PLATFORMS[p], table, r).0.0.len();
            r += 1;
        }
        p += 1;
    }
    total
}

/// The slots for `names` names: a power of two, at least twice as many.
pub(super) const fn capacity(names: usize) -> usize {
    let at_least = if names < 8 { 16 } else { names * 2 };
    at_least.next_power_of_two()
}

/// FNV-1a over the object and the name's bytes, then mixed so that the low
/// bits a slot is taken from depend on all of it.
const fn hash(obj: u8, name: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ obj as u64;
    let mut i = 0;
    while i < name.len() {
        h ^= name[i] as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

/// A name's place in one slot: platform + 1 (8 bits), row (16), its index
/// in the row's names (16) and the byte it starts at there (24).
const fn pack(p: usize, r: usize, i: usize, start: usize) -> u64 {
    assert!(p < 255 && r < 1 << 16 && i < 1 << 16 && start < 1 << 24);
    ((p as u64 + 1) << 56) | ((r as u64) << 40) | ((i as u64) << 24) | start as u64
}

/// The name's bytes, and the object (as in [`row_of`]), at a packed place.
#[inline]
const fn unpack(table: Table, key: u64) -> (&'static [u8], u8) {
    let p = (key >> 56) as usize - 1;
    let r = (key >> 40) as usize & 0xffff;
    let i = (key >> 24) as usize & 0xffff;
    let start = key as usize & 0xff_ffff;
    let (row, obj) = row_of(PLATFORMS[p], table, r);
    (row.0.bytes_at(i, start), obj)
}

/// `a == b`, in const code.
#[inline]
const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether a row that holds `only` (`None`: everywhere) holds in `env`.
const fn holds(only: Option<Env>, env: Env) -> bool {
    matches!(
        (only, env),
        (None, _)
            | (Some(Env::Page), Env::Page)
            | (Some(Env::PlaywrightServer), Env::PlaywrightServer)
    )
}

impl<const CAP: usize> Index<CAP> {
    /// The index of `table`: every name of every row, in the platforms'
    /// order, the first row that holds in each environment kept.
    pub(super) const fn build(table: Table) -> Self {
        assert!(CAP.is_power_of_two() && CAP >= 2 * count(table));
        let mut index = Index {
            keys: [0; CAP],
            rows: [[0; 2]; CAP],
        };
        let mut p = 0;
        while p < PLATFORMS.len() {
            let mut r = 0;
            while r < rows_in(PLATFORMS[p], table) {
                let (row, obj) = row_of(PLATFORMS[p], table, r);
                let names = row.0;
                let place = ((p << 16) | r) as u32 + 1;
                let (mut i, mut start) = (0, names.start());
                while i < names.len() {
                    let (name, next) = names.get_at(i, start);
                    let k = index.probe(table, obj, name.as_bytes());
                    if index.keys[k] == 0 {
                        index.keys[k] = pack(p, r, i, start);
                    }
                    if holds(row.1, Env::Page) && index.rows[k][0] == 0 {
                        index.rows[k][0] = place;
                    }
                    if holds(row.1, Env::PlaywrightServer) && index.rows[k][1] == 0 {
                        index.rows[k][1] = place;
                    }
                    (i, start) = (i + 1, next);
                }
                r += 1;
            }
            p += 1;
        }
        index
    }

    /// The slot of `obj`'s `name`, or the empty slot where it would go.
    /// There is always one: at most half the slots are taken.
    const fn probe(&self, table: Table, obj: u8, name: &[u8]) -> usize {
        let mut k = hash(obj, name) as usize & (CAP - 1);
        loop {
            let key = self.keys[k];
            if key == 0 {
                return k;
            }
            let (held, held_obj) = unpack(table, key);
            if held_obj == obj && same(held, name) {
                return k;
            }
            k = (k + 1) & (CAP - 1);
        }
    }

    /// What `name` (a member of `obj`, in the table of members) is in `env`.
    #[inline]
    pub(super) fn get(&self, table: Table, obj: Option<Obj>, name: &str, env: Env) -> Option<Def> {
        let k = self.probe(table, obj.map_or(0, |o| o as u8 + 1), name.as_bytes());
        let place = self.rows[k][slot(env)];
        if place == 0 {
            // An empty slot, or a name with no row in this environment.
            return None;
        }
        let (p, r) = ((place - 1) >> 16, (place - 1) & 0xffff);
        Some(row_of(PLATFORMS[p as usize], table, r as usize).0.2)
    }
}
