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
//! the emulator's fault. A fault of ordering alone (a race, a read or write of a location a
//! copy has pending, a read of memory never written, a group never waited for) touches only
//! the kernel's own buffers, so such a kernel is launched all the same and its result
//! discarded: tools that watch the device, such as compute-sanitizer's race checker, then see
//! the execution the emulator refused, and the two verdicts can be compared. Without a GPU every run is [`EngineError::Unavailable`] with the
//! reason, found once per process and before any lowering, so it costs nothing.

use tirproof_interp::{Inputs, Schedule};
use tirproof_ir::PrimFunc;
use tirproof_machine::FaultKind;
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

/// Whether a kernel that faulted with `kind` on the emulator stays within its own buffers
/// on the device: its fault is one of ordering, not of addressing, arithmetic or control.
fn memory_safe(kind: FaultKind) -> bool {
    match kind {
        FaultKind::ReadPoison
        | FaultKind::ReadPendingAsync
        | FaultKind::WritePendingAsync
        | FaultKind::CrossThreadRace
        | FaultKind::RedundantStore
        | FaultKind::CrossBlockRace
        | FaultKind::WarpStoreConflict
        | FaultKind::UnwaitedGroup => true,
        // Addressing, arithmetic and control: undefined on the device, or a hang.
        FaultKind::OutOfBounds
        | FaultKind::DivisionByZero
        | FaultKind::NegativeWait
        | FaultKind::BarrierDivergence
        | FaultKind::FuelExhausted
        | FaultKind::InvalidCast
        | FaultKind::ShiftOutOfRange
        | FaultKind::NegativeExtent
        | FaultKind::TokenWait => false,
    }
}

/// Loads `lowered` on the device and runs it on `inputs`.
fn launch(gpu: &tirproof_gpu::Gpu, arch: Arch, lowered: &LoweredKernel, inputs: &Inputs) -> Execution {
    let args = match kernel_args(&lowered.func, inputs) {
        Ok(args) => args,
        Err(error) => return Execution::Failed(error),
    };
    let module = Module { arch, kernels: vec![lowered.kernel.clone()] };
    let ran = gpu.load(&module).and_then(|loaded| match loaded.first() {
        Some(kernel) => gpu.run(kernel, &args),
        None => Ok(Vec::new()),
    });
    match ran {
        Ok(buffers) => Execution::Completed { outputs: outputs_of(&lowered.func, buffers) },
        Err(tirproof_gpu::GpuError::NoGpu { reason }) => Execution::Failed(EngineError::Unavailable(reason.into())),
        Err(error) => Execution::Failed(EngineError::Refused(format!("on the GPU ({}): {error}", gpu.name()).into())),
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
            Execution::Faulted { fault, outputs } if memory_safe(fault.kind) => {
                // Launched for whatever watches the device; the verdict stays the emulator's.
                let _launched = launch(gpu, self.arch, lowered, inputs);
                return Execution::Faulted { fault, outputs };
            }
            guarded @ (Execution::Faulted { .. } | Execution::Failed(_)) => return guarded,
        }
        launch(gpu, self.arch, lowered, inputs)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel that may leave its buffers, divide by zero or hang is never launched; a kernel
    /// whose fault is one of ordering (what compute-sanitizer's race checker looks at) is.
    #[test]
    fn only_faults_of_ordering_are_launched() {
        let launched: Vec<FaultKind> = FaultKind::ALL.into_iter().filter(|&kind| memory_safe(kind)).collect();
        for never in
            [FaultKind::OutOfBounds, FaultKind::DivisionByZero, FaultKind::BarrierDivergence, FaultKind::FuelExhausted]
        {
            assert!(!launched.contains(&never), "{never:?} would be launched");
        }
        for ordering in [FaultKind::CrossThreadRace, FaultKind::CrossBlockRace, FaultKind::ReadPendingAsync] {
            assert!(launched.contains(&ordering), "{ordering:?} would not be launched");
        }
    }
}
