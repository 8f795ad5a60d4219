//! Index arithmetic over integer expressions, on top of [`int_arith`]'s values: building `+`
//! and `*` of index expressions with the folding that keeps emitted indices readable (`x + 0`,
//! `1 * x`, constants), in the operands' own integer type (the lowering passes: flattening,
//! vectorization, vector-type rewrite); and the affine test (`a * var + uniform`) that the
//! pipeline pass's dependence checks and the verifier's loop bounds use to tell iterations
//! apart.
//!
//! Invariants: folding is exact (two's-complement wrap in the type's width, int32 and int64
//! only; other widths are never folded); an operand is only dropped (`x * 0`) when it can
//! neither trap nor load, so every trap and access of an index is still evaluated; both operands of a built node
//! have one type (the caller converts with `convert`).

use std::collections::HashMap;
use std::hash::BuildHasher;

use crate::int_arith;
use crate::visit::{walk_expr, Visitor};
use crate::{BinOp, DataType, Expr, Var, VarId};

/// The value of an integer immediate (not bool).
pub fn const_int(e: &Expr) -> Option<i64> {
    match e {
        Expr::Int { value, dtype } if dtype.is_integer() && dtype.is_scalar() => Some(*value),
        _ => None,
    }
}

/// An immediate of `dtype`.
pub fn imm(value: i64, dtype: DataType) -> Expr {
    Expr::int_of(value, dtype)
}

/// `e` as a value of the integer type `dtype`: unchanged, a retyped immediate, or a cast.
pub fn convert(e: Expr, dtype: DataType) -> Expr {
    if e.dtype() == dtype {
        return e;
    }
    match const_int(&e) {
        Some(v) if wrap(v, dtype) == Some(v) => imm(v, dtype),
        _ => Expr::cast(dtype, e),
    }
}

/// `v` wrapped into `dtype`, when the type is one whose arithmetic is folded here (int32 and
/// int64: the index types).
fn wrap(v: i64, dtype: DataType) -> Option<i64> {
    if !matches!(dtype.bits, 32 | 64) {
        return None;
    }
    int_arith::wrap(v, dtype)
}

/// Folds `a op b` for two constants of `dtype`.
fn fold(op: BinOp, a: i64, b: i64, dtype: DataType) -> Option<i64> {
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul => {
            wrap(a, dtype)?;
            int_arith::fold_binary(op, dtype, a, b)
        }
        _ => None,
    }
}

/// `a + b`, folded; `(x + c1) + c2` becomes `x + (c1 + c2)`, `x + -c` becomes `x - c`.
pub fn add(a: Expr, b: Expr) -> Expr {
    let t = a.dtype();
    match (const_int(&a), const_int(&b)) {
        (Some(x), Some(y)) => match fold(BinOp::Add, x, y, t) {
            Some(v) => imm(v, t),
            None => Expr::binary(BinOp::Add, a, b),
        },
        (Some(0), None) => b,
        (None, Some(0)) => a,
        (Some(_), None) => add(b, a),
        (None, Some(c)) => add_const(a, c),
        (None, None) => Expr::binary(BinOp::Add, a, b),
    }
}

/// `a + c` for a non-constant `a`.
fn add_const(a: Expr, c: i64) -> Expr {
    let t = a.dtype();
    if let Expr::Binary { op: BinOp::Add, lhs, rhs } = &a {
        if let Some(inner) = const_int(rhs) {
            if let Some(sum) = fold(BinOp::Add, inner, c, t) {
                return add((**lhs).clone(), imm(sum, t));
            }
        }
    }
    match c.checked_neg() {
        Some(neg) if c < 0 && wrap(neg, t) == Some(neg) => Expr::binary(BinOp::Sub, a, imm(neg, t)),
        _ => Expr::binary(BinOp::Add, a, imm(c, t)),
    }
}

/// `a * b`, folded; `x * 1` and `1 * x` become `x`, a constant factor goes to the right.
pub fn mul(a: Expr, b: Expr) -> Expr {
    let t = a.dtype();
    match (const_int(&a), const_int(&b)) {
        (Some(x), Some(y)) => match fold(BinOp::Mul, x, y, t) {
            Some(v) => imm(v, t),
            None => Expr::binary(BinOp::Mul, a, b),
        },
        (Some(1), None) => b,
        (None, Some(1)) => a,
        (Some(0), None) if trap_free(&b) => imm(0, t),
        (None, Some(0)) if trap_free(&a) => imm(0, t),
        (Some(_), None) => Expr::binary(BinOp::Mul, b, a),
        _ => Expr::binary(BinOp::Mul, a, b),
    }
}

/// Whether evaluating `e` can neither trap nor touch memory (so dropping it is exact).
fn trap_free(e: &Expr) -> bool {
    match e {
        Expr::Int { .. } | Expr::Var(_) => true,
        Expr::Binary { op: BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Min | BinOp::Max, lhs, rhs } => {
            trap_free(lhs) && trap_free(rhs)
        }
        Expr::Cast { value, .. } => trap_free(value),
        _ => false,
    }
}

/// The product of `values`, folded (1 for none).
pub fn product(values: impl IntoIterator<Item = Expr>, dtype: DataType) -> Expr {
    values.into_iter().fold(imm(1, dtype), |acc, v| mul(acc, convert(v, dtype)))
}

/// The wider of two integer index types (int64 when either is; otherwise `a`).
pub fn wider(a: DataType, b: DataType) -> DataType {
    if b.is_integer() && b.bits > a.bits {
        b.element()
    } else {
        a.element()
    }
}

/// The greatest common divisor (`gcd(0, b) = b`).
pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The constant `a` such that `e = a * var + (something uniform)`; `None` when `e` depends on
/// `var` in another way.
pub fn coefficient<S: BuildHasher>(e: &Expr, var: &Var, lets: &HashMap<VarId, Expr, S>) -> Option<i64> {
    match e {
        Expr::Var(v) if v == var => Some(1),
        Expr::Var(v) => lets.get(&v.id()).map_or(Some(0), |value| coefficient(value, var, lets)),
        Expr::Int { .. } => Some(0),
        Expr::Binary { op: BinOp::Add, lhs, rhs } => {
            coefficient(lhs, var, lets)?.checked_add(coefficient(rhs, var, lets)?)
        }
        Expr::Binary { op: BinOp::Sub, lhs, rhs } => {
            coefficient(lhs, var, lets)?.checked_sub(coefficient(rhs, var, lets)?)
        }
        Expr::Binary { op: BinOp::Mul, lhs, rhs } => {
            let (a, b) = (coefficient(lhs, var, lets)?, coefficient(rhs, var, lets)?);
            match (a, b, const_int(lhs), const_int(rhs)) {
                (0, 0, _, _) => Some(0),
                (_, 0, _, Some(c)) => a.checked_mul(c),
                (0, _, Some(c), _) => b.checked_mul(c),
                _ => None,
            }
        }
        Expr::Cast { dtype, value } if dtype.is_integer() && dtype.bits >= value.dtype().bits => {
            coefficient(value, var, lets)
        }
        _ if mentions(e, var, lets) => None,
        _ => Some(0),
    }
}

/// `e` as a linear form: terms (compared structurally, let-bound variables expanded) with
/// their coefficients, and a constant. Terms are what is not a sum, difference or constant
/// multiple; `None` on overflow of a coefficient.
pub fn linear_form<S: BuildHasher>(e: &Expr, lets: &HashMap<VarId, Expr, S>) -> Option<(Vec<(Expr, i64)>, i64)> {
    let mut terms: Vec<(Expr, i64)> = Vec::new();
    let mut constant = 0i64;
    linear_terms(e, 1, lets, &mut terms, &mut constant)?;
    terms.retain(|(_, c)| *c != 0);
    Some((terms, constant))
}

/// Adds `scale * e` to the linear form `terms + constant`; terms that are not sums, differences
/// or constant multiples are kept whole.
fn linear_terms<S: BuildHasher>(
    e: &Expr,
    scale: i64,
    lets: &HashMap<VarId, Expr, S>,
    terms: &mut Vec<(Expr, i64)>,
    constant: &mut i64,
) -> Option<()> {
    match e {
        Expr::Int { value, .. } => *constant = constant.checked_add(value.checked_mul(scale)?)?,
        Expr::Var(v) if lets.contains_key(&v.id()) => linear_terms(&lets[&v.id()], scale, lets, terms, constant)?,
        Expr::Binary { op: BinOp::Add, lhs, rhs } => {
            linear_terms(lhs, scale, lets, terms, constant)?;
            linear_terms(rhs, scale, lets, terms, constant)?;
        }
        Expr::Binary { op: BinOp::Sub, lhs, rhs } => {
            linear_terms(lhs, scale, lets, terms, constant)?;
            linear_terms(rhs, scale.checked_neg()?, lets, terms, constant)?;
        }
        Expr::Binary { op: BinOp::Mul, lhs, rhs } if const_int(rhs).is_some() || const_int(lhs).is_some() => {
            let (factor, other) = match const_int(rhs) {
                Some(c) => (c, lhs),
                None => (const_int(lhs)?, rhs),
            };
            linear_terms(other, scale.checked_mul(factor)?, lets, terms, constant)?;
        }
        _ => match terms.iter_mut().find(|(t, _)| t == e) {
            Some((_, c)) => *c = c.checked_add(scale)?,
            None => terms.push((e.clone(), scale)),
        },
    }
    Some(())
}

/// Whether `e` mentions `var`, directly or through a let-bound variable.
pub fn mentions<S: BuildHasher>(e: &Expr, var: &Var, lets: &HashMap<VarId, Expr, S>) -> bool {
    struct Finds<'a, S> {
        var: &'a Var,
        lets: &'a HashMap<VarId, Expr, S>,
        found: bool,
    }
    impl<S: BuildHasher> Visitor for Finds<'_, S> {
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::Var(v) = e {
                if v == self.var {
                    self.found = true;
                } else if let Some(value) = self.lets.get(&v.id()) {
                    self.visit_expr(value);
                }
            }
            walk_expr(self, e);
        }
    }
    let mut f = Finds { var, lets, found: false };
    f.visit_expr(e);
    f.found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_and_keeps_readable_forms() {
        let i = Var::new("i", DataType::INT32);
        let x = Expr::var(&i);
        assert_eq!(add(imm(2, DataType::INT32), imm(3, DataType::INT32)), Expr::int(5));
        assert_eq!(add(Expr::int(0), x.clone()), x);
        assert_eq!(add(add(x.clone(), Expr::int(1)), Expr::int(2)), x.clone() + Expr::int(3));
        assert_eq!(add(x.clone(), Expr::int(-4)), x.clone() - Expr::int(4));
        assert_eq!(mul(Expr::int(1), x.clone()), x);
        assert_eq!(mul(Expr::int(4), x.clone()), x.clone() * Expr::int(4));
        assert_eq!(product([Expr::int(4), Expr::int(8)], DataType::INT32), Expr::int(32));
    }

    #[test]
    fn wraps_in_the_type_width() {
        assert_eq!(mul(Expr::int(1 << 20), Expr::int(1 << 12)), Expr::int(0));
        let big = imm(1 << 40, DataType::INT64);
        assert_eq!(mul(big.clone(), imm(2, DataType::INT64)), imm(1 << 41, DataType::INT64));
    }

    #[test]
    fn drops_only_operands_that_cannot_trap() {
        let i = Var::new("i", DataType::INT32);
        assert_eq!(mul(Expr::var(&i), Expr::int(0)), Expr::int(0));
        let trapping = Expr::floordiv(Expr::int(1), Expr::var(&i));
        assert_eq!(mul(trapping.clone(), Expr::int(0)), trapping * Expr::int(0));
    }

    #[test]
    fn converts_between_index_types() {
        let i = Var::new("i", DataType::INT32);
        assert_eq!(convert(Expr::int(3), DataType::INT64), imm(3, DataType::INT64));
        assert_eq!(convert(Expr::var(&i), DataType::INT64), Expr::cast(DataType::INT64, Expr::var(&i)));
        assert_eq!(wider(DataType::INT32, DataType::INT64), DataType::INT64);
    }

    #[test]
    fn affine_coefficients() {
        let i = Var::new("i", DataType::INT32);
        let n = Var::new("n", DataType::INT32);
        let lets = HashMap::new();
        let e = (Expr::var(&i) + Expr::int(1)) * Expr::int(4) - Expr::var(&n);
        assert_eq!(coefficient(&e, &i, &lets), Some(4));
        assert_eq!(coefficient(&(Expr::var(&i) * Expr::var(&n)), &i, &lets), None);
        assert_eq!(coefficient(&Expr::floormod(Expr::var(&i), Expr::int(2)), &i, &lets), None);
        assert_eq!(coefficient(&Expr::floormod(Expr::var(&n), Expr::int(2)), &i, &lets), Some(0));
    }

    #[test]
    fn linear_forms() {
        let i = Var::new("i", DataType::INT32);
        let n = Var::new("n", DataType::INT32);
        let lets = HashMap::new();
        let a = (Expr::var(&i) + Expr::int(1)) * Expr::int(4) - Expr::var(&n);
        let (terms, constant) = linear_form(&a, &lets).unwrap();
        assert_eq!(constant, 4);
        assert_eq!(terms, vec![(Expr::var(&i), 4), (Expr::var(&n), -1)]);
        let m = Expr::floormod(Expr::var(&i), Expr::int(2));
        assert_eq!(linear_form(&(m.clone() - m.clone()), &lets), Some((vec![], 0)));
    }
}
