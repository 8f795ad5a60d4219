//! Arbitrary asynchronous programs: not inputs of the pipeline pass, but programs that issue
//! async copies, commit and wait on their own, for holding the wait verifier to the lazy
//! interpreter (the `verify` oracle).
//!
//! Every program copies from a float input `A` into a staging buffer `S` (or, for blocks that
//! exchange data, a global `G`), in groups of one or two stores that each fill one slot of a
//! ring of slots of two elements, and reads slots back into `Out` after waits. Where commits,
//! waits and readers sit (straight line, serial, inner and triangular loops, under conditions),
//! how counts are written (constants, affine, `T.min`/`T.max`, `T.if_then_else`, modulo,
//! loaded from the int32 input `K`, near int32 overflow), how the staging is read (plain, in
//! conditions, indices, loop extents, lets, through aliases) and how threads and blocks share
//! it are drawn at random and recorded as [`AsyncPattern`]s.
//!
//! Invariants: the checker accepts every program; every index is in bounds for every value of
//! the scalar parameter `n` (indices are taken modulo the buffer's size, divisors are positive
//! constants); the staging is zeroed before any read, so no read sees uninitialized memory;
//! conditions never depend on the thread, so barriers never diverge. The only faults a program
//! can have are those of the async protocol and races. About half of the programs are meant to
//! be racy ([`AsyncShape::meant_racy`]): they carry one defect (a loose count, a reader before
//! its wait, no final drain, an exchange without barriers, blocks sharing data, a wait under a
//! condition); the others use counts that never leave the read slot in flight. The interpreter,
//! not the intent, is the judge.

mod build;
mod classes;
mod exprs;
mod scenario;

use std::collections::BTreeSet;
use std::fmt;

use arbitrary::{Result, Unstructured};
use tirproof_ir::IRModule;

use build::Builder;
pub(crate) use classes::reads_memory;
pub use classes::{classes_of, AsyncClass};

/// What an async program may contain.
#[derive(Clone, Debug)]
pub struct AsyncGenConfig {
    /// Loops whose extent is the scalar parameter `n`.
    pub symbolic_extents: bool,
    /// `threadIdx.x` bindings (2 to 4 threads), with or without barriers.
    pub threads: bool,
    /// `blockIdx.x` bindings, and blocks that exchange data through global memory.
    pub blocks: bool,
    /// Counts, conditions and indices that load from the inputs.
    pub data_dependent: bool,
    /// Values near int32 overflow in counts, guards and indices.
    pub overflow: bool,
    /// Reads of the staging through `T.decl_buffer` aliases.
    pub aliases: bool,
    /// One program in this many is meant to be racy (2: about half).
    pub racy_one_in: u8,
    /// One program in this many is a scenario program (`scenario.rs`: one of the situations
    /// of [`AsyncClass`] the round-based programs never make); 0: none.
    pub scenario_one_in: u8,
}

impl Default for AsyncGenConfig {
    fn default() -> Self {
        AsyncGenConfig {
            symbolic_extents: true,
            threads: true,
            blocks: true,
            data_dependent: true,
            overflow: true,
            aliases: true,
            racy_one_in: 2,
            scenario_one_in: 2,
        }
    }
}

/// A situation an async program exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AsyncPattern {
    /// Commits and waits outside any loop.
    StraightLine,
    /// Commits and waits in a serial loop.
    SerialLoop,
    /// Several waits per iteration of an outer loop, in an inner loop.
    InnerLoopWaits,
    /// Commits and waits in an inner loop `range(i)`.
    TriangularLoop,
    /// A loop extent that is the scalar parameter `n`.
    SymbolicExtent,
    /// A group of two stores.
    SeveralStoresPerGroup,
    /// A commit under an `if`.
    CommitUnderCondition,
    /// A wait under an `if`.
    WaitUnderCondition,
    /// A reader of a slot between its commit and the wait that completes it.
    ReaderBeforeWait,
    /// A reader inside the body of a wait.
    ReaderAfterWait,
    /// No wait for everything before the end.
    NoFinalDrain,
    /// A group committed empty in the last iterations and left in flight at the end
    /// (`cuda_pipeline.h`'s idiom; no fault).
    EmptyGroupAtEnd,
    ConstantCount,
    /// A count affine in loop variables or `n` (`j * 5`, `n - i`).
    AffineCount,
    /// A count under `T.min` or `T.max`.
    MinMaxCount,
    /// A count chosen by `T.if_then_else`.
    IfThenElseCount,
    /// A count taken modulo a constant (`j % 2 + 1`).
    ModuloCount,
    /// A count loaded from the int32 input `K`.
    DataCount,
    /// A count near int32 overflow (`i * 1073741824`).
    OverflowCount,
    /// Staging read in the stored value.
    ReadInValue,
    /// Staging read in an `if` condition.
    ReadInCondition,
    /// Staging read in an index of `Out`.
    ReadInIndex,
    /// Staging read in a loop extent.
    ReadInExtent,
    /// Staging read into a `T.let` in tail position.
    ReadInLet,
    /// Staging read into a `T.LetStmt` followed by another statement.
    ReadInLetStmt,
    /// Staging read under `T.Select`.
    ReadInSelect,
    /// Staging read under `T.if_then_else`.
    ReadInIfThenElse,
    /// A condition with `&`.
    Conjunction,
    /// A condition with `|`.
    Disjunction,
    /// A condition with `not`.
    Negation,
    /// A boolean `T.if_then_else` condition.
    IfThenElseCondition,
    /// A boolean `T.Select` condition.
    SelectCondition,
    /// A comparison of a loaded float against a float constant.
    FloatComparison,
    /// A guard near int32 overflow (`i * 1073741824 >= 0`).
    OverflowGuard,
    /// An index near int32 overflow (`(i + 2147483647) % 64`).
    OverflowIndex,
    /// An index loaded from `K`.
    DataIndex,
    /// Staging read through a two-dimensional alias of its data.
    TwoDimAlias,
    /// Staging read through a `float32x2` alias of its data, into one of `Out`.
    VectorAlias,
    /// Several threads (`threadIdx.x`).
    Threads,
    /// Threads read a neighbour's slots with the barriers that make it safe.
    ExchangeWithBarriers,
    /// Threads read a neighbour's slots without barriers.
    ExchangeWithoutBarriers,
    /// Several blocks (`blockIdx.x`).
    SeveralBlocks,
    /// Blocks read another block's slots in global memory: nothing orders blocks.
    CrossBlockExchange,
}

impl AsyncPattern {
    /// Every pattern, for the test that generation reaches each.
    pub const ALL: [AsyncPattern; 43] = [
        AsyncPattern::StraightLine,
        AsyncPattern::SerialLoop,
        AsyncPattern::InnerLoopWaits,
        AsyncPattern::TriangularLoop,
        AsyncPattern::SymbolicExtent,
        AsyncPattern::SeveralStoresPerGroup,
        AsyncPattern::CommitUnderCondition,
        AsyncPattern::WaitUnderCondition,
        AsyncPattern::ReaderBeforeWait,
        AsyncPattern::ReaderAfterWait,
        AsyncPattern::NoFinalDrain,
        AsyncPattern::EmptyGroupAtEnd,
        AsyncPattern::ConstantCount,
        AsyncPattern::AffineCount,
        AsyncPattern::MinMaxCount,
        AsyncPattern::IfThenElseCount,
        AsyncPattern::ModuloCount,
        AsyncPattern::DataCount,
        AsyncPattern::OverflowCount,
        AsyncPattern::ReadInValue,
        AsyncPattern::ReadInCondition,
        AsyncPattern::ReadInIndex,
        AsyncPattern::ReadInExtent,
        AsyncPattern::ReadInLet,
        AsyncPattern::ReadInLetStmt,
        AsyncPattern::ReadInSelect,
        AsyncPattern::ReadInIfThenElse,
        AsyncPattern::Conjunction,
        AsyncPattern::Disjunction,
        AsyncPattern::Negation,
        AsyncPattern::IfThenElseCondition,
        AsyncPattern::SelectCondition,
        AsyncPattern::FloatComparison,
        AsyncPattern::OverflowGuard,
        AsyncPattern::OverflowIndex,
        AsyncPattern::DataIndex,
        AsyncPattern::TwoDimAlias,
        AsyncPattern::VectorAlias,
        AsyncPattern::Threads,
        AsyncPattern::ExchangeWithBarriers,
        AsyncPattern::ExchangeWithoutBarriers,
        AsyncPattern::SeveralBlocks,
        AsyncPattern::CrossBlockExchange,
    ];
}

impl fmt::Display for AsyncPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// What a generated async program looks like.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AsyncShape {
    pub patterns: BTreeSet<AsyncPattern>,
    /// Whether the generator put a defect in (the interpreter decides whether it races).
    pub meant_racy: bool,
    pub threads: i64,
    pub blocks: i64,
}

/// A random async program and its shape (see the module documentation).
pub fn async_program(u: &mut Unstructured<'_>, cfg: &AsyncGenConfig) -> Result<(IRModule, AsyncShape)> {
    if cfg.scenario_one_in > 0 && u.int_in_range(1..=cfg.scenario_one_in)? == 1 {
        return scenario::scenario_program(u, cfg);
    }
    let mut builder = Builder::choose(u, cfg)?;
    let module = builder.module(u)?;
    Ok((module, builder.into_shape()))
}
