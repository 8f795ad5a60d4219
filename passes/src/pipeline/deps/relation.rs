//! Index relations: in which iterations two accesses can touch the same element (see the
//! parent module's docs for the cases), from their index tuples.
//!
//! Each index is read through its form ([`IndexForm`]: affine in the loop variable, a scaled
//! residue, or neither), derived from its linear form once: an access's [`Index`] keeps it
//! for every pair of accesses it is related with. A form depends on the let-bound values and
//! inner loops of the [`IndexRelation`] that computed it, so an access's indices are related
//! by one `IndexRelation` only (the one of its loop, built after every access is collected).

use std::cell::OnceCell;
use std::collections::BTreeSet;

use tirproof_ir::expr::Expr;
use tirproof_ir::index_arith::{const_int, gcd, linear_form};
use tirproof_ir::structural::IdMap;
use tirproof_ir::visit::{walk_expr, Visitor};
use tirproof_ir::{BinOp, Var, VarId};

/// Which iterations of two accesses can touch the same element: the second access in
/// iteration `i + d` touches what the first touches in iteration `i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Relation {
    /// Only at these distances (for a periodic relation, the nearest ones in each direction,
    /// which are the hardest to order); empty: never the same element.
    Distances(BTreeSet<i64>),
    /// Possibly at every distance.
    Every,
}

impl Relation {
    pub(super) fn is_disjoint(&self) -> bool {
        matches!(self, Relation::Distances(d) if d.is_empty())
    }
}

/// What one index dimension tells about the distances.
pub(super) enum DimRelation {
    /// Exactly these distances.
    Exact(BTreeSet<i64>),
    /// A periodic set, summarized by its nearest distances.
    Nearest(BTreeSet<i64>),
    /// Nothing.
    Unknown,
}

/// The dependence test on index tuples: affine in the loop variable or not.
pub(super) struct IndexRelation<'a> {
    pub(super) loop_var: &'a Var,
    /// Values of the variables bound in the loop body, to see through them.
    pub(super) lets: &'a IdMap<VarId, Expr>,
    /// Variables of loops inside the pipelined loop, with their ranges (inclusive) when
    /// constant: two iterations may give them different values, so they never cancel.
    pub(super) inner: &'a IdMap<VarId, Option<(i64, i64)>>,
    /// The pipelined loop's iterations (first and last, inclusive) when its bounds are
    /// constant: two accesses can only meet at distances shorter than the loop, and indices
    /// whose values over it never overlap never meet.
    pub(super) iterations: Option<(i64, i64)>,
}

/// One index of an access (one dimension), with its form once the dependence test has
/// computed it.
#[derive(Clone, Debug)]
pub(super) struct Index {
    pub(super) expr: Expr,
    form: OnceCell<IndexForm>,
}

impl Index {
    pub(super) fn new(expr: Expr) -> Index {
        Index { expr, form: OnceCell::new() }
    }

    fn operand(&self) -> Operand<'_> {
        Operand { expr: &self.expr, form: &self.form }
    }
}

/// Indices are equal when their expressions are: the form follows from the expression.
impl PartialEq for Index {
    fn eq(&self, other: &Index) -> bool {
        self.expr == other.expr
    }
}

/// An index expression (an access's index or a part of one) and where its form is kept.
#[derive(Clone, Copy)]
pub(super) struct Operand<'e> {
    expr: &'e Expr,
    form: &'e OnceCell<IndexForm>,
}

/// An index as the dependence test reads it, from its linear form. `uniform` are terms with
/// one value in every iteration of the pipelined loop and its inner loops (no load, no loop
/// variable), each term once, in no particular order.
#[derive(Clone, Debug)]
pub(super) enum IndexForm {
    /// Affine in the loop variable (see [`AffineIndex`]).
    Affine(AffineIndex),
    /// One residue of something that varies, scaled (see [`ScaledResidue`]).
    Residue(ScaledResidue),
    /// Neither: a load, an inner variable in a product or without a constant range, several
    /// residues or a residue next to a loop variable, an overflowing coefficient.
    Other,
}

/// Whether the uniform parts of `a` and `b` are multiples of a power of two `g` wider than
/// the values their residue parts `scale * r + offset` (`r` in `[0, modulus)`) take together.
pub(super) fn separate_rows(a: &ScaledResidue, b: &ScaledResidue) -> bool {
    let g = a.uniform.iter().chain(&b.uniform).fold(0u64, |g, (_, c)| gcd(g, c.unsigned_abs()));
    if g < 2 || !g.is_power_of_two() {
        return false;
    }
    let values = |r: &ScaledResidue| {
        let (x, y) = (i128::from(r.offset), i128::from(r.offset) + i128::from(r.scale) * i128::from(r.modulus - 1));
        (x.min(y), x.max(y))
    };
    let ((a_lo, a_hi), (b_lo, b_hi)) = (values(a), values(b));
    a_hi.max(b_hi) - a_lo.min(b_lo) < i128::from(g)
}

/// Whether two uniform parts are one sum: the same terms with the same coefficients, in any
/// order (each lists a term once, so matching each term of `b` in `a` is a bijection).
pub(super) fn same_uniform(a: &[(Expr, i64)], b: &[(Expr, i64)]) -> bool {
    a.len() == b.len() && b.iter().all(|(term, c)| a.iter().any(|(t, k)| t == term && k == c))
}

/// An index `scale * (residue_of % modulus) + offset + uniform`, computed in `width` bits;
/// `residue_of` depends on the iteration.
#[derive(Clone, Debug)]
pub(super) struct ScaledResidue {
    pub(super) scale: i64,
    /// Boxed: its form is kept with it, and may be a residue again.
    pub(super) residue_of: Box<Index>,
    pub(super) modulus: i64,
    pub(super) offset: i64,
    pub(super) uniform: Vec<(Expr, i64)>,
    pub(super) width: u16,
}

/// An index as `loop_coefficient * loop_var + constant + uniform + inner`: `inner` ranges over
/// the values the inner loop variables' terms take together.
#[derive(Clone, Debug)]
pub(super) struct AffineIndex {
    pub(super) loop_coefficient: i64,
    pub(super) constant: i64,
    pub(super) uniform: Vec<(Expr, i64)>,
    pub(super) inner: (i64, i64),
}

/// `e` as `x * f` or `x + f` with a constant `f` on either side: the operator, `x` and `f`.
pub(super) fn constant_operand(e: &Expr) -> Option<(BinOp, &Expr, i64)> {
    let Expr::Binary { op: op @ (BinOp::Mul | BinOp::Add), lhs, rhs } = e else { return None };
    match (const_int(lhs), const_int(rhs)) {
        (_, Some(f)) => Some((*op, &**lhs, f)),
        (Some(f), None) => Some((*op, &**rhs, f)),
        (None, None) => None,
    }
}

/// At most this many candidate element offsets are enumerated per dimension; beyond, the
/// relation is unknown (every distance).
pub(super) const MAX_SHIFTS: i64 = 4096;

impl IndexRelation<'_> {
    pub(super) fn relate(&self, first: &[Index], second: &[Index]) -> Relation {
        if first.len() != second.len() {
            return Relation::Every;
        }
        let mut exact: Option<BTreeSet<i64>> = None;
        let mut nearest = None;
        for (a, b) in first.iter().zip(second) {
            match self.dimension(a.operand(), b.operand()) {
                DimRelation::Exact(set) => {
                    let both = match exact.take() {
                        Some(before) => before.intersection(&set).copied().collect(),
                        None => set,
                    };
                    exact = Some(both);
                }
                DimRelation::Nearest(set) => nearest = nearest.or(Some(set)),
                DimRelation::Unknown => {}
            }
        }
        let Some(mut distances) = exact.or(nearest) else { return Relation::Every };
        if let Some((first, last)) = self.iterations {
            let longest = last.saturating_sub(first);
            distances.retain(|d| d.unsigned_abs() <= longest.unsigned_abs());
        }
        Relation::Distances(distances)
    }

    /// The form of `e`, computed on first use and kept where `e` keeps it.
    fn form_of<'e>(&self, e: Operand<'e>) -> &'e IndexForm {
        e.form.get_or_init(|| self.form(e.expr).unwrap_or(IndexForm::Other))
    }

    pub(super) fn dimension(&self, a: Operand<'_>, b: Operand<'_>) -> DimRelation {
        // Parts of `a` and `b` have no access keeping their forms: they are computed here.
        let (part_a, part_b) = (OnceCell::new(), OnceCell::new());
        match (a.expr, b.expr) {
            (
                Expr::Ramp { base: base_a, stride: stride_a, lanes: lanes_a },
                Expr::Ramp { base: base_b, stride: stride_b, lanes: lanes_b },
            ) if stride_a == stride_b && lanes_a == lanes_b => {
                let Some(stride) = const_int(stride_a) else { return DimRelation::Unknown };
                let spread = i64::from(*lanes_a) - 1;
                let (base_a, base_b) =
                    (Operand { expr: base_a, form: &part_a }, Operand { expr: base_b, form: &part_b });
                self.affine(base_a, base_b, (-spread * stride.abs(), spread * stride.abs()))
            }
            (
                Expr::Binary { op: BinOp::FloorMod, lhs: x, rhs: m },
                Expr::Binary { op: BinOp::FloorMod, lhs: y, rhs: m2 },
            ) if m == m2 => self.periodic(Operand { expr: x, form: &part_a }, Operand { expr: y, form: &part_b }, m, 0),
            _ if let (IndexForm::Residue(x), IndexForm::Residue(y)) = (self.form_of(a), self.form_of(b)) => {
                self.scaled_residues(x, y)
            }
            _ => match (constant_operand(a.expr), constant_operand(b.expr)) {
                // `x * f` and `y * f` (or `x + f`, `y + f`) with one constant `f`, not zero:
                // equal exactly when `x` and `y` are.
                (Some((op, x, f)), Some((op2, y, f2))) if op == op2 && f == f2 && (f != 0 || op == BinOp::Add) => {
                    match self.dimension(Operand { expr: x, form: &part_a }, Operand { expr: y, form: &part_b }) {
                        DimRelation::Unknown => self.affine(a, b, (0, 0)),
                        known => known,
                    }
                }
                _ => self.affine(a, b, (0, 0)),
            },
        }
    }

    /// `e` as an affine index or a scaled residue, or `None` when it is neither: it depends
    /// on the loop variable otherwise, or on something no linear form describes (a load, an
    /// inner variable in a product).
    ///
    /// A term that is a loop or inner variable rules out a scaled residue, a residue that
    /// varies rules out an affine index, and both take the terms with one value in every
    /// iteration as their uniform part: one walk over the linear form finds either.
    pub(super) fn form(&self, e: &Expr) -> Option<IndexForm> {
        let (terms, constant) = linear_form(e, self.lets)?;
        let (mut loop_coefficient, mut inner) = (0i64, (0i64, 0i64));
        let mut moves = false;
        let mut residue = None;
        let mut uniform = Vec::new();
        for (term, c) in terms {
            match &term {
                Expr::Var(v) if v == self.loop_var => {
                    moves = true;
                    loop_coefficient = loop_coefficient.checked_add(c)?;
                }
                Expr::Var(v) if self.inner.contains_key(&v.id()) => {
                    moves = true;
                    let (lo, hi) = self.inner[&v.id()]?;
                    let (x, y) = (lo.checked_mul(c)?, hi.checked_mul(c)?);
                    inner = (inner.0.checked_add(x.min(y))?, inner.1.checked_add(x.max(y))?);
                }
                Expr::Binary { op: BinOp::FloorMod, lhs: x, rhs: m } if !self.uniform(&term) => {
                    if residue.is_some() {
                        return None;
                    }
                    residue = Some(((**x).clone(), const_int(m).filter(|m| *m >= 1)?, c));
                }
                _ if self.uniform(&term) => uniform.push((term, c)),
                _ => return None,
            }
        }
        Some(match residue {
            None => IndexForm::Affine(AffineIndex { loop_coefficient, constant, uniform, inner }),
            Some(_) if moves => return None,
            Some((residue_of, modulus, scale)) => IndexForm::Residue(ScaledResidue {
                scale,
                residue_of: Box::new(Index::new(residue_of)),
                modulus,
                offset: constant,
                uniform,
                width: e.dtype().bits,
            }),
        })
    }

    /// Whether `e` has one value in every iteration of the pipelined loop and its inner loops.
    pub(super) fn uniform(&self, e: &Expr) -> bool {
        struct Uniform<'r, 'a>(&'r IndexRelation<'a>, bool);
        impl Visitor for Uniform<'_, '_> {
            fn visit_expr(&mut self, e: &Expr) {
                match e {
                    Expr::Load(_) | Expr::Call(_) => self.1 = false,
                    Expr::Var(v) if v == self.0.loop_var || self.0.inner.contains_key(&v.id()) => self.1 = false,
                    Expr::Var(v) => {
                        if let Some(value) = self.0.lets.get(&v.id()) {
                            self.visit_expr(value);
                        }
                    }
                    _ => {}
                }
                walk_expr(self, e);
            }
        }
        let mut check = Uniform(self, true);
        check.visit_expr(e);
        check.1
    }

    /// The loop coefficient `c` and the offsets `k` (an inclusive range) such that `a` in
    /// iteration `i` and `b` in iteration `i + d` touch one element exactly when `c * d` is one
    /// of them; `widen` adds the spread of the lanes of a ramp. `None` unless both are affine
    /// with one loop coefficient and one uniform part.
    pub(super) fn offsets(&self, a: Operand<'_>, b: Operand<'_>, widen: (i64, i64)) -> Option<(i64, (i64, i64))> {
        let (IndexForm::Affine(x), IndexForm::Affine(y)) = (self.form_of(a), self.form_of(b)) else { return None };
        if x.loop_coefficient != y.loop_coefficient || !same_uniform(&x.uniform, &y.uniform) {
            return None;
        }
        // a(i) = c*i + ka + A, b(i+d) = c*(i+d) + kb + B: equal when c*d = ka - kb + A - B.
        let k = x.constant.checked_sub(y.constant)?;
        let lo = k.checked_add(x.inner.0)?.checked_sub(y.inner.1)?.checked_add(widen.0)?;
        let hi = k.checked_add(x.inner.1)?.checked_sub(y.inner.0)?.checked_add(widen.1)?;
        (hi.checked_sub(lo)? < MAX_SHIFTS).then_some((x.loop_coefficient, (lo, hi)))
    }

    /// Affine `a` against `b`; `widen` adds the spread of a ramp's lanes.
    pub(super) fn affine(&self, a: Operand<'_>, b: Operand<'_>, widen: (i64, i64)) -> DimRelation {
        let Some((c, (lo, hi))) = self.offsets(a, b, widen) else {
            return if self.never_overlap(a, b, widen) {
                DimRelation::Exact(BTreeSet::new())
            } else {
                DimRelation::Unknown
            };
        };
        let mut distances = BTreeSet::new();
        for k in lo..=hi {
            if c == 0 && k == 0 {
                // Loop-invariant and overlapping: the same element in every iteration.
                return DimRelation::Unknown;
            }
            if c != 0 && k % c == 0 {
                distances.insert(k / c);
            }
        }
        DimRelation::Exact(distances)
    }

    /// Whether the values `a` and `b` take over the whole loop (their inner loops included)
    /// lie in disjoint intervals, all in their type's range (so nothing wraps): then no two
    /// iterations touch one element, whatever their distance. `widen` is a ramp's spread.
    pub(super) fn never_overlap(&self, a: Operand<'_>, b: Operand<'_>, widen: (i64, i64)) -> bool {
        let Some((first, last)) = self.iterations else { return false };
        let values = |e: Operand<'_>| -> Option<(i128, i128)> {
            let IndexForm::Affine(index) = self.form_of(e) else { return None };
            let dtype = e.expr.dtype();
            if !index.uniform.is_empty() || !dtype.is_integer() {
                return None;
            }
            let c = i128::from(index.loop_coefficient);
            let (x, y) = (c * i128::from(first), c * i128::from(last));
            let k = i128::from(index.constant);
            let (lo, hi) = (x.min(y) + k + i128::from(index.inner.0), x.max(y) + k + i128::from(index.inner.1));
            let half = 1i128 << (dtype.bits.clamp(1, 64) - 1);
            (lo >= -half && hi < half).then_some((lo, hi))
        };
        let (Some((a_lo, a_hi)), Some((b_lo, b_hi))) = (values(a), values(b)) else { return false };
        // `a` touches `a + widen.0 ..= a + widen.1` relative to `b`'s lanes: widen `a`'s range.
        let (a_lo, a_hi) = (a_lo + i128::from(widen.0.min(0)), a_hi + i128::from(widen.1.max(0)));
        a_hi < b_lo || b_hi < a_lo
    }

    /// `f * (x % m) + k + U` against `f * (y % m) + l + U`: one element when the residues
    /// differ by `q = (l - k) / f`, never when `f` does not divide `l - k` or `|q| >= m`,
    /// else at the distances where `x - y = q (mod m)`. Different scales, moduli or uniform
    /// parts: unknown. Wrapping changes nothing while `|f| * (m - 1) + |l - k|` stays below
    /// `2^(w-1)`: the two indices are then equal modulo `2^w` exactly when they are equal.
    ///
    /// Different uniform parts (`tx * 8` against `(tx + 1) % 5 * 8`: another thread's row)
    /// whose coefficients share a power-of-two factor `g` wider than both residue parts'
    /// values: the indices are then equal only where the uniform parts are equal and the
    /// residue parts too (their difference is a multiple of `g`, also modulo `2^w`), so the
    /// residue parts decide the distances, as if the uniform parts were one.
    pub(super) fn scaled_residues(&self, a: &ScaledResidue, b: &ScaledResidue) -> DimRelation {
        if a.scale != b.scale || a.modulus != b.modulus || a.scale == 0 {
            return DimRelation::Unknown;
        }
        if !same_uniform(&a.uniform, &b.uniform) && !separate_rows(a, b) {
            return DimRelation::Unknown;
        }
        let Some(gap) = b.offset.checked_sub(a.offset) else { return DimRelation::Unknown };
        let spread = i128::from(a.scale).abs() * i128::from(a.modulus - 1) + i128::from(gap).abs();
        if spread >= 1i128 << (a.width.clamp(1, 64) - 1) {
            return DimRelation::Unknown;
        }
        if gap % a.scale != 0 || (gap / a.scale).abs() >= a.modulus {
            return DimRelation::Exact(BTreeSet::new());
        }
        self.periodic(a.residue_of.operand(), b.residue_of.operand(), &Expr::int(a.modulus), gap / a.scale)
    }

    /// `x % m` against `y % m` whose residues differ by `shift`: the distances `d` with
    /// `c * d = x - y - shift (mod m)`.
    pub(super) fn periodic(&self, x: Operand<'_>, y: Operand<'_>, m: &Expr, shift: i64) -> DimRelation {
        let (Some(m), Some((c, (lo, hi)))) = (const_int(m), self.offsets(x, y, (0, 0))) else {
            return DimRelation::Unknown;
        };
        let (Some(lo), Some(hi)) = (lo.checked_sub(shift), hi.checked_sub(shift)) else { return DimRelation::Unknown };
        if !(1..=1 << 16).contains(&m) || hi - lo + 1 >= m {
            return DimRelation::Unknown;
        }
        if c.rem_euclid(m) == 0 {
            // The same residue in every iteration: always or never the same element.
            let never = (lo..=hi).all(|k| k.rem_euclid(m) != 0);
            return if never { DimRelation::Exact(BTreeSet::new()) } else { DimRelation::Unknown };
        }
        let mut nearest = BTreeSet::new();
        for k in lo..=hi {
            let Some(first) = (0..m).find(|d| (c * d - k).rem_euclid(m) == 0) else { continue };
            let period = (first + 1..=first + m).find(|d| (c * d - k).rem_euclid(m) == 0).unwrap_or(first + m) - first;
            nearest.extend(if first == 0 { vec![0, period, -period] } else { vec![first, first - period] });
        }
        if nearest.is_empty() {
            return DimRelation::Exact(nearest);
        }
        DimRelation::Nearest(nearest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::DataType;

    fn relation(a: &Expr, b: &Expr, i: &Var, inner: &[(&Var, Option<(i64, i64)>)]) -> Relation {
        relation_over(a, b, i, inner, None)
    }

    fn relation_over(
        a: &Expr,
        b: &Expr,
        i: &Var,
        inner: &[(&Var, Option<(i64, i64)>)],
        iterations: Option<(i64, i64)>,
    ) -> Relation {
        let lets = IdMap::default();
        let inner: IdMap<VarId, Option<(i64, i64)>> = inner.iter().map(|(v, r)| (v.id(), *r)).collect();
        IndexRelation { loop_var: i, lets: &lets, inner: &inner, iterations }
            .relate(&[Index::new(a.clone())], &[Index::new(b.clone())])
    }

    #[test]
    fn scaled_residues_meet_only_where_their_offsets_allow() {
        let i = Var::new("i", DataType::INT32);
        let slot = |shift: i64, offset: i64| {
            Expr::floormod(Expr::var(&i) + Expr::int(shift), Expr::int(4)) * Expr::int(2) + Expr::int(offset)
        };
        // `i % 4 * 2` and `i % 4 * 2 + 1`: even and odd elements, never one.
        assert_eq!(relation(&slot(0, 0), &slot(0, 1), &i, &[]), distances(&[]));
        // Residues two apart (`+ 4`) meet where the second's iteration is two behind (mod 4).
        assert_eq!(relation(&slot(0, 4), &slot(0, 0), &i, &[]), distances(&[2, -2]));
        // `(i + 1) % 4 * 2` in iteration `i - 1` (or `i + 3`) is what `i % 4 * 2` is in `i`.
        assert_eq!(relation(&slot(0, 0), &slot(1, 0), &i, &[]), distances(&[-1, 3]));
        // Residues that can never be 4 apart, and scales that differ: never, and unknown.
        assert_eq!(relation(&slot(0, 0), &slot(0, 8), &i, &[]), distances(&[]));
        let tripled = Expr::floormod(Expr::var(&i), Expr::int(4)) * Expr::int(3);
        assert_eq!(relation(&slot(0, 0), &tripled, &i, &[]), Relation::Every);
        // A term with one value in every iteration (`tx * 8`) on both sides cancels.
        let tx = Var::new("tx", DataType::INT32);
        let row = |shift: i64, offset: i64| Expr::var(&tx) * Expr::int(8) + slot(shift, offset);
        assert_eq!(relation(&row(0, 0), &row(0, 1), &i, &[]), distances(&[]));
        assert_eq!(relation(&row(0, 0), &row(1, 0), &i, &[]), distances(&[-1, 3]));
        // On one side only: even against odd never meet; a row 8 apart may be `tx`'s row.
        assert_eq!(relation(&row(0, 0), &slot(0, 1), &i, &[]), distances(&[]));
        assert_eq!(relation(&row(0, 0), &slot(0, 8), &i, &[]), Relation::Every);
        // Another thread's row (`(tx + 1) % 5 * 8`) meets this one's only where the slots do.
        let neighbour =
            |shift: i64| Expr::floormod(Expr::var(&tx) + Expr::int(1), Expr::int(5)) * Expr::int(8) + slot(shift, 0);
        assert_eq!(relation(&row(0, 0), &neighbour(1), &i, &[]), distances(&[-1, 3]));
        // Rows 6 apart are not wider than the slots (up to 6): unknown.
        let narrow = Expr::var(&tx) * Expr::int(6) + slot(0, 0);
        assert_eq!(relation(&narrow, &neighbour(1), &i, &[]), Relation::Every);
        // Offsets so far apart that the indices could wrap onto each other: unknown.
        assert_eq!(relation(&slot(0, 0), &slot(0, 1 << 31), &i, &[]), Relation::Every);
    }

    #[test]
    fn a_loop_of_constant_extent_bounds_the_distances() {
        let i = Var::new("i", DataType::INT32);
        let shifted = |k: i64| Expr::var(&i) + Expr::int(k);
        // `B[i]` and `B[i + 5]` meet five iterations apart: not within `range(3)`.
        assert_eq!(relation_over(&shifted(0), &shifted(5), &i, &[], Some((0, 2))), distances(&[]));
        assert_eq!(relation_over(&shifted(0), &shifted(2), &i, &[], Some((0, 2))), distances(&[-2]));
        // `B[1]` and `B[i]`: never while `i` stays in `range(1)`, at some distance in `range(3)`.
        let one = Expr::int(1);
        assert_eq!(relation_over(&one, &Expr::var(&i), &i, &[], Some((0, 0))), distances(&[]));
        assert_eq!(relation_over(&one, &Expr::var(&i), &i, &[], Some((0, 2))), Relation::Every);
        // A range whose values would wrap proves nothing.
        let huge = Expr::var(&i) * Expr::int(1 << 30);
        assert_eq!(relation_over(&one, &huge, &i, &[], Some((2, 4))), Relation::Every);
    }

    fn distances(set: &[i64]) -> Relation {
        Relation::Distances(set.iter().copied().collect())
    }

    #[test]
    fn an_inner_loop_variable_takes_different_values_in_two_iterations() {
        let (i, j) = (Var::new("i", DataType::INT32), Var::new("j", DataType::INT32));
        let index = Expr::var(&i) + Expr::var(&j);
        // `B[i + j]`, j in 0..2: iteration i + 1 (j = 0) rewrites what iteration i wrote (j = 1).
        assert_eq!(relation(&index, &index, &i, &[(&j, Some((0, 1)))]), distances(&[-1, 0, 1]));
        // `B[i * 2 + j]`: the rows never meet across iterations.
        let row = Expr::var(&i) * Expr::int(2) + Expr::var(&j);
        assert_eq!(relation(&row, &row, &i, &[(&j, Some((0, 1)))]), distances(&[0]));
        // Without a constant range nothing is known.
        assert_eq!(relation(&index, &index, &i, &[(&j, None)]), Relation::Every);
    }

    #[test]
    fn a_scaled_periodic_index_keeps_its_period() {
        let i = Var::new("i", DataType::INT32);
        let scaled = Expr::floormod(Expr::var(&i), Expr::int(4)) * Expr::int(2);
        assert_eq!(relation(&scaled, &scaled, &i, &[]), distances(&[-4, 0, 4]));
        let shifted = scaled.clone() + Expr::int(1);
        assert_eq!(relation(&shifted, &shifted, &i, &[]), distances(&[-4, 0, 4]));
    }

    #[test]
    fn a_loaded_index_is_not_the_same_in_every_iteration() {
        let i = Var::new("i", DataType::INT32);
        let table = tirproof_ir::BufferSpec::new("Idx", DataType::INT32, vec![Expr::int(4)], "global").build();
        let index = Expr::var(&i) + Expr::load(&table, vec![Expr::int(0)]);
        assert_eq!(relation(&index, &index, &i, &[]), Relation::Every);
    }
}
