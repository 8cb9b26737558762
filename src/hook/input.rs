//! The bytes of one event, held in memory laid out for their size.
//!
//! Most events are a few kilobytes and stay in an ordinary `Vec`. A
//! screenshot's PostToolUse carries megabytes of base64, and there the
//! kernel's cost of handing out fresh memory dominates: every 4 KiB page it
//! faults in costs about as much as reading 2 KiB (page allocation, charge,
//! zeroing). So past [`SMALL`] the event moves, once, into a mapping of its
//! own whose bytes from [`HUGE_FROM`] on sit on 2 MiB pages where the kernel
//! allows them (`MADV_HUGEPAGE`): one fault per 2 MiB instead of 512. The
//! first [`HUGE_FROM`] bytes stay on 4 KiB pages, because a 2 MiB page is
//! zeroed whole: for an event only a little longer than that, it would cost
//! more than it saves. Where the kernel gives no such pages, the mapping
//! behaves as the `Vec` would; where no mapping can be made, the `Vec` grows
//! as before. Either way the bytes are the same, and the bound is the same.
//! (Where the kernel is set to compact memory for advised ranges, a fault
//! there may wait for that; it is bounded by the kernel, not by the event.)

use std::io::{self, Read};
use std::ops::Deref;

/// Bytes read into the `Vec` before the event moves to a mapping.
pub(crate) const SMALL: usize = 64 * 1024;

/// Offset in the mapping from which its bytes may sit on 2 MiB pages.
pub(crate) const HUGE_FROM: usize = 1024 * 1024;

/// An event's bytes: derefs to the bytes read, nothing more.
pub(crate) struct EventBytes(Held);

enum Held {
    Heap(Vec<u8>),
    #[cfg(target_os = "linux")]
    Mapped(mapping::Mapping, usize),
}

impl Deref for EventBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Held::Heap(v) => v,
            #[cfg(target_os = "linux")]
            Held::Mapped(m, len) => &m.bytes()[..*len],
        }
    }
}

impl EventBytes {
    /// Whether the bytes are in a mapping of their own.
    #[cfg(test)]
    pub(crate) fn mapped(&self) -> bool {
        !matches!(self.0, Held::Heap(_))
    }
}

impl std::fmt::Debug for EventBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EventBytes({} bytes)", self.len())
    }
}

/// Everything `input` gives, at most `limit` bytes (the caller passes one
/// more than it accepts, to tell "exactly the limit" from "over it").
pub(crate) fn read_at_most(input: impl Read, limit: usize) -> io::Result<EventBytes> {
    let mut input = input.take(limit as u64);
    let mut buf = Vec::with_capacity(8 * 1024);
    (&mut input).take(SMALL as u64).read_to_end(&mut buf)?;
    if buf.len() < SMALL {
        return Ok(EventBytes(Held::Heap(buf)));
    }
    #[cfg(target_os = "linux")]
    if let Some(mut map) = mapping::Mapping::new(limit) {
        let out = map.bytes_mut();
        out[..buf.len()].copy_from_slice(&buf);
        let mut len = buf.len();
        drop(buf);
        loop {
            match input.read(&mut out[len..]) {
                Ok(0) => return Ok(EventBytes(Held::Mapped(map, len))),
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
    input.read_to_end(&mut buf)?;
    Ok(EventBytes(Held::Heap(buf)))
}

#[cfg(target_os = "linux")]
mod mapping {
    use super::HUGE_FROM;

    const HUGE_PAGE: usize = 2 * 1024 * 1024;

    /// A private anonymous mapping, placed so that `HUGE_FROM` bytes into it
    /// is a 2 MiB boundary; unmapped when dropped.
    pub(super) struct Mapping {
        base: *mut u8,
        map_len: usize,
        /// Offset of the first byte handed out from `base`.
        start: usize,
        cap: usize,
    }

    impl Mapping {
        /// Room for `cap` bytes, or `None` if the system gives none (the
        /// caller then grows a `Vec`).
        pub(super) fn new(cap: usize) -> Option<Self> {
            let page = 4096;
            // One huge page of slack, so the boundary can be placed.
            let map_len = cap.checked_add(HUGE_PAGE + page)? & !(page - 1);
            // SAFETY: a fresh private anonymous mapping; nothing else refers
            // to the range. MAP_NORESERVE: only pages written are committed.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    map_len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return None;
            }
            let base = base.cast::<u8>();
            let addr = base as usize;
            let boundary = (addr + HUGE_FROM).next_multiple_of(HUGE_PAGE);
            let start = boundary - HUGE_FROM - addr;
            let huge = boundary - addr;
            // SAFETY: both ranges lie inside the mapping made above, start on
            // page boundaries, and only change how its pages are backed. A
            // kernel without transparent huge pages refuses the advice,
            // which changes nothing but the speed.
            unsafe {
                libc::madvise(base.cast(), huge, libc::MADV_NOHUGEPAGE);
                libc::madvise(base.add(huge).cast(), map_len - huge, libc::MADV_HUGEPAGE);
            }
            Some(Self {
                base,
                map_len,
                start,
                cap,
            })
        }

        pub(super) fn bytes(&self) -> &[u8] {
            // SAFETY: `start + cap <= map_len` (the slack is a huge page and
            // `start` is less than one); the kernel zero-fills the mapping,
            // so every byte is initialised; `&self` borrows it shared.
            unsafe { std::slice::from_raw_parts(self.base.add(self.start), self.cap) }
        }

        pub(super) fn bytes_mut(&mut self) -> &mut [u8] {
            // SAFETY: as in `bytes`, and `&mut self` borrows it exclusively.
            unsafe { std::slice::from_raw_parts_mut(self.base.add(self.start), self.cap) }
        }
    }

    impl Drop for Mapping {
        fn drop(&mut self) {
            // SAFETY: the range is the one mmap returned, and no borrow of
            // it outlives `self`.
            unsafe {
                libc::munmap(self.base.cast(), self.map_len);
            }
        }
    }
}
