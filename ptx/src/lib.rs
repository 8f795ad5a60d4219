//! tirproof-ptx: the PTX backend.
//!
//! - `module`: a typed PTX module (kernels, parameters, registers, address spaces and the
//!   closed set of instructions we emit) and its printer, which picks `.version` and
//!   `.target` from the features the module uses;
//! - `codegen`: lowering of the TIR our passes produce (flattened, vectorized, thread-bound)
//!   into that module, with located errors for anything it cannot lower and notes for what it
//!   lowered conservatively (an async copy done synchronously, a wait made stricter);
//! - `emu`: the emulator, which runs a kernel over a grid on `tirproof-machine`'s memory
//!   model, so that a missing or too loose `cp.async.wait_group` faults under the lazy
//!   schedule as it does in the TIR interpreter;
//! - `launch_file`: JSON launch descriptions of PTX text (kernel, shapes, each parameter's
//!   buffer or scalar), read with located errors and written from a kernel's header;
//! - `parse`: PTX text back to the typed module, recording each kernel's block directives
//!   (`.reqntid`, `.maxntid`), with located errors;
//! - `launch`: the targets' launch limits per architecture and the check of a launch against a
//!   kernel's directives and those limits (a typed `LaunchError`);
//! - `args`: typed kernel arguments (a buffer, or a scalar encoded in its parameter's type)
//!   bound to the parameters by name.
//!
//! Invariant: the module is the only way PTX text is produced, and codegen never emits a wait
//! weaker than the TIR asked for. docs/ptx.md describes the subset and the wait chain.

pub mod args;
pub mod codegen;
pub mod emu;
pub mod launch;
pub mod launch_file;
pub mod module;
pub mod parse;

pub use codegen::{
    lower_func, lower_kernel, lower_module, lower_module_from, lower_tir, KernelError, LowerError, Lowered,
    LoweredKernel, Note, PrepareError, LOWERING_PASSES,
};
pub use module::{Arch, Module};
