//! The `equivalence` oracle: the pass's output computes, bit for bit, what its input computes,
//! and neither faults, under the lazy, eager and a seeded random schedule, for each value given
//! to the integer parameters (a symbolic extent).
//!
//! Fewer runs than the filetests' `check_equivalent` (one thread order per schedule, fewer
//! scalar values) so that campaigns stay fast; the values still cover every extent shorter
//! than a deep pipeline, an exact fit and a steady state.

use std::collections::BTreeMap;

use tirproof_interp::{random_inputs, Fault, Outcome as RunOutcome, RunConfig, ScalarValue, Schedule};
use tirproof_ir::{IRModule, PrimFunc};

use super::{Failure, FailureClass, OracleName, Outcome, Side};
use crate::compare::{compare, Mismatch};

/// Values tried for each integer parameter.
const SCALAR_VALUES: [i64; 9] = [1, 2, 3, 4, 5, 6, 7, 13, 31];

/// Every assignment of [`SCALAR_VALUES`] to the integer scalar parameters (all of them the
/// same value), or the one empty assignment.
pub fn scalar_assignments(func: &PrimFunc) -> Vec<BTreeMap<String, ScalarValue>> {
    crate::compare::scalar_assignments(func, &SCALAR_VALUES)
}

/// The schedules and thread orders every comparison runs under.
fn configs(seed: u64) -> [RunConfig; 3] {
    [
        RunConfig { schedule: Schedule::Lazy, ..RunConfig::default() },
        RunConfig { schedule: Schedule::Eager, ..RunConfig::default() },
        RunConfig { schedule: Schedule::Random(seed), thread_order_seed: Some(seed), ..RunConfig::default() },
    ]
}

/// Compares every function of `input` with its namesake in `output`.
pub fn check(oracle: OracleName, input: &IRModule, output: &IRModule, seed: u64) -> Outcome {
    for func in &input.functions {
        let Some(other) = output.get(&func.name) else {
            let message = format!("the output has no function `{}`", func.name);
            return Outcome::Fail(Failure::new(oracle, FailureClass::OutputMismatch, message));
        };
        if let Some(failure) = check_func(oracle, func, other, seed) {
            return Outcome::Fail(failure);
        }
    }
    Outcome::Pass
}

/// The first disagreement between `func` and `other`, if any.
pub fn check_func(oracle: OracleName, func: &PrimFunc, other: &PrimFunc, seed: u64) -> Option<Failure> {
    for scalars in scalar_assignments(func) {
        let inputs = match random_inputs(func, seed, &scalars) {
            Ok(inputs) => inputs,
            Err(e) => return Some(interpreter_error(oracle, Side::Input, &e.to_string())),
        };
        for config in configs(seed) {
            let comparison = match compare(func, other, &inputs, &config) {
                Ok(c) => c,
                Err(e) => return Some(interpreter_error(oracle, Side::Output, &e.to_string())),
            };
            let Some(mismatch) = comparison.mismatch else { continue };
            let context = format!("`{}` under {} with {}", func.name, config.schedule, show_scalars(&scalars));
            let fault = |outcome: &RunOutcome| outcome.fault().map(describe_fault);
            let evidence = fault(&comparison.original.outcome).or_else(|| fault(&comparison.transformed.outcome));
            let class = match &mismatch {
                Mismatch::Fault { which, .. } => {
                    let (side, result) = if *which == "original" {
                        (Side::Input, &comparison.original)
                    } else {
                        (Side::Output, &comparison.transformed)
                    };
                    match result.outcome.fault() {
                        Some(f) => FailureClass::Fault { side, kind: f.kind },
                        None => FailureClass::OutputMismatch,
                    }
                }
                Mismatch::Output { .. } | Mismatch::MissingOutput { .. } => FailureClass::OutputMismatch,
            };
            let failure = Failure::new(oracle, class, format!("{context}: {mismatch}"));
            return Some(match evidence {
                Some(e) => failure.with_counterexample(e),
                None => failure,
            });
        }
    }
    None
}

fn interpreter_error(oracle: OracleName, side: Side, message: &str) -> Failure {
    Failure::new(
        oracle,
        FailureClass::InterpreterError { side },
        format!("the interpreter cannot run the {}: {message}", side.name()),
    )
}

/// `n = 3` (or `no scalar parameters`).
pub fn show_scalars(scalars: &BTreeMap<String, ScalarValue>) -> String {
    if scalars.is_empty() {
        return "no scalar parameters".into();
    }
    scalars
        .iter()
        .map(|(name, value)| match value {
            ScalarValue::Int(v) => format!("{name} = {v}"),
            other => format!("{name} = {other:?}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A fault with its loop values, thread and the events before it.
pub fn describe_fault(fault: &Fault) -> String {
    let mut text = fault.to_string();
    if !fault.history.is_empty() {
        text.push_str("\nlast events:");
        for event in &fault.history {
            text.push_str("\n  ");
            text.push_str(event);
        }
    }
    text
}

/// Whether every function of `module` runs without a fault under the lazy schedule, for each
/// tried value of its integer parameters.
pub fn runs_cleanly(module: &IRModule) -> bool {
    module.functions.iter().all(|func| {
        scalar_assignments(func).iter().all(|scalars| {
            let Ok(inputs) = random_inputs(func, 0, scalars) else { return false };
            tirproof_interp::run(func, &inputs, &RunConfig::default()).is_ok_and(|r| r.outcome.fault().is_none())
        })
    })
}
