//! The differential comparison of two executions: the closed [`Difference`] between two
//! programs' behaviour, and the [`EngineFailure`] that stops a comparison before it starts.
//!
//! Two executions are equal when neither faults and every output of each is bitwise equal
//! to its namesake on the other side. The sides are examined original first, so a problem of
//! both is reported as the original's.

use std::fmt;

use tirproof_interp::{Fault, Inputs};
use tirproof_ir::PrimFunc;

use crate::{Engine, EngineError, Execution, Outputs, RunConfig, Side};

/// How two programs' runs compare.
#[derive(Clone, Debug, PartialEq)]
pub enum Difference {
    /// Neither faults and every output is bitwise equal.
    Equal,
    /// An output buffer differs at `index` (`None`: the element is past that side's end).
    OutputDiffers { buffer: String, index: usize, original: Option<f64>, transformed: Option<f64> },
    /// `side` lacks an output the other side has.
    OutputMissing { buffer: String, side: Side },
    /// `side`'s program faulted.
    Faulted { side: Side, fault: Fault },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let element = |value: &Option<f64>| value.map_or_else(|| "<none>".to_string(), |v| v.to_string());
        match self {
            Difference::Equal => f.write_str("both programs complete and every output is bitwise equal"),
            Difference::OutputDiffers { buffer, index, original, transformed } => write!(
                f,
                "{buffer}[{index}] differs: {} (original) vs {} (transformed)",
                element(original),
                element(transformed)
            ),
            Difference::OutputMissing { buffer, side } => write!(f, "the {side} program has no output `{buffer}`"),
            Difference::Faulted { side, fault } => write!(f, "the {side} program faults: {fault}"),
        }
    }
}

/// An engine could not run one side, so the sides were not compared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {engine} cannot run the {side} program: {error}")]
pub struct EngineFailure {
    pub side: Side,
    /// The engine's name.
    pub engine: &'static str,
    pub error: EngineError,
}

/// One side of a comparison: a function and the engine that runs it.
#[derive(Clone, Copy)]
pub struct Subject<'a> {
    pub engine: &'a dyn Engine,
    pub func: &'a PrimFunc,
}

/// Both executions of one comparison and how they compare.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Completed or faulted (an engine failure is an [`EngineFailure`] instead).
    pub original: Execution,
    /// Completed or faulted.
    pub transformed: Execution,
    pub difference: Difference,
}

impl Comparison {
    /// The difference, unless the runs are equal.
    pub fn mismatch(&self) -> Option<&Difference> {
        (!matches!(self.difference, Difference::Equal)).then_some(&self.difference)
    }
}

/// Runs both subjects on `inputs` under `config` and compares them.
pub fn compare_runs(
    original: Subject<'_>,
    transformed: Subject<'_>,
    inputs: &Inputs,
    config: &RunConfig,
) -> Result<Comparison, EngineFailure> {
    let a = original.engine.run(original.func, inputs, config);
    let b = transformed.engine.run(transformed.func, inputs, config);
    let engines = |side| match side {
        Side::Original => original.engine.name(),
        Side::Transformed => transformed.engine.name(),
    };
    let difference = diff(&a, &b).map_err(|(side, error)| EngineFailure { side, engine: engines(side), error })?;
    Ok(Comparison { original: a, transformed: b, difference })
}

/// How `original` and `transformed` compare; `Err` with the side and the error when an engine
/// failed on one of them.
pub fn diff(original: &Execution, transformed: &Execution) -> Result<Difference, (Side, EngineError)> {
    let sides = [(Side::Original, original), (Side::Transformed, transformed)];
    for (side, execution) in sides {
        if let Execution::Failed(error) = execution {
            return Err((side, error.clone()));
        }
    }
    for (side, execution) in sides {
        if let Some(fault) = execution.fault() {
            return Ok(Difference::Faulted { side, fault: fault.clone() });
        }
    }
    let empty = Outputs::new();
    let (a, b) = (original.outputs().unwrap_or(&empty), transformed.outputs().unwrap_or(&empty));
    Ok(first_output_difference(a, b).unwrap_or(Difference::Equal))
}

/// The first buffer of `a` that `b` lacks or holds differently, then the first buffer only `b`
/// has.
fn first_output_difference(a: &Outputs, b: &Outputs) -> Option<Difference> {
    for (buffer, expected) in a {
        let Some(actual) = b.get(buffer) else {
            return Some(Difference::OutputMissing { buffer: buffer.clone(), side: Side::Transformed });
        };
        if let Some(index) = expected.first_difference(actual) {
            let (original, transformed) = (expected.get_f64(index), actual.get_f64(index));
            return Some(Difference::OutputDiffers { buffer: buffer.clone(), index, original, transformed });
        }
    }
    let extra = b.keys().find(|buffer| !a.contains_key(*buffer))?;
    Some(Difference::OutputMissing { buffer: extra.clone(), side: Side::Original })
}

#[cfg(test)]
mod tests {
    use tirproof_interp::{FaultKind, Tensor};
    use tirproof_ir::{DataType, Span};

    use super::*;

    fn outputs(buffers: &[(&str, &[f64])]) -> Outputs {
        let tensor = |values: &[f64]| Tensor::from_f64(DataType::FLOAT32, vec![values.len()], values);
        buffers.iter().map(|(name, values)| (name.to_string(), tensor(values).expect("a tensor"))).collect()
    }

    fn completed(buffers: &[(&str, &[f64])]) -> Execution {
        Execution::Completed { outputs: outputs(buffers) }
    }

    fn faulted(kind: FaultKind) -> Execution {
        let fault = Fault {
            kind,
            message: kind.to_string(),
            span: Span::UNKNOWN,
            loop_vars: Vec::new(),
            thread: Vec::new(),
            history: Vec::new(),
        };
        Execution::Faulted { fault, outputs: Outputs::new() }
    }

    fn failed() -> Execution {
        Execution::Failed(EngineError::Unsupported("a call".into()))
    }

    fn faulted_side(difference: Result<Difference, (Side, EngineError)>) -> Option<(Side, FaultKind)> {
        match difference {
            Ok(Difference::Faulted { side, fault }) => Some((side, fault.kind)),
            _ => None,
        }
    }

    #[test]
    fn a_problem_of_both_sides_is_the_originals() {
        let clean = completed(&[("A", &[1.0])]);
        assert_eq!(diff(&failed(), &failed()).map_err(|(side, _)| side), Err(Side::Original));
        assert_eq!(diff(&failed(), &clean).map_err(|(side, _)| side), Err(Side::Original));
        assert_eq!(diff(&clean, &failed()).map_err(|(side, _)| side), Err(Side::Transformed));
        let (oob, race) = (faulted(FaultKind::OutOfBounds), faulted(FaultKind::CrossThreadRace));
        assert_eq!(faulted_side(diff(&oob, &race)), Some((Side::Original, FaultKind::OutOfBounds)));
        assert_eq!(faulted_side(diff(&clean, &race)), Some((Side::Transformed, FaultKind::CrossThreadRace)));
    }

    #[test]
    fn outputs_compare_bitwise_and_by_name() {
        let a = completed(&[("A", &[1.0, 2.0])]);
        assert_eq!(diff(&a, &a.clone()), Ok(Difference::Equal));
        let differs = diff(&a, &completed(&[("A", &[1.0, 2.5])])).expect("both ran");
        assert_eq!(differs.to_string(), "A[1] differs: 2 (original) vs 2.5 (transformed)");
        let missing = diff(&a, &completed(&[("B", &[1.0, 2.0])])).expect("both ran");
        assert_eq!(missing, Difference::OutputMissing { buffer: "A".into(), side: Side::Transformed });
        let extra = diff(&a, &completed(&[("A", &[1.0, 2.0]), ("B", &[0.0])])).expect("both ran");
        assert_eq!(extra.to_string(), "the original program has no output `B`");
    }
}
