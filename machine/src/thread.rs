//! One thread of execution: its frame, its async queues, its place in its block, the
//! barrier epoch and the race context.
//!
//! The function body outside kernel launches runs on the main thread. Each block of a launch
//! gets one `Thread` per thread, each starting from a copy of the launching frame with empty
//! queues. `epoch` counts the barriers the thread has passed; all threads of a block pass
//! barriers together, so equal epochs mean "no barrier in between".

use std::collections::HashMap;

use super::async_queue::AsyncState;
use super::history::Who;
use super::race::RaceCtx;

#[derive(Debug)]
pub struct Thread<F> {
    /// The executor's private state of the thread (its variables or registers).
    pub frame: F,
    pub asyncs: AsyncState,
    /// Linear index in the block (x fastest); 0 for the main thread.
    pub tid: u32,
    pub who: Who,
    pub epoch: u32,
    /// Part of a block of threads (barriers suspend it).
    pub in_region: bool,
    /// Set whenever the thread can share memory with another thread (a block of several
    /// threads, or any block of a grid): its accesses are checked for races.
    pub race: Option<RaceCtx>,
    /// Storages of this thread's allocations that ended with async writes still pending, by
    /// data slot: the allocation's next execution reuses the storage (see `Exec::alloc`).
    pub retired: HashMap<u32, u32>,
}

impl<F: Clone> Thread<F> {
    pub fn main(frame: F) -> Thread<F> {
        Thread {
            frame,
            asyncs: AsyncState::default(),
            tid: 0,
            who: Who::default(),
            epoch: 0,
            in_region: false,
            race: None,
            retired: HashMap::new(),
        }
    }

    /// Thread `tid` of a block launched by `self`. `block` is the block's race context (its
    /// thread is set to `tid`; the thread starts at its epoch), `None` when races cannot
    /// happen.
    pub fn child(&self, tid: u32, who: Who, block: Option<RaceCtx>) -> Thread<F> {
        let race = block.map(|b| RaceCtx { thread: tid, ..b });
        Thread {
            frame: self.frame.clone(),
            asyncs: AsyncState::default(),
            tid,
            who,
            epoch: race.map_or(0, |r| r.epoch),
            in_region: true,
            race,
            retired: HashMap::new(),
        }
    }

    /// Passes a barrier.
    pub fn pass_barrier(&mut self) {
        self.epoch = self.epoch.saturating_add(1);
        if let Some(r) = self.race.as_mut() {
            r.epoch = self.epoch;
        }
    }

    /// The thread's id in race records: its index in its block.
    pub fn race_thread(&self) -> u32 {
        self.race.map_or(self.tid, |r| r.thread)
    }
}

/// The coordinates of thread `tid` in a block of shape `dims` (x fastest).
pub fn coords_of(tid: u32, dims: [u32; 3]) -> [u32; 3] {
    let x = dims[0].max(1);
    let y = dims[1].max(1);
    [tid % x, (tid / x) % y, tid / (x * y)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::race::BlockCounter;

    #[test]
    fn coordinates_are_x_fastest() {
        assert_eq!(coords_of(0, [4, 2, 1]), [0, 0, 0]);
        assert_eq!(coords_of(5, [4, 2, 1]), [1, 1, 0]);
        assert_eq!(coords_of(9, [4, 2, 2]), [1, 0, 1]);
    }

    fn block_ctx() -> RaceCtx {
        let mut blocks = BlockCounter::default();
        RaceCtx { launch: blocks.launch(), block: blocks.next_block(), thread: 0, epoch: 0, site: 0, instance: 0 }
    }

    #[test]
    fn barriers_advance_the_race_epoch() {
        let main = Thread::main(());
        let mut t = main.child(1, Who::default(), Some(block_ctx()));
        t.pass_barrier();
        assert_eq!(t.epoch, 1);
        assert_eq!(t.race.unwrap().epoch, 1);
        assert_eq!(t.race_thread(), 1);
    }
}

/// The order the threads of a block run in between two barriers: `0..n`, or a seeded
/// permutation redrawn for every phase. Both executors (the interpreter and the PTX emulator)
/// draw from it, so one seed means one sequence of orders in each.
#[derive(Debug)]
pub struct ThreadOrder(Option<rand_chacha::ChaCha8Rng>);

impl ThreadOrder {
    /// In order (`None`) or permuted from `seed`.
    pub fn new(seed: Option<u64>) -> Self {
        ThreadOrder(seed.map(<rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64))
    }

    /// The order of the next phase of `n` threads.
    pub fn next_phase(&mut self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        if let Some(rng) = self.0.as_mut() {
            rand::seq::SliceRandom::shuffle(order.as_mut_slice(), rng);
        }
        order
    }
}
