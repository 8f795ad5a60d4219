//! The GPU as an [`Engine`]: a TIR function lowered to PTX exactly as the [`PtxEmulator`]
//! lowers it, then loaded through the driver's JIT and run on the device
//! (`tirproof_gpu`), its buffers coming back as [`Outputs`].
//!
//! A real GPU decides its own schedule of async completions and its own order of threads, so
//! no [`RunConfig`] can be honoured in the sense the interpreter honours one. The engine accepts
//! one configuration: the lazy schedule with threads in order, the interpreter's reference
//! run. A program the interpreter runs cleanly under it waits for every copy before reading
//! it and has no race, so every schedule and thread order, the device's included, computes its
//! outputs; comparing the device with that run is what makes sense. The fuel is ignored (the
//! device has its own timeout, `tirproof_gpu::DEFAULT_TIMEOUT`).
//!
//! Before launching, the kernel runs on the PTX emulator: a kernel that faults there (out of
//! bounds, say) is not launched, since on the device its behaviour is undefined and an illegal
//! address ends the process's use of the device; the run is then [`Execution::Faulted`] with
//! the emulator's fault. Without a GPU every run is [`EngineError::Unavailable`] with the
//! reason, found once per process and before any lowering, so it costs nothing.

use tirproof_interp::{Inputs, Schedule};
use tirproof_ir::PrimFunc;
use tirproof_ptx::module::Module;
use tirproof_ptx::Arch;

use super::ptx::{kernel_args, outputs_of};
use super::PtxEmulator;
use crate::{ConfigRefused, Engine, EngineError, Execution, RunConfig};
use tirproof_ptx::LoweredKernel;

/// The GPU of this process, on the PTX lowered for `arch`.
#[derive(Clone, Copy, Debug)]
pub struct GpuEngine {
    pub arch: Arch,
}

impl Default for GpuEngine {
    fn default() -> Self {
        GpuEngine { arch: PtxEmulator::default().arch }
    }
}

impl GpuEngine {
    /// The one configuration the engine accepts (see the module's documentation), with `fuel`
    /// for the interpreter and the guarding emulator.
    pub fn config(fuel: u64) -> RunConfig {
        RunConfig { schedule: Schedule::Lazy, thread_order_seed: None, fuel }
    }

    /// Why there is no GPU to run on, or `None` when there is one.
    pub fn unavailable() -> Option<String> {
        tirproof_gpu::unavailable().map(|e| e.to_string())
    }
}

impl Engine for GpuEngine {
    /// Runs an already lowered kernel (for this engine's architecture) on `inputs`: first on
    /// the emulator, then, when it ran cleanly there, on the device.
    fn run_lowered(&self, lowered: &LoweredKernel, inputs: &Inputs, config: &RunConfig) -> Execution {
        let gpu = match tirproof_gpu::gpu() {
            Ok(gpu) => gpu,
            Err(error) => return Execution::Failed(EngineError::Unavailable(error.to_string().into())),
        };
        let emulator = PtxEmulator { arch: self.arch };
        match emulator.run_lowered(lowered, inputs, config) {
            Execution::Completed { .. } => {}
            guarded @ (Execution::Faulted { .. } | Execution::Failed(_)) => return guarded,
        }
        let args = match kernel_args(&lowered.func, inputs) {
            Ok(args) => args,
            Err(error) => return Execution::Failed(error),
        };
        let module = Module { arch: self.arch, kernels: vec![lowered.kernel.clone()] };
        let ran = gpu.load(&module).and_then(|loaded| match loaded.first() {
            Some(kernel) => gpu.run(kernel, &args),
            None => Ok(Vec::new()),
        });
        match ran {
            Ok(buffers) => Execution::Completed { outputs: outputs_of(&lowered.func, buffers) },
            Err(tirproof_gpu::GpuError::NoGpu { reason }) => Execution::Failed(EngineError::Unavailable(reason.into())),
            Err(error) => {
                Execution::Failed(EngineError::Refused(format!("on the GPU ({}): {error}", gpu.name()).into()))
            }
        }
    }

    fn name(&self) -> &'static str {
        "GPU"
    }

    fn supports(&self, config: &RunConfig) -> bool {
        config.schedule == Schedule::Lazy && config.thread_order_seed.is_none()
    }

    /// The one configuration it accepts, with the requested fuel; a schedule other than the
    /// lazy one (the default) is refused, since the device decides its own.
    fn configure(&self, requested: RunConfig) -> Result<RunConfig, ConfigRefused> {
        if requested.schedule != Schedule::Lazy {
            return Err(ConfigRefused::Schedule("the GPU decides its own schedule".into()));
        }
        Ok(GpuEngine::config(requested.fuel))
    }

    fn unavailable(&self) -> Option<String> {
        GpuEngine::unavailable()
    }

    fn ptx_target(&self) -> Option<Arch> {
        Some(self.arch)
    }

    fn run(&self, func: &PrimFunc, inputs: &Inputs, config: &RunConfig) -> Execution {
        if let Err(error) = tirproof_gpu::gpu() {
            return Execution::Failed(EngineError::Unavailable(error.to_string().into()));
        }
        match (PtxEmulator { arch: self.arch }).lower(func) {
            Ok(lowered) => self.run_lowered(&lowered, inputs, config),
            Err(error) => Execution::Failed(error),
        }
    }
}
