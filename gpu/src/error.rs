//! The runner's errors: one closed enum, [`GpuError`], for everything that stops a kernel from
//! running on the device or its outputs from coming back.
//!
//! Invariants: a machine without a usable GPU is always [`GpuError::NoGpu`] with the reason
//! (never a panic of the driver bindings); a module the driver's JIT refuses carries ptxas's
//! log of the same text where ptxas can be found ([`PtxasLog`]); every other driver failure
//! names the [`Step`] it stopped.

use std::fmt;
use std::time::Duration;

use cudarc::driver::DriverError;

/// Why a kernel did not run on the GPU, or its outputs did not come back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GpuError {
    /// No GPU can be used here: no driver library, no device, or turned off by the
    /// environment (`TIRPROOF_GPU=off`).
    #[error("no GPU: {reason}")]
    NoGpu { reason: String },
    /// The driver's JIT refused the module's PTX.
    #[error("the driver refused the PTX of `{kernel}` ({driver}); {ptxas}")]
    Jit { kernel: String, driver: DriverError, ptxas: PtxasLog },
    /// The module has no function of the kernel's name.
    #[error("the loaded module has no kernel `{kernel}` ({driver})")]
    NoKernel { kernel: String, driver: DriverError },
    /// The arguments do not match the kernel's parameters.
    #[error("bad arguments for `{kernel}`: {why}")]
    BadArguments { kernel: String, why: String },
    /// Something the runner does not lay out on the device (a buffer of sub-byte elements, a
    /// launch shape past the device's limits).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A benchmarked kernel's output is not what it computes.
    #[error("`{kernel}` computed a wrong output: {why}")]
    WrongOutput { kernel: String, why: String },
    /// The driver failed at `step`.
    #[error("the CUDA driver failed while {step}: {driver}")]
    Driver { step: Step, driver: DriverError },
    /// The kernel did not finish in time. It may still be running: the device is not usable
    /// by this process any more.
    #[error("`{kernel}` did not finish within {timeout:?}; the device stays busy with it")]
    Timeout { kernel: String, timeout: Duration },
}

/// What the runner was doing when the driver failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Giving a kernel more dynamic shared memory than the default 48 KiB.
    SharedMemoryLimit,
    Allocate,
    CopyToDevice,
    Launch,
    /// Waiting for the kernel (a fault of the kernel, such as an illegal address, shows here).
    Execute,
    CopyToHost,
    DeviceToDeviceCopy,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Step::SharedMemoryLimit => "raising the kernel's dynamic shared memory limit",
            Step::Allocate => "allocating device memory",
            Step::CopyToDevice => "copying the inputs to the device",
            Step::Launch => "launching the kernel",
            Step::Execute => "running the kernel",
            Step::CopyToHost => "copying the outputs back",
            Step::DeviceToDeviceCopy => "copying on the device",
        })
    }
}

/// What ptxas said about PTX that the driver's JIT refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxasLog {
    /// ptxas refused it too, with this log.
    Refused(String),
    /// ptxas assembles it: the JIT refused something ptxas accepts (a driver older than the
    /// PTX's version, say).
    Accepted,
    /// No ptxas was found (`TIRPROOF_PTXAS`, the bundled one, the PATH, the CUDA toolkit's).
    NotFound,
    /// ptxas was found but could not be run on the text (why).
    Failed(String),
}

impl fmt::Display for PtxasLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxasLog::Refused(log) => write!(f, "ptxas refuses it too:\n{}", log.trim_end()),
            PtxasLog::Accepted => f.write_str("ptxas assembles it (is the driver older than the PTX's version?)"),
            PtxasLog::NotFound => f.write_str("no ptxas found for its log (set TIRPROOF_PTXAS)"),
            PtxasLog::Failed(why) => write!(f, "ptxas could not be run for its log: {why}"),
        }
    }
}

/// A driver error at `step`.
pub(crate) fn at(step: Step) -> impl Fn(DriverError) -> GpuError {
    move |driver| GpuError::Driver { step, driver }
}
