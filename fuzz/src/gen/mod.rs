//! Generators of programs: valid by construction for the pipeline pass, invalid in chosen ways
//! for its error paths, mutated text for the parser, and arbitrary async programs (not pass
//! inputs) for the wait verifier, token programs (waits that name groups) for the schedules,
//! the verifier and the lowering of tokens, and small PTX kernels with their arguments for the PTX reader
//! and emulator.
//!
//! Every choice is drawn from an `arbitrary::Unstructured`, so the same bytes always give the
//! same program, any byte string gives some program of the promised kind (running out of
//! bytes picks the smallest choices), and a fuzzer's byte-level mutations become program-level
//! mutations.

mod async_program;
mod hopper_kernel;
mod invalid;
mod ir;
mod irregular;
mod loop_ir;
mod mutate;
mod nested;
mod pipeline;
mod plan;
mod ptx_kernel;
mod schedule;
mod shape;
mod tokens;

pub(crate) use async_program::reads_memory;
pub use async_program::{async_program, classes_of, AsyncClass, AsyncGenConfig, AsyncPattern, AsyncShape};
pub use hopper_kernel::{
    hopper_kernel, HopperBreak, HopperCase, HopperConsumer, HopperVerdict, HOPPER_OUT_PARAM, HOPPER_THREADS,
};
pub use invalid::{invalid_annotation_program, Defect};
pub use mutate::mutated_text;
pub use nested::nested_pipeline_program;
pub use pipeline::pipeline_program;
pub use ptx_kernel::{ptx_kernel, PtxCase};
pub use shape::{expected_patterns, irregular_patterns, Pattern, PipelineShape, StmtShape, Target};
pub use tokens::{token_program, PlantedMistake, TokenGenConfig, TokenPattern, TokenShape};

/// What a generated program may contain.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// At most this many statements in a pipelined loop body (at least 1).
    pub max_stmts: usize,
    /// Symbolic extents (a scalar parameter `n`).
    pub symbolic_extents: bool,
    /// Pipelines under a `threadIdx.x` binding.
    pub threads: bool,
    /// Vector copies.
    pub vectors: bool,
    /// Statements under conditions.
    pub predicates: bool,
    /// Now and then, an outer pipelined loop whose body holds an inner pipelined loop.
    pub nested: bool,
    /// The switches of irregular pipelines (`irregular.rs`), which the pass may refuse: writers
    /// under conditions on the iteration or on data, with consumers outside them.
    pub predicated_producers: bool,
    /// Staging allocated inside the loop body.
    pub staging_inside: bool,
    /// Staging allocated above the loop.
    pub staging_outside: bool,
    /// Consumers reading another iteration's slot of a ring indexed by the loop variable.
    pub other_iteration_slots: bool,
    /// Two writers of one staging buffer.
    pub several_writers: bool,
    /// Consumers that write the staging element they read.
    pub consumer_writes: bool,
    /// Threads (and blocks) reading each other's staging, with or without barriers.
    pub thread_exchange: bool,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_stmts: 6,
            symbolic_extents: true,
            threads: true,
            vectors: true,
            predicates: true,
            nested: true,
            predicated_producers: true,
            staging_inside: true,
            staging_outside: true,
            other_iteration_slots: true,
            several_writers: true,
            consumer_writes: true,
            thread_exchange: true,
        }
    }
}

impl GenConfig {
    /// The default without irregular pipelines: every program is one the pass must accept.
    pub fn accepted() -> Self {
        GenConfig {
            predicated_producers: false,
            staging_inside: false,
            staging_outside: false,
            other_iteration_slots: false,
            several_writers: false,
            consumer_writes: false,
            thread_exchange: false,
            ..GenConfig::default()
        }
    }

    /// Whether any irregular switch is on.
    pub fn irregular(&self) -> bool {
        self.predicated_producers
            || self.staging_inside
            || self.staging_outside
            || self.other_iteration_slots
            || self.several_writers
            || self.consumer_writes
            || self.thread_exchange
    }
}
