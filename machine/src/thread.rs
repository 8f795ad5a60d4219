//! One thread of execution: its frame, its async queues, its place in its block and the
//! barrier epoch used for cross-thread visibility.
//!
//! The function body runs on the main thread. A block of threads gets one `Thread` per
//! thread, each starting from a copy of the launching frame with empty queues. `epoch`
//! counts the barriers the thread has passed; all threads of a block pass barriers together,
//! so equal epochs mean "no barrier in between".

use std::collections::HashMap;

use super::async_queue::AsyncState;
use super::history::Who;
use super::memory::RaceCtx;

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
    /// Set in blocks of more than one thread: accesses are checked for races.
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

    /// Thread `tid` of a block launched by `self`; `region` identifies the block for race
    /// tracking, which only multi-thread blocks need.
    pub fn child(&self, tid: u32, who: Who, region: Option<u32>) -> Thread<F> {
        Thread {
            frame: self.frame.clone(),
            asyncs: AsyncState::default(),
            tid,
            who,
            epoch: 0,
            in_region: true,
            race: region.map(|region| RaceCtx { region, thread: tid, epoch: 0 }),
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

    #[test]
    fn coordinates_are_x_fastest() {
        assert_eq!(coords_of(0, [4, 2, 1]), [0, 0, 0]);
        assert_eq!(coords_of(5, [4, 2, 1]), [1, 1, 0]);
        assert_eq!(coords_of(9, [4, 2, 2]), [1, 0, 1]);
    }

    #[test]
    fn barriers_advance_the_race_epoch() {
        let main = Thread::main(());
        let mut t = main.child(1, Who::default(), Some(3));
        t.pass_barrier();
        assert_eq!(t.epoch, 1);
        assert_eq!(t.race.unwrap().epoch, 1);
    }
}
