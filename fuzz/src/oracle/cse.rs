//! The `cse` oracle: both CSE modes on a program (the pipeline pass's output, with its async
//! scopes, versioned buffers and peeled iterations): every rewrite and binding is proved by Z3,
//! the checker accepts the result, and the interpreter computes the same outputs from it.
//!
//! Z3 validation is translation validation (`tirproof_verify::cse`); an obligation Z3 does not
//! decide is a failure (`cse-unvalidated`), never a pass.
//! Where the semantic e-graph of a function stopped at a limit (egg's stop reason, as
//! `tirproof_passes::stop::Limit`), the messages name it, and so does a skip a spent budget
//! makes of a failure.

use std::time::Duration;

use tirproof_ir::check::check_module;
use tirproof_ir::IRModule;
use tirproof_passes::cse::{eliminate_module_reported, Mode};
use tirproof_passes::stop::Stopped;
use tirproof_verify::cse::validate_module;

use super::{equivalence, Failure, FailureClass, OracleName, Outcome};

pub fn check(program: &IRModule, seed: u64, timeout: Duration) -> Outcome {
    for mode in [Mode::Syntactic, Mode::Semantic] {
        let mut rewritten = program.clone();
        let (stats, stopped) = eliminate_module_reported(&mut rewritten, mode);
        let label = match mode {
            Mode::Syntactic => "cse",
            Mode::Semantic => "cse-semantic",
        };
        let label = &labelled(label, &stopped);
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

/// The pass's name, with the functions whose e-graph stopped at a limit: a failure, and the
/// skip a spent budget makes of it, says what the e-graph had not finished.
fn labelled(pass: &str, stopped: &[Stopped]) -> String {
    if stopped.is_empty() {
        return pass.to_string();
    }
    let stops: Vec<String> = stopped.iter().map(Stopped::to_string).collect();
    format!("{pass} (the e-graph of {})", stops.join(", "))
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

#[cfg(test)]
mod tests {
    use tirproof_passes::stop::Limit;

    use super::*;

    #[test]
    fn a_label_names_the_limits_the_e_graph_stopped_at() {
        assert_eq!(labelled("cse-semantic", &[]), "cse-semantic");
        let stopped = [Stopped { function: "main".into(), limit: Limit::Nodes(12) }];
        assert_eq!(
            labelled("cse-semantic", &stopped),
            "cse-semantic (the e-graph of `main`: stopped at its node limit (12 nodes))"
        );
    }
}
