//! The `equivalence` oracle: the pass's output computes, bit for bit, what its input computes,
//! and neither faults, under the campaigns' fast plan ([`Plan::fast`]: the lazy, eager and a
//! seeded random schedule, for each value given to the integer parameters, a symbolic extent).
//!
//! The runs are those of the one equivalence driver ([`tirproof_exec::compare`]), with fewer of them
//! than the filetests' thorough plan so that campaigns stay fast; this module maps the
//! driver's [`Inequivalence`] to a failure class, attributing faults and interpreter errors to
//! the side that had them.

use std::collections::BTreeMap;

use tirproof_interp::{random_inputs, Fault, RunConfig, ScalarValue};
use tirproof_ir::{IRModule, PrimFunc};

use super::{Failure, FailureClass, OracleName, Outcome, Side};
use tirproof_exec::compare::{check_functions, check_modules, Engines, Inequivalence, Plan};
use tirproof_exec::{Difference, Engine, Execution, Interpreter};

pub use tirproof_exec::compare::show_scalars;

/// Every assignment of the fast plan's scalar values to the integer scalar parameters (all of
/// them the same value), or the one empty assignment.
pub fn scalar_assignments(func: &PrimFunc) -> Vec<BTreeMap<String, ScalarValue>> {
    Plan::fast(0).scalar_assignments(func)
}

/// Compares every function of `input` with its namesake in `output`.
pub fn check(oracle: OracleName, input: &IRModule, output: &IRModule, seed: u64) -> Outcome {
    match check_modules(&Plan::fast(seed), Engines::interpreter(), input, output) {
        Ok(()) => Outcome::Pass,
        Err(inequivalence) => Outcome::Fail(failure(oracle, &inequivalence)),
    }
}

/// The first disagreement between `func` and `other`, if any.
pub fn check_func(oracle: OracleName, func: &PrimFunc, other: &PrimFunc, seed: u64) -> Option<Failure> {
    let checked = check_functions(&Plan::fast(seed), Engines::interpreter(), func, other);
    checked.err().map(|inequivalence| failure(oracle, &inequivalence))
}

/// The failure of `oracle` that `inequivalence` shows, with the fault as its evidence.
fn failure(oracle: OracleName, inequivalence: &Inequivalence) -> Failure {
    let class = match inequivalence {
        Inequivalence::MissingFunction(_) => FailureClass::OutputMismatch,
        Inequivalence::Inputs { .. } => FailureClass::InterpreterError { side: Side::Original },
        Inequivalence::NoSupportedConfig { side, .. } => FailureClass::InterpreterError { side: *side },
        Inequivalence::Engine { failure, .. } => FailureClass::InterpreterError { side: failure.side },
        Inequivalence::Differs { difference: Difference::Faulted { side, fault }, .. } => {
            FailureClass::Fault { side: *side, kind: fault.kind }
        }
        Inequivalence::Differs { .. } => FailureClass::OutputMismatch,
    };
    let failure = Failure::new(oracle, class, inequivalence.to_string());
    match inequivalence {
        Inequivalence::Differs { difference: Difference::Faulted { fault, .. }, .. } => {
            failure.with_counterexample(describe_fault(fault)).at_line(fault.span.line)
        }
        _ => failure,
    }
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
            matches!(Interpreter.run(func, &inputs, &RunConfig::default()), Execution::Completed { .. })
        })
    })
}

#[cfg(test)]
mod tests {
    use tirproof_reader::parse_module;

    use super::*;

    fn module(body: &str) -> IRModule {
        let text = format!(
            "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    {body}\n"
        );
        parse_module(&text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn class_key(input: &IRModule, output: &IRModule) -> String {
        match check(OracleName::Equivalence, input, output, 0) {
            Outcome::Fail(failure) => failure.signature().to_string(),
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    /// A call the interpreter does not model: running it is an interpreter error.
    const UNSUPPORTED: &str = "A[0] = T.call_pure_extern(\"float32\", \"fast_tanh\", A[1])";
    const CLEAN: &str = "A[0] = A[1]";
    const OUT_OF_BOUNDS: &str = "A[0] = A[4]";

    #[test]
    fn an_interpreter_error_of_the_input_is_the_inputs() {
        assert_eq!(class_key(&module(UNSUPPORTED), &module(CLEAN)), "equivalence/interpreter-error:input");
        assert_eq!(class_key(&module(UNSUPPORTED), &module(UNSUPPORTED)), "equivalence/interpreter-error:input");
        assert_eq!(class_key(&module(CLEAN), &module(UNSUPPORTED)), "equivalence/interpreter-error:output");
    }

    #[test]
    fn a_fault_is_attributed_to_the_side_that_faults() {
        assert_eq!(class_key(&module(OUT_OF_BOUNDS), &module(CLEAN)), "equivalence/fault:input:out-of-bounds");
        assert_eq!(class_key(&module(OUT_OF_BOUNDS), &module(OUT_OF_BOUNDS)), "equivalence/fault:input:out-of-bounds");
        assert_eq!(class_key(&module(CLEAN), &module(OUT_OF_BOUNDS)), "equivalence/fault:output:out-of-bounds");
    }
}
