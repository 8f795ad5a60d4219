//! Generators of programs that are valid by construction.
//!
//! Every choice is drawn from an `arbitrary::Unstructured`, so the same bytes always give the
//! same program, any byte string gives some valid program (running out of bytes picks the
//! smallest choices), and a fuzzer's byte-level mutations become program-level mutations.

mod pipeline;

pub use pipeline::{pipeline_program, PipelineShape};

/// What a generated program may contain.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// At most this many statements in the pipelined loop body (at least 1).
    pub max_stmts: usize,
    /// Symbolic extents (a scalar parameter `n`).
    pub symbolic_extents: bool,
    /// Pipelines under a `threadIdx.x` binding.
    pub threads: bool,
    /// 4-lane vector copies.
    pub vectors: bool,
    /// Statements under conditions.
    pub predicates: bool,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig { max_stmts: 6, symbolic_extents: true, threads: true, vectors: true, predicates: true }
    }
}
