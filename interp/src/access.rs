//! Buffer loads and stores: index evaluation, bounds checks, docs/buffers-and-lanes.md lanes, aliases that
//! reinterpret a storage, async issue, and the messages of access faults.
//!
//! An access `B[i_0, ..., i_k]` is checked per dimension against `B`'s shape, turned into a
//! scalar offset `(elem_offset + sum(i_d * stride_d)) * M` (M = lanes of `B`'s element) into
//! the storage, and then each of the M scalars (times N index lanes) is checked by the
//! storage (bounds, poison, pending async write, cross-thread visibility).

use super::compile::MAX_DIMS;
use super::exec::Executor;
use super::frame::{Layout, NO_STORAGE};
use super::program::{Access, StoreIns};
use super::thread::Thread;
use tirproof_machine::async_queue::IssueError;
use tirproof_machine::error::{ExecError, Trap, R};
use tirproof_machine::fault::FaultKind;
use tirproof_machine::history::{Event, EventKind};
use tirproof_machine::memory::{AccessError, Pending};
use tirproof_machine::race::{AccessKind, BlockId, Race, RaceScope};
use tirproof_machine::value::{as_i64, reinterpret};

/// Indices of one access, gathered without allocating.
type Indices = [i64; MAX_DIMS];

fn show_indices(idx: &[i64]) -> String {
    idx.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

impl Executor<'_> {
    /// Evaluates the scalar indices of `a` (all but a vector last index).
    fn scalar_indices(&mut self, th: &mut Thread, a: &Access, upto: usize) -> R<Indices> {
        let mut idx = [0i64; MAX_DIMS];
        for ((slot, e), num) in idx.iter_mut().zip(&a.indices[..upto]).zip(&a.index_nums) {
            *slot = as_i64(*num, self.eval_s(th, e)?);
        }
        Ok(idx)
    }

    /// The values of the last index, one per index lane.
    fn last_index_lanes(&mut self, th: &mut Thread, a: &Access) -> R<Vec<i64>> {
        match (a.indices.last(), a.index_nums.last()) {
            (Some(e), Some(num)) => Ok(self.eval_v(th, e)?.into_iter().map(|b| as_i64(*num, b)).collect()),
            _ => Ok(vec![0]),
        }
    }

    /// Resolves an access to its storage and scalar offset (per-dimension bounds checked).
    #[inline(always)]
    fn locate<'t>(&self, th: &'t Thread, buf: u32, idx: &[i64], write: bool) -> R<(usize, i64, &'t Layout)> {
        let Some(layout) = th.frame.layouts.get(buf as usize).and_then(Option::as_ref) else {
            return Err(Trap::ill_formed(format!(
                "buffer `{}` is used outside the scope that declares it",
                self.buf_name(buf)
            )));
        };
        let Some(off) = layout.scalar_offset(idx) else {
            let verb = if write { "write" } else { "read" };
            let shape = show_indices(&layout.shape);
            return Err(Trap::fault(
                FaultKind::OutOfBounds,
                format!("out-of-bounds {verb} of {}[{}] (shape [{shape}])", self.buf_name(buf), show_indices(idx)),
            ));
        };
        let storage = th.frame.data[layout.data as usize];
        if storage == NO_STORAGE {
            return Err(Trap::ill_formed(format!("buffer `{}` has no storage", self.buf_name(buf))));
        }
        Ok((storage as usize, off, layout))
    }

    /// Loads a one-lane access.
    #[inline]
    pub(crate) fn load_s(&mut self, th: &mut Thread, a: &Access) -> R<u64> {
        if let Some((slot, num)) = a.var_index {
            let i = as_i64(num, th.frame.scalars[slot as usize]);
            return self.load_at(th, a.buf, &[i]);
        }
        if let ([index], [num]) = (&a.indices[..], &a.index_nums[..]) {
            // The common one-dimensional case, without gathering indices.
            let i = as_i64(*num, self.eval_s(th, index)?);
            return self.load_at(th, a.buf, &[i]);
        }
        let n = a.indices.len();
        let idx = self.scalar_indices(th, a, n)?;
        self.load_at(th, a.buf, &idx[..n])
    }

    #[inline(always)]
    fn load_at(&mut self, th: &mut Thread, buf: u32, idx: &[i64]) -> R<u64> {
        let (storage, off, layout) = self.locate(th, buf, idx, false)?;
        let storage = &mut self.mem.storages[storage];
        if let (Some(bits), None) = (storage.try_read(off, th.race.as_ref()), layout.storage_num) {
            return Ok(bits);
        }
        match storage.read(off, th.race.as_ref()) {
            Ok(bits) => Ok(match layout.storage_num {
                None => bits,
                Some(from) => reinterpret(bits, from, layout.num),
            }),
            Err(e) => Err(self.access_fault(th, e, false, buf, idx, off)),
        }
    }

    /// Loads an access of any lanes: N index lanes times M element lanes.
    pub(crate) fn load_v(&mut self, th: &mut Thread, a: &Access) -> R<Vec<u64>> {
        let n = a.indices.len();
        let mut idx = self.scalar_indices(th, a, n.saturating_sub(1))?;
        let lanes = self.last_index_lanes(th, a)?;
        let mut out = Vec::new();
        for lane in lanes {
            if n > 0 {
                idx[n - 1] = lane;
            }
            let (storage, off, layout) = self.locate(th, a.buf, &idx[..n], false)?;
            for j in 0..layout.lanes {
                let elem = off.saturating_add(j);
                match self.mem.storages[storage].read(elem, th.race.as_ref()) {
                    Ok(bits) => out.push(match layout.storage_num {
                        None => bits,
                        Some(from) => reinterpret(bits, from, layout.num),
                    }),
                    Err(e) => return Err(self.access_fault(th, e, false, a.buf, &idx[..n], elem)),
                }
            }
        }
        Ok(out)
    }

    /// Executes a store statement (synchronous, or an async issue inside `async_scope`).
    pub(crate) fn store(&mut self, th: &mut Thread, s: &StoreIns) -> R<()> {
        let n = s.access.indices.len();
        if s.value.lanes() == 1 && s.access.index_lanes == 1 {
            let bits = self.eval_s(th, &s.value)?;
            if let Some((slot, num)) = s.access.var_index {
                let i = as_i64(num, th.frame.scalars[slot as usize]);
                return self.store_at(th, s, bits, &[i]);
            }
            if let ([index], [num]) = (&s.access.indices[..], &s.access.index_nums[..]) {
                let i = as_i64(*num, self.eval_s(th, index)?);
                return self.store_at(th, s, bits, &[i]);
            }
            let idx = self.scalar_indices(th, &s.access, n)?;
            return self.store_at(th, s, bits, &idx[..n]);
        }
        let values = self.eval_v(th, &s.value)?;
        let mut idx = self.scalar_indices(th, &s.access, n.saturating_sub(1))?;
        let lanes = self.last_index_lanes(th, &s.access)?;
        let mut values = values.into_iter();
        let mut first = None;
        for lane in lanes {
            if n > 0 {
                idx[n - 1] = lane;
            }
            let (storage, off, layout) = self.locate(th, s.access.buf, &idx[..n], true)?;
            let (m, num, storage_num) = (layout.lanes, layout.num, layout.storage_num);
            first.get_or_insert(off);
            for j in 0..m {
                let bits = values.next().ok_or_else(|| Trap::ill_formed("store value has too few lanes"))?;
                let bits = match storage_num {
                    None => bits,
                    Some(to) => reinterpret(bits, num, to),
                };
                self.write_element(th, s, storage, off.saturating_add(j), bits, &idx[..n])?;
            }
        }
        self.record_store(th, s, first.unwrap_or(0));
        Ok(())
    }

    /// Stores one scalar at a one-lane access.
    #[inline(always)]
    fn store_at(&mut self, th: &mut Thread, s: &StoreIns, bits: u64, idx: &[i64]) -> R<()> {
        let (storage, off, layout) = self.locate(th, s.access.buf, idx, true)?;
        let bits = match layout.storage_num {
            None => bits,
            Some(to) => reinterpret(bits, layout.num, to),
        };
        self.write_element(th, s, storage, off, bits, idx)?;
        self.record_store(th, s, off);
        Ok(())
    }

    #[inline]
    fn record_store(&mut self, th: &Thread, s: &StoreIns, elem: i64) {
        let buf = s.access.buf;
        let kind = if s.is_async { EventKind::AsyncStore { buf, elem } } else { EventKind::Store { buf, elem } };
        self.history.push(Event { kind, stmt: s.stmt, who: th.who });
    }

    #[inline(always)]
    fn write_element(
        &mut self,
        th: &mut Thread,
        s: &StoreIns,
        storage: usize,
        off: i64,
        bits: u64,
        idx: &[i64],
    ) -> R<()> {
        if !s.is_async {
            if self.mem.storages[storage].try_write(off, bits, th.race.as_ref()) {
                return Ok(());
            }
            return match self.mem.storages[storage].write(off, bits, th.race.as_ref()) {
                Ok(()) => Ok(()),
                Err(e) => Err(self.access_fault(th, e, true, s.access.buf, idx, off)),
            };
        }
        let line = self.line(s.stmt);
        let pending = Pending { issue_line: line, thread: th.tid, group: None };
        match th.asyncs.issue(&mut self.mem, storage as u32, off, bits, pending, th.race.as_ref()) {
            Ok(()) => {
                self.stats.async_stores += 1;
                Ok(())
            }
            Err(IssueError::Access(e)) => Err(self.access_fault(th, e, true, s.access.buf, idx, off)),
            Err(IssueError::Limit(limit)) => Err(ExecError::LimitExceeded { line, limit }.into()),
        }
    }

    /// Turns a storage-level access error into a fault with a precise message.
    fn access_fault(&self, th: &Thread, e: AccessError, write: bool, buf: u32, idx: &[i64], elem: i64) -> Trap {
        let place = format!("{}[{}] (element {elem})", self.buf_name(buf), show_indices(idx));
        match e {
            AccessError::OutOfStorage { len } => {
                let verb = if write { "write" } else { "read" };
                Trap::fault(
                    FaultKind::OutOfBounds,
                    format!(
                        "out-of-bounds {verb} of {}[{}]: element {elem} is outside the {len} elements of its storage",
                        self.buf_name(buf),
                        show_indices(idx)
                    ),
                )
            }
            AccessError::Poison => {
                Trap::fault(FaultKind::ReadPoison, format!("read of {place}, which was allocated but never written"))
            }
            AccessError::Pending(p) => {
                let group = match p.group {
                    Some(g) => format!("group {} of queue {}, committed at line {}", g.seq, g.queue, g.commit_line),
                    None => format!("issued at line {}, not yet committed", p.issue_line),
                };
                let by = if th.in_region && p.thread != th.tid {
                    format!(" by {}", self.who_of(p.thread).label())
                } else {
                    String::new()
                };
                let (kind, verb) = if write {
                    (FaultKind::WritePendingAsync, "write to")
                } else {
                    (FaultKind::ReadPendingAsync, "read of")
                };
                Trap::fault(kind, format!("{verb} {place} while an async write to it is pending{by} ({group})"))
            }
            AccessError::Race(race) => Trap::fault(race.fault_kind(), self.race_message(&place, &race)),
        }
    }

    /// Names both accesses of a race: who (the thread, or the block for blocks of a kernel),
    /// what (read, write, asynchronous write) and, for the recorded one, where.
    fn race_message(&self, place: &str, race: &Race) -> String {
        let (me, other) = match race.scope {
            RaceScope::Threads => (self.thread_label(race.current.thread), self.thread_label(race.other.thread)),
            RaceScope::Blocks => (self.block_label(race.current.block), self.block_label(race.other.block)),
        };
        let writes = race.current.kind != AccessKind::Read;
        let verb = match race.current.kind {
            AccessKind::Read => format!("reads {place}"),
            AccessKind::Write => format!("writes {place}"),
            AccessKind::AsyncWrite => format!("writes {place} asynchronously"),
        };
        let done = match (race.other.kind, writes) {
            (AccessKind::Read, _) => "read",
            (AccessKind::Write, false) => "written",
            (AccessKind::Write, true) => "also written",
            (AccessKind::AsyncWrite, false) => "written asynchronously",
            (AccessKind::AsyncWrite, true) => "also written asynchronously",
        };
        let line = self.line(race.other.site);
        let group = race.other_async.map_or(String::new(), |a| match a.group {
            Some(g) => format!(" (group {} of queue {})", g.seq, g.queue),
            None => " (not yet committed)".to_string(),
        });
        if race.scope == RaceScope::Blocks {
            return format!(
                "cross-block race: {me} {verb}, {done} by {other} at line {line}{group}; nothing orders the blocks of one kernel"
            );
        }
        if race.fault_kind() == FaultKind::RedundantStore {
            return format!(
                "redundant store by every thread: {me} {verb}, the same value also written by {other} at line {line} with no barrier in between"
            );
        }
        let this = if writes { "write" } else { "read" };
        let (missing, why) = match race.other_async {
            None => ("barrier", " with no barrier in between".to_string()),
            Some(a) if !a.waited => ("wait and barrier", ", which that thread has not waited for".to_string()),
            Some(_) => ("wait and barrier", format!(", and no barrier separates that thread's wait from this {this}")),
        };
        format!("cross-thread {this} without {missing}: {me} {verb}, {done} by {other} at line {line}{group}{why}")
    }

    /// A thread of the current block, as `threadIdx.x = 1`.
    fn thread_label(&self, thread: u32) -> String {
        let label = self.who_of(thread).label();
        if label.is_empty() {
            format!("thread {thread}")
        } else {
            label
        }
    }

    /// A block of the kernel, as `blockIdx.x = 2`.
    fn block_label(&self, block: BlockId) -> String {
        let coords = self.grid.label(block);
        if coords.is_empty() {
            return block.to_string();
        }
        coords.join(", ")
    }
}
