//! How many requests a piece of code can start: none, one, or many. Sums run
//! along sequences, maxima across alternatives, and anything that may run
//! more than once turns one into many. A count carries the words the model
//! reads: which request, where, and why it counts as many.

/// A request that runs once, as the model reads it: "`fetch` at 1:7", or
/// "`fetch` at 2:3 through `get` at 5:1".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Run {
    /// Offset of the sink in the analysed text, to tell two sinks apart.
    pub(super) at: u32,
    /// The description.
    pub(super) text: String,
    /// An input action on the page (Playwright's `fill`, `check`,
    /// `selectOption`): those in a row count as one possible request, as
    /// one `browser_fill_form` does.
    pub(super) input: bool,
}

/// How many requests can run, at most. Boxed words, so that a count is
/// two words and moves in registers: every statement and expression the
/// walk reads returns one, and most are [`Cost::Zero`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Cost {
    /// None.
    Zero,
    /// One, this one.
    One(Box<Run>),
    /// More than one, and why. A `Box<str>` would make the count three
    /// words; the second allocation is only made for a count of many.
    #[allow(clippy::box_collection)]
    Many(Box<String>),
}

// Two words: returned in registers, not through memory.
const _: () = assert!(std::mem::size_of::<Cost>() <= 16);

impl Cost {
    /// One request, `run`.
    pub(super) fn one(run: Run) -> Cost {
        Cost::One(Box::new(run))
    }

    /// More than one request, for the reason `why`.
    pub(super) fn many(why: String) -> Cost {
        Cost::Many(Box::new(why))
    }

    /// A rank for comparing counts while the analysis settles: 0, 1 or 2.
    pub(super) fn level(&self) -> u8 {
        match self {
            Cost::Zero => 0,
            Cost::One(_) => 1,
            Cost::Many(_) => 2,
        }
    }

    /// `self`, then `next`: both run.
    #[inline(always)]
    pub(super) fn then(self, next: Cost) -> Cost {
        // Most code starts nothing: that case inlined where the walk adds
        // counts (a call moved three counts of 32 bytes each, 18,600
        // times for 100 KB of script), the rest out of line.
        if let Cost::Zero = next {
            return self;
        }
        if let Cost::Zero = self {
            return next;
        }
        self.then_both(next)
    }

    /// [`Self::then`] of two counts that are not zero.
    #[inline(never)]
    fn then_both(self, next: Cost) -> Cost {
        match (self, next) {
            (Cost::Zero, c) | (c, Cost::Zero) => c,
            (Cost::Many(w), _) | (_, Cost::Many(w)) => Cost::Many(w),
            // A form filled field by field: the fields' handlers are the
            // page's, as they are for one `browser_fill_form`.
            (Cost::One(a), Cost::One(b)) if a.input && b.input => {
                Cost::One(if a.at <= b.at { a } else { b })
            }
            // Filled, then submitted: two calls by the tools, each paced.
            (Cost::One(a), Cost::One(b)) if a.input || b.input => Cost::many(format!(
                "{} and {} both run; fill the form in one call (its fills count as one request, as `browser_fill_form` does), and click, submit or fetch in the next",
                a.text, b.text
            )),
            (Cost::One(a), Cost::One(b)) => {
                Cost::many(format!("{} and {} both run", a.text, b.text))
            }
        }
    }

    /// `self` or `other`, never both: the larger.
    #[inline(always)]
    pub(super) fn or(self, other: Cost) -> Cost {
        if other.level() > self.level() {
            other
        } else {
            self
        }
    }

    /// The count when this code can run any number of times; `phrase` says
    /// how, e.g. "runs inside a `for` loop (2:1)".
    pub(super) fn repeated(self, phrase: impl FnOnce() -> String) -> Cost {
        match self {
            // Input actions, however many, are one possible request.
            Cost::One(run) if run.input => Cost::One(run),
            Cost::One(run) => Cost::many(format!("{} {}", run.text, phrase())),
            other => other,
        }
    }

    /// The count seen from a call at `via` ("through `get` at 5:1").
    pub(super) fn through(self, via: impl FnOnce() -> String) -> Cost {
        match self {
            Cost::One(mut run) => {
                run.text = format!("{} {}", run.text, via());
                Cost::One(run)
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(at: u32) -> Cost {
        Cost::one(Run {
            at,
            text: format!("`fetch` at 1:{at}"),
            input: false,
        })
    }

    fn fill(at: u32) -> Cost {
        Cost::one(Run {
            at,
            text: format!("`fill` at 1:{at}"),
            input: true,
        })
    }

    #[test]
    fn script_cost_input_actions_in_a_row_are_one_and_a_click_after_them_is_not() {
        assert_eq!(fill(1).then(fill(9)), fill(1));
        assert_eq!(fill(1).repeated(|| unreachable!()), fill(1));
        let Cost::Many(why) = fill(1).then(fill(9)).then(one(20)) else {
            panic!("fills and a click are two")
        };
        assert!(
            why.starts_with(
                "`fill` at 1:1 and `fetch` at 1:20 both run; fill the form in one call"
            ),
            "{why}"
        );
        assert_eq!(one(1).then(fill(2)).level(), 2);
    }

    #[test]
    fn script_cost_two_in_sequence_is_many_and_says_which() {
        assert_eq!(
            one(1).then(one(9)),
            Cost::many("`fetch` at 1:1 and `fetch` at 1:9 both run".into())
        );
        assert_eq!(Cost::Zero.then(one(1)), one(1));
    }

    #[test]
    fn script_cost_alternatives_take_the_larger() {
        assert_eq!(one(1).or(one(9)), one(1));
        assert_eq!(Cost::Zero.or(one(9)), one(9));
        assert_eq!(one(1).or(Cost::many("x".into())).level(), 2);
    }

    #[test]
    fn script_cost_repeating_one_is_many_and_zero_stays_zero() {
        let many = one(5).repeated(|| "runs inside a `for` loop (1:1)".into());
        assert_eq!(
            many,
            Cost::many("`fetch` at 1:5 runs inside a `for` loop (1:1)".into())
        );
        assert_eq!(Cost::Zero.repeated(|| unreachable!()), Cost::Zero);
    }
}
