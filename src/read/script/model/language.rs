//! ECMAScript's own objects: `Reflect`, `Promise`, `Object`, the ways to
//! run a string as code, and what every function has (`call`, `apply`,
//! `bind`, `constructor`).

use super::*;

/// What reading a property's descriptor is, as the model reads it: the
/// setter it gives (`src`'s, say) starts requests the analysis cannot see.
pub(super) const DESCRIPTOR: &str = "a property descriptor's getter or setter (such as `src`'s)";

#[rustfmt::skip]
pub(super) const PLATFORM: Platform = Platform {
    globals: &[
        Row(&["eval"], ANYWHERE, Def::Opaque("`eval`")),
        Row(&["Function"], ANYWHERE, Def::Opaque("`Function`")),
        Row(&["Reflect"], ANYWHERE, Def::Obj(Obj::Reflect)),
        Row(&["Promise"], ANYWHERE, Def::Obj(Obj::Promise)),
        Row(&["Object"], ANYWHERE, Def::Obj(Obj::Object)),
    ],
    members: &[
        (Obj::Object, Row(&["assign"], ANYWHERE, Def::Effect(Effect::CopiesProperties("`Object.assign`")))),
        (Obj::Object, Row(&["getOwnPropertyDescriptor"], ANYWHERE, Def::Effect(Effect::DescribesProperty(DESCRIPTOR)))),
        (Obj::Reflect, Row(&["getOwnPropertyDescriptor"], ANYWHERE, Def::Effect(Effect::DescribesProperty(DESCRIPTOR)))),
        (Obj::Object, Row(&["getOwnPropertyDescriptors"], ANYWHERE, Def::Opaque(DESCRIPTOR))),
        (Obj::Reflect, Row(&["getOwnPropertyDescriptors"], ANYWHERE, Def::Opaque(DESCRIPTOR))),
        (Obj::Reflect, Row(&["set"], ANYWHERE, Def::Effect(Effect::SetsMember))),
        (Obj::Reflect, Row(&["apply"], ANYWHERE, Def::Effect(Effect::CallsArgument { construct: false, how: "runs as an argument of `Reflect.{name}` ({at})" }))),
        (Obj::Reflect, Row(&["construct"], ANYWHERE, Def::Effect(Effect::CallsArgument { construct: true, how: "runs as an argument of `Reflect.{name}` ({at})" }))),
        (Obj::Reflect, Row(&["get"], ANYWHERE, Def::Effect(Effect::GetsMember))),
    ],
    any: &[
        Row(&["__lookupSetter__", "__lookupGetter__"], ANYWHERE, Def::Opaque(DESCRIPTOR)),
        // An array's: the callback's first argument is the accumulator.
        Row(ACCUMULATORS, ANYWHERE, Def::Effect(Effect::Accumulates)),
    ],
};

/// An array's methods that hand their callback an accumulator.
const ACCUMULATORS: &[&str] = &["reduce", "reduceRight"];

/// Member `name` of an object made by a literal (`[…]`, `{}`): the
/// language's own methods, of which the model knows the accumulators; any
/// other is page data.
pub(super) fn plain_member(name: &str) -> Option<Def> {
    ACCUMULATORS
        .contains(&name)
        .then_some(Def::Effect(Effect::Accumulates))
}

/// `new Promise(executor)` runs the executor once, with `resolve` and
/// `reject`.
pub(super) fn runs_executor(obj: Obj) -> bool {
    obj == Obj::Promise
}

/// A promise's methods call each callback once. (Any object's method of
/// these names is taken to be a promise's.)
pub(super) fn calls_back_once(name: &str) -> bool {
    matches!(name, "then" | "catch" | "finally")
}

/// Functions of the language that only read their argument's keys.
pub(super) fn reads_only(name: &str) -> bool {
    matches!(
        name,
        "keys"
            | "getOwnPropertyNames"
            | "ownKeys"
            | "stringify"
            | "is"
            | "isArray"
            | "String"
            | "Boolean"
    )
}

/// The global that holds no value, unless the script declares its own.
pub(in crate::read::script) const UNDEFINED: &str = "undefined";

/// `x.constructor`: of a function, `Function`, which runs a string.
pub(in crate::read::script) fn is_constructor(name: &str) -> bool {
    name == "constructor"
}

/// `arguments.callee`: the function itself.
pub(in crate::read::script) fn is_callee(name: &str) -> bool {
    name == "callee"
}

/// What every function has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum FnMember {
    /// `f.call`, `f.apply`: calling it calls `f` once.
    Call,
    /// `f.bind`: calling it gives `f` back.
    Bind,
}

/// Member `name` of a function, if it is one of these.
pub(in crate::read::script) fn function_member(name: &str) -> Option<FnMember> {
    match name {
        "call" | "apply" => Some(FnMember::Call),
        "bind" => Some(FnMember::Bind),
        _ => None,
    }
}

/// Calls that join text into a new string, whose whole the walk reads for a
/// URL as it reads `a + b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read::script) enum Builder {
    /// `s.concat(a, b)`: the receiver, then each argument.
    Concat,
    /// `[a, b].join(sep)`: an array literal's elements between separators.
    Join,
}

/// What the call of member `name` builds, if it joins text.
pub(in crate::read::script) fn string_builder(name: &str) -> Option<Builder> {
    match name {
        "concat" => Some(Builder::Concat),
        "join" => Some(Builder::Join),
        _ => None,
    }
}
