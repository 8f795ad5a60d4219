//! Token flow: the group every token names where a wait uses it, as a closed form of the loop
//! variables, and the count each wait on tokens needs.
//!
//! One walk in program order keeps, per constant queue, the number of commits the thread made
//! before the current point (`counter`; an [`Atoms`] unknown where a statement's count depends
//! on the path). A token is evaluated where it is made: `async_group_token(q)` names group
//! `C_q - 1`, `async_copy_token(q)` group `C_q`; a let keeps the value of its binding point,
//! and a store to a local buffer is recorded with the value it stores. A load is forwarded to
//! the store that last wrote its slot, where that is decided syntactically:
//!
//! - in the innermost loop around the load, when it holds the buffer's only store, directly in
//!   its body, and both indices are `(i + a) % N`, `i + a` or constants: the reaching store is
//!   iteration `i - d` for the smallest `d` that maps to the same slot (at least 1 when the
//!   store comes after the load in the body), and in the first `d` iterations the stores
//!   before the loop, found as below with `i` fixed: a piecewise value;
//! - otherwise for a constant slot: the last store before the load in program order that
//!   writes it, with the loops it does not share with the load (constant bounds, at most
//!   [`MAX_INSTANCES`] instances) enumerated from their last iteration and its conditions
//!   folded (`if i == 0`), provided no store after the load in a loop around it could have
//!   written the slot in an earlier iteration;
//! - for a slot `(x + c) % N` of a parameter `x` outside every loop that stores: the last
//!   iteration of the loop (of extent `x + e`) before the load that writes it, when `x` is
//!   large enough for that iteration to run, and below, down to the least `x` the conditions
//!   around the load allow, each value of `x` as a piece forwarded with `x` fixed.
//!
//! A first walk records every store, so a load also sees a store later in its loop body.
//! Only stores of the buffer's current allocation reach a load: the loops around an
//! allocation carry no tokens into it.
//!
//! Anything else is not traced: the wait's count is `Undecided`, never guessed. The count of a
//! wait is `C_q(W) - 1 - max(group)`, folded per piece.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use tirproof_ir::async_op::{decode_annotations, decode_chain, decode_token_op, AsyncKey, TokenOp, Wait};
use tirproof_ir::index_arith::{const_int, imm};
use tirproof_ir::subst::Substitution;
use tirproof_ir::visit::{walk_expr, Visitor};
use tirproof_ir::{BinOp, BufferId, BufferLoad, DataType, Expr, ForKind, PrimFunc, Span, Stmt, StmtKind, Var, VarId};

use super::counter::{commit_of, commits};
use super::poly::{Atoms, Poly};
use super::{Derived, DerivedCount, TokenFault, Undecided};
use crate::fold::fold_expr;

/// The most loop instances enumerated to find the last store to a slot.
pub const MAX_INSTANCES: i64 = 4096;

/// A value that is `pieces[k]` when `var == min + k`, else `rest` (or `rest` alone).
#[derive(Clone, Debug, PartialEq)]
struct Piecewise {
    split: Option<(Var, i64, Vec<Poly>)>,
    rest: Poly,
}

impl Piecewise {
    fn plain(rest: Poly) -> Piecewise {
        Piecewise { split: None, rest }
    }
}

/// The group a token names, per piece.
#[derive(Clone, Debug, PartialEq)]
struct Group {
    queue: i64,
    group: Piecewise,
}

#[derive(Clone, Debug)]
struct LoopInfo {
    var: Var,
    min: Expr,
    extent: Expr,
    /// The position of the loop statement.
    entry: usize,
}

/// A store to a local buffer, with the token value it stores (when it is one).
#[derive(Clone, Debug)]
struct StoreRecord {
    buffer: BufferId,
    indices: Vec<Expr>,
    value: Option<Group>,
    loops: Vec<usize>,
    conds: Vec<usize>,
    pos: usize,
    /// Directly in its innermost loop's body (no `if` in between).
    direct: bool,
}

/// A point of the program: its position and the loops and conditions around it.
#[derive(Clone, Debug)]
struct Point {
    pos: usize,
    loops: Vec<usize>,
    conds: Vec<usize>,
}

/// What the walk found.
pub(crate) struct Flow {
    pub(crate) waits: Vec<DerivedCount>,
    pub(crate) faults: Vec<(Span, TokenFault)>,
}

pub(crate) fn derive(func: &PrimFunc) -> Flow {
    // A load may read a store that comes later in the program (in an earlier iteration of a
    // loop around both): the first walk records every store, the second forwards with them.
    let mut first = Walker::new(func);
    first.stmt(&func.body);
    let mut walker = Walker::new(func);
    walker.stores = first.stores;
    walker.stmt(&func.body);
    Flow { waits: walker.waits, faults: walker.faults }
}

struct Walker {
    atoms: Atoms,
    counts: BTreeMap<i64, Poly>,
    loops: Vec<LoopInfo>,
    loop_stack: Vec<usize>,
    conds: Vec<(Expr, bool)>,
    cond_stack: Vec<usize>,
    /// The conditions entered since the innermost loop.
    conds_in_loop: usize,
    locals: BTreeSet<BufferId>,
    /// The loops around each local buffer's allocation: an iteration of one of them starts
    /// the buffer empty, so stores of earlier iterations never reach its loads.
    /// Where each is allocated (the statement's position): no store before reaches a load.
    alloc_loops: HashMap<BufferId, (Vec<usize>, usize)>,
    lets: HashMap<VarId, Option<Group>>,
    stores: Vec<StoreRecord>,
    pos: usize,
    wait_index: usize,
    waits: Vec<DerivedCount>,
    faults: Vec<(Span, TokenFault)>,
    span: Span,
}

impl Walker {
    fn new(func: &PrimFunc) -> Walker {
        let mut atoms = Atoms::default();
        for param in &func.params {
            atoms.allow(&param.var);
        }
        let counts = queues(&func.body).into_iter().map(|q| (q, Poly::default())).collect();
        Walker {
            atoms,
            counts,
            loops: Vec::new(),
            loop_stack: Vec::new(),
            conds: Vec::new(),
            cond_stack: Vec::new(),
            conds_in_loop: 0,
            locals: BTreeSet::new(),
            alloc_loops: HashMap::new(),
            lets: HashMap::new(),
            stores: Vec::new(),
            pos: 0,
            wait_index: 0,
            waits: Vec::new(),
            faults: Vec::new(),
            span: func.span,
        }
    }

    /// A local buffer is allocated here.
    fn local(&mut self, buffer: BufferId) {
        self.locals.insert(buffer);
        self.alloc_loops.insert(buffer, (self.loop_stack.clone(), self.pos));
    }

    /// The loops of `loops` that run inside `buffer`'s allocation.
    fn inside_alloc(&self, buffer: BufferId, loops: &[usize]) -> Vec<usize> {
        let outside = self.alloc_loops.get(&buffer).map(|(l, _)| l.as_slice()).unwrap_or_default();
        loops.iter().copied().filter(|l| !outside.contains(l)).collect()
    }

    fn point(&self) -> Point {
        Point { pos: self.pos, loops: self.loop_stack.clone(), conds: self.cond_stack.clone() }
    }

    fn loop_vars(&self) -> Vec<VarId> {
        self.loop_stack.iter().map(|l| self.loops[*l].var.id()).collect()
    }

    /// Adds what `stmt` commits per execution to every queue's count (an unknown where that
    /// depends on the path).
    fn count_after(&mut self, before: &BTreeMap<i64, Poly>, stmt: &Stmt) {
        let queues: Vec<i64> = before.keys().copied().collect();
        for q in queues {
            let added = match commits(stmt, q, &mut self.atoms) {
                Some(c) => before[&q].add(&c),
                None => None,
            };
            let value = match added {
                Some(v) => v,
                None => before[&q].add(&self.atoms.unknown(self.loop_vars())).unwrap_or_default(),
            };
            self.counts.insert(q, value);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        self.pos += 1;
        if stmt.span.is_known() {
            self.span = stmt.span;
        }
        match &stmt.kind {
            StmtKind::Store(store) => {
                self.check_token_ops(&store.value);
                if self.locals.contains(&store.buffer.id()) {
                    let value = self.token(&store.value);
                    let record = StoreRecord {
                        buffer: store.buffer.id(),
                        indices: store.indices.clone(),
                        value,
                        loops: self.loop_stack.clone(),
                        conds: self.cond_stack.clone(),
                        pos: self.pos,
                        direct: self.conds_in_loop == 0,
                    };
                    // The second walk knows every store already: it updates the value.
                    match self.stores.binary_search_by_key(&self.pos, |s| s.pos) {
                        Ok(known) => self.stores[known] = record,
                        Err(at) => self.stores.insert(at, record),
                    }
                }
            }
            StmtKind::Evaluate(e) => self.check_token_ops(e),
            StmtKind::Barrier { .. } => {}
            StmtKind::Let { var, value, body } => {
                self.check_token_ops(value);
                let token = self.token(value);
                self.lets.insert(var.id(), token);
                self.atoms.bind(var, value);
                self.stmt(body);
            }
            StmtKind::Seq(stmts) => stmts.iter().for_each(|s| self.stmt(s)),
            StmtKind::If { cond, then_case, else_case } => {
                let before = self.counts.clone();
                for (arm, holds) in [(Some(then_case), true), (else_case.as_ref(), false)] {
                    self.counts = before.clone();
                    self.conds.push((cond.clone(), holds));
                    self.cond_stack.push(self.conds.len() - 1);
                    self.conds_in_loop += 1;
                    if let Some(arm) = arm {
                        self.stmt(arm);
                    }
                    self.conds_in_loop -= 1;
                    self.cond_stack.pop();
                }
                self.count_after(&before, stmt);
            }
            StmtKind::For(f) if f.kind == ForKind::ThreadBinding => {
                self.atoms.allow(&f.var);
                self.stmt(&f.body);
            }
            StmtKind::For(f) => {
                let before = self.counts.clone();
                self.atoms.allow(&f.var);
                self.loops.push(LoopInfo {
                    var: f.var.clone(),
                    min: f.min.clone(),
                    extent: f.extent.clone(),
                    entry: self.pos,
                });
                self.loop_stack.push(self.loops.len() - 1);
                let outer_conds = std::mem::replace(&mut self.conds_in_loop, 0);
                let iteration = self.atoms.poly(&Expr::var(&f.var)).zip(self.atoms.poly(&f.min));
                let queues: Vec<i64> = before.keys().copied().collect();
                for q in queues {
                    let per_iteration =
                        commits(&f.body, q, &mut self.atoms).filter(|c| !self.atoms.mentions(c, &f.var));
                    let value = match (per_iteration, &iteration) {
                        (Some(c), Some((i, min))) => {
                            i.sub(min).and_then(|done| done.mul(&c)).and_then(|d| before[&q].add(&d))
                        }
                        _ => None,
                    };
                    let value = value
                        .unwrap_or_else(|| before[&q].add(&self.atoms.unknown(self.loop_vars())).unwrap_or_default());
                    self.counts.insert(q, value);
                }
                self.stmt(&f.body);
                self.conds_in_loop = outer_conds;
                self.loop_stack.pop();
                self.count_after(&before, stmt);
            }
            StmtKind::LaunchThread { var, body, .. } => {
                self.atoms.allow(var);
                self.stmt(body);
            }
            StmtKind::Attr(attr) => match decode_chain(attr) {
                Some(chain) => {
                    let Ok(ops) = chain.ops() else { return self.stmt(chain.body) };
                    if let Some(wait) = &ops.wait {
                        self.wait(wait, stmt.span);
                    }
                    self.stmt(chain.body);
                    self.commit(ops.commit.as_ref());
                }
                None => self.stmt(&attr.body),
            },
            StmtKind::Allocate(a) => self.stmt(&a.body),
            StmtKind::AllocBuffer { buffer, body, .. } => {
                if buffer.scope() == "local" {
                    self.local(buffer.id());
                }
                self.stmt(body);
            }
            StmtKind::DeclBuffer { body, .. } => self.stmt(body),
            StmtKind::Block(block) => {
                let before = self.counts.clone();
                for iv in &block.iter_vars {
                    self.atoms.bind(&iv.var, &iv.binding);
                }
                for alloc in &block.alloc_buffers {
                    if alloc.buffer.scope() == "local" {
                        self.local(alloc.buffer.id());
                    }
                }
                let ops = decode_annotations(&block.annotations).ok().flatten();
                if let Some(wait) = ops.as_ref().and_then(|o| o.wait.as_ref()) {
                    self.wait(wait, stmt.span);
                }
                self.stmt(&block.body);
                self.commit(ops.as_ref().and_then(|o| o.commit.as_ref()));
                if block.predicate.is_some() || block.init.is_some() {
                    self.count_after(&before, stmt);
                }
            }
        }
    }

    fn commit(&mut self, queue: Option<&Expr>) {
        let queues: Vec<i64> = self.counts.keys().copied().collect();
        for q in queues {
            let next = match commit_of(queue, q) {
                Some(c) => self.counts[&q].add(&c),
                None => None,
            };
            let value =
                next.unwrap_or_else(|| self.counts[&q].add(&self.atoms.unknown(self.loop_vars())).unwrap_or_default());
            self.counts.insert(q, value);
        }
    }

    /// Records a fault for every `async_group_token` that `e` evaluates before the thread's
    /// first commit to its queue, when the counter says so.
    fn check_token_ops(&mut self, e: &Expr) {
        for (op, queue) in token_ops(e) {
            let before_first =
                op == TokenOp::LastCommitted && self.counts.get(&queue).and_then(Poly::as_const) == Some(0);
            if before_first {
                self.faults.push((self.span, TokenFault::BeforeFirstCommit { queue }));
            }
        }
    }

    /// The group a token expression names here.
    fn token(&mut self, e: &Expr) -> Option<Group> {
        match e {
            Expr::Call(call) => {
                let (op, queue) = decode_token_op(call)?.ok()?;
                let queue = const_int(queue)?;
                let count = self.counts.get(&queue)?;
                let group = match op {
                    TokenOp::LastCommitted => count.offset(-1)?,
                    TokenOp::NextCommit => count.clone(),
                };
                Some(Group { queue, group: Piecewise::plain(group) })
            }
            Expr::Var(v) => self.lets.get(&v.id()).cloned().flatten(),
            Expr::Load(load) if self.locals.contains(&load.buffer.id()) => self.forward(load, &self.point()),
            _ => None,
        }
    }

    /// The token a load reads at `at`, from the store that last wrote its slot.
    fn forward(&mut self, load: &BufferLoad, at: &Point) -> Option<Group> {
        let [index] = load.indices.as_slice() else { return None };
        if let Some(&inner) = self.inside_alloc(load.buffer.id(), &at.loops).last() {
            let in_loop: Vec<usize> = (0..self.stores.len())
                .filter(|s| self.stores[*s].buffer == load.buffer.id() && self.stores[*s].loops.contains(&inner))
                .collect();
            if !in_loop.is_empty() {
                let [store] = in_loop.as_slice() else { return None };
                return self.ring(load, index, *store, inner, at);
            }
        }
        let mut slot = index.clone();
        fold_expr(&mut slot);
        match const_int(&slot) {
            Some(slot) => self.constant_slot(load.buffer.id(), slot, at, None),
            None => self.symbolic_slot(load.buffer.id(), &slot, at),
        }
    }

    /// The ring-buffer case: the loop `inner` holds the buffer's only store `store`.
    fn ring(&mut self, load: &BufferLoad, read: &Expr, store: usize, inner: usize, at: &Point) -> Option<Group> {
        let record = self.stores[store].clone();
        let info = self.loops[inner].clone();
        if !record.direct || record.loops.last() != Some(&inner) {
            return None;
        }
        let [written] = record.indices.as_slice() else { return None };
        let (w_coeff, w_offset, w_mod) = slot_form(written, &info.var)?;
        let (r_coeff, r_offset, r_mod) = slot_form(read, &info.var)?;
        if w_coeff != r_coeff || w_mod != r_mod {
            return None;
        }
        let d_min = i64::from(record.pos > at.pos);
        let d = match (w_coeff, w_mod) {
            (0, _) if w_offset == r_offset => d_min,
            (0, _) => {
                // The load's slot is one the loop never writes.
                let mut slot = read.clone();
                fold_expr(&mut slot);
                return self.constant_slot(load.buffer.id(), const_int(&slot)?, at, None);
            }
            (_, Some(n)) => {
                let d = (w_offset - r_offset).rem_euclid(n);
                if d < d_min {
                    d + n
                } else {
                    d
                }
            }
            (_, None) if w_offset - r_offset >= d_min => w_offset - r_offset,
            (_, None) => return None,
        };
        let var_poly = self.atoms.poly(&Expr::var(&info.var))?;
        let shifted = var_poly.offset(-d)?;
        let value = record.value?;
        if value.group.split.is_some() {
            return None;
        }
        let rest = self.atoms.substitute(&value.group.rest, &info.var, &shifted)?;
        if d == 0 {
            return Some(Group { queue: value.queue, group: Piecewise::plain(rest) });
        }
        // The first d iterations read what was stored before the loop.
        let min = const_int(&info.min)?;
        if d > MAX_PIECES {
            return None;
        }
        let entry = Point { pos: info.entry, loops: at.loops[..at.loops.len() - 1].to_vec(), conds: at.conds.clone() };
        let mut pieces = Vec::new();
        for k in 0..d {
            let mut slot = Substitution::new().var(&info.var, imm(min + k, info.var.dtype())).expr(read);
            fold_expr(&mut slot);
            let before = self.constant_slot(load.buffer.id(), const_int(&slot)?, &entry, None)?;
            if before.queue != value.queue || before.group.split.is_some() {
                return None;
            }
            pieces.push(before.group.rest);
        }
        Some(Group { queue: value.queue, group: Piecewise { split: Some((info.var, min, pieces)), rest } })
    }

    /// The stores of `buffer`'s allocation that may reach a load at `at`, in program order;
    /// `None` when a store after `at` in a loop around it may have run in an earlier iteration.
    fn reaching_candidates(&self, buffer: BufferId, at: &Point) -> Option<Vec<StoreRecord>> {
        let allocated = self.alloc_loops.get(&buffer).map_or(0, |(_, pos)| *pos);
        let candidates: Vec<StoreRecord> =
            self.stores.iter().filter(|s| s.buffer == buffer && s.pos > allocated).cloned().collect();
        let carrying = self.inside_alloc(buffer, &at.loops);
        if candidates.iter().any(|s| s.pos > at.pos && s.loops.iter().any(|l| carrying.contains(l))) {
            return None;
        }
        Some(candidates.into_iter().filter(|s| s.pos < at.pos).collect())
    }

    /// The token in the constant slot `slot` of `buffer` at `at`: the last store before `at`
    /// that writes it (with the parameter of `pin` fixed to its value, if any).
    fn constant_slot(&mut self, buffer: BufferId, slot: i64, at: &Point, pin: Option<(&Var, i64)>) -> Option<Group> {
        let candidates = self.reaching_candidates(buffer, at)?;
        let mut fixed = Substitution::new();
        if let Some((var, value)) = pin {
            fixed.set_var(var, imm(value, var.dtype()));
        }
        for record in candidates.iter().rev() {
            let shared = record.loops.iter().zip(&at.loops).take_while(|(a, b)| a == b).count();
            let own: Vec<LoopInfo> = record.loops[shared..].iter().map(|l| self.loops[*l].clone()).collect();
            let conds: Vec<(Expr, bool)> =
                record.conds.iter().filter(|c| !at.conds.contains(c)).map(|c| self.conds[*c].clone()).collect();
            let mut budget = MAX_INSTANCES;
            match self.last_instance(record, &own, &conds, slot, &mut fixed.clone(), Vec::new(), &mut budget) {
                Instance::Found(values) => {
                    let mut value = record.value.clone()?;
                    for (info, v) in own.iter().zip(values) {
                        value.group = self.fix(&value.group, &info.var, v)?;
                    }
                    if let Some((var, v)) = pin {
                        value.group = self.fix(&value.group, var, v)?;
                    }
                    return Some(value);
                }
                Instance::None => continue,
                Instance::Undecided => return None,
            }
        }
        None
    }

    /// The token in a slot `(x + c) % N` of a parameter `x` (a read after a loop of
    /// symbolic extent): the last store before `at` is one loop that writes `(i + a) % N`;
    /// its last iteration that writes the slot runs when `x` is at least a threshold, and
    /// below it, down to the least `x` the conditions around the load allow, each value of
    /// `x` is a piece found with `x` fixed.
    fn symbolic_slot(&mut self, buffer: BufferId, read: &Expr, at: &Point) -> Option<Group> {
        let Expr::Binary { op: BinOp::FloorMod | BinOp::TruncMod, lhs, rhs } = read else { return None };
        let modulus = const_int(rhs).filter(|n| *n > 0)?;
        let (x, read_offset) = parameter_plus_constant(lhs)?;
        let mut candidates = self.reaching_candidates(buffer, at)?;
        let (record, own) = loop {
            let record = candidates.pop()?;
            let shared = record.loops.iter().zip(&at.loops).take_while(|(a, b)| a == b).count();
            let unconditional = record.conds.iter().all(|c| at.conds.contains(c));
            if !unconditional {
                return None;
            }
            match &record.loops[shared..] {
                // A store beside the read: the same slot for every `x`, or never.
                [] => {
                    let [written] = record.indices.as_slice() else { return None };
                    let Expr::Binary { op: BinOp::FloorMod | BinOp::TruncMod, lhs, rhs } = written else {
                        return None;
                    };
                    let (var, offset) = parameter_plus_constant(lhs)?;
                    if var != x || const_int(rhs) != Some(modulus) {
                        return None;
                    }
                    if offset.checked_sub(read_offset)?.rem_euclid(modulus) == 0 {
                        return record.value;
                    }
                }
                [own] if record.direct => break (record.clone(), *own),
                _ => return None,
            }
        };
        let info = self.loops[own].clone();
        let [written] = record.indices.as_slice() else { return None };
        let (1, write_offset, Some(n)) = slot_form(written, &info.var)? else { return None };
        let (extent_var, extent_offset) = parameter_plus_constant(&info.extent)?;
        let min = const_int(&info.min)?;
        if n != modulus || extent_var != x {
            return None;
        }
        // The last iteration `i = min + x + extent_offset - 1 - k` writes the slot.
        let last = min.checked_add(extent_offset)?.checked_sub(1)?;
        let k = last.checked_add(write_offset)?.checked_sub(read_offset)?.rem_euclid(n);
        let threshold = k.checked_add(1)?.checked_sub(extent_offset)?;
        let value = record.value?;
        if value.group.split.is_some() {
            return None;
        }
        let iteration = self.atoms.poly(&Expr::var(&x))?.offset(last.checked_sub(k)?)?;
        let rest = self.atoms.substitute(&value.group.rest, &info.var, &iteration)?;
        let lower = lower_bound(&x, at.conds.iter().map(|c| &self.conds[*c]))?;
        if threshold.checked_sub(lower)? > MAX_PIECES {
            return None;
        }
        let mut pieces = Vec::new();
        for v in lower..threshold {
            let mut slot = Substitution::new().var(&x, imm(v, x.dtype())).expr(read);
            fold_expr(&mut slot);
            let before = self.constant_slot(buffer, const_int(&slot)?, at, Some((&x, v)))?;
            if before.queue != value.queue || before.group.split.is_some() {
                return None;
            }
            pieces.push(before.group.rest);
        }
        let split = (!pieces.is_empty()).then_some((x, lower, pieces));
        Some(Group { queue: value.queue, group: Piecewise { split, rest } })
    }

    /// The last instance (values of the loops `own`, outermost first) in which `record`
    /// writes `slot` with its conditions `conds` true.
    #[expect(clippy::too_many_arguments, reason = "one recursive enumeration with its state")]
    fn last_instance(
        &self,
        record: &StoreRecord,
        own: &[LoopInfo],
        conds: &[(Expr, bool)],
        slot: i64,
        subst: &mut Substitution,
        values: Vec<i64>,
        budget: &mut i64,
    ) -> Instance {
        let Some((first, rest)) = own.split_first() else {
            *budget -= 1;
            if *budget < 0 {
                return Instance::Undecided;
            }
            for (cond, holds) in conds {
                let mut c = subst.expr(cond);
                fold_expr(&mut c);
                match c {
                    Expr::Int { value, .. } if (value != 0) == *holds => {}
                    Expr::Int { .. } => return Instance::None,
                    _ => return Instance::Undecided,
                }
            }
            let [index] = record.indices.as_slice() else { return Instance::Undecided };
            let mut written = subst.expr(index);
            fold_expr(&mut written);
            return match const_int(&written) {
                Some(s) if s == slot => Instance::Found(values),
                Some(_) => Instance::None,
                None => Instance::Undecided,
            };
        };
        let (mut min, mut extent) = (subst.expr(&first.min), subst.expr(&first.extent));
        fold_expr(&mut min);
        fold_expr(&mut extent);
        let (Some(min), Some(extent)) = (const_int(&min), const_int(&extent)) else { return Instance::Undecided };
        for v in (min..min + extent).rev() {
            subst.set_var(&first.var, imm(v, first.var.dtype()));
            let mut next = values.clone();
            next.push(v);
            match self.last_instance(record, rest, conds, slot, subst, next, budget) {
                Instance::None => continue,
                other => return other,
            }
        }
        Instance::None
    }

    /// `value` with `var` fixed to `v`.
    fn fix(&mut self, value: &Piecewise, var: &Var, v: i64) -> Option<Piecewise> {
        if let Some((split_var, min, pieces)) = &value.split {
            if split_var == var {
                let k = usize::try_from(v - min).ok();
                let chosen = k.and_then(|k| pieces.get(k)).cloned().unwrap_or_else(|| value.rest.clone());
                let fixed = self.atoms.substitute(&chosen, var, &Poly::constant(v))?;
                return Some(Piecewise::plain(fixed));
            }
            return None;
        }
        Some(Piecewise::plain(self.atoms.substitute(&value.rest, var, &Poly::constant(v))?))
    }

    /// A wait: with tokens, its derived count.
    fn wait(&mut self, wait: &Wait, span: Span) {
        let index = self.wait_index;
        self.wait_index += 1;
        if wait.tokens().is_empty() {
            return;
        }
        let derived = self.derive_wait(wait);
        self.waits.push(DerivedCount {
            index,
            span,
            queue: wait.queue.clone(),
            tokens: wait.tokens().to_vec(),
            written: wait.inflight().cloned(),
            derived,
        });
    }

    fn derive_wait(&mut self, wait: &Wait) -> Derived {
        let Some(queue) = const_int(&wait.queue) else { return Derived::Dynamic(Undecided::QueueNotConstant) };
        let Some(at_wait) = self.counts.get(&queue).cloned() else {
            return Derived::Dynamic(Undecided::QueueNotConstant);
        };
        let mut best: Option<Piecewise> = None;
        for token in wait.tokens() {
            let Some(group) = self.token(token) else { return Derived::Dynamic(Undecided::UntracedToken) };
            if group.queue != queue {
                return Derived::Faults(TokenFault::OtherQueue { wait: queue, token: group.queue });
            }
            let Some(count) = self.count_for(&at_wait, &group.group) else {
                return Derived::Dynamic(Undecided::PathDependentCount);
            };
            best = match best {
                None => Some(count),
                Some(b) => match self.min(&b, &count) {
                    Some(m) => Some(m),
                    None => return Derived::Dynamic(Undecided::IncomparableTokens),
                },
            };
        }
        let Some(count) = best else { return Derived::Dynamic(Undecided::UntracedToken) };
        let all = count.split.iter().flat_map(|(_, _, p)| p.iter()).chain([&count.rest]);
        if all.filter_map(Poly::as_const).any(|c| c < 0) {
            return Derived::Faults(TokenFault::NotCommittedYet { queue });
        }
        match self.count_expr(&count) {
            Some(e) => Derived::Static(e),
            None => Derived::Dynamic(Undecided::PathDependentCount),
        }
    }

    /// `at_wait - 1 - group`, per piece (each piece with its loop variable fixed).
    fn count_for(&mut self, at_wait: &Poly, group: &Piecewise) -> Option<Piecewise> {
        let rest = at_wait.offset(-1)?.sub(&group.rest)?;
        let split = match &group.split {
            None => None,
            Some((var, min, pieces)) => {
                let mut counts = Vec::new();
                for (k, piece) in pieces.iter().enumerate() {
                    let value = Poly::constant(min + i64::try_from(k).ok()?);
                    let fixed = self.atoms.substitute(at_wait, var, &value)?.offset(-1)?.sub(piece)?;
                    counts.push(self.atoms.substitute(&fixed, var, &value)?);
                }
                Some((var.clone(), *min, counts))
            }
        };
        Some(self.trim(Piecewise { split, rest }))
    }

    /// Drops the last pieces that equal the rest at their point.
    fn trim(&mut self, mut value: Piecewise) -> Piecewise {
        if let Some((var, min, pieces)) = &mut value.split {
            while let Some(last) = pieces.last() {
                let k = i64::try_from(pieces.len() - 1).unwrap_or(i64::MAX);
                let at = min.checked_add(k).and_then(|v| self.atoms.substitute(&value.rest, var, &Poly::constant(v)));
                if at.as_ref() == Some(last) {
                    pieces.pop();
                } else {
                    break;
                }
            }
            if pieces.is_empty() {
                value.split = None;
            }
        }
        value
    }

    /// The smaller of two counts, where their difference is a constant in every piece.
    fn min(&mut self, a: &Piecewise, b: &Piecewise) -> Option<Piecewise> {
        let smaller = |x: &Poly, y: &Poly| -> Option<Poly> {
            let diff = x.sub(y)?.as_const()?;
            Some(if diff <= 0 { x.clone() } else { y.clone() })
        };
        let rest = smaller(&a.rest, &b.rest)?;
        let split = match (&a.split, &b.split) {
            (None, None) => None,
            (Some((v, m, p)), Some((w, n, q))) if v == w && m == n && p.len() == q.len() => {
                Some((v.clone(), *m, p.iter().zip(q).map(|(x, y)| smaller(x, y)).collect::<Option<_>>()?))
            }
            _ => return None,
        };
        Some(self.trim(Piecewise { split, rest }))
    }

    /// The count as an expression: `T.Select(i < min + 1, c0, T.Select(i < min + 2, c1, ...))`.
    fn count_expr(&self, count: &Piecewise) -> Option<Expr> {
        let mut expr = self.atoms.expr(&count.rest, DataType::INT32)?;
        if let Some((var, min, pieces)) = &count.split {
            for (k, piece) in pieces.iter().enumerate().rev() {
                let bound = min.checked_add(i64::try_from(k).ok()? + 1)?;
                let cond = Expr::lt(Expr::var(var), imm(bound, var.dtype()));
                let piece = self.atoms.expr(piece, expr.dtype())?;
                let piece = tirproof_ir::index_arith::convert(piece, expr.dtype());
                expr = Expr::select(cond, piece, expr);
            }
        }
        Some(expr)
    }
}

/// The most first iterations given their own piece.
const MAX_PIECES: i64 = 64;

enum Instance {
    Found(Vec<i64>),
    None,
    Undecided,
}

/// `index` as `coeff * var + offset`, modulo a constant: `(var + a) % N`, `var + a`, a
/// constant.
fn slot_form(index: &Expr, var: &Var) -> Option<(i64, i64, Option<i64>)> {
    let (inner, modulus) = match index {
        Expr::Binary { op: BinOp::FloorMod | BinOp::TruncMod, lhs, rhs } => (lhs.as_ref(), Some(const_int(rhs)?)),
        other => (other, None),
    };
    if modulus.is_some_and(|n| n <= 0) {
        return None;
    }
    let lets = HashMap::new();
    let (terms, offset) = tirproof_ir::index_arith::linear_form(inner, &lets)?;
    match terms.as_slice() {
        [] => Some((0, offset, modulus)),
        [(Expr::Var(v), 1)] if v == var => Some((1, offset, modulus)),
        _ => None,
    }
}

/// `e` as `x + c` for a variable `x` and a constant `c`.
fn parameter_plus_constant(e: &Expr) -> Option<(Var, i64)> {
    let (terms, offset) = tirproof_ir::index_arith::linear_form(e, &HashMap::new())?;
    match terms.as_slice() {
        [(Expr::Var(x), 1)] => Some((x.clone(), offset)),
        _ => None,
    }
}

/// The least value of `x` that the conditions `conds` (each with whether it holds) allow,
/// from comparisons of `x` with constants.
fn lower_bound<'a>(x: &Var, conds: impl Iterator<Item = &'a (Expr, bool)>) -> Option<i64> {
    let mut bound: Option<i64> = None;
    for (cond, holds) in conds {
        let Expr::Cmp { op, lhs, rhs } = cond else { continue };
        let (x_on_left, c) = match (lhs.as_ref(), rhs.as_ref()) {
            (Expr::Var(v), other) if v == x => (true, const_int(other)),
            (other, Expr::Var(v)) if v == x => (false, const_int(other)),
            _ => continue,
        };
        let Some(c) = c else { continue };
        // The values of `x` the condition allows are a half-line, a point or all but a point:
        // bounded below exactly when `c - 1` is excluded, and then from `c` or `c + 1`.
        let allows = |v: i64| (if x_on_left { op.holds(&v, &c) } else { op.holds(&c, &v) }) == *holds;
        let least = match (c.checked_sub(1), c.checked_add(1)) {
            (Some(below), Some(above)) if !allows(below) => [c, above].into_iter().find(|v| allows(*v)),
            _ => None,
        };
        if let Some(least) = least {
            bound = Some(bound.map_or(least, |b| b.max(least)));
        }
    }
    bound
}

/// The constant queues a function commits to, names in tokens or waits on.
pub(crate) fn queues(body: &Stmt) -> BTreeSet<i64> {
    struct Queues(BTreeSet<i64>);
    impl Visitor for Queues {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            match &stmt.kind {
                StmtKind::Attr(attr)
                    if matches!(AsyncKey::parse(&attr.key), Some(AsyncKey::CommitQueue | AsyncKey::WaitQueue)) =>
                {
                    self.0.extend(const_int(&attr.value));
                }
                StmtKind::Block(block) => {
                    if let Ok(Some(ops)) = decode_annotations(&block.annotations) {
                        self.0.extend(ops.commit.as_ref().and_then(const_int));
                        self.0.extend(ops.wait.as_ref().and_then(|w| const_int(&w.queue)));
                    }
                }
                _ => {}
            }
            tirproof_ir::visit::walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::Call(call) = e {
                if let Some(Ok((_, q))) = decode_token_op(call) {
                    self.0.extend(const_int(q));
                }
            }
            walk_expr(self, e);
        }
    }
    let mut queues = Queues(BTreeSet::new());
    queues.visit_stmt(body);
    queues.0
}

/// The token-making calls in `e` with a constant queue.
fn token_ops(e: &Expr) -> Vec<(TokenOp, i64)> {
    struct Ops(Vec<(TokenOp, i64)>);
    impl Visitor for Ops {
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::Call(call) = e {
                if let Some(Ok((op, q))) = decode_token_op(call) {
                    self.0.extend(const_int(q).map(|q| (op, q)));
                }
            }
            walk_expr(self, e);
        }
    }
    let mut ops = Ops(Vec::new());
    ops.visit_expr(e);
    ops.0
}
