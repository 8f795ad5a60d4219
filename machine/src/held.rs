//! Shadow state of a block's shared memory for the asynchronous proxy (docs/ptx.md, "Hopper's
//! wgmma queue"), kept apart from the race detection of `race.rs`:
//!
//! - `HeldBytes`: the bytes an asynchronous reader still in flight holds (a `wgmma`'s
//!   shared-memory operands, from its issue until the wait that retires its group). A write to
//!   a held byte, by any thread and through any proxy, is a fault of the writer. A release is
//!   remembered with the barrier epoch and the owner (a warpgroup) whose wait made it: only
//!   the owner's threads know of it until the next barrier, so a write by another owner in
//!   that epoch is a fault too.
//! - `ProxyShadow`: per byte, the last write made through the generic proxy (`st.shared`, a
//!   `cp.async` landing) that no `fence.proxy.async` of its writer has ordered yet. An
//!   asynchronous-proxy read (a `wgmma` operand, a bulk copy's source) of such a byte is a
//!   fault of the reader.
//!
//! Invariants: bytes are offsets into the block's shared window (the executor maps addresses);
//! a hold is released exactly once for every time it was taken, so a count never underflows
//! (release saturates, and the executor releases what it held); sequence numbers grow with
//! every recorded write and fence, so "after" is a comparison; a thread's fence covers exactly
//! its own writes recorded before the bound the fence was given (the executor lowers the bound
//! to the first of the thread's asynchronous copies still in flight, which no fence can order
//! before it lands).

/// The wait that ended a hold: in which barrier epoch, by which owner, at which site.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Release {
    pub epoch: u32,
    pub owner: u32,
    pub site: u32,
}

impl Release {
    /// The owner of a byte that several owners released in one epoch.
    pub const SEVERAL: u32 = u32::MAX;
}

/// How many in-flight asynchronous readers hold each byte, and the last release of each.
#[derive(Clone, Debug, Default)]
pub struct HeldBytes {
    counts: Vec<u32>,
    releases: Vec<Option<Release>>,
    /// Holds taken and not released, over all bytes (0: nothing is held, the fast path).
    total: u64,
}

impl HeldBytes {
    /// No byte of a window of `len` bytes held.
    pub fn new(len: usize) -> HeldBytes {
        HeldBytes { counts: vec![0; len], releases: vec![None; len], total: 0 }
    }

    /// Whether any byte is held.
    pub fn any(&self) -> bool {
        self.total > 0
    }

    /// Holds every byte of `bytes` (those outside the window are ignored: the executor checks
    /// bounds before it holds).
    pub fn hold(&mut self, bytes: impl IntoIterator<Item = usize>) {
        for b in bytes {
            if let Some(c) = self.counts.get_mut(b) {
                *c = c.saturating_add(1);
                self.total += 1;
            }
        }
    }

    /// Releases one hold of every byte of `bytes`, by `release`.
    pub fn release(&mut self, bytes: impl IntoIterator<Item = usize>, release: Release) {
        for b in bytes {
            if let Some(c) = self.counts.get_mut(b) {
                if *c > 0 {
                    *c -= 1;
                    self.total = self.total.saturating_sub(1);
                }
            }
            if let Some(r) = self.releases.get_mut(b) {
                // Released by two owners in one epoch: each owner's threads know only of their
                // own release, so every owner must wait for a barrier.
                let owner = match r {
                    Some(old) if old.epoch == release.epoch && old.owner != release.owner => Release::SEVERAL,
                    _ => release.owner,
                };
                *r = Some(Release { owner, ..release });
            }
        }
    }

    /// The first byte of `start .. start + len` released in barrier epoch `epoch` by another
    /// owner than `owner`, with its release: no barrier has told `owner` of it yet.
    pub fn released_to_others(&self, start: usize, len: usize, epoch: u32, owner: u32) -> Option<(usize, Release)> {
        let end = start.saturating_add(len).min(self.releases.len());
        (start.min(end)..end).find_map(|b| {
            let r = self.releases.get(b).copied().flatten()?;
            (r.epoch == epoch && r.owner != owner).then_some((b, r))
        })
    }

    /// The first held byte of `start .. start + len`, if any.
    pub fn first_held(&self, start: usize, len: usize) -> Option<usize> {
        if self.total == 0 {
            return None;
        }
        (start..start.saturating_add(len)).find(|b| self.counts.get(*b).is_some_and(|c| *c > 0))
    }
}

/// A write through the generic proxy that no fence of its writer has ordered yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenericWrite {
    /// When it was recorded (0: no write recorded).
    pub seq: u64,
    /// The writing thread's index in its block.
    pub thread: u32,
    /// The executor's name for the writing instruction, given back in faults.
    pub site: u32,
}

/// The sequence number of a generic write still in flight (an asynchronous copy before the wait
/// that retires it): after every fence, so none orders it until `ProxyShadow::land` stamps it.
pub const IN_FLIGHT: u64 = u64::MAX;

/// The last generic-proxy write of every byte, and how far each thread's fences reach.
#[derive(Clone, Debug, Default)]
pub struct ProxyShadow {
    seq: u64,
    writes: Vec<GenericWrite>,
    /// Per thread: its writes recorded before this sequence number are fenced.
    covers: Vec<u64>,
}

impl ProxyShadow {
    /// A window of `len` bytes never written, for `threads` threads.
    pub fn new(len: usize, threads: usize) -> ProxyShadow {
        ProxyShadow { seq: 0, writes: vec![GenericWrite::default(); len], covers: vec![0; threads] }
    }

    /// A new sequence number, after every one handed out or recorded so far.
    pub fn tick(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Records a generic-proxy write of `start .. start + len` by `thread` at `site`, as of
    /// sequence number `seq` (a `tick`; for an asynchronous copy, the one of its issue).
    pub fn write(&mut self, start: usize, len: usize, thread: u32, site: u32, seq: u64) {
        let end = start.saturating_add(len).min(self.writes.len());
        for w in self.writes.get_mut(start.min(end)..end).into_iter().flatten() {
            *w = GenericWrite { seq, thread, site };
        }
    }

    /// The wait that retires `thread`'s asynchronous copy at `site` to `start .. start + len`
    /// (recorded as `IN_FLIGHT`) lands it as of sequence number `seq`: the thread's fences from
    /// then on order it. Bytes written again since keep their later write.
    pub fn land(&mut self, start: usize, len: usize, thread: u32, site: u32, seq: u64) {
        let end = start.saturating_add(len).min(self.writes.len());
        for w in self.writes.get_mut(start.min(end)..end).into_iter().flatten() {
            if w.seq == IN_FLIGHT && w.thread == thread && w.site == site {
                w.seq = seq;
            }
        }
    }

    /// A `fence.proxy.async` of `thread` ordering its writes recorded before `bound`.
    pub fn fence(&mut self, thread: u32, bound: u64) {
        if let Some(c) = self.covers.get_mut(thread as usize) {
            *c = (*c).max(bound);
        }
    }

    /// The first byte of `start .. start + len` whose last generic write no fence of its
    /// writer ordered, with that write.
    pub fn first_unfenced(&self, start: usize, len: usize) -> Option<(usize, GenericWrite)> {
        (start..start.saturating_add(len)).find_map(|b| {
            let w = *self.writes.get(b)?;
            let cover = self.covers.get(w.thread as usize).copied().unwrap_or(0);
            (w.seq > 0 && w.seq >= cover).then_some((b, w))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_count_and_release() {
        let mut held = HeldBytes::new(16);
        assert_eq!(held.first_held(0, 16), None);
        held.hold(4..8);
        held.hold(6..10);
        assert_eq!(held.first_held(0, 5), Some(4));
        let release = Release { epoch: 2, owner: 1, site: 9 };
        held.release(4..8, release);
        assert_eq!(held.first_held(0, 6), None);
        assert_eq!(held.first_held(0, 16), Some(6));
        held.release(6..10, release);
        assert!(!held.any());
        // The owner's own threads, and everyone after a barrier, may write them now.
        assert_eq!(held.released_to_others(0, 16, 2, 0), Some((4, release)));
        assert_eq!(held.released_to_others(0, 16, 2, 1), None);
        assert_eq!(held.released_to_others(0, 16, 3, 0), None);
        // Released by two owners in one epoch: no owner knows of the other's release.
        held.hold(0..2);
        held.hold(0..2);
        held.release(0..2, release);
        held.release(0..2, Release { owner: 0, ..release });
        assert_eq!(held.released_to_others(0, 2, 2, 1).map(|(_, r)| r.owner), Some(Release::SEVERAL));
        assert!(held.released_to_others(0, 2, 2, 0).is_some());
    }

    #[test]
    fn a_write_is_fenced_only_by_a_fence_of_its_writer_after_it() {
        let mut proxy = ProxyShadow::new(8, 2);
        let first = proxy.tick();
        proxy.write(0, 4, 1, 7, first);
        assert_eq!(proxy.first_unfenced(0, 8).map(|(b, w)| (b, w.thread, w.site)), Some((0, 1, 7)));
        // Another thread's fence does not order thread 1's write.
        let now = proxy.tick();
        proxy.fence(0, now);
        assert!(proxy.first_unfenced(2, 2).is_some());
        // A fence whose bound is not after the write (a copy still in flight) does not either.
        proxy.fence(1, first);
        assert!(proxy.first_unfenced(0, 1).is_some());
        let now = proxy.tick();
        proxy.fence(1, now);
        assert_eq!(proxy.first_unfenced(0, 8), None);
        // A later write is unfenced again.
        let later = proxy.tick();
        proxy.write(3, 1, 1, 9, later);
        assert_eq!(proxy.first_unfenced(0, 8).map(|(b, _)| b), Some(3));
    }
}
