//! Building the pipelined code: prologue, body loop, epilogue, for constant and symbolic
//! extents, with async scopes, commits and waits.
//!
//! Steps of the schedule are numbered `t = 0 .. ext + max_stage`; at step `t` statement `k`
//! runs iteration `t - stage[k]` when that is in `[0, ext)`. Steps before `first_body` and
//! from `ext` on are emitted as straight-line code (peeled), so every executed wait count is
//! a constant that is both safe and the largest safe one; the body loop covers the steps where
//! all counts are the steady-state constants. A symbolic extent gets the general code under
//! `if ext >= first_body`, and a fully peeled copy for each smaller positive extent.

use std::cell::RefCell;
use std::collections::BTreeMap;

use tirproof_ir::async_op;
use tirproof_ir::pipeline_annotations::PipelineSpec;
use tirproof_ir::subst::Substitution;
use tirproof_ir::{Annotations, BinOp, Buffer, DataType, Expr, For, ForKind, Origin, Span, Stmt, StmtKind, Var};

use super::groups::Groups;
use crate::fold;
use crate::provenance::{attach, seq};

/// A staging buffer and the versioned buffer that replaces it.
#[derive(Clone, Debug)]
pub struct Versioned {
    pub old: Buffer,
    pub new: Buffer,
    pub versions: i64,
}

pub struct Emitter<'a> {
    pub spec: &'a PipelineSpec,
    pub groups: &'a Groups,
    pub stmts: &'a [Stmt],
    pub loop_var: &'a Var,
    pub min: Expr,
    pub versioned: &'a [Versioned],
    /// Added to a stage to get its queue id (keeps nested pipelines' queues apart).
    pub queue_offset: i64,
    /// Annotations the body loop keeps (the pipeline ones removed).
    pub body_annotations: Annotations,
    /// Threads exchange data through shared memory: a barrier goes before every statement
    /// that reads it (after its waits) and at the end of every step.
    pub barriers: bool,
    /// The statements that write memory threads exchange ([`super::deps::Analysis`]).
    pub exchange_writers: &'a std::collections::BTreeSet<usize>,
    pub span: Span,
    /// The substitution that makes the copies, kept from one copy to the next.
    pub copier: Copier,
    /// With tokens, each run's ring of tokens (indexed by run): waits name the groups they
    /// need instead of counting them.
    pub tokens: Option<Vec<TokenRing>>,
}

/// The tokens of one run's groups, kept for as many iterations as a wait may name them: the
/// group of iteration `j` is stored in slot `(j - min) % depth` right after its commit.
#[derive(Clone, Debug)]
pub struct TokenRing {
    pub buffer: Buffer,
    pub depth: i64,
}

impl TokenRing {
    /// The ring of run `r` of queue `queue` (a local `int64` buffer of
    /// [`Groups::token_depth`] slots).
    pub fn of(groups: &Groups, r: usize, queue: i64, loop_var: &Var) -> TokenRing {
        let depth = groups.token_depth(r);
        let name = format!("{}_tokens_q{queue}_r{}", loop_var.name(), groups.runs[r].index_in_queue);
        let buffer = tirproof_ir::BufferSpec::new(name, DataType::INT64, vec![Expr::int(depth)], "local").build();
        TokenRing { buffer, depth }
    }
}

/// The substitution that makes every copy of the loop's statements: one substitution for all
/// of them saves building its maps and re-indexing for each.
pub struct Copier(RefCell<Substitution<fold::Folder>>);

impl Copier {
    /// The copier of a loop whose staging buffers are `versioned` (each re-indexed by its slot,
    /// set per copy).
    pub fn new(versioned: &[Versioned]) -> Copier {
        let mut copy = Substitution::freshening().with_rewrite(fold::Folder);
        for v in versioned {
            copy = copy.reindex(&v.old, &v.new, Vec::with_capacity(1));
        }
        Copier(RefCell::new(copy))
    }
}

/// Where a step sits, which decides how iterations are written.
#[derive(Clone)]
enum Step {
    /// A step at a constant position with a known (or assumed large) extent.
    Fixed { t: i64 },
    /// The body loop's step `first_body + j`.
    Body { j: Var },
    /// Step `ext + e` of a symbolic extent `ext >= first_body`.
    Tail { e: i64, ext: Expr },
}

/// Per-queue upper bound on groups in flight, where known.
type Bounds = BTreeMap<i64, Option<i64>>;

impl Emitter<'_> {
    /// The first step from which every count is the steady-state one.
    pub fn first_body(&self) -> i64 {
        let max_stage = self.spec.max_stage();
        let needs_history = self
            .groups
            .needs
            .iter()
            .enumerate()
            .flat_map(|(k, per_q)| per_q.values().flatten().map(move |&(_, delta)| self.spec.stages[k] + delta))
            .max()
            .unwrap_or(0);
        max_stage.max(needs_history)
    }

    /// The whole replacement for the loop, for a constant or a symbolic extent.
    pub fn emit(&self, extent: &Expr) -> Stmt {
        match extent.as_int() {
            Some(ext) => self.emit_constant(ext),
            None => self.emit_symbolic(extent),
        }
    }

    fn emit_constant(&self, ext: i64) -> Stmt {
        if ext <= 0 {
            return Stmt::nop();
        }
        let p = self.first_body();
        let last = ext + self.spec.max_stage();
        let mut out = Vec::new();
        let mut bounds = Bounds::new();
        if ext <= p {
            for t in 0..last {
                out.extend(self.step(&Step::Fixed { t }, t, ext, &mut bounds));
            }
        } else {
            for t in 0..p {
                out.extend(self.step(&Step::Fixed { t }, t, ext, &mut bounds));
            }
            out.push(self.body_loop(self.index(ext - p), p, ext, &mut bounds));
            for t in ext..last {
                out.extend(self.step(&Step::Fixed { t }, t, ext, &mut bounds));
            }
        }
        out.extend(self.drain(&bounds));
        seq(out)
    }

    fn emit_symbolic(&self, ext: &Expr) -> Stmt {
        let p = self.first_body();
        let s = self.spec.max_stage();
        // Counts do not depend on the extent once it is at least `p`; any such value works.
        let model = p + s + 1;
        let mut general = Vec::new();
        let mut bounds = Bounds::new();
        for t in 0..p {
            general.extend(self.step(&Step::Fixed { t }, t, model, &mut bounds));
        }
        general.push(self.body_loop(fold::sub(ext.clone(), self.index(p)), p, model, &mut bounds));
        for e in 0..s {
            general.extend(self.step(&Step::Tail { e, ext: ext.clone() }, model + e, model, &mut bounds));
        }
        general.extend(self.drain(&bounds));
        let general = seq(general);
        if p == 0 {
            return general;
        }
        // `if ext >= p: general elif ext == 1: ... elif ext == p - 1: ...`
        let mut smaller: Option<Stmt> = None;
        for small in (1..p).rev() {
            let branch = self.emit_constant(small);
            smaller = Some(self.guard(Expr::eq(ext.clone(), self.index(small)), branch, smaller.take()));
        }
        self.guard(Expr::ge(ext.clone(), self.index(p)), general, smaller)
    }

    /// An iteration number or count of iterations, of the loop variable's type (an int64
    /// loop gets int64 bounds and offsets).
    fn index(&self, value: i64) -> Expr {
        Expr::int_of(value, self.loop_var.dtype())
    }

    /// The loop's start, where it and the loop variable are int32 and it is a constant.
    fn int32_min(&self) -> Option<i64> {
        match self.min {
            Expr::Int { value, dtype: DataType::INT32 }
                if self.loop_var.dtype() == DataType::INT32 && fits_int32(value) =>
            {
                Some(value)
            }
            _ => None,
        }
    }

    fn guard(&self, cond: Expr, then_case: Stmt, else_case: Option<Stmt>) -> Stmt {
        Stmt::new(StmtKind::If { cond, then_case: Box::new(then_case), else_case: else_case.map(Box::new) }, self.span)
    }

    fn body_loop(&self, extent: Expr, p: i64, ext_model: i64, bounds: &mut Bounds) -> Stmt {
        let j = self.loop_var.fresh_copy();
        let step = Step::Body { j: j.clone() };
        // Every iteration starts either where the prologue ended or where the previous
        // iteration ended. Starting from "unknown", find the bound that holds at the start of
        // every iteration (a fixed point), so that waits an earlier wait already implies, in
        // this iteration or the previous one, are left out.
        let unknown: Bounds = self.groups.runs_per_step.keys().map(|q| (*q, None)).collect();
        // The search only tracks bounds (cheap); the statements are built once, at the end.
        let mut start = unknown.clone();
        let mut fixed = None;
        for _ in 0..4 {
            let mut end = start.clone();
            self.simulate(&step, p, ext_model, &mut end);
            let next = merge(bounds, &end);
            if next == start {
                fixed = Some(start);
                break;
            }
            start = next;
        }
        let mut end = fixed.unwrap_or(unknown);
        let body = self.step(&step, p, ext_model, &mut end);
        // The loop may run no iteration at all (a symbolic extent equal to `p`), so the state
        // after it is the weaker of "before" and "after an iteration".
        let after = if extent.as_int().is_some_and(|n| n > 0) { end } else { merge(bounds, &end) };
        *bounds = after;
        Stmt::new(
            StmtKind::For(Box::new(For {
                var: j,
                min: self.index(0),
                extent,
                kind: ForKind::Serial,
                thread: None,
                annotations: self.body_annotations.clone(),
                body: seq(body),
            })),
            self.span,
        )
    }

    fn is_active(&self, step: &Step, k: usize, t: i64, ext: i64) -> bool {
        let stage = self.spec.stages[k];
        match step {
            Step::Fixed { .. } => (0..ext).contains(&(t - stage)),
            Step::Body { .. } => true,
            Step::Tail { e, .. } => *e < stage,
        }
    }

    fn iteration(&self, step: &Step, k: usize) -> Expr {
        let stage = self.spec.stages[k];
        // The fold's result computed directly where everything is an int32 constant.
        if let (Step::Fixed { t }, Some(min)) = (step, self.int32_min()) {
            if let Some(value) = (t - stage).checked_add(min).filter(|v| fits_int32(*v)) {
                return Expr::int(value);
            }
        }
        let (base, offset) = match step {
            Step::Fixed { t } => (self.index(0), t - stage),
            Step::Body { j } => (Expr::var(j), self.first_body() - stage),
            Step::Tail { e, ext } => (ext.clone(), e - stage),
        };
        fold::add(fold::binary(BinOp::Add, self.min.clone(), base), self.index(offset))
    }

    /// The statements of one step, in execution order, with scopes, waits and commits.
    fn step(&self, step: &Step, t: i64, ext: i64, bounds: &mut Bounds) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut run_members: Vec<Stmt> = Vec::new();
        for &k in &self.groups.exec_order {
            if !self.is_active(step, k, t, ext) {
                continue;
            }
            let mut s = self.instance(k, &self.iteration(step, k));
            // A copy whose condition folded to false reads nothing, but its waits stay: they
            // may be what completes a group before a later copy rewrites that group's slot.
            // (Such a wait guards no read; the verifier reports it as over-synchronized.)
            if self.spec.is_async(k) && !s.is_nop() {
                s = async_op::asynchronous(s);
            }
            // Threads that exchange data: a barrier before a consumer orders it after other
            // threads' writes of this step.
            let consumer = self.barriers && self.groups.has_producers(k);
            if consumer {
                s = seq(vec![barrier(), s]);
            }
            s = self.wrap_waits(step, k, s, t, ext, bounds);
            // One before a producer orders its write after other threads' reads earlier in
            // this step (of another iteration); it goes before the producer's whole group, and
            // the barrier that ends each step covers a producer that starts one. Any writer of
            // exchanged memory is one: a read it overwrites for a later iteration (no flow,
            // only an anti dependence) may be another thread's, earlier in this step.
            let producer =
                self.barriers && !consumer && (self.groups.has_consumers(k) || self.exchange_writers.contains(&k));
            if producer && run_members.is_empty() && !out.is_empty() && !out.last().is_some_and(is_barrier) {
                out.push(barrier());
            }
            if !s.is_nop() {
                match self.groups.run_of[k] {
                    None => out.push(s),
                    Some(_) => run_members.push(s),
                }
            }
            if let Some(r) = self.groups.run_of[k] {
                let run = &self.groups.runs[r];
                if run.members.last() == Some(&k) {
                    let queue = run.stage + self.queue_offset;
                    out.push(async_op::commit(Expr::int(queue), seq(run_members.split_off(0))));
                    if let Some(ring) = self.tokens.as_ref().map(|rings| &rings[r]) {
                        let slot = self.slot(&self.iteration(step, k), ring.depth);
                        let token = async_op::token_op(async_op::TokenOp::LastCommitted, Expr::int(queue));
                        out.push(tirproof_ir::build::store(&ring.buffer, vec![slot], token));
                    }
                    if let Some(Some(b)) = bounds.get_mut(&run.stage) {
                        *b += 1;
                    }
                }
            }
        }
        if self.barriers && !out.is_empty() && !out.last().is_some_and(is_barrier) {
            out.push(barrier());
        }
        out
    }

    fn wrap_waits(&self, step: &Step, k: usize, mut s: Stmt, t: i64, ext: i64, bounds: &mut Bounds) -> Stmt {
        for (q, count) in self.waits_for(k, t, ext, bounds) {
            let queue = Expr::int(q + self.queue_offset);
            s = match &self.tokens {
                None => async_op::wait(queue, Expr::int(count), s),
                Some(rings) => {
                    let iteration = self.iteration(step, k);
                    let tokens = self
                        .groups
                        .needed_groups(q, k, t, ext)
                        .into_iter()
                        .map(|(r, delta)| {
                            let j = fold::sub(iteration.clone(), self.index(delta));
                            Expr::load(&rings[r].buffer, vec![self.slot(&j, rings[r].depth)])
                        })
                        .collect();
                    async_op::wait_until(queue, async_op::WaitUntil::Tokens(tokens), s)
                }
            };
        }
        s
    }

    /// The waits statement `k` needs at step `t`, innermost first (a wait an earlier one in
    /// `bounds` already implies is left out), updating `bounds`.
    fn waits_for(&self, k: usize, t: i64, ext: i64, bounds: &mut Bounds) -> Vec<(i64, i64)> {
        let queues: Vec<i64> = self.groups.queues_needed(k).collect();
        let mut out = Vec::new();
        for q in queues.into_iter().rev() {
            let Some(count) = self.groups.wait_count(q, k, t, ext) else { continue };
            if bounds.get(&q).copied().flatten().is_some_and(|b| b <= count) {
                continue;
            }
            bounds.insert(q, Some(count));
            out.push((q, count));
        }
        out
    }

    /// What one step does to the bounds, without building its statements.
    fn simulate(&self, step: &Step, t: i64, ext: i64, bounds: &mut Bounds) {
        for &k in &self.groups.exec_order {
            if !self.is_active(step, k, t, ext) {
                continue;
            }
            self.waits_for(k, t, ext, bounds);
            if let Some(r) = self.groups.run_of[k] {
                let run = &self.groups.runs[r];
                if run.members.last() == Some(&k) {
                    if let Some(Some(b)) = bounds.get_mut(&run.stage) {
                        *b += 1;
                    }
                }
            }
        }
    }

    /// Statement `k` for iteration `iteration`: fresh binders, versioned staging accesses,
    /// folded. One walk makes the copy: it substitutes the iteration, re-indexes the staging
    /// accesses and folds each node as it goes (the same result as folding afterwards, since
    /// the values put in are folded first). The substitution is the loop's [`Copier`], set
    /// anew for each copy.
    fn instance(&self, k: usize, iteration: &Expr) -> Stmt {
        let mut folded_iteration = iteration.clone();
        if !matches!(folded_iteration, Expr::Int { .. }) {
            fold::fold_expr(&mut folded_iteration);
        }
        let mut copy = self.copier.0.borrow_mut();
        copy.restart();
        for v in self.versioned {
            copy.set_prefix(&v.old, [self.slot(&folded_iteration, v.versions)]);
        }
        copy.set_var(self.loop_var, folded_iteration);
        let s = copy.stmt(&self.stmts[k]);
        drop(copy);
        let stmt = u32::try_from(k).unwrap_or(u32::MAX);
        // Every part gets the origin: the copy may be a sequence (an inner pipeline), which
        // the step's sequences flatten.
        attach(s, &Origin { stmt, stage: self.spec.stages[k], iteration: iteration.clone() })
    }

    /// The version of a staging buffer with `versions` slots that `iteration` uses:
    /// `(iteration - min) % versions`, folded.
    fn slot(&self, iteration: &Expr, versions: i64) -> Expr {
        // The fold's result computed directly where everything is an int32 constant.
        if let (Expr::Int { value, dtype: DataType::INT32 }, Some(min)) = (iteration, self.int32_min()) {
            if let Some(relative) = value.checked_sub(min).filter(|r| fits_int32(*r)) {
                if versions > 0 && fits_int32(versions) {
                    return Expr::int(relative.rem_euclid(versions));
                }
            }
        }
        // `iteration - 0` folds to `iteration` itself (the literal takes its type).
        let relative = match self.min {
            Expr::Int { value: 0, .. } => iteration.clone(),
            _ => fold::sub(iteration.clone(), self.min.clone()),
        };
        let mut slot = fold::floormod(relative, Expr::int(versions));
        fold::fold_expr(&mut slot);
        slot
    }

    /// A final `wait(q, 0)` for every queue that may still have groups in flight.
    fn drain(&self, bounds: &Bounds) -> Vec<Stmt> {
        self.groups
            .runs_per_step
            .keys()
            .filter(|q| bounds.get(q).copied().flatten() != Some(0))
            .map(|q| wait(q + self.queue_offset, 0, Stmt::synthetic(StmtKind::Evaluate(Expr::int(0)))))
            .collect()
    }
}

/// The weaker of two states: the larger bound per queue, unknown where either is unknown.
fn merge(a: &Bounds, b: &Bounds) -> Bounds {
    let queues: std::collections::BTreeSet<i64> = a.keys().chain(b.keys()).copied().collect();
    queues
        .into_iter()
        .map(|q| {
            let bound = match (a.get(&q).copied().flatten(), b.get(&q).copied().flatten()) {
                (Some(x), Some(y)) => Some(x.max(y)),
                _ => None,
            };
            (q, bound)
        })
        .collect()
}

fn fits_int32(value: i64) -> bool {
    i32::try_from(value).is_ok()
}

fn is_barrier(s: &Stmt) -> bool {
    matches!(s.kind, StmtKind::Barrier { .. })
}

fn barrier() -> Stmt {
    Stmt::synthetic(StmtKind::Barrier { scope: "shared".to_string() })
}

fn wait(queue: i64, count: i64, body: Stmt) -> Stmt {
    async_op::wait(Expr::int(queue), Expr::int(count), body)
}
