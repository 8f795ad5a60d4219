//! How many instances of an event run before an instance of another, in closed form over
//! the intervals of the loop variables (a sum over iterations for a loop whose inner bounds
//! depend on it, enumerated and assumed bounded).

use z3::ast::{Bool, Int};

use crate::waits::fold::{add, and, div, eq, ge, implies, ite, le, lt, max, min, mul, neg, or, sub};
use crate::waits::model::{EventId, EventKind, LoopId, Step};

use super::guards::*;
use super::{missing_loop, Enc, Encoder, Instance, LoopValues, Unsupported, ENUMERATED_ITERATIONS};

impl Encoder<'_> {
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

    pub(super) fn count_before_uncached(&mut self, event: EventId, at: &Instance) -> Enc<Int> {
        let guard = self.guard(event)?;
        self.count_under(event, at, &guard)
    }

    /// How many instances of `event` that `guard` allows run before `at`.
    fn count_under(&mut self, event: EventId, at: &Instance, guard: &Guard) -> Enc<Int> {
        if let Some(split) = &guard.split {
            let (a, b) = (self.count_under(event, at, &split.on_true)?, self.count_under(event, at, &split.on_false)?);
            return Ok(ite(&split.fact, &a, &b));
        }
        let guard = guard.clone();
        let facts = and(&guard.facts);
        let path = self.event(event).path.clone();
        let upath = self.event(at.event).path.clone();
        let n = self.count_rec(&path, &upath, 0, at, &guard)?;
        let most = ite(&facts, &n, &Int::from_i64(0));
        if guard.data {
            return self.data_count(event, at, most);
        }
        Ok(most)
    }

    /// The count before `at` of an event under a condition on data, whose instances that may
    /// run number `most` there: a variable of its own, within what every execution
    /// satisfies. It is at least 0 and at most `most`; between two points of one thread, in
    /// program order, it grows by at least 0 and at most what `most` grows by; at one point
    /// it is one value. Each execution's counts satisfy these, and for finitely many points
    /// any values that do are the counts of some data (each instance's condition read
    /// afresh), so a counterexample needs only the right memory contents.
    fn data_count(&mut self, event: EventId, at: &Instance, most: Int) -> Enc<Int> {
        if self.per_instance.is_some() {
            return Err(Unsupported(
                "a count of a commit under a condition on data, at instances bound by a quantifier".into(),
            ));
        }
        if self.two_threads {
            self.inexact.push("a count of a commit under a condition on data, chosen apart for two threads".into());
        }
        let earlier = self.data_points.get(&event).cloned().unwrap_or_default();
        if earlier.len() >= DATA_POINTS {
            return Err(Unsupported(format!(
                "counts of a commit under a condition on data at more than {DATA_POINTS} points of one query"
            )));
        }
        let n = Int::fresh_const("data_count");
        let zero = Int::from_i64(0);
        // Every bound is at least 0 and the conditions below hold only at points inside their
        // loops' ranges (the values of a last instance that does not exist are not): all
        // counts 0 satisfy them, so they never contradict each other.
        self.deferred.push(and(&[ge(&n, &zero), le(&n, &max(&zero, &most))]));
        // Every condition true: the counts of an execution where each instance that may run
        // does, which satisfy every constraint below.
        self.hints.push(eq(&n, &max(&zero, &most)));
        let point = DataPoint {
            at: at.clone(),
            inside: self.in_domain(at)?,
            ran: self.ran_itself(event, at),
            count: n.clone(),
            most,
        };
        for other in earlier {
            let same_thread = and(&[self.same_thread(at, &other.at), point.inside.clone(), other.inside.clone()]);
            // From a point that is an instance of the event itself and ran, the count grows by
            // at least that instance.
            let grows = |from: &DataPoint, to: &DataPoint| {
                let step = sub(&to.count, &from.count);
                let least = ite(&from.ran, &Int::from_i64(1), &zero);
                and(&[ge(&step, &least), le(&step, &max(&zero, &sub(&to.most, &from.most)))])
            };
            let ordered = [
                implies(&and(&[same_thread.clone(), self.before(&other.at, at)]), &grows(&other, &point)),
                implies(&and(&[same_thread.clone(), self.before(at, &other.at)]), &grows(&point, &other)),
                implies(&and(&[same_thread, self.same_point(at, &other.at)]), &eq(&n, &other.count)),
            ];
            self.deferred.extend(ordered);
        }
        self.data_points.entry(event).or_default().push(point);
        Ok(n)
    }

    /// Whether the instance `at` of commit `event` ran: some async store of its scope in the
    /// query, at the same values of the commit's loops, ran under its conditions on data
    /// (which are the commit's). Never, as far as is known, otherwise.
    fn ran_itself(&self, event: EventId, at: &Instance) -> Bool {
        if at.event != event {
            return Bool::from_bool(false);
        }
        let mut any = Vec::new();
        for (store, held) in &self.ran_on_data {
            let in_scope =
                matches!(self.event(store.event).kind, EventKind::AsyncStore { commit: Some(k), .. } if k == event);
            if !in_scope {
                continue;
            }
            let mut same = vec![held.clone()];
            for (l, v) in &at.vals {
                same.push(store.vals.get(l).map_or_else(|| Bool::from_bool(false), |w| eq(v, w)));
            }
            any.push(and(&same));
        }
        or(&any)
    }

    /// Whether the loop values of `at` are inside its loops' ranges.
    pub(super) fn in_domain(&mut self, at: &Instance) -> Enc<Bool> {
        let mut all = vec![Bool::from_bool(true)];
        let mut outer = LoopValues::new();
        for l in self.model.loops_of(self.event(at.event)) {
            let v = at.vals.get(&l).cloned().ok_or_else(|| missing_loop(at, l))?;
            let (lo, hi) = self.loop_bounds_at(l, &outer)?;
            all.push(and(&[ge(&v, &lo), lt(&v, &hi)]));
            outer.insert(l, v);
        }
        Ok(and(&all))
    }

    /// Whether two instances belong to one thread: their thread loops have equal values.
    fn same_thread(&self, a: &Instance, b: &Instance) -> Bool {
        let mut all = vec![Bool::from_bool(true)];
        for (l, x) in &a.vals {
            if let (true, Some(y)) = (self.model.loop_info(*l).per_thread, b.vals.get(l)) {
                all.push(eq(x, y));
            }
        }
        and(&all)
    }

    /// Whether two instances are one point of the program: one event, equal loop values.
    pub(super) fn same_point(&self, a: &Instance, b: &Instance) -> Bool {
        if a.event != b.event {
            return Bool::from_bool(false);
        }
        self.same_values(a, b)
    }

    /// Whether two instances of one event have equal loop values.
    pub(super) fn same_values(&self, a: &Instance, b: &Instance) -> Bool {
        let mut all = vec![Bool::from_bool(true)];
        for (l, x) in &a.vals {
            all.push(b.vals.get(l).map_or_else(|| Bool::from_bool(false), |y| eq(x, y)));
        }
        and(&all)
    }

    pub(super) fn count_rec(&mut self, p: &[Step], u: &[Step], i: usize, at: &Instance, g: &Guard) -> Enc<Int> {
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
    /// (a triangular loop, `range(i)`), or are read from memory (each iteration of `l` reads
    /// them again): then counting its instances needs a sum over `l`.
    pub(super) fn inner_bounds_depend_on(&self, p: &[Step], from: usize, l: LoopId) -> bool {
        let var = self.model.loop_info(l).var.id();
        p[from.min(p.len())..].iter().any(|s| match s {
            Step::Loop(k) => {
                let info = self.model.loop_info(*k);
                crate::waits::model::vars_of(&info.min).contains(&var)
                    || crate::waits::model::vars_of(&info.extent).contains(&var)
            }
            _ => false,
        }) || self.inner_bounds_read_data(p, from)
    }

    /// The instances of the rest of path `p` (from step `from`) over the iterations of loop
    /// `l` below `upper` (all of them without it), summed one iteration at a time: at most
    /// [`ENUMERATED_ITERATIONS`] of them, assumed like a condition counted by enumeration.
    pub(super) fn sum_over_iterations(
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
        if let Some(sum) = self.triangular_sum(p, from, g, l, &lo, &top)? {
            return Ok(sum);
        }
        // A loop of constant bounds needs no more terms than it has iterations, and no
        // assumption.
        let constant = match (lo.as_i64(), hi.as_i64()) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a).max(0)).filter(|n| *n <= ENUMERATED_ITERATIONS),
            _ => None,
        };
        if constant.is_none() {
            if self.inner_bounds_read_data(p, from) {
                return self.prefix_sum(p, from, g, l, (&lo, &hi, &top), outer);
            }
            self.assume_bounded(l, &lo, &hi);
        }
        let mut terms = vec![Int::from_i64(0)];
        for d in 0..constant.unwrap_or(ENUMERATED_ITERATIONS) {
            let j = add(&[lo.clone(), Int::from_i64(d)]);
            let mut at = outer.clone();
            at.insert(l, j.clone());
            let ok = and(&[lt(&j, &top), self.generic_at(l, g, &j)?]);
            let rest = self.count_all(p, from, g, &at)?;
            terms.push(ite(&ok, &rest, &Int::from_i64(0)));
        }
        Ok(add(&terms))
    }

    /// Whether a loop on `p` from step `from` on reads its bounds from memory.
    fn inner_bounds_read_data(&self, p: &[Step], from: usize) -> bool {
        p[from.min(p.len())..].iter().any(|s| match s {
            Step::Loop(k) => {
                let info = self.model.loop_info(*k);
                self.model.reads_data(&info.min) || self.model.reads_data(&info.extent)
            }
            _ => false,
        })
    }

    /// The one serial loop `k` on the rest of path `p` (from step `from`), when the rest has
    /// no other loop and `g` restricts neither `k` nor `l` by more than intervals: the shape
    /// whose sums over `l` [`Encoder::triangular_sum`] takes ([`Encoder::prefix_sum`] takes
    /// it without intervals on `k`).
    fn single_inner_loop(&self, p: &[Step], from: usize, g: &Guard, l: LoopId) -> Option<LoopId> {
        let mut loops =
            p[from.min(p.len())..].iter().filter_map(|s| if let Step::Loop(k) = s { Some(*k) } else { None });
        let (Some(k), None) = (loops.next(), loops.next()) else { return None };
        let plain = |x: LoopId| !g.generic.contains_key(&x) && !g.residues.contains_key(&x);
        let fits = !self.model.loop_info(k).per_thread && plain(l) && plain(k);
        fits.then_some(k)
    }

    /// The instances of the rest of path `p` (from step `from`) over the iterations of loop
    /// `l` in `[lo, top)`, when the rest is one loop `k` that reads its bounds from memory
    /// (no condition on `k`, intervals only on `l`) and `l` has more iterations than are
    /// enumerated: a variable per point, the prefix sum of the per-iteration counts `c(v)`
    /// (the extent of `k` where positive) up to `top`. Each `c(v)` lies in `[least, most]`,
    /// the range of `k`'s extent clamped at 0. At one point, the sum lies in `[least, most]`
    /// times the iterations below it; between two points of one execution of `l` (equal
    /// values of the loops around it) with tops `t < u`, the sums differ by `c(t)` (when `t`
    /// is an iteration) plus `[least, most]` times the iterations strictly between, and not at
    /// all when `t = u`. Every execution's sums satisfy these, and for finitely many points
    /// any sums that do are some execution's (each iteration reads its bounds afresh, any
    /// value of the range), so a counterexample needs only the right memory contents.
    fn prefix_sum(
        &mut self,
        p: &[Step],
        from: usize,
        g: &Guard,
        l: LoopId,
        (lo, hi, top): (&Int, &Int, &Int),
        outer: &LoopValues,
    ) -> Enc<Int> {
        // A sum is a fresh variable: under a quantifier it would be one value for every
        // instance the quantifier ranges over.
        if self.per_instance.is_some() {
            return Err(Unsupported(
                "a sum over a loop of counts read from memory, at instances bound by a quantifier".into(),
            ));
        }
        let shape =
            || Unsupported("a sum over a loop of counts read from memory, of a loop nest or under conditions".into());
        let k = self.single_inner_loop(p, from, g, l).filter(|k| !g.ranges.contains_key(k)).ok_or_else(shape)?;
        let extent = self.model.loop_info(k).extent.clone();
        let range = self.ranges.value(&extent).ok_or_else(shape)?;
        let clamp = |v: i128| i64::try_from(v.max(0)).map(Int::from_i64);
        let (Ok(least), Ok(most)) = (clamp(range.lo), clamp(range.hi)) else { return Err(shape()) };
        let mut around = Vec::new();
        for m in self.model.loop_info(l).enclosing.clone() {
            let v = self.threads.get(&m).or_else(|| outer.get(&m)).cloned().ok_or_else(|| missing_loop_value(l, m))?;
            around.push(v);
        }
        let key = (p.to_vec(), from, l);
        let earlier = self.prefix_points.get(&key).cloned().unwrap_or_default();
        if earlier.len() >= DATA_POINTS {
            return Err(Unsupported(format!(
                "sums over a loop of counts read from memory at more than {DATA_POINTS} points of one query"
            )));
        }
        let zero = Int::from_i64(0);
        let one = Int::from_i64(1);
        let sum = Int::fresh_const("prefix_sum");
        let mut at = outer.clone();
        at.insert(l, top.clone());
        let valid = and(&[ge(top, lo), lt(top, hi), self.holds_at(l, g, top)]);
        let step = ite(&valid, &self.count_all(p, from, g, &at)?, &zero);
        // `x` within `[least, most]` times the iterations of `[a, b)` that are in `[lo, hi)`.
        let within = |x: &Int, a: &Int, b: &Int| {
            let n = max(&zero, &sub(&min(b, hi), &max(a, lo)));
            and(&[ge(x, &mul(&[least.clone(), n.clone()])), le(x, &mul(&[most.clone(), n]))])
        };
        self.deferred.push(within(&sum, lo, top));
        let this = PrefixPoint { around, top: top.clone(), sum: sum.clone(), step };
        for other in &earlier {
            let same: Vec<Bool> = this.around.iter().zip(&other.around).map(|(a, b)| eq(a, b)).collect();
            let grows = |a: &PrefixPoint, b: &PrefixPoint| {
                let between = sub(&sub(&b.sum, &a.sum), &a.step);
                implies(&lt(&a.top, &b.top), &within(&between, &add(&[a.top.clone(), one.clone()]), &b.top))
            };
            self.deferred.push(implies(
                &and(&same),
                &and(&[grows(other, &this), grows(&this, other), implies(&eq(top, &other.top), &eq(&sum, &other.sum))]),
            ));
        }
        self.prefix_points.entry(key).or_default().push(this);
        Ok(sum)
    }

    /// The instances of the rest of path `p` (from step `from`) over the iterations `[lo,
    /// top)` of loop `l`, in closed form, when the rest is one loop `k` whose extent is
    /// `c * v + e` in `l`'s variable `v` (exactly, no wrapping; `e` free of loops and memory)
    /// and neither loop has a condition but intervals (those of `k` free of `l`): the
    /// instances at `v` are `clamp(c * v + d, 0, w)`, `k`'s iterations `[m, m + c * v + e)`
    /// within its interval `[low, high)` (`d = e + m - low`, `w = high - low`, unbounded
    /// without a `high`), and their sum is an arithmetic series over the iterations where the
    /// count grows, plus `w` times those where it is saturated. `None` when the rest has
    /// another shape.
    fn triangular_sum(
        &mut self,
        p: &[Step],
        from: usize,
        g: &Guard,
        l: LoopId,
        lo: &Int,
        top: &Int,
    ) -> Enc<Option<Int>> {
        let Some(k) = self.single_inner_loop(p, from, g, l) else { return Ok(None) };
        let info = self.model.loop_info(k);
        let (extent, start) = (info.extent.clone(), info.min.clone());
        if self.model.reads_data(&extent) || self.model.reads_data(&info.min) || !self.linear_exact(&extent) {
            return Ok(None);
        }
        let Ok((coeffs, rest)) = self.linear(&extent) else { return Ok(None) };
        let slope = coeffs.get(&l).copied().unwrap_or(0);
        if coeffs.iter().any(|(x, c)| *x != l && *c != 0) {
            return Ok(None);
        }
        let e = rest.unwrap_or_else(|| Int::from_i64(0));
        let zero = Int::from_i64(0);
        let intervals = g.ranges.get(&k).cloned().unwrap_or_default();
        // `d`, and `w` (none: unbounded).
        let (d, w) = if intervals.is_empty() {
            (e, None)
        } else {
            let loop_free = crate::waits::model::vars_of(&start).iter().all(|v| self.model.is_loop_var(*v).is_none());
            if !loop_free {
                return Ok(None);
            }
            let Ok(m) = self.int(&start, &LoopValues::new(), None) else { return Ok(None) };
            let low = intervals.iter().filter_map(|r| r.lo.as_ref()).fold(m.clone(), |a, b| max(&a, b));
            let high = intervals.iter().filter_map(|r| r.hi.clone()).reduce(|a, b| min(&a, &b));
            (add(&[e, m, neg(&low)]), high.map(|h| max(&zero, &sub(&h, &low))))
        };
        let count = |a: &Int, b: &Int| max(&zero, &sub(b, a));
        // The sum over `v` in `[a, b)` of `c * v + d`: `c * n * (a + b - 1) / 2 + n * d`, where
        // `n * (a + b - 1)` is always even.
        let series = |c: i64, a: &Int, b: &Int| {
            let n = count(a, b);
            let pairs =
                div(&mul(&[n.clone(), sub(&add(&[a.clone(), b.clone()]), &Int::from_i64(1))]), &Int::from_i64(2));
            add(&[mul(&[Int::from_i64(c), pairs]), mul(&[n, d.clone()])])
        };
        if slope == 0 {
            let each = match &w {
                Some(w) => min(&max(&zero, &d), w),
                None => max(&zero, &d),
            };
            return Ok(Some(mul(&[count(lo, top), each])));
        }
        let magnitude = Int::from_i64(slope.abs());
        // Euclidean division by a positive constant is the floor; `ceil(x / c) = -floor(-x / c)`.
        let floor = |x: &Int| div(x, &magnitude);
        let ceil = |x: &Int| neg(&div(&neg(x), &magnitude));
        let one = Int::from_i64(1);
        Ok(Some(if slope > 0 {
            // Positive from `floor(-d / c) + 1`; saturated (`c * v + d >= w`) from `ceil((w - d) / c)`.
            let rising = max(lo, &add(&[floor(&neg(&d)), one]));
            match &w {
                None => series(slope, &rising, top),
                Some(w) => {
                    let saturated = ceil(&sub(w, &d));
                    let end = min(top, &max(&rising, &saturated));
                    let flat = count(&max(lo, &saturated), top);
                    add(&[series(slope, &rising, &end), mul(&[w.clone(), flat])])
                }
            }
        } else {
            // Positive below `ceil(d / |c|)`; saturated up to `floor((d - w) / |c|)` inclusive.
            let falling = min(top, &ceil(&d));
            match &w {
                None => series(slope, lo, &falling),
                Some(w) => {
                    let saturated = add(&[floor(&sub(&d, w)), one]);
                    let flat = count(lo, &min(top, &saturated));
                    add(&[series(slope, &max(lo, &saturated), &falling), mul(&[w.clone(), flat])])
                }
            }
        }))
    }

    /// How many instances of the event the rest of its path has (from step `i`).
    pub(super) fn count_all(&mut self, p: &[Step], i: usize, g: &Guard, outer: &LoopValues) -> Enc<Int> {
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
}

/// The most points of one query at which one event under a condition on data is counted:
/// their constraints are pairwise (a query with 57 took minutes and timed out), so a query
/// with more is left undecided rather than slow.
const DATA_POINTS: usize = 32;

/// A point at which a sum over a loop of counts read from memory is taken (see
/// [`Encoder::prefix_sum`]): the values of the loops around the loop, the top of the sum,
/// the sum, and the count of the iteration at the top.
#[derive(Clone)]
pub(super) struct PrefixPoint {
    around: Vec<Int>,
    top: Int,
    sum: Int,
    step: Int,
}

/// A sum over loop `l` without the value of loop `k` around it.
fn missing_loop_value(l: LoopId, k: LoopId) -> Unsupported {
    Unsupported(format!("a sum over loop {} without the value of loop {} around it", l.index(), k.index()))
}

/// A point at which an event under a condition on data is counted (see
/// [`Encoder::data_count`]).
#[derive(Clone)]
pub(super) struct DataPoint {
    at: Instance,
    /// Whether `at` is inside its loops' ranges.
    inside: Bool,
    /// Whether `at` is an instance of the event itself that ran.
    ran: Bool,
    count: Int,
    most: Int,
}
