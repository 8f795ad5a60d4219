//! The streaming kernel of the bandwidth benchmark, as TVMScript: every thread loads 16 bytes
//! of `A` per iteration into its own slot of a shared staging buffer, computes `2x + 1` on
//! them and stores 16 bytes of `C`; a block of [`THREADS`] threads walks [`ITERATIONS`]
//! consecutive 8 KiB tiles, so each warp's accesses are coalesced.
//!
//! [`Pipelining`] picks the loop's annotations: none (a synchronous copy), or a software
//! pipeline of 2, 3 or 4 stages whose copy stage is asynchronous (`cp.async` in PTX), so that
//! 1, 2 or 3 tiles are in flight while one is computed. Each thread reads only what it copied
//! itself, so no barrier is needed.
//!
//! Invariant: the text depends only on the block count and the pipelining, and the kernel
//! covers exactly [`elements`] elements of each buffer, each once.

use std::fmt;

/// Threads per block.
pub const THREADS: u64 = 128;
/// Tiles each block walks.
pub const ITERATIONS: u64 = 64;
/// Elements each thread moves per iteration (one 16-byte vector of float32).
pub const LANES: u64 = 4;
/// The blocks of the benchmark's size: 2^30 float32 elements, 4 GiB per buffer.
pub const BENCH_BLOCKS: u64 = 1 << 15;

/// How the kernel's loop is pipelined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipelining {
    /// A plain loop: load, compute, store.
    Off,
    /// A software pipeline with this many stages (2, 3 or 4 of [`Pipelining::ALL`]).
    Stages(Stages),
}

/// The pipeline depths the benchmark measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stages {
    Two,
    Three,
    Four,
}

impl Stages {
    pub fn count(self) -> u64 {
        match self {
            Stages::Two => 2,
            Stages::Three => 3,
            Stages::Four => 4,
        }
    }
}

impl Pipelining {
    pub const ALL: [Pipelining; 4] = [
        Pipelining::Off,
        Pipelining::Stages(Stages::Two),
        Pipelining::Stages(Stages::Three),
        Pipelining::Stages(Stages::Four),
    ];

    /// A name for files and tables: `none`, `2-stage`, ...
    pub fn name(self) -> String {
        match self {
            Pipelining::Off => "none".into(),
            Pipelining::Stages(stages) => format!("{}-stage", stages.count()),
        }
    }
}

impl fmt::Display for Pipelining {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The elements of each buffer a kernel of `blocks` blocks moves.
pub fn elements(blocks: u64) -> u64 {
    blocks * ITERATIONS * THREADS * LANES
}

/// The kernel over `blocks` blocks, as TVMScript.
pub fn streaming_tir(blocks: u64, pipelining: Pipelining) -> String {
    let n = elements(blocks);
    let annotations = match pipelining {
        Pipelining::Off => String::new(),
        Pipelining::Stages(stages) => format!(
            ", annotations={{\"software_pipeline_stage\": [0, {}], \"software_pipeline_order\": [0, 1], \"software_pipeline_async_stages\": [0]}}",
            stages.count() - 1
        ),
    };
    let slot = format!("T.Ramp(tx * {LANES}, 1, {LANES})");
    let element = format!("T.Ramp(((bx * {ITERATIONS} + i) * {THREADS} + tx) * {LANES}, 1, {LANES})");
    let broadcast = |v: &str| format!("T.Broadcast(T.float32({v}), {LANES})");
    format!(
        "# from tvm.script import tirx as T\n\
         \n\
         @T.prim_func\n\
         def main(A: T.Buffer(({n},), \"float32\"), C: T.Buffer(({n},), \"float32\")):\n\
         \x20   for bx in T.thread_binding({blocks}, thread=\"blockIdx.x\"):\n\
         \x20       for tx in T.thread_binding({THREADS}, thread=\"threadIdx.x\"):\n\
         \x20           B = T.alloc_buffer(({slots},), \"float32\", scope=\"shared\")\n\
         \x20           for i in T.serial({ITERATIONS}{annotations}):\n\
         \x20               B[{slot}] = A[{element}]\n\
         \x20               C[{element}] = B[{slot}] * {two} + {one}\n",
        slots = THREADS * LANES,
        two = broadcast("2.0"),
        one = broadcast("1.0"),
    )
}
