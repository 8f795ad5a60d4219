//! Scenario programs: small async programs built around one situation each, for the classes of
//! [`super::AsyncClass`] the round-based builder (`build.rs`) never makes: threads of one block
//! writing one shared element, commits and waits outside the thread bindings or outside every
//! launch, several launches, asynchronous stores to global memory read by other threads and
//! blocks, waits and commits under conditions on data, periodic guards of a symbolic loop that
//! fail only late, loop bounds read from memory, division by a scalar parameter,
//! asynchronous stores outside every commit scope, and `cuda_pipeline.h`'s idiom (a group
//! committed every iteration, empty once the copies end, and no wait after the loop).
//!
//! Invariants: the checker accepts every program; every index is in bounds for every value of
//! the loop variables, of `n` and of a positive `d` (a divisor `d` is a scalar parameter, so
//! `d = 0` divides by zero, a fault the verifier must consider and the runs never try); the
//! shared staging is zeroed by thread 0 of the block behind a barrier (code at block level runs
//! in every thread, so zeroing there would be a store by every thread) and the global staging `G` is
//! an input, so no read sees uninitialized memory; conditions never depend on the thread
//! around a barrier, so barriers never diverge. Each scenario has clean variants and faulty
//! ones (about one in `racy_one_in`); the interpreter, not the intent, is the judge.

use arbitrary::{Result, Unstructured};
use tirproof_ir::async_op::{asynchronous, commit, wait};
use tirproof_ir::{
    Annotations, Axis, Buffer, BufferSpec, CmpOp, DataType, Expr, IRModule, Stmt, StmtKind, ThreadTag, Var,
};

use super::{AsyncGenConfig, AsyncPattern, AsyncShape};
use crate::gen::ir::{bound_loop, float_buffer, module, serial_loop, store};
use tirproof_ir::build::barrier;

/// Elements of the float input `A`.
const INPUT_LEN: i64 = 64;
/// Elements of the int32 input `K`.
const DATA_LEN: i64 = 4;
/// Elements of the shared staging `S`, and slots of the periodic ring.
const STAGING: i64 = 64;
/// Elements of the global staging `G`.
const GLOBAL: i64 = 64;
/// Elements of `Out` per reader site: one per (block, thread) of at most 4 x 4.
const SITE: i64 = 16;
/// Reader sites.
const SITES: i64 = 16;
/// Elements of one thread's region of `S` where threads keep to their own.
const REGION: i64 = 8;
/// The first element of `S` that block-level code (outside the thread bindings) uses.
const BLOCK_REGION: i64 = 48;
/// A periodic guard whose period is above this lets the ring of [`STAGING`] slots wrap onto a
/// group still in flight.
const RING: i64 = STAGING;

/// The situation a scenario program is built around.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scenario {
    SharedWrite,
    AfterThreads,
    SeveralLaunches,
    GlobalExchange,
    DataGuarded,
    Periodic,
    DataBounds,
    Uncommitted,
    EmptyGroupAtEnd,
}

/// The scenarios `cfg` allows.
fn allowed(cfg: &AsyncGenConfig) -> Vec<Scenario> {
    let mut all = vec![Scenario::Periodic, Scenario::Uncommitted, Scenario::EmptyGroupAtEnd];
    if cfg.threads {
        all.extend([Scenario::SharedWrite, Scenario::AfterThreads, Scenario::GlobalExchange]);
    }
    if cfg.threads || cfg.blocks {
        all.push(Scenario::SeveralLaunches);
    }
    if cfg.data_dependent {
        all.extend([Scenario::DataGuarded, Scenario::DataBounds]);
    }
    all
}

/// The variables and buffers of a scenario program, and what it used of them.
struct Frame<'c> {
    cfg: &'c AsyncGenConfig,
    a: Buffer,
    k: Buffer,
    out: Buffer,
    g: Buffer,
    s: Buffer,
    n: Var,
    d: Var,
    uses_g: bool,
    uses_n: bool,
    uses_d: bool,
    faulty: bool,
    site: i64,
    patterns: Vec<AsyncPattern>,
    threads: i64,
    blocks: i64,
}

/// The (block, thread) a statement runs in: `None` outside the bindings.
#[derive(Clone)]
struct Place {
    bx: Option<Var>,
    tx: Option<Var>,
}

impl Place {
    fn block(&self) -> Expr {
        self.bx.as_ref().map_or(Expr::int(0), Expr::var)
    }
    fn thread(&self) -> Expr {
        self.tx.as_ref().map_or(Expr::int(0), Expr::var)
    }
}

/// A random scenario program and its shape.
pub(super) fn scenario_program(u: &mut Unstructured<'_>, cfg: &AsyncGenConfig) -> Result<(IRModule, AsyncShape)> {
    let scenario = *u.choose(&allowed(cfg))?;
    let faulty = u.int_in_range(1..=cfg.racy_one_in.max(1))? == 1;
    let mut frame = Frame::new(cfg, faulty);
    let body = match scenario {
        Scenario::SharedWrite => frame.shared_write(u)?,
        Scenario::AfterThreads => frame.after_threads(u)?,
        Scenario::SeveralLaunches => frame.several_launches(u)?,
        Scenario::GlobalExchange => frame.global_exchange(u)?,
        Scenario::DataGuarded => frame.data_guarded(u)?,
        Scenario::Periodic => frame.periodic(u)?,
        Scenario::DataBounds => frame.data_bounds(u)?,
        Scenario::Uncommitted => frame.uncommitted(u)?,
        Scenario::EmptyGroupAtEnd => frame.empty_group_at_end(u)?,
    };
    Ok(frame.finish(body))
}

impl<'c> Frame<'c> {
    fn new(cfg: &'c AsyncGenConfig, faulty: bool) -> Self {
        Frame {
            cfg,
            a: float_buffer("A", INPUT_LEN, "global"),
            k: BufferSpec::new("K", DataType::INT32, vec![Expr::int(DATA_LEN)], "global").build(),
            out: float_buffer("Out", SITE * SITES, "global"),
            g: float_buffer("G", GLOBAL, "global"),
            s: float_buffer("S", STAGING, "shared"),
            n: Var::new("n", DataType::INT32),
            d: Var::new("d", DataType::INT32),
            uses_g: false,
            uses_n: false,
            uses_d: false,
            faulty,
            site: 0,
            patterns: Vec::new(),
            threads: 1,
            blocks: 1,
        }
    }

    /// The module around `body`, and its shape.
    fn finish(self, body: Stmt) -> (IRModule, AsyncShape) {
        let mut params = vec![self.a.clone(), self.k.clone(), self.out.clone()];
        if self.uses_g {
            params.push(self.g.clone());
        }
        let mut scalars = Vec::new();
        if self.uses_n {
            scalars.push(self.n.clone());
        }
        if self.uses_d {
            scalars.push(self.d.clone());
        }
        let mut patterns: std::collections::BTreeSet<AsyncPattern> = self.patterns.into_iter().collect();
        patterns.extend((self.threads > 1).then_some(AsyncPattern::Threads));
        patterns.extend((self.blocks > 1).then_some(AsyncPattern::SeveralBlocks));
        let shape = AsyncShape { patterns, meant_racy: self.faulty, threads: self.threads, blocks: self.blocks };
        (module(&params, &scalars, body), shape)
    }

    /// `n` (a symbolic extent) where the configuration allows it, else a constant.
    fn extent(&mut self, u: &mut Unstructured<'_>, constant: i64) -> Result<Expr> {
        if self.cfg.symbolic_extents && u.arbitrary()? {
            self.uses_n = true;
            self.patterns.push(AsyncPattern::SymbolicExtent);
            return Ok(Expr::var(&self.n));
        }
        Ok(Expr::int(constant))
    }

    /// `A[(c + 5 * tx + 3 * bx + extra) % 64]`, without the terms of absent bindings.
    fn source(&self, u: &mut Unstructured<'_>, at: &Place, extra: Expr) -> Result<Expr> {
        let mut index = Expr::int(u.int_in_range(0..=INPUT_LEN - 1)?);
        if let Some(tx) = &at.tx {
            index = index + Expr::var(tx) * Expr::int(5);
        }
        if let Some(bx) = &at.bx {
            index = index + Expr::var(bx) * Expr::int(3);
        }
        if extra != Expr::int(0) {
            index = index + extra;
        }
        Ok(Expr::load(&self.a, vec![Expr::floormod(index, Expr::int(INPUT_LEN))]))
    }

    /// `commit(q) { async { buffer[index] = A[...] } }`.
    fn copy(&self, u: &mut Unstructured<'_>, at: &Place, buffer: &Buffer, index: Expr, extra: Expr) -> Result<Stmt> {
        let value = self.source(u, at, extra)?;
        Ok(commit(Expr::int(0), asynchronous(store(buffer, index, value))))
    }

    /// `Out[this site's element] = value + 1`, at the next site.
    fn read(&mut self, at: &Place, value: Expr) -> Stmt {
        let site = self.site % SITES;
        self.site += 1;
        let mut index = Expr::int(site * SITE);
        if let Some(bx) = &at.bx {
            index = index + Expr::var(bx) * Expr::int(4);
        }
        if let Some(tx) = &at.tx {
            index = index + Expr::var(tx);
        }
        store(&self.out, index, value + Expr::float(1.0, DataType::FLOAT32))
    }

    /// `wait(0, count) { body }`.
    fn wait(count: Expr, body: Stmt) -> Stmt {
        wait(Expr::int(0), count, body)
    }

    /// `wait(0, 0) { Out[...] = buffer[index] }`: a full drain, then a read.
    fn drain_and_read(&mut self, at: &Place, buffer: &Buffer, index: Expr) -> Stmt {
        let read = self.read(at, Expr::load(buffer, vec![index]));
        Self::wait(Expr::int(0), read)
    }

    /// `S[0:64] = 0`, run by the block before its threads (or by the one thread).
    fn zero_staging(&self) -> Stmt {
        let z = Var::new("z", DataType::INT32);
        let zero = store(&self.s, Expr::var(&z), Expr::float(0.0, DataType::FLOAT32));
        serial_loop(&z, Expr::int(0), Expr::int(STAGING), Annotations::new(), zero)
    }

    /// The (block, thread) of the threads of a launch of `blocks` x `threads`, with their
    /// variables (none for an extent of 1).
    fn place(&mut self, blocks: i64, threads: i64) -> Place {
        self.threads = self.threads.max(threads);
        self.blocks = self.blocks.max(blocks);
        Place {
            bx: (blocks > 1).then(|| Var::new("bx", DataType::INT32)),
            tx: (threads > 1).then(|| Var::new("tx", DataType::INT32)),
        }
    }

    /// The launch of the threads of `at` running `thread` each, and `after` run by the block
    /// after them (outside `threadIdx`, so by every thread); unless the program stages in
    /// global memory, with the shared staging allocated per block and zeroed by its thread 0
    /// before a barrier.
    fn launch(&self, at: &Place, blocks: i64, threads: i64, thread: Stmt, after: Option<Stmt>) -> Stmt {
        let mut body = thread;
        // Code at block level runs in every thread: with several threads, thread 0 zeroes the
        // staging and a barrier orders that before every thread's work.
        let mut zero_first = Some(self.zero_staging()).filter(|_| !self.uses_g);
        if let Some(tx) = &at.tx {
            if let Some(zero) = zero_first.take() {
                body = Stmt::seq(vec![if_then(Expr::eq(Expr::var(tx), Expr::int(0)), zero), barrier(), body]);
            }
            body = bound_loop(tx, threads, ThreadTag::Thread(Axis::X), body);
        }
        let mut body = match self.uses_g {
            // Each launch of a program that stages in global memory would bind `S` again.
            true => Stmt::seq(std::iter::once(body).chain(after).collect()),
            false => alloc(&self.s, Stmt::seq(zero_first.into_iter().chain([body]).chain(after).collect())),
        };
        if let Some(bx) = &at.bx {
            body = bound_loop(bx, blocks, ThreadTag::Block(Axis::X), body);
        }
        body
    }

    /// The block-level place of the threads of `at`: its block, no thread.
    fn block_level(at: &Place) -> Place {
        Place { bx: at.bx.clone(), tx: None }
    }

    /// (a) Threads of one block write one shared element (`S[0]` or `S[tx // 2]`)
    /// asynchronously: by turns, each waiting before the barrier that ends its turn (clean),
    /// or without the wait, without the barrier, or all in one barrier phase (a write-write
    /// race).
    fn shared_write(&mut self, u: &mut Unstructured<'_>) -> Result<Stmt> {
        let threads = u.int_in_range(2..=4)?;
        let blocks = if self.cfg.blocks { u.int_in_range(1..=2)? } else { 1 };
        let halves = u.arbitrary()?;
        let faults = [SharedWrite::NoWait, SharedWrite::NoBarrier, SharedWrite::OnePhase];
        let mode = if self.faulty { *u.choose(&faults)? } else { SharedWrite::ByTurns };
        let s = self.s.clone();
        let element = |tx: Expr| if halves { Expr::floordiv(tx, Expr::int(2)) } else { Expr::int(0) };
        let at = self.place(blocks, threads);
        let mut stmts = Vec::new();
        if mode == SharedWrite::OnePhase {
            stmts.push(self.copy(u, &at, &s, element(at.thread()), Expr::int(0))?);
            stmts.push(Self::wait(Expr::int(0), barrier()));
        } else {
            let k = Var::new("k", DataType::INT32);
            let mut turn = vec![self.copy(u, &at, &s, element(Expr::var(&k)), Expr::var(&k))?];
            if mode != SharedWrite::NoWait {
                turn.push(Self::wait(Expr::int(0), nothing()));
            }
            let mine = if_then(Expr::eq(at.thread(), Expr::var(&k)), Stmt::seq(turn));
            let body = match mode {
                SharedWrite::NoBarrier => mine,
                _ => Stmt::seq(vec![mine, barrier()]),
            };
            stmts.push(serial_loop(&k, Expr::int(0), Expr::int(threads), Annotations::new(), body));
            stmts.push(Self::wait(Expr::int(0), barrier()));
        }
        stmts.push(self.read(&at, Expr::load(&s, vec![element(at.thread())])));
        Ok(self.launch(&at, blocks, threads, Stmt::seq(stmts), None))
    }

    /// (b) Waits and commits after the thread bindings: in the block outside `threadIdx`, and
    /// after the `blockIdx` loop, outside every launch.
    fn after_threads(&mut self, u: &mut Unstructured<'_>) -> Result<Stmt> {
        let threads = u.int_in_range(2..=4)?;
        let blocks = if self.cfg.blocks { u.int_in_range(1..=3)? } else { 1 };
        let faults = [AfterThreads::BlockWaitsForThreads, AfterThreads::BlockNeverWaits, AfterThreads::WaitAfterLaunch];
        let mode = if self.faulty { *u.choose(&faults)? } else { AfterThreads::EachWaits };
        let s = self.s.clone();
        let at = self.place(blocks, threads);
        let copy = self.copy(u, &at, &s, at.thread(), Expr::int(0))?;
        let thread = match mode {
            AfterThreads::BlockWaitsForThreads => copy,
            _ => Stmt::seq(vec![copy, self.drain_and_read(&at, &s, at.thread())]),
        };
        let block = Self::block_level(&at);
        let element = Expr::int(BLOCK_REGION);
        let after = match mode {
            AfterThreads::BlockWaitsForThreads => self.drain_and_read(&block, &s, Expr::int(0)),
            AfterThreads::BlockNeverWaits | AfterThreads::WaitAfterLaunch => {
                self.copy(u, &block, &s, element, Expr::int(1))?
            }
            AfterThreads::EachWaits if u.arbitrary()? => {
                let copy = self.copy(u, &block, &s, element.clone(), Expr::int(1))?;
                Stmt::seq(vec![copy, self.drain_and_read(&block, &s, element)])
            }
            AfterThreads::EachWaits => Self::wait(Expr::int(0), nothing()),
        };
        let launch = self.launch(&at, blocks, threads, thread, Some(after));
        let tail = match mode {
            AfterThreads::WaitAfterLaunch => Self::wait(Expr::int(0), nothing()),
            _ if u.arbitrary()? => {
                // A copy of the function's own, outside every launch, and its wait.
                let outside = Place { bx: None, tx: None };
                let out = self.out.clone();
                let copy = self.copy(u, &outside, &out, Expr::int(SITE * SITES - 1), Expr::int(2))?;
                Stmt::seq(vec![copy, Self::wait(Expr::int(0), nothing())])
            }
            _ => Self::wait(Expr::int(0), nothing()),
        };
        Ok(Stmt::seq(vec![launch, tail]))
    }

    /// (c) Two or three sibling launches: the first copies into global `G`, the later ones
    /// read it; the first waits for its copies (clean) or leaves them to a later launch's
    /// wait, or to one after every launch.
    fn several_launches(&mut self, u: &mut Unstructured<'_>) -> Result<Stmt> {
        self.uses_g = true;
        let launches = u.int_in_range(2..=3)?;
        let mut threads = if self.cfg.threads { u.int_in_range(1..=4)? } else { 1 };
        let mut blocks = if self.cfg.blocks { u.int_in_range(1..=3)? } else { 1 };
        if threads * blocks == 1 {
            match self.cfg.threads {
                true => threads = 2,
                false => blocks = 2,
            }
        }
        let g = self.g.clone();
        let mut stmts = Vec::new();
        for l in 0..launches {
            let at = self.place(blocks, threads);
            let lin = at.block() * Expr::int(threads) + at.thread();
            let thread = if l == 0 {
                let copy = self.copy(u, &at, &g, lin, Expr::int(0))?;
                match self.faulty {
                    true => copy,
                    false => Stmt::seq(vec![copy, Self::wait(Expr::int(0), nothing())]),
                }
            } else {
                let own = lin.clone() + Expr::int(SITE * l);
                let earlier = self.drain_and_read(&at, &g, lin);
                let copy = self.copy(u, &at, &g, own.clone(), Expr::int(l))?;
                Stmt::seq(vec![earlier, copy, self.drain_and_read(&at, &g, own)])
            };
            stmts.push(self.launch(&at, blocks, threads, thread, None));
        }
        if self.faulty && u.arbitrary()? {
            stmts.push(Self::wait(Expr::int(0), nothing()));
        }
        Ok(Stmt::seq(stmts))
    }

    /// (d) Each thread copies into its element of global `G`; another thread of the block reads
    /// it after the writer's wait and a barrier (clean), without the wait or the barrier, or a
    /// thread of another block reads it (a race whatever the barriers).
    fn global_exchange(&mut self, u: &mut Unstructured<'_>) -> Result<Stmt> {
        self.uses_g = true;
        let threads = u.int_in_range(2..=4)?;
        let blocks = if self.cfg.blocks { u.int_in_range(1..=3)? } else { 1 };
        let mut faults = vec![Exchange::NoWait, Exchange::NoBarrier];
        if blocks > 1 {
            faults.push(Exchange::OtherBlock);
        }
        let mode = if self.faulty { *u.choose(&faults)? } else { Exchange::WaitAndBarrier };
        if mode == Exchange::OtherBlock {
            self.patterns.push(AsyncPattern::CrossBlockExchange);
        }
        let g = self.g.clone();
        let at = self.place(blocks, threads);
        let lin = |block: Expr, thread: Expr| block * Expr::int(threads) + thread;
        let copy = self.copy(u, &at, &g, lin(at.block(), at.thread()), Expr::int(0))?;
        let other = match mode {
            Exchange::OtherBlock => lin(Expr::floormod(at.block() + Expr::int(1), Expr::int(blocks)), at.thread()),
            _ => lin(at.block(), Expr::floormod(at.thread() + Expr::int(1), Expr::int(threads))),
        };
        let read = self.read(&at, Expr::load(&g, vec![other]));
        let waited = |body| Self::wait(Expr::int(0), body);
        let thread = Stmt::seq(match mode {
            Exchange::NoWait => vec![copy, barrier(), read, waited(barrier())],
            Exchange::NoBarrier => vec![copy, waited(read)],
            Exchange::WaitAndBarrier | Exchange::OtherBlock => vec![copy, waited(barrier()), read, barrier()],
        });
        Ok(self.launch(&at, blocks, threads, thread, None))
    }

    /// A condition on the inputs: `A[(i + c) % 64] > 0.5` or `K[c] > 0`.
    fn data_condition(&self, u: &mut Unstructured<'_>, i: &Var) -> Result<Expr> {
        let c = Expr::int(u.int_in_range(0..=INPUT_LEN - 1)?);
        Ok(match u.arbitrary()? {
            true => {
                let index = Expr::floormod(Expr::var(i) + c, Expr::int(INPUT_LEN));
                Expr::cmp(CmpOp::Gt, Expr::load(&self.a, vec![index]), Expr::float(0.5, DataType::FLOAT32))
            }
            false => Expr::cmp(CmpOp::Gt, self.data_value(u)?, Expr::int(0)),
        })
    }

    /// `K[c]`.
    fn data_value(&self, u: &mut Unstructured<'_>) -> Result<Expr> {
        Ok(Expr::load(&self.k, vec![Expr::int(u.int_in_range(0..=DATA_LEN - 1)?)]))
    }

    /// (e) Commits and waits under conditions on the inputs, and counts loaded from `K`.
    fn data_guarded(&mut self, u: &mut Unstructured<'_>) -> Result<Stmt> {
        let threads = if self.cfg.threads { u.int_in_range(1..=2)? } else { 1 };
        let constant = u.int_in_range(2..=5)?;
        let extent = self.extent(u, constant)?;
        let faults = [DataGuard::OtherCondition, DataGuard::LoadedCount];
        let clean = [DataGuard::BothUnder, DataGuard::CommitUnder, DataGuard::ClampedCount];
        let mode = *u.choose(if self.faulty { &faults[..] } else { &clean[..] })?;
        self.patterns.push(match mode {
            DataGuard::BothUnder | DataGuard::CommitUnder => AsyncPattern::CommitUnderCondition,
            DataGuard::OtherCondition => AsyncPattern::WaitUnderCondition,
            DataGuard::LoadedCount | DataGuard::ClampedCount => AsyncPattern::DataCount,
        });
        let s = self.s.clone();
        let at = self.place(1, threads);
        let i = Var::new("i", DataType::INT32);
        let own = at.thread() * Expr::int(REGION);
        let slot = |step: Expr| own.clone() + Expr::floormod(step, Expr::int(2));
        let copy = self.copy(u, &at, &s, slot(Expr::var(&i)), Expr::var(&i))?;
        let cond = self.data_condition(u, &i)?;
        let body = match mode {
            DataGuard::BothUnder => {
                let waited = self.drain_and_read(&at, &s, slot(Expr::var(&i)));
                if_then(cond, Stmt::seq(vec![copy, waited]))
            }
            DataGuard::CommitUnder => {
                Stmt::seq(vec![if_then(cond, copy), self.drain_and_read(&at, &s, slot(Expr::var(&i)))])
            }
            DataGuard::OtherCondition => {
                let other = self.data_condition(u, &i)?;
                let waited = self.drain_and_read(&at, &s, slot(Expr::var(&i)));
                Stmt::seq(vec![if_then(cond, copy), if_then(other, waited)])
            }
            DataGuard::ClampedCount | DataGuard::LoadedCount => {
                let loaded = self.data_value(u)?;
                let (count, read_step) = match mode {
                    // At most one group in flight: the previous iteration's slot is complete.
                    DataGuard::ClampedCount => (clamp(loaded, 0, 1), Expr::var(&i) + Expr::int(1)),
                    _ => (loaded, Expr::var(&i)),
                };
                let read = self.read(&at, Expr::load(&s, vec![slot(read_step)]));
                Stmt::seq(vec![copy, Self::wait(count, read)])
            }
        };
        let rounds = serial_loop(&i, Expr::int(0), extent, Annotations::new(), body);
        let thread = Stmt::seq(vec![rounds, self.drain_and_read(&at, &s, own.clone())]);
        Ok(self.launch(&at, 1, threads, thread, None))
    }

    /// (f, h) A symbolic loop commits into a ring of 64 slots and waits under a periodic guard
    /// (`i % m == r`, `i % m != r`, `i % d == 0`); readers read under the guard, maybe at
    /// `(i // d) % 64`. A period above 64 (or `d` above 64) lets the ring wrap onto a group in
    /// flight, from iteration 64 on: a fault only long loops show.
    fn periodic(&mut self, u: &mut Unstructured<'_>) -> Result<Stmt> {
        let extent = if self.cfg.symbolic_extents {
            self.uses_n = true;
            self.patterns.push(AsyncPattern::SymbolicExtent);
            Expr::var(&self.n)
        } else {
            Expr::int(u.int_in_range(60..=100)?)
        };
        let s = self.s.clone();
        let i = Var::new("i", DataType::INT32);
        let iv = Expr::var(&i);
        let at = Place { bx: None, tx: None };
        let modulo = |m: i64| Expr::floormod(Expr::var(&i), Expr::int(m));
        // The guard of the wait, and maybe of the commit: a wait at least once in every 64
        // iterations keeps the ring clean.
        let (commit_guard, wait_guard) = match (self.faulty, u.int_in_range(0u8..=2)?) {
            (false, 0) => {
                let m = u.int_in_range(2..=RING)?;
                (None, Expr::eq(modulo(m), Expr::int(u.int_in_range(0..=m - 1)?)))
            }
            (faulty, 2) => {
                // `i % d == 0` is clean for every `d` up to 64, faulty above; `T.min(d, 64)`
                // keeps it clean.
                self.uses_d = true;
                let d = Expr::var(&self.d);
                let period = if faulty { d } else { Expr::binary(tirproof_ir::BinOp::Min, d, Expr::int(RING)) };
                (None, Expr::eq(Expr::floormod(iv.clone(), period), Expr::int(0)))
            }
            (false, _) => {
                let m = u.int_in_range(2..=8)?;
                let r = Expr::int(u.int_in_range(0..=m - 1)?);
                (Some(Expr::cmp(CmpOp::Ne, modulo(m), r.clone())), Expr::cmp(CmpOp::Ne, modulo(m), r))
            }
            (true, _) => {
                let m = u.int_in_range(RING + 1..=2 * RING)?;
                let r = Expr::int(u.int_in_range(RING..=m - 1)?);
                let skip: bool = u.arbitrary()?;
                (skip.then(|| Expr::cmp(CmpOp::Ne, modulo(m), r.clone())), Expr::eq(modulo(m), r))
            }
        };
        if commit_guard.is_some() {
            self.patterns.push(AsyncPattern::CommitUnderCondition);
        }
        self.patterns.push(AsyncPattern::WaitUnderCondition);
        let slot = Expr::floormod(iv.clone(), Expr::int(RING));
        let mut copy = self.copy(u, &at, &s, slot.clone(), iv.clone())?;
        if let Some(guard) = commit_guard {
            copy = if_then(guard, copy);
        }
        let read_at = match u.arbitrary()? {
            true => {
                self.uses_d = true;
                Expr::floormod(Expr::floordiv(iv, Expr::var(&self.d)), Expr::int(RING))
            }
            false => slot,
        };
        let waited = if_then(wait_guard, self.drain_and_read(&at, &s, read_at));
        let rounds = serial_loop(&i, Expr::int(0), extent, Annotations::new(), Stmt::seq(vec![copy, waited]));
        let drained = self.drain_and_read(&at, &s, Expr::int(0));
        Ok(alloc(&s, Stmt::seq(vec![self.zero_staging(), rounds, drained])))
    }

    /// (g, h) A serial loop whose inner loop's extent is loaded (`range(K[i % 4])`, maybe
    /// `K[i % d % 4]`), with copies, waits and readers inside: a count of 0 (clean) or 1
    /// (a read of the group just committed).
    fn data_bounds(&mut self, u: &mut Unstructured<'_>) -> Result<Stmt> {
        let threads = if self.cfg.threads { u.int_in_range(1..=2)? } else { 1 };
        let constant = u.int_in_range(2..=5)?;
        let extent = self.extent(u, constant)?;
        let divided = u.ratio(1, 3)?;
        self.uses_d |= divided;
        let count = Expr::int(i64::from(self.faulty));
        let s = self.s.clone();
        self.patterns.push(AsyncPattern::InnerLoopWaits);
        let at = self.place(1, threads);
        let (i, j) = (Var::new("i", DataType::INT32), Var::new("j", DataType::INT32));
        let own = at.thread() * Expr::int(REGION);
        let row = match divided {
            true => Expr::floormod(Expr::floormod(Expr::var(&i), Expr::var(&self.d)), Expr::int(DATA_LEN)),
            false => Expr::floormod(Expr::var(&i), Expr::int(DATA_LEN)),
        };
        let bound = Expr::load(&self.k, vec![row]);
        let slot = |step: Expr| own.clone() + Expr::floormod(step, Expr::int(2));
        // The copy once per outer iteration, or once per inner one.
        let per_outer = u.arbitrary()?;
        let step = if per_outer { Expr::var(&i) } else { Expr::var(&j) };
        let copy = self.copy(u, &at, &s, slot(step.clone()), step.clone())?;
        let read = self.read(&at, Expr::load(&s, vec![slot(step.clone())]));
        let waited = Self::wait(count, read);
        let body = match per_outer {
            true => {
                let inner = serial_loop(&j, Expr::int(0), bound, Annotations::new(), waited);
                Stmt::seq(vec![copy, inner, Self::wait(Expr::int(0), nothing())])
            }
            false => {
                let inner = serial_loop(&j, Expr::int(0), bound, Annotations::new(), Stmt::seq(vec![copy, waited]));
                Stmt::seq(vec![inner, Self::wait(Expr::int(0), nothing())])
            }
        };
        let thread = serial_loop(&i, Expr::int(0), extent, Annotations::new(), body);
        Ok(self.launch(&at, 1, threads, thread, None))
    }

    /// (i) An asynchronous store outside every commit scope, which joins the group of its
    /// thread's next commit: with that commit before the wait (clean), or with none, or after
    /// the wait that was meant to complete it.
    fn uncommitted(&mut self, u: &mut Unstructured<'_>) -> Result<Stmt> {
        let threads = if self.cfg.threads { u.int_in_range(1..=2)? } else { 1 };
        let looped = u.arbitrary()?;
        let faults = [Uncommitted::NoCommit, Uncommitted::CommitAfterWait];
        let mode = if self.faulty { *u.choose(&faults)? } else { Uncommitted::CommitBeforeWait };
        let s = self.s.clone();
        let at = self.place(1, threads);
        let i = Var::new("i", DataType::INT32);
        let own = at.thread() * Expr::int(REGION);
        let step = if looped { Expr::var(&i) } else { Expr::int(0) };
        let loose = own + Expr::floormod(step.clone(), Expr::int(2)) * Expr::int(2);
        let stray = asynchronous(store(&s, loose.clone(), self.source(u, &at, step.clone())?));
        let next = self.copy(u, &at, &s, loose.clone() + Expr::int(1), step)?;
        let waited = self.drain_and_read(&at, &s, loose);
        let mut thread = Stmt::seq(match mode {
            Uncommitted::CommitBeforeWait => vec![stray, next, waited],
            Uncommitted::CommitAfterWait => vec![stray, waited, next, Self::wait(Expr::int(0), nothing())],
            Uncommitted::NoCommit => vec![stray, waited],
        });
        if looped {
            let constant = u.int_in_range(2..=4)?;
            let extent = self.extent(u, constant)?;
            thread = serial_loop(&i, Expr::int(0), extent, Annotations::new(), thread);
        }
        Ok(self.launch(&at, 1, threads, thread, None))
    }
}

impl Frame<'_> {
    /// `cuda_pipeline.h`'s idiom, two stages, each thread in its own region of `S`:
    /// ```text
    /// for i in range(extent + 1):
    ///     commit(0): if i < copies: async S[own + i % 2] = A[...]
    ///     wait(0, 1): if i >= 1: Out[...] = S[own + (i - 1) % 2] + 1
    /// ```
    /// with no wait after the loop. Clean with `copies = extent`: the last iteration commits an
    /// empty group, which is still in flight at the end (no fault). Faulty with one copy more:
    /// the last group holds it at the end (an unwaited group).
    fn empty_group_at_end(&mut self, u: &mut Unstructured<'_>) -> Result<Stmt> {
        let threads = if self.cfg.threads { u.int_in_range(1..=2)? } else { 1 };
        let s = self.s.clone();
        let at = self.place(1, threads);
        let i = Var::new("i", DataType::INT32);
        let iv = Expr::var(&i);
        let constant = u.int_in_range(1..=6)?;
        let extent = self.extent(u, constant)?;
        let copies = if self.faulty { extent.clone() + Expr::int(1) } else { extent.clone() };
        let own = at.thread() * Expr::int(REGION);
        let slot = |k: Expr| own.clone() + Expr::floormod(k, Expr::int(2));
        let copy = asynchronous(store(&s, slot(iv.clone()), self.source(u, &at, iv.clone())?));
        let produce = commit(Expr::int(0), if_then(Expr::cmp(CmpOp::Lt, iv.clone(), copies), copy));
        let read = self.read(&at, Expr::load(&s, vec![slot(iv.clone() - Expr::int(1))]));
        let consume = Self::wait(Expr::int(1), if_then(Expr::cmp(CmpOp::Ge, iv, Expr::int(1)), read));
        self.patterns.extend([AsyncPattern::SerialLoop, AsyncPattern::NoFinalDrain, AsyncPattern::EmptyGroupAtEnd]);
        let rounds =
            serial_loop(&i, Expr::int(0), extent + Expr::int(1), Annotations::new(), Stmt::seq(vec![produce, consume]));
        Ok(self.launch(&at, 1, threads, rounds, None))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SharedWrite {
    /// Each thread in its own barrier phase, waiting for its copy before the barrier.
    ByTurns,
    /// One at a time, but no writer waits before the barrier.
    NoWait,
    /// One at a time by turn, but no barrier between the turns.
    NoBarrier,
    /// Every thread writes in one barrier phase.
    OnePhase,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AfterThreads {
    /// Each thread waits for its copies; the block's own copy (if any) waits in the block.
    EachWaits,
    /// The threads leave their copies to a wait of the block, outside `threadIdx`.
    BlockWaitsForThreads,
    /// The block copies and never waits.
    BlockNeverWaits,
    /// The block copies and the function waits after the launch.
    WaitAfterLaunch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exchange {
    WaitAndBarrier,
    NoWait,
    NoBarrier,
    OtherBlock,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DataGuard {
    /// The copy, its wait and the reader under one condition on data.
    BothUnder,
    /// The copy under a condition on data, the wait and reader not.
    CommitUnder,
    /// The copy and the wait under different conditions on data.
    OtherCondition,
    /// A count loaded from `K`, clamped to `0..=1`, reading the previous slot.
    ClampedCount,
    /// A count loaded from `K` as it is.
    LoadedCount,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Uncommitted {
    CommitBeforeWait,
    CommitAfterWait,
    NoCommit,
}

/// `T.min(T.max(value, low), high)`.
fn clamp(value: Expr, low: i64, high: i64) -> Expr {
    let max = Expr::binary(tirproof_ir::BinOp::Max, value, Expr::int(low));
    Expr::binary(tirproof_ir::BinOp::Min, max, Expr::int(high))
}

fn if_then(cond: Expr, then_case: Stmt) -> Stmt {
    Stmt::synthetic(StmtKind::If { cond, then_case: Box::new(then_case), else_case: None })
}

fn alloc(buffer: &Buffer, body: Stmt) -> Stmt {
    Stmt::synthetic(StmtKind::AllocBuffer {
        buffer: buffer.clone(),
        annotations: Annotations::new(),
        body: Box::new(body),
    })
}

/// A statement that does nothing: the body of a wait that only drains.
fn nothing() -> Stmt {
    Stmt::synthetic(StmtKind::Evaluate(Expr::int(0)))
}
