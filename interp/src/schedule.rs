//! Scheduling: blocks of threads with barriers, and the completion of async groups.
//!
//! A kernel launch runs its blocks one after another (x fastest); every thread of a block
//! runs the whole launch body. Threads of a block run one at a time, each until its next
//! barrier (or the end of the block), in the order 0..n or a seeded permutation of it,
//! redrawn for every phase; then all pass the barrier together. Threads stopped at different
//! barriers, or some at a barrier and some at the end, is barrier divergence. Deterministic
//! for a given seed. Race detection (`tirproof_machine::race`) relies on this: every access
//! of a phase runs before any of the next, and every access of a block before any of the
//! next block.
//!
//! Async groups complete when a wait retires them; additionally at commit under `Eager`, and
//! under `Random` before any statement with probability 1/2 (the oldest incomplete group of
//! a random queue of the running thread). When a thread ends with work in flight (an
//! uncommitted store, or a group holding stores: an empty group left in flight is no fault,
//! `AsyncState::leftover`), that is an `UnwaitedGroup` fault, and everything still in flight
//! lands first so outputs are defined.

use std::collections::HashMap;

use super::exec::{Executor, RegionState, Suspend};
use super::program::{CExpr, RegionIns, TokenNode, WaitTokensIns};
use super::thread::{coords_of, Thread};
use tirproof_ir::async_op::{Token, TokenOp};
use tirproof_machine::async_queue::{Leftover, Waiter};
use tirproof_machine::error::{ExecError, Trap, R};
use tirproof_machine::fault::{Fault, FaultKind};
use tirproof_machine::history::{Event, EventKind, Who};
use tirproof_machine::value::{as_i64, Num};

/// The most threads one block may have.
pub(crate) const MAX_THREADS: u64 = 1 << 16;

impl Executor<'_> {
    /// The shape of one level of a launch: the largest extent bound on each axis (1 where
    /// none is), and which axes are bound; `None` when some axis has no coordinate.
    fn launch_dims(&mut self, parent: &mut Thread, extents: &[Vec<(CExpr, Num)>; 3]) -> R<Option<([u32; 3], u8)>> {
        let mut dims = [1u32; 3];
        let mut axes = 0u8;
        for (axis, extents) in extents.iter().enumerate() {
            if extents.is_empty() {
                continue;
            }
            axes |= 1 << axis;
            let mut largest = 0i64;
            for (e, num) in extents {
                largest = largest.max(as_i64(*num, self.eval_s(parent, e)?));
            }
            if largest <= 0 {
                return Ok(None);
            }
            dims[axis] = u32::try_from(largest).unwrap_or(u32::MAX);
        }
        Ok(Some((dims, axes)))
    }

    /// Runs the kernel launch that starts at instruction `pc`, from `parent`: its blocks one
    /// after another, each block's threads from the launch's first statement.
    pub(crate) fn run_region(&mut self, parent: &mut Thread, r: &RegionIns, pc: usize) -> R<()> {
        let (Some((dims, axes)), Some((grid_dims, grid_axes))) =
            (self.launch_dims(parent, &r.extents)?, self.launch_dims(parent, &r.blocks)?)
        else {
            return Ok(());
        };
        let n = dims.iter().fold(1u64, |acc, d| acc.saturating_mul(u64::from(*d)));
        if n > MAX_THREADS {
            return Err(Trap::resource(format!("a block of {n} threads (the interpreter allows {MAX_THREADS})")));
        }
        let blocks = grid_dims.iter().fold(1u64, |acc, d| acc.saturating_mul(u64::from(*d)));
        self.stats.max_threads = self.stats.max_threads.max(n);
        self.grid.start_launch();
        for b in 0..blocks {
            let block = coords_of(u32::try_from(b).unwrap_or(u32::MAX), grid_dims);
            self.run_block(parent, (dims, axes), (block, grid_axes), pc)?;
        }
        Ok(())
    }

    /// Runs one block of a launch, at grid coordinates `block`.
    fn run_block(&mut self, parent: &mut Thread, shape: ([u32; 3], u8), block: ([u32; 3], u8), pc: usize) -> R<()> {
        let ((dims, axes), (coords, grid_axes)) = (shape, block);
        let n = dims.iter().fold(1u32, |acc, d| acc.saturating_mul(*d));
        let ctx = self.grid.start_block(coords, grid_axes);
        let mut threads: Vec<Thread> =
            (0..n).map(|tid| parent.child(tid, Who { axes, coords: coords_of(tid, dims) }, Some(ctx))).collect();
        self.region = Some(RegionState { dims, axes, block: coords, allocs: HashMap::new() });
        let result = self.run_phases(&mut threads, pc + 1).and_then(|()| self.finish_block(&mut threads));
        if let Some(region) = self.region.take() {
            for idx in region.allocs.values() {
                self.mem.free(*idx);
            }
        }
        result
    }

    fn thread_order(&mut self, n: usize) -> Vec<usize> {
        self.order.next_phase(n)
    }

    /// Runs barrier-separated phases until every thread reaches the end of the block.
    fn run_phases(&mut self, threads: &mut [Thread], start: usize) -> R<()> {
        let mut pcs = vec![start; threads.len()];
        let mut status = vec![Suspend::End; threads.len()];
        loop {
            for t in self.thread_order(threads.len()) {
                status[t] = self.run_thread(&mut threads[t], pcs[t])?;
            }
            let Some((first, stmt)) = status.iter().enumerate().find_map(|(t, s)| match s {
                Suspend::Barrier { stmt, .. } => Some((t, *stmt)),
                Suspend::End => None,
            }) else {
                return Ok(());
            };
            if let Some(other) = status.iter().position(|s| *s != status[first]) {
                return Err(self.divergence(threads, &status, first, other, stmt));
            }
            for (t, th) in threads.iter_mut().enumerate() {
                if let Suspend::Barrier { pc, .. } = status[t] {
                    pcs[t] = pc + 1;
                }
                th.pass_barrier();
            }
            self.stats.barriers += 1;
            self.history.push(Event { kind: EventKind::Barrier, stmt, who: Who::default() });
        }
    }

    fn divergence(&self, threads: &[Thread], status: &[Suspend], first: usize, other: usize, stmt: u32) -> Trap {
        let where_is = |t: usize| match status[t] {
            Suspend::Barrier { stmt, .. } => format!("is at the barrier on line {}", self.line(stmt)),
            Suspend::End => "has reached the end of the thread block".to_string(),
        };
        let message = format!(
            "barrier divergence: {} {} but {} {}",
            threads[first].who.label(),
            where_is(first),
            threads[other].who.label(),
            where_is(other)
        );
        Trap::located(self.make_fault(FaultKind::BarrierDivergence, message, &threads[first], stmt))
    }

    /// Checks every thread of a finished block for work left in flight.
    fn finish_block(&mut self, threads: &mut [Thread]) -> R<()> {
        let mut fault = None;
        for th in threads.iter_mut() {
            if fault.is_none() {
                fault = self.leftover_fault(th, "the thread block ends");
            }
            th.asyncs.complete_all(&mut self.mem);
        }
        fault.map_or(Ok(()), |f| Err(Trap::located(f)))
    }

    /// The fault for work left in flight by `th` when it ends (`when` says what ended).
    pub(crate) fn leftover_fault(&self, th: &Thread, when: &str) -> Option<Fault> {
        let (message, line) = match th.asyncs.leftover()? {
            Leftover::Uncommitted(s) => {
                let name = self.mem.storages.get(s.storage as usize).map_or("?", |st| st.name.as_str());
                (
                    format!(
                        "async group never waited: an async store to `{name}` (element {}) issued at line {} was never committed before {when}",
                        s.index, s.line
                    ),
                    s.line,
                )
            }
            Leftover::Unwaited { queue, seq, commit_line, stores, issue_line } => {
                // Line 0: the store has no source line to name.
                let held = match (stores, issue_line) {
                    (1, 0) => "its async store".to_string(),
                    (1, line) => format!("its async store issued at line {line}"),
                    (n, 0) => format!("{n} async stores"),
                    (n, line) => format!("{n} async stores, the first issued at line {line}"),
                };
                (
                    format!(
                        "async group never waited: group {seq} of queue {queue} (committed at line {commit_line}) is still in flight when {when}, holding {held}"
                    ),
                    commit_line,
                )
            }
        };
        let who = th.who.label();
        let thread = if who.is_empty() {
            Vec::new()
        } else {
            th.who.coordinates().map(|(tag, value)| (tag.to_string(), i64::from(value))).collect()
        };
        Some(Fault {
            kind: FaultKind::UnwaitedGroup,
            message,
            span: tirproof_ir::span::Span::new(line, 0),
            loop_vars: Vec::new(),
            thread,
            history: self.history.render(&|b| self.buf_name(b), &|stmt| self.line(stmt)),
        })
    }

    /// `async_wait_queue_scope` + `async_wait_inflight_count`.
    pub(crate) fn wait(&mut self, th: &mut Thread, stmt: u32, queue: (&CExpr, Num), count: (&CExpr, Num)) -> R<()> {
        let q = self.eval_i64(th, queue.0, queue.1)?;
        let n = self.eval_i64(th, count.0, count.1)?;
        let keep = in_flight_count(q, n)?;
        self.retire(th, stmt, q, keep)
    }

    /// A wait that names tokens (docs/async-semantics.md, "Tokens"): without a count, until
    /// their groups complete; with one, for the count, which must complete them.
    pub(crate) fn wait_tokens(&mut self, th: &mut Thread, w: &WaitTokensIns) -> R<()> {
        let q = self.eval_i64(th, &w.queue.0, w.queue.1)?;
        let committed = i64::from(th.asyncs.committed(q));
        let mut newest = 0;
        let mut newest_made = String::new();
        for (token, num) in &w.tokens {
            let value = self.eval_i64(th, token, *num)?;
            let Some(named) = Token::decode(value) else {
                return Err(token_fault(format!("the wait on queue {q} names {value}, which is no token")));
            };
            // Where the thread made this token, when it made one for that group.
            let made = th
                .frame
                .token_lines
                .get(&(named.queue, named.group))
                .map_or(String::new(), |line| format!(" (made at line {line})"));
            if named.queue != q {
                return Err(token_fault(format!("the wait on queue {q} names a {named}{made}, of another queue")));
            }
            if named.group >= committed {
                return Err(token_fault(format!(
                    "the wait on queue {q} names a {named}{made}, but the thread has committed {committed} group(s) to it: no wait completes a group before its commit"
                )));
            }
            if named.group + 1 > newest {
                newest = named.group + 1;
                newest_made = made;
            }
        }
        // Groups are numbered from 0: every named group completes when at most
        // `committed - (newest group + 1)` groups stay in flight.
        let needed = committed - newest;
        let keep = match &w.count {
            None => in_flight_count(q, needed)?,
            Some((count, num)) => {
                let n = self.eval_i64(th, count, *num)?;
                let keep = in_flight_count(q, n)?;
                if n > needed {
                    let group = newest - 1;
                    let made = u32::try_from(group)
                        .ok()
                        .and_then(|seq| th.asyncs.commit_line(q, seq))
                        .map_or(String::new(), |line| format!(" (committed at line {line})"));
                    return Err(token_fault(format!(
                        "async_wait_inflight_count {n} leaves group {group} of queue {q}{made} in flight, which its tokens name{newest_made} ({committed} committed; at most {needed} completes it)"
                    )));
                }
                keep
            }
        };
        self.retire(th, w.stmt, q, keep)
    }

    /// Retires the oldest groups of the thread's queue `q` until `keep` stay in flight.
    fn retire(&mut self, th: &mut Thread, stmt: u32, q: i64, keep: usize) -> R<()> {
        let n = i64::try_from(keep).unwrap_or(i64::MAX);
        let waiter = Waiter { thread: th.race_thread(), epoch: th.epoch };
        let retired = th.asyncs.wait(&mut self.mem, q, keep, waiter);
        self.stats.waits += 1;
        self.history.push(Event { kind: EventKind::Wait { queue: q, keep: n, retired }, stmt, who: th.who });
        Ok(())
    }

    /// The value of a token-making call (docs/async-semantics.md, "Tokens").
    pub(crate) fn token(&mut self, th: &mut Thread, n: &TokenNode) -> R<u64> {
        let q = self.eval_i64(th, &n.queue, n.queue_num)?;
        let committed = i64::from(th.asyncs.committed(q));
        let group = match n.op {
            TokenOp::LastCommitted if committed == 0 => {
                return Err(token_fault(format!(
                    "`{}({q})` before the thread's first commit to queue {q}: no group to name",
                    n.op.symbol()
                )));
            }
            TokenOp::LastCommitted => committed - 1,
            TokenOp::NextCommit => committed,
        };
        let token = Token { queue: q, group };
        let value = token.encode().ok_or_else(|| token_fault(format!("no token encodes the {token}")))?;
        th.frame.token_lines.insert((q, group), n.line);
        Ok(value as u64)
    }

    /// The commit at the end of an `async_commit_queue_scope`.
    pub(crate) fn commit(&mut self, th: &mut Thread, stmt: u32, queue: &CExpr, queue_num: Num) -> R<()> {
        let q = self.eval_i64(th, queue, queue_num)?;
        let line = self.line(stmt);
        let eager = self.completion.lands_at_commit();
        let seq = th
            .asyncs
            .commit(&mut self.mem, q, line, th.race_thread(), eager)
            .map_err(|limit| ExecError::LimitExceeded { line, limit })?;
        self.stats.commits += 1;
        self.history.push(Event { kind: EventKind::Commit { queue: q, seq }, stmt, who: th.who });
        Ok(())
    }

    /// Under the random schedule: with probability 1/2, land the oldest incomplete group of
    /// a random queue of `th`, before statement `stmt` runs.
    pub(crate) fn random_completion(&mut self, th: &mut Thread, stmt: u32) {
        if let Some((queue, seq)) = self.completion.maybe_complete(&mut th.asyncs, &mut self.mem) {
            self.history.push(Event { kind: EventKind::Complete { queue, seq }, stmt, who: th.who });
        }
    }
}

/// A wait's in-flight count `n` on queue `q`, or the fault of a negative one.
fn in_flight_count(q: i64, n: i64) -> R<usize> {
    usize::try_from(n).map_err(|_| {
        Trap::fault(
            FaultKind::NegativeWait,
            format!("async_wait_inflight_count is {n} for queue {q}; it must be at least 0"),
        )
    })
}

fn token_fault(message: String) -> Trap {
    Trap::fault(FaultKind::TokenWait, message)
}
