//! Race detection (docs/async-semantics.md, "Hazards"): the shadow state of the elements of a
//! storage that several threads can see, and the rules that decide whether a new access races
//! with a recorded one, whichever order the executor runs threads and blocks in.
//!
//! Simulated time: kernel launches run one after another; the blocks of one launch are never
//! ordered with each other; the threads of one block are ordered only by barriers, counted by
//! the epoch of each access (an access at epoch e is before every access of the block at a
//! later epoch, and unordered with those of other threads at the same epoch). A synchronous
//! write is in progress during its epoch; an asynchronous one from its issue until the wait in
//! its own thread that retires it (open until then).
//!
//! What an executor must guarantee (the interpreter does): it runs every access of a block at
//! epoch e before any access of that block at a later epoch, and every access of a block
//! before any access of a block that starts after it; it takes block ids from one
//! `BlockCounter` in the order blocks start, so a launch is the range of ids from its first
//! block on, and a recorded block of the current launch that is not the accessor's has
//! finished.
//!
//! Per element, only what a later access can race with (writes and reads in separate
//! chunks, see `Shadow`):
//! - the last write. A write unordered with the previous one is reported when it happens,
//!   so the last write is ordered after every earlier one. The one exception is kept
//!   conservative: a thread's synchronous write over its own asynchronous write still in
//!   flight leaves the asynchronous record, which other threads still race with;
//! - the reads of the latest epoch of the latest block that read it: one reader, or two
//!   different ones (so a writer finds a reader other than itself whenever there is one);
//! - one read by an earlier block of the same launch, which every later write of the launch
//!   races with.
//!
//! One warp store: on a GPU, one store instruction whose lanes (threads `32w .. 32w + 31` of
//! a block) write one location is one access of the warp, and one lane's value lands. An
//! executor that knows warps (the PTX emulator) names each execution of a store instruction
//! by a lane with `RaceCtx::instance`: the number of times the lane has arrived at that
//! instruction (`site`) so far, counting from 1, predicated off or not. Two synchronous writes
//! of one element are one warp store when they are by threads of one block and one warp, at
//! one site, with one nonzero instance, at one epoch: of one value they do not race; of
//! different values they are a `WarpStoreConflict` (the value that lands is not determined).
//! Lanes that arrive at the instruction a different number of times (they diverged) race as
//! any two threads do. The approximation (equal counts stand for one execution of the warp
//! even where lanes reached it along different paths) can hide only a write-write pair of one
//! value at one instruction, which leaves the same memory in either order: every read is
//! still checked against the last write, and different values still fault.
//!
//! Same-thread accesses never race here: program order orders them, and the storage's
//! pending-write checks catch an access to the thread's own write still in flight. Memory of
//! which every block has its own copy (shared memory) races only within a block: records of
//! other blocks are about another copy and are ignored.
//!
//! Invariants: block id 0 marks an empty record (ids start at 1); each kind of record is kept
//! in no chunks at all or one (possibly unallocated) chunk per `CHUNK` elements of the
//! storage, so a storage that threads do not touch costs nothing.

use std::collections::HashMap;
use std::fmt;

use crate::fault::FaultKind;
use crate::memory::GroupRef;

/// Threads per warp: a warp is threads `32w .. 32w + 31` of its block.
pub const WARP_LANES: u32 = 32;

/// The `until` epoch of an asynchronous write not yet retired by its thread's wait.
const OPEN: u32 = u32::MAX;

/// Elements per chunk of shadow records.
const CHUNK: usize = 1024;

/// A block of threads, numbered in the order blocks start, from 1 (the default, 0, marks an
/// empty record and belongs to no launch).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(u32);

impl BlockId {
    /// The position of the block in start order, from 0.
    pub fn ordinal(self) -> usize {
        (self.0 as usize).saturating_sub(1)
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "block {}", self.0)
    }
}

/// A kernel launch: the blocks from its first one on (launches run one after another, so
/// every block started since belongs to it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchId(BlockId);

impl LaunchId {
    fn contains(self, block: BlockId) -> bool {
        block >= self.0
    }
}

impl fmt::Display for LaunchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the launch from {}", self.0)
    }
}

/// Hands out block ids in start order, and launches as the blocks from the next one on.
#[derive(Debug, Default)]
pub struct BlockCounter {
    started: u32,
}

impl BlockCounter {
    /// A kernel launch starting now: it covers the next block and all later ones.
    pub fn launch(&self) -> LaunchId {
        LaunchId(BlockId(self.started.saturating_add(1)))
    }

    /// The id of a block starting now.
    pub fn next_block(&mut self) -> BlockId {
        self.started = self.started.saturating_add(1);
        BlockId(self.started)
    }
}

/// Who accesses memory, and when, for race detection: set on every thread that can share
/// memory with another thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceCtx {
    pub launch: LaunchId,
    pub block: BlockId,
    /// The thread's index in its block.
    pub thread: u32,
    /// Barriers the block had passed when the thread made the access.
    pub epoch: u32,
    /// The executor's name for the accessing statement (the interpreter's statement id),
    /// given back in races.
    pub site: u32,
    /// For a store instruction executed by a lane of a warp, the times the lane has arrived
    /// at `site` so far, from 1 (see "One warp store" above); 0 for every other access, and
    /// always in an executor without warps.
    pub instance: u32,
}

/// A write as `Shadow::write` checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    /// A synchronous write; `same_value`: it stores the bits the element already holds.
    Sync { same_value: bool },
    /// The issue of an asynchronous write.
    Async,
}

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    AsyncWrite,
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::AsyncWrite => "asynchronous write",
        })
    }
}

/// Between whom a race is: threads of one block, or blocks of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceScope {
    Threads,
    Blocks,
}

impl RaceScope {
    pub fn fault_kind(self) -> FaultKind {
        match self {
            RaceScope::Threads => FaultKind::CrossThreadRace,
            RaceScope::Blocks => FaultKind::CrossBlockRace,
        }
    }
}

impl fmt::Display for RaceScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RaceScope::Threads => "cross-thread",
            RaceScope::Blocks => "cross-block",
        })
    }
}

/// One of the two accesses of a race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceAccess {
    pub block: BlockId,
    pub thread: u32,
    pub site: u32,
    pub kind: AccessKind,
}

/// The asynchronous side of a recorded write that an access raced with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsyncWrite {
    /// `None` while the store is not yet committed.
    pub group: Option<GroupRef>,
    /// Whether the writing thread's wait has retired it (a barrier after that wait was then
    /// missing).
    pub waited: bool,
}

/// Two accesses to one element that nothing orders, at least one of them a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Race {
    pub scope: RaceScope,
    /// The access being made.
    pub current: RaceAccess,
    /// The recorded access it races with.
    pub other: RaceAccess,
    /// When `other` is an asynchronous write: its group and progress.
    pub other_async: Option<AsyncWrite>,
    /// Both accesses are synchronous writes of the same bits (set by the storage, which
    /// knows the element's value).
    pub same_value: bool,
    /// Both accesses are lanes of one warp in one execution of one store instruction
    /// (writing different values: of one value they are no race).
    pub warp_store: bool,
}

impl Race {
    /// The fault this race is: lanes of one warp storing different values in one execution
    /// of a store instruction is a warp store conflict; two threads of a block storing one
    /// value to one element synchronously is a redundant store; anything else is a race of
    /// its scope.
    pub fn fault_kind(&self) -> FaultKind {
        if self.warp_store {
            FaultKind::WarpStoreConflict
        } else if self.same_value && self.scope == RaceScope::Threads {
            FaultKind::RedundantStore
        } else {
            self.scope.fault_kind()
        }
    }
}

/// The last write to an element (24 bytes: one per element written by a tracked thread).
#[derive(Clone, Copy, Debug, Default)]
struct LastWrite {
    block: BlockId,
    thread: u32,
    /// The epochs during which the write is in progress (`until` is `OPEN` for an
    /// asynchronous write not yet retired; only asynchronous writes are ever open).
    from: u32,
    until: u32,
    site: u32,
    /// The writer's `RaceCtx::instance` (0 for an asynchronous write).
    instance: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Reader {
    thread: u32,
    site: u32,
}

/// The reads of an element a write can race with, in the common case of one reader (16
/// bytes: one per element read by a tracked thread): the latest block that read the element,
/// the latest epoch it read it at, and one reader of that epoch.
#[derive(Clone, Copy, Debug, Default)]
struct Reads {
    block: BlockId,
    epoch: u32,
    first: Reader,
}

/// What `Reads` leaves out, kept only for elements that need it.
#[derive(Clone, Copy, Debug, Default)]
struct MoreReads {
    /// A reader of the latest epoch other than `Reads::first`.
    second: Option<Reader>,
    /// A read by an earlier block of the same launch, if `earlier_block` is of the launch.
    earlier_block: BlockId,
    earlier: Reader,
}

/// Records of type `T` for the elements of a storage, in chunks of `CHUNK` allocated on first
/// use (none at all until an element is recorded).
#[derive(Debug)]
struct Chunks<T> {
    chunks: Vec<Option<Box<[T]>>>,
}

impl<T> Default for Chunks<T> {
    fn default() -> Self {
        Chunks { chunks: Vec::new() }
    }
}

impl<T: Copy + Default> Chunks<T> {
    #[inline]
    fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / CHUNK)?.as_ref()?.get(i % CHUNK)
    }

    #[inline]
    fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.chunks.get_mut(i / CHUNK)?.as_mut()?.get_mut(i % CHUNK)
    }

    /// The record of element `i` of a storage of `len` elements, allocated if need be.
    #[inline]
    fn get_or_insert(&mut self, i: usize, len: usize) -> Option<&mut T> {
        if self.chunks.is_empty() {
            self.chunks = (0..len.div_ceil(CHUNK)).map(|_| None).collect();
        }
        let chunk = self.chunks.get_mut(i / CHUNK)?;
        let chunk = chunk.get_or_insert_with(|| vec![T::default(); CHUNK].into_boxed_slice());
        chunk.get_mut(i % CHUNK)
    }
}

/// The shadow records of one storage. Writes and reads are kept apart, so a storage only
/// read (or only written) by threads pays for one of them, and the rarer facts about reads
/// (a second reader, a read by an earlier block) apart from the common one.
#[derive(Debug, Default)]
pub struct Shadow {
    writes: Chunks<LastWrite>,
    reads: Chunks<Reads>,
    more_reads: Chunks<MoreReads>,
    /// The group of each element whose last write is asynchronous (`None` until committed);
    /// an element has an entry exactly when its last write is asynchronous.
    groups: HashMap<usize, Option<GroupRef>>,
}

impl Shadow {
    /// Checks a read of element `i` by `r` against the last write, then records it.
    /// `blocks_share`: whether the blocks of a launch see the same storage (global memory);
    /// otherwise each block has its own copy, and the records of other blocks are stale.
    pub fn read(&mut self, i: usize, len: usize, r: &RaceCtx, blocks_share: bool) -> Result<(), Box<Race>> {
        let a = Accessor { ctx: r, blocks_share };
        self.check_write(i, &a, AccessKind::Read)?;
        self.note_read(i, len, &a);
        Ok(())
    }

    /// Checks a write (or the issue of an asynchronous one) to element `i` by `r` against the
    /// last write and the recorded reads, then records it (`blocks_share` as for `read`).
    /// `write` says whether it is asynchronous, and for a synchronous one whether it stores
    /// the bits the element holds (which makes the write of another lane of the same warp
    /// store no race).
    pub fn write(
        &mut self,
        i: usize,
        len: usize,
        r: &RaceCtx,
        blocks_share: bool,
        write: WriteKind,
    ) -> Result<(), Box<Race>> {
        let asynchronous = write == WriteKind::Async;
        let kind = if asynchronous { AccessKind::AsyncWrite } else { AccessKind::Write };
        let a = Accessor { ctx: r, blocks_share };
        if let Err(race) = self.check_write(i, &a, kind) {
            // The lanes of one warp store of one value: one access of the warp.
            if !(race.warp_store && write == (WriteKind::Sync { same_value: true })) {
                return Err(race);
            }
        }
        if let Some((scope, block, reader)) = read_conflict(self.reads.get(i), self.more_reads.get(i), &a) {
            let other = RaceAccess { block, thread: reader.thread, site: reader.site, kind: AccessKind::Read };
            return Err(Box::new(Race {
                scope,
                current: current(r, kind),
                other,
                other_async: None,
                same_value: false,
                warp_store: false,
            }));
        }
        let Some(w) = self.writes.get_or_insert(i, len) else { return Ok(()) };
        let own_in_flight = a.live(w.block) && w.block == r.block && w.thread == r.thread && w.until == OPEN;
        if own_in_flight && !asynchronous {
            // The thread's asynchronous write is still in progress for every other thread.
            return Ok(());
        }
        let from = if own_in_flight { w.from } else { r.epoch };
        let until = if asynchronous { OPEN } else { r.epoch };
        let instance = if asynchronous { 0 } else { r.instance };
        *w = LastWrite { block: r.block, thread: r.thread, from, until, site: r.site, instance };
        if asynchronous {
            self.groups.insert(i, None);
        } else if !self.groups.is_empty() {
            self.groups.remove(&i);
        }
        Ok(())
    }

    /// Fails when an access of `kind` by `a` to element `i` races with its last write.
    #[inline]
    fn check_write(&self, i: usize, a: &Accessor<'_>, kind: AccessKind) -> Result<(), Box<Race>> {
        let Some(w) = self.writes.get(i) else { return Ok(()) };
        let Some(scope) = write_conflict(w, a) else { return Ok(()) };
        let (other_kind, other_async) = match self.groups.get(&i) {
            Some(group) => (AccessKind::AsyncWrite, Some(AsyncWrite { group: *group, waited: w.until != OPEN })),
            None => (AccessKind::Write, None),
        };
        let other = RaceAccess { block: w.block, thread: w.thread, site: w.site, kind: other_kind };
        let r = a.ctx;
        let warp_store = scope == RaceScope::Threads
            && kind == AccessKind::Write
            && other_kind == AccessKind::Write
            && r.instance != 0
            && (w.site, w.instance) == (r.site, r.instance)
            && w.thread / WARP_LANES == r.thread / WARP_LANES
            && (w.from, w.until) == (r.epoch, r.epoch);
        Err(Box::new(Race { scope, current: current(r, kind), other, other_async, same_value: false, warp_store }))
    }

    fn note_read(&mut self, i: usize, len: usize, a: &Accessor<'_>) {
        let r = a.ctx;
        let reader = Reader { thread: r.thread, site: r.site };
        let Some(reads) = self.reads.get_or_insert(i, len) else { return };
        let live = a.live(reads.block);
        if live && reads.block == r.block && reads.epoch == r.epoch {
            if reads.first.thread != reader.thread {
                if let Some(more) = self.more_reads.get_or_insert(i, len) {
                    more.second.get_or_insert(reader);
                }
            }
            return;
        }
        // Reads of an earlier epoch of this block are ordered before everything from now on.
        let displaced = std::mem::replace(reads, Reads { block: r.block, epoch: r.epoch, first: reader });
        if let Some(more) = self.more_reads.get_mut(i) {
            more.second = None;
        }
        if live && displaced.block != r.block {
            // The reads of a finished block: every later write of the launch races with them.
            if let Some(more) = self.more_reads.get_or_insert(i, len).filter(|more| !a.live(more.earlier_block)) {
                more.earlier_block = displaced.block;
                more.earlier = displaced.first;
            }
        }
    }

    /// Records the group of the asynchronous write to element `i` by `thread`, once committed.
    pub fn set_group(&mut self, i: usize, thread: u32, group: GroupRef) {
        if self.writes.get(i).is_none_or(|w| w.thread != thread) {
            return;
        }
        if let Some(slot @ None) = self.groups.get_mut(&i) {
            *slot = Some(group);
        }
    }

    /// Forgets `thread`'s asynchronous write to element `i` once it has landed, for writes
    /// whose visibility the executor checks itself (a TMA copy completing on an mbarrier, which
    /// orders it for the threads that observe the barrier's phase, barrier or not). Its issue
    /// was checked against every earlier access, so nothing earlier is lost.
    pub fn forget_async_write(&mut self, i: usize, thread: u32) {
        if let Some(w) = self.writes.get_mut(i).filter(|w| w.thread == thread && w.until == OPEN) {
            *w = LastWrite::default();
            self.groups.remove(&i);
        }
    }

    /// `thread`'s wait at `epoch` retired `group`, which holds its asynchronous write to
    /// element `i`: from the next barrier on, other threads may access the element.
    pub fn mark_waited(&mut self, i: usize, thread: u32, group: GroupRef, epoch: u32) {
        if self.groups.get(&i) != Some(&Some(group)) {
            return;
        }
        if let Some(w) = self.writes.get_mut(i).filter(|w| w.thread == thread && w.until == OPEN) {
            w.until = epoch;
        }
    }
}

fn current(r: &RaceCtx, kind: AccessKind) -> RaceAccess {
    RaceAccess { block: r.block, thread: r.thread, site: r.site, kind }
}

/// An access as the rules see it.
struct Accessor<'r> {
    ctx: &'r RaceCtx,
    /// Whether the blocks of the launch share the storage.
    blocks_share: bool,
}

impl Accessor<'_> {
    /// Whether a record made by `block` can be unordered with this access: it is of the same
    /// launch, and of the same block unless blocks share the storage (records of a block
    /// with its own copy are about another copy).
    #[inline]
    fn live(&self, block: BlockId) -> bool {
        self.ctx.launch.contains(block) && (self.blocks_share || block == self.ctx.block)
    }
}

/// Whether the access races with the last write `w`, and how.
#[inline]
fn write_conflict(w: &LastWrite, a: &Accessor<'_>) -> Option<RaceScope> {
    let r = a.ctx;
    if !a.live(w.block) {
        return None;
    }
    if w.block != r.block {
        return Some(RaceScope::Blocks);
    }
    let in_progress = w.from <= r.epoch && r.epoch <= w.until;
    (w.thread != r.thread && in_progress).then_some(RaceScope::Threads)
}

/// A recorded read that a write races with: its scope, block and reader.
fn read_conflict(
    reads: Option<&Reads>,
    more: Option<&MoreReads>,
    a: &Accessor<'_>,
) -> Option<(RaceScope, BlockId, Reader)> {
    let r = a.ctx;
    if let Some(more) = more.filter(|more| a.live(more.earlier_block) && more.earlier_block != r.block) {
        return Some((RaceScope::Blocks, more.earlier_block, more.earlier));
    }
    let reads = reads.filter(|reads| a.live(reads.block))?;
    if reads.block != r.block {
        return Some((RaceScope::Blocks, reads.block, reads.first));
    }
    if reads.epoch != r.epoch {
        return None;
    }
    let second = more.and_then(|more| more.second);
    [Some(reads.first), second]
        .into_iter()
        .flatten()
        .find(|reader| reader.thread != r.thread)
        .map(|reader| (RaceScope::Threads, reads.block, reader))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct World {
        counter: BlockCounter,
        launch: LaunchId,
        blocks: Vec<BlockId>,
        shadow: Shadow,
    }

    impl World {
        fn new(blocks: usize) -> World {
            let mut counter = BlockCounter::default();
            let launch = counter.launch();
            let blocks = (0..blocks).map(|_| counter.next_block()).collect();
            World { counter, launch, blocks, shadow: Shadow::default() }
        }

        fn ctx(&self, block: usize, thread: u32, epoch: u32) -> RaceCtx {
            RaceCtx { launch: self.launch, block: self.blocks[block], thread, epoch, site: 10 + thread, instance: 0 }
        }

        fn read(&mut self, block: usize, thread: u32, epoch: u32) -> Result<(), Box<Race>> {
            let r = self.ctx(block, thread, epoch);
            self.shadow.read(0, 4, &r, true)
        }

        fn write(&mut self, block: usize, thread: u32, epoch: u32, asynchronous: bool) -> Result<(), Box<Race>> {
            let r = self.ctx(block, thread, epoch);
            let kind = if asynchronous { WriteKind::Async } else { WriteKind::Sync { same_value: false } };
            self.shadow.write(0, 4, &r, true, kind)
        }

        /// A synchronous write by `thread` in block 0 at epoch 0, as execution `instance` of the
        /// store instruction at `site`.
        fn store(&mut self, thread: u32, site: u32, instance: u32, same_value: bool) -> Result<(), Box<Race>> {
            let r = RaceCtx { site, instance, ..self.ctx(0, thread, 0) };
            self.shadow.write(0, 4, &r, true, WriteKind::Sync { same_value })
        }
    }

    fn scope_of(result: Result<(), Box<Race>>) -> Option<RaceScope> {
        result.err().map(|race| race.scope)
    }

    const G: GroupRef = GroupRef { queue: 0, seq: 0, commit_line: 3 };

    #[test]
    fn reads_never_race_with_reads() {
        let mut w = World::new(2);
        assert!(w.read(0, 0, 0).is_ok());
        assert!(w.read(0, 1, 0).is_ok());
        assert!(w.read(1, 0, 0).is_ok());
    }

    #[test]
    fn unordered_threads_race_in_either_order() {
        // write then read, read then write, write then write: same epoch, other thread.
        let mut w = World::new(1);
        w.write(0, 0, 0, false).unwrap();
        assert_eq!(scope_of(w.read(0, 1, 0)), Some(RaceScope::Threads));
        let mut w = World::new(1);
        w.read(0, 1, 0).unwrap();
        let race = w.write(0, 0, 0, false).unwrap_err();
        assert_eq!((race.current.kind, race.other.kind, race.other.thread), (AccessKind::Write, AccessKind::Read, 1));
        let mut w = World::new(1);
        w.write(0, 1, 0, false).unwrap();
        assert_eq!(scope_of(w.write(0, 0, 0, true)), Some(RaceScope::Threads));
    }

    #[test]
    fn a_barrier_orders_threads() {
        let mut w = World::new(1);
        w.write(0, 0, 0, false).unwrap();
        w.read(0, 1, 1).unwrap();
        w.read(0, 2, 1).unwrap();
        w.write(0, 1, 2, false).unwrap();
        w.read(0, 1, 2).unwrap();
    }

    #[test]
    fn a_writer_finds_a_reader_other_than_itself() {
        let mut w = World::new(1);
        w.read(0, 0, 0).unwrap();
        w.read(0, 1, 0).unwrap();
        w.read(0, 2, 0).unwrap();
        let race = w.write(0, 0, 0, false).unwrap_err();
        assert_eq!(race.other.thread, 1);
        assert_eq!(race.other.site, 11);
        let mut w = World::new(1);
        w.read(0, 0, 0).unwrap();
        w.write(0, 0, 0, false).unwrap();
    }

    #[test]
    fn readers_of_an_earlier_epoch_are_forgotten() {
        let mut w = World::new(1);
        w.read(0, 0, 0).unwrap();
        w.read(0, 1, 0).unwrap();
        w.read(0, 0, 1).unwrap();
        w.write(0, 0, 1, false).unwrap();
    }

    #[test]
    fn an_async_write_is_in_progress_until_its_wait() {
        let mut w = World::new(1);
        w.write(0, 0, 0, true).unwrap();
        w.shadow.set_group(0, 0, G);
        // Not waited: every later epoch races.
        let race = w.read(0, 1, 3).unwrap_err();
        assert_eq!(race.other_async, Some(AsyncWrite { group: Some(G), waited: false }));
        w.shadow.mark_waited(0, 0, G, 3);
        let race = w.read(0, 1, 3).unwrap_err();
        assert_eq!(race.other_async, Some(AsyncWrite { group: Some(G), waited: true }));
        w.read(0, 1, 4).unwrap();
    }

    #[test]
    fn a_wait_of_another_group_or_thread_does_not_retire_the_write() {
        let mut w = World::new(1);
        w.write(0, 0, 0, true).unwrap();
        w.shadow.set_group(0, 0, G);
        w.shadow.mark_waited(0, 0, GroupRef { seq: 1, ..G }, 1);
        w.shadow.mark_waited(0, 1, G, 1);
        assert!(w.read(0, 1, 5).is_err());
    }

    #[test]
    fn an_own_sync_write_keeps_the_async_write_in_progress() {
        let mut w = World::new(1);
        w.write(0, 0, 0, true).unwrap();
        w.write(0, 0, 1, false).unwrap();
        assert_eq!(w.read(0, 1, 2).unwrap_err().other.kind, AccessKind::AsyncWrite);
    }

    #[test]
    fn blocks_of_one_launch_race_whatever_their_epochs() {
        let mut w = World::new(2);
        w.write(0, 0, 0, false).unwrap();
        assert_eq!(scope_of(w.read(1, 3, 7)), Some(RaceScope::Blocks));
        let mut w = World::new(3);
        w.read(0, 0, 0).unwrap();
        w.read(1, 0, 0).unwrap();
        w.read(1, 0, 1).unwrap();
        // Block 1's own reads are ordered, but block 0's read is not.
        let race = w.write(1, 0, 1, false).unwrap_err();
        assert_eq!((race.scope, race.other.block), (RaceScope::Blocks, w.blocks[0]));
        let mut w = World::new(2);
        w.write(0, 0, 0, true).unwrap();
        w.shadow.mark_waited(0, 0, G, 0);
        assert_eq!(scope_of(w.write(1, 0, 5, true)), Some(RaceScope::Blocks));
    }

    #[test]
    fn blocks_with_their_own_copy_never_race() {
        let mut w = World::new(3);
        let (b0, b1) = (w.ctx(0, 0, 0), w.ctx(1, 1, 0));
        w.shadow.write(0, 4, &b0, false, WriteKind::Async).unwrap();
        w.shadow.read(0, 4, &b1, false).unwrap();
        w.shadow.write(0, 4, &b1, false, WriteKind::Sync { same_value: false }).unwrap();
        // Within one block the rules are the same.
        let race = w.shadow.read(0, 4, &w.ctx(1, 0, 0), false).unwrap_err();
        assert_eq!(race.scope, RaceScope::Threads);
    }

    #[test]
    fn launches_are_ordered() {
        let mut w = World::new(1);
        w.write(0, 0, 0, true).unwrap();
        w.read(0, 1, 0).unwrap_err();
        w.launch = w.counter.launch();
        w.blocks = vec![w.counter.next_block(), w.counter.next_block()];
        w.read(0, 1, 0).unwrap();
        w.write(0, 1, 0, false).unwrap();
        assert_eq!(scope_of(w.read(1, 0, 0)), Some(RaceScope::Blocks));
    }

    #[test]
    fn lanes_of_one_warp_store_are_one_access() {
        // Of one value: no race, whichever lanes and however many.
        let mut w = World::new(1);
        w.store(3, 7, 1, false).unwrap();
        w.store(5, 7, 1, true).unwrap();
        w.store(31, 7, 1, true).unwrap();
        // Of another value: a warp store conflict naming both lanes.
        let race = w.store(0, 7, 1, false).unwrap_err();
        assert!(race.warp_store);
        assert_eq!(race.fault_kind(), FaultKind::WarpStoreConflict);
        assert_eq!((race.current.thread, race.other.thread), (0, 31));
        // A read of the warp store's element by another lane still races.
        assert_eq!(scope_of(w.read(0, 4, 0)), Some(RaceScope::Threads));
    }

    #[test]
    fn warp_stores_need_one_warp_one_instruction_one_execution_one_epoch() {
        let race_of = |second: RaceCtx| {
            let mut w = World::new(1);
            w.store(1, 7, 2, false).unwrap();
            let race = w.shadow.write(0, 4, &second, true, WriteKind::Sync { same_value: true }).unwrap_err();
            assert!(!race.warp_store);
            race.fault_kind()
        };
        let w = World::new(1);
        let lane = |thread| RaceCtx { site: 7, instance: 2, ..w.ctx(0, thread, 0) };
        // Another warp, another instruction, another execution: races (of one value, redundant).
        assert_eq!(race_of(lane(32)), FaultKind::CrossThreadRace);
        assert_eq!(race_of(RaceCtx { site: 8, ..lane(2) }), FaultKind::CrossThreadRace);
        assert_eq!(race_of(RaceCtx { instance: 3, ..lane(2) }), FaultKind::CrossThreadRace);
        // An executor without warps names no instance.
        let mut w = World::new(1);
        w.store(1, 7, 0, false).unwrap();
        assert!(!w.store(2, 7, 0, true).unwrap_err().warp_store);
        // After a barrier the write is ordered, whatever it is.
        let mut w = World::new(1);
        w.store(1, 7, 2, false).unwrap();
        let later = RaceCtx { epoch: 1, ..lane(2) };
        w.shadow.write(0, 4, &later, true, WriteKind::Sync { same_value: false }).unwrap();
        // An asynchronous write is never part of a warp store.
        let mut w = World::new(1);
        w.shadow.write(0, 4, &RaceCtx { site: 7, instance: 2, ..w.ctx(0, 1, 0) }, true, WriteKind::Async).unwrap();
        assert!(!w.store(2, 7, 2, true).unwrap_err().warp_store);
    }

    #[test]
    fn untouched_storages_allocate_nothing() {
        let mut shadow = Shadow::default();
        shadow.set_group(5, 0, G);
        shadow.mark_waited(5, 0, G, 1);
        assert!(shadow.writes.chunks.is_empty() && shadow.reads.chunks.is_empty());
        let w = World::new(1);
        shadow.read(2047, 4096, &w.ctx(0, 0, 0), true).unwrap();
        assert!(shadow.writes.chunks.is_empty());
        assert_eq!(shadow.reads.chunks.len(), 4);
        assert_eq!(shadow.reads.chunks.iter().filter(|c| c.is_some()).count(), 1);
    }
}
