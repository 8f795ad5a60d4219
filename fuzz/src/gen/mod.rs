//! Generators of programs: valid by construction for the pipeline pass, invalid in chosen ways
//! for its error paths, and mutated text for the parser.
//!
//! Every choice is drawn from an `arbitrary::Unstructured`, so the same bytes always give the
//! same program, any byte string gives some program of the promised kind (running out of
//! bytes picks the smallest choices), and a fuzzer's byte-level mutations become program-level
//! mutations.

mod invalid;
mod ir;
mod loop_ir;
mod mutate;
mod nested;
mod pipeline;
mod plan;
mod schedule;
mod shape;

pub use invalid::{invalid_annotation_program, Defect};
pub use mutate::mutated_text;
pub use nested::nested_pipeline_program;
pub use pipeline::pipeline_program;
pub use shape::{expected_patterns, Pattern, PipelineShape, StmtShape, Target};

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
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig { max_stmts: 6, symbolic_extents: true, threads: true, vectors: true, predicates: true, nested: true }
    }
}
