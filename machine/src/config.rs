//! How one run of an executor is configured: the completion schedule, the order of a block's
//! threads between barriers and the fuel. Every executor (the interpreter, the PTX emulator's
//! engine, the GPU's) takes this one configuration, so a comparison of two runs asks both for
//! the same thing.

use crate::schedule::Schedule;

/// How to run a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunConfig {
    pub schedule: Schedule,
    /// `None`: threads of a block run in order 0..n between barriers; `Some(seed)`: in a
    /// seeded permutation, redrawn for every phase between barriers.
    pub thread_order_seed: Option<u64>,
    /// The most statements to execute before `FuelExhausted` (an executor of finer steps
    /// scales it to its own).
    pub fuel: u64,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig { schedule: Schedule::Lazy, thread_order_seed: None, fuel: 100_000_000 }
    }
}
