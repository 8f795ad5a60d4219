//! Kernel launches and blocks, for race detection: the machine's block ids, the current
//! launch, and each block's coordinates in its grid, which name a block in messages.
//!
//! A launch starts at an outermost `blockIdx` or `threadIdx` binding; its blocks start one
//! after another, x fastest.
//!
//! Invariant: every block id handed out has its entry in `blocks`, at its ordinal.

use tirproof_machine::race::{BlockCounter, BlockId, LaunchId, RaceCtx};

use super::program::NO_STMT;

#[derive(Debug)]
pub(crate) struct Grid {
    counter: BlockCounter,
    /// The current launch.
    launch: LaunchId,
    /// Each block's coordinates, and the axes its grid has (bit `a` for axis `a`).
    blocks: Vec<([u32; 3], u8)>,
}

impl Default for Grid {
    fn default() -> Self {
        let counter = BlockCounter::default();
        let launch = counter.launch();
        Grid { counter, launch, blocks: Vec::new() }
    }
}

impl Grid {
    /// A kernel launch starts: blocks from now on belong to it.
    pub(crate) fn start_launch(&mut self) {
        self.launch = self.counter.launch();
    }

    /// A block of the current launch starts, at `coords` of a grid with axes `axes`;
    /// returns its race context (thread 0, epoch 0: threads set their own).
    pub(crate) fn start_block(&mut self, coords: [u32; 3], axes: u8) -> RaceCtx {
        let block = self.counter.next_block();
        self.blocks.push((coords, axes));
        RaceCtx { launch: self.launch, block, thread: 0, epoch: 0, site: NO_STMT, instance: 0 }
    }

    /// The coordinates of `block` on the axes of its grid (empty for a launch of one block
    /// with no `blockIdx` binding), as `blockIdx.x = 1`.
    pub(crate) fn label(&self, block: BlockId) -> Vec<String> {
        let Some((coords, axes)) = self.blocks.get(block.ordinal()) else {
            return Vec::new();
        };
        ["x", "y", "z"]
            .iter()
            .zip(coords)
            .enumerate()
            .filter(|(axis, _)| axes & (1 << axis) != 0)
            .map(|(_, (name, value))| format!("blockIdx.{name} = {value}"))
            .collect()
    }
}
