//! Common subexpression elimination: `cse` (syntactic, TVM's `CommonSubexprElimTIR`) and
//! `cse-semantic` (the same placement, with computations grouped by an e-graph).
//!
//! A computation (see `eligible`) performed at least twice in a scope is bound once to a new
//! variable `cse_vN` placed where all its variables are defined, and its occurrences read the
//! variable. The placement (`scope`) follows TVM: biggest computations first, so longer
//! computations end up bound inside shorter ones; a let of the context that already holds a
//! computation is reused; rounds repeat until nothing changes. What it never does:
//! - move a computation out of a lazy `if_then_else` arm (it may trap or be costly when the
//!   arm is not taken);
//! - bind a load or an impure call, or anything containing one, so no value is ever moved
//!   across a store, a barrier or an async wait that could change it;
//! - bind a computation where one of its variables is not defined (out of its loop, its let,
//!   its block);
//! - bind a computation that may trap (integer division by a non-constant, ...) before a point
//!   where the original program does not definitely perform it.
//!
//! Both passes keep every existing binder (variables and buffers keep their identity), so a
//! rewritten function can be checked against its original one (tirproof-verify's `cse`
//! module proves each rewritten expression equal to the original under the new bindings).
//!
//! Layout: `driver` walks a function's scopes (skipping those whose placement would decide
//! nothing); `scope` places one scope's bindings, deciding in `queue` from the computations
//! `table` scans and the facts it records about each node (`eligible` says what a computation
//! is, `key` hashes trees); `replace` rewrites occurrences; `context` tracks what is defined; `names`
//! makes `cse_vN`; `strategy` groups computations (syntactically here, by e-graph in
//! `semantic`); `metrics` counts operations for the quality report.

mod context;
mod driver;
pub mod eligible;
mod key;
pub mod metrics;
mod names;
mod queue;
mod replace;
mod scope;
pub mod semantic;
mod strategy;
mod table;

#[cfg(test)]
mod tests;

use tirproof_ir::{Diagnostic, IRModule, PrimFunc};

use crate::stop::{Limit, Stopped};
use crate::{FunctionPass, FunctionReport};

pub use scope::Stats;

/// Which grouping of computations to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Structurally equal computations.
    Syntactic,
    /// Computations an e-graph proves equal with the rules of `semantic::rules`.
    Semantic,
}

/// Runs CSE on one function.
pub fn eliminate(func: &mut PrimFunc, mode: Mode) -> Stats {
    eliminate_reported(func, mode).0
}

/// Runs CSE on one function; says which limit the e-graph stopped at, if the semantic mode's
/// e-graph did not saturate.
pub fn eliminate_reported(func: &mut PrimFunc, mode: Mode) -> (Stats, Option<Limit>) {
    match mode {
        Mode::Syntactic => (driver::run_func(func, &mut strategy::Syntactic), None),
        Mode::Semantic => semantic::eliminate(func, semantic::Limits::default()),
    }
}

/// Runs CSE on every function of `module`, adding up the statistics.
pub fn eliminate_module(module: &mut IRModule, mode: Mode) -> Stats {
    eliminate_module_reported(module, mode).0
}

/// [`eliminate_module`], with the functions whose e-graph stopped at a limit.
pub fn eliminate_module_reported(module: &mut IRModule, mode: Mode) -> (Stats, Vec<Stopped>) {
    let mut total = Stats::default();
    let mut stopped = Vec::new();
    for func in &mut module.functions {
        let (s, limit) = eliminate_reported(func, mode);
        total.introduced += s.introduced;
        total.replaced += s.replaced;
        stopped.extend(limit.map(|limit| Stopped { function: func.name.clone(), limit }));
    }
    (total, stopped)
}

/// The syntactic pass (`--passes cse`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cse;

impl FunctionPass for Cse {
    const NAME: &'static str = "cse";
    const DESCRIPTION: &'static str = "common subexpression elimination of structurally equal computations (TVM's CSE)";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        eliminate(func, Mode::Syntactic);
        Ok(FunctionReport::default())
    }
}

/// The semantic pass (`--passes cse-semantic`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CseSemantic;

impl FunctionPass for CseSemantic {
    const NAME: &'static str = "cse-semantic";
    const DESCRIPTION: &'static str = "common subexpression elimination of computations an e-graph proves equal";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        let (_, stopped) = eliminate_reported(func, Mode::Semantic);
        Ok(FunctionReport { notes: Vec::new(), stopped })
    }
}
