//! Lists of names as data without pointers, for the readers' tables.
//!
//! A `&[&str]` holds one pointer per name, and a position-independent build
//! has the loader write each of them at every start (an `R_X86_64_RELATIVE`
//! relocation, about 20 ns each, mostly the page it dirties), whether or not
//! the event reads the table. [`names!`] packs a readable list at compile
//! time into one byte array: the count, each name's length (a byte), then
//! the names one after another. A table is then one pointer, to data the
//! loader never touches.
//!
//! The invariant: a [`Names`] yields exactly the names of its list, in the
//! list's order ([`Names::iter`], [`Names::get`]); [`Names::position`]
//! finds a name's first place in that order. It scans as `[&str]::contains`
//! does, lengths first, so a name of another length costs a byte compare:
//! the readers' lookups are mostly misses on short lists, where a binary
//! search's byte comparisons cost more (measured on the script benchmark).

/// A list of names packed by [`names!`]. Copy it freely: it is one pointer.
#[derive(Clone, Copy)]
pub(crate) struct Names(&'static [u8]);

/// The packed form's size for `list`: the count (two bytes), a length per
/// name (one byte), and the names' bytes.
pub(crate) const fn size(list: &[&str]) -> usize {
    let mut bytes = 2 + list.len();
    let mut i = 0;
    while i < list.len() {
        bytes += list[i].len();
        i += 1;
    }
    bytes
}

/// `list` packed ([`Names`]); `N` is [`size`] of it. Compile-time only.
pub(crate) const fn pack<const N: usize>(list: &[&str]) -> [u8; N] {
    let mut out = [0u8; N];
    let n = list.len();
    assert!(
        n <= u16::MAX as usize,
        "a names! list of more than 65,535 names"
    );
    out[0] = n as u8;
    out[1] = (n >> 8) as u8;
    let mut at = 2 + n;
    let mut i = 0;
    while i < n {
        let name = list[i].as_bytes();
        assert!(
            name.len() <= u8::MAX as usize,
            "a name longer than 255 bytes in names!"
        );
        out[2 + i] = name.len() as u8;
        let mut k = 0;
        while k < name.len() {
            out[at + k] = name[k];
            k += 1;
        }
        at += name.len();
        i += 1;
    }
    out
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

    /// How many names.
    #[inline]
    pub(crate) const fn len(&self) -> usize {
        self.0[0] as usize | (self.0[1] as usize) << 8
    }

    /// The `i`-th name, in the list's order. Panics past the end, as an
    /// index would.
    pub(crate) const fn get(&self, i: usize) -> &'static str {
        let n = self.len();
        assert!(i < n, "a name past the end of a names! list");
        let mut start = 2 + n;
        let mut k = 0;
        while k < i {
            start += self.0[2 + k] as usize;
            k += 1;
        }
        let (_, rest) = self.0.split_at(start);
        match std::str::from_utf8(rest.split_at(self.0[2 + i] as usize).0) {
            Ok(name) => name,
            // `pack` cut the names where their literals end.
            Err(_) => panic!("a names! list cut inside a character"),
        }
    }

    /// Where the first name starts in the packed form, for [`Self::get_at`].
    pub(crate) const fn start(&self) -> usize {
        2 + self.len()
    }

    /// The `i`-th name, which starts at byte `start` of the packed form
    /// ([`Self::start`] for the first, then where each one ends), and where
    /// the next one starts: [`Self::get`] in one step, for code that walks
    /// a list in order or keeps a name's place. Panics past the end.
    pub(crate) const fn get_at(&self, i: usize, start: usize) -> (&'static str, usize) {
        assert!(i < self.len(), "a name past the end of a names! list");
        let len = self.0[2 + i] as usize;
        let (_, rest) = self.0.split_at(start);
        match std::str::from_utf8(rest.split_at(len).0) {
            Ok(name) => (name, start + len),
            Err(_) => panic!("a names! list cut inside a character"),
        }
    }

    /// [`Self::get_at`]'s name as bytes, not checked as UTF-8 again: for a
    /// lookup that compares it with another name.
    #[inline]
    pub(crate) const fn bytes_at(&self, i: usize, start: usize) -> &'static [u8] {
        let len = self.0[2 + i] as usize;
        self.0.split_at(start).1.split_at(len).0
    }

    /// The lengths (a byte each) and the names' bytes.
    #[inline]
    fn parts(&self) -> (&'static [u8], &'static [u8]) {
        self.0[2..].split_at(self.len())
    }

    /// The names, in the list's order (the text checked as UTF-8 once,
    /// not once a name).
    pub(crate) fn iter(self) -> Iter {
        let (lengths, text) = self.parts();
        match std::str::from_utf8(text) {
            Ok(text) => Iter { lengths, text },
            Err(_) => panic!("a names! list that is not UTF-8"),
        }
    }

    /// The first place of `name` in the list.
    #[inline]
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        let (lengths, text) = self.parts();
        let want = name.as_bytes();
        let mut start = 0;
        for (i, &len) in lengths.iter().enumerate() {
            let end = start + len as usize;
            if len as usize == want.len() && &text[start..end] == want {
                return Some(i);
            }
            start = end;
        }
        None
    }

    /// Whether `name` is in the list.
    #[inline]
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.position(name).is_some()
    }
}

/// The names of a [`Names`], in order.
#[derive(Clone)]
pub(crate) struct Iter {
    /// The lengths of the names not yet given.
    lengths: &'static [u8],
    /// Their text.
    text: &'static str,
}

impl Iterator for Iter {
    type Item = &'static str;

    #[inline]
    fn next(&mut self) -> Option<&'static str> {
        let (&len, lengths) = self.lengths.split_first()?;
        let (name, text) = self.text.split_at(len as usize);
        (self.lengths, self.text) = (lengths, text);
        Some(name)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.lengths.len(), Some(self.lengths.len()))
    }
}

impl ExactSizeIterator for Iter {}

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
        let mut start = PACKED.start();
        for (i, name) in LIST.iter().enumerate() {
            assert_eq!(PACKED.get(i), *name);
            let (at, next) = PACKED.get_at(i, start);
            assert_eq!(at, *name);
            assert_eq!(PACKED.bytes_at(i, start), name.as_bytes());
            start = next;
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
        // digits) and of many lengths, over more than a few.
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
