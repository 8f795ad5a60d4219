//! Statements to instructions: stores, loops, conditions, bindings, allocations, thread
//! bindings, barriers and the async chains (docs/ptx.md).
//!
//! Invariants: every access computes `base + (elem_offset + index) * element_bytes` in 64
//! bits; bases are aligned to 16 bytes (arrays are declared so; buffer parameters are
//! assumed so, as cudaMalloc returns 256-byte aligned memory), so an access of a whole
//! element of 2, 4, 8 or 16 bytes is always aligned and may be one `ld/st.vN` or `cp.async`.
//! Every statement inside the function's outermost thread binding runs in every thread, as
//! in the interpreter (docs/async-semantics.md, "Threads"); statements with an effect
//! outside every binding are host code, which a kernel does not hold.

use std::collections::BTreeSet;

use tirproof_ir::annotation::{ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_WAIT_QUEUE_SCOPE};
use tirproof_ir::async_op::decode_chain;
use tirproof_ir::buffer::Buffer;
use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::{BinOp, Expr};
use tirproof_ir::stmt::{AttrStmt, BufferStore, For, ForKind, Stmt, StmtKind};
use tirproof_ir::var::Var;
use tirproof_ir::ThreadTag;

use super::bounds::{self, Range};
use super::{ident, Gen, Storage, R};
use crate::module::{
    Address, Array, ArrayOrigin, Cmp, CpAsync, CpSize, Dim, IntOp, Op, Operand, Reg, RegClass, Special, StateSpace, Ty,
    Width,
};

/// The longest saturating wait chain: a count bounded above by more waits for at most this
/// many groups, which is stricter and so still safe.
pub const MAX_WAIT_CHAIN: i64 = 16;

/// Where an access goes: its state space, the buffer's element type and one address per
/// index lane.
pub(super) struct Access {
    pub space: StateSpace,
    pub elem: DataType,
    pub addresses: Vec<Address>,
}

/// Whether a statement binds a thread tag anywhere.
pub(super) fn binds_threads(stmt: &Stmt) -> bool {
    let mut any = false;
    visit_stmts(stmt, &mut |s| any |= s.launch().is_some());
    any
}

/// The constant queue ids of a statement's async commits and waits.
pub(super) fn async_queues(stmt: &Stmt) -> BTreeSet<i64> {
    let mut queues = BTreeSet::new();
    visit_stmts(stmt, &mut |s| {
        if let StmtKind::Attr(attr) = &s.kind {
            let is_queue = matches!(attr.key.as_str(), ASYNC_COMMIT_QUEUE_SCOPE | ASYNC_WAIT_QUEUE_SCOPE);
            if let (true, Expr::Int { value, .. }) = (is_queue, &attr.value) {
                queues.insert(*value);
            }
        }
    });
    queues
}

/// Calls `f` on every statement, outermost first.
fn visit_stmts(stmt: &Stmt, f: &mut impl FnMut(&Stmt)) {
    f(stmt);
    match &stmt.kind {
        StmtKind::If { then_case, else_case, .. } => {
            visit_stmts(then_case, f);
            if let Some(e) = else_case {
                visit_stmts(e, f);
            }
        }
        StmtKind::Seq(list) => list.iter().for_each(|s| visit_stmts(s, f)),
        _ => {
            if let Some(body) = stmt.body() {
                visit_stmts(body, f);
            }
        }
    }
}

/// The special register a thread tag reads, and whether it counts threads (or blocks).
fn special_of(tag: &str) -> Option<(Special, bool)> {
    match ThreadTag::parse(tag)? {
        ThreadTag::Thread(axis) => Some((Special::Tid(Dim::from_name(axis.name())?), true)),
        ThreadTag::Block(axis) => Some((Special::Ctaid(Dim::from_name(axis.name())?), false)),
        ThreadTag::Virtual(_) => None,
    }
}

impl Gen {
    pub(super) fn stmt(&mut self, stmt: &Stmt) -> R<()> {
        let outer = self.span;
        if stmt.span.is_known() {
            self.span = stmt.span;
        }
        let result = self.stmt_kind(stmt);
        self.span = outer;
        result
    }

    fn stmt_kind(&mut self, stmt: &Stmt) -> R<()> {
        match &stmt.kind {
            StmtKind::Seq(list) => list.iter().try_for_each(|s| self.stmt(s)),
            StmtKind::Let { var, value, body } => {
                let lanes = self.expr(value)?;
                self.bind(var, lanes, bounds::range(value, &self.ranges));
                self.stmt(body)
            }
            StmtKind::For(f) if f.kind == ForKind::ThreadBinding => {
                let tag = f.thread.clone().unwrap_or_default();
                self.thread_binding(&f.var, &tag, &f.min, &f.extent, &f.body)
            }
            StmtKind::LaunchThread { var, tag, extent, body } => {
                self.thread_binding(var, tag, &Expr::int_of(0, var.dtype()), extent, body)
            }
            StmtKind::For(f) => {
                self.require_threads("a loop")?;
                self.serial_loop(f)
            }
            StmtKind::If { cond, then_case, else_case } => {
                self.require_threads("a condition")?;
                self.condition(cond, then_case, else_case.as_deref())
            }
            StmtKind::Store(store) => {
                self.require_threads("a store")?;
                self.store(store)
            }
            StmtKind::Attr(attr) => self.attr(attr),
            StmtKind::Allocate(alloc) => {
                self.allocate(alloc.data.clone(), alloc.dtype, &alloc.extents, &alloc.scope)?;
                self.stmt(&alloc.body)
            }
            StmtKind::AllocBuffer { buffer, body, .. } => {
                self.allocate(buffer.data().clone(), buffer.dtype(), buffer.shape(), buffer.scope())?;
                self.stmt(body)
            }
            // An alias over existing storage: accesses resolve through its data variable.
            StmtKind::DeclBuffer { body, .. } => self.stmt(body),
            StmtKind::Evaluate(value) => match value {
                Expr::Int { .. } => Ok(()),
                other => {
                    self.require_threads("an evaluation")?;
                    self.expr(other).map(|_| ())
                }
            },
            StmtKind::Barrier { scope } => {
                self.require_threads("a barrier")?;
                if scope != "shared" {
                    let construct = format!("a barrier of scope \"{scope}\"");
                    return Err(self.error(construct, "only block barriers (\"shared\") have a PTX lowering"));
                }
                self.emit(Op::BarSync(0));
                Ok(())
            }
            StmtKind::Block(block) => Err(self.error(
                format!("the block \"{}\"", block.name),
                "S-TIR blocks must be lowered first (lower-opaque-block)",
            )),
        }
    }

    fn bind(&mut self, var: &Var, lanes: Vec<Operand>, range: Option<Range>) {
        self.vars.insert(var.id(), lanes);
        match range {
            Some(r) => self.ranges.insert(var.id(), r),
            None => self.ranges.remove(&var.id()),
        };
    }

    /// Effects outside every thread binding are host code, which a kernel does not hold
    /// (a function without bindings is a kernel of one thread); inside the outermost binding
    /// every thread runs them (docs/async-semantics.md, "Threads"), as PTX does.
    fn require_threads(&self, what: &str) -> R<()> {
        if self.depth == 0 && self.binds_threads {
            return Err(self.error(
                format!("{what} outside the function's thread bindings"),
                "a PTX kernel holds only the code inside its launch; code around it runs on the host",
            ));
        }
        Ok(())
    }

    fn thread_binding(&mut self, var: &Var, tag: &str, min: &Expr, extent: &Expr, body: &Stmt) -> R<()> {
        let construct = || format!("the thread binding `{tag}`");
        let Some((special, threads)) = special_of(tag) else {
            return Err(self.error(construct(), "only threadIdx.* and blockIdx.* have PTX registers"));
        };
        let extent = match extent {
            Expr::Int { value, .. } => u32::try_from(*value).ok().filter(|v| *v > 0),
            _ => None,
        };
        let Some(extent) = extent else {
            return Err(self.error(construct(), "its extent must be a positive constant (the launch shape)"));
        };
        let dim = match special {
            Special::Tid(d) | Special::Ctaid(d) | Special::Nctaid(d) => d.position(),
        };
        let shape = if threads { &mut self.launch.block[dim] } else { &mut self.launch.grid[dim] };
        let bound_before = *shape;
        if self.bound.insert(tag.to_string()) {
            *shape = extent;
        } else if self.depth == 0 {
            return Err(self.error(construct(), "the tag is bound a second time; PTX has one launch per kernel"));
        } else if bound_before != extent {
            // Sibling bindings of one tag are the same threads; TVM's UnifyThreadBinding
            // refuses them with different extents too.
            return Err(self.error(construct(), format!("another binding of the tag has extent {bound_before}")));
        }
        let index = self.reg(RegClass::B32);
        self.emit(Op::Mov { ty: Ty::U32, dst: index, src: Operand::Special(special) });
        let elem = var.dtype();
        // The index is a 32-bit register already; a 32-bit variable shares its bits.
        let widened = if elem.bits == 32 {
            index.into()
        } else {
            self.cast(DataType::new(tirproof_ir::dtype::TypeCode::UInt, 32, 1), elem, index.into())?
        };
        let min_lanes = self.expr(min)?;
        let value = match min_lanes.first() {
            Some(Operand::Imm(0)) | None => widened,
            Some(m) => self.binary(BinOp::Add, elem, widened, m.clone())?,
        };
        let range = match min {
            Expr::Int { value, .. } => Some(Range { lo: *value, hi: value + i64::from(extent) - 1 }),
            _ => None,
        };
        self.bind(var, vec![value], range);
        self.depth += 1;
        let result = self.stmt(body);
        self.depth -= 1;
        result
    }

    /// A serial loop (any kind other than a thread binding runs serially, as in the
    /// interpreter): `setp` at the head, a back edge at the end.
    fn serial_loop(&mut self, f: &For) -> R<()> {
        let elem = f.var.dtype();
        let ty = self.scalar_ty(elem, || format!("the loop variable `{}`", f.var.name()))?;
        let min = self.expr(&f.min)?.into_iter().next();
        let extent = self.expr(&f.extent)?.into_iter().next();
        let (Some(min), Some(extent)) = (min, extent) else {
            return Err(self.error("a loop", "its bounds have no value"));
        };
        let end = self.binary(BinOp::Add, elem, min.clone(), extent)?;
        let counter = self.reg_of(ty);
        self.emit(Op::Mov { ty, dst: counter, src: min });
        let (head, exit) = (self.label(), self.label());
        self.place(head);
        let done = self.setp(Cmp::Ge, ty, counter.into(), end);
        let Operand::Reg(done) = done else { return Err(self.error("a loop", "no predicate register")) };
        self.emit_guarded(done, false, Op::Bra { target: exit });
        let range = match (&f.min, &f.extent) {
            (Expr::Int { value: lo, .. }, Expr::Int { value: n, .. }) if *n > 0 => {
                Some(Range { lo: *lo, hi: lo + n - 1 })
            }
            _ => None,
        };
        self.bind(&f.var, vec![counter.into()], range);
        self.stmt(&f.body)?;
        self.emit(Op::Int { op: IntOp::Add, ty, dst: counter, a: counter.into(), b: Operand::Imm(1) });
        self.emit(Op::Bra { target: head });
        self.place(exit);
        Ok(())
    }

    fn condition(&mut self, cond: &Expr, then_case: &Stmt, else_case: Option<&Stmt>) -> R<()> {
        let Some(Operand::Reg(pred)) = self.expr(cond)?.first().cloned() else {
            return Err(self.error("a condition", "its value is not a predicate register"));
        };
        let (otherwise, end) = (self.label(), self.label());
        self.emit_guarded(pred, true, Op::Bra { target: otherwise });
        self.stmt(then_case)?;
        if let Some(else_case) = else_case {
            self.emit(Op::Bra { target: end });
            self.place(otherwise);
            self.stmt(else_case)?;
            self.place(end);
        } else {
            self.place(otherwise);
        }
        Ok(())
    }

    /// A shared or local array for an allocation, its base in a register.
    fn allocate(&mut self, data: Var, dtype: DataType, extents: &[Expr], scope: &str) -> R<()> {
        let construct = || format!("the allocation `{}` in scope \"{scope}\"", data.name());
        let space = match scope {
            "shared" | "shared.dyn" => StateSpace::Shared,
            "local" => StateSpace::Local,
            _ => return Err(self.error(construct(), "only shared and local allocations live in a kernel")),
        };
        let mut elements: i64 = 1;
        for extent in extents {
            let Expr::Int { value, .. } = extent else {
                return Err(self.error(construct(), "its size must be a constant"));
            };
            elements = elements.saturating_mul(*value);
        }
        let bytes = u64::try_from(elements).unwrap_or(0).saturating_mul(u64::from(dtype.bytes()));
        let name = format!("{}_{}", ident(data.name()), self.arrays.len());
        // Accesses index scalar elements (a vector type is its lanes).
        let origin = ArrayOrigin { buffer: data.name().to_string(), element_bytes: dtype.element().bytes() };
        let array =
            Array { space, name: name.clone(), align: 16, bytes: bytes.max(1), dynamic: false, origin: Some(origin) };
        self.arrays.push(array);
        let base = self.reg(RegClass::B64);
        self.emit(Op::Mov { ty: Ty::U64, dst: base, src: Operand::Symbol(name) });
        self.storages.insert(data.id(), Storage { space, base });
        Ok(())
    }

    /// The addresses of `buffer[indices]`, one per index lane.
    pub(super) fn access(&mut self, buffer: &Buffer, indices: &[Expr]) -> R<Access> {
        let Some(storage) = self.storages.get(&buffer.data().id()).copied() else {
            return Err(self.error(format!("the buffer `{}`", buffer.name()), "its storage is not allocated here"));
        };
        let flat = self.flat_index(buffer, indices)?;
        let index_dtype = flat.dtype().element();
        let elem = buffer.dtype();
        let bytes = i64::from(elem.bytes());
        let mut addresses = Vec::new();
        for lane in self.expr(&flat)? {
            addresses.push(match lane {
                Operand::Imm(i) => Address::reg(storage.base, i.wrapping_mul(bytes)),
                other => {
                    let wide = self.cast(index_dtype, DataType::INT64, other)?;
                    let wide = self.in_reg(Ty::S64, wide);
                    let addr = self.reg(RegClass::B64);
                    let (a, b, c) = (wide.into(), Operand::Imm(bytes), storage.base.into());
                    self.emit(Op::Mad { ty: Ty::S64, dst: addr, a, b, c });
                    Address::reg(addr, 0)
                }
            });
        }
        Ok(Access { space: storage.space, elem, addresses })
    }

    /// `elem_offset + index` for one index, or the row-major (or strided) linear index.
    fn flat_index(&self, buffer: &Buffer, indices: &[Expr]) -> R<Expr> {
        let mut flat: Option<Expr> = None;
        let rank = indices.len();
        for (k, index) in indices.iter().enumerate() {
            let stride = match buffer.strides().get(k) {
                Some(s) => s.clone(),
                None if buffer.strides().is_empty() => {
                    let dims = buffer.shape().get(k + 1..rank).unwrap_or_default();
                    dims.iter()
                        .cloned()
                        .reduce(|a, b| Expr::binary(BinOp::Mul, a, b))
                        .unwrap_or_else(|| Expr::int_of(1, index.dtype().element()))
                }
                None => {
                    return Err(
                        self.error(format!("the buffer `{}`", buffer.name()), "its strides do not match its rank")
                    )
                }
            };
            let term = if matches!(stride, Expr::Int { value: 1, .. }) {
                index.clone()
            } else {
                Expr::binary(BinOp::Mul, index.clone(), broadcast_like(stride, index))
            };
            flat = Some(match flat {
                None => term,
                Some(acc) => Expr::binary(BinOp::Add, acc, term),
            });
        }
        let Some(flat) = flat else {
            return Err(self.error(format!("the buffer `{}`", buffer.name()), "an access without an index"));
        };
        Ok(match buffer.elem_offset() {
            Expr::Int { value: 0, .. } => flat,
            offset => Expr::binary(BinOp::Add, flat.clone(), broadcast_like(offset.clone(), &flat)),
        })
    }

    /// Loads one element (all its lanes) from `addr`, in accesses of at most 16 bytes.
    pub(super) fn ld(&mut self, space: StateSpace, elem: DataType, addr: Address) -> R<Vec<Reg>> {
        let (ty, chunks) = self.chunks(elem)?;
        let mut out = Vec::new();
        for (offset, width) in chunks {
            let dst: Vec<Reg> = (0..width.lanes()).map(|_| self.reg_of(mem_ty(ty))).collect();
            let addr = Address { offset: addr.offset + offset, ..addr.clone() };
            self.emit(Op::Ld { space, width, ty: mem_ty(ty), dst: dst.clone(), addr });
            out.extend(dst);
        }
        if ty == Ty::Pred {
            // A stored bool is a byte: true when it is not 0.
            return Ok(out
                .into_iter()
                .map(|byte| {
                    let pred = self.reg(RegClass::Pred);
                    self.emit(Op::Setp { cmp: Cmp::Ne, ty: Ty::U16, dst: pred, a: byte.into(), b: Operand::Imm(0) });
                    pred
                })
                .collect());
        }
        Ok(out)
    }

    /// Stores one element (all its lanes) to `addr`.
    fn st(&mut self, space: StateSpace, elem: DataType, addr: &Address, values: Vec<Operand>) -> R<()> {
        let (ty, chunks) = self.chunks(elem)?;
        let mut values = values.into_iter();
        for (offset, width) in chunks {
            let src: Vec<Operand> = values
                .by_ref()
                .take(width.lanes())
                .map(|v| match (ty, v) {
                    // A bool is stored as the byte 1 or 0.
                    (Ty::Pred, Operand::Reg(pred)) => {
                        let byte = self.reg_of(Ty::U16);
                        let (a, b) = (Operand::Imm(1), Operand::Imm(0));
                        self.emit(Op::Selp { ty: Ty::U16, dst: byte, a, b, pred });
                        byte.into()
                    }
                    (_, v) => self.in_reg(mem_ty(ty), v).into(),
                })
                .collect();
            let addr = Address { offset: addr.offset + offset, ..addr.clone() };
            self.emit(Op::St { space, width, ty: mem_ty(ty), addr, src });
        }
        Ok(())
    }

    /// The lane type of an element and its split into accesses of at most 16 bytes: (byte
    /// offset, width) each.
    fn chunks(&self, elem: DataType) -> R<(Ty, Vec<(i64, Width)>)> {
        let ty = self.scalar_ty(elem, || format!("memory of type {elem}"))?;
        // A bool is one byte in memory, 0 or 1 (`ld`/`st` convert it from and to a predicate).
        let lane_bytes = if ty == Ty::Pred { 1 } else { i64::from(ty.bits() / 8) };
        let lanes = usize::from(elem.lanes);
        let per_access = (16 / lane_bytes).clamp(1, 4) as usize;
        let per_access = if lanes <= per_access { lanes } else { per_access };
        let Some(width) = Width::of_lanes(per_access).filter(|_| lanes % per_access == 0) else {
            return Err(self.error(format!("memory of type {elem}"), "vectors of 1, 2 or 4 lanes per 16 bytes only"));
        };
        let chunks = (0..lanes / per_access).map(|k| (k as i64 * per_access as i64 * lane_bytes, width)).collect();
        Ok((ty, chunks))
    }

    fn store(&mut self, store: &BufferStore) -> R<()> {
        if self.in_async {
            match self.cp_async_size(store) {
                Ok(size) => return self.cp_async(store, size),
                Err(why) => self.note(format!("async store to `{}` done synchronously: {why}", store.buffer.name())),
            }
        }
        let values = self.expr(&store.value)?;
        let access = self.access(&store.buffer, &store.indices)?;
        let per = usize::from(access.elem.lanes);
        let mut values = values.into_iter();
        for addr in &access.addresses {
            let lane_values: Vec<Operand> = values.by_ref().take(per).collect();
            self.st(access.space, access.elem, addr, lane_values)?;
        }
        Ok(())
    }

    /// Whether an async store is a copy `cp.async` can do, and its size; else why not.
    fn cp_async_size(&self, store: &BufferStore) -> Result<CpSize, String> {
        let space = |b: &Buffer| self.storages.get(&b.data().id()).map(|s| s.space);
        let Expr::Load(load) = &store.value else {
            return Err("its value is not a plain load".into());
        };
        if space(&store.buffer) != Some(StateSpace::Shared) || space(&load.buffer) != Some(StateSpace::Global) {
            return Err("cp.async copies from global to shared memory only".into());
        }
        if store.buffer.dtype() != load.buffer.dtype() {
            return Err("source and destination element types differ".into());
        }
        let scalar_index = |ix: &[Expr]| ix.iter().all(|i| i.dtype().lanes == 1);
        if !scalar_index(&store.indices) || !scalar_index(&load.indices) {
            return Err("a vector index copies several elements (vector-type-rewrite makes them one)".into());
        }
        // Every element starts at a multiple of its size from a 16-byte aligned base, so a
        // whole-element copy is aligned to its size.
        CpSize::of_bytes(store.buffer.dtype().bytes())
            .ok_or_else(|| format!("an element of {} bytes (cp.async copies 4, 8 or 16)", store.buffer.dtype().bytes()))
    }

    fn cp_async(&mut self, store: &BufferStore, size: CpSize) -> R<()> {
        let Expr::Load(load) = &store.value else { return Err(self.error("an async copy", "its value is not a load")) };
        let src = self.access(&load.buffer, &load.indices)?.addresses;
        let dst = self.access(&store.buffer, &store.indices)?.addresses;
        let (Some(src), Some(dst)) = (src.into_iter().next(), dst.into_iter().next()) else {
            return Err(self.error("an async copy", "it has no address"));
        };
        let copy = CpAsync::new(size.preferred_cache(), size, dst, src)
            .map_err(|e| self.error("an async copy", e.to_string()))?;
        self.emit(Op::CpAsync(copy));
        Ok(())
    }

    /// Attributes: async chains (wait, asynchronous body, commit); others scope only.
    fn attr(&mut self, attr: &AttrStmt) -> R<()> {
        let Some(chain) = decode_chain(attr) else {
            return self.stmt(&attr.body);
        };
        self.require_threads("an async scope")?;
        let ops = chain.ops().map_err(|e| self.error("an async attribute chain", e.to_string()))?;
        if let Some(wait) = &ops.wait {
            self.queue(&wait.queue)?;
            // A count claimed to cover tokens runs as the count; tokens alone name no count.
            let count = wait.inflight().ok_or_else(|| {
                self.error("a wait on tokens", "`cp.async.wait_group` takes a count: give the wait an in-flight count")
            })?;
            self.wait(count)?;
        }
        let outer = self.in_async;
        self.in_async |= ops.asynchronous;
        let body = self.stmt(chain.body);
        self.in_async = outer;
        body?;
        if let Some(queue) = &ops.commit {
            self.queue(queue)?;
            self.emit(Op::CpAsyncCommitGroup);
        }
        Ok(())
    }

    /// Checks that a queue is a constant: PTX numbers no queues, so the id only matters for
    /// telling whether the function uses several (see `wait`).
    fn queue(&mut self, queue: &Expr) -> R<()> {
        match queue {
            Expr::Int { .. } => Ok(()),
            _ => Err(self.error("an async queue that is not a constant", "queues must be constants")),
        }
    }

    /// A wait: `cp.async.wait_group n` for a constant; else the saturating chain.
    fn wait(&mut self, count: &Expr) -> R<()> {
        if self.queues.len() > 1 {
            // Groups of all TIR queues share one PTX FIFO, so a count of one queue says nothing
            // about how many groups are younger; waiting for all of them is always enough.
            self.note(format!(
                "the function uses {} async queues and PTX has one: this wait waits for every group",
                self.queues.len()
            ));
            self.emit(Op::CpAsyncWaitGroup(0));
            return Ok(());
        }
        if let Expr::Int { value, .. } = count {
            let Ok(n) = u32::try_from(*value) else {
                return Err(self.error(format!("the wait count {value}"), "a negative count has no meaning in PTX"));
            };
            self.emit(Op::CpAsyncWaitGroup(n));
            return Ok(());
        }
        let type_max = bounds::type_range(count.dtype()).map_or(i64::MAX, |r| r.hi);
        // A count without a bound (one read from memory: the counter of commits that
        // `lower-async-tokens` keeps) gets the longest chain: above it, it waits for
        // `MAX_WAIT_CHAIN` groups, which is stricter and so still safe.
        let top = match bounds::range(count, &self.ranges).filter(|r| r.hi < type_max) {
            Some(range) => {
                if range.hi > MAX_WAIT_CHAIN {
                    self.note(format!("a wait count up to {} waits for at most {MAX_WAIT_CHAIN} groups", range.hi));
                }
                range.hi.clamp(0, MAX_WAIT_CHAIN)
            }
            None => {
                self.note(format!(
                    "a wait count with no known upper bound waits for at most {MAX_WAIT_CHAIN} groups in flight"
                ));
                MAX_WAIT_CHAIN
            }
        };
        let ty = self.scalar_ty(count.dtype(), || "a wait count".into())?;
        let Some(value) = self.expr(count)?.into_iter().next() else {
            return Err(self.error("a wait count", "it has no value"));
        };
        self.body
            .push(crate::module::Line::Comment(format!("wait until at most min(count, {top}) groups are pending")));
        for k in 0..=top {
            // Exactly one k runs: the largest k <= count (0 for a count below 0).
            let cmp = match k {
                _ if k == top => Cmp::Ge,
                0 => Cmp::Le,
                _ => Cmp::Eq,
            };
            let pred = if top == 0 { None } else { Some(self.setp(cmp, ty, value.clone(), Operand::Imm(k))) };
            let n = u32::try_from(k).unwrap_or(0);
            match pred {
                Some(Operand::Reg(p)) => self.emit_guarded(p, false, Op::CpAsyncWaitGroup(n)),
                _ => self.emit(Op::CpAsyncWaitGroup(n)),
            }
        }
        Ok(())
    }
}

/// `value` with as many lanes as `like` (a stride or offset next to a vector index).
fn broadcast_like(value: Expr, like: &Expr) -> Expr {
    let lanes = like.dtype().lanes;
    let value = if value.dtype().element() != like.dtype().element() {
        Expr::Cast { dtype: like.dtype().element(), value: Box::new(value) }
    } else {
        value
    };
    if lanes > 1 {
        Expr::Broadcast { value: Box::new(value), lanes }
    } else {
        value
    }
}

/// The type an element lane is loaded and stored with: f16 moves as raw `.b16` bits.
fn mem_ty(ty: Ty) -> Ty {
    match ty {
        Ty::F16 => Ty::B16,
        Ty::Pred => Ty::U8,
        other => other,
    }
}
