//! Differential execution: run an original and a transformed function on the same inputs and
//! report the first disagreement.
//!
//! This is the equivalence oracle of `tirproof run --reference`, of the pipeline filetests and
//! (later) of the fuzzers: both programs must complete without a fault, and every output
//! buffer must be bitwise equal.

use std::fmt;

use tirproof_ir::interp::{run, Inputs, InterpError, Outcome, RunConfig, RunResult, Schedule};
use tirproof_ir::PrimFunc;

/// How two runs disagreed.
#[derive(Clone, Debug)]
pub enum Mismatch {
    /// One of the programs faulted.
    Fault { which: &'static str, message: String },
    /// An output buffer differs.
    Output { buffer: String, index: usize, original: String, transformed: String },
    /// The transformed program lacks an output the original has.
    MissingOutput { buffer: String },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Fault { which, message } => write!(f, "the {which} program faults: {message}"),
            Mismatch::Output { buffer, index, original, transformed } => {
                write!(f, "{buffer}[{index}] differs: {original} (original) vs {transformed} (transformed)")
            }
            Mismatch::MissingOutput { buffer } => write!(f, "the transformed program has no output `{buffer}`"),
        }
    }
}

/// Both results of one comparison.
pub struct Comparison {
    pub original: RunResult,
    pub transformed: RunResult,
    pub mismatch: Option<Mismatch>,
}

/// Runs both functions on `inputs` under `config` and compares them.
pub fn compare(
    original: &PrimFunc,
    transformed: &PrimFunc,
    inputs: &Inputs,
    config: &RunConfig,
) -> Result<Comparison, InterpError> {
    let a = run(original, inputs, config)?;
    let b = run(transformed, inputs, config)?;
    let mismatch = first_mismatch(&a, &b);
    Ok(Comparison { original: a, transformed: b, mismatch })
}

fn first_mismatch(a: &RunResult, b: &RunResult) -> Option<Mismatch> {
    for (which, result) in [("original", a), ("transformed", b)] {
        if let Outcome::Fault(fault) = &result.outcome {
            return Some(Mismatch::Fault { which, message: fault.to_string() });
        }
    }
    for (name, expected) in &a.outputs {
        let Some(actual) = b.outputs.get(name) else {
            return Some(Mismatch::MissingOutput { buffer: name.clone() });
        };
        if let Some(index) = expected.first_difference(actual) {
            let show = |t: &tirproof_ir::interp::Tensor| {
                t.get_f64(index).map_or_else(|| "<none>".to_string(), |v| format!("{v}"))
            };
            return Some(Mismatch::Output {
                buffer: name.clone(),
                index,
                original: show(expected),
                transformed: show(actual),
            });
        }
    }
    None
}

/// The schedules every equivalence check runs under: the adversarial one, the synchronous
/// one, and two random ones.
pub fn standard_schedules() -> Vec<Schedule> {
    vec![Schedule::Lazy, Schedule::Eager, Schedule::Random(1), Schedule::Random(2)]
}
