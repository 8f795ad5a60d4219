//! The executor: runs one thread's instructions from a program counter until it ends, hits a
//! barrier (threads of a block suspend there) or stops on a fault or error.
//!
//! `Executor` holds everything shared by the threads of a run: the program, memory, the fuel
//! and statistics, the completion schedule and its RNG, the event history, the current
//! block of threads and the kernel launches and blocks seen so far (`grid`). A `Thread` holds
//! what is private. Faults raised below the statement level are located here: the
//! statement's span, the enclosing loop variables and the thread are read from the faulting
//! thread's frame, and the history is attached.

use std::collections::HashMap;

use tirproof_machine::thread::ThreadOrder;

use super::frame::{Layout, NO_STORAGE};
use super::grid::Grid;
use super::program::{
    AllocIns, AllocSize, CExpr, Coord, CtxKind, Ins, LayoutIns, LoopIns, Program, RegionIns, ThreadBindIns, NO_CTX,
    NO_STMT,
};
use super::thread::{coords_of, Thread};
use super::Stats;
use tirproof_machine::error::{Trap, TrapKind, R};
use tirproof_machine::fault::{Fault, FaultKind};
use tirproof_machine::history::{Event, EventKind, History, Who};
use tirproof_machine::memory::Memory;
use tirproof_machine::value::{as_i64, norm, truthy, Num};
use tirproof_machine::Completion;

/// The block of threads currently running.
#[derive(Debug)]
pub(crate) struct RegionState {
    pub(crate) dims: [u32; 3],
    pub(crate) axes: u8,
    /// The block's coordinates in the grid.
    pub(crate) block: [u32; 3],
    /// Per-block storages by data slot of their allocation.
    pub(crate) allocs: HashMap<u32, u32>,
}

/// Why a thread stopped running without an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Suspend {
    /// At the barrier instruction `pc` (statement `stmt`).
    Barrier {
        pc: usize,
        stmt: u32,
    },
    End,
}

/// What to do after one instruction.
pub(crate) enum Flow<'p> {
    Next,
    Jump(u32),
    Barrier(u32),
    Region(&'p RegionIns),
    End,
}

pub(crate) struct Executor<'p> {
    pub(crate) prog: &'p Program,
    pub(crate) mem: Memory,
    pub(crate) stats: Stats,
    pub(crate) fuel: u64,
    pub(crate) completion: Completion,
    /// The order threads run in between barriers.
    pub(crate) order: ThreadOrder,
    pub(crate) history: History,
    pub(crate) region: Option<RegionState>,
    pub(crate) grid: Grid,
}

impl<'p> Executor<'p> {
    /// Runs `th` from `pc` until it ends or suspends at a barrier.
    pub(crate) fn run_thread(&mut self, th: &mut Thread, mut pc: usize) -> R<Suspend> {
        let prog: &'p Program = self.prog;
        loop {
            let Some(ins) = prog.code.get(pc) else {
                return Err(Trap::ill_formed("jump outside the program"));
            };
            let flow = match self.step(th, ins) {
                Ok(flow) => flow,
                Err(trap) => return Err(self.locate_trap(trap, th, ins.stmt())),
            };
            match flow {
                Flow::Next => pc += 1,
                Flow::Jump(target) => pc = target as usize,
                Flow::Barrier(stmt) => return Ok(Suspend::Barrier { pc, stmt }),
                Flow::Region(r) => {
                    if let Err(trap) = self.run_region(th, r, pc) {
                        return Err(self.locate_trap(trap, th, r.stmt));
                    }
                    pc = r.end as usize + 1;
                }
                Flow::End => return Ok(Suspend::End),
            }
        }
    }

    #[inline]
    fn step(&mut self, th: &mut Thread, ins: &'p Ins) -> R<Flow<'p>> {
        match ins {
            Ins::Store(s) => {
                self.tick(th, s.stmt, 1)?;
                self.store(th, s)?;
            }
            Ins::LoopNext { var, end, body } => {
                let next = (th.frame.scalars[*var as usize] as i64).wrapping_add(1);
                if next < th.frame.scalars[*end as usize] as i64 {
                    // In range of the variable's type: checked by `loop_init`.
                    th.frame.scalars[*var as usize] = next as u64;
                    return Ok(Flow::Jump(*body));
                }
            }
            Ins::LoopInit(l) => {
                self.tick(th, l.stmt, 1)?;
                return self.loop_init(th, l);
            }
            Ins::Tick { stmt, n } => self.tick(th, *stmt, *n)?,
            Ins::SetScalar { stmt, slot, value } => {
                if *stmt != NO_STMT {
                    self.tick(th, *stmt, 1)?;
                }
                th.frame.scalars[*slot as usize] = self.eval_s(th, value)?;
            }
            Ins::SetVector { stmt, slot, value } => {
                self.tick(th, *stmt, 1)?;
                th.frame.vectors[*slot as usize] = self.eval_v(th, value)?;
            }
            Ins::Branch { stmt, cond, cond_num, target } => {
                self.tick(th, *stmt, 1)?;
                if !truthy(*cond_num, self.eval_s(th, cond)?) {
                    return Ok(Flow::Jump(*target));
                }
            }
            Ins::Jump { target } => return Ok(Flow::Jump(*target)),
            _ => return self.step_rare(th, ins),
        }
        Ok(Flow::Next)
    }

    /// Instructions off the hot path: allocation, synchronization, threads.
    fn step_rare(&mut self, th: &mut Thread, ins: &'p Ins) -> R<Flow<'p>> {
        match ins {
            Ins::Alloc(a) => {
                self.tick(th, a.stmt, 1)?;
                self.alloc(th, a)?;
            }
            Ins::Free { data, per_block } => {
                let idx = std::mem::replace(&mut th.frame.data[*data as usize], NO_STORAGE);
                if !*per_block && idx != NO_STORAGE {
                    if self.mem.has_pending(idx) {
                        th.retired.insert(*data, idx);
                    }
                    self.mem.free(idx);
                }
            }
            Ins::Materialize(l) => self.materialize(th, l)?,
            Ins::Eval { stmt, value } => {
                self.tick(th, *stmt, 1)?;
                if value.lanes() == 1 {
                    self.eval_s(th, value)?;
                } else {
                    self.eval_v(th, value)?;
                }
            }
            Ins::Barrier { stmt } => {
                self.tick(th, *stmt, 1)?;
                if th.in_region {
                    return Ok(Flow::Barrier(*stmt));
                }
                // A barrier outside a block of threads synchronizes nothing.
                self.history.push(Event { kind: EventKind::Barrier, stmt: *stmt, who: th.who });
            }
            Ins::Wait { stmt, queue, queue_num, count, count_num } => {
                self.wait(th, *stmt, (queue, *queue_num), (count, *count_num))?
            }
            Ins::WaitTokens(w) => self.wait_tokens(th, w)?,
            Ins::Commit { stmt, queue, queue_num } => self.commit(th, *stmt, queue, *queue_num)?,
            Ins::RegionStart(r) => {
                if th.in_region {
                    return Err(Trap::unsupported("a block of threads inside a block of threads"));
                }
                return Ok(Flow::Region(r));
            }
            Ins::ThreadBind(t) => {
                self.tick(th, t.stmt, 1)?;
                return self.thread_bind(th, t);
            }
            Ins::RegionEnd | Ins::End => return Ok(Flow::End),
            // The hot instructions are handled by `step`.
            _ => return Err(Trap::ill_formed("unexpected instruction")),
        }
        Ok(Flow::Next)
    }

    /// Charges `n` statements of fuel; under the random schedule, maybe lands a group. The
    /// statement is the site of the thread's accesses until the next one.
    #[inline(always)]
    pub(crate) fn tick(&mut self, th: &mut Thread, stmt: u32, n: u32) -> R<()> {
        if let Some(r) = th.race.as_mut() {
            r.site = stmt;
        }
        self.stats.statements += u64::from(n);
        if self.stats.statements > self.fuel || th.asyncs.incomplete > 0 {
            return self.tick_slow(th, stmt);
        }
        Ok(())
    }

    /// The rare part of `tick`: fuel exhausted, or groups in flight under `Random`.
    #[cold]
    #[inline(never)]
    fn tick_slow(&mut self, th: &mut Thread, stmt: u32) -> R<()> {
        if self.stats.statements > self.fuel {
            self.stats.statements = self.fuel;
            return Err(Trap::fault(
                FaultKind::FuelExhausted,
                format!("fuel exhausted: the budget of {} statements is spent", self.fuel),
            ));
        }
        if self.completion.lands_between_steps() {
            self.random_completion(th, stmt);
        }
        Ok(())
    }

    fn loop_init(&mut self, th: &mut Thread, l: &LoopIns) -> R<Flow<'p>> {
        let min = as_i64(l.min_num, self.eval_s(th, &l.min)?);
        let extent = as_i64(l.extent_num, self.eval_s(th, &l.extent)?);
        if extent <= 0 {
            return Ok(Flow::Jump(l.exit));
        }
        let signed = matches!(l.num, Num::Int(_));
        let fits = |v: i64| norm(l.num, v as u64) == v as u64 && (signed || v >= 0);
        match min.checked_add(extent) {
            Some(end) if fits(min) && fits(end - 1) => {
                th.frame.scalars[l.var as usize] = min as u64;
                th.frame.scalars[l.end as usize] = end as u64;
                Ok(Flow::Next)
            }
            _ => Err(Trap::ill_formed(format!(
                "loop range [{min}, {min} + {extent}) does not fit its {} variable",
                l.num
            ))),
        }
    }

    /// Evaluates a scalar integer expression as i64.
    pub(crate) fn eval_i64(&mut self, th: &mut Thread, e: &CExpr, num: Num) -> R<i64> {
        Ok(as_i64(num, self.eval_s(th, e)?))
    }

    /// Evaluates a buffer layout (without looking at its storage).
    pub(crate) fn eval_layout(&mut self, th: &mut Thread, l: &LayoutIns) -> R<Layout> {
        let mut ints =
            |m: &mut Self, es: &[CExpr]| -> R<Vec<i64>> { es.iter().map(|e| Ok(m.eval_s(th, e)? as i64)).collect() };
        let shape = ints(self, &l.shape)?;
        let strides = ints(self, &l.strides)?;
        let elem_offset = self.eval_s(th, &l.elem_offset)? as i64;
        let info = &self.prog.buffers[l.buf as usize];
        if let Some(bad) = shape.iter().find(|e| **e < 0) {
            let message = format!("buffer `{}` has a negative extent {bad}", info.name);
            return Err(Trap::fault(FaultKind::NegativeExtent, message));
        }
        Layout::new(l.data, info.num, i64::from(info.lanes), shape, strides, elem_offset)
            .ok_or_else(|| Trap::resource(format!("the layout of `{}` overflows", info.name)))
    }

    /// Declares a buffer over the storage its data variable points to.
    pub(crate) fn materialize(&mut self, th: &mut Thread, l: &LayoutIns) -> R<()> {
        let mut layout = self.eval_layout(th, l)?;
        let storage = th.frame.data[l.data as usize];
        let info = &self.prog.buffers[l.buf as usize];
        let Some(s) = self.mem.storages.get(storage as usize) else {
            return Err(Trap::ill_formed(format!("buffer `{}` is declared over a pointer with no storage", info.name)));
        };
        if s.num != info.num {
            if s.num.width() != info.num.width() {
                return Err(Trap::unsupported(format!(
                    "buffer `{}` of {} over a storage of {} (different element widths)",
                    info.name, info.num, s.num
                )));
            }
            layout.storage_num = Some(s.num);
        }
        th.frame.layouts[l.buf as usize] = Some(layout);
        Ok(())
    }

    fn alloc(&mut self, th: &mut Thread, a: &AllocIns) -> R<()> {
        let (len, layout) = match &a.size {
            AllocSize::Extents { extents, lanes } => {
                let mut len = i64::from(*lanes);
                for e in extents {
                    let extent = self.eval_s(th, e)? as i64;
                    len = len.checked_mul(extent.max(0)).ok_or_else(|| Trap::resource("allocation size overflows"))?;
                    if extent < 0 {
                        let message = format!("allocation of `{}` with negative extent {extent}", a.name);
                        return Err(Trap::fault(FaultKind::NegativeExtent, message));
                    }
                }
                (len, None)
            }
            AllocSize::Buffer(l) => {
                let layout = self.eval_layout(th, l)?;
                let len = layout.storage_len().ok_or_else(|| Trap::resource("allocation size overflows"))?;
                (len, Some((l.buf, layout)))
            }
        };
        let existing = match (&self.region, a.per_block) {
            (Some(region), true) => region.allocs.get(&a.data).copied(),
            _ => None,
        };
        // An allocation executed again (a loop iteration) gets the storage it had while an async
        // write to that storage is pending, as registers and stack slots are reused on a GPU:
        // the new write then meets the pending one instead of a fresh copy.
        let reused =
            if a.per_block { None } else { th.retired.remove(&a.data).filter(|&old| self.mem.revive(old, len)) };
        let idx = match existing.or(reused) {
            Some(idx) => idx,
            None => {
                let idx = self.mem.alloc(&a.name, a.num, len, None, a.visibility)?;
                if let (Some(region), true) = (self.region.as_mut(), a.per_block) {
                    region.allocs.insert(a.data, idx);
                }
                idx
            }
        };
        th.frame.data[a.data as usize] = idx;
        if let Some((buf, layout)) = layout {
            th.frame.layouts[buf as usize] = Some(layout);
        }
        Ok(())
    }

    fn thread_bind(&mut self, th: &mut Thread, t: &ThreadBindIns) -> R<Flow<'p>> {
        let (true, Some(region)) = (th.in_region, self.region.as_ref()) else {
            return Err(Trap::ill_formed("thread binding outside a kernel launch"));
        };
        let coord = i64::from(match t.coord {
            Coord::Thread(axis) => th.who.coords.get(axis).copied().unwrap_or(0),
            Coord::Block(axis) => region.block.get(axis).copied().unwrap_or(0),
        });
        let extent = self.eval_i64(th, &t.extent, t.extent_num)?;
        if coord >= extent {
            return Ok(Flow::Jump(t.skip));
        }
        let min = self.eval_i64(th, &t.min, t.min_num)?;
        let value = min.checked_add(coord).ok_or_else(|| Trap::ill_formed("thread index overflows"))?;
        th.frame.scalars[t.slot as usize] = norm(t.num, value as u64);
        Ok(Flow::Next)
    }

    /// The source line of a statement (0 when unknown).
    #[inline]
    pub(crate) fn line(&self, stmt: u32) -> u32 {
        self.prog.stmts.get(stmt as usize).map_or(0, |s| s.span.line)
    }

    pub(crate) fn buf_name(&self, buf: u32) -> String {
        self.prog.buffers.get(buf as usize).map_or_else(|| format!("buffer#{buf}"), |b| b.name.clone())
    }

    /// The coordinates of thread `tid` of the current block.
    pub(crate) fn who_of(&self, tid: u32) -> Who {
        match &self.region {
            Some(r) => Who { axes: r.axes, coords: coords_of(tid, r.dims) },
            None => Who::default(),
        }
    }

    /// Adds the location of statement `stmt` in thread `th` to an unlocated fault.
    pub(crate) fn locate_trap(&self, trap: Trap, th: &Thread, stmt: u32) -> Trap {
        match *trap.0 {
            TrapKind::Fault { kind, message } => Trap::located(self.make_fault(kind, message, th, stmt)),
            other => Trap(Box::new(other)),
        }
    }

    /// A fault at statement `stmt` of thread `th`, with loop variables, thread and history.
    pub(crate) fn make_fault(&self, kind: FaultKind, message: String, th: &Thread, stmt: u32) -> Fault {
        let info = self.prog.stmts.get(stmt as usize);
        let mut loop_vars = Vec::new();
        let mut thread = Vec::new();
        let mut ctx = info.map_or(NO_CTX, |s| s.ctx);
        while let Some(node) = self.prog.ctxs.get(ctx as usize) {
            let value = as_i64(node.num, th.frame.scalars[node.slot as usize]);
            match &node.kind {
                CtxKind::Loop => loop_vars.push((node.name.clone(), value)),
                CtxKind::Thread(tag) | CtxKind::Block(tag) => thread.push((tag.clone(), value)),
            }
            ctx = node.parent;
        }
        loop_vars.reverse();
        // Code outside the thread bindings still runs in one thread: name it.
        for (tag, value) in th.who.coordinates() {
            let tag = tag.to_string();
            if !thread.iter().any(|(named, _)| *named == tag) {
                thread.push((tag, i64::from(value)));
            }
        }
        Fault {
            kind,
            message,
            span: info.map_or(tirproof_ir::span::Span::UNKNOWN, |s| s.span),
            loop_vars,
            thread,
            history: self.history.render(&|b| self.buf_name(b), &|stmt| self.line(stmt)),
        }
    }
}
