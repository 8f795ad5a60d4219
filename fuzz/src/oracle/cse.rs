//! The `cse` oracle: both CSE modes on a program (the pipeline pass's output, with its async
//! scopes, versioned buffers and peeled iterations): every rewrite and binding is proved by Z3,
//! the checker accepts the result, and the interpreter computes the same outputs from it.
//!
//! Z3 validation is translation validation (`tirproof_verify::cse`); an obligation Z3 does not
//! decide is a failure (`cse-unvalidated`), never a pass.

use std::time::Duration;

use tirproof_ir::check::check_module;
use tirproof_ir::IRModule;
use tirproof_passes::cse::{eliminate_module, Mode};
use tirproof_verify::cse::validate_module;

use super::{equivalence, Failure, FailureClass, OracleName, Outcome};

pub fn check(program: &IRModule, seed: u64, timeout: Duration) -> Outcome {
    for mode in [Mode::Syntactic, Mode::Semantic] {
        let mut rewritten = program.clone();
        let stats = eliminate_module(&mut rewritten, mode);
        let label = match mode {
            Mode::Syntactic => "cse",
            Mode::Semantic => "cse-semantic",
        };
        let diags = check_module(&rewritten);
        if diags.has_errors() {
            let message = format!("the checker rejects the output of {label}: {diags}");
            return Outcome::Fail(Failure::new(OracleName::Cse, FailureClass::CseMismatch, message));
        }
        if let Some(failure) = validation_failure(program, &rewritten, label, timeout) {
            return Outcome::Fail(failure);
        }
        for func in &program.functions {
            let Some(other) = rewritten.get(&func.name) else { continue };
            if let Some(mut failure) = equivalence::check_func(OracleName::Cse, func, other, seed) {
                failure.message = format!("{label} ({stats:?}): {}", failure.message);
                failure.class = FailureClass::CseMismatch;
                return Outcome::Fail(failure);
            }
        }
    }
    Outcome::Pass
}

fn validation_failure(program: &IRModule, rewritten: &IRModule, label: &str, timeout: Duration) -> Option<Failure> {
    for report in validate_module(program, rewritten, timeout) {
        if let Some(obligation) = report.failures().next() {
            let message = format!("{label} on `{}`: a rewrite is not proved", report.function);
            let failure = Failure::new(OracleName::Cse, FailureClass::CseUnvalidated, message);
            let spent = obligation.verdict.is_budget_spent();
            return Some(failure.with_counterexample(obligation.to_string()).with_budget_spent(spent));
        }
    }
    None
}
