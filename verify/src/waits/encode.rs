//! Translating the model into Z3 terms: expressions, event instances, program order, and the
//! closed forms that count commits and find the last wait before a point, without unrolling.
//!
//! An instance of an event is one integer per loop on its path (iteration values); thread and
//! block loops use one variable per query, so every instance of a query belongs to one thread.
//! Conditions on commits and waits must be conjunctions of comparisons that are affine in one
//! loop variable with coefficient +1 or -1 (or mention no loop variable): each restricts that
//! variable to an interval, which is what makes the counts closed forms. Anything else is
//! reported as unsupported rather than approximated.
//!
//! Integer expressions have the program's fixed-width semantics: a result whose exact value
//! may leave its type (`ranges`) is wrapped, division and modulo by a divisor that may be zero
//! (a trap in the interpreter) are not encoded, shifts by constants and masks `& (2^k - 1)`
//! are exact. Values read from memory (loads, and variables a `let` binds to them), and float
//! comparisons in conditions, are fresh unknowns: any value the type allows, chosen per
//! encoding, which over-approximates what the program can do.

use std::collections::{BTreeMap, HashMap};

use tirproof_ir::print::print_expr;
use tirproof_ir::subst::Substitution;
use tirproof_ir::{BinOp, CmpOp, DataType, Expr, LogicOp, VarId};
use z3::ast::{Ast, Bool, Dynamic, Int};
use z3::{FuncDecl, Sort};

use super::fold::{add, and, div, eq, ge, gt, implies, ite, le, lt, max, min, mul, neg, not, or, sub};
use super::model::{Event, EventId, EventKind, LoopId, Model, RangeGuard, Step};
use super::names::{InstanceRole, Role, Thread};
use super::ranges::{Ranges, ValueRange};
use crate::solver::Query;

/// Why a construct has no exact encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

pub type Enc<T> = Result<T, Unsupported>;

/// Values of loop variables, by loop.
pub type LoopValues = BTreeMap<LoopId, Int>;

/// Values of the loop variables of one event instance.
#[derive(Clone)]
pub struct Instance {
    pub event: EventId,
    pub vals: LoopValues,
}

/// What identifies an instance in a query: its event and its loop values (Z3 terms compare
/// and hash by identity, and equal terms are one term).
type InstanceKey = (EventId, Vec<(LoopId, Int)>);

impl Instance {
    fn key(&self) -> InstanceKey {
        (self.event, self.vals.iter().map(|(l, v)| (*l, v.clone())).collect())
    }
}

/// An interval restriction `lo <= v < hi` of one loop variable, from a condition.
#[derive(Clone)]
struct Range {
    lo: Option<Int>,
    hi: Option<Int>,
}

/// The conditions of an event split into per-loop intervals, loop-free facts, and other
/// conditions of one loop variable (counted by enumeration, for a bounded number of
/// iterations).
#[derive(Clone, Default)]
struct Guard {
    ranges: BTreeMap<LoopId, Vec<Range>>,
    facts: Vec<Bool>,
    generic: BTreeMap<LoopId, Vec<Expr>>,
}

/// Iterations a loop may have when a condition on it is not an interval: counts enumerate
/// them, and the query assumes the loop has no more (the report says so).
pub const ENUMERATED_ITERATIONS: i64 = 64;

pub struct Encoder<'m> {
    pub model: &'m Model,
    pub params: HashMap<VarId, Int>,
    /// One variable per thread or block loop, shared by every instance in the query.
    pub threads: LoopValues,
    counter: usize,
    /// Loop bounds and event conditions already encoded (they depend on the parameters only;
    /// bounds that mention a loop variable are not kept).
    bounds: HashMap<LoopId, (Int, Int)>,
    guards: HashMap<EventId, Guard>,
    /// Closed forms already built, by event and instance: a use's completed groups ask for
    /// the same commit counts and last waits at the same instances again and again (every
    /// wait of a queue times every commit), and Z3 terms are hash-consed, so equal instances
    /// have equal keys.
    counts: HashMap<(EventId, InstanceKey), Int>,
    lasts: HashMap<(EventId, InstanceKey), (Bool, Instance)>,
    /// Assumptions the bounded encodings made (loops with at most ENUMERATED_ITERATIONS
    /// iterations); every query must assume them.
    pub bounded: Vec<(LoopId, Bool)>,
    /// Value ranges, which decide where arithmetic must wrap.
    ranges: Ranges<'m>,
    /// Loops whose extent the query bounds by the in-bounds precondition.
    iteration_bounded: std::collections::BTreeSet<LoopId>,
    /// Facts about the unknowns of data read from memory (their types' ranges), which every
    /// query must assume.
    pub deferred: Vec<Bool>,
    /// A wait count or a loop's bounds read from memory are being encoded (see
    /// [`Encoder::unknown`]).
    data_counts: bool,
    /// Bounds read from memory, per loop and thread (see [`Encoder::data_bounds`]).
    data_bounds: HashMap<(LoopId, Vec<Int>), (Int, Int)>,
    /// When set, a value read from memory is a function of these values (an instance's loop
    /// values) rather than one constant: an encoding quantified over the instances then
    /// gives each its own value.
    pub per_instance: Option<Vec<Int>>,
}

impl<'m> Encoder<'m> {
    /// Declares the parameters and the variables of `thread` in `query`.
    pub fn new(model: &'m Model, query: &mut Query, thread: Thread) -> Enc<Self> {
        let mut params = HashMap::new();
        let ranges = Ranges::new(model);
        for p in &model.params {
            let v = declare(query, model, Role::Param(p))?;
            // A parameter holds a value of its type; counterexamples respect the program's
            // preconditions.
            if let Some(r) = ranges.variable(p) {
                query.assume(and(&[ge(&v, &big(r.lo)), le(&v, &big(r.hi))]));
            }
            params.insert(p.id(), v);
        }
        let mut enc = Encoder {
            model,
            params,
            threads: BTreeMap::new(),
            counter: 0,
            bounds: HashMap::new(),
            guards: HashMap::new(),
            counts: HashMap::new(),
            lasts: HashMap::new(),
            bounded: Vec::new(),
            ranges,
            iteration_bounded: std::collections::BTreeSet::new(),
            deferred: Vec::new(),
            data_counts: false,
            data_bounds: HashMap::new(),
            per_instance: None,
        };
        enc.threads = enc.declare_threads(query, thread)?;
        enc.assume_iteration_bounds(query);
        Ok(enc)
    }

    /// The precondition that accesses stay in bounds, for each loop an access bounds
    /// ([`LoopInfo::max_iterations`], [`LoopInfo::guarded_max_iterations`]) whose extent and
    /// conditions mention no loop variable: when the loop is reached, its extent (or the
    /// iterations where the range condition held) is at most the bound. (Instances of the other
    /// loops are bounded one by one, in [`Encoder::instance`].)
    fn assume_iteration_bounds(&mut self, query: &mut Query) {
        let model = self.model;
        let free = |e: &Expr| super::model::vars_of(e).iter().all(|v| model.is_loop_var(*v).is_none());
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

    /// How many values read from memory the encoding has met so far.
    pub fn unknowns(&self) -> usize {
        self.counter
    }

    /// The thread variables of `thread` (another thread than the query's, or the query's
    /// own), constrained to the thread ranges.
    pub fn declare_threads(&mut self, query: &mut Query, thread: Thread) -> Enc<LoopValues> {
        let mut threads = BTreeMap::new();
        for loop_id in self.model.thread_loops() {
            threads.insert(loop_id, declare(query, self.model, Role::Thread { thread, loop_id })?);
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
        for g in &self.model.event(event).guards.clone() {
            runs.push(self.boolean(g, &inst.vals, query)?);
        }
        runs.push(self.in_bounds(query, &inst)?);
        Ok((inst, and(&runs)))
    }

    /// The program's precondition for an access instance: every index within its buffer's
    /// extent (an access out of bounds faults before anything async can go wrong there, so
    /// counterexamples never need one). Ramps and buffers without a shape are not bounded.
    fn in_bounds(&mut self, query: &mut Query, inst: &Instance) -> Enc<Bool> {
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
    fn loop_bounds(&mut self, l: LoopId) -> Enc<(Int, Int)> {
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
            return self.data_bounds(l);
        }
        let lo = self.int(&min, outer, None)?;
        let ext = self.int(&extent, outer, None)?;
        let hi = add(&[lo.clone(), ext]);
        let mentions_loop = |e: &Expr| super::model::vars_of(e).iter().any(|v| self.model.is_loop_var(*v).is_some());
        if !mentions_loop(&min) && !mentions_loop(&extent) {
            self.bounds.insert(l, (lo.clone(), hi.clone()));
        }
        Ok((lo, hi))
    }

    /// The bounds of a loop that reads them from memory: read once per execution of the loop,
    /// so one unknown per thread when no serial loop encloses it (each execution is then one
    /// thread's); inside a serial loop each iteration may read another value, not encoded.
    fn data_bounds(&mut self, l: LoopId) -> Enc<(Int, Int)> {
        let info = self.model.loop_info(l);
        if info.enclosing.iter().any(|k| !self.model.loop_info(*k).per_thread) {
            return Err(Unsupported(format!(
                "bounds read from memory of a loop inside a serial loop: range({}, {})",
                print_expr(&info.min),
                print_expr(&info.extent)
            )));
        }
        let threads: Vec<Int> = info.enclosing.iter().filter_map(|k| self.threads.get(k).cloned()).collect();
        if let Some(known) = self.data_bounds.get(&(l, threads.clone())) {
            return Ok(known.clone());
        }
        let (min, extent) = (info.min.clone(), info.extent.clone());
        self.data_counts = true;
        let bounds = (|| {
            let lo = self.int(&min, &LoopValues::new(), None)?;
            let ext = self.int(&extent, &LoopValues::new(), None)?;
            Ok((lo.clone(), add(&[lo, ext])))
        })();
        self.data_counts = false;
        let bounds = bounds?;
        self.data_bounds.insert((l, threads), bounds.clone());
        Ok(bounds)
    }

    /// The value of an integer expression with the loop values `at` (an instance's). Loads
    /// (data-dependent values) are fresh unknowns when a query is given, else unsupported
    /// (but in wait counts and loop bounds: [`Encoder::unknown`]).
    pub fn int(&mut self, e: &Expr, at: &LoopValues, query: Option<&mut Query>) -> Enc<Int> {
        let mut q = query;
        self.int_inner(e, at, &mut q)
    }

    fn int_inner(&mut self, e: &Expr, inst: &LoopValues, q: &mut Option<&mut Query>) -> Enc<Int> {
        let exact = match e {
            Expr::Int { value, .. } => return Ok(Int::from_i64(*value)),
            Expr::Var(v) if self.model.data_vars.contains(&v.id()) => return self.unknown(e, q),
            Expr::Var(v) => {
                return self.var(v.id(), inst).ok_or_else(|| Unsupported(format!("the variable `{v}`")));
            }
            Expr::Let { var, value, body } => {
                let inlined = Substitution::new().var(var, (**value).clone()).expr(body);
                return self.int_inner(&inlined, inst, q);
            }
            Expr::Cast { value, dtype } if dtype.is_integer() && value.dtype().is_bool() => {
                let c = self.bool_inner(value, inst, q)?;
                return Ok(ite(&c, &Int::from_i64(1), &Int::from_i64(0)));
            }
            Expr::Cast { value, dtype } if dtype.is_integer() && value.dtype().is_integer() => {
                self.int_inner(value, inst, q)?
            }
            // An integer made from a float is data.
            Expr::Cast { value, dtype } if dtype.is_integer() && value.dtype().is_float() => {
                return self.unknown(e, q);
            }
            Expr::Binary { op, lhs, rhs } => {
                if matches!(op, BinOp::Div | BinOp::FloorDiv | BinOp::FloorMod | BinOp::TruncDiv | BinOp::TruncMod)
                    && self.ranges.value(rhs).is_none_or(|r| r.contains(0))
                {
                    return Err(Unsupported(format!("a division by {}, which may be zero (a trap)", print_expr(rhs))));
                }
                let (a, b) = (self.int_inner(lhs, inst, q)?, self.int_inner(rhs, inst, q)?);
                binary(*op, &a, &b, rhs.as_int()).ok_or_else(|| Unsupported(format!("the operator `{op}`")))?
            }
            Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false } => {
                let c = self.bool_inner(cond, inst, q)?;
                ite(&c, &self.int_inner(on_true, inst, q)?, &self.int_inner(on_false, inst, q)?)
            }
            Expr::Load(_) => return self.unknown(e, q),
            other => return Err(Unsupported(format!("the expression {}", print_expr(other)))),
        };
        Ok(self.wrapped(e, exact))
    }

    /// `exact`, the unwrapped value of `e`, as a value of `e`'s type.
    fn wrapped(&mut self, e: &Expr, exact: Int) -> Int {
        let dtype = e.dtype();
        match ValueRange::of_type(dtype) {
            Some(full) if !dtype.is_bool() && !self.ranges.exact(e).is_some_and(|r| r.within(full)) => {
                wrap(&exact, dtype)
            }
            _ => exact,
        }
    }

    /// A value read from memory: any value of its type, fresh in each encoding. Declared in
    /// the query when there is one; otherwise an anonymous constant whose range the checker
    /// assumes with the query's other deferred facts ([`Encoder::deferred`]).
    fn unknown(&mut self, e: &Expr, q: &mut Option<&mut Query>) -> Enc<Int> {
        self.counter += 1;
        // A wait count is encoded once per wait instance, the bounds of a loop once per
        // execution (`data_bounds`): an anonymous unknown is exact. Elsewhere without a query
        // (loop bounds and conditions of commits, counted in closed form and remembered per
        // event) one unknown would stand for values that differ between iterations.
        if q.is_none() && !self.data_counts {
            return Err(Unsupported(format!("a value read from memory: {}", print_expr(e))));
        }
        let v = match (&self.per_instance, q) {
            (Some(args), _) => per_instance_unknown(&format!("loaded_at_{}", self.counter), args, &Sort::int())
                .as_int()
                .ok_or_else(|| Unsupported(format!("a value read from memory: {}", print_expr(e))))?,
            (None, Some(query)) => declare(query, self.model, Role::Loaded(self.counter))?,
            (None, None) => Int::fresh_const("loaded"),
        };
        if let Some(r) = ValueRange::of_type(e.dtype()) {
            self.deferred.push(and(&[ge(&v, &big(r.lo)), le(&v, &big(r.hi))]));
        }
        Ok(v)
    }

    pub fn boolean(&mut self, e: &Expr, at: &LoopValues, query: &mut Query) -> Enc<Bool> {
        let mut q = Some(query);
        self.bool_inner(e, at, &mut q)
    }

    fn bool_inner(&mut self, e: &Expr, inst: &LoopValues, q: &mut Option<&mut Query>) -> Enc<Bool> {
        Ok(match e {
            Expr::Int { value, .. } if e.dtype().is_bool() => Bool::from_bool(*value != 0),
            // A comparison of floats depends on data (a float constant alone decides nothing).
            Expr::Cmp { lhs, .. } if lhs.dtype().is_float() => return self.unknown_condition(e, q),
            Expr::Cmp { op, lhs, rhs } => {
                let (a, b) = (self.int_inner(lhs, inst, q)?, self.int_inner(rhs, inst, q)?);
                compare(*op, &a, &b)
            }
            Expr::Logic { op, lhs, rhs } => {
                let (a, b) = (self.bool_inner(lhs, inst, q)?, self.bool_inner(rhs, inst, q)?);
                match op {
                    LogicOp::And => and(&[a, b]),
                    LogicOp::Or => or(&[a, b]),
                }
            }
            // `&`, `|` and `^` of two bools are the logical operators.
            Expr::Binary { op: op @ (BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor), lhs, rhs }
                if e.dtype().is_bool() =>
            {
                let (a, b) = (self.bool_inner(lhs, inst, q)?, self.bool_inner(rhs, inst, q)?);
                match op {
                    BinOp::BitAnd => and(&[a, b]),
                    BinOp::BitOr => or(&[a, b]),
                    _ => Bool::xor(&a, &b),
                }
            }
            Expr::Not(v) => not(&self.bool_inner(v, inst, q)?),
            Expr::Let { var, value, body } => {
                let inlined = Substitution::new().var(var, (**value).clone()).expr(body);
                return self.bool_inner(&inlined, inst, q);
            }
            Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false } => {
                let c = self.bool_inner(cond, inst, q)?;
                let (a, b) = (self.bool_inner(on_true, inst, q)?, self.bool_inner(on_false, inst, q)?);
                or(&[and(&[c.clone(), a]), and(&[not(&c), b])])
            }
            Expr::Cast { value, .. } if value.dtype().is_integer() => {
                not(&eq(&self.int_inner(value, inst, q)?, &Int::from_i64(0)))
            }
            Expr::Load(_) => return self.unknown_condition(e, q),
            Expr::Var(v) if self.model.data_vars.contains(&v.id()) => return self.unknown_condition(e, q),
            _ => return Err(Unsupported(format!("the condition {}", print_expr(e)))),
        })
    }

    /// A condition that depends on data: it may go either way.
    fn unknown_condition(&mut self, e: &Expr, q: &mut Option<&mut Query>) -> Enc<Bool> {
        self.counter += 1;
        let unsupported = || Unsupported(format!("the condition {}, which depends on data", print_expr(e)));
        if q.is_none() && !self.data_counts {
            return Err(unsupported());
        }
        Ok(match (&self.per_instance, q) {
            (Some(args), _) => per_instance_unknown(&format!("cond_at_{}", self.counter), args, &Sort::bool())
                .as_bool()
                .ok_or_else(unsupported)?,
            (None, Some(query)) => declare(query, self.model, Role::Condition(self.counter))?.eq(Int::from_i64(1)),
            (None, None) => Bool::fresh_const("cond"),
        })
    }

    /// A wait's in-flight count at the instance `at` (values read from memory are unknowns).
    pub fn wait_count(&mut self, count: &Expr, at: &LoopValues) -> Enc<Int> {
        self.data_counts = true;
        let n = self.int(count, at, None);
        self.data_counts = false;
        n
    }

    fn var(&self, id: VarId, at: &LoopValues) -> Option<Int> {
        if let Some(p) = self.params.get(&id) {
            return Some(p.clone());
        }
        let l = self.model.is_loop_var(id)?;
        at.get(&l).or_else(|| self.threads.get(&l)).cloned()
    }

    /// Whether instance `a` happens before instance `b` in program order. Instances of
    /// different threads (different values of a thread loop) are ordered by their positions
    /// alone, as if each thread ran both branches of an `if`; within one thread, the two
    /// branches of one execution of an `if` are never both run.
    pub fn before(&self, a: &Instance, b: &Instance) -> Bool {
        self.before_from(a, b, 0, true)
    }

    /// [`Encoder::before`] from step `i` of the two paths on, where they agree before it.
    fn before_from(&self, a: &Instance, b: &Instance, i: usize, one_thread: bool) -> Bool {
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

    fn event(&self, id: EventId) -> &Event {
        self.model.event(id)
    }

    /// The conditions of an event as intervals (see the module docs).
    fn guard(&mut self, event: EventId) -> Enc<Guard> {
        if let Some(known) = self.guards.get(&event) {
            return Ok(known.clone());
        }
        let mut g = Guard::default();
        for cond in self.event(event).guards.clone() {
            self.atoms(&cond, false, &mut g)?;
        }
        self.guards.insert(event, g.clone());
        Ok(g)
    }

    fn atoms(&mut self, cond: &Expr, negated: bool, g: &mut Guard) -> Enc<()> {
        let boolean = cond.dtype().is_bool();
        match cond {
            Expr::Logic { op: LogicOp::And, lhs, rhs } | Expr::Binary { op: BinOp::BitAnd, lhs, rhs }
                if !negated && boolean =>
            {
                self.atoms(lhs, false, g)?;
                self.atoms(rhs, false, g)
            }
            Expr::Logic { op: LogicOp::Or, lhs, rhs } | Expr::Binary { op: BinOp::BitOr, lhs, rhs }
                if negated && boolean =>
            {
                self.atoms(lhs, true, g)?;
                self.atoms(rhs, true, g)
            }
            Expr::Not(inner) => self.atoms(inner, !negated, g),
            Expr::Int { value, .. } => {
                g.facts.push(Bool::from_bool((*value != 0) != negated));
                Ok(())
            }
            Expr::Cmp { op, lhs, rhs } => {
                let op2 = if negated { negate(*op) } else { *op };
                let mut attempt = g.clone();
                match self.comparison(op2, lhs, rhs, &mut attempt) {
                    Ok(()) => {
                        *g = attempt;
                        Ok(())
                    }
                    Err(_) => self.generic(cond, negated, g),
                }
            }
            other => self.generic(other, negated, g),
        }
    }

    /// A condition that is not an interval: kept whole when it mentions one loop variable.
    fn generic(&mut self, cond: &Expr, negated: bool, g: &mut Guard) -> Enc<()> {
        let cond = if negated { Expr::logical_not(cond.clone()) } else { cond.clone() };
        let mut loops: Vec<LoopId> =
            super::model::vars_of(&cond).iter().filter_map(|v| self.model.is_loop_var(*v)).collect();
        loops.sort_unstable();
        loops.dedup();
        match loops.as_slice() {
            [] => {
                let mut none = None;
                let fact = self.bool_inner(&cond, &LoopValues::new(), &mut none)?;
                g.facts.push(fact);
                Ok(())
            }
            [l] => {
                g.generic.entry(*l).or_default().push(cond);
                Ok(())
            }
            _ => Err(Unsupported(format!(
                "the condition {} around a commit or wait mentions several loop variables",
                print_expr(&cond)
            ))),
        }
    }

    /// Whether loop `l`'s conditions that are not intervals hold at `v`.
    fn generic_at(&mut self, l: LoopId, guard: &Guard, v: &Int) -> Enc<Bool> {
        let at = LoopValues::from([(l, v.clone())]);
        let mut all = vec![Bool::from_bool(true)];
        for cond in guard.generic.get(&l).cloned().into_iter().flatten() {
            let mut none = None;
            all.push(self.bool_inner(&cond, &at, &mut none)?);
        }
        Ok(and(&all))
    }

    /// How many values in `[lo, min(hi, upper))` satisfy loop `l`'s conditions.
    fn span(&mut self, l: LoopId, g: &Guard, upper: &Int, outer: &LoopValues) -> Enc<Int> {
        let (lo, hi) = self.valid(l, g, outer)?;
        let top = min(&hi, upper);
        if !g.generic.contains_key(&l) {
            return Ok(size(&lo, &top));
        }
        self.assume_bounded(l, &lo, &hi);
        let mut terms = vec![Int::from_i64(0)];
        for d in 0..ENUMERATED_ITERATIONS {
            let j = add(&[lo.clone(), Int::from_i64(d)]);
            let ok = and(&[lt(&j, &top), self.generic_at(l, g, &j)?]);
            terms.push(ite(&ok, &Int::from_i64(1), &Int::from_i64(0)));
        }
        Ok(add(&terms))
    }

    /// The largest value below `min(hi, upper)` (and at least `lo`) that satisfies loop `l`'s
    /// conditions, and whether there is one.
    fn last_valid(&mut self, l: LoopId, g: &Guard, upper: &Int, outer: &LoopValues) -> Enc<(Bool, Int)> {
        let (lo, hi) = self.valid(l, g, outer)?;
        let top = min(&hi, upper);
        let prev = sub(&top, &Int::from_i64(1));
        if !g.generic.contains_key(&l) {
            return Ok((ge(&prev, &lo), prev));
        }
        self.assume_bounded(l, &lo, &hi);
        let mut value = Int::from_i64(0);
        let mut exists = Bool::from_bool(false);
        for d in (1..=ENUMERATED_ITERATIONS).rev() {
            let j = sub(&top, &Int::from_i64(d));
            let ok = and(&[ge(&j, &lo), self.generic_at(l, g, &j)?]);
            value = ite(&ok, &j, &value);
            exists = or(&[exists, ok]);
        }
        Ok((exists, value))
    }

    fn assume_bounded(&mut self, l: LoopId, lo: &Int, hi: &Int) {
        let fits = le(&sub(hi, lo), &Int::from_i64(ENUMERATED_ITERATIONS));
        self.bounded.push((l, fits));
    }

    /// `lhs op rhs` as an interval of one loop variable, or as a loop-free fact.
    fn comparison(&mut self, op: CmpOp, lhs: &Expr, rhs: &Expr, g: &mut Guard) -> Enc<()> {
        // The interval is over unbounded integers: exact only where no sum or product wraps
        // (`i + 2147483647 > 0` is false from i = 1 on). Otherwise the condition is kept whole
        // (`generic`), where it is encoded with its wrapping.
        if !self.linear_exact(lhs) || !self.linear_exact(rhs) {
            return Err(Unsupported("a condition whose arithmetic may wrap".into()));
        }
        let diff = lhs.clone() - rhs.clone();
        let (coeffs, rest) = self.linear(&diff)?;
        let loops: Vec<(LoopId, i64)> = coeffs.into_iter().filter(|(_, c)| *c != 0).collect();
        let rest = rest.unwrap_or_else(|| Int::from_i64(0));
        match loops.as_slice() {
            [] => {
                g.facts.push(compare(op, &rest, &Int::from_i64(0)));
                Ok(())
            }
            [(l, c)] if *c == 1 || *c == -1 => {
                // c*v + rest op 0, with c = +-1: v op' -c*rest.
                let (op, bound) = if *c == 1 { (op, neg(&rest)) } else { (flip(op), rest) };
                let one = Int::from_i64(1);
                let range = match op {
                    CmpOp::Lt => Range { lo: None, hi: Some(bound) },
                    CmpOp::Le => Range { lo: None, hi: Some(add(&[bound, one])) },
                    CmpOp::Gt => Range { lo: Some(add(&[bound, one])), hi: None },
                    CmpOp::Ge => Range { lo: Some(bound), hi: None },
                    CmpOp::Eq => Range { lo: Some(bound.clone()), hi: Some(add(&[bound, one])) },
                    CmpOp::Ne => return Err(Unsupported("a `!=` condition around a commit or wait".into())),
                };
                g.ranges.entry(*l).or_default().push(range);
                Ok(())
            }
            _ => Err(Unsupported(format!(
                "the condition {} {op} {} around a commit or wait",
                print_expr(lhs),
                print_expr(rhs)
            ))),
        }
    }

    /// Whether the sums, differences and products [`Encoder::linear`] takes apart in `e` stay
    /// within their types for every value their operands can have.
    fn linear_exact(&mut self, e: &Expr) -> bool {
        match e {
            Expr::Binary { op: BinOp::Add | BinOp::Sub | BinOp::Mul, lhs, rhs } => {
                let fits = ValueRange::of_type(e.dtype())
                    .is_none_or(|full| self.ranges.exact(e).is_some_and(|r| r.within(full)));
                fits && self.linear_exact(lhs) && self.linear_exact(rhs)
            }
            _ => true,
        }
    }

    /// `e` as `sum(c_l * v_l) + rest`, where `rest` mentions no loop variable.
    fn linear(&mut self, e: &Expr) -> Enc<(BTreeMap<LoopId, i64>, Option<Int>)> {
        match e {
            Expr::Var(v) if self.model.is_loop_var(v.id()).is_some() => {
                let coeffs = self.model.is_loop_var(v.id()).map(|l| (l, 1)).into_iter().collect();
                Ok((coeffs, None))
            }
            Expr::Binary { op: op @ (BinOp::Add | BinOp::Sub), lhs, rhs } => {
                let (mut a, ra) = self.linear(lhs)?;
                let (b, rb) = self.linear(rhs)?;
                let sign = if *op == BinOp::Add { 1 } else { -1 };
                for (l, c) in b {
                    *a.entry(l).or_default() += sign * c;
                }
                let rest = match (ra, rb) {
                    (None, None) => None,
                    (Some(x), None) => Some(x),
                    (None, Some(y)) => Some(if sign == 1 { y } else { neg(&y) }),
                    (Some(x), Some(y)) => Some(if sign == 1 { add(&[x, y]) } else { sub(&x, &y) }),
                };
                Ok((a, rest))
            }
            Expr::Binary { op: BinOp::Mul, lhs, rhs } if lhs.as_int().is_some() || rhs.as_int().is_some() => {
                let (k, other) = match lhs.as_int() {
                    Some(k) => (k, rhs),
                    None => (rhs.as_int().unwrap_or(0), lhs),
                };
                let (coeffs, rest) = self.linear(other)?;
                let coeffs = coeffs.into_iter().map(|(l, c)| (l, c * k)).collect();
                Ok((coeffs, rest.map(|r| mul(&[r, Int::from_i64(k)]))))
            }
            other => {
                let mentions_loop = super::model::vars_of(other).iter().any(|v| self.model.is_loop_var(*v).is_some());
                if mentions_loop {
                    return Err(Unsupported(format!("the non-affine expression {}", print_expr(other))));
                }
                Ok((BTreeMap::new(), Some(self.int(other, &LoopValues::new(), None)?)))
            }
        }
    }

    /// `[lo, hi)` of the iterations of loop `l` where `event`'s conditions on it hold.
    fn valid(&mut self, l: LoopId, guard: &Guard, outer: &LoopValues) -> Enc<(Int, Int)> {
        let (mut lo, mut hi) = self.loop_bounds_at(l, outer)?;
        for r in guard.ranges.get(&l).into_iter().flatten() {
            if let Some(x) = &r.lo {
                lo = max(&lo, x);
            }
            if let Some(y) = &r.hi {
                hi = min(&hi, y);
            }
        }
        Ok((lo, hi))
    }

    /// Whether `event`'s conditions on loop `l` hold at value `v` (its other conditions are
    /// those of the instance `v` replaces a value of).
    pub fn holds_at_event(&mut self, event: EventId, l: LoopId, v: &Int) -> Enc<Bool> {
        let guard = self.guard(event)?;
        Ok(self.holds_at(l, &guard, v))
    }

    /// Whether `event`'s conditions on loop `l` hold at value `v`.
    fn holds_at(&mut self, l: LoopId, guard: &Guard, v: &Int) -> Bool {
        let mut all = vec![self.generic_at(l, guard, v).unwrap_or_else(|_| Bool::from_bool(true))];
        for r in guard.ranges.get(&l).into_iter().flatten() {
            if let Some(x) = &r.lo {
                all.push(ge(v, x));
            }
            if let Some(y) = &r.hi {
                all.push(lt(v, y));
            }
        }
        and(&all)
    }

    /// How many instances of `event` run before instance `at`.
    pub fn count_before(&mut self, event: EventId, at: &Instance) -> Enc<Int> {
        let key = (event, at.key());
        if let Some(known) = self.counts.get(&key) {
            return Ok(known.clone());
        }
        let n = self.count_before_uncached(event, at)?;
        self.counts.insert(key, n.clone());
        Ok(n)
    }

    fn count_before_uncached(&mut self, event: EventId, at: &Instance) -> Enc<Int> {
        let guard = self.guard(event)?;
        let facts = and(&guard.facts);
        let path = self.event(event).path.clone();
        let upath = self.event(at.event).path.clone();
        let n = self.count_rec(&path, &upath, 0, at, &guard)?;
        Ok(ite(&facts, &n, &Int::from_i64(0)))
    }

    fn count_rec(&mut self, p: &[Step], u: &[Step], i: usize, at: &Instance, g: &Guard) -> Enc<Int> {
        match (p.get(i), u.get(i)) {
            (Some(Step::Loop(l)), Some(Step::Loop(m))) if l == m => {
                let v = at.vals.get(l).cloned().ok_or_else(|| missing_loop(at, *l))?;
                let deeper = self.count_rec(p, u, i + 1, at, g)?;
                let same = ite(&self.holds_at(*l, g, &v), &deeper, &Int::from_i64(0));
                if self.model.loop_info(*l).per_thread {
                    return Ok(same);
                }
                let earlier = if self.inner_bounds_depend_on(p, i + 1, *l) {
                    self.sum_over_iterations(p, i + 1, g, *l, Some(&v), &at.vals)?
                } else {
                    let earlier = self.span(*l, g, &v, &at.vals)?;
                    mul(&[earlier, self.count_all(p, i + 1, g, &at.vals)?])
                };
                Ok(add(&[same, earlier]))
            }
            (Some(Step::Child(x)), Some(Step::Child(y))) | (Some(Step::Branch(x)), Some(Step::Branch(y))) if x == y => {
                self.count_rec(p, u, i + 1, at, g)
            }
            (Some(Step::Child(x)), Some(Step::Child(y))) if x < y => self.count_all(p, i, g, &at.vals),
            // Later children, and the other branch of the same `if` (which did not run).
            _ => Ok(Int::from_i64(0)),
        }
    }

    /// Whether the bounds of a loop on `p` from step `from` on mention loop `l`'s variable
    /// (a triangular loop, `range(i)`): then counting its instances needs a sum over `l`.
    fn inner_bounds_depend_on(&self, p: &[Step], from: usize, l: LoopId) -> bool {
        let var = self.model.loop_info(l).var.id();
        p[from.min(p.len())..].iter().any(|s| match s {
            Step::Loop(k) => {
                let info = self.model.loop_info(*k);
                super::model::vars_of(&info.min).contains(&var) || super::model::vars_of(&info.extent).contains(&var)
            }
            _ => false,
        })
    }

    /// The instances of the rest of path `p` (from step `from`) over the iterations of loop
    /// `l` below `upper` (all of them without it), summed one iteration at a time: at most
    /// [`ENUMERATED_ITERATIONS`] of them, assumed like a condition counted by enumeration.
    fn sum_over_iterations(
        &mut self,
        p: &[Step],
        from: usize,
        g: &Guard,
        l: LoopId,
        upper: Option<&Int>,
        outer: &LoopValues,
    ) -> Enc<Int> {
        let (lo, hi) = self.valid(l, g, outer)?;
        let top = upper.map_or_else(|| hi.clone(), |u| min(&hi, u));
        self.assume_bounded(l, &lo, &hi);
        let mut terms = vec![Int::from_i64(0)];
        for d in 0..ENUMERATED_ITERATIONS {
            let j = add(&[lo.clone(), Int::from_i64(d)]);
            let mut at = outer.clone();
            at.insert(l, j.clone());
            let ok = and(&[lt(&j, &top), self.generic_at(l, g, &j)?]);
            let rest = self.count_all(p, from, g, &at)?;
            terms.push(ite(&ok, &rest, &Int::from_i64(0)));
        }
        Ok(add(&terms))
    }

    /// How many instances of the event the rest of its path has (from step `i`).
    fn count_all(&mut self, p: &[Step], i: usize, g: &Guard, outer: &LoopValues) -> Enc<Int> {
        let mut factors = vec![Int::from_i64(1)];
        for (k, step) in p.iter().enumerate().skip(i) {
            if let Step::Loop(l) = step {
                if self.model.loop_info(*l).per_thread {
                    let v = self.threads.get(l).cloned().unwrap_or_else(|| Int::from_i64(0));
                    factors.push(ite(&self.holds_at(*l, g, &v), &Int::from_i64(1), &Int::from_i64(0)));
                } else if self.inner_bounds_depend_on(p, k + 1, *l) {
                    // The loops inside depend on this one's value: a sum, not a product.
                    factors.push(self.sum_over_iterations(p, k + 1, g, *l, None, outer)?);
                    return Ok(mul(&factors));
                } else {
                    let (_, hi) = self.valid(*l, g, outer)?;
                    factors.push(self.span(*l, g, &hi, outer)?);
                }
            }
        }
        Ok(mul(&factors))
    }

    /// The last instance of `event` before `at`: whether one exists, and its loop values.
    pub fn last_before(&mut self, event: EventId, at: &Instance) -> Enc<(Bool, Instance)> {
        let key = (event, at.key());
        if let Some(known) = self.lasts.get(&key) {
            return Ok(known.clone());
        }
        let last = self.last_before_uncached(event, at)?;
        self.lasts.insert(key, last.clone());
        Ok(last)
    }

    fn last_before_uncached(&mut self, event: EventId, at: &Instance) -> Enc<(Bool, Instance)> {
        let guard = self.guard(event)?;
        let facts = and(&guard.facts);
        let path = self.event(event).path.clone();
        let upath = self.event(at.event).path.clone();
        let (exists, mut vals) = self.last_rec(&path, &upath, 0, at, &guard)?;
        // Where no instance exists the values are unused (guarded by `exists`), but every
        // loop needs one so that counting at this instance is well defined.
        for l in self.model.loops_of(self.event(event)) {
            vals.entry(l).or_insert_with(|| Int::from_i64(0));
        }
        Ok((and(&[facts, exists]), Instance { event, vals }))
    }

    fn last_rec(&mut self, p: &[Step], u: &[Step], i: usize, at: &Instance, g: &Guard) -> Enc<(Bool, LoopValues)> {
        match (p.get(i), u.get(i)) {
            (Some(Step::Loop(l)), Some(Step::Loop(m))) if l == m => {
                let v = at.vals.get(l).cloned().ok_or_else(|| missing_loop(at, *l))?;
                let (same_exists, mut same) = self.last_rec(p, u, i + 1, at, g)?;
                same.insert(*l, v.clone());
                let same_exists = and(&[same_exists, self.holds_at(*l, g, &v)]);
                if self.model.loop_info(*l).per_thread {
                    return Ok((same_exists, same));
                }
                let (prev_exists, prev) = self.last_valid(*l, g, &v, &at.vals)?;
                let mut before = at.vals.clone();
                before.insert(*l, prev.clone());
                let (rest_exists, mut rest) = self.last_all(p, i + 1, g, &before)?;
                rest.insert(*l, prev);
                let earlier_exists = and(&[prev_exists, rest_exists]);
                Ok((or(&[same_exists.clone(), earlier_exists]), choose(&same_exists, &same, &rest)))
            }
            (Some(Step::Child(x)), Some(Step::Child(y))) | (Some(Step::Branch(x)), Some(Step::Branch(y))) if x == y => {
                self.last_rec(p, u, i + 1, at, g)
            }
            (Some(Step::Child(x)), Some(Step::Child(y))) if x < y => self.last_all(p, i, g, &at.vals),
            // Later children, and the other branch of the same `if` (which did not run).
            _ => Ok((Bool::from_bool(false), BTreeMap::new())),
        }
    }

    /// The last instance of the rest of the path from step `i`.
    /// The last value of each loop is taken in turn, outermost first (a triangular loop's
    /// bounds see the outer loop's last value; an empty last range then yields no instance,
    /// though an earlier outer iteration may have one: fewer waits and barriers, never more).
    fn last_all(&mut self, p: &[Step], i: usize, g: &Guard, outer: &LoopValues) -> Enc<(Bool, LoopValues)> {
        let mut outer = outer.clone();
        let mut exists = vec![Bool::from_bool(true)];
        let mut vals = BTreeMap::new();
        for step in &p[i..] {
            if let Step::Loop(l) = step {
                if self.model.loop_info(*l).per_thread {
                    let v = self.threads.get(l).cloned().unwrap_or_else(|| Int::from_i64(0));
                    exists.push(self.holds_at(*l, g, &v));
                    vals.insert(*l, v);
                } else {
                    let (_, hi) = self.valid(*l, g, &outer)?;
                    let (ok, last) = self.last_valid(*l, g, &hi, &outer)?;
                    exists.push(ok);
                    outer.insert(*l, last.clone());
                    vals.insert(*l, last);
                }
            }
        }
        Ok((and(&exists), vals))
    }
}

/// An uninterpreted function `name` of `args` with values of sort `range`, applied to them.
fn per_instance_unknown(name: &str, args: &[Int], range: &Sort) -> Dynamic {
    let int = Sort::int();
    let domain: Vec<&Sort> = args.iter().map(|_| &int).collect();
    let args: Vec<&dyn Ast> = args.iter().map(|a| a as &dyn Ast).collect();
    FuncDecl::new(name, &domain, range).apply(&args)
}

/// Why an instance cannot be counted at: it lacks the value of a loop on its path.
fn missing_loop(at: &Instance, l: LoopId) -> Unsupported {
    let known: Vec<usize> = at.vals.keys().map(|k| k.index()).collect();
    Unsupported(format!(
        "an instance of event {} without the value of loop {} ({known:?})",
        at.event.index(),
        l.index()
    ))
}

/// Declares the variable of `role` in `query`, as an encoding error when its name is taken.
pub fn declare(query: &mut Query, model: &Model, role: Role) -> Enc<Int> {
    query.int(&role.name(model)).map_err(|e| Unsupported(e.to_string()))
}

fn choose(c: &Bool, a: &LoopValues, b: &LoopValues) -> LoopValues {
    let keys: std::collections::BTreeSet<LoopId> = a.keys().chain(b.keys()).copied().collect();
    keys.into_iter()
        .map(|k| {
            let x = a.get(&k).or_else(|| b.get(&k)).cloned().unwrap_or_else(|| Int::from_i64(0));
            let y = b.get(&k).or_else(|| a.get(&k)).cloned().unwrap_or_else(|| Int::from_i64(0));
            (k, ite(c, &x, &y))
        })
        .collect()
}

/// `max(0, hi - lo)`.
fn size(lo: &Int, hi: &Int) -> Int {
    max(&Int::from_i64(0), &sub(hi, lo))
}

fn compare(op: CmpOp, a: &Int, b: &Int) -> Bool {
    match op {
        CmpOp::Eq => eq(a, b),
        CmpOp::Ne => not(&eq(a, b)),
        CmpOp::Lt => lt(a, b),
        CmpOp::Le => le(a, b),
        CmpOp::Gt => gt(a, b),
        CmpOp::Ge => ge(a, b),
    }
}

fn negate(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
    }
}

/// The comparison with its sides exchanged.
fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// TVM's integer operators on exact values (the caller wraps the result into its type);
/// `divisor` is the right operand when it is a constant. Division by zero is the caller's to
/// exclude. `None`: not encoded (shifts by a variable, bitwise operators other than a mask).
fn binary(op: BinOp, a: &Int, b: &Int, divisor: Option<i64>) -> Option<Int> {
    let zero = Int::from_i64(0);
    Some(match op {
        BinOp::Add => add(&[a.clone(), b.clone()]),
        BinOp::Sub => sub(a, b),
        BinOp::Mul => mul(&[a.clone(), b.clone()]),
        BinOp::FloorDiv => floordiv(a, b),
        BinOp::FloorMod => sub(a, &mul(&[b.clone(), floordiv(a, b)])),
        BinOp::TruncDiv | BinOp::Div => {
            let q = floordiv(a, b);
            let exact = eq(&mul(&[b.clone(), q.clone()]), a);
            let negative = Bool::xor(&lt(a, &zero), lt(b, &zero));
            ite(&and(&[negative, not(&exact)]), &add(&[q.clone(), Int::from_i64(1)]), &q)
        }
        BinOp::TruncMod => {
            let q = binary(BinOp::TruncDiv, a, b, divisor)?;
            sub(a, &mul(&[b.clone(), q]))
        }
        BinOp::Min => min(a, b),
        BinOp::Max => max(a, b),
        // A shift by a constant in range is a product or a floor division by a power of two
        // (an arithmetic right shift for signed values); out of range it traps.
        BinOp::Shl => mul(&[a.clone(), power_of_two(divisor.filter(|k| (0..63).contains(k))?)]),
        BinOp::Shr => floordiv(a, &power_of_two(divisor.filter(|k| (0..63).contains(k))?)),
        // `x & (2^k - 1)` keeps the low k bits: `x mod 2^k` in two's complement.
        BinOp::BitAnd => {
            let mask = divisor
                .filter(|m| m.checked_add(1).and_then(|v| u64::try_from(v).ok()).is_some_and(u64::is_power_of_two))?;
            let modulus = Int::from_i64(mask + 1);
            sub(a, &mul(&[modulus.clone(), div(a, &modulus)]))
        }
        _ => return None,
    })
}

/// `2^k`, `0 <= k < 63`.
fn power_of_two(k: i64) -> Int {
    Int::from_i64(1i64 << k)
}

/// An integer of any size as a term (values beyond i64 are built as sums).
fn big(v: i128) -> Int {
    match i64::try_from(v) {
        Ok(small) => Int::from_i64(small),
        Err(_) => {
            let half = v / 2;
            add(&[big(half), big(v - half)])
        }
    }
}

/// `x` wrapped into the integer type `dtype`: two's complement of its width for signed
/// types, modulo `2^width` for unsigned ones.
///
/// Why the `ite`: most wrapped terms never leave their type in the executions a query is
/// about (`n - 6` under `n >= 6`); the test lets Z3 settle those without the division.
fn wrap(x: &Int, dtype: DataType) -> Int {
    let bits = i128::from(dtype.bits.clamp(1, 64));
    let Some(full) = ValueRange::of_type(dtype) else { return x.clone() };
    let modulus = big(1i128 << bits);
    let offset = if dtype.is_int() { big(1i128 << (bits - 1)) } else { Int::from_i64(0) };
    let wrapped = sub(x, &mul(&[modulus.clone(), div(&add(&[x.clone(), offset]), &modulus)]));
    let fits = and(&[ge(x, &big(full.lo)), le(x, &big(full.hi))]);
    ite(&fits, x, &wrapped)
}

/// Floor division: SMT-LIB `div` is Euclidean, which is the floor for positive divisors.
fn floordiv(a: &Int, b: &Int) -> Int {
    let zero = Int::from_i64(0);
    ite(&gt(b, &zero), &div(a, b), &div(&neg(a), &neg(b)))
}

/// How many iterations `i` of `[lo, end)` satisfy the guard `i + a op x`, and the condition
/// under which that count is exact: `i + a` does not wrap anywhere in the range. `i + a < x`
/// holds on the prefix `i < x - a`, `i + a > x` on the suffix `i >= x - a + 1`, and so on;
/// `None` for `==` and `!=`.
fn guarded_runs(guard: &RangeGuard, x: &Int, lo: &Int, end: &Int) -> Option<(Bool, Int)> {
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
