//! The last instance of an event before an instance of another: whether one exists and its
//! loop values, as terms (the last valid value of each loop in turn, outermost first).

use std::collections::BTreeMap;

use z3::ast::{Bool, Int};

use crate::waits::fold::{and, eq, ge, implies, ite, lt, or};
use crate::waits::model::{EventId, LoopId, Step};

use super::guards::*;
use super::{missing_loop, Enc, Encoder, Instance, LoopValues, Unsupported};

impl Encoder<'_> {
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

    /// The last instance of `event` before `at` at which `condition` (on the event's loop
    /// variables, like its own conditions) also holds: the last store to one element, for a
    /// token loaded from it.
    pub fn last_before_where(
        &mut self,
        event: EventId,
        condition: &tirproof_ir::Expr,
        at: &Instance,
    ) -> Enc<(Bool, Instance)> {
        let mut conds = self.event(event).guards.clone();
        conds.push(condition.clone());
        let guard = self.guard_of(&conds)?;
        self.last_under(event, at, &guard)
    }

    pub(super) fn last_before_uncached(&mut self, event: EventId, at: &Instance) -> Enc<(Bool, Instance)> {
        let guard = self.guard(event)?;
        self.last_under(event, at, &guard)
    }

    /// The last instance of `event` that `guard` allows before `at`.
    fn last_under(&mut self, event: EventId, at: &Instance, guard: &Guard) -> Enc<(Bool, Instance)> {
        if let Some(split) = &guard.split {
            let (on_true, a) = self.last_under(event, at, &split.on_true)?;
            let (on_false, b) = self.last_under(event, at, &split.on_false)?;
            let exists = ite_bool(&split.fact, &on_true, &on_false);
            let mut vals = LoopValues::new();
            for (l, x) in &a.vals {
                let y = b.vals.get(l).cloned().unwrap_or_else(|| Int::from_i64(0));
                vals.insert(*l, ite(&split.fact, x, &y));
            }
            return Ok((exists, Instance { event, vals }));
        }
        let guard = guard.clone();
        let facts = and(&guard.facts);
        let path = self.event(event).path.clone();
        let upath = self.event(at.event).path.clone();
        let (exists, mut vals) = self.last_rec(&path, &upath, 0, at, &guard)?;
        // Where no instance exists the values are unused (guarded by `exists`), but every
        // loop needs one so that counting at this instance is well defined.
        for l in self.model.loops_of(self.event(event)) {
            vals.entry(l).or_insert_with(|| Int::from_i64(0));
        }
        let last = (and(&[facts, exists]), Instance { event, vals });
        if guard.data {
            return self.data_last(event, at, &guard, last);
        }
        Ok(last)
    }

    /// The last instance that ran of an event under a condition on data, whose last instance
    /// that may run is `last`: any instance that may run up to `last`, or none (a choice the
    /// solver makes). The data decides which instances run, so each choice is some
    /// execution's.
    fn data_last(
        &mut self,
        event: EventId,
        at: &Instance,
        guard: &Guard,
        (may, last): (Bool, Instance),
    ) -> Enc<(Bool, Instance)> {
        if self.per_instance.is_some() {
            return Err(Unsupported(
                "the last instance of an event under a condition on data, at instances bound by a quantifier".into(),
            ));
        }
        if self.two_threads {
            self.inexact
                .push("the last instance of an event under a condition on data, chosen apart for two threads".into());
        }
        // A point under a condition on data of its own may share that data with the event's
        // condition (both under `if K[3] > 0`), which choices made per point do not express,
        // unless it is the same evaluation of the same condition (below).
        let shared = self.model.shared_data_conditions(event, at.event);
        let point_on_data = self.model.event(at.event).guards.iter().any(|g| self.model.varies_with_data(g));
        if point_on_data && shared.is_none() {
            self.inexact.push(
                "the last instance of an event under a condition on data, chosen apart from the condition on data of the point after it"
                    .into(),
            );
        }
        self.data_lasts += 1;
        let ran = Bool::fresh_const(&format!("ran_{}", self.data_lasts));
        let mut vals = LoopValues::new();
        let mut runs = vec![may.clone()];
        for l in self.model.loops_of(self.event(event)) {
            let v = match self.threads.get(&l) {
                Some(t) => t.clone(),
                None => {
                    let v = Int::fresh_const(&format!("last_{}", self.data_lasts));
                    let (lo, hi) = self.loop_bounds_at(l, &vals)?;
                    runs.push(and(&[ge(&v, &lo), lt(&v, &hi), self.holds_at(l, guard, &v)]));
                    v
                }
            };
            vals.insert(l, v);
        }
        let chosen = Instance { event, vals };
        runs.push(or(&[self.before(&chosen, &last), self.same_values(&chosen, &last)]));
        self.deferred.push(implies(&ran, &and(&runs)));
        self.ran_with_others(event, at, guard, &ran, &chosen)?;
        let Some(depth) = shared else { return Ok((ran, chosen)) };
        // The point runs, so the conditions it shares with the event held in its evaluation:
        // a last instance in that same evaluation (equal values of the loops around it) ran.
        let mut same = vec![may];
        for step in &self.model.event(event).path[..depth] {
            if let Step::Loop(l) = step {
                let (Some(x), Some(y)) = (last.vals.get(l), at.vals.get(l)) else { return Ok((ran, chosen)) };
                same.push(eq(x, y));
            }
        }
        let same = and(&same);
        Ok((or(&[same.clone(), ran]), Instance { event, vals: choose(&same, &last.vals, &chosen.vals) }))
    }

    /// An instance of the query that ran under conditions on data shared with `event`'s (one
    /// evaluation of the same `if`) tells that `event`'s instance in that evaluation ran too:
    /// when that instance comes before `at`, the last that ran is not before it. Only events
    /// with no loops inside the shared conditions have one such instance.
    fn ran_with_others(
        &mut self,
        event: EventId,
        at: &Instance,
        guard: &Guard,
        ran: &Bool,
        chosen: &Instance,
    ) -> Enc<()> {
        // The facts below are assumptions of the query: they must hold in every execution,
        // so they need the last instance `last_rec` finds to be the true one, which it is
        // when no loop of the event has bounds that move (inner bounds that depend on an
        // outer loop or on memory may leave an iteration empty).
        let model = self.model;
        let moves = |e: &tirproof_ir::Expr| {
            model.reads_data(e) || crate::waits::model::vars_of(e).iter().any(|v| model.is_loop_var(*v).is_some())
        };
        if model.loops_of(model.event(event)).iter().any(|l| {
            let info = model.loop_info(*l);
            !info.per_thread && (moves(&info.min) || moves(&info.extent))
        }) {
            return Ok(());
        }
        for (other, held) in self.ran_on_data.clone() {
            let Some(depth) = self.model.shared_data_conditions(event, other.event) else { continue };
            let path = &self.model.event(event).path;
            if path[depth..].iter().any(|s| matches!(s, Step::Loop(_))) {
                continue;
            }
            let mut vals = LoopValues::new();
            let mut may = vec![and(&guard.facts)];
            for l in self.model.loops_of(self.event(event)) {
                let Some(v) = other.vals.get(&l) else { return Ok(()) };
                may.push(self.holds_at(l, guard, v));
                vals.insert(l, v.clone());
            }
            let companion = Instance { event, vals };
            // It ran when the shared conditions held in that evaluation and the rest of its
            // conditions and its loops' ranges allow it.
            may.push(self.in_domain(&companion)?);
            let ran_before = and(&[held, and(&may), self.before(&companion, at)]);
            let not_earlier = or(&[self.before(&companion, chosen), self.same_values(&companion, chosen)]);
            self.deferred.push(implies(&ran_before, &and(&[ran.clone(), not_earlier])));
        }
        Ok(())
    }

    pub(super) fn last_rec(
        &mut self,
        p: &[Step],
        u: &[Step],
        i: usize,
        at: &Instance,
        g: &Guard,
    ) -> Enc<(Bool, LoopValues)> {
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
    pub(super) fn last_all(&mut self, p: &[Step], i: usize, g: &Guard, outer: &LoopValues) -> Enc<(Bool, LoopValues)> {
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

pub(super) fn choose(c: &Bool, a: &LoopValues, b: &LoopValues) -> LoopValues {
    let keys: std::collections::BTreeSet<LoopId> = a.keys().chain(b.keys()).copied().collect();
    keys.into_iter()
        .map(|k| {
            let x = a.get(&k).or_else(|| b.get(&k)).cloned().unwrap_or_else(|| Int::from_i64(0));
            let y = b.get(&k).or_else(|| a.get(&k)).cloned().unwrap_or_else(|| Int::from_i64(0));
            (k, ite(c, &x, &y))
        })
        .collect()
}
