//! How many instances of an event run before an instance of another, in closed form over
//! the intervals of the loop variables (a sum over iterations for a loop whose inner bounds
//! depend on it, enumerated and assumed bounded).

use z3::ast::Int;

use crate::waits::fold::{add, and, ite, lt, min, mul};
use crate::waits::model::{EventId, LoopId, Step};

use super::guards::*;
use super::{missing_loop, Enc, Encoder, Instance, LoopValues, ENUMERATED_ITERATIONS};

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
        let facts = and(&guard.facts);
        let path = self.event(event).path.clone();
        let upath = self.event(at.event).path.clone();
        let n = self.count_rec(&path, &upath, 0, at, &guard)?;
        Ok(ite(&facts, &n, &Int::from_i64(0)))
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
    /// (a triangular loop, `range(i)`): then counting its instances needs a sum over `l`.
    pub(super) fn inner_bounds_depend_on(&self, p: &[Step], from: usize, l: LoopId) -> bool {
        let var = self.model.loop_info(l).var.id();
        p[from.min(p.len())..].iter().any(|s| match s {
            Step::Loop(k) => {
                let info = self.model.loop_info(*k);
                crate::waits::model::vars_of(&info.min).contains(&var)
                    || crate::waits::model::vars_of(&info.extent).contains(&var)
            }
            _ => false,
        })
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
