//! MLIR as a peer: MLIR's shared-memory copy pipeliner
//! (`transform.nvgpu.pipeline_shared_memory_copies`, mlir-opt 22) on generated nvgpu copy
//! loops, its output read back by tirproof's nvgpu reader and judged by the wait verifier.
//!
//! [`gen`] makes unpipelined loops the pipeliner accepts (and a few shapes it refuses).
pub mod gen;
