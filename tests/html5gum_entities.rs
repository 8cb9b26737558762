//! The vendored html5gum's named character reference table
//! (`vendor/html5gum/src/entities.rs`, data without pointers) against
//! upstream's own (`vendor/html5gum/tests/upstream_entities.rs`, kept
//! verbatim): for every pair of first characters the tokenizer can pass, and
//! every answer its reader can give, the same calls to `try_read` in the same
//! order and the same result. Both files only use `core`, so this test
//! compiles them side by side; html5gum's tokenizer is unchanged (see
//! `vendor/html5gum/PATCHED.md`).

#[allow(dead_code)]
#[path = "../vendor/html5gum/src/entities.rs"]
mod patched;

#[allow(dead_code, clippy::all)]
#[rustfmt::skip]
#[path = "../vendor/html5gum/tests/upstream_entities.rs"]
mod upstream;

#[allow(dead_code)]
#[path = "../vendor/html5gum/tests/generate_entities.rs"]
mod generate;

/// What `try_read` was asked, in order, and what the lookup returned: the
/// name and characters of the reference, or the call whose error it passed
/// on.
type Outcome = (
    Vec<String>,
    Result<Option<(&'static str, &'static str)>, usize>,
);

/// Runs one table's `try_read_character_reference` with a reader that
/// answers call `n` (from 1) for `name` with `reply(n, name)`.
macro_rules! outcome {
    ($table:ident, $first:expr, $second:expr, $reply:expr) => {{
        let mut asked: Vec<String> = Vec::new();
        let reply: &dyn Fn(usize, &str) -> Result<bool, usize> = &$reply;
        let result = $table::try_read_character_reference($first, $second, |name| {
            asked.push(name.to_owned());
            reply(asked.len(), name)
        });
        let outcome: Outcome = (
            asked,
            result.map(|found| found.map(|r| (r.name, r.characters))),
        );
        outcome
    }};
}

/// Both tables' outcomes for one reader.
fn both(
    first: char,
    second: char,
    reply: impl Fn(usize, &str) -> Result<bool, usize>,
) -> (Outcome, Outcome) {
    (
        outcome!(upstream, first, second, &reply),
        outcome!(patched, first, second, &reply),
    )
}

/// The first characters to try: every byte the tokenizer can pass (it calls
/// with `byte as char`), and characters past them whose low byte is a
/// letter's, to catch an index that truncates.
fn characters() -> Vec<char> {
    let mut out: Vec<char> = (0u8..=255).map(char::from).collect();
    out.extend([
        '\u{141}',
        '\u{161}',
        '\u{3b1}',
        '\u{ff21}',
        '\u{1d504}',
        char::MAX,
    ]);
    out
}

#[test]
fn every_pair_of_first_characters_asks_the_same_and_finds_the_same() {
    let mut candidates = 0;
    let mut pairs = 0;
    for first in characters() {
        for second in characters() {
            // A reader that has none of the names: every candidate is asked
            // for, up to one that needs no more characters.
            let (old, new) = both(first, second, |_, _| Ok(false));
            assert_eq!(old, new, "'{first}' '{second}', nothing matches");
            let asked = old.0.len();
            candidates += asked + usize::from(matches!(old.1, Ok(Some(_))));
            pairs += usize::from(asked > 0 || matches!(old.1, Ok(Some(_))));
            // A reader that has the n-th name asked for, or fails there.
            for n in 1..=asked {
                let (old, new) = both(first, second, |k, _| Ok(k == n));
                assert_eq!(old, new, "'{first}' '{second}', call {n} matches");
                let (old, new) = both(
                    first,
                    second,
                    |k, _| if k == n { Err(k) } else { Ok(false) },
                );
                assert_eq!(old, new, "'{first}' '{second}', call {n} fails");
            }
        }
    }
    // Upstream's table: 2,231 names of the WHATWG list, under 630 pairs
    // of first characters (none of which has a name after one that needs no
    // more characters). Anything less would mean the loops above tried too
    // little.
    assert_eq!((candidates, pairs), (2231, 630));
}

/// Every name of upstream's table, whole: `&` left out.
fn upstream_names() -> Vec<String> {
    let mut names = Vec::new();
    for first in characters() {
        for second in characters() {
            let (asked, found) = outcome!(upstream, first, second, |_, _| Ok(false));
            names.extend(asked.iter().map(|rest| format!("{first}{second}{rest}")));
            // The one that needs no more characters is found without asking.
            if let Ok(Some(("", _))) = found {
                names.push(format!("{first}{second}"));
            }
        }
    }
    names
}

#[test]
fn every_name_cut_short_or_followed_by_anything_reads_the_same() {
    // As the tokenizer's reader does: `try_read` matches what comes next in
    // the input exactly (case-sensitively) and consumes it.
    let next = ["", ";", "=", "a", "Z", "0", " ", "&", "<", "\u{e9}", "\0"];
    let names = upstream_names();
    assert_eq!(names.len(), 2231);
    for name in &names {
        let mut chars = name.chars();
        let (first, second) = (chars.next().unwrap(), chars.next().unwrap());
        let rest = chars.as_str();
        for cut in (0..=rest.len()).filter(|&i| rest.is_char_boundary(i)) {
            for after in next {
                let input = format!("{}{after}", &rest[..cut]);
                let read = |table: &str| {
                    let mut at = 0;
                    let reader = |s: &str| {
                        let hit = input[at..].starts_with(s);
                        if hit {
                            at += s.len();
                        }
                        Ok::<_, ()>(hit)
                    };
                    let found = match table {
                        "upstream" => upstream::try_read_character_reference(first, second, reader)
                            .map(|r| r.map(|r| (r.name, r.characters))),
                        _ => patched::try_read_character_reference(first, second, reader)
                            .map(|r| r.map(|r| (r.name, r.characters))),
                    };
                    (found, at)
                };
                assert_eq!(read("upstream"), read("patched"), "&{first}{second}{input}");
            }
        }
    }
}

#[test]
fn the_patched_table_is_what_the_generator_makes_of_upstreams() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/vendor/html5gum");
    let upstream = std::fs::read_to_string(format!("{dir}/tests/upstream_entities.rs")).unwrap();
    let patched = std::fs::read_to_string(format!("{dir}/src/entities.rs")).unwrap();
    let generated = generate::generate(&upstream).expect("the generator reads upstream's table");
    assert!(
        generated == patched,
        "vendor/html5gum/src/entities.rs is not what tests/generate_entities.rs makes: regenerate it (see that file)"
    );
}

#[test]
fn the_generator_refuses_a_table_it_cannot_read_whole() {
    // A changed upstream layout must fail the generator, not drop names.
    for (text, why) in [
        ("", "no candidates found"),
        (
            "match c { 'A' => { match d { 'E' => &[(\"lig;\", \"\\u{c6}\") 'x'], } } }",
            "unexpected",
        ),
        (
            "match c { 'A' => { match d { 'E' => &[], 'E' => &[], } } }",
            "twice",
        ),
        (
            "match c { '&' => { match d { 'E' => &[(\"lig;\", \"x\")], } } }",
            "not two ASCII alphanumerics",
        ),
        (
            "match c { 'A' => { match d { 'E' => &[(\"l-g;\", \"x\")], } } }",
            "not ASCII alphanumerics",
        ),
    ] {
        let error = generate::generate(text).expect_err(text);
        assert!(error.contains(why), "{text}: {error}");
    }
}
