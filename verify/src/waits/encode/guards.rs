//! The conditions around an event as intervals of one loop variable each (plus loop-free
//! facts, and conditions of one loop variable kept whole and counted by enumeration, or a
//! split of them on a fact where a fact inside a condition keeps it from being intervals),
//! and the questions asked of them: whether they hold at a value, how many values of a range satisfy
//! them, the last value that does.

use std::collections::BTreeMap;

use tirproof_ir::print::print_expr;
use tirproof_ir::{BinOp, CmpOp, Expr, LogicOp};
use z3::ast::{Bool, Int};

use crate::waits::fold::{add, and, div, eq, ge, gt, ite, le, lt, max, min, modulo, mul, neg, not, or, sub};
use crate::waits::model::{EventId, LoopId};
use crate::waits::ranges::ValueRange;

use super::expr::*;
use super::{Enc, Encoder, LoopValues, Unsupported, ENUMERATED_ITERATIONS};

impl Encoder<'_> {
    /// The conditions of an event as intervals (see the module docs).
    pub(super) fn guard(&mut self, event: EventId) -> Enc<Guard> {
        let key = (event, self.thread_values_of(event));
        if let Some(known) = self.guards.get(&key) {
            return Ok(known.clone());
        }
        let conds = self.event(event).guards.clone();
        let g = self.guard_of(&conds)?;
        self.guards.insert(key, g.clone());
        Ok(g)
    }

    /// The guard of the conditions `conds`. Where they are not intervals as written and one
    /// of them holds a condition that is one value for the whole query (on parameters, the
    /// thread's coordinates or fixed data: a fact), the guard is split on that fact: the
    /// conditions with it true, and with it false, each a guard of its own
    /// (`K[0] != 0 or j % 2 == 1` is every `j`, or the odd ones).
    pub(super) fn guard_of(&mut self, conds: &[Expr]) -> Enc<Guard> {
        let mut g = Guard::default();
        let direct = conds.iter().try_for_each(|c| self.atoms(c, false, &mut g));
        if direct.is_ok() && g.generic.is_empty() {
            return Ok(g);
        }
        if let Some(atom) = conds.iter().find_map(|c| self.fact_inside(c)) {
            let case = |value: bool| conds.iter().map(|c| assume(c, &atom, value)).collect::<Vec<_>>();
            let (when_true, when_false) = (case(true), case(false));
            let fact = self.bool_inner(&atom, &LoopValues::new(), &mut None);
            if let (Ok(fact), Ok(on_true), Ok(on_false)) = (fact, self.guard_of(&when_true), self.guard_of(&when_false))
            {
                // A count under a condition on data is one variable per point, which two cases
                // would give two values: such guards are not split.
                if !on_true.has_data() && !on_false.has_data() {
                    return Ok(Guard { split: Some(Box::new(Split { fact, on_true, on_false })), ..Guard::default() });
                }
            }
        }
        direct.map(|()| g)
    }

    /// A boolean part of `cond`, inside a disjunction, a negated conjunction or a choice, that
    /// is one value for the whole query: no serial loop variable, no data that may differ
    /// between reads, and not a constant.
    fn fact_inside(&self, cond: &Expr) -> Option<Expr> {
        let model = self.model;
        let is_fact = |e: &Expr| {
            e.dtype().is_bool()
                && e.as_int().is_none()
                && !model.varies_with_data(e)
                && crate::waits::model::vars_of(e)
                    .iter()
                    .all(|v| self.varying_loop(*v).is_none() && !model.data_vars.contains(v))
        };
        let mut found = None;
        let mut visit = |e: &Expr| {
            if found.is_none() && is_fact(e) {
                found = Some(e.clone());
            }
        };
        each_boolean_part(cond, &mut visit);
        found
    }

    /// The values of the thread variables of the query's current thread on `event`'s path.
    fn thread_values_of(&self, event: EventId) -> Vec<(LoopId, Int)> {
        self.model
            .loops_of(self.event(event))
            .into_iter()
            .filter_map(|l| self.threads.get(&l).map(|v| (l, v.clone())))
            .collect()
    }

    /// The loop whose variable is `var`, unless it is a thread or block binding of the query's
    /// thread: that variable is one value per query, like a parameter, so a condition on it
    /// and on one serial loop is still an interval of that loop (`tx == k`).
    fn varying_loop(&self, var: tirproof_ir::VarId) -> Option<LoopId> {
        self.model.is_loop_var(var).filter(|l| !self.threads.contains_key(l))
    }

    pub(super) fn atoms(&mut self, cond: &Expr, negated: bool, g: &mut Guard) -> Enc<()> {
        let boolean = cond.dtype().is_bool();
        let splits = match cond {
            Expr::Logic { op: LogicOp::And, .. } | Expr::Binary { op: BinOp::BitAnd, .. } => !negated && boolean,
            Expr::Logic { op: LogicOp::Or, .. } | Expr::Binary { op: BinOp::BitOr, .. } => negated && boolean,
            Expr::Not(_) => true,
            _ => false,
        };
        if !splits && self.model.varies_with_data(cond) {
            // Taken as true: the counts and last instances of the guard are then what every
            // execution stays within (see [`Guard::data`]).
            g.data = true;
            return Ok(());
        }
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
                    Err(_) => match self.residue(op2, lhs, rhs) {
                        Some((l, residue)) if !g.generic.contains_key(&l) && !g.residues.contains_key(&l) => {
                            g.residues.insert(l, residue);
                            Ok(())
                        }
                        _ => self.generic(cond, negated, g),
                    },
                }
            }
            other => self.generic(other, negated, g),
        }
    }

    /// A condition that is not an interval: kept whole when it mentions one loop variable.
    pub(super) fn generic(&mut self, cond: &Expr, negated: bool, g: &mut Guard) -> Enc<()> {
        let cond = if negated { Expr::logical_not(cond.clone()) } else { cond.clone() };
        let mut loops: Vec<LoopId> =
            crate::waits::model::vars_of(&cond).iter().filter_map(|v| self.varying_loop(*v)).collect();
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
                // A condition of the variable and constants alone that wraps: exactly an
                // interval of the loop's range, or none, more often than not.
                if let Some(interval) = self.wrapped_interval(&cond, *l) {
                    match interval {
                        Some(range) => g.ranges.entry(*l).or_default().push(range),
                        None => g.facts.push(Bool::from_bool(false)),
                    }
                    return Ok(());
                }
                // One residue condition per loop has a closed form; with others it is kept
                // whole like them.
                if let Some(residue) = g.residues.remove(l) {
                    g.generic.entry(*l).or_default().push(residue.cond);
                }
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
    pub(super) fn generic_at(&mut self, l: LoopId, guard: &Guard, v: &Int) -> Enc<Bool> {
        let at = LoopValues::from([(l, v.clone())]);
        let mut all = vec![guard.residues.get(&l).map_or_else(|| Bool::from_bool(true), |r| r.holds_at(v))];
        for cond in guard.generic.get(&l).cloned().into_iter().flatten() {
            let mut none = None;
            all.push(self.bool_inner(&cond, &at, &mut none)?);
        }
        Ok(and(&all))
    }

    /// How many values in `[lo, min(hi, upper))` satisfy loop `l`'s conditions.
    pub(super) fn span(&mut self, l: LoopId, g: &Guard, upper: &Int, outer: &LoopValues) -> Enc<Int> {
        let (lo, hi) = self.valid(l, g, outer)?;
        let top = min(&hi, upper);
        if let Some(residue) = g.residues.get(&l) {
            return Ok(residue.count(&lo, &top));
        }
        if !g.generic.contains_key(&l) {
            return Ok(size(&lo, &top));
        }
        if let Some(period) = self.period_of(l, g) {
            // Each value `lo + d` of the first period that satisfies the conditions stands
            // for every value `lo + d + t * period` below `top`: exact for every extent.
            let mut terms = vec![Int::from_i64(0)];
            for d in 0..period {
                let j = add(&[lo.clone(), Int::from_i64(d)]);
                let ok = and(&[lt(&j, &top), self.generic_at(l, g, &j)?]);
                let below = sub(&sub(&top, &j), &Int::from_i64(1));
                let class = add(&[div(&below, &Int::from_i64(period)), Int::from_i64(1)]);
                terms.push(ite(&ok, &class, &Int::from_i64(0)));
            }
            return Ok(add(&terms));
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
    pub(super) fn last_valid(&mut self, l: LoopId, g: &Guard, upper: &Int, outer: &LoopValues) -> Enc<(Bool, Int)> {
        let (lo, hi) = self.valid(l, g, outer)?;
        let top = min(&hi, upper);
        let prev = sub(&top, &Int::from_i64(1));
        if let Some(residue) = g.residues.get(&l) {
            return Ok(residue.last_below(&lo, &top));
        }
        if !g.generic.contains_key(&l) {
            return Ok((ge(&prev, &lo), prev));
        }
        // Conditions of period `p`: when none of the last `p` values satisfies them, no
        // value does, so those are all that need looking at.
        let looked_at = match self.period_of(l, g) {
            Some(period) => period,
            None => {
                self.assume_bounded(l, &lo, &hi);
                ENUMERATED_ITERATIONS
            }
        };
        let mut value = Int::from_i64(0);
        let mut exists = Bool::from_bool(false);
        for d in (1..=looked_at).rev() {
            let j = sub(&top, &Int::from_i64(d));
            let ok = and(&[ge(&j, &lo), self.generic_at(l, g, &j)?]);
            value = ite(&ok, &j, &value);
            exists = or(&[exists, ok]);
        }
        Ok((exists, value))
    }

    /// The period of loop `l`'s conditions that are not intervals, when they have one of at
    /// most [`ENUMERATED_ITERATIONS`]: they hold at `v` exactly when they hold at `v + period`,
    /// for every `v` of the loop's range.
    pub(super) fn period_of(&mut self, l: LoopId, g: &Guard) -> Option<i64> {
        let conds = g.generic.get(&l)?.clone();
        conds.iter().try_fold(1, |p, cond| lcm_within(p, self.period(cond, l)?))
    }

    /// A period of `e` as a function of loop `l`'s variable (see [`Encoder::period_of`]): 1 for
    /// an expression that does not mention it, `m` for `(c * v + rest) % m` with a constant
    /// `m > 0` whose dividend never leaves its type in the loop's range (nor is negative, for
    /// a truncating modulo), and the least common multiple of its operands' periods for any
    /// other operator: a function of periodic values is periodic. `None`: not periodic, or not
    /// known to be (a value read from memory, a variable bound by `let`).
    pub(super) fn period(&mut self, e: &Expr, l: LoopId) -> Option<i64> {
        let var = self.model.loop_info(l).var.id();
        let mentioned = crate::waits::model::vars_of(e);
        if self.model.varies_with_data(e) || mentioned.iter().any(|v| self.model.data_vars.contains(v)) {
            return None;
        }
        if !mentioned.contains(&var) {
            return Some(1);
        }
        match e {
            Expr::Binary { op: op @ (BinOp::FloorMod | BinOp::TruncMod), lhs, rhs } => {
                let m = rhs.as_int().filter(|m| (1..=ENUMERATED_ITERATIONS).contains(m))?;
                let floor = *op == BinOp::FloorMod || self.ranges.value(lhs).is_some_and(|r| r.lo >= 0);
                let affine =
                    self.linear_exact(lhs) && self.linear(lhs).is_ok_and(|(coeffs, _)| coeffs.keys().all(|k| *k == l));
                (floor && affine).then_some(m)
            }
            // `c * v + rest` in two's complement of width `w` is `c * v + rest` modulo `2^w`:
            // of period `2^w / gcd(c, 2^w)` (`i * 1073741824` in int32: 4).
            Expr::Binary { op: BinOp::Add | BinOp::Sub | BinOp::Mul, .. } if !self.linear_exact(e) => {
                let (coeffs, _) = self.linear(e).ok()?;
                let &[(k, c)] = coeffs.iter().collect::<Vec<_>>().as_slice() else { return None };
                let bits = u32::from(e.dtype().bits);
                if *k != l || !(1..=64).contains(&bits) {
                    return None;
                }
                let twos = i128::from(*c).trailing_zeros().min(bits);
                let period = 1i128 << (bits - twos);
                i64::try_from(period).ok().filter(|p| *p <= ENUMERATED_ITERATIONS)
            }
            Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } | Expr::Logic { lhs, rhs, .. } => {
                lcm_within(self.period(lhs, l)?, self.period(rhs, l)?)
            }
            Expr::Not(inner) | Expr::Cast { value: inner, .. } => self.period(inner, l),
            Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false } => {
                let p = lcm_within(self.period(cond, l)?, self.period(on_true, l)?)?;
                lcm_within(p, self.period(on_false, l)?)
            }
            _ => None,
        }
    }

    /// `lhs op rhs` as a [`Residue`] of one loop variable: `op` is `==` or `!=`, one side is
    /// `x % m` and the other mentions no loop variable; `x` is `v + c` or `-v + c` for one
    /// loop variable `v` and never leaves its type, `m` mentions no loop variable (a constant
    /// or a parameter; one that may be 0 holds counterexamples to being not 0); a truncating
    /// modulo needs `x >= 0`. Nothing of it may read memory.
    fn residue(&mut self, op: CmpOp, lhs: &Expr, rhs: &Expr) -> Option<(LoopId, Residue)> {
        let equal = match op {
            CmpOp::Eq => true,
            CmpOp::Ne => false,
            _ => return None,
        };
        let is_mod = |e: &Expr| matches!(e, Expr::Binary { op: BinOp::FloorMod | BinOp::TruncMod, .. });
        let (modded, other) = if is_mod(lhs) { (lhs, rhs) } else { (rhs, lhs) };
        let Expr::Binary { op: kind, lhs: x, rhs: m } = modded else { return None };
        let loop_free = |enc: &Self, e: &Expr| {
            !enc.model.reads_data(e)
                && crate::waits::model::vars_of(e)
                    .iter()
                    .all(|v| enc.varying_loop(*v).is_none() && !enc.model.data_vars.contains(v))
        };
        if !loop_free(self, m) || !loop_free(self, other) || self.model.reads_data(x) || !self.linear_exact(x) {
            return None;
        }
        if *kind == BinOp::TruncMod && self.ranges.value(x).is_none_or(|r| r.lo < 0) {
            return None;
        }
        // A modulus that may be 0 traps where the condition is evaluated, and the program stops
        // there: "no value matches" covers the run up to the trap (a proof stands), but past
        // it describes runs that never happen, so counterexamples are held to a modulus that
        // is not 0 (`trap_free`).
        let may_be_zero = self.ranges.value(m).is_none_or(|r| r.lo <= 0 && r.hi >= 0);
        let (coeffs, rest) = self.linear(x).ok()?;
        let loops: Vec<(LoopId, i64)> = coeffs.into_iter().filter(|(_, c)| *c != 0).collect();
        let &[(l, sign)] = loops.as_slice() else { return None };
        if sign != 1 && sign != -1 {
            return None;
        }
        let mut none = None;
        let m_val = self.int_inner(m, &LoopValues::new(), &mut none).ok()?;
        let r_val = self.int_inner(other, &LoopValues::new(), &mut none).ok()?;
        let c_val = rest.unwrap_or_else(|| Int::from_i64(0));
        let zero = Int::from_i64(0);
        let modulus = ite(&ge(&m_val, &zero), &m_val, &neg(&m_val));
        // The remainders the modulo can give: `[0, m)` for a positive divisor (and for a
        // truncating modulo of a non-negative dividend by either sign), `(m, 0]` for a floor
        // modulo by a negative one; none by 0 (that traps).
        let positive_range = and(&[ge(&r_val, &zero), lt(&r_val, &modulus)]);
        let valid = match kind {
            BinOp::TruncMod => positive_range,
            _ => or(&[
                and(&[gt(&m_val, &zero), positive_range]),
                and(&[lt(&m_val, &zero), gt(&r_val, &m_val), le(&r_val, &zero)]),
            ]),
        };
        // `sign * v + c ≡ r (mod |m|)` exactly when `v + sign * (c - r) ≡ 0`.
        let diff = sub(&c_val, &r_val);
        let offset = if sign == 1 { diff } else { neg(&diff) };
        if may_be_zero {
            self.trap_free.push(not(&eq(&m_val, &zero)));
        }
        let cond = Expr::Cmp { op, lhs: Box::new(lhs.clone()), rhs: Box::new(rhs.clone()) };
        Some((l, Residue { offset, modulus, valid, equal, cond }))
    }

    /// `cond`, a condition of loop `l`'s variable and constants only, as one interval of the
    /// loop's range (`Some(None)`: it holds nowhere), evaluated with the program's wrapping
    /// ([`super::wrapped`]); `None` when it is not one interval or not of that form.
    fn wrapped_interval(&mut self, cond: &Expr, l: LoopId) -> Option<Option<Range>> {
        let var = self.model.loop_info(l).var.clone();
        let range = self.ranges.value(&Expr::Var(var.clone()))?;
        let set = super::wrapped::holds_on(cond, var.id(), (range.lo, range.hi))?;
        let bound = |v: i128| i64::try_from(v).ok().map(Int::from_i64);
        match set.as_slice() {
            [] => Some(None),
            [(lo, hi)] => Some(Some(Range { lo: Some(bound(*lo)?), hi: Some(bound(*hi + 1)?) })),
            _ => None,
        }
    }

    pub(super) fn assume_bounded(&mut self, l: LoopId, lo: &Int, hi: &Int) {
        let fits = le(&sub(hi, lo), &Int::from_i64(ENUMERATED_ITERATIONS));
        self.bounded.push((l, fits));
    }

    /// `lhs op rhs` as an interval of one loop variable, or as a loop-free fact.
    pub(super) fn comparison(&mut self, op: CmpOp, lhs: &Expr, rhs: &Expr, g: &mut Guard) -> Enc<()> {
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
    pub(super) fn linear_exact(&mut self, e: &Expr) -> bool {
        match e {
            // `x - v` where `v` is the variable of a loop over `[0, x)`: in `[1, x]`, whatever
            // the ranges of `x` and `v` alone allow (`range(n - i)` inside `range(n)`).
            Expr::Binary { op: BinOp::Sub, lhs, rhs } if self.counts_down_from(lhs, rhs) => self.linear_exact(lhs),
            Expr::Binary { op: BinOp::Add | BinOp::Sub | BinOp::Mul, lhs, rhs } => {
                let fits = ValueRange::of_type(e.dtype())
                    .is_none_or(|full| self.ranges.exact(e).is_some_and(|r| r.within(full)));
                fits && self.linear_exact(lhs) && self.linear_exact(rhs)
            }
            _ => true,
        }
    }

    /// Whether `v` is the variable of a loop of minimum 0 and extent `x`, so that `x - v` lies
    /// in `[1, x]` wherever `v` has a value.
    fn counts_down_from(&self, x: &Expr, v: &Expr) -> bool {
        let Expr::Var(var) = v else { return false };
        self.model.is_loop_var(var.id()).is_some_and(|l| {
            let info = self.model.loop_info(l);
            info.min.as_int() == Some(0) && info.extent == *x
        })
    }

    /// `e` as `sum(c_l * v_l) + rest`, where `rest` mentions no loop variable.
    pub(super) fn linear(&mut self, e: &Expr) -> Enc<(BTreeMap<LoopId, i64>, Option<Int>)> {
        match e {
            Expr::Var(v) if self.varying_loop(v.id()).is_some() => {
                let coeffs = self.varying_loop(v.id()).map(|l| (l, 1)).into_iter().collect();
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
                let mentions_loop = crate::waits::model::vars_of(other).iter().any(|v| self.varying_loop(*v).is_some());
                if mentions_loop {
                    return Err(Unsupported(format!("the non-affine expression {}", print_expr(other))));
                }
                Ok((BTreeMap::new(), Some(self.int(other, &LoopValues::new(), None)?)))
            }
        }
    }

    /// `[lo, hi)` of the iterations of loop `l` where `event`'s conditions on it hold.
    pub(super) fn valid(&mut self, l: LoopId, guard: &Guard, outer: &LoopValues) -> Enc<(Int, Int)> {
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
        Ok(self.holds_at_split(l, &guard, v))
    }

    /// [`Encoder::holds_at`] of a guard that may be split on a fact.
    fn holds_at_split(&mut self, l: LoopId, guard: &Guard, v: &Int) -> Bool {
        match &guard.split {
            Some(split) => {
                let (a, b) = (self.holds_at_split(l, &split.on_true, v), self.holds_at_split(l, &split.on_false, v));
                ite_bool(&split.fact, &a, &b)
            }
            None => self.holds_at(l, guard, v),
        }
    }

    /// Whether `event`'s conditions on loop `l` hold at value `v`.
    pub(super) fn holds_at(&mut self, l: LoopId, guard: &Guard, v: &Int) -> Bool {
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
}

/// An interval restriction `lo <= v < hi` of one loop variable, from a condition.
#[derive(Clone)]
pub(super) struct Range {
    pub(super) lo: Option<Int>,
    pub(super) hi: Option<Int>,
}

/// The conditions of an event split into per-loop intervals, loop-free facts, and other
/// conditions of one loop variable (counted by enumeration, for a bounded number of
/// iterations).
#[derive(Clone, Default)]
pub(super) struct Guard {
    pub(super) ranges: BTreeMap<LoopId, Vec<Range>>,
    pub(super) facts: Vec<Bool>,
    pub(super) generic: BTreeMap<LoopId, Vec<Expr>>,
    /// At most one residue condition per loop that has no `generic` ones, counted in closed
    /// form for every extent.
    pub(super) residues: BTreeMap<LoopId, Residue>,
    /// Some condition depends on data and is left out of the others: the instances they
    /// allow are those that may run, and an execution runs any subset of them.
    pub(super) data: bool,
    /// The conditions split on a fact (see [`Encoder::guard_of`]); the other fields are then
    /// empty.
    pub(super) split: Option<Box<Split>>,
}

/// A guard that is `on_true` where `fact` holds and `on_false` elsewhere.
#[derive(Clone)]
pub(super) struct Split {
    pub(super) fact: Bool,
    pub(super) on_true: Guard,
    pub(super) on_false: Guard,
}

impl Guard {
    /// Whether some case of the guard depends on data.
    pub(super) fn has_data(&self) -> bool {
        self.data || self.split.as_ref().is_some_and(|s| s.on_true.has_data() || s.on_false.has_data())
    }
}

/// Calls `visit` on the boolean parts of `cond` that a guard cannot split into conjuncts, outermost first:
/// the operands of a disjunction or of a negated conjunction, and the condition and arms of
/// a choice.
fn each_boolean_part(cond: &Expr, visit: &mut impl FnMut(&Expr)) {
    match cond {
        Expr::Logic { lhs, rhs, .. } => {
            for side in [lhs, rhs] {
                visit(side);
                each_boolean_part(side, visit);
            }
        }
        Expr::Binary { op: BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor, lhs, rhs } if cond.dtype().is_bool() => {
            for side in [lhs, rhs] {
                visit(side);
                each_boolean_part(side, visit);
            }
        }
        Expr::Not(inner) => {
            visit(inner);
            each_boolean_part(inner, visit);
        }
        Expr::Select { cond: c, on_true, on_false } | Expr::IfThenElse { cond: c, on_true, on_false } => {
            for part in [c, on_true, on_false] {
                visit(part);
                each_boolean_part(part, visit);
            }
        }
        _ => {}
    }
}

/// `cond` with every occurrence of `atom` replaced by `value`, and the logic around it
/// decided where it can be: `true or x` is `true`, `false or x` is `x`, a choice on a
/// constant is its arm (for `T.Select`, which evaluates both arms, only when the arm it
/// drops cannot trap).
fn assume(cond: &Expr, atom: &Expr, value: bool) -> Expr {
    if cond == atom {
        return Expr::bool(value);
    }
    let constant = |e: &Expr| if e.dtype().is_bool() { e.as_int().map(|v| v != 0) } else { None };
    match cond {
        Expr::Logic { op, lhs, rhs } => {
            let (a, b) = (assume(lhs, atom, value), assume(rhs, atom, value));
            match (op, constant(&a), constant(&b)) {
                (LogicOp::And, Some(false), _) | (LogicOp::And, _, Some(false)) => Expr::bool(false),
                (LogicOp::Or, Some(true), _) | (LogicOp::Or, _, Some(true)) => Expr::bool(true),
                (LogicOp::And, Some(true), _) | (LogicOp::Or, Some(false), _) => b,
                (LogicOp::And, _, Some(true)) | (LogicOp::Or, _, Some(false)) => a,
                _ => Expr::Logic { op: *op, lhs: Box::new(a), rhs: Box::new(b) },
            }
        }
        Expr::Not(inner) => {
            let a = assume(inner, atom, value);
            match constant(&a) {
                Some(v) => Expr::bool(!v),
                None => Expr::Not(Box::new(a)),
            }
        }
        Expr::Select { cond: c, on_true, on_false } | Expr::IfThenElse { cond: c, on_true, on_false } => {
            let lazy = matches!(cond, Expr::IfThenElse { .. });
            let (c, t, f) = (assume(c, atom, value), assume(on_true, atom, value), assume(on_false, atom, value));
            match constant(&c) {
                Some(true) if lazy || !may_trap(&f) => t,
                Some(false) if lazy || !may_trap(&t) => f,
                _ if lazy => Expr::IfThenElse { cond: Box::new(c), on_true: Box::new(t), on_false: Box::new(f) },
                _ => Expr::Select { cond: Box::new(c), on_true: Box::new(t), on_false: Box::new(f) },
            }
        }
        other => other.clone(),
    }
}

/// `a` where `c` holds, else `b`.
pub(crate) fn ite_bool(c: &Bool, a: &Bool, b: &Bool) -> Bool {
    or(&[and(&[c.clone(), a.clone()]), and(&[not(c), b.clone()])])
}

/// Whether evaluating `e` may trap: an operator that may fault (the one test CSE uses), or a
/// read of memory (an index out of bounds) or anything else CSE would not move.
fn may_trap(e: &Expr) -> bool {
    tirproof_passes::cse::eligible::may_trap(e) || !tirproof_passes::cse::eligible::is_clean(e)
}

/// A condition `v + offset ≡ 0 (mod modulus)` on a loop variable `v` (or its negation when
/// not `equal`), from `x % m == r` or `!=` (see [`Encoder::residue`]); `valid` says whether `r`
/// is a remainder the modulo can give at all, and is false when `m` is 0. Its counts and last
/// values are closed forms in integer division, exact for every extent and every modulus,
/// constant or not.
#[derive(Clone)]
pub(super) struct Residue {
    offset: Int,
    modulus: Int,
    valid: Bool,
    equal: bool,
    /// The condition as written, kept whole when a loop has more than one.
    cond: Expr,
}

impl Residue {
    /// Whether `v + offset ≡ 0 (mod modulus)`, `r` being a possible remainder.
    fn congruent(&self, v: &Int) -> Bool {
        and(&[
            self.valid.clone(),
            eq(&modulo(&add(&[v.clone(), self.offset.clone()]), &self.modulus), &Int::from_i64(0)),
        ])
    }

    fn holds_at(&self, v: &Int) -> Bool {
        let congruent = self.congruent(v);
        if self.equal {
            congruent
        } else {
            not(&congruent)
        }
    }

    /// How many values of `[lo, top)` satisfy the condition: the congruent ones are
    /// `floor((top - 1 + offset) / M) - floor((lo - 1 + offset) / M)`.
    fn count(&self, lo: &Int, top: &Int) -> Int {
        let one = Int::from_i64(1);
        let below = |t: &Int| div(&add(&[sub(t, &one), self.offset.clone()]), &self.modulus);
        let congruent = ite(&gt(top, lo), &sub(&below(top), &below(lo)), &Int::from_i64(0));
        let congruent = ite(&self.valid, &congruent, &Int::from_i64(0));
        if self.equal {
            congruent
        } else {
            sub(&size(lo, top), &congruent)
        }
    }

    /// The largest value of `[lo, top)` that satisfies the condition, and whether there is one.
    fn last_below(&self, lo: &Int, top: &Int) -> (Bool, Int) {
        let prev = sub(top, &Int::from_i64(1));
        let behind = modulo(&add(&[prev.clone(), self.offset.clone()]), &self.modulus);
        if self.equal {
            let last = sub(&prev, &behind);
            (and(&[self.valid.clone(), ge(&last, lo)]), last)
        } else {
            // The value before a congruent one is not congruent, unless every value is.
            let prev_congruent = and(&[self.valid.clone(), eq(&behind, &Int::from_i64(0))]);
            let last = ite(&prev_congruent, &sub(&prev, &Int::from_i64(1)), &prev);
            let all_congruent = and(&[self.valid.clone(), eq(&self.modulus, &Int::from_i64(1))]);
            (and(&[ge(&last, lo), not(&all_congruent)]), last)
        }
    }
}

/// The least common multiple of two periods, when it is at most [`ENUMERATED_ITERATIONS`].
fn lcm_within(a: i64, b: i64) -> Option<i64> {
    let gcd = |mut x: i64, mut y: i64| {
        while y != 0 {
            (x, y) = (y, x % y);
        }
        x
    };
    let lcm = a / gcd(a, b) * b;
    (lcm <= ENUMERATED_ITERATIONS).then_some(lcm)
}

/// `max(0, hi - lo)`.
pub(super) fn size(lo: &Int, hi: &Int) -> Int {
    max(&Int::from_i64(0), &sub(hi, lo))
}

pub(super) fn negate(op: CmpOp) -> CmpOp {
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
pub(super) fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}
