//! The oracles of token programs (`gen::token_program`: waits that name groups), besides
//! `verify` (the verifier against the lazy interpreter, one home for any async program) and
//! `round-trip`:
//!
//! - `schedules`: a program that runs clean under the lazy schedule (every completion as late
//!   as its waits allow) runs clean, with bitwise the same outputs, under the eager schedule
//!   and a seeded random one with permuted threads, for each value of the integer parameters
//!   of the fast plan. Values under which lazy faults promise nothing and are not compared; a
//!   program that faults under lazy for every value is a skip.
//! - `token-lowering`: the program is equivalent to its lowering by the pass
//!   [`LOWER_TOKENS_PASS`] (tokens turned into in-flight counts), judged by the equivalence
//!   driver's fast plan; and the verifier gives every wait of the lowering the verdict it
//!   gives the wait on tokens it came from (a count derived exactly completes the same groups:
//!   proved tight stays proved tight, refuted stays refuted; a wait either side leaves
//!   undecided, as the counter of commits is, is not compared). The pass is looked up by name
//!   in the pass registry; while there is none, the oracle is a skip saying so
//!   ([`SkipReason::Unavailable`]), never a pass. [`lowering_equivalent`] is the same
//!   judgement for any lowering given as a closure.
//!
//! Failure classes are the existing ones: `fault:input:KIND` (a schedule faults where lazy ran
//! clean), `output-mismatch`, `interpreter-error:input`; for the lowering, `pass-rejected`,
//! `checker-rejected` and the equivalence oracle's classes of the lowered side.

use tirproof_exec::{diff, Difference, Engine, Execution, Interpreter, RunConfig};
use tirproof_interp::{random_inputs, Schedule};
use tirproof_ir::async_op::AsyncKey;
use tirproof_ir::visit::{walk_stmt, Visitor};
use tirproof_ir::{IRModule, PrimFunc, Stmt, StmtKind};
use tirproof_passes::{lookup, PassManager, PipelineError};
use tirproof_verify::waits::{verify_func, Options, WaitVerdict};

use super::equivalence::{self, describe_fault, scalar_assignments, show_scalars};
use super::{Failure, FailureClass, OracleName, Outcome, Side, SkipReason};

/// The name of the pass that lowers token waits to counts, in the pass registry.
pub const LOWER_TOKENS_PASS: &str = "lower-async-tokens";

/// The schedules compared with the lazy one: eager, and random with permuted threads.
fn other_schedules(seed: u64) -> [RunConfig; 2] {
    [
        RunConfig { schedule: Schedule::Eager, ..RunConfig::default() },
        RunConfig { schedule: Schedule::Random(seed), thread_order_seed: Some(seed), ..RunConfig::default() },
    ]
}

/// The `schedules` oracle on every function of `module` (see the module documentation).
pub fn schedules(module: &IRModule, seed: u64) -> Outcome {
    let mut compared = false;
    for func in &module.functions {
        match schedules_of(func, seed) {
            Ok(any) => compared |= any,
            Err(failure) => return Outcome::Fail(failure),
        }
    }
    match compared {
        true => Outcome::Pass,
        false => Outcome::not_applicable("the program faults under the lazy schedule for every value tried"),
    }
}

/// Whether some run of `func` was clean under lazy (and so compared), or the first failure.
fn schedules_of(func: &PrimFunc, seed: u64) -> Result<bool, Failure> {
    let fail = |class, message: String| Failure::new(OracleName::Schedules, class, message);
    let engine_error = || FailureClass::InterpreterError { side: Side::Original };
    let mut compared = false;
    for scalars in scalar_assignments(func) {
        let inputs = random_inputs(func, seed, &scalars)
            .map_err(|e| fail(engine_error(), format!("no inputs for `{}`: {e}", func.name)))?;
        let lazy_config = RunConfig { schedule: Schedule::Lazy, ..RunConfig::default() };
        let lazy = Interpreter.run(func, &inputs, &lazy_config);
        match &lazy {
            Execution::Completed { .. } => {}
            Execution::Faulted { .. } => continue,
            Execution::Failed(e) => {
                return Err(fail(engine_error(), format!("the interpreter cannot run `{}`: {e}", func.name)));
            }
        }
        compared = true;
        for config in other_schedules(seed) {
            let other = Interpreter.run(func, &inputs, &config);
            let under = format!("`{}` under {} with {}", func.name, config.schedule, show_scalars(&scalars));
            match diff(&lazy, &other) {
                Ok(Difference::Equal) => {}
                Ok(Difference::Faulted { fault, .. }) => {
                    let message = format!("{under} faults, though it runs clean under lazy: {fault}");
                    let class = FailureClass::Fault { side: Side::Original, kind: fault.kind };
                    return Err(fail(class, message).with_counterexample(describe_fault(&fault)));
                }
                Ok(difference) => {
                    let message = format!("{under} computes something else than under lazy: {difference}");
                    return Err(fail(FailureClass::OutputMismatch, message));
                }
                Err((_, e)) => return Err(fail(engine_error(), format!("{under}: the interpreter fails: {e}"))),
            }
        }
    }
    Ok(compared)
}

/// Why a lowering gave no program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoweringFailure {
    /// The lowering refused the program (its diagnostics).
    Refused(String),
    /// The lowering's output does not check (the checker's diagnostics).
    Broken(String),
}

/// The `token-lowering` oracle: `module` against its lowering by [`LOWER_TOKENS_PASS`], or a
/// skip saying the pass manager has no such pass.
pub fn token_lowering(module: &IRModule, seed: u64) -> Outcome {
    let Some(pass) = lookup(LOWER_TOKENS_PASS) else {
        return Outcome::Skip(SkipReason::Unavailable(format!(
            "the pass manager has no pass named `{LOWER_TOKENS_PASS}`"
        )));
    };
    let manager = PassManager::new(vec![pass]);
    let lower = |input: &IRModule| {
        let mut output = input.clone();
        match manager.run(&mut output) {
            Ok(_) => Ok(output),
            Err(e @ PipelineError::Refused { .. }) => Err(LoweringFailure::Refused(e.to_string())),
            Err(e @ PipelineError::Broken { .. }) => Err(LoweringFailure::Broken(e.to_string())),
        }
    };
    match lowering_equivalent(module, &lower, seed) {
        Outcome::Pass => match lower(module) {
            Ok(lowered) => same_verdicts(module, &lowered),
            Err(_) => Outcome::Pass,
        },
        other => other,
    }
}

/// The verifier's verdict on each wait of `before` and of `after` (the same waits, in order),
/// compared where both are decided.
pub fn same_verdicts(before: &IRModule, after: &IRModule) -> Outcome {
    let options = Options { timeout: VERDICT_TIMEOUT, budget: Some(VERDICT_BUDGET), ..Options::default() };
    for (original, lowered) in before.functions.iter().zip(&after.functions) {
        // A count read from memory (the counter of commits) is any value to the verifier, so
        // its refutations elsewhere in the function are for some memory contents, not this
        // program's: such a function is not compared.
        if counts_read_memory(lowered) {
            continue;
        }
        let (was, _) = verify_func(original, &options);
        let (is, _) = verify_func(lowered, &options);
        if was.waits.len() != is.waits.len() {
            continue;
        }
        for (w0, w1) in was.waits.iter().zip(&is.waits) {
            let (Some(k0), Some(k1)) = (decided(&w0.verdict), decided(&w1.verdict)) else { continue };
            if k0 != k1 {
                let message = format!(
                    "`{}`: the wait at line {} is {k0} on its tokens, but its lowering (line {}, in-flight {}) is {k1}: {}",
                    original.name, w0.line, w1.line, w1.count, w1
                );
                return Outcome::Fail(Failure::new(OracleName::TokenLowering, FailureClass::VerdictChanged, message));
            }
        }
    }
    Outcome::Pass
}

/// Whether some wait count of `func` reads memory.
fn counts_read_memory(func: &PrimFunc) -> bool {
    struct Found(bool);
    impl Visitor for Found {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let StmtKind::Attr(attr) = &s.kind {
                if AsyncKey::parse(&attr.key) == Some(AsyncKey::InflightCount) {
                    self.0 |= attr.value.reads_memory();
                }
            }
            if let StmtKind::Block(block) = &s.kind {
                if let Some(count) = block.annotations.get(AsyncKey::InflightCount.as_str()) {
                    self.0 |= matches!(count, tirproof_ir::annotation::AnnValue::Expr(e) if e.reads_memory());
                }
            }
            walk_stmt(self, s);
        }
    }
    let mut found = Found(false);
    found.visit_stmt(&func.body);
    found.0
}

/// Per-check time limit and per-function budget of the verdict comparison: generated token
/// programs are small, and a budget spent leaves the verdicts undecided (not compared).
const VERDICT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
const VERDICT_BUDGET: std::time::Duration = std::time::Duration::from_secs(20);

/// The kind of a decided verdict (`None` for an undecided one).
fn decided(verdict: &WaitVerdict) -> Option<&'static str> {
    match verdict {
        WaitVerdict::ProvedTight => Some("proved tight"),
        WaitVerdict::ProvedOverSynchronized { .. } => Some("over-synchronized"),
        WaitVerdict::Refuted { .. } => Some("refuted"),
        WaitVerdict::Proved | WaitVerdict::ProvedBounded { .. } | WaitVerdict::Unknown { .. } => None,
    }
}

/// A lowering of token programs, as [`lowering_equivalent`] takes it.
pub type Lowering<'a> = dyn Fn(&IRModule) -> Result<IRModule, LoweringFailure> + 'a;

/// `module` computes what its lowering by `lower` computes, neither faulting, under the fast
/// plan; a program that does not run clean under the lazy schedule on its own is a skip (a
/// lowering promises nothing about it).
pub fn lowering_equivalent(module: &IRModule, lower: &Lowering<'_>, seed: u64) -> Outcome {
    let oracle = OracleName::TokenLowering;
    if !equivalence::runs_cleanly(module) {
        return Outcome::not_applicable("the program does not run clean under the lazy schedule on its own");
    }
    let lowered = match lower(module) {
        Ok(lowered) => lowered,
        Err(LoweringFailure::Refused(why)) => {
            let message = format!("the lowering of tokens refuses a token program: {why}");
            return Outcome::Fail(Failure::new(oracle, FailureClass::PassRejected, message));
        }
        Err(LoweringFailure::Broken(why)) => {
            let message = format!("the checker rejects the lowering of tokens: {why}");
            return Outcome::Fail(Failure::new(oracle, FailureClass::CheckerRejected, message));
        }
    };
    equivalence::check(oracle, module, &lowered, seed)
}
