//! tirproof-interp, the reference interpreter: exact, fuel-limited, deterministic execution
//! of a `PrimFunc` over the shared memory model of `tirproof-machine`.
//!
//! # Semantics
//! - Values are scalars or vectors of int8..int64, uint8..uint64 (two's-complement wrap),
//!   bool, float16, bfloat16, float32 and float64 (IEEE round-to-nearest-even, computed in
//!   the element type). `//` and `%` round toward negative infinity, `truncdiv`/`truncmod`
//!   toward zero, `/` is IEEE for floats and truncating for integers.
//! - Memory: one storage per data variable (buffer aliases share it), a flat array of scalars
//!   of the allocating type; every access is bounds-checked; allocated memory starts
//!   poisoned; parameters are caller-supplied and fully initialized.
//! - Async (docs/async-semantics.md): per-thread queues; stores inside `async_scope`
//!   land when their group completes; commits, waits and the three completion schedules.
//! - Threads: `threadIdx.*` bindings run as threads of one block, one at a time, switching
//!   at barriers; `blockIdx.*` bindings run blocks one after another. Races between threads
//!   of a block, and between blocks of a kernel launch, are faults whatever that order.
//!
//! A program misbehaving is an [`Outcome::Fault`] with a located [`Fault`]; the interpreter
//! failing to give the program a meaning is an [`ExecError`].
//!
//! # Example
//! ```
//! # use std::collections::BTreeMap;
//! # use tirproof_interp::{random_inputs, run, ExecError, Outcome, RunConfig};
//! # fn check(func: &tirproof_ir::PrimFunc) -> Result<(), ExecError> {
//! let inputs = random_inputs(func, 7, &BTreeMap::new())?;
//! let result = run(func, &inputs, &RunConfig::default())?;
//! if let Outcome::Fault(fault) = &result.outcome {
//!     println!("{}", fault.details());
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Layout of the crate
//! `compile` turns the function into `program` form (instructions + resolved expressions);
//! `exec` runs a thread's instructions, `eval` its expressions, `access` its loads and
//! stores; `schedule` runs blocks of threads and drives async commits, waits and completion;
//! `frame` holds a thread's variable slots and `thread` wraps it in the machine's thread;
//! `grid` numbers kernel launches and blocks for race detection;
//! `inputs` makes random inputs for a function's parameters. Memory, queues, values,
//! arithmetic, faults and tensors are `tirproof-machine`'s.

mod access;
mod compile;
mod eval;
mod exec;
mod frame;
mod grid;
mod inputs;
mod program;
mod schedule;
mod thread;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use tirproof_ir::func::PrimFunc;
use tirproof_machine::error::TrapKind;
use tirproof_machine::history::History;
use tirproof_machine::memory::Memory;
use tirproof_machine::thread::ThreadOrder;
use tirproof_machine::Completion;

pub use inputs::{random_inputs, Inputs};
pub use tirproof_machine::{ExecError, Fault, FaultKind, ParseScheduleError, RunConfig, ScalarValue, Schedule, Tensor};

use exec::Executor;
use frame::Frame;
use grid::Grid;
use program::{Program, NO_STMT};
use thread::Thread;

/// Counters of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Statements executed (each costs one unit of fuel; sequences are free).
    pub statements: u64,
    pub async_stores: u64,
    pub commits: u64,
    pub waits: u64,
    /// Barriers passed by a block of threads (once per block-wide barrier).
    pub barriers: u64,
    /// The largest block of threads launched.
    pub max_threads: u64,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Completed,
    Fault(Fault),
}

impl Outcome {
    pub fn is_completed(&self) -> bool {
        matches!(self, Outcome::Completed)
    }

    pub fn fault(&self) -> Option<&Fault> {
        match self {
            Outcome::Completed => None,
            Outcome::Fault(f) => Some(f),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub outcome: Outcome,
    /// The final contents of every parameter buffer, by buffer name (also after a fault).
    pub outputs: BTreeMap<String, Tensor>,
    pub stats: Stats,
}

impl<'p> Executor<'p> {
    pub(crate) fn new(prog: &'p Program, config: &RunConfig) -> Executor<'p> {
        Executor {
            prog,
            mem: Memory::default(),
            stats: Stats::default(),
            fuel: config.fuel,
            completion: Completion::new(config.schedule),
            order: ThreadOrder::new(config.thread_order_seed),
            history: History::default(),
            region: None,
            grid: Grid::default(),
        }
    }

    /// The thread that runs the function body.
    pub(crate) fn main_thread(&self) -> Thread {
        let p = self.prog;
        Thread::main(Frame::new(p.n_scalars, p.n_vectors, p.n_data, p.buffers.len()))
    }
}

/// Runs `func` on `inputs`.
///
/// Returns `Err` only when the interpreter cannot run the program (unsupported or
/// ill-formed IR, missing or malformed inputs, resource limits); program faults are
/// `Ok` with [`Outcome::Fault`].
pub fn run(func: &PrimFunc, inputs: &Inputs, config: &RunConfig) -> Result<RunResult, ExecError> {
    let prog = compile::compile(func)?;
    let mut machine = Executor::new(&prog, config);
    let mut main = machine.main_thread();
    let params = machine.bind_inputs(&mut main, inputs)?;
    let outcome = match machine.run_thread(&mut main, 0) {
        Ok(_) => match machine.leftover_fault(&main, "the function ends") {
            Some(fault) => Outcome::Fault(fault),
            None => Outcome::Completed,
        },
        Err(trap) => match *trap.0 {
            TrapKind::Located(fault) => Outcome::Fault(fault),
            TrapKind::Fault { kind, message } => Outcome::Fault(machine.make_fault(kind, message, &main, NO_STMT)),
            TrapKind::Error(e) => return Err(e),
        },
    };
    if matches!(&outcome, Outcome::Fault(f) if f.kind == FaultKind::UnwaitedGroup) {
        // Land what was left in flight so the outputs are defined.
        main.asyncs.complete_all(&mut machine.mem);
    }
    Ok(RunResult { outcome, outputs: machine.take_outputs(&params), stats: machine.stats })
}

#[cfg(test)]
mod api_tests {
    use super::*;

    #[test]
    fn default_config() {
        let c = RunConfig::default();
        assert_eq!(c.schedule, Schedule::Lazy);
        assert_eq!(c.thread_order_seed, None);
        assert_eq!(c.fuel, 100_000_000);
    }
}
