//! tirproof-gpu: runs the PTX that tirproof emits on an NVIDIA GPU, through the CUDA driver API
//! (`cudarc`, with libcuda loaded at run time), and measures the bandwidth of a streaming
//! kernel against the device's own copy.
//!
//! - `device`: the process's GPU, opened once ([`gpu`]), or why there is none;
//! - `run`: loading a PTX module through the driver's JIT and running a kernel on the
//!   emulator's [`KernelArg`](tirproof_ptx::emu::KernelArg)s, the buffers coming back as
//!   tensors;
//! - `ffi`: the crate's only unsafe code (the driver library probe and the launch);
//! - `ptxas`: ptxas's log for PTX the JIT refuses;
//! - `stream` and `bench`: the bandwidth benchmark's TIR kernels and their timing.
//!
//! Invariant: on a machine without a GPU every entry point answers [`GpuError::NoGpu`] with
//! the reason; nothing panics for lack of a driver or a device.

mod bench;
mod device;
mod error;
mod ffi;
mod ptxas;
mod run;
pub mod stream;

pub use bench::{DeviceBuffer, Measurement};
pub use device::{gpu, unavailable, Gpu, DEFAULT_TIMEOUT, GPU_SWITCH};
pub use error::{GpuError, PtxasLog, Step};
pub use ptxas::{find_ptxas, ptxas_log};
pub use run::Loaded;
