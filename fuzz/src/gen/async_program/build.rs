//! Builds one async program from its random choices: the buffers and bindings around it, the
//! rounds of commit, reader and wait in their placement, the readers in their forms.
//!
//! Staging layout: each owner (a thread, or for global staging a (block, thread) pair) has a
//! region of [`REGION`] elements, [`SLOTS_MAX`] slots of two; the round with step `t` writes
//! slot `t % slots` and reads slot `(t - d) % slots`, so a count at most `d` completes what it
//! reads and, with `d < slots`, what the next write of a slot overwrites. `Out` has two
//! elements per reader and thread, so threads never write one element.

use std::collections::BTreeSet;

use arbitrary::{Result, Unstructured};
use tirproof_ir::async_op::{asynchronous, commit, wait};
use tirproof_ir::{
    Annotations, Axis, Buffer, BufferSpec, CmpOp, DataType, Expr, IRModule, Stmt, StmtKind, ThreadTag, Var,
};

use super::exprs::{Scope, DATA_LEN, INPUT_LEN};
use super::{AsyncGenConfig, AsyncPattern, AsyncShape};
use crate::gen::ir::{bound_loop, float_buffer, module, serial_loop, store};

/// Elements of one owner's region of the staging.
const REGION: i64 = 8;
/// Elements of one slot (what one group fills).
const SLOT: i64 = 2;
/// Most slots of a region.
const SLOTS_MAX: i64 = REGION / SLOT;
/// Reader sites per thread that get their own elements of `Out`.
const READERS: i64 = 4;
/// Constant loop extents.
const EXTENTS: [i64; 5] = [1, 2, 3, 4, 5];

/// The one defect a racy program carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Defect {
    LooseCount,
    ReaderBeforeWait,
    NoFinalDrain,
    ExchangeWithoutBarriers,
    CrossBlock,
    WaitUnderCondition,
}

/// Where the rounds sit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    /// `groups` commits, then one wait.
    StraightLine {
        groups: i64,
    },
    SerialLoop,
    /// An inner loop of `inner` rounds per outer iteration, or one commit per outer iteration
    /// and `inner` waits after it.
    InnerLoop {
        inner: i64,
        commit_outside: bool,
    },
    /// Rounds in `range(i)`.
    Triangular,
}

/// How a reader reads the staging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReaderForm {
    Value,
    Condition,
    Index,
    Extent,
    Let,
    LetStmt,
    Select,
    IfThenElse,
    TwoDimAlias,
    VectorAlias,
}

impl ReaderForm {
    const PLAIN: [ReaderForm; 8] = [
        ReaderForm::Value,
        ReaderForm::Condition,
        ReaderForm::Index,
        ReaderForm::Extent,
        ReaderForm::Let,
        ReaderForm::LetStmt,
        ReaderForm::Select,
        ReaderForm::IfThenElse,
    ];

    fn pattern(self) -> AsyncPattern {
        match self {
            ReaderForm::Value => AsyncPattern::ReadInValue,
            ReaderForm::Condition => AsyncPattern::ReadInCondition,
            ReaderForm::Index => AsyncPattern::ReadInIndex,
            ReaderForm::Extent => AsyncPattern::ReadInExtent,
            ReaderForm::Let => AsyncPattern::ReadInLet,
            ReaderForm::LetStmt => AsyncPattern::ReadInLetStmt,
            ReaderForm::Select => AsyncPattern::ReadInSelect,
            ReaderForm::IfThenElse => AsyncPattern::ReadInIfThenElse,
            ReaderForm::TwoDimAlias => AsyncPattern::TwoDimAlias,
            ReaderForm::VectorAlias => AsyncPattern::VectorAlias,
        }
    }
}

/// The variables of a program.
struct Vars {
    i: Var,
    j: Var,
    tx: Var,
    bx: Var,
    n: Option<Var>,
}

/// The buffers of a program.
struct Buffers {
    input: Buffer,
    data: Buffer,
    out: Buffer,
    staging: Buffer,
    /// A `(owners, REGION)` view of the staging.
    two_dim: Buffer,
    /// A `float32x2` view of the staging, and of `Out`.
    staging_vector: Buffer,
    out_vector: Buffer,
}

pub(super) struct Builder<'c> {
    cfg: &'c AsyncGenConfig,
    patterns: BTreeSet<AsyncPattern>,
    defect: Option<Defect>,
    placement: Placement,
    threads: i64,
    blocks: i64,
    exchange: bool,
    barriers: bool,
    slots: i64,
    queue: i64,
    /// Reader forms this program may use.
    forms: Vec<ReaderForm>,
    vars: Vars,
    buffers: Buffers,
    /// The next reader site.
    reader: i64,
}

impl<'c> Builder<'c> {
    /// Draws every choice but the expressions.
    pub fn choose(u: &mut Unstructured<'_>, cfg: &'c AsyncGenConfig) -> Result<Self> {
        let meant_racy = u.int_in_range(1..=cfg.racy_one_in.max(1))? == 1;
        let threads = if cfg.threads && u.arbitrary()? { u.int_in_range(2..=4)? } else { 1 };
        let blocks = if cfg.blocks && u.ratio(1, 3)? { u.int_in_range(2..=3)? } else { 1 };
        let mut defects = vec![Defect::LooseCount, Defect::ReaderBeforeWait, Defect::NoFinalDrain];
        defects.push(Defect::WaitUnderCondition);
        if threads > 1 {
            defects.push(Defect::ExchangeWithoutBarriers);
        }
        if blocks > 1 {
            defects.push(Defect::CrossBlock);
        }
        let defect = if meant_racy { Some(*u.choose(&defects)?) } else { None };
        let exchange = threads > 1 && (defect == Some(Defect::ExchangeWithoutBarriers) || u.arbitrary()?);
        let barriers = threads > 1 && defect != Some(Defect::ExchangeWithoutBarriers) && (exchange || u.arbitrary()?);
        let placement = match u.int_in_range(0u8..=3)? {
            0 => Placement::StraightLine { groups: u.int_in_range(1..=3)? },
            1 => Placement::SerialLoop,
            2 => Placement::InnerLoop { inner: u.int_in_range(2..=3)?, commit_outside: u.arbitrary()? },
            _ => Placement::Triangular,
        };
        let symbolic = cfg.symbolic_extents && u.ratio(1, 3)?;
        let slots = u.int_in_range(2..=SLOTS_MAX)?;
        let queue = u.int_in_range(0..=1)?;
        let mut forms = ReaderForm::PLAIN.to_vec();
        if cfg.aliases {
            forms.extend([ReaderForm::TwoDimAlias, ReaderForm::VectorAlias]);
        }
        let cross_block = defect == Some(Defect::CrossBlock);
        let global = matches!(defect, Some(Defect::CrossBlock | Defect::ExchangeWithoutBarriers));
        let vars = Vars {
            i: Var::new("i", DataType::INT32),
            j: Var::new("j", DataType::INT32),
            tx: Var::new("tx", DataType::INT32),
            bx: Var::new("bx", DataType::INT32),
            n: symbolic.then(|| Var::new("n", DataType::INT32)),
        };
        let buffers = Buffers::new(threads, blocks, global, u)?;
        let mut patterns = BTreeSet::new();
        patterns.extend((threads > 1).then_some(AsyncPattern::Threads));
        patterns.extend((blocks > 1).then_some(AsyncPattern::SeveralBlocks));
        patterns.extend(cross_block.then_some(AsyncPattern::CrossBlockExchange));
        if exchange {
            patterns.insert(match barriers {
                true => AsyncPattern::ExchangeWithBarriers,
                false => AsyncPattern::ExchangeWithoutBarriers,
            });
        }
        Ok(Builder {
            cfg,
            patterns,
            defect,
            placement,
            threads,
            blocks,
            exchange,
            barriers,
            slots,
            queue,
            forms,
            vars,
            buffers,
            reader: 0,
        })
    }

    pub fn into_shape(self) -> AsyncShape {
        AsyncShape {
            patterns: self.patterns,
            meant_racy: self.defect.is_some(),
            threads: self.threads,
            blocks: self.blocks,
        }
    }

    /// The whole module.
    pub fn module(&mut self, u: &mut Unstructured<'_>) -> Result<IRModule> {
        let mut stmts = vec![self.zero_own_region()];
        if self.barriers {
            stmts.push(barrier());
        }
        stmts.extend(self.placed_rounds(u)?);
        if self.defect == Some(Defect::NoFinalDrain) {
            self.patterns.insert(AsyncPattern::NoFinalDrain);
        } else {
            let final_read = self.reader_stmt(u, self.own_base(), Expr::int(0))?;
            stmts.push(wait(Expr::int(self.queue), Expr::int(0), final_read));
        }
        let b = &self.buffers;
        let global = self.global_staging();
        let mut body = Stmt::seq(stmts);
        if self.cfg.aliases {
            body = decl(&b.two_dim, decl(&b.staging_vector, body));
        }
        if !global {
            body = Stmt::synthetic(StmtKind::AllocBuffer {
                buffer: b.staging.clone(),
                annotations: Annotations::new(),
                body: Box::new(body),
            });
        }
        if self.threads > 1 {
            body = bound_loop(&self.vars.tx, self.threads, ThreadTag::Thread(Axis::X), body);
        }
        if self.blocks > 1 {
            body = bound_loop(&self.vars.bx, self.blocks, ThreadTag::Block(Axis::X), body);
        }
        if self.cfg.aliases {
            body = decl(&b.out_vector, body);
        }
        let mut params = vec![b.input.clone(), b.data.clone(), b.out.clone()];
        if global {
            params.push(b.staging.clone());
        }
        Ok(module(&params, self.vars.n.as_slice(), body))
    }

    /// The rounds in their placement.
    fn placed_rounds(&mut self, u: &mut Unstructured<'_>) -> Result<Vec<Stmt>> {
        let (i, j) = (self.vars.i.clone(), self.vars.j.clone());
        let outer_extent = self.extent(u)?;
        Ok(match self.placement {
            Placement::StraightLine { groups } => {
                self.patterns.insert(AsyncPattern::StraightLine);
                let groups = groups.min(self.slots);
                let mut stmts = Vec::new();
                for g in 0..groups {
                    stmts.push(self.commit_stmt(u, &[], Expr::int(g))?);
                }
                let distance = u.int_in_range(0..=groups - 1)?;
                stmts.extend(self.reader_and_wait(u, &[], Expr::int(groups - 1), distance)?);
                stmts
            }
            Placement::SerialLoop => {
                self.patterns.insert(AsyncPattern::SerialLoop);
                let distance = self.distance(u)?;
                let body = self.round(u, std::slice::from_ref(&i), Expr::var(&i), distance)?;
                vec![serial_loop(&i, Expr::int(0), outer_extent, Annotations::new(), Stmt::seq(body))]
            }
            Placement::InnerLoop { inner, commit_outside: false } => {
                self.patterns.insert(AsyncPattern::InnerLoopWaits);
                let distance = self.distance(u)?;
                let step = Expr::var(&i) * Expr::int(inner) + Expr::var(&j);
                let body = Stmt::seq(self.round(u, &[i.clone(), j.clone()], step, distance)?);
                let inner = serial_loop(&j, Expr::int(0), Expr::int(inner), Annotations::new(), body);
                vec![serial_loop(&i, Expr::int(0), outer_extent, Annotations::new(), inner)]
            }
            Placement::InnerLoop { inner, commit_outside: true } => {
                self.patterns.insert(AsyncPattern::InnerLoopWaits);
                let distance = self.distance(u)?;
                let loops = [i.clone(), j.clone()];
                let copy = self.commit_stmt(u, &loops[..1], Expr::var(&i))?;
                let waits = Stmt::seq(self.reader_and_wait(u, &loops, Expr::var(&i), distance)?);
                let inner = serial_loop(&j, Expr::int(0), Expr::int(inner), Annotations::new(), waits);
                vec![serial_loop(&i, Expr::int(0), outer_extent, Annotations::new(), Stmt::seq(vec![copy, inner]))]
            }
            Placement::Triangular => {
                self.patterns.insert(AsyncPattern::TriangularLoop);
                // Distances across outer iterations differ; only a full drain is safe for sure.
                let distance = if self.defect.is_some() { self.distance(u)? } else { 0 };
                let body = Stmt::seq(self.round(u, &[i.clone(), j.clone()], Expr::var(&j), distance)?);
                let inner = serial_loop(&j, Expr::int(0), Expr::var(&i), Annotations::new(), body);
                vec![serial_loop(&i, Expr::int(0), outer_extent, Annotations::new(), inner)]
            }
        })
    }

    /// How many groups back a round reads.
    fn distance(&self, u: &mut Unstructured<'_>) -> Result<i64> {
        u.int_in_range(0..=self.slots - 1)
    }

    /// The extent of the outer loop: a constant, or `n`.
    fn extent(&mut self, u: &mut Unstructured<'_>) -> Result<Expr> {
        if let (Some(n), Placement::SerialLoop | Placement::InnerLoop { .. } | Placement::Triangular) =
            (&self.vars.n, self.placement)
        {
            self.patterns.insert(AsyncPattern::SymbolicExtent);
            return Ok(Expr::var(n));
        }
        Ok(Expr::int(*u.choose(&EXTENTS)?))
    }

    /// A commit of the slot of `step`, then the reader and wait of the slot `distance` back.
    fn round(&mut self, u: &mut Unstructured<'_>, loops: &[Var], step: Expr, distance: i64) -> Result<Vec<Stmt>> {
        let mut stmts = vec![self.commit_stmt(u, loops, step.clone())?];
        stmts.extend(self.reader_and_wait(u, loops, step, distance)?);
        Ok(stmts)
    }

    fn scope(&self, loops: &[Var]) -> Scope<'_> {
        Scope {
            cfg: self.cfg,
            loops: loops.to_vec(),
            n: self.vars.n.as_ref(),
            input: &self.buffers.input,
            data: &self.buffers.data,
        }
    }

    /// The commit of one group into the slot of `step`, maybe under a condition.
    fn commit_stmt(&mut self, u: &mut Unstructured<'_>, loops: &[Var], step: Expr) -> Result<Stmt> {
        let stores_in_group = u.int_in_range(1..=SLOT)?;
        if stores_in_group > 1 {
            self.patterns.insert(AsyncPattern::SeveralStoresPerGroup);
        }
        let slot = self.slot_of(step);
        let mut stores = Vec::new();
        for element in 0..stores_in_group {
            let mut found = Vec::new();
            let source = self.scope(loops).input_index(u, &mut found)?;
            self.patterns.extend(found);
            let index = self.own_base() + slot.clone() * Expr::int(SLOT) + Expr::int(element);
            stores.push(store(&self.buffers.staging, index, Expr::load(&self.buffers.input, vec![source])));
        }
        let copy = commit(Expr::int(self.queue), asynchronous(Stmt::seq(stores)));
        // A skipped commit shortens distances: clean programs condition only full drains.
        let conditional = u.ratio(1, 4)?;
        if !conditional {
            return Ok(copy);
        }
        self.patterns.insert(AsyncPattern::CommitUnderCondition);
        self.guarded(u, loops, copy)
    }

    /// `stmt` under a random condition.
    fn guarded(&mut self, u: &mut Unstructured<'_>, loops: &[Var], stmt: Stmt) -> Result<Stmt> {
        let (cond, found) = self.scope(loops).condition(u)?;
        self.patterns.extend(found);
        Ok(Stmt::synthetic(StmtKind::If { cond, then_case: Box::new(stmt), else_case: None }))
    }

    /// Maybe a reader before the wait, then the wait and its reader of the slot `distance`
    /// before the slot of `step`.
    fn reader_and_wait(
        &mut self,
        u: &mut Unstructured<'_>,
        loops: &[Var],
        step: Expr,
        distance: i64,
    ) -> Result<Vec<Stmt>> {
        let mut stmts = Vec::new();
        if self.defect == Some(Defect::ReaderBeforeWait) {
            self.patterns.insert(AsyncPattern::ReaderBeforeWait);
            let early = self.reader_stmt(u, self.read_base(), self.slot_of(step.clone()))?;
            stmts.push(early);
        }
        // With a conditional commit only a count of 0 is sure to complete the slot read.
        let distance = if self.patterns.contains(&AsyncPattern::CommitUnderCondition) { 0 } else { distance };
        let safe = !matches!(self.defect, Some(Defect::LooseCount | Defect::NoFinalDrain));
        let (count, pattern) = self.scope(loops).count(u, distance, safe)?;
        self.patterns.insert(pattern);
        self.patterns.insert(AsyncPattern::ReaderAfterWait);
        let read_slot = self.slot_of(step - Expr::int(distance));
        let reader = self.reader_stmt(u, self.read_base(), read_slot)?;
        let body = match self.barriers {
            true => Stmt::seq(vec![barrier(), reader, barrier()]),
            false => reader,
        };
        let mut waited = wait(Expr::int(self.queue), count, body);
        if self.defect == Some(Defect::WaitUnderCondition) {
            self.patterns.insert(AsyncPattern::WaitUnderCondition);
            waited = self.guarded(u, loops, waited)?;
        }
        stmts.push(waited);
        Ok(stmts)
    }

    /// `step % slots`.
    fn slot_of(&self, step: Expr) -> Expr {
        Expr::floormod(step, Expr::int(self.slots))
    }

    /// A reader of the slot `slot` of the region at `base`, writing this site's elements of
    /// `Out`, in a random form.
    fn reader_stmt(&mut self, u: &mut Unstructured<'_>, base: Expr, slot: Expr) -> Result<Stmt> {
        let form = *u.choose(&self.forms)?;
        self.patterns.insert(form.pattern());
        let site = self.reader % READERS;
        self.reader += 1;
        let b = &self.buffers;
        let out_pair = (Expr::int(site * self.threads * self.blocks) + self.linear_thread()) * Expr::int(2);
        let sub = u.int_in_range(0..=SLOT - 1)?;
        let element = base.clone() + slot.clone() * Expr::int(SLOT) + Expr::int(sub);
        let value = Expr::load(&b.staging, vec![element]);
        let one = Expr::float(1.0, DataType::FLOAT32);
        let out = |offset: Expr, value: Expr| store(&b.out, out_pair.clone() + offset, value);
        let as_index = || Expr::floormod(Expr::cast(DataType::INT32, value.clone()), Expr::int(2));
        Ok(match form {
            ReaderForm::Value => out(Expr::int(0), value.clone() + one),
            ReaderForm::Condition => {
                let cond = Expr::cmp(CmpOp::Gt, value.clone(), Expr::float(0.25, DataType::FLOAT32));
                let then_case = Box::new(out(Expr::int(0), one));
                Stmt::synthetic(StmtKind::If { cond, then_case, else_case: None })
            }
            ReaderForm::Index => out(as_index(), one),
            ReaderForm::Extent => {
                let r = Var::new("r", DataType::INT32);
                let body = out(Expr::var(&r), one);
                serial_loop(&r, Expr::int(0), as_index() + Expr::int(1), Annotations::new(), body)
            }
            ReaderForm::Let | ReaderForm::LetStmt => {
                let v = Var::new("v", DataType::FLOAT32);
                let body = out(Expr::int(0), Expr::var(&v) * Expr::float(2.0, DataType::FLOAT32));
                let bound = Stmt::synthetic(StmtKind::Let { var: v, value, body: Box::new(body) });
                match form {
                    // Not last in its list: printed as `with T.LetStmt(...)`.
                    ReaderForm::LetStmt => Stmt::seq(vec![bound, out(Expr::int(1), one)]),
                    _ => bound,
                }
            }
            ReaderForm::Select => {
                let cond = Expr::cmp(CmpOp::Gt, value.clone(), Expr::float(0.0, DataType::FLOAT32));
                out(Expr::int(0), Expr::select(cond, value, one))
            }
            ReaderForm::IfThenElse => {
                let cond = Expr::cmp(CmpOp::Gt, Expr::load(&b.data, vec![Expr::int(0)]), Expr::int(0));
                out(Expr::int(0), Expr::if_then_else(cond, value, one))
            }
            ReaderForm::TwoDimAlias => {
                let row = Expr::floordiv(base, Expr::int(REGION));
                let column = slot * Expr::int(SLOT) + Expr::int(sub);
                out(Expr::int(0), Expr::load(&b.two_dim, vec![row, column]) + one)
            }
            ReaderForm::VectorAlias => {
                let pair = Expr::floordiv(base, Expr::int(SLOT)) + slot;
                let index = Expr::floordiv(out_pair, Expr::int(2));
                store(&b.out_vector, index, Expr::load(&b.staging_vector, vec![pair]))
            }
        })
    }

    /// `S[own region] = 0`, so that no read sees uninitialized memory.
    fn zero_own_region(&self) -> Stmt {
        let z = Var::new("z", DataType::INT32);
        let zero = store(&self.buffers.staging, self.own_base() + Expr::var(&z), Expr::float(0.0, DataType::FLOAT32));
        serial_loop(&z, Expr::int(0), Expr::int(REGION), Annotations::new(), zero)
    }

    fn thread(&self) -> Expr {
        if self.threads > 1 {
            Expr::var(&self.vars.tx)
        } else {
            Expr::int(0)
        }
    }

    fn block(&self) -> Expr {
        if self.blocks > 1 {
            Expr::var(&self.vars.bx)
        } else {
            Expr::int(0)
        }
    }

    /// The thread's index among all threads of all blocks.
    fn linear_thread(&self) -> Expr {
        self.block() * Expr::int(self.threads) + self.thread()
    }

    /// The start of the region `owner` (a thread, or a linear thread for global staging).
    fn region(owner: Expr) -> Expr {
        owner * Expr::int(REGION)
    }

    /// Whether the staging is a global parameter, shared by all blocks: racy programs whose
    /// readers may run before the owner of what they read zeroed it (threads switch only at
    /// barriers), which must read input data, not uninitialized memory.
    fn global_staging(&self) -> bool {
        matches!(self.defect, Some(Defect::CrossBlock | Defect::ExchangeWithoutBarriers))
    }

    /// The region of thread `thread` of block `block`.
    fn region_of(&self, block: Expr, thread: Expr) -> Expr {
        let owner = if self.global_staging() { block * Expr::int(self.threads) + thread } else { thread };
        Self::region(owner)
    }

    /// This thread's region.
    fn own_base(&self) -> Expr {
        self.region_of(self.block(), self.thread())
    }

    /// The region readers read: this thread's, a neighbour's, or another block's.
    fn read_base(&self) -> Expr {
        if self.defect == Some(Defect::CrossBlock) {
            let other = Expr::floormod(self.block() + Expr::int(1), Expr::int(self.blocks));
            return self.region_of(other, self.thread());
        }
        if self.exchange {
            let neighbour = Expr::floormod(self.thread() + Expr::int(1), Expr::int(self.threads));
            return self.region_of(self.block(), neighbour);
        }
        self.own_base()
    }
}

impl Buffers {
    /// The buffers; `global`: the staging is a global parameter with a region per thread of
    /// every block.
    fn new(threads: i64, blocks: i64, global: bool, u: &mut Unstructured<'_>) -> Result<Self> {
        let owners = if global { threads * blocks } else { threads };
        let scope = match (global, threads > 1 || blocks > 1) {
            (true, _) => "global",
            (false, true) => "shared",
            (false, false) => *u.choose(&["local", "shared"])?,
        };
        let staging_name = if global { "G" } else { "S" };
        let staging = float_buffer(staging_name, owners * REGION, scope);
        let out = float_buffer("Out", READERS * threads * blocks * 2, "global");
        let view = |name: &str, of: &Buffer, dtype: DataType, shape: Vec<Expr>| {
            let mut spec = BufferSpec::new(name, dtype, shape, of.scope());
            spec.data = of.data().clone();
            spec.build()
        };
        let pairs = DataType::FLOAT32.with_lanes(2);
        Ok(Buffers {
            input: float_buffer("A", INPUT_LEN, "global"),
            data: BufferSpec::new("K", DataType::INT32, vec![Expr::int(DATA_LEN)], "global").build(),
            two_dim: view("S2", &staging, DataType::FLOAT32, vec![Expr::int(owners), Expr::int(REGION)]),
            staging_vector: view("S_pairs", &staging, pairs, vec![Expr::int(owners * REGION / 2)]),
            out_vector: view("Out_pairs", &out, pairs, vec![Expr::int(READERS * threads * blocks)]),
            out,
            staging,
        })
    }
}

/// `body` with `buffer` declared over it.
fn decl(buffer: &Buffer, body: Stmt) -> Stmt {
    Stmt::synthetic(StmtKind::DeclBuffer { buffer: buffer.clone(), body: Box::new(body) })
}

fn barrier() -> Stmt {
    Stmt::synthetic(StmtKind::Barrier { scope: "shared".into() })
}
