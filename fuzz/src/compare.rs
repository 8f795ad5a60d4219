//! Differential execution: run an original and a transformed function on the same inputs and
//! report the first disagreement.
//!
//! This is the equivalence oracle of `tirproof run --reference`, of the pipeline filetests and
//! (later) of the fuzzers: both programs must complete without a fault, and every output
//! buffer must be bitwise equal.

use std::fmt;

use std::collections::BTreeMap;

use tirproof_interp::{random_inputs, run, ExecError, Inputs, Outcome, RunConfig, RunResult, ScalarValue, Schedule};
use tirproof_ir::{IRModule, PrimFunc};

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
) -> Result<Comparison, ExecError> {
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
            let show =
                |t: &tirproof_interp::Tensor| t.get_f64(index).map_or_else(|| "<none>".to_string(), |v| format!("{v}"));
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

/// Values given to every integer scalar parameter in turn: every extent shorter than a deep
/// pipeline (each has its own specialized code), exact fits and the steady state.
pub const SCALAR_VALUES: [i64; 15] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17, 31];

/// Checks that every function of `original` agrees with its namesake in `transformed` on
/// seeded random inputs, under each schedule and two thread orders, for each assignment of
/// the integer scalar parameters. The error says which run disagreed and how.
pub fn check_equivalent(original: &IRModule, transformed: &IRModule, schedules: &[Schedule]) -> Result<(), String> {
    for func in &original.functions {
        let other = transformed
            .get(&func.name)
            .ok_or_else(|| format!("the transformed module has no function `{}`", func.name))?;
        for scalars in scalar_assignments(func, &SCALAR_VALUES) {
            let inputs = random_inputs(func, 0, &scalars).map_err(|e| format!("inputs of `{}`: {e}", func.name))?;
            for &schedule in schedules {
                for thread_order_seed in [None, Some(1)] {
                    let config = RunConfig { schedule, thread_order_seed, ..RunConfig::default() };
                    let outcome = compare(func, other, &inputs, &config)
                        .map_err(|e| format!("the interpreter cannot run `{}`: {e}", func.name))?;
                    if let Some(m) = outcome.mismatch {
                        return Err(format!(
                            "`{}` under {schedule} (thread order {thread_order_seed:?}, scalars {scalars:?}): {m}",
                            func.name
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// One assignment per value in `values` (every integer scalar parameter gets that value), or
/// the one empty assignment when there are none.
pub fn scalar_assignments(func: &PrimFunc, values: &[i64]) -> Vec<BTreeMap<String, ScalarValue>> {
    let ints: Vec<String> =
        func.scalar_params().filter(|v| v.dtype().is_integer()).map(|v| v.name().to_string()).collect();
    if ints.is_empty() {
        return vec![BTreeMap::new()];
    }
    values.iter().map(|&value| ints.iter().map(|name| (name.clone(), ScalarValue::Int(value))).collect()).collect()
}

/// The values of a tensor as a list (`[1, 2.5, ...]`), all of them.
pub fn show_tensor(tensor: &tirproof_interp::Tensor) -> String {
    let values: Vec<String> = if tensor.dtype.is_float() {
        tensor.to_f64_vec().iter().map(|v| format!("{v}")).collect()
    } else {
        tensor.to_i64_vec().iter().map(i64::to_string).collect()
    };
    format!("[{}]", values.join(", "))
}
