//! Event instances and program order: the variables of an instance (one per loop on its
//! path; one per query for thread and block loops), the constraint that it runs (loop domains,
//! conditions, the in-bounds precondition of accesses), loop bounds, and whether one instance
//! comes before another.

use std::collections::BTreeMap;

use tirproof_ir::print::print_expr;
use tirproof_ir::{CmpOp, Expr};
use z3::ast::{Bool, Int};

use crate::solver::Query;
use crate::waits::fold::{add, and, eq, ge, implies, le, lt, max, min, or, sub};
use crate::waits::model::{EventId, EventKind, LoopId, RangeGuard, Step};
use crate::waits::names::{InstanceRole, Role, Thread};
use crate::waits::ranges::ValueRange;

use super::expr::*;
use super::{declare, Enc, Encoder, Instance, LoopValues, Unsupported};

impl Encoder<'_> {
    /// The precondition that accesses stay in bounds, for each loop an access bounds
    /// ([`LoopInfo::max_iterations`], [`LoopInfo::guarded_max_iterations`]) whose extent and
    /// conditions mention no loop variable: when the loop is reached, its extent (or the
    /// iterations where the range condition held) is at most the bound. (Instances of the other
    /// loops are bounded one by one, in [`Encoder::instance`].)
    pub(super) fn assume_iteration_bounds(&mut self, query: &mut Query) {
        let model = self.model;
        let free = |e: &Expr| crate::waits::model::vars_of(e).iter().all(|v| model.is_loop_var(*v).is_none());
        for (l, info) in model.loops_by_id() {
            let Some(k) = info.max_iterations else { continue };
            if !free(&info.extent) || !info.guards.iter().all(free) || model.reads_data(&info.extent) {
                continue;
            }
            let encoded = (|| -> Enc<Bool> {
                let ext = self.int(&info.extent, &LoopValues::new(), Some(query))?;
                let mut reached = Vec::new();
                for g in &info.guards {
                    reached.push(self.boolean(g, &LoopValues::new(), query)?);
                }
                Ok(implies(&and(&reached), &le(&ext, &Int::from_i64(k))))
            })();
            if let Ok(bounded) = encoded {
                query.assume(bounded);
                self.iteration_bounded.insert(l);
            }
        }
        // The same for the bounds under a range condition, over the iterations where it held.
        for (l, info) in model.loops_by_id() {
            let bounds_free = free(&info.min) && free(&info.extent) && info.guards.iter().all(free);
            if !bounds_free || model.reads_data(&info.extent) || model.reads_data(&info.min) {
                continue;
            }
            for (k, guard) in &info.guarded_max_iterations {
                if !free(&guard.bound) {
                    continue;
                }
                let encoded = (|| -> Enc<Option<Bool>> {
                    let (lo, hi) = self.loop_bounds(l)?;
                    let x = self.int(&guard.bound, &LoopValues::new(), Some(query))?;
                    let mut reached = Vec::new();
                    for g in &info.guards {
                        reached.push(self.boolean(g, &LoopValues::new(), query)?);
                    }
                    // Once the loop is done, the iterations that ran the access were fewer
                    // than the bound.
                    let Some((exact, ran)) = guarded_runs(guard, &x, &lo, &hi) else { return Ok(None) };
                    reached.push(exact);
                    Ok(Some(implies(&and(&reached), &lt(&ran, &Int::from_i64(*k)))))
                })();
                if let Ok(Some(bounded)) = encoded {
                    query.assume(bounded);
                }
            }
        }
    }

    /// The thread variables of `thread` (another thread than the query's, or the query's
    /// own), constrained to the thread ranges.
    pub fn declare_threads(&mut self, query: &mut Query, thread: Thread) -> Enc<LoopValues> {
        let mut threads: LoopValues = BTreeMap::new();
        self.two_threads |= thread == Thread::Other;
        // Bindings that are the same threads share the variable of the first (thread loops
        // come in id order, so it is declared before the others).
        for loop_id in self.model.thread_loops() {
            let first = self.model.loop_info(loop_id).same_threads_as;
            let v = match threads.get(&first) {
                Some(v) if first != loop_id => v.clone(),
                _ => declare(query, self.model, Role::Thread { thread, loop_id })?,
            };
            threads.insert(loop_id, v);
        }
        for (id, v) in &threads {
            let (lo, hi) = self.loop_bounds(*id)?;
            query.assume(and(&[ge(v, &lo), lt(v, &hi)]));
        }
        Ok(threads)
    }

    /// A fresh instance of `event` in the role `instance`, and the constraint that it runs
    /// (its loop domains and its conditions). The constraint is returned, not assumed, so that
    /// an event that never runs does not make a whole query vacuous.
    pub fn instance(&mut self, query: &mut Query, event: EventId, instance: InstanceRole) -> Enc<(Instance, Bool)> {
        let mut vals = BTreeMap::new();
        let mut runs = vec![Bool::from_bool(true)];
        for l in self.model.loops_of(self.model.event(event)) {
            let v = match self.threads.get(&l) {
                Some(t) => t.clone(),
                None => {
                    let v = declare(query, self.model, Role::Iteration { instance, loop_id: l })?;
                    // The bounds of an inner loop may mention the outer loops' values.
                    let (lo, hi) = self.loop_bounds_at(l, &vals)?;
                    runs.push(and(&[ge(&v, &lo), lt(&v, &hi)]));
                    if let (Some(k), false) =
                        (self.model.loop_info(l).max_iterations, self.iteration_bounded.contains(&l))
                    {
                        runs.push(lt(&sub(&v, &lo), &Int::from_i64(k)));
                    }
                    for (k, guard) in &self.model.loop_info(l).guarded_max_iterations {
                        // The iterations before this one that ran the access (those where the
                        // condition held) were fewer than the bound.
                        let x = self.int(&guard.bound, &vals, Some(query))?;
                        let Some((exact, ran)) = guarded_runs(guard, &x, &lo, &v) else { continue };
                        runs.push(implies(&exact, &lt(&ran, &Int::from_i64(*k))));
                    }
                    v
                }
            };
            vals.insert(l, v);
        }
        let inst = Instance { event, vals };
        // An instance whose conditions or indices divide by zero traps instead of running.
        self.no_trap.clear();
        let mut on_data = Vec::new();
        for g in &self.model.event(event).guards.clone() {
            let holds = self.boolean(g, &inst.vals, query)?;
            if self.model.varies_with_data(g) {
                on_data.push(holds.clone());
            }
            runs.push(holds);
        }
        if !on_data.is_empty() {
            self.ran_on_data.push((inst.clone(), and(&on_data)));
        }
        runs.push(self.in_bounds(query, &inst)?);
        runs.append(&mut self.no_trap);
        Ok((inst, and(&runs)))
    }

    /// The program's precondition for an access instance: every index within its buffer's
    /// extent (an access out of bounds faults before anything async can go wrong there, so
    /// counterexamples never need one). Ramps and buffers without a shape are not bounded.
    pub(super) fn in_bounds(&mut self, query: &mut Query, inst: &Instance) -> Enc<Bool> {
        let access = match &self.model.event(inst.event).kind {
            EventKind::Use { access, .. } | EventKind::AsyncStore { access, .. } => access.clone(),
            _ => return Ok(Bool::from_bool(true)),
        };
        let shape = access.buffer.shape().to_vec();
        if shape.len() != access.indices.len() {
            return Ok(Bool::from_bool(true));
        }
        let mut all = Vec::new();
        for (index, extent) in access.indices.iter().zip(&shape) {
            if matches!(index, Expr::Ramp { .. }) || !index.dtype().is_integer() {
                continue;
            }
            let (i, n) = (self.int(index, &inst.vals, Some(query))?, self.int(extent, &inst.vals, Some(query))?);
            all.push(and(&[ge(&i, &Int::from_i64(0)), lt(&i, &n)]));
        }
        Ok(and(&all))
    }

    /// `[min, min + extent)` of a loop; bounds may mention parameters only.
    pub(super) fn loop_bounds(&mut self, l: LoopId) -> Enc<(Int, Int)> {
        self.loop_bounds_at(l, &LoopValues::new())
    }

    /// `[min, min + extent)` of a loop, whose bounds may mention the loops of `outer`.
    pub fn loop_bounds_at(&mut self, l: LoopId, outer: &LoopValues) -> Enc<(Int, Int)> {
        if let Some(known) = self.bounds.get(&l) {
            return Ok(known.clone());
        }
        let info = self.model.loop_info(l);
        let (min, extent) = (info.min.clone(), info.extent.clone());
        if self.model.reads_data(&min) || self.model.reads_data(&extent) {
            return self.data_bounds(l, outer);
        }
        let lo = self.int(&min, outer, None)?;
        let ext = self.int(&extent, outer, None)?;
        let hi = add(&[lo.clone(), ext]);
        let mentions_loop =
            |e: &Expr| crate::waits::model::vars_of(e).iter().any(|v| self.model.is_loop_var(*v).is_some());
        if !mentions_loop(&min) && !mentions_loop(&extent) {
            self.bounds.insert(l, (lo.clone(), hi.clone()));
        }
        Ok((lo, hi))
    }

    /// The bounds of a loop that reads them from memory: read once per execution of the loop,
    /// so a function of the values of the loops around it (one unknown per thread when only
    /// thread loops enclose it). Each value read in them is an uninterpreted function of those
    /// values, one function per loop and read: two instances in one execution of the loop see
    /// one bound, and any execution's bounds are some choice of the functions (what memory
    /// holds is not known, so each execution may read another value).
    pub(super) fn data_bounds(&mut self, l: LoopId, outer: &LoopValues) -> Enc<(Int, Int)> {
        let info = self.model.loop_info(l);
        let enclosing = info.enclosing.clone();
        let mut args = Vec::new();
        for k in &enclosing {
            let v = self.threads.get(k).or_else(|| outer.get(k)).cloned().ok_or_else(|| {
                Unsupported(format!(
                    "bounds read from memory of a loop inside a serial loop, without that loop's value: range({}, {})",
                    print_expr(&info.min),
                    print_expr(&info.extent)
                ))
            })?;
            args.push(v);
        }
        if let Some(known) = self.data_bounds.get(&(l, args.clone())) {
            return Ok(known.clone());
        }
        let (min, extent) = (info.min.clone(), info.extent.clone());
        let serial = enclosing.iter().any(|k| !self.model.loop_info(*k).per_thread);
        let values: LoopValues = enclosing.iter().copied().zip(args.iter().cloned()).collect();
        let (saved_counts, saved_instance) = (self.data_counts, self.per_instance.clone());
        self.data_counts = true;
        if serial {
            self.per_instance = Some(args.clone());
            self.load_site = Some((format!("bound_of_loop_{}", l.index()), 0));
        }
        let bounds = (|| {
            let lo = self.int(&min, &values, None)?;
            let ext = self.int(&extent, &values, None)?;
            Ok((lo.clone(), add(&[lo, ext])))
        })();
        self.data_counts = saved_counts;
        if serial {
            self.per_instance = saved_instance;
            self.load_site = None;
        }
        let bounds = bounds?;
        self.data_bounds.insert((l, args), bounds.clone());
        Ok(bounds)
    }

    /// Whether instance `a` happens before instance `b` in program order. Instances of
    /// different threads (different values of a thread loop) are ordered by their positions
    /// alone, as if each thread ran both branches of an `if`; within one thread, the two
    /// branches of one execution of an `if` are never both run.
    pub fn before(&self, a: &Instance, b: &Instance) -> Bool {
        self.before_from(a, b, 0, true)
    }

    /// [`Encoder::before`] from step `i` of the two paths on, where they agree before it.
    pub(super) fn before_from(&self, a: &Instance, b: &Instance, i: usize, one_thread: bool) -> Bool {
        let (pa, pb) = (&self.event(a.event).path, &self.event(b.event).path);
        match (pa.get(i), pb.get(i)) {
            (Some(Step::Loop(l)), Some(Step::Loop(m))) if l == m => {
                let per_thread = self.model.loop_info(*l).per_thread;
                let (x, y) = (a.vals.get(l), b.vals.get(l));
                let one_thread = one_thread && (!per_thread || matches!((x, y), (Some(x), Some(y)) if x == y));
                let deeper = self.before_from(a, b, i + 1, one_thread);
                match (x, y) {
                    (Some(x), Some(y)) if !per_thread => or(&[lt(x, y), and(&[eq(x, y), deeper])]),
                    _ => deeper,
                }
            }
            (Some(Step::Child(x)), Some(Step::Child(y))) | (Some(Step::Branch(x)), Some(Step::Branch(y))) if x == y => {
                self.before_from(a, b, i + 1, one_thread)
            }
            (Some(Step::Child(x)), Some(Step::Child(y))) => Bool::from_bool(x < y),
            (Some(Step::Branch(x)), Some(Step::Branch(y))) => Bool::from_bool(!one_thread && x < y),
            _ => Bool::from_bool(false),
        }
    }
}

/// How many iterations `i` of `[lo, end)` satisfy the guard `i + a op x`, and the condition
/// under which that count is exact: `i + a` does not wrap anywhere in the range. `i + a < x`
/// holds on the prefix `i < x - a`, `i + a > x` on the suffix `i >= x - a + 1`, and so on;
/// `None` for `==` and `!=`.
pub(super) fn guarded_runs(guard: &RangeGuard, x: &Int, lo: &Int, end: &Int) -> Option<(Bool, Int)> {
    let a = Int::from_i64(guard.offset);
    let one = Int::from_i64(1);
    let range = ValueRange::of_type(guard.dtype)?;
    let no_wrap = and(&[
        ge(&add(&[lo.clone(), a.clone()]), &big(range.lo)),
        le(&add(&[end.clone(), a.clone()]), &big(range.hi + 1)),
    ]);
    let threshold = sub(x, &a);
    let (first, last) = match guard.op {
        CmpOp::Lt => (lo.clone(), min(end, &threshold)),
        CmpOp::Le => (lo.clone(), min(end, &add(&[threshold, one]))),
        CmpOp::Gt => (max(lo, &add(&[threshold, one])), end.clone()),
        CmpOp::Ge => (max(lo, &threshold), end.clone()),
        CmpOp::Eq | CmpOp::Ne => return None,
    };
    Some((no_wrap, max(&sub(&last, &first), &Int::from_i64(0))))
}
