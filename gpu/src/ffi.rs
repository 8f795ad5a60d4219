//! The only unsafe code of the crate: asking whether the CUDA driver library can be loaded, and
//! launching a kernel. Everything else uses the safe API of `cudarc`.
//!
//! Invariants: [`launch`] launches only when its arguments match the kernel's parameters one
//! for one, in order and in width (checked here, next to the unsafe call that relies on it);
//! each function holds exactly one unsafe call and says with `#[expect]` why it needs it.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use tirproof_ptx::module::Param;

/// A kernel argument as the driver receives it: a device buffer's address, or a scalar of the
/// parameter's width.
#[derive(Debug)]
pub(crate) enum Arg<'a> {
    Buffer(&'a CudaSlice<u8>),
    B8(u8),
    B16(u16),
    B32(u32),
    B64(u64),
}

impl Arg<'_> {
    /// The bytes the argument occupies in the kernel's parameter space.
    fn bytes(&self) -> u32 {
        match self {
            Arg::B8(_) => 1,
            Arg::B16(_) => 2,
            Arg::B32(_) => 4,
            Arg::Buffer(_) | Arg::B64(_) => 8,
        }
    }
}

/// Whether the CUDA driver library (libcuda) can be loaded. `cudarc` panics at its first call
/// when it cannot, so this is asked first.
#[expect(unsafe_code, reason = "cudarc's probe for libcuda is an unsafe fn: loading a library runs its initializers")]
pub(crate) fn driver_library_present() -> bool {
    // SAFETY: it only tries to open libcuda under its usual names and closes it again. Opening
    // libcuda runs the driver's own initializers, which every use of the driver runs anyway;
    // nothing of this process is touched.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Why [`launch`] did not launch.
#[derive(Debug)]
pub(crate) enum LaunchError {
    /// The arguments do not match the parameters (the reason).
    Mismatch(String),
    Driver(DriverError),
}

/// Launches `function` (compiled from a kernel whose parameters are `params`) on `stream` with
/// `args`, after checking that they match `params`.
#[expect(unsafe_code, reason = "a kernel launch is unsafe in cudarc: it cannot see the kernel's parameter list")]
pub(crate) fn launch(
    stream: &Arc<CudaStream>,
    function: &CudaFunction,
    params: &[Param],
    config: LaunchConfig,
    args: &[Arg<'_>],
) -> Result<(), LaunchError> {
    if args.len() != params.len() {
        return Err(LaunchError::Mismatch(format!("{} arguments for {} parameters", args.len(), params.len())));
    }
    for (arg, param) in args.iter().zip(params) {
        if arg.bytes() * 8 != param.ty.bits() {
            let why = format!("`{}` is {} but gets {} bytes", param.name, param.ty, arg.bytes());
            return Err(LaunchError::Mismatch(why));
        }
    }
    let mut builder = stream.launch_builder(function);
    for arg in args {
        match arg {
            Arg::Buffer(buffer) => builder.arg(*buffer),
            Arg::B8(value) => builder.arg(value),
            Arg::B16(value) => builder.arg(value),
            Arg::B32(value) => builder.arg(value),
            Arg::B64(value) => builder.arg(value),
        };
    }
    // SAFETY: `function` is the PTX entry whose `.param` list is `params` (the caller loads
    // both from one `Kernel`), and the loop above checked that `args` has one argument per
    // parameter, in order, each as wide as its parameter's type: a buffer is a 64-bit device
    // address for a `.u64` parameter, and scalars are passed by value at their width. The
    // buffers are borrowed for the whole launch and cudarc makes their later reuse or drop
    // wait for the kernel. An access of the kernel outside its buffers stays in device memory
    // (the driver reports it as an error of the launch), never in this process's memory.
    unsafe { builder.launch(config) }.map(|_| ()).map_err(LaunchError::Driver)
}
