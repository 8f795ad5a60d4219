//! Execution engines behind one trait, and the differential comparison of two executions.
//!
//! An [`Engine`] runs a function on inputs under a [`RunConfig`] and answers with a closed
//! [`Execution`]: completed with its outputs, faulted with the fault and the outputs so far,
//! or failed with an [`EngineError`] (the engine could not run it at all). The TIR reference
//! interpreter ([`Interpreter`]) is the first engine; the PTX emulator ([`PtxEmulator`]) and
//! the GPU ([`GpuEngine`]) fit the same trait, since it says nothing about how an engine
//! executes.
//!
//! [`compare_runs`] runs two [`Subject`]s (two engines on one function, or one engine on two
//! functions) on the same inputs and classifies them with the closed [`Difference`]: an
//! engine failure is an error naming its [`Side`], never a difference of the programs.
//! Invariants: the original side is examined before the transformed one, so when both sides
//! fail or fault, the original's problem is the one reported.

mod diff;
mod gpu;
mod interp;
mod ptx;

use std::collections::BTreeMap;
use std::fmt;

use tirproof_interp::{Fault, Inputs, RunConfig, Tensor};
use tirproof_ir::PrimFunc;

pub use diff::{compare_runs, diff, Comparison, Difference, EngineFailure, Subject};
pub use gpu::GpuEngine;
pub use interp::Interpreter;
pub use ptx::{LoweredKernel, PtxEmulator};

/// The final contents of every parameter buffer, by buffer name.
pub type Outputs = BTreeMap<String, Tensor>;

/// Something that runs functions: an interpreter, an emulator, a device.
pub trait Engine {
    /// What messages call it (`interpreter`).
    fn name(&self) -> &'static str;

    /// Whether it honours `config` (its schedule of async completions and its thread order);
    /// plans run a configuration only on engines that support it.
    fn supports(&self, config: &RunConfig) -> bool;

    /// Runs `func` on `inputs` under `config`.
    fn run(&self, func: &PrimFunc, inputs: &Inputs, config: &RunConfig) -> Execution;
}

/// What one run of an engine gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Execution {
    /// The function ran to its end.
    Completed { outputs: Outputs },
    /// The program faulted; the outputs are the buffers' contents at the fault.
    Faulted { fault: Fault, outputs: Outputs },
    /// The engine could not run the function.
    Failed(EngineError),
}

impl Execution {
    /// The program's fault, if it faulted.
    pub fn fault(&self) -> Option<&Fault> {
        match self {
            Execution::Faulted { fault, .. } => Some(fault),
            Execution::Completed { .. } | Execution::Failed(_) => None,
        }
    }

    /// The outputs, unless the engine failed.
    pub fn outputs(&self) -> Option<&Outputs> {
        match self {
            Execution::Completed { outputs } | Execution::Faulted { outputs, .. } => Some(outputs),
            Execution::Failed(_) => None,
        }
    }
}

/// Why an engine could not run a function (the program's own faults are not errors).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The engine does not model a construct of the program or a setting of the configuration.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The engine cannot run on this machine (no device, no toolchain).
    #[error("not available: {0}")]
    Unavailable(String),
    /// Any other refusal of the engine: ill-formed IR, inputs that do not fit, a resource
    /// limit; the text is the engine's own.
    #[error("{0}")]
    Refused(String),
}

/// Which of the two compared sides. In the oracles the original is the pipeline pass's input
/// and the transformed side its output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    Original,
    Transformed,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::Original, Side::Transformed];

    pub fn name(self) -> &'static str {
        match self {
            Side::Original => "original",
            Side::Transformed => "transformed",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
