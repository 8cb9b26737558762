//! Lists of names as data without pointers, for the readers' tables.
//!
//! A `&[&str]` holds one pointer per name, and a position-independent build
//! has the loader write each of them at every start (an `R_X86_64_RELATIVE`
//! relocation, about 20 ns each, mostly the page it dirties), whether or not
//! the event reads the table. [`names!`] packs a readable list at compile
//! time into one byte array: the count, each name's end, the names' indexes
//! in byte order (for a binary search), then the names one after another.
//! A table is then one pointer, to data the loader never touches.
//!
//! The invariant: a [`Names`] yields exactly the names of its list, in the
//! list's order ([`Names::iter`], [`Names::get`]); [`Names::position`]
//! finds a name's first place in that order, as a scan would.

/// A list of names packed by [`names!`]. Copy it freely: it is one pointer.
#[derive(Clone, Copy)]
pub(crate) struct Names(&'static [u8]);

/// The packed form's size for `list`: the count, an end and an index per
/// name (two bytes each), and the names' bytes.
pub(crate) const fn size(list: &[&str]) -> usize {
    let mut bytes = 2 + 4 * list.len();
    let mut i = 0;
    while i < list.len() {
        bytes += list[i].len();
        i += 1;
    }
    bytes
}

/// `a` before `b`, byte by byte (`str`'s `Ord`, usable in a const).
const fn less(a: &[u8], b: &[u8]) -> bool {
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

/// Writes `v` at `at`, little-endian.
const fn put(out: &mut [u8], at: usize, v: usize) {
    assert!(v <= u16::MAX as usize, "a names! list larger than 64 KiB");
    out[at] = v as u8;
    out[at + 1] = (v >> 8) as u8;
}

/// `list` packed ([`Names`]); `N` is [`size`] of it. Compile-time only.
pub(crate) const fn pack<const N: usize>(list: &[&str]) -> [u8; N] {
    let mut out = [0u8; N];
    let n = list.len();
    put(&mut out, 0, n);
    let text = 2 + 4 * n;
    let mut end = 0;
    let mut i = 0;
    while i < n {
        let name = list[i].as_bytes();
        let mut k = 0;
        while k < name.len() {
            out[text + end + k] = name[k];
            k += 1;
        }
        end += name.len();
        put(&mut out, 2 + 2 * i, end);
        // Insertion sort of the indexes, stable: equal names keep the
        // list's order, so the search finds the first.
        let mut j = i;
        while j > 0 && less(name, list[index_at(&out, n, j - 1)].as_bytes()) {
            let before = index_at(&out, n, j - 1);
            put(&mut out, 2 + 2 * n + 2 * j, before);
            j -= 1;
        }
        put(&mut out, 2 + 2 * n + 2 * j, i);
        i += 1;
    }
    out
}

/// The `j`-th index in byte order of a packed list of `n` names.
const fn index_at(packed: &[u8], n: usize, j: usize) -> usize {
    let at = 2 + 2 * n + 2 * j;
    packed[at] as usize | (packed[at + 1] as usize) << 8
}

/// Packs a list of string literals into a [`Names`] at compile time:
/// `names!["curl", "wget"]`.
macro_rules! names {
    ($($name:literal),* $(,)?) => {{
        const LIST: &[&str] = &[$($name),*];
        const PACKED: [u8; $crate::names::size(LIST)] = $crate::names::pack(LIST);
        $crate::names::Names::new(&PACKED)
    }};
}
pub(crate) use names;

impl Names {
    /// The packed bytes [`names!`] made. Not for hand-made bytes.
    #[doc(hidden)]
    pub(crate) const fn new(packed: &'static [u8]) -> Names {
        Names(packed)
    }

    /// The two-byte number at `at`.
    const fn word(&self, at: usize) -> usize {
        self.0[at] as usize | (self.0[at + 1] as usize) << 8
    }

    /// How many names.
    pub(crate) const fn len(&self) -> usize {
        self.word(0)
    }

    /// The bytes of the `i`-th name.
    const fn bytes(&self, i: usize) -> &'static [u8] {
        let n = self.len();
        assert!(i < n, "a name past the end of a names! list");
        let text = 2 + 4 * n;
        let start = if i == 0 {
            0
        } else {
            self.word(2 + 2 * (i - 1))
        };
        let end = self.word(2 + 2 * i);
        let (_, rest) = self.0.split_at(text + start);
        rest.split_at(end - start).0
    }

    /// The `i`-th name, in the list's order. Panics past the end, as an
    /// index would.
    pub(crate) const fn get(&self, i: usize) -> &'static str {
        match std::str::from_utf8(self.bytes(i)) {
            Ok(name) => name,
            // `pack` cut the names where their literals end.
            Err(_) => panic!("a names! list cut inside a character"),
        }
    }

    /// The names, in the list's order.
    pub(crate) fn iter(self) -> impl ExactSizeIterator<Item = &'static str> + Clone {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// The first place of `name` in the list, by a binary search of the
    /// names in byte order.
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        let n = self.len();
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if less(self.bytes(index_at(self.0, n, mid)), name.as_bytes()) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let i = (lo < n).then(|| index_at(self.0, n, lo))?;
        (self.bytes(i) == name.as_bytes()).then_some(i)
    }

    /// Whether `name` is in the list.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.position(name).is_some()
    }
}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Names with a text each (a tool and why it is read-only): two packed
/// lists of the same length, made by [`pairs!`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pairs {
    /// The names looked up.
    pub(crate) keys: Names,
    /// Each name's text, at the same place.
    pub(crate) values: Names,
}

/// Packs `("name", "text")` pairs of literals into a [`Pairs`] at compile
/// time.
macro_rules! pairs {
    ($(($key:literal, $value:literal $(,)?)),* $(,)?) => {
        $crate::names::Pairs::new(
            $crate::names::names![$($key),*],
            $crate::names::names![$($value),*],
        )
    };
}
pub(crate) use pairs;

impl Pairs {
    /// Two lists of the same length. Not for lists that differ.
    #[doc(hidden)]
    pub(crate) const fn new(keys: Names, values: Names) -> Pairs {
        assert!(keys.len() == values.len());
        Pairs { keys, values }
    }

    /// The text of the first pair whose name is `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&'static str> {
        self.keys.position(key).map(|i| self.values.get(i))
    }

    /// The pairs, in the list's order.
    pub(crate) fn iter(self) -> impl ExactSizeIterator<Item = (&'static str, &'static str)> {
        self.keys.iter().zip(self.values.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &[&str] = &["wget", "curl", "", "curlie", "é", "curl", "a"];
    const PACKED: Names = names!["wget", "curl", "", "curlie", "é", "curl", "a"];

    #[test]
    fn iterates_exactly_the_list_in_its_order() {
        assert_eq!(PACKED.iter().collect::<Vec<_>>(), LIST);
        assert_eq!(PACKED.len(), LIST.len());
        for (i, name) in LIST.iter().enumerate() {
            assert_eq!(PACKED.get(i), *name);
        }
    }

    #[test]
    fn finds_each_name_at_its_first_place_and_nothing_else() {
        for name in LIST {
            assert_eq!(PACKED.position(name), LIST.iter().position(|n| n == name));
        }
        for other in ["curli", "curlies", "b", "wgetx", "CURL", " ", "e"] {
            assert!(!PACKED.contains(other), "{other}");
        }
        assert!(!names![].contains(""));
        assert_eq!(names![].len(), 0);
    }

    #[test]
    fn a_longer_list_finds_every_name_in_any_order() {
        // Names out of byte order (upper and lower case, punctuation,
        // digits), for the sort and the search over more than a few.
        const LONG: Names = names![
            "z0", "y1", "x2", "w3", "v4", "u5", "t6", "s7", "r8", "q9", "p10", "o11", "n12", "m13",
            "l14", "k15", "j16", "i17", "h18", "g19", "f20", "e21", "d22", "c23", "b24", "a25",
            "Z26", "Y27", "X28", "W29", "V30", "U31", "T32", "S33", "R34", "Q35", "P36", "O37",
            "N38", "M39", "L40", "K41", "J42", "I43", "H44", "G45", "F46", "E47", "D48", "C49",
            "B50", "A51", "zz52", "yy53", "xx54", "ww55", "vv56", "uu57", "tt58", "ss59", "rr60",
            "qq61", "pp62", "oo63", "nn64", "mm65", "ll66", "kk67", "jj68", "ii69", "hh70", "gg71",
            "ff72", "ee73", "dd74", "cc75", "bb76", "aa77", "-78", "_79", ".80", "81",
        ];
        let names: Vec<&str> = LONG.iter().collect();
        assert_eq!(names.len(), 82);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(LONG.position(name), Some(i), "{name}");
            assert!(!LONG.contains(&format!("{name}~")), "{name}~");
            assert!(
                !LONG.contains(&name[..name.len() - 1]) || names.contains(&&name[..name.len() - 1])
            );
        }
    }

    #[test]
    fn pairs_answer_each_key_with_its_text() {
        const PAIRS: Pairs = pairs![("b", "two"), ("a", "one"), ("b", "again")];
        assert_eq!(PAIRS.get("a"), Some("one"));
        assert_eq!(PAIRS.get("b"), Some("two"));
        assert_eq!(PAIRS.get("c"), None);
        assert_eq!(
            PAIRS.iter().collect::<Vec<_>>(),
            [("b", "two"), ("a", "one"), ("b", "again")]
        );
    }

    #[test]
    #[should_panic(expected = "past the end")]
    fn a_name_past_the_end_panics() {
        PACKED.get(LIST.len());
    }
}
