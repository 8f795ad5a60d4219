//! The TIR reference interpreter (`tirproof_interp`) as an [`Engine`]: it models every
//! schedule and thread order, and its own errors (an unsupported construct, ill-formed IR,
//! inputs that do not fit, a resource limit) become [`EngineError`]s with the same text.

use tirproof_interp::{run, ExecError, Inputs, Outcome, RunConfig, RunResult};
use tirproof_ir::PrimFunc;

use crate::{Engine, EngineError, Execution};

/// The reference interpreter.
#[derive(Clone, Copy, Debug, Default)]
pub struct Interpreter;

impl Engine for Interpreter {
    fn name(&self) -> &'static str {
        "interpreter"
    }

    fn supports(&self, _config: &RunConfig) -> bool {
        true
    }

    fn run(&self, func: &PrimFunc, inputs: &Inputs, config: &RunConfig) -> Execution {
        match run(func, inputs, config) {
            Ok(RunResult { outcome: Outcome::Completed, outputs, .. }) => Execution::Completed { outputs },
            Ok(RunResult { outcome: Outcome::Fault(fault), outputs, .. }) => Execution::Faulted { fault, outputs },
            Err(error) => Execution::Failed(error.into()),
        }
    }
}

impl From<ExecError> for EngineError {
    fn from(error: ExecError) -> Self {
        match error {
            ExecError::Unsupported(what) => EngineError::Unsupported(what.into()),
            other => EngineError::Refused(other.to_string().into()),
        }
    }
}
