//! SHA-1 at compile time, for the scripts' hashes (`EVALSHA` names a script
//! by the SHA-1 of its text). Hashed at run time, the admission script's
//! 16 KB cost 0.44 M instructions of an event's 1.12 M (callgrind); the
//! scripts never change after the build, so their hashes are constants.
//! Only for that: nothing secret goes through it.
//!
//! The scripts share their preludes (`base.lua`, then `state.lua`), so the
//! hash state after a prelude is a constant too, and each script only
//! hashes its own part on top of it: the build evaluates about 28 KB, not
//! the 150 KB of every script whole. `tests.rs` holds each hash against the
//! `redis` crate's own.

/// A SHA-1 in progress: the state after the whole 64-byte blocks so far,
/// and the bytes of the block not yet full.
#[derive(Clone, Copy)]
pub(super) struct Sha1 {
    state: [u32; 5],
    block: [u8; 64],
    filled: usize,
    len: u64,
}

impl Sha1 {
    pub(super) const NEW: Self = Self {
        state: [
            0x6745_2301,
            0xEFCD_AB89,
            0x98BA_DCFE,
            0x1032_5476,
            0xC3D2_E1F0,
        ],
        block: [0; 64],
        filled: 0,
        len: 0,
    };

    /// The hash with `data` added.
    pub(super) const fn update(mut self, data: &[u8]) -> Self {
        let mut i = 0;
        while i < data.len() {
            if self.filled == 0 && data.len() - i >= 64 {
                self.state = compress(self.state, data, i);
                i += 64;
                continue;
            }
            self.block[self.filled] = data[i];
            self.filled += 1;
            i += 1;
            if self.filled == 64 {
                self.state = compress(self.state, &self.block, 0);
                self.filled = 0;
            }
        }
        self.len += data.len() as u64;
        self
    }

    /// The hash in lower-case hex, as Redis names a script.
    pub(super) const fn hex(self) -> [u8; 40] {
        let bits = self.len.wrapping_mul(8);
        let mut s = self.update(&[0x80]);
        while s.filled != 56 {
            s = s.update(&[0]);
        }
        s = s.update(&bits.to_be_bytes());
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 40];
        let mut i = 0;
        while i < 20 {
            let byte = (s.state[i / 4] >> (24 - (i % 4) * 8)) as u8;
            out[2 * i] = DIGITS[(byte >> 4) as usize];
            out[2 * i + 1] = DIGITS[(byte & 15) as usize];
            i += 1;
        }
        out
    }
}

/// One 64-byte block of `data` from `at` into `state` (FIPS 180-4, 6.1.2).
const fn compress(state: [u32; 5], data: &[u8], at: usize) -> [u32; 5] {
    let mut w = [0u32; 16];
    let mut t = 0;
    while t < 16 {
        let o = at + 4 * t;
        w[t] = u32::from_be_bytes([data[o], data[o + 1], data[o + 2], data[o + 3]]);
        t += 1;
    }
    let [mut a, mut b, mut c, mut d, mut e] = state;
    t = 0;
    while t < 80 {
        if t >= 16 {
            w[t & 15] =
                (w[(t + 13) & 15] ^ w[(t + 8) & 15] ^ w[(t + 2) & 15] ^ w[t & 15]).rotate_left(1);
        }
        let (f, k) = if t < 20 {
            ((b & c) | (!b & d), 0x5A82_7999)
        } else if t < 40 {
            (b ^ c ^ d, 0x6ED9_EBA1)
        } else if t < 60 {
            ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
        } else {
            (b ^ c ^ d, 0xCA62_C1D6)
        };
        let next = a
            .rotate_left(5)
            .wrapping_add(f)
            .wrapping_add(e)
            .wrapping_add(k)
            .wrapping_add(w[t & 15]);
        e = d;
        d = c;
        c = b.rotate_left(30);
        b = a;
        a = next;
        t += 1;
    }
    [
        state[0].wrapping_add(a),
        state[1].wrapping_add(b),
        state[2].wrapping_add(c),
        state[3].wrapping_add(d),
        state[4].wrapping_add(e),
    ]
}
