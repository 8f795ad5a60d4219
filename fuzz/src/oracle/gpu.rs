//! The `gpu` oracle: the PTX lowered from a program (as the `ptx` oracle lowers it) computes on
//! the GPU, bit for bit, what the interpreter computes on the original program, for each value
//! of the fast plan's integer parameters.
//!
//! The device decides its own schedule and thread order, so there is one run per input: the
//! interpreter's lazy run with threads in order against the device (see
//! [`GpuEngine`]). Where there is no GPU, the oracle is a skip with
//! the reason ([`SkipReason::Unavailable`]), decided once per process before anything else,
//! so asking for it costs a campaign nothing there. What the interpreter cannot run cleanly,
//! what cannot be lowered, and PTX that faults on the emulator (which the engine checks before
//! launching) are the `equivalence` and `ptx` oracles' to report: skips here. An output that
//! differs is a finding ([`FailureClass::OutputMismatch`]), and so is PTX the device cannot
//! load or run ([`FailureClass::DeviceError`]).

use tirproof_interp::RunConfig;
use tirproof_ir::IRModule;

use super::{Failure, FailureClass, OracleName, Outcome, Side, SkipReason};
use tirproof_exec::compare::{check_modules, Engines, Inequivalence, Plan, FAST_SCALAR_VALUES};
use tirproof_exec::{Difference, EngineError, EngineName, GpuEngine, Interpreter};

/// The runs of the oracle: the engine's one configuration, for each of the fast plan's scalar
/// values.
fn plan(seed: u64) -> Plan {
    let configs = vec![GpuEngine::config(RunConfig::default().fuel)];
    Plan { configs, scalar_values: FAST_SCALAR_VALUES.to_vec(), input_seed: seed }
}

/// Compares the interpreter on every function of `input` with the GPU on its PTX.
pub fn check(input: &IRModule, seed: u64) -> Outcome {
    let gpu = EngineName::Gpu.engine();
    if let Some(why) = gpu.unavailable() {
        return Outcome::Skip(SkipReason::Unavailable(why));
    }
    let engines = Engines { original: &Interpreter, transformed: gpu };
    match check_modules(&plan(seed), engines, input, input) {
        Ok(()) => Outcome::Pass,
        Err(inequivalence) => outcome(&inequivalence),
    }
}

/// What an inequivalence between the interpreter (original side) and the GPU (transformed
/// side) means for this oracle.
fn outcome(inequivalence: &Inequivalence) -> Outcome {
    let fail = |class| Outcome::Fail(Failure::new(OracleName::Gpu, class, inequivalence.to_string()));
    let skip = |why: String| Outcome::Skip(SkipReason::NotApplicable(why));
    match inequivalence {
        Inequivalence::Engine { failure, .. } if failure.side == Side::Original => {
            skip(format!("the interpreter cannot run the program: {}", failure.error))
        }
        Inequivalence::Engine { failure, .. } => match &failure.error {
            EngineError::Unavailable(why) => Outcome::Skip(SkipReason::Unavailable(why.to_string())),
            EngineError::Unsupported(why) => skip(why.to_string()),
            EngineError::Refused(_) => fail(FailureClass::DeviceError),
        },
        Inequivalence::Inputs { .. } | Inequivalence::MissingFunction(_) => skip(inequivalence.to_string()),
        Inequivalence::NoSupportedConfig { .. } => fail(FailureClass::DeviceError),
        Inequivalence::Differs { difference: Difference::Faulted { side: Side::Original, .. }, .. } => {
            skip("the program faults in the interpreter".to_string())
        }
        Inequivalence::Differs { difference: Difference::Faulted { .. }, .. } => {
            skip("the PTX faults on the emulator, so it is not launched (the ptx oracle's to report)".to_string())
        }
        Inequivalence::Differs { .. } => fail(FailureClass::OutputMismatch),
    }
}

#[cfg(test)]
mod tests {
    use tirproof_reader::parse_module;

    use super::*;

    fn copy() -> IRModule {
        let text = "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        B[i] = A[i] + T.float32(1)\n";
        parse_module(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn without_a_gpu_the_oracle_is_a_skip_that_says_why_and_with_one_the_copy_passes() {
        match (GpuEngine::unavailable(), check(&copy(), 0)) {
            (Some(why), Outcome::Skip(SkipReason::Unavailable(reason))) => {
                assert_eq!(why, reason);
                assert!(reason.starts_with("no GPU: "), "{reason}");
                println!("skipped the device comparison: {reason}");
            }
            (None, Outcome::Pass) => {}
            (why, other) => panic!("{why:?}: {other:?}"),
        }
    }

    #[test]
    fn device_failures_and_mismatches_are_findings_of_their_own_class() {
        let trial = tirproof_exec::compare::Trial { config: RunConfig::default(), scalars: Default::default() };
        let key = |outcome: Outcome| outcome.failure().map(|f| f.signature().to_string());
        let refused = Inequivalence::Engine {
            func: "main".into(),
            trial: trial.clone(),
            failure: tirproof_exec::EngineFailure {
                side: Side::Transformed,
                engine: "GPU",
                error: EngineError::Refused("the driver refused the PTX".into()),
            },
        };
        assert_eq!(key(outcome(&refused)).as_deref(), Some("gpu/device-error"));
        let mismatch = Inequivalence::Differs {
            func: "main".into(),
            trial: trial.clone(),
            difference: Difference::OutputDiffers { buffer: "B".into(), index: 0, original: None, transformed: None },
        };
        assert_eq!(key(outcome(&mismatch)).as_deref(), Some("gpu/output-mismatch"));
        let unavailable = Inequivalence::Engine {
            func: "main".into(),
            trial,
            failure: tirproof_exec::EngineFailure {
                side: Side::Transformed,
                engine: "GPU",
                error: EngineError::Unavailable("no GPU: none".into()),
            },
        };
        assert!(matches!(outcome(&unavailable), Outcome::Skip(SkipReason::Unavailable(_))));
    }
}
