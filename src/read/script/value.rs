//! What an expression can evaluate to, as far as requests go: the lattice
//! the walk computes over. What the platform's names mean is the model's
//! ([`super::model`]); a value holds what the model said.
//!
//! Values are tracked only where they matter: the global object, the
//! functions that start requests, the objects that reach them (`location`,
//! `navigator`, an `XMLHttpRequest`, Playwright's `page`), the script's own
//! functions, and strings whose text is known. Everything else is
//! [`Value::Unknown`]: page data, whose methods are the page's business —
//! except that a method with a request's name (`send`, `click`, `submit`, …)
//! is taken to be one on any object the analysis cannot name, so an alias it
//! lost track of still counts.

use super::model::{Def, Effect, Obj, Sink};

/// One thing an expression may evaluate to.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    /// Page data or anything else the analysis does not follow.
    Unknown,
    /// A member of page data (an element, a list, the global object,
    /// `document`) whose name is in no table of the model: calling it is a
    /// possible request; read, it is page data.
    Unlisted,
    /// A member read through a key the analysis could not fold (`obj[k]`):
    /// possibly any method, so calling it is opaque.
    Dyn,
    /// More possible values than the analysis keeps: treated as anything.
    Any,
    /// A string whose text is known.
    Str(String),
    /// The global object: `window`, `self`, `globalThis`, `top`, `frames[0]`…
    Global,
    /// An object made by a literal (`{}`, `[]`): nothing of the page behind it.
    Plain,
    /// An element the script created, by tag (`""` when the tag is unknown).
    Element(String),
    /// A node of an inert document (`DOMParser`'s), or a value read from
    /// one; `true` when its markup is not known. Put into the page, it
    /// loads.
    Parsed(bool),
    /// An attribute node, by name (lower case; `""` when not known):
    /// setting its value sets the attribute.
    Attr(String),
    /// A known object of the browser or of Playwright.
    Obj(Obj),
    /// A function that starts one request each time it is called or
    /// constructed.
    Sink(&'static Sink),
    /// A function that runs code the analysis cannot see (`` `eval` ``).
    Opaque(&'static str),
    /// A known function with an effect of its own.
    Effect(Effect),
    /// A function of the script, by the offset where it starts.
    Func(u32),
    /// `f.call` or `f.apply`: calling it calls `f` once.
    Via(Box<Value>),
    /// `f.bind`: calling it gives `f` back.
    BindOf(Box<Value>),
    /// The `arguments` object of the function at this offset.
    Arguments(u32),
}

impl From<Def> for Value {
    /// What the model says a name is. A name it knows to start nothing is
    /// page data, as a name it does not know is.
    fn from(def: Def) -> Value {
        match def {
            Def::Global => Value::Global,
            Def::Obj(o) => Value::Obj(o),
            Def::Sink(s) => Value::Sink(s),
            Def::Opaque(what) => Value::Opaque(what),
            Def::Effect(e) => Value::Effect(e),
            Def::Inert => Value::Unknown,
        }
    }
}

/// Values an expression may have. The empty set is "no value yet": a
/// variable nothing has been assigned to (`undefined`), or a parameter no
/// call has reached. Values from outside the analysis are explicit
/// [`Value::Unknown`]s, so sets only grow as the analysis learns.
///
/// The flag is set once the set has dropped its known strings for
/// [`Value::Unknown`] (past [`CAP`]); from then on a known string added is
/// that `Unknown`. Without it, a variable assigned more than [`CAP`] strings
/// dropped them, grew again with the next round's, dropped them again, and
/// never settled, so the analysis gave up on it.
#[derive(Debug, Clone, Default)]
pub(super) struct Vals(Small, bool);

impl PartialEq for Vals {
    fn eq(&self, other: &Vals) -> bool {
        self.0.as_slice() == other.0.as_slice()
    }
}

/// The values of a set, kept inline while there is at most one: most sets
/// hold one value (page data, a known object), and a set is cloned on every
/// read of a variable. In a `Vec` each of those was an allocation, a fifth
/// of the analysis of a 10 KB script (callgrind).
#[derive(Debug, Clone, Default)]
enum Small {
    #[default]
    Empty,
    One(Value),
    Many(Vec<Value>),
}

impl Small {
    fn as_slice(&self) -> &[Value] {
        match self {
            Small::Empty => &[],
            Small::One(v) => std::slice::from_ref(v),
            Small::Many(vs) => vs,
        }
    }

    fn push(&mut self, v: Value) {
        *self = match std::mem::take(self) {
            Small::Empty => Small::One(v),
            Small::One(a) => Small::Many(vec![a, v]),
            Small::Many(mut vs) => {
                vs.push(v);
                Small::Many(vs)
            }
        };
    }

    fn retain(&mut self, keep: impl Fn(&Value) -> bool) {
        match self {
            Small::Empty => {}
            Small::One(v) => {
                if !keep(v) {
                    *self = Small::Empty;
                }
            }
            Small::Many(vs) => vs.retain(|v| keep(v)),
        }
    }

    fn contains(&self, v: &Value) -> bool {
        self.as_slice().contains(v)
    }

    fn len(&self) -> usize {
        self.as_slice().len()
    }
}

/// How many values a set keeps before it gives up and holds [`Value::Any`].
const CAP: usize = 16;

impl Vals {
    /// No value.
    pub(super) fn none() -> Vals {
        Vals(Small::Empty, false)
    }

    /// A value from outside the analysis.
    pub(super) fn unknown() -> Vals {
        Vals::of(Value::Unknown)
    }

    /// Exactly `v`.
    pub(super) fn of(v: Value) -> Vals {
        Vals(Small::One(v), false)
    }

    /// The values.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Value> {
        self.0.as_slice().iter()
    }

    /// Add `v`; true if the set grew. Past [`CAP`] known strings are
    /// dropped first (they start nothing), then everything becomes
    /// [`Value::Any`].
    pub(super) fn add(&mut self, v: Value) -> bool {
        let v = if self.1 && matches!(v, Value::Str(_)) {
            Value::Unknown
        } else {
            v
        };
        if self.0.contains(&v) || self.0.contains(&Value::Any) {
            return false;
        }
        if self.0.len() >= CAP {
            let before = self.0.len();
            self.0.retain(|x| !matches!(x, Value::Str(_)));
            if self.0.len() < before {
                self.1 = true;
                let grew = !self.0.contains(&Value::Unknown);
                if grew {
                    self.0.push(Value::Unknown);
                }
                return self.add(if matches!(v, Value::Str(_)) {
                    Value::Unknown
                } else {
                    v
                }) || grew;
            }
            self.0 = Small::One(Value::Any);
            return true;
        }
        self.0.push(v);
        true
    }

    /// Add every value of `other`; true if the set grew.
    pub(super) fn join(&mut self, other: &Vals) -> bool {
        let mut grew = false;
        for v in other.0.as_slice() {
            grew |= self.add(v.clone());
        }
        grew
    }

    /// The text, if this is one known string.
    pub(super) fn as_str(&self) -> Option<&str> {
        match self.0.as_slice() {
            [Value::Str(s)] => Some(s),
            _ => None,
        }
    }

    /// True if every value is a known string (and there is one at least).
    pub(super) fn all_strings(&self) -> bool {
        let vs = self.0.as_slice();
        !vs.is_empty() && vs.iter().all(|v| matches!(v, Value::Str(_)))
    }
}

// A value is cloned on every read of a variable: keep it at most the size of
// a string and its tag.
const _: () = assert!(std::mem::size_of::<Value>() <= 32);
