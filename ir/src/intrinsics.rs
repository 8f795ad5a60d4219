//! The table of known intrinsics: what `T.name(...)` may call, with its effect and result type.
//!
//! The parser resolves every intrinsic call through `lookup`; an unknown name is an error, so
//! the rest of the toolkit only ever sees calls listed here (plus `T.call_extern` calls, which
//! carry their own type and are always opaque or pure as written). Invariants: names are the
//! spelling after `T.`, unique, and each entry's arity range is non-empty.

use crate::dtype::DataType;
use crate::expr::CallEffect;

/// How the result type of a call follows from its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultType {
    /// The type of the first argument (`exp`, `pow`, `likely`, ...).
    FirstArg,
    /// Bool with the lanes of the first argument (`isnan`, ...).
    BoolLike,
    /// A fixed type, whatever the arguments.
    Fixed(DataType),
}

/// One known intrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Intrinsic {
    /// The name after `T.`.
    pub name: &'static str,
    pub effect: CallEffect,
    pub min_args: usize,
    pub max_args: usize,
    pub result: ResultType,
}

impl Intrinsic {
    const fn pure(name: &'static str, args: usize) -> Self {
        Intrinsic { name, effect: CallEffect::Pure, min_args: args, max_args: args, result: ResultType::FirstArg }
    }

    const fn predicate(name: &'static str) -> Self {
        Intrinsic { result: ResultType::BoolLike, ..Intrinsic::pure(name, 1) }
    }

    /// The result type for arguments of types `args` (the first one, if any, decides).
    pub fn result_type(&self, args: &[DataType]) -> DataType {
        let first = args.first().copied().unwrap_or(DataType::INT32);
        match self.result {
            ResultType::FirstArg => first,
            ResultType::BoolLike => first.bool_like(),
            ResultType::Fixed(dtype) => dtype,
        }
    }

    /// Whether `count` arguments are accepted.
    pub fn accepts(&self, count: usize) -> bool {
        (self.min_args..=self.max_args).contains(&count)
    }
}

/// Every intrinsic the text format accepts.
pub const INTRINSICS: &[Intrinsic] = &[
    Intrinsic::pure("exp", 1),
    Intrinsic::pure("exp2", 1),
    Intrinsic::pure("exp10", 1),
    Intrinsic::pure("log", 1),
    Intrinsic::pure("log2", 1),
    Intrinsic::pure("log10", 1),
    Intrinsic::pure("log1p", 1),
    Intrinsic::pure("sqrt", 1),
    Intrinsic::pure("rsqrt", 1),
    Intrinsic::pure("tanh", 1),
    Intrinsic::pure("sigmoid", 1),
    Intrinsic::pure("sin", 1),
    Intrinsic::pure("cos", 1),
    Intrinsic::pure("tan", 1),
    Intrinsic::pure("sinh", 1),
    Intrinsic::pure("cosh", 1),
    Intrinsic::pure("asin", 1),
    Intrinsic::pure("acos", 1),
    Intrinsic::pure("atan", 1),
    Intrinsic::pure("erf", 1),
    Intrinsic::pure("fabs", 1),
    Intrinsic::pure("abs", 1),
    Intrinsic::pure("floor", 1),
    Intrinsic::pure("ceil", 1),
    Intrinsic::pure("round", 1),
    Intrinsic::pure("nearbyint", 1),
    Intrinsic::pure("trunc", 1),
    Intrinsic::pure("popcount", 1),
    Intrinsic::pure("clz", 1),
    Intrinsic::pure("pow", 2),
    Intrinsic::pure("fmod", 2),
    Intrinsic::pure("atan2", 2),
    Intrinsic::pure("hypot", 2),
    Intrinsic::pure("copysign", 2),
    Intrinsic::pure("nextafter", 2),
    Intrinsic::pure("ldexp", 2),
    Intrinsic::predicate("isnan"),
    Intrinsic::predicate("isinf"),
    Intrinsic::predicate("isfinite"),
    // A branch-prediction hint: the value of its (bool) argument.
    Intrinsic::pure("likely", 1),
    // `T.assume(cond)`: a fact for analysis, no run-time effect.
    Intrinsic::pure("assume", 1),
    // TVM's tuple: the tokens of `async_wait_tokens` (`tirproof_ir::async_op::token_list`).
    Intrinsic {
        name: crate::async_op::TOKEN_TUPLE,
        effect: CallEffect::Pure,
        min_args: 1,
        max_args: usize::MAX,
        result: ResultType::Fixed(DataType::HANDLE),
    },
    // The barrier; as a statement the parser turns it into `StmtKind::Barrier`.
    Intrinsic {
        name: "tvm_storage_sync",
        effect: CallEffect::Opaque,
        min_args: 1,
        max_args: 3,
        result: ResultType::Fixed(DataType::INT32),
    },
];

/// The intrinsic called `name` (without `T.`), if known.
pub fn lookup(name: &str) -> Option<&'static Intrinsic> {
    INTRINSICS.iter().find(|i| i.name == name)
}

/// The effect of a call to `name`, if it is a known intrinsic.
pub fn effect_of(name: &str) -> Option<CallEffect> {
    lookup(name).map(|i| i.effect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_arities_sane() {
        for (i, a) in INTRINSICS.iter().enumerate() {
            assert!(a.min_args <= a.max_args, "{}", a.name);
            assert!(INTRINSICS.iter().skip(i + 1).all(|b| b.name != a.name), "{}", a.name);
        }
    }

    #[test]
    fn result_types_follow_the_rule() {
        let exp = lookup("exp").unwrap();
        assert_eq!(exp.result_type(&[DataType::FLOAT16]), DataType::FLOAT16);
        assert!(exp.accepts(1) && !exp.accepts(2));
        let isnan = lookup("isnan").unwrap();
        assert_eq!(isnan.result_type(&[DataType::FLOAT32.with_lanes(4)]), DataType::BOOL.with_lanes(4));
        assert_eq!(effect_of("pow"), Some(CallEffect::Pure));
        assert_eq!(effect_of("tvm_storage_sync"), Some(CallEffect::Opaque));
        assert!(lookup("foo").is_none());
    }
}
