//! Kernel launches and blocks, for race detection: the machine's block ids, the launch that
//! the main thread's `blockIdx` bindings are in, and each block's `blockIdx` values, which
//! name a block in messages.
//!
//! A launch starts at an outermost `blockIdx` binding, or at a block of threads outside any;
//! each iteration of a `blockIdx` binding is a new block (and so is the rest of an enclosing
//! iteration after a nested binding).
//!
//! Invariant: every block id handed out has its entry in `blocks`, at its ordinal.

use std::ops::Range;

use tirproof_machine::race::{BlockCounter, BlockId, LaunchId, RaceCtx};

use super::program::NO_STMT;

#[derive(Debug)]
pub(crate) struct Grid {
    counter: BlockCounter,
    /// The launch of the main thread's `blockIdx` bindings (or of the last block of threads).
    launch: LaunchId,
    /// Each block's `blockIdx` values, as a range of `coords`.
    blocks: Vec<Range<usize>>,
    /// `(context node, value)` of `blockIdx` bindings, innermost first per block.
    coords: Vec<(u32, i64)>,
}

impl Default for Grid {
    fn default() -> Self {
        let counter = BlockCounter::default();
        let launch = counter.launch();
        Grid { counter, launch, blocks: Vec::new(), coords: Vec::new() }
    }
}

impl Grid {
    /// A kernel launch starts: blocks from now on belong to it.
    pub(crate) fn start_launch(&mut self) {
        self.launch = self.counter.launch();
    }

    /// A block of the current launch starts, at `blockIdx` values `coords` (innermost first);
    /// returns its race context (thread 0, epoch 0: threads set their own).
    pub(crate) fn start_block(&mut self, coords: impl IntoIterator<Item = (u32, i64)>) -> RaceCtx {
        let block = self.counter.next_block();
        let start = self.coords.len();
        self.coords.extend(coords);
        self.blocks.push(start..self.coords.len());
        RaceCtx { launch: self.launch, block, thread: 0, epoch: 0, site: NO_STMT }
    }

    /// The `blockIdx` values of `block` (empty for a block of threads outside any binding).
    pub(crate) fn coords(&self, block: BlockId) -> &[(u32, i64)] {
        self.blocks.get(block.ordinal()).and_then(|r| self.coords.get(r.clone())).unwrap_or_default()
    }
}
