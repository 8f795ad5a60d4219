//! The PTX emulator (`tirproof_ptx::emu`) as an [`Engine`]: it runs a TIR function the way the
//! GPU would, through the whole PTX path: the lowering pipeline (software pipelining
//! included), codegen, then the emulator on the generated kernel.
//!
//! It honours every schedule but only threads in order (the emulator runs the threads of a
//! block by index between barriers). A function that cannot be lowered (with the located
//! diagnostics of the pass or the statement that stopped it), or a construct the
//! emulator does not model, is [`EngineError::Unsupported`] with the reason; any other
//! refusal of the emulator is [`EngineError::Refused`]. Faults are the machine's, so they
//! compare with the interpreter's by kind. Outputs are named after the lowered function's
//! buffer parameters, which keep the original's names.

use tirproof_interp::{Inputs, Tensor};
use tirproof_ir::{Diagnostics, PrimFunc};
use tirproof_machine::value::Num;
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuError, EmuOutcome, KernelArg};
pub use tirproof_ptx::LoweredKernel;
use tirproof_ptx::{lower_kernel, Arch, KernelError, PrepareError};

use super::DEFAULT_ARCH;
use crate::{Engine, EngineError, Execution, Outputs, Reason, RunConfig};

/// How many PTX instructions the emulator may execute per TIR statement of the interpreter's
/// fuel: one statement is an address computation, a load and a store at least.
const INSTRUCTIONS_PER_STATEMENT: u64 = 64;

/// The PTX emulator on the PTX lowered for `arch`.
#[derive(Clone, Copy, Debug)]
pub struct PtxEmulator {
    pub arch: Arch,
}

impl Default for PtxEmulator {
    fn default() -> Self {
        PtxEmulator { arch: DEFAULT_ARCH }
    }
}

impl PtxEmulator {
    /// Lowers `func` (alone in a module) through the lowering pipeline and codegen
    /// (`tirproof_ptx::lower_kernel`); the reason when it cannot be.
    pub fn lower(&self, func: &PrimFunc) -> Result<LoweredKernel, EngineError> {
        lower_kernel(func, self.arch, None).map_err(|error| {
            let diagnostics = match &error {
                KernelError::Prepare(PrepareError::Pipeline(pipeline)) => pipeline.diagnostics().clone(),
                KernelError::Lower(lower) => lower.to_diagnostic().into(),
                KernelError::Prepare(_) | KernelError::Print(_) | KernelError::NoKernel(_) => Diagnostics::default(),
            };
            match error {
                KernelError::NoKernel(_) => EngineError::Refused(error.to_string().into()),
                other => {
                    EngineError::Unsupported(Reason::located(format!("cannot be lowered to PTX: {other}"), diagnostics))
                }
            }
        })
    }
}

/// The buffers after a run of the kernel lowered from `func` (in parameter order, `None` for
/// scalars), by the names of `func`'s buffer parameters.
pub(crate) fn outputs_of(func: &PrimFunc, buffers: Vec<Option<Tensor>>) -> Outputs {
    func.params
        .iter()
        .zip(buffers)
        .filter_map(|(param, tensor)| Some((param.buffer.as_ref()?.name().to_string(), tensor?)))
        .collect()
}

/// The kernel's arguments, in parameter order, from the interpreter's inputs.
pub fn kernel_args(func: &PrimFunc, inputs: &Inputs) -> Result<Vec<KernelArg>, EngineError> {
    let missing = |name: &str| EngineError::Refused(format!("no input for the parameter `{name}`").into());
    func.params
        .iter()
        .map(|param| match &param.buffer {
            Some(buffer) => {
                inputs.buffers.get(buffer.name()).cloned().map(KernelArg::Buffer).ok_or_else(|| missing(buffer.name()))
            }
            None => {
                let name = param.var.name();
                let num = Num::of(param.var.dtype()).ok_or_else(|| {
                    EngineError::Unsupported(format!("a scalar parameter of {}", param.var.dtype()).into())
                })?;
                let value = inputs.scalars.get(name).ok_or_else(|| missing(name))?;
                Ok(KernelArg::Scalar(value.to_bits(num)))
            }
        })
        .collect()
}

impl From<EmuError> for EngineError {
    fn from(error: EmuError) -> Self {
        match error {
            EmuError::Unsupported(what) => EngineError::Unsupported(what.into()),
            at @ EmuError::UnsupportedAt { .. } => EngineError::Unsupported(at.to_string().into()),
            other => EngineError::Refused(other.to_string().into()),
        }
    }
}

impl Engine for PtxEmulator {
    /// Runs an already lowered kernel on `inputs` (keyed by the buffer and scalar parameters'
    /// names) under `config`.
    fn run_lowered(&self, lowered: &LoweredKernel, inputs: &Inputs, config: &RunConfig) -> Execution {
        let args = match kernel_args(&lowered.func, inputs) {
            Ok(args) => args,
            Err(error) => return Execution::Failed(error),
        };
        let fuel = config.fuel.saturating_mul(INSTRUCTIONS_PER_STATEMENT);
        let emu_config = EmuConfig { schedule: config.schedule, thread_order_seed: config.thread_order_seed, fuel };
        let result = match run_kernel(&lowered.kernel, Some(&lowered.lines), &args, &emu_config) {
            Ok(result) => result,
            Err(error) => return Execution::Failed(error.into()),
        };
        let outputs = outputs_of(&lowered.func, result.buffers);
        match result.outcome {
            EmuOutcome::Completed => Execution::Completed { outputs },
            EmuOutcome::Fault(fault) => Execution::Faulted { fault: *fault, outputs },
        }
    }

    fn name(&self) -> &'static str {
        "PTX emulator"
    }

    fn supports(&self, config: &RunConfig) -> bool {
        config.thread_order_seed.is_none()
    }

    fn ptx_target(&self) -> Option<Arch> {
        Some(self.arch)
    }

    fn run(&self, func: &PrimFunc, inputs: &Inputs, config: &RunConfig) -> Execution {
        match self.lower(func) {
            Ok(lowered) => self.run_lowered(&lowered, inputs, config),
            Err(error) => Execution::Failed(error),
        }
    }
}
