//! Tests of the interpreter as a whole, on IR built programmatically (`build`).
//!
//! Split by topic: `semantics` (arithmetic, lanes, casts, memory, blocks), `faults` (every
//! fault kind with its message), `async_model` (the async queues under the three
//! schedules), `threads` (blocks of threads and barriers), `races` (races between threads
//! and between blocks, every pair of accesses), `props` (property tests over
//! generated programs) and `perf` (an ignored throughput measurement).

pub(crate) mod build;
pub(crate) mod gen;

mod async_model;
mod faults;
mod perf;
mod props;
mod races;
mod semantics;
mod threads;
