//! The GPU of this process: found once, shared by every thread.
//!
//! [`gpu`] opens device 0 the first time it is asked and remembers the answer, a usable
//! [`Gpu`] or the [`GpuError::NoGpu`] that says why there is none, so that asking again (once
//! per program of a campaign) costs nothing. `TIRPROOF_GPU=off` makes it answer "no GPU" on any
//! machine, for testing what users without one see.
//!
//! Invariants: nothing here panics on a machine without the driver library or a device (the
//! library's presence is asked before any call of the bindings); runs on the device are
//! serialized (one at a time per process), so a device error belongs to the run that saw it.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use cudarc::driver::{CudaContext, CudaStream};

use crate::error::GpuError;
use crate::ffi::driver_library_present;

/// The environment variable that turns the GPU off (`TIRPROOF_GPU=off`).
pub const GPU_SWITCH: &str = "TIRPROOF_GPU";

/// How long a kernel may run before the runner gives up on it; corpus and generated programs
/// take milliseconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// An opened device: its context, the stream runs go on, and its name.
#[derive(Debug)]
pub struct Gpu {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    name: String,
    compute_capability: (i32, i32),
    /// Held for the whole of each run.
    busy: Mutex<()>,
    /// How long a kernel may run.
    pub timeout: Duration,
}

impl Gpu {
    /// Opens device 0, or says why there is no usable GPU.
    pub fn open() -> Result<Gpu, GpuError> {
        let no_gpu = |reason: String| GpuError::NoGpu { reason };
        if std::env::var(GPU_SWITCH).is_ok_and(|v| v == "off") {
            return Err(no_gpu(format!("turned off by {GPU_SWITCH}=off")));
        }
        if !driver_library_present() {
            return Err(no_gpu("the CUDA driver library (libcuda.so) is not installed".into()));
        }
        let ctx = CudaContext::new(0).map_err(|e| no_gpu(format!("the CUDA driver has no usable device 0: {e}")))?;
        let name = ctx.name().unwrap_or_else(|e| format!("<unnamed: {e}>"));
        let compute_capability =
            ctx.compute_capability().map_err(|e| no_gpu(format!("the device's compute capability: {e}")))?;
        let stream = ctx.default_stream();
        Ok(Gpu { ctx, stream, name, compute_capability, busy: Mutex::new(()), timeout: DEFAULT_TIMEOUT })
    }

    /// The device's name (`NVIDIA H100 80GB HBM3`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device's compute capability as ptxas spells it (`sm_90`).
    pub fn sm(&self) -> String {
        format!("sm_{}{}", self.compute_capability.0, self.compute_capability.1)
    }

    /// Exclusive use of the device for one run (a run that panicked left nothing half done
    /// that matters to the next one, so a poisoned lock is taken over).
    pub(crate) fn lock(&self) -> MutexGuard<'_, ()> {
        self.busy.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The GPU of this process, opened on first use; the same answer every time after.
pub fn gpu() -> Result<&'static Gpu, GpuError> {
    static GPU: OnceLock<Result<Gpu, GpuError>> = OnceLock::new();
    GPU.get_or_init(Gpu::open).as_ref().map_err(Clone::clone)
}

/// Why there is no usable GPU, or `None` when there is one.
pub fn unavailable() -> Option<GpuError> {
    gpu().err()
}
