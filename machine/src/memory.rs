//! Storages: the flat arrays behind data variables, with the per-element bookkeeping that
//! turns misuse into faults.
//!
//! A storage is a flat array of scalar elements of its allocating kind. Each element may
//! carry three facts, each kept only when needed so plain programs pay nothing for them:
//! - `init`: written at least once (empty vector = everything initialized, as for
//!   parameters); reading an uninitialized element is a poison read;
//! - `pending`: an asynchronous write issued and not yet completed; the element must not be
//!   read or written until it completes (the map is empty in synchronous programs);
//! - `writers`: the last writer (thread, barrier epoch, async group) when several threads
//!   share the storage; kept in chunks of `WRITER_CHUNK` elements allocated on the first
//!   write to them from a multi-thread block, so memory follows what threads touch.
//!
//! Invariants: `data.len() == len`; `init` is empty or has `len` entries; `writers` is
//! empty or has one (possibly unallocated) chunk per `WRITER_CHUNK` elements; a pending element is never overwritten by a plain write.

use std::collections::HashMap;
use std::sync::Arc;

use super::error::{Trap, R};
use super::value::Num;

/// The interpreter's memory budget, in scalar elements over all live storages.
pub const MAX_LIVE_ELEMENTS: usize = 1 << 26;

/// Elements per chunk of writer records.
const WRITER_CHUNK: usize = 1024;

/// Identifies the async group a pending write belongs to, once committed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupRef {
    pub queue: i64,
    pub seq: u32,
    pub commit_line: u32,
}

/// An asynchronous write waiting for its group to complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    pub issue_line: u32,
    pub thread: u32,
    /// `None` until the store is committed.
    pub group: Option<GroupRef>,
}

/// The async side of a tracked write: its group and the barrier epoch of the wait that
/// retired it (`None` until the writing thread waits for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsyncWrite {
    pub group: Option<GroupRef>,
    pub waited_epoch: Option<u32>,
}

/// The last write to an element of a storage shared by the threads of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Writer {
    /// The thread region (block) of the write; 0 means "no tracked write".
    pub region: u32,
    pub thread: u32,
    /// Barriers the writer had passed when it wrote.
    pub epoch: u32,
    pub line: u32,
    pub async_write: Option<AsyncWrite>,
}

impl Writer {
    const NONE: Writer = Writer { region: 0, thread: 0, epoch: 0, line: 0, async_write: None };
}

/// The accessing thread, for race tracking (only in blocks of several threads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceCtx {
    pub region: u32,
    pub thread: u32,
    pub epoch: u32,
}

/// Why an element access failed; the executor turns it into a located fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessError {
    OutOfStorage { len: usize },
    Poison,
    Pending(Pending),
    Race(Writer),
}

/// The elements of a storage: owned, or a caller's tensor shared until the first write (so
/// read-only parameters are never copied).
#[derive(Debug)]
pub enum Data {
    Owned(Vec<u64>),
    Shared(Arc<Vec<u64>>),
}

impl Data {
    #[inline]
    pub fn as_slice(&self) -> &[u64] {
        match self {
            Data::Owned(v) => v,
            Data::Shared(a) => a,
        }
    }

    /// The elements, copied out of the shared tensor on first use.
    #[inline]
    fn to_mut(&mut self) -> &mut Vec<u64> {
        if let Data::Shared(a) = self {
            let owned = std::mem::take(Arc::make_mut(a));
            *self = Data::Owned(owned);
        }
        match self {
            Data::Owned(v) => v,
            Data::Shared(a) => Arc::make_mut(a),
        }
    }

    /// The elements as a tensor's shared buffer (no copy).
    pub fn into_shared(self) -> Arc<Vec<u64>> {
        match self {
            Data::Owned(v) => Arc::new(v),
            Data::Shared(a) => a,
        }
    }

    fn len(&self) -> usize {
        self.as_slice().len()
    }
}

#[derive(Debug)]
pub struct Storage {
    /// The name of the buffer or variable that allocated it, for messages.
    pub name: String,
    pub num: Num,
    pub data: Data,
    init: Vec<bool>,
    pending: HashMap<usize, Pending>,
    writers: Vec<Option<Box<[Writer]>>>,
    /// Whether several threads may see it (not a per-thread local), so races are tracked.
    pub shared: bool,
    pub live: bool,
}

impl Storage {
    #[inline]
    fn index(&self, off: i64) -> Result<usize, AccessError> {
        match usize::try_from(off) {
            Ok(i) if i < self.data.len() => Ok(i),
            _ => Err(AccessError::OutOfStorage { len: self.data.len() }),
        }
    }

    /// Reads element `off` when nothing needs checking beyond bounds and poison (no pending
    /// async write anywhere in the storage, no tracked writers); `None` sends the caller to
    /// `read`, which checks everything and explains failures.
    #[inline(always)]
    pub fn try_read(&self, off: i64, race: Option<&RaceCtx>) -> Option<u64> {
        let i = usize::try_from(off).ok()?;
        let bits = *self.data.as_slice().get(i)?;
        let simple = self.pending.is_empty()
            && (self.init.is_empty() || self.init.get(i) == Some(&true))
            && (race.is_none() || self.writers.is_empty());
        simple.then_some(bits)
    }

    /// Writes element `off` when nothing needs checking or recording beyond bounds; `false`
    /// sends the caller to `write`.
    #[inline(always)]
    pub fn try_write(&mut self, off: i64, bits: u64, race: Option<&RaceCtx>) -> bool {
        if !self.pending.is_empty() || race.is_some() {
            return false;
        }
        let (Ok(i), Data::Owned(data)) = (usize::try_from(off), &mut self.data) else {
            return false;
        };
        let Some(slot) = data.get_mut(i) else {
            return false;
        };
        *slot = bits;
        if let Some(flag) = self.init.get_mut(i) {
            *flag = true;
        }
        true
    }

    /// Reads element `off`, checking poison, pending async writes and (with `race`) whether
    /// another thread's write to it is visible yet.
    pub fn read(&self, off: i64, race: Option<&RaceCtx>) -> Result<u64, AccessError> {
        let i = self.index(off)?;
        // A pending async write explains an uninitialized element better than poison does.
        if !self.pending.is_empty() {
            if let Some(p) = self.pending.get(&i) {
                return Err(AccessError::Pending(*p));
            }
        }
        if !self.init.is_empty() && !self.init[i] {
            return Err(AccessError::Poison);
        }
        if let (Some(r), false) = (race, self.writers.is_empty()) {
            self.check_race(i, r)?;
        }
        Ok(self.data.as_slice()[i])
    }

    fn check_race(&self, i: usize, r: &RaceCtx) -> Result<(), AccessError> {
        let Some(Some(chunk)) = self.writers.get(i / WRITER_CHUNK) else {
            return Ok(());
        };
        let w = chunk[i % WRITER_CHUNK];
        if w.region != r.region || w.thread == r.thread {
            return Ok(());
        }
        // A plain write is visible after the next barrier; an async one after the writer's
        // wait retired it and a barrier followed that wait.
        let visible_after = match w.async_write {
            None => Some(w.epoch),
            Some(a) => a.waited_epoch,
        };
        match visible_after {
            Some(e) if r.epoch > e => Ok(()),
            _ => Err(AccessError::Race(w)),
        }
    }

    /// Writes element `off` synchronously.
    pub fn write(&mut self, off: i64, bits: u64, race: Option<&RaceCtx>, line: u32) -> Result<(), AccessError> {
        let i = self.index(off)?;
        if !self.pending.is_empty() {
            if let Some(p) = self.pending.get(&i) {
                return Err(AccessError::Pending(*p));
            }
        }
        match &mut self.data {
            Data::Owned(v) => v[i] = bits,
            shared => shared.to_mut()[i] = bits,
        }
        if !self.init.is_empty() {
            self.init[i] = true;
        }
        if let (Some(r), true) = (race, self.shared) {
            self.record(i, r, line, None);
        }
        Ok(())
    }

    fn record(&mut self, i: usize, r: &RaceCtx, line: u32, async_write: Option<AsyncWrite>) {
        if self.writers.is_empty() {
            self.writers = vec![None; self.data.len().div_ceil(WRITER_CHUNK)];
        }
        let Some(chunk) = self.writers.get_mut(i / WRITER_CHUNK) else {
            return;
        };
        let chunk = chunk.get_or_insert_with(|| vec![Writer::NONE; WRITER_CHUNK].into_boxed_slice());
        chunk[i % WRITER_CHUNK] = Writer { region: r.region, thread: r.thread, epoch: r.epoch, line, async_write };
    }

    fn writer_mut(&mut self, i: usize) -> Option<&mut Writer> {
        self.writers.get_mut(i / WRITER_CHUNK)?.as_mut()?.get_mut(i % WRITER_CHUNK)
    }

    /// Marks element `off` as the destination of an async write; returns its index.
    pub fn issue(&mut self, off: i64, pending: Pending, race: Option<&RaceCtx>) -> Result<usize, AccessError> {
        let i = self.index(off)?;
        if let Some(p) = self.pending.get(&i) {
            return Err(AccessError::Pending(*p));
        }
        self.pending.insert(i, pending);
        if let (Some(r), true) = (race, self.shared) {
            let async_write = AsyncWrite { group: None, waited_epoch: None };
            self.record(i, r, pending.issue_line, Some(async_write));
        }
        Ok(i)
    }

    /// Records the group of a committed async write to element `i`.
    pub fn set_group(&mut self, i: usize, group: GroupRef, thread: u32) {
        if let Some(p) = self.pending.get_mut(&i) {
            p.group = Some(group);
        }
        if let Some(w) = self.writer_mut(i) {
            if let (true, Some(a)) = (w.thread == thread, w.async_write.as_mut()) {
                if a.group.is_none() {
                    a.group = Some(group);
                }
            }
        }
    }

    /// Completes the async write to element `i`: the value lands and the element is free.
    pub fn complete(&mut self, i: usize, bits: u64) {
        self.pending.remove(&i);
        if let Some(slot) = self.data.to_mut().get_mut(i) {
            *slot = bits;
        }
        if let Some(flag) = self.init.get_mut(i) {
            *flag = true;
        }
    }

    /// The writing thread's wait retired the async write to element `i` at barrier `epoch`.
    pub fn mark_waited(&mut self, i: usize, thread: u32, group: GroupRef, epoch: u32) {
        if let Some(w) = self.writer_mut(i) {
            if let (true, Some(a)) = (w.thread == thread, w.async_write.as_mut()) {
                if a.group.map(|g| (g.queue, g.seq)) == Some((group.queue, group.seq)) {
                    a.waited_epoch = Some(epoch);
                }
            }
        }
    }
}

/// All storages of one run, addressed by index. Freed storages are recycled unless an async
/// write to them is still pending.
#[derive(Debug, Default)]
pub struct Memory {
    pub storages: Vec<Storage>,
    free: Vec<u32>,
    live_elements: usize,
}

impl Memory {
    /// A new storage of `len` elements: `contents` for parameters (fully initialized, `len`
    /// elements), or poisoned zeros for allocations.
    pub fn alloc(&mut self, name: &str, num: Num, len: i64, contents: Option<Data>, shared: bool) -> R<u32> {
        let len = usize::try_from(len)
            .map_err(|_| Trap::ill_formed(format!("allocation of `{name}` with negative size {len}")))?;
        let total = self.live_elements.saturating_add(len);
        if total > MAX_LIVE_ELEMENTS {
            return Err(Trap::resource(format!(
                "allocating {len} elements for `{name}` exceeds the interpreter's limit of {MAX_LIVE_ELEMENTS} live elements"
            )));
        }
        self.live_elements = total;
        let (data, init) = match contents {
            Some(data) => (data, Vec::new()),
            None => (Data::Owned(vec![0; len]), vec![false; len]),
        };
        let storage = Storage {
            name: name.to_string(),
            num,
            data,
            init,
            pending: HashMap::new(),
            writers: Vec::new(),
            shared,
            live: true,
        };
        if let Some(idx) = self.free.pop() {
            self.storages[idx as usize] = storage;
            return Ok(idx);
        }
        let idx = u32::try_from(self.storages.len()).map_err(|_| Trap::resource("too many allocations"))?;
        self.storages.push(storage);
        Ok(idx)
    }

    /// Whether an async write to the storage is still pending.
    pub fn has_pending(&self, idx: u32) -> bool {
        self.storages.get(idx as usize).is_some_and(|s| !s.pending.is_empty())
    }

    /// Starts a new lifetime of a storage that ended with async writes pending (and so was
    /// kept), for the next execution of the same allocation: its elements are uninitialized
    /// again, its pending writes stay pending. False when it cannot be reused.
    pub fn revive(&mut self, idx: u32, len: i64) -> bool {
        let Ok(len) = usize::try_from(len) else { return false };
        let Some(s) = self.storages.get_mut(idx as usize) else { return false };
        if s.live || s.data.len() != len || len == 0 {
            return false;
        }
        s.live = true;
        s.init = vec![false; len];
        self.live_elements = self.live_elements.saturating_add(len);
        true
    }

    /// Ends the lifetime of a storage. Its slot is reused unless async writes to it are still
    /// pending (they must land somewhere when their group completes).
    pub fn free(&mut self, idx: u32) {
        let Some(s) = self.storages.get_mut(idx as usize) else {
            return;
        };
        if !s.live {
            return;
        }
        s.live = false;
        self.live_elements = self.live_elements.saturating_sub(s.data.len());
        if s.pending.is_empty() {
            s.data = Data::Owned(Vec::new());
            s.init = Vec::new();
            s.writers = Vec::new();
            self.free.push(idx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(thread: u32, epoch: u32) -> RaceCtx {
        RaceCtx { region: 1, thread, epoch }
    }

    #[test]
    fn allocations_start_poisoned() {
        let mut mem = Memory::default();
        let s = mem.alloc("B", Num::F32, 4, None, true).unwrap() as usize;
        assert_eq!(mem.storages[s].read(1, None), Err(AccessError::Poison));
        mem.storages[s].write(1, 7, None, 3).unwrap();
        assert_eq!(mem.storages[s].read(1, None), Ok(7));
        assert_eq!(mem.storages[s].read(4, None), Err(AccessError::OutOfStorage { len: 4 }));
        assert_eq!(mem.storages[s].read(-1, None), Err(AccessError::OutOfStorage { len: 4 }));
    }

    #[test]
    fn pending_writes_block_access_until_complete() {
        let mut mem = Memory::default();
        let s = mem.alloc("A", Num::Int(32), 2, Some(Data::Owned(vec![1, 2])), true).unwrap() as usize;
        let p = Pending { issue_line: 5, thread: 0, group: None };
        let i = mem.storages[s].issue(0, p, None).unwrap();
        assert_eq!(mem.storages[s].read(0, None), Err(AccessError::Pending(p)));
        assert_eq!(mem.storages[s].write(0, 9, None, 6), Err(AccessError::Pending(p)));
        assert_eq!(mem.storages[s].read(1, None), Ok(2));
        mem.storages[s].complete(i, 42);
        assert_eq!(mem.storages[s].read(0, None), Ok(42));
    }

    #[test]
    fn plain_writes_are_visible_to_other_threads_after_a_barrier() {
        let mut mem = Memory::default();
        let s = mem.alloc("S", Num::F32, 2, None, true).unwrap() as usize;
        mem.storages[s].write(0, 1, Some(&ctx(0, 0)), 3).unwrap();
        assert_eq!(mem.storages[s].read(0, Some(&ctx(0, 0))), Ok(1));
        assert!(matches!(mem.storages[s].read(0, Some(&ctx(1, 0))), Err(AccessError::Race(_))));
        assert_eq!(mem.storages[s].read(0, Some(&ctx(1, 1))), Ok(1));
    }

    #[test]
    fn freed_storage_is_recycled_and_counted() {
        let mut mem = Memory::default();
        let a = mem.alloc("a", Num::F32, 8, None, false).unwrap();
        mem.free(a);
        let b = mem.alloc("b", Num::F32, 8, None, false).unwrap();
        assert_eq!(a, b);
        assert!(mem.alloc("huge", Num::F32, 1 << 40, None, false).is_err());
        assert!(mem.alloc("neg", Num::F32, -1, None, false).is_err());
    }
}
