//! Storages: the flat arrays behind data variables, with the per-element bookkeeping that
//! turns misuse into faults.
//!
//! A storage is a flat array of scalar elements of its allocating kind. Each element may
//! carry three facts, each kept only when needed so plain programs pay nothing for them:
//! - `init`: written at least once (empty vector = everything initialized, as for
//!   parameters); reading an uninitialized element is a poison read;
//! - `pending`: an asynchronous write issued and not yet completed; the element must not be
//!   read or written until it completes (the map is empty in synchronous programs);
//! - `shadow`: the accesses a later access can race with (`race`), for storages several
//!   threads can see, recorded only for accesses made with a race context.
//!
//! Invariants: `data.len() == len`; `init` is empty or has `len` entries; a pending element
//! is never overwritten by a plain write; a storage's shadow starts empty with each lifetime.

use std::collections::HashMap;
use std::sync::Arc;

use super::error::{Trap, R};
use super::limit::InFlight;
use super::race::{AccessKind, Race, RaceCtx, Shadow, WriteKind};
use super::value::Num;

/// The interpreter's memory budget, in scalar elements over all live storages.
pub const MAX_LIVE_ELEMENTS: usize = 1 << 26;

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

/// Which threads see a storage (from its scope), and so what can race on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// One thread's registers or local memory: never raced on.
    Thread,
    /// The threads of one block (shared memory): every block has its own copy, so only
    /// threads of one block race on it.
    Block,
    /// Every thread of every block (global memory, parameters).
    Device,
}

/// Why an element access failed; the executor turns it into a located fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccessError {
    OutOfStorage { len: usize },
    Poison,
    Pending(Pending),
    Race(Box<Race>),
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
    shadow: Shadow,
    /// Which threads see it: races are tracked unless only one thread does.
    pub visibility: Visibility,
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

    /// Whether accesses made with `race` are checked and recorded for races.
    #[inline(always)]
    fn tracks(&self, race: Option<&RaceCtx>) -> bool {
        self.tracked(race).is_some()
    }

    /// The race context of an access that must be checked and recorded, if any.
    #[inline(always)]
    fn tracked<'r>(&self, race: Option<&'r RaceCtx>) -> Option<&'r RaceCtx> {
        race.filter(|_| self.visibility != Visibility::Thread)
    }

    /// Whether blocks share this storage (else a block's accesses never race with another's).
    fn blocks_share(&self) -> bool {
        self.visibility == Visibility::Device
    }

    /// Reads element `off` when nothing needs checking beyond bounds and poison (no pending
    /// async write anywhere in the storage, no race tracking); `None` sends the caller to
    /// `read`, which checks everything and explains failures.
    #[inline(always)]
    pub fn try_read(&self, off: i64, race: Option<&RaceCtx>) -> Option<u64> {
        let i = usize::try_from(off).ok()?;
        let bits = *self.data.as_slice().get(i)?;
        let simple =
            self.pending.is_empty() && (self.init.is_empty() || self.init.get(i) == Some(&true)) && !self.tracks(race);
        simple.then_some(bits)
    }

    /// Writes element `off` when nothing needs checking or recording beyond bounds; `false`
    /// sends the caller to `write`.
    #[inline(always)]
    pub fn try_write(&mut self, off: i64, bits: u64, race: Option<&RaceCtx>) -> bool {
        if !self.pending.is_empty() || self.tracks(race) {
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

    /// Fails when an async write to element `i` is pending.
    #[inline]
    fn pending_at(&self, i: usize) -> Result<(), AccessError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.pending.get(&i).map_or(Ok(()), |p| Err(AccessError::Pending(*p)))
    }

    /// Reads element `off`, checking pending async writes, poison and (with `race`) races
    /// with other threads' writes, and records the read for later writes to check.
    pub fn read(&mut self, off: i64, race: Option<&RaceCtx>) -> Result<u64, AccessError> {
        let i = self.index(off)?;
        // A pending async write explains an uninitialized element better than poison does.
        self.pending_at(i)?;
        if !self.init.is_empty() && !self.init[i] {
            return Err(AccessError::Poison);
        }
        if let Some(r) = self.tracked(race) {
            self.shadow.read(i, self.data.len(), r, self.blocks_share()).map_err(AccessError::Race)?;
        }
        Ok(self.data.as_slice()[i])
    }

    /// Writes element `off` synchronously, checking pending async writes and (with `race`)
    /// races with other threads' accesses.
    pub fn write(&mut self, off: i64, bits: u64, race: Option<&RaceCtx>) -> Result<(), AccessError> {
        let i = self.index(off)?;
        self.pending_at(i)?;
        if let Some(r) = self.tracked(race) {
            let stored = self.data.as_slice()[i];
            let same_value = self.init.get(i).is_none_or(|flag| *flag) && stored == bits;
            let kind = WriteKind::Sync { same_value };
            self.shadow.write(i, self.data.len(), r, self.blocks_share(), kind).map_err(|mut race| {
                race.same_value =
                    same_value && race.current.kind == AccessKind::Write && race.other.kind == AccessKind::Write;
                AccessError::Race(race)
            })?;
        }
        match &mut self.data {
            Data::Owned(v) => v[i] = bits,
            shared => shared.to_mut()[i] = bits,
        }
        if !self.init.is_empty() {
            self.init[i] = true;
        }
        Ok(())
    }

    /// Marks element `off` as the destination of an async write; returns its index.
    pub fn issue(&mut self, off: i64, pending: Pending, race: Option<&RaceCtx>) -> Result<usize, AccessError> {
        let i = self.index(off)?;
        self.pending_at(i)?;
        if let Some(r) = self.tracked(race) {
            self.shadow
                .write(i, self.data.len(), r, self.blocks_share(), WriteKind::Async)
                .map_err(AccessError::Race)?;
        }
        self.pending.insert(i, pending);
        Ok(i)
    }

    /// Records the group of a committed async write to element `i` by `thread` (the race
    /// context's thread when races are tracked).
    pub fn set_group(&mut self, i: usize, group: GroupRef, thread: u32) {
        if let Some(p) = self.pending.get_mut(&i) {
            p.group = Some(group);
        }
        self.shadow.set_group(i, thread, group);
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

    /// The async write to element `i` by `thread` landed and its ordering is the executor's
    /// to check from now on (`Shadow::forget_async_write`).
    pub fn forget_async_write(&mut self, i: usize, thread: u32) {
        self.shadow.forget_async_write(i, thread);
    }

    /// The writing thread's wait retired the async write to element `i` at barrier `epoch`.
    pub fn mark_waited(&mut self, i: usize, thread: u32, group: GroupRef, epoch: u32) {
        self.shadow.mark_waited(i, thread, group, epoch);
    }
}

/// All storages of one run, addressed by index. Freed storages are recycled unless an async
/// write to them is still pending.
#[derive(Debug, Default)]
pub struct Memory {
    pub storages: Vec<Storage>,
    free: Vec<u32>,
    live_elements: usize,
    /// The async stores and groups of every thread not yet retired by a wait (`limit`).
    pub in_flight: InFlight,
}

impl Memory {
    /// A new storage of `len` elements: `contents` for parameters (fully initialized, `len`
    /// elements), or poisoned zeros for allocations.
    pub fn alloc(&mut self, name: &str, num: Num, len: i64, contents: Option<Data>, visibility: Visibility) -> R<u32> {
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
            shadow: Shadow::default(),
            visibility,
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
        // Another block may run this allocation again: its storage is then another block's.
        s.shadow = Shadow::default();
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
            s.shadow = Shadow::default();
            self.free.push(idx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::race::{BlockCounter, RaceScope};

    fn ctx(thread: u32, epoch: u32) -> RaceCtx {
        let mut blocks = BlockCounter::default();
        RaceCtx { launch: blocks.launch(), block: blocks.next_block(), thread, epoch, site: 0, instance: 0 }
    }

    #[test]
    fn allocations_start_poisoned() {
        let mut mem = Memory::default();
        let s = mem.alloc("B", Num::F32, 4, None, Visibility::Device).unwrap() as usize;
        assert_eq!(mem.storages[s].read(1, None), Err(AccessError::Poison));
        mem.storages[s].write(1, 7, None).unwrap();
        assert_eq!(mem.storages[s].read(1, None), Ok(7));
        assert_eq!(mem.storages[s].read(4, None), Err(AccessError::OutOfStorage { len: 4 }));
        assert_eq!(mem.storages[s].read(-1, None), Err(AccessError::OutOfStorage { len: 4 }));
    }

    #[test]
    fn pending_writes_block_access_until_complete() {
        let mut mem = Memory::default();
        let s = mem.alloc("A", Num::Int(32), 2, Some(Data::Owned(vec![1, 2])), Visibility::Device).unwrap() as usize;
        let p = Pending { issue_line: 5, thread: 0, group: None };
        let i = mem.storages[s].issue(0, p, None).unwrap();
        assert_eq!(mem.storages[s].read(0, None), Err(AccessError::Pending(p)));
        assert_eq!(mem.storages[s].write(0, 9, None), Err(AccessError::Pending(p)));
        assert_eq!(mem.storages[s].read(1, None), Ok(2));
        mem.storages[s].complete(i, 42);
        assert_eq!(mem.storages[s].read(0, None), Ok(42));
    }

    #[test]
    fn plain_writes_are_visible_to_other_threads_after_a_barrier() {
        let mut mem = Memory::default();
        let s = mem.alloc("S", Num::F32, 2, None, Visibility::Device).unwrap() as usize;
        mem.storages[s].write(0, 1, Some(&ctx(0, 0))).unwrap();
        assert_eq!(mem.storages[s].read(0, Some(&ctx(0, 0))), Ok(1));
        assert!(matches!(mem.storages[s].read(0, Some(&ctx(1, 0))), Err(AccessError::Race(_))));
        assert_eq!(mem.storages[s].read(0, Some(&ctx(1, 1))), Ok(1));
    }

    #[test]
    fn writes_and_issues_are_checked_against_reads() {
        let mut mem = Memory::default();
        let s = mem.alloc("S", Num::F32, 2, Some(Data::Owned(vec![0, 0])), Visibility::Device).unwrap() as usize;
        let storage = &mut mem.storages[s];
        storage.read(0, Some(&ctx(1, 0))).unwrap();
        let Err(AccessError::Race(race)) = storage.write(0, 5, Some(&ctx(0, 0))) else { panic!("no race") };
        assert_eq!(race.scope, RaceScope::Threads);
        // The racing write changed nothing.
        assert_eq!(storage.read(0, None), Ok(0));
        let p = Pending { issue_line: 5, thread: 0, group: None };
        assert!(matches!(storage.issue(0, p, Some(&ctx(0, 0))), Err(AccessError::Race(_))));
        assert!(storage.issue(0, p, Some(&ctx(0, 1))).is_ok());
    }

    #[test]
    fn local_storages_are_never_tracked() {
        let mut mem = Memory::default();
        let s = mem.alloc("L", Num::F32, 1, None, Visibility::Thread).unwrap() as usize;
        assert!(mem.storages[s].try_write(0, 1, Some(&ctx(0, 0))));
        assert_eq!(mem.storages[s].try_read(0, Some(&ctx(1, 0))), Some(1));
    }

    #[test]
    fn freed_storage_is_recycled_and_counted() {
        let mut mem = Memory::default();
        let a = mem.alloc("a", Num::F32, 8, None, Visibility::Thread).unwrap();
        mem.free(a);
        let b = mem.alloc("b", Num::F32, 8, None, Visibility::Thread).unwrap();
        assert_eq!(a, b);
        assert!(mem.alloc("huge", Num::F32, 1 << 40, None, Visibility::Thread).is_err());
        assert!(mem.alloc("neg", Num::F32, -1, None, Visibility::Thread).is_err());
    }
}
