//! The configured sites as a table an event reads in place: the site lines in
//! file order, and three sorted indexes over them (by name, by domain, by
//! gate key), so that finding a site reads a few pages of it whatever the
//! number of sites.
//!
//! The table is a run of 4 KiB pages, each ending in a checksum of its
//! contents, its page number and the config cache's key: a page cut short,
//! damaged, or copied from another cache fails its check. It is built in
//! memory by a parse (`Source::Built`, trusted, not checked) and kept in the
//! config cache after the cache's head (`cache.rs`), from which an event
//! reads only the pages its lookups touch (`Source::File`, `pread`, every
//! page checked as it is read). A lookup that meets a page that fails its
//! check, or anything else that does not hold together, answers
//! [`Broken`]: [`Config`](super::Config)'s lookups then read the TOML again
//! and never use the damaged table.
//!
//! The four streams, each starting on a page of its own:
//! - records: each site's line (`Site::parse`) after its length (u32),
//!   in the order of the file;
//! - three indexes of 8-byte entries, a word's hash (u32) and the offset of
//!   a record (u32), sorted by both: a site's name; each of its domains; and
//!   each gate key (a domain's registrable domain) with the site
//!   `group_of_key` picks for it, the longest interval, the last of equals.
//!
//! A hash only finds candidates: each record a lookup reads is checked to
//! hold the word it was looked up by, so equal hashes cost a read, never a
//! wrong answer. The entries spread evenly over the hash's range, so the
//! first page read (at the place the hash predicts) is most often the one
//! that holds the word; after three guesses the search halves, so a page
//! read is never more than the logarithm of the index's pages.

use std::{
    fs::File,
    os::unix::fs::FileExt,
    sync::{Arc, Mutex, OnceLock},
};

use super::sites::Site;

/// A page's size.
pub(crate) const PAGE: usize = 4096;
/// What a page holds before its checksum.
pub(crate) const PAYLOAD: usize = PAGE - 8;
/// Index entries per page (511 × 8 bytes fill the payload exactly).
const PER_PAGE: u64 = (PAYLOAD / ENTRY) as u64;
const ENTRY: usize = 8;
/// Pages kept after they are read and checked: the few an event's lookups
/// come back to (the indexes' first pages, a record's page).
const KEPT_PAGES: usize = 16;

/// A table that does not hold together: a page failed its check, an offset
/// points outside its stream, a record does not read as a site line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Broken;

/// One stream of the table: where its pages start (counted from the table's
/// first page), how many, how many bytes it holds and how many items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Section {
    first: u32,
    pages: u32,
    len: u64,
    count: u32,
}

impl Section {
    const BYTES: usize = 20;

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.first.to_le_bytes());
        out.extend_from_slice(&self.pages.to_le_bytes());
        out.extend_from_slice(&self.len.to_le_bytes());
        out.extend_from_slice(&self.count.to_le_bytes());
    }

    fn decode(b: &[u8]) -> Self {
        Self {
            first: u32_at(b, 0),
            pages: u32_at(b, 4),
            len: u64_at(b, 8),
            count: u32_at(b, 16),
        }
    }

    /// Pages `len` bytes take.
    fn pages_for(len: u64) -> u64 {
        len.div_ceil(PAYLOAD as u64)
    }
}

/// Where the table's streams are, and the global interval its gate keys'
/// sites were picked with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Layout {
    records: Section,
    names: Section,
    domains: Section,
    keys: Section,
    interval_ms: u64,
}

impl Layout {
    /// Its size in the cache's head.
    pub(crate) const BYTES: usize = 4 * Section::BYTES + 8;

    /// The table's pages.
    pub(crate) fn pages(&self) -> u32 {
        self.keys.first + self.keys.pages
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        for s in [self.records, self.names, self.domains, self.keys] {
            s.encode(out);
        }
        out.extend_from_slice(&self.interval_ms.to_le_bytes());
    }

    /// The layout in `b` ([`Self::BYTES`] long) if it describes a table of
    /// `pages` pages: the streams one after the other from the first page,
    /// each in as many pages as it needs, an index of one entry per site
    /// name, its entries' bytes its count's.
    pub(crate) fn decode(b: &[u8], pages: u32) -> Option<Self> {
        let s = |i: usize| Section::decode(&b[i * Section::BYTES..]);
        let l = Self {
            records: s(0),
            names: s(1),
            domains: s(2),
            keys: s(3),
            interval_ms: u64_at(b, 4 * Section::BYTES),
        };
        let mut next = 0u64;
        for (i, s) in [l.records, l.names, l.domains, l.keys].iter().enumerate() {
            let index = i > 0;
            if u64::from(s.first) != next
                || u64::from(s.pages) != Section::pages_for(s.len)
                || index && s.len != u64::from(s.count) * ENTRY as u64
            {
                return None;
            }
            next += u64::from(s.pages);
        }
        (next == u64::from(pages) && l.names.count == l.records.count).then_some(l)
    }
}

/// Where a table's pages are.
enum Source {
    /// Made by this process: trusted, not checked.
    Built(Vec<u8>),
    /// A cache's bytes in memory (tests, the fuzz target): checked.
    #[cfg(any(test, feature = "fuzz"))]
    Bytes(Vec<u8>),
    /// The config cache, read a page at a time: checked.
    File(File),
}

/// The configured sites: one table, shared by the config's clones.
#[derive(Clone)]
pub(crate) struct Table(Arc<Inner>);

struct Inner {
    source: Source,
    layout: Layout,
    /// The first page's number in the source, and the checksums' seed.
    base: u32,
    seed: u64,
    /// Pages read and checked, most recently used last.
    kept: Mutex<Vec<(u32, Box<[u8]>)>>,
    /// The table read again from the TOML, once this one was found broken.
    fallback: OnceLock<Result<Table, crate::error::Error>>,
    /// Pages read from the source, for the tests that count them.
    #[cfg(test)]
    read: std::sync::atomic::AtomicUsize,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.0.source {
            Source::Built(_) => "built",
            #[cfg(any(test, feature = "fuzz"))]
            Source::Bytes(_) => "bytes",
            Source::File(_) => "file",
        };
        write!(f, "Table({kind}, {} sites)", self.0.layout.records.count)
    }
}

/// Two tables are equal when they hold the same sites in the same order;
/// two that cannot be read whole are equal to each other only.
impl PartialEq for Table {
    fn eq(&self, other: &Self) -> bool {
        match (self.all(), other.all()) {
            (Ok(a), Ok(b)) => a == b,
            (Err(_), Err(_)) => true,
            _ => false,
        }
    }
}

impl Eq for Table {}

impl Default for Table {
    fn default() -> Self {
        Self::build("", 0)
    }
}

impl Table {
    fn new(source: Source, layout: Layout, base: u32, seed: u64) -> Self {
        Self(Arc::new(Inner {
            source,
            layout,
            base,
            seed,
            kept: Mutex::new(Vec::new()),
            fallback: OnceLock::new(),
            #[cfg(test)]
            read: Default::default(),
        }))
    }

    /// The table of `lines` (site lines, each ending in a newline) under
    /// global interval `interval_ms`.
    pub(crate) fn build(lines: &str, interval_ms: u64) -> Self {
        let mut records: Vec<u8> = Vec::with_capacity(lines.len() + lines.len() / 8);
        let mut names = Vec::new();
        let mut domains = Vec::new();
        // Each gate key's site: the longest interval, the last of equals.
        let mut keys: std::collections::HashMap<String, (u32, u64)> = Default::default();
        for line in lines.lines() {
            let offset = u32::try_from(records.len()).expect("checked by the parse");
            records.extend_from_slice(&(line.len() as u32).to_le_bytes());
            records.extend_from_slice(line.as_bytes());
            let mut parts = line.split(' ');
            let name = parts.next().unwrap_or_default();
            let interval = parts
                .next()
                .and_then(|t| t.parse::<u64>().ok())
                .unwrap_or(interval_ms);
            names.push((hash(name), offset));
            for d in parts.skip(2).filter(|d| !d.is_empty()) {
                domains.push((hash(d), offset));
                let slot = keys
                    .entry(crate::key::registrable(d))
                    .or_insert((offset, interval));
                if interval >= slot.1 {
                    *slot = (offset, interval);
                }
            }
        }
        let mut keys: Vec<(u32, u32)> = keys.iter().map(|(k, &(o, _))| (hash(k), o)).collect();
        let mut out = Vec::new();
        let mut next = 0u32;
        let mut put = |out: &mut Vec<u8>, bytes: &[u8], count: usize| {
            let len = bytes.len() as u64;
            let pages = Section::pages_for(len) as u32;
            for chunk in bytes.chunks(PAYLOAD) {
                out.extend_from_slice(chunk);
                out.resize(out.len() + PAYLOAD - chunk.len() + 8, 0);
            }
            let s = Section {
                first: next,
                pages,
                len,
                count: count as u32,
            };
            next += pages;
            s
        };
        let count = names.len();
        let records = put(&mut out, &records, count);
        let mut index = |out: &mut Vec<u8>, entries: &mut Vec<(u32, u32)>| {
            entries.sort_unstable();
            entries.dedup();
            let mut bytes = Vec::with_capacity(entries.len() * ENTRY);
            for (h, o) in entries.iter() {
                bytes.extend_from_slice(&h.to_le_bytes());
                bytes.extend_from_slice(&o.to_le_bytes());
            }
            put(out, &bytes, entries.len())
        };
        let names = index(&mut out, &mut names);
        let domains = index(&mut out, &mut domains);
        let keys = index(&mut out, &mut keys);
        let layout = Layout {
            records,
            names,
            domains,
            keys,
            interval_ms,
        };
        Self::new(Source::Built(out), layout, 0, 0)
    }

    /// The table of a config cache's bytes in memory, its first page at
    /// page `base`, checked with `seed`.
    #[cfg(any(test, feature = "fuzz"))]
    pub(crate) fn from_bytes(bytes: Vec<u8>, layout: Layout, base: u32, seed: u64) -> Self {
        Self::new(Source::Bytes(bytes), layout, base, seed)
    }

    /// The table in the config cache `file`, read as lookups need it.
    pub(crate) fn from_file(file: File, layout: Layout, base: u32, seed: u64) -> Self {
        Self::new(Source::File(file), layout, base, seed)
    }

    /// Pages read from the source so far.
    #[cfg(test)]
    pub(crate) fn pages_read(&self) -> usize {
        self.0.read.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The table read again from the TOML once this one was found broken.
    pub(crate) fn again(&self) -> &OnceLock<Result<Table, crate::error::Error>> {
        &self.0.fallback
    }

    pub(crate) fn layout(&self) -> &Layout {
        &self.0.layout
    }

    /// Whether this table was read from the config cache in the state
    /// directory (and so should be written again once found broken).
    pub(crate) fn is_cached_file(&self) -> bool {
        matches!(self.0.source, Source::File(_))
    }

    /// The number of configured sites.
    pub(crate) fn len(&self) -> usize {
        self.0.layout.records.count as usize
    }

    /// The global interval the gate keys' sites were picked with.
    pub(crate) fn interval_ms(&self) -> u64 {
        self.0.layout.interval_ms
    }

    /// The table's pages as the cache keeps them, each checksummed for
    /// page number `base + i` with `seed`.
    pub(crate) fn pages(&self, base: u32, seed: u64) -> Result<Vec<u8>, Broken> {
        let n = self.0.layout.pages() as usize;
        let mut out = match &self.0.source {
            Source::Built(b) => b.clone(),
            _ => {
                let mut out = vec![0; n * PAGE];
                self.read_pages(0, &mut out)?;
                out
            }
        };
        seal(&mut out, base, seed);
        Ok(out)
    }

    /// Every site, in the order of the file.
    pub(crate) fn all(&self) -> Result<Vec<Site>, Broken> {
        let s = self.0.layout.records;
        let bytes = self.stream(&s)?;
        let mut out = Vec::with_capacity(s.count as usize);
        let mut at = 0usize;
        while at < bytes.len() {
            let (site, next) = record_at(&bytes, at)?;
            out.push(site);
            at = next;
        }
        if out.len() != s.count as usize {
            return Err(Broken);
        }
        Ok(out)
    }

    /// The site named `name`.
    pub(crate) fn by_name(&self, name: &str) -> Result<Option<Site>, Broken> {
        self.find(&self.0.layout.names, name, |s| s.name == name)
    }

    /// The first site (in the order of the file) that lists `domain`.
    pub(crate) fn by_domain(&self, domain: &str) -> Result<Option<Site>, Broken> {
        self.find(&self.0.layout.domains, domain, |s| {
            s.domains().any(|d| d == domain)
        })
    }

    /// The site picked for gate key `key` (see the module's paragraph).
    pub(crate) fn by_key(&self, key: &str) -> Result<Option<Site>, Broken> {
        self.find(&self.0.layout.keys, key, |s| {
            s.domains().any(|d| crate::key::registrable(d) == key)
        })
    }

    /// The first record, in offset order, of the entries of `index` under
    /// `word`'s hash that `fits`.
    fn find(
        &self,
        index: &Section,
        word: &str,
        fits: impl Fn(&Site) -> bool,
    ) -> Result<Option<Site>, Broken> {
        if word.is_empty() || index.count == 0 {
            return Ok(None);
        }
        let h = hash(word);
        let mut i = self.lower_bound(index, h)?;
        let count = u64::from(index.count);
        while i < count {
            let (eh, offset) = self.entry(index, i)?;
            if eh != h {
                break;
            }
            let site = self.record(offset)?;
            if fits(&site) {
                return Ok(Some(site));
            }
            i += 1;
        }
        Ok(None)
    }

    /// The first entry of `index` whose hash is `h` or more.
    fn lower_bound(&self, index: &Section, h: u32) -> Result<u64, Broken> {
        let (mut lo, mut hi) = (0u64, u64::from(index.count));
        // Every entry before `lo` is below `h`, every one from `hi` on is
        // not; the hashes between lie in [lo_h, hi_h].
        let (mut lo_h, mut hi_h) = (0u64, 1u64 << 32);
        let h64 = u64::from(h);
        let mut round = 0;
        while lo < hi {
            let span = hi - lo;
            let guess = if round < 3 && lo_h <= h64 && h64 <= hi_h && lo_h < hi_h {
                lo + ((h64 - lo_h) * span / (hi_h - lo_h)).min(span - 1)
            } else {
                lo + span / 2
            };
            round += 1;
            let page = guess / PER_PAGE;
            let a = (page * PER_PAGE).max(lo);
            let b = ((page + 1) * PER_PAGE).min(hi);
            let step = self.with_page(u64::from(index.first) + page, |p| {
                let at = |i: u64| u32_at(p, ((i - page * PER_PAGE) as usize) * ENTRY);
                let (first, last) = (at(a), at(b - 1));
                if first >= h {
                    Step::Before(a, first)
                } else if last < h {
                    Step::After(b, last)
                } else {
                    // The first entry from `h` is in (a, b - 1].
                    let (mut l, mut r) = (a + 1, b - 1);
                    while l < r {
                        let m = l + (r - l) / 2;
                        if at(m) < h {
                            l = m + 1;
                        } else {
                            r = m;
                        }
                    }
                    Step::At(l)
                }
            })?;
            match step {
                Step::Before(at, first) => (hi, hi_h) = (at, u64::from(first)),
                Step::After(at, last) => (lo, lo_h) = (at, u64::from(last)),
                Step::At(i) => return Ok(i),
            }
        }
        Ok(lo)
    }
}

/// What one page of an index says of where a hash's first entry is.
enum Step {
    /// At or before this entry, whose hash is this.
    Before(u64, u32),
    /// At or after this entry, the one before it having this hash.
    After(u64, u32),
    /// Here.
    At(u64),
}

impl Table {
    /// Entry `i` of `index`: a hash and a record's offset.
    fn entry(&self, index: &Section, i: u64) -> Result<(u32, u32), Broken> {
        let page = i / PER_PAGE;
        let at = ((i % PER_PAGE) as usize) * ENTRY;
        self.with_page(u64::from(index.first) + page, |p| {
            (u32_at(p, at), u32_at(p, at + 4))
        })
    }

    /// The site whose record starts at `offset` of the records.
    fn record(&self, offset: u32) -> Result<Site, Broken> {
        let s = self.0.layout.records;
        let mut len = [0u8; 4];
        self.read(&s, u64::from(offset), &mut len)?;
        let len = u64::from(u32::from_le_bytes(len));
        // Checked before the buffer is made: a length is only as long as
        // what is left of the stream.
        if u64::from(offset) + 4 + len > s.len {
            return Err(Broken);
        }
        let mut line = vec![0u8; len as usize];
        self.read(&s, u64::from(offset) + 4, &mut line)?;
        let line = String::from_utf8(line).map_err(|_| Broken)?;
        Site::parse(&line).ok_or(Broken)
    }

    /// `out.len()` bytes of stream `s` from `offset`.
    fn read(&self, s: &Section, offset: u64, out: &mut [u8]) -> Result<(), Broken> {
        let end = offset.checked_add(out.len() as u64).ok_or(Broken)?;
        if end > s.len {
            return Err(Broken);
        }
        let mut done = 0usize;
        while done < out.len() {
            let at = offset + done as u64;
            let (page, within) = (at / PAYLOAD as u64, (at % PAYLOAD as u64) as usize);
            let n = (PAYLOAD - within).min(out.len() - done);
            self.with_page(u64::from(s.first) + page, |p| {
                out[done..done + n].copy_from_slice(&p[within..within + n]);
            })?;
            done += n;
        }
        Ok(())
    }

    /// Stream `s` whole, its pages read at once.
    fn stream(&self, s: &Section) -> Result<Vec<u8>, Broken> {
        let mut pages = vec![0u8; s.pages as usize * PAGE];
        match &self.0.source {
            Source::Built(b) => {
                let (at, n) = (s.first as usize * PAGE, pages.len());
                pages.copy_from_slice(b.get(at..at + n).ok_or(Broken)?);
            }
            _ => self.read_pages(s.first, &mut pages)?,
        }
        let mut out = Vec::with_capacity(s.len as usize);
        for p in pages.chunks(PAGE) {
            let n = (s.len as usize - out.len()).min(PAYLOAD);
            out.extend_from_slice(&p[..n]);
        }
        Ok(out)
    }

    /// Read table pages from `first` into `out` (whole pages), checked.
    fn read_pages(&self, first: u32, out: &mut [u8]) -> Result<(), Broken> {
        let i = &self.0;
        let at = (u64::from(i.base) + u64::from(first)) * PAGE as u64;
        match &i.source {
            Source::Built(b) => {
                let (at, n) = (first as usize * PAGE, out.len());
                out.copy_from_slice(b.get(at..at + n).ok_or(Broken)?);
                return Ok(());
            }
            #[cfg(any(test, feature = "fuzz"))]
            Source::Bytes(b) => {
                let (at, n) = (usize::try_from(at).map_err(|_| Broken)?, out.len());
                out.copy_from_slice(b.get(at..at.saturating_add(n)).ok_or(Broken)?);
            }
            Source::File(f) => f.read_exact_at(out, at).map_err(|_| Broken)?,
        }
        #[cfg(test)]
        i.read
            .fetch_add(out.len() / PAGE, std::sync::atomic::Ordering::Relaxed);
        for (n, p) in out.chunks(PAGE).enumerate() {
            if !sound(p, i.base + first + n as u32, i.seed) {
                return Err(Broken);
            }
        }
        Ok(())
    }

    /// `f` over the payload of table page `page`, read and checked once.
    fn with_page<R>(&self, page: u64, f: impl FnOnce(&[u8]) -> R) -> Result<R, Broken> {
        let inner = &self.0;
        let page = u32::try_from(page)
            .ok()
            .filter(|&p| p < inner.layout.pages())
            .ok_or(Broken)?;
        if let Source::Built(b) = &inner.source {
            let at = page as usize * PAGE;
            return Ok(f(&b[at..at + PAYLOAD]));
        }
        let mut kept = inner.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = kept.iter().position(|(n, _)| *n == page) {
            let entry = kept.remove(i);
            kept.push(entry);
        } else {
            let mut buf = vec![0u8; PAGE].into_boxed_slice();
            self.read_pages(page, &mut buf)?;
            if kept.len() == KEPT_PAGES {
                kept.remove(0);
            }
            kept.push((page, buf));
        }
        let (_, p) = kept.last().expect("just pushed");
        Ok(f(&p[..PAYLOAD]))
    }
}

/// The site whose record starts at `at` in the records stream `bytes`, and
/// where the next begins.
fn record_at(bytes: &[u8], at: usize) -> Result<(Site, usize), Broken> {
    let len = bytes.get(at..at + 4).ok_or(Broken)?;
    let len = u32::from_le_bytes(len.try_into().expect("four bytes")) as usize;
    let line = bytes.get(at + 4..at + 4 + len).ok_or(Broken)?;
    let line = std::str::from_utf8(line).map_err(|_| Broken)?;
    Ok((Site::parse(line).ok_or(Broken)?, at + 4 + len))
}

/// A word's hash in the indexes: FNV-1a, its 64 bits folded and mixed to
/// 32 that spread evenly (the search guesses a place from them).
pub(crate) fn hash(word: &str) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in word.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 29;
    (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as u32
}

/// A page's checksum: its payload's words, its number and the seed. Each
/// step is a bijection of the running value for a given word, so a page
/// that differs in one word always fails.
pub(crate) fn checksum(payload: &[u8], page: u32, seed: u64) -> u64 {
    let mut h = seed ^ u64::from(page).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for w in payload.chunks_exact(8) {
        let w = u64::from_le_bytes(w.try_into().expect("eight bytes"));
        h = (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h ^ (h >> 31)
}

/// Whether `page` (a whole page) is page number `n` under `seed`.
pub(crate) fn sound(page: &[u8], n: u32, seed: u64) -> bool {
    page.len() == PAGE && checksum(&page[..PAYLOAD], n, seed) == u64_at(page, PAYLOAD)
}

/// Set the checksum of every page of `pages`, the first numbered `base`.
pub(crate) fn seal(pages: &mut [u8], base: u32, seed: u64) {
    for (n, p) in pages.chunks_mut(PAGE).enumerate() {
        let sum = checksum(&p[..PAYLOAD], base + n as u32, seed);
        p[PAYLOAD..].copy_from_slice(&sum.to_le_bytes());
    }
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("four bytes"))
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("eight bytes"))
}

#[cfg(test)]
mod tests;
