//! Translation validation of common subexpression elimination, and the soundness proofs of the
//! rules of `cse-semantic`.
//!
//! # Validating a run
//!
//! [`validate`] takes a function and its CSE output (both passes keep every binder, so the two
//! can be matched statement by statement) and proves, with Z3, for every expression CSE changed,
//! that the rewritten expression has the same value and the same faults as the original one
//! under the bindings in scope (the original lets, and the `cse_vN` lets CSE inserted), and for
//! every binding CSE inserted, that computing its value early cannot fault unless the original
//! program faults there too. Integers are bit-vectors with TVM's exact semantics, floats IEEE
//! terms; lazy `if_then_else` arms only matter under their condition. The answer is a
//! [`ValidationReport`] with one [`Obligation`] per rewritten expression and per inserted
//! binding; only `Proved` is a pass. The CLI calls it for `tirproof opt --validate`:
//!
//! ```ignore
//! let report = tirproof_verify::cse::validate(&original, &rewritten, DEFAULT_TIMEOUT);
//! if !report.is_proved() { eprintln!("{report}"); }
//! ```
//!
//! # Proving the rules
//!
//! [`rules`] proves each rule of `tirproof_passes::cse::semantic::rules::RULES` once per type it
//! is enabled for, with pattern variables that are arbitrary values and may fault, and refutes
//! each rule's twin (see its documentation). `cargo test -p tirproof-verify` runs them all.
//!
//! # How an obligation is decided
//!
//! Two exact models of the IR's semantics: bit-vectors and IEEE terms (`encode`), and
//! mathematical integers for scalar integer expressions (`int_model`, where Z3 reasons about
//! quotients and polynomials instead of bit-blasting dividers and multipliers). A rewrite is
//! first tried in the bit-vector model with integer division and products of two
//! non-immediates uninterpreted (a sound abstraction: what holds for every interpretation holds
//! for the real operation; faults stay exact), then in the integer model, then in the exact
//! bit-vector model. The first `Proved` or `Refuted` wins; a refutation of the abstraction is
//! never reported, only of an exact model.
//!
//! Before a rewrite goes to Z3 whole, `congruence` tries to split it: two applications of the
//! same operator are equal when their operands are, pairwise, and those (usually small
//! integer index expressions) are proved on their own.
//!
//! Layout: `sym` (symbolic values), `int_ops`, `float_ops` and `cast` (the operators), `encode`
//! (expressions), `int_model` (the integer model), `congruence`, `trap` (when a statement
//! faults), `walk` (the parallel walk), `report`.

mod cast;
mod congruence;
mod encode;
mod float_ops;
mod int_model;
mod int_ops;
mod report;
pub mod rules;
mod sym;
mod trap;
mod walk;

use std::collections::HashMap;
use std::time::Duration;

use tirproof_ir::{BufferId, Expr, IRModule, PrimFunc, Var, VarId};

use crate::solver::{QueryError, UnknownReason, Verdict};

pub use report::{Obligation, ObligationKind, ValidationReport};

/// Which program an expression belongs to (variables of the rewritten one are renamed to their
/// original counterparts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Original = 0,
    Rewritten = 1,
}

/// What a let-bound variable stands for in proofs.
#[derive(Clone, Debug)]
pub enum LetValue {
    /// Its value, an expression of `side` that reads no state.
    Value { value: Expr, side: Side },
    /// An unknown value, the same on both sides (its value reads memory).
    Opaque,
}

/// The bindings in scope at a point of the walk.
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub lets: HashMap<VarId, LetValue>,
    /// Rewritten variables whose identity differs from their original counterpart.
    pub rename: HashMap<VarId, Var>,
    /// Rewritten buffers whose identity differs from their original counterpart.
    pub buffers: HashMap<BufferId, BufferId>,
}

/// Why an expression could not be put into Z3.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("{0} is not supported")]
    Unsupported(String),
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error("internal encoding error: {0}")]
    Internal(String),
}

/// Validates the CSE output `rewritten` of `original` (see the module documentation); every
/// query gets `timeout`.
pub fn validate(original: &PrimFunc, rewritten: &PrimFunc, timeout: Duration) -> ValidationReport {
    walk::Walk::run(original, rewritten, timeout)
}

/// Validates every function of `original` against its namesake in `rewritten`.
pub fn validate_module(original: &IRModule, rewritten: &IRModule, timeout: Duration) -> Vec<ValidationReport> {
    original
        .functions
        .iter()
        .map(|f| match rewritten.get(&f.name) {
            Some(r) => validate(f, r, timeout),
            None => ValidationReport {
                function: f.name.clone(),
                obligations: vec![Obligation {
                    kind: ObligationKind::Structure,
                    path: String::new(),
                    original: f.name.clone(),
                    rewritten: String::new(),
                    verdict: Verdict::Unknown(UnknownReason::NotAsked(
                        "the rewritten module has no function of this name".into(),
                    )),
                }],
                unchanged: 0,
            },
        })
        .collect()
}
