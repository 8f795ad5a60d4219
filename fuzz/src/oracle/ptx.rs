//! The `ptx` oracle: the PTX lowered from a program (the pipeline pass and the lowering
//! passes, then codegen) computes on the emulator, bit for bit, what the interpreter computes
//! on the original program, under the lazy, eager and a seeded random schedule, for each value
//! of the fast plan's integer parameters.
//!
//! What the interpreter cannot run cleanly on its own is the `equivalence` oracle's to report,
//! so here it is a skip; so is a program that cannot be lowered (with the reason) or that uses
//! a construct the emulator does not model. A fault under the emulator where the interpreter
//! runs clean is a finding ([`FailureClass::EmulatorFault`]), as is an output that differs and
//! any other refusal of the emulator ([`FailureClass::EmulatorError`]).

use tirproof_interp::{RunConfig, Schedule};
use tirproof_ir::IRModule;

use super::equivalence::describe_fault;
use super::{Failure, FailureClass, OracleName, Outcome, Side, SkipReason};
use tirproof_exec::compare::{check_modules, Engines, Inequivalence, Plan, FAST_SCALAR_VALUES};
use tirproof_exec::{Difference, EngineError, EngineName, Interpreter};

/// The runs of the oracle: the fast plan's schedules and scalar values, with threads in order
/// (the only order the emulator runs them in).
fn plan(seed: u64) -> Plan {
    let configs = [Schedule::Lazy, Schedule::Eager, Schedule::Random(seed)]
        .map(|schedule| RunConfig { schedule, ..RunConfig::default() })
        .to_vec();
    Plan { configs, scalar_values: FAST_SCALAR_VALUES.to_vec(), input_seed: seed }
}

/// Compares the interpreter on every function of `input` with the emulator on its PTX.
pub fn check(input: &IRModule, seed: u64) -> Outcome {
    let engines = Engines { original: &Interpreter, transformed: EngineName::Ptx.engine() };
    match check_modules(&plan(seed), engines, input, input) {
        Ok(()) => Outcome::Pass,
        Err(inequivalence) => outcome(&inequivalence),
    }
}

/// What an inequivalence between the interpreter (original side) and the emulator
/// (transformed side) means for this oracle.
fn outcome(inequivalence: &Inequivalence) -> Outcome {
    let fail = |class| Failure::new(OracleName::Ptx, class, inequivalence.to_string());
    let skip = |why: String| Outcome::Skip(SkipReason::NotApplicable(why));
    match inequivalence {
        Inequivalence::Engine { failure, .. } if failure.side == Side::Original => {
            skip(format!("the interpreter cannot run the program: {}", failure.error))
        }
        Inequivalence::Engine { failure, .. } => match &failure.error {
            EngineError::Unsupported(why) => skip(why.to_string()),
            EngineError::Unavailable(_) | EngineError::Refused(_) => Outcome::Fail(fail(FailureClass::EmulatorError)),
        },
        Inequivalence::Inputs { .. } | Inequivalence::MissingFunction(_) => skip(inequivalence.to_string()),
        Inequivalence::NoSupportedConfig { .. } => Outcome::Fail(fail(FailureClass::EmulatorError)),
        Inequivalence::Differs { difference: Difference::Faulted { side: Side::Original, .. }, .. } => {
            skip("the program faults in the interpreter".to_string())
        }
        Inequivalence::Differs { difference: Difference::Faulted { fault, .. }, .. } => {
            let failure = fail(FailureClass::EmulatorFault { kind: fault.kind });
            Outcome::Fail(failure.with_counterexample(describe_fault(fault)))
        }
        Inequivalence::Differs { .. } => Outcome::Fail(fail(FailureClass::OutputMismatch)),
    }
}

#[cfg(test)]
mod tests {
    use tirproof_reader::parse_module;

    use super::*;

    fn module(params: &str, body: &str) -> IRModule {
        let text = format!(
            "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main({params}):\n    {}\n",
            body.replace('\n', "\n    ")
        );
        parse_module(&text).unwrap_or_else(|e| panic!("{e}"))
    }

    const BUFFERS: &str = "A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")";

    #[test]
    fn a_program_that_lowers_runs_equal_under_every_schedule() {
        let copy = module(BUFFERS, "for i in range(4):\n    B[i] = A[i] + T.float32(1)");
        assert!(matches!(check(&copy, 3), Outcome::Pass), "{:?}", check(&copy, 3));
    }

    #[test]
    fn a_program_that_cannot_be_lowered_is_a_skip_with_the_reason() {
        let call = module(BUFFERS, "B[0] = T.tanh(A[0])");
        match check(&call, 0) {
            Outcome::Skip(SkipReason::NotApplicable(why)) => assert!(why.contains("lowered"), "{why}"),
            other => panic!("expected a skip, got {other:?}"),
        }
    }

    #[test]
    fn a_program_that_faults_in_the_interpreter_is_a_skip() {
        let out_of_bounds = module(BUFFERS, "B[0] = A[4]");
        assert!(matches!(check(&out_of_bounds, 0), Outcome::Skip(_)));
    }

    #[test]
    fn emulator_faults_and_mismatches_are_findings_of_their_own_class() {
        let fault = tirproof_interp::Fault {
            kind: tirproof_interp::FaultKind::ReadPendingAsync,
            message: "read".into(),
            span: tirproof_ir::Span::UNKNOWN,
            loop_vars: Vec::new(),
            thread: Vec::new(),
            history: Vec::new(),
        };
        let trial = tirproof_exec::compare::Trial { config: RunConfig::default(), scalars: Default::default() };
        let differs = |difference| Inequivalence::Differs { func: "main".into(), trial: trial.clone(), difference };
        let key = |outcome: Outcome| outcome.failure().map(|f| f.signature().to_string());
        let faulted = differs(Difference::Faulted { side: Side::Transformed, fault });
        assert_eq!(key(outcome(&faulted)).as_deref(), Some("ptx/emulator-fault:read-pending-async"));
        let mismatch =
            differs(Difference::OutputDiffers { buffer: "B".into(), index: 0, original: None, transformed: None });
        assert_eq!(key(outcome(&mismatch)).as_deref(), Some("ptx/output-mismatch"));
    }
}
