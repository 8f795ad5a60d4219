//! tirproof-exec: the execution engines behind one trait, and the comparison of two runs.
//!
//! An [`Engine`] runs a function on inputs under a [`RunConfig`] (the machine's one run
//! configuration: schedule, thread order, fuel) and answers with a closed [`Execution`]:
//! completed with its outputs, faulted with the fault and the outputs so far, or failed with
//! an [`EngineError`] (the engine could not run it at all; where the reason points into the
//! program, its [`Reason`] carries located diagnostics). The engines are registered in one
//! place, [`engines`]: the reference interpreter, the PTX emulator and the GPU, each named by
//! the closed [`EngineName`]; nothing in the trait is particular to how an engine executes.
//!
//! [`compare_runs`] runs two [`Subject`]s (two engines on one function, or one engine on two
//! functions) on the same inputs and classifies them with the closed [`Difference`]: an
//! engine failure is an error naming its [`Side`], never a difference of the programs.
//! [`compare`] is the equivalence driver over a plan of such runs.
//!
//! Invariants: the original side is examined before the transformed one, so when both sides
//! fail or fault, the original's problem is the one reported. Nothing here prints, fuzzes or
//! knows the command line.

pub mod compare;
mod diff;
pub mod engines;

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Deref;

use tirproof_interp::{Fault, Inputs, Tensor};
use tirproof_ir::{Diagnostics, PrimFunc};
use tirproof_ptx::Arch;

pub use diff::{compare_runs, diff, Comparison, Difference, EngineFailure, Subject};
pub use engines::{EngineName, GpuEngine, Interpreter, LoweredKernel, PtxEmulator, UnknownEngine};
pub use tirproof_machine::RunConfig;

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

    /// The configuration a caller's `requested` one becomes on this engine: itself, unless the
    /// engine decides part of it on its own (the GPU: its schedule and thread order); a
    /// requested schedule it cannot honour is refused with the reason.
    fn configure(&self, requested: RunConfig) -> Result<RunConfig, ConfigRefused> {
        Ok(requested)
    }

    /// Why the engine cannot run on this machine at all (no device), found before any work;
    /// `None` where it can.
    fn unavailable(&self) -> Option<String> {
        None
    }

    /// The PTX target the engine lowers functions for, when it runs PTX.
    fn ptx_target(&self) -> Option<Arch> {
        None
    }

    /// Runs a kernel already lowered for [`Engine::ptx_target`] on `inputs` (keyed by the
    /// buffer and scalar parameters' names) under `config`; an engine that runs no PTX refuses.
    fn run_lowered(&self, lowered: &LoweredKernel, inputs: &Inputs, config: &RunConfig) -> Execution {
        let _ = (lowered, inputs, config);
        Execution::Failed(EngineError::Refused(format!("{} runs no PTX", self.name()).into()))
    }
}

/// A PTX engine on one kernel its caller lowered already (the command that renders a lowering
/// failure against the source lowers once, then runs that kernel): it runs the kernel whatever
/// function it is given, which must be the one the kernel was lowered from.
pub struct Prelowered<'a> {
    pub kernel: LoweredKernel,
    pub engine: &'a dyn Engine,
}

impl Engine for Prelowered<'_> {
    fn name(&self) -> &'static str {
        self.engine.name()
    }

    fn supports(&self, config: &RunConfig) -> bool {
        self.engine.supports(config)
    }

    fn run(&self, _lowered_from: &PrimFunc, inputs: &Inputs, config: &RunConfig) -> Execution {
        self.engine.run_lowered(&self.kernel, inputs, config)
    }

    fn configure(&self, requested: RunConfig) -> Result<RunConfig, ConfigRefused> {
        self.engine.configure(requested)
    }

    fn unavailable(&self) -> Option<String> {
        self.engine.unavailable()
    }

    fn ptx_target(&self) -> Option<Arch> {
        self.engine.ptx_target()
    }
}

/// A requested configuration an engine cannot honour.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigRefused {
    /// The engine decides its own schedule (the text says so).
    #[error("{0}")]
    Schedule(String),
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
    Unsupported(Reason),
    /// The engine cannot run on this machine (no device, no toolchain).
    #[error("not available: {0}")]
    Unavailable(Reason),
    /// Any other refusal of the engine: ill-formed IR, inputs that do not fit, a resource
    /// limit; the text is the engine's own.
    #[error("{0}")]
    Refused(Reason),
}

impl EngineError {
    /// The reason, whatever the kind of error.
    pub fn reason(&self) -> &Reason {
        match self {
            EngineError::Unsupported(reason) | EngineError::Unavailable(reason) | EngineError::Refused(reason) => {
                reason
            }
        }
    }
}

/// An engine's reason for an [`EngineError`]: its message and, where the reason is a place in
/// the program (a construct that cannot be lowered, say), the located diagnostics to render
/// against the program's source. It reads as its message (`Deref<Target = str>`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reason {
    pub message: String,
    /// Empty when the reason points nowhere in the program.
    pub diagnostics: Diagnostics,
}

impl Reason {
    /// A reason located by `diagnostics`.
    pub fn located(message: impl Into<String>, diagnostics: Diagnostics) -> Self {
        Reason { message: message.into(), diagnostics }
    }
}

impl From<String> for Reason {
    fn from(message: String) -> Self {
        Reason { message, diagnostics: Diagnostics::default() }
    }
}

impl From<&str> for Reason {
    fn from(message: &str) -> Self {
        Reason::from(message.to_string())
    }
}

impl Deref for Reason {
    type Target = str;

    fn deref(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
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
