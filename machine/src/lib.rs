//! tirproof-machine: what every executor of tirproof's memory model shares.
//!
//! The TIR interpreter (`tirproof-interp`) runs on it today and the PTX emulator will run on
//! it next, so that a program and its lowering are judged by one model (the contract is
//! docs/async-semantics.md):
//! - `value` and `arith`: scalar kinds, canonical bit patterns and exact arithmetic (integers
//!   wrap in two's complement, `//` and `%` round toward negative infinity, floats are IEEE in
//!   their own width);
//! - `memory`: storages with poison (never-written elements) and pending asynchronous writes;
//!   `race`: the shadow state of elements several threads can see, and the rules that find
//!   races between threads of a block and between blocks of a kernel launch; `held`: the
//!   shadow of shared memory for the asynchronous proxy (bytes an in-flight asynchronous
//!   reader holds, generic-proxy writes no `fence.proxy.async` has ordered yet);
//! - `async_queue`: the per-thread FIFO queues of committed groups; `schedule`: when groups
//!   land (lazy, eager, random); `config`: the one run configuration every executor takes
//!   (schedule, thread order, fuel); `limit`: the bounds on the stores and groups a run holds
//!   in flight;
//! - `thread`: a thread's queues, coordinates, barrier epoch and race context, around the
//!   executor's own frame;
//! - `fault` (program faults, outcomes with a location) and `error` (the executor's own
//!   failures, never a program's); `history`: the events a fault shows; `tensor`: inputs and
//!   outputs; `npy`: the one bounded, strict reader of `.npy` files into tensors.
//!
//! Invariant: nothing here knows TIR statements or PTX instructions; executors translate
//! their program into calls on these types.

pub mod arith;
pub mod async_queue;
pub mod config;
pub mod error;
pub mod fault;
pub mod held;
pub mod history;
pub mod limit;
pub mod memory;
pub mod npy;
pub mod race;
pub mod schedule;
pub mod tensor;
pub mod thread;
pub mod value;

pub use config::RunConfig;
pub use error::ExecError;
pub use fault::{Fault, FaultKind};
pub use schedule::{Completion, ParseScheduleError, Schedule};
pub use tensor::Tensor;
pub use thread::Thread;
pub use value::ScalarValue;
