//! Divisibility of index expressions: proving a Ramp base is a multiple of the vector width,
//! and dividing it exactly.
//!
//! `known_multiple(e)` is a number `g` such that `e` is a multiple of `g` for every value of
//! its variables: constants fold, `x * c` and `c * x` multiply, `+`/`-` take the gcd, `<< c`
//! multiplies by `2^c`, let-bound variables inherit their value's. Widths are powers of two,
//! so this reasoning over the integers survives two's-complement wrap (`2^bits` is itself a
//! multiple of the width).
//!
//! `divide(e, m)` builds `e / m` for an `e` proved a multiple of `m`, cancelling the factor
//! where it is visible (`(i + 1) * 4 / 4` is `i + 1`) and writing `e // m` elsewhere. Like
//! TVM's simplifier, the cancellation assumes the original index arithmetic did not wrap.

use std::collections::HashMap;

use tirproof_ir::index_arith::{add, const_int, gcd, imm, mul};
use tirproof_ir::{BinOp, Expr, VarId};

/// Let-bound variables and their values (the function is in SSA form).
pub(super) type Lets = HashMap<VarId, Expr>;

/// A known factor of `e` (0 when `e` is the constant 0, a multiple of everything).
pub(super) fn known_multiple(e: &Expr, lets: &Lets) -> u64 {
    match e {
        Expr::Int { value, dtype } if dtype.is_integer() => value.unsigned_abs(),
        Expr::Var(v) => lets.get(&v.id()).map_or(1, |value| known_multiple(value, lets)),
        Expr::Binary { op: BinOp::Add | BinOp::Sub, lhs, rhs } => {
            gcd(known_multiple(lhs, lets), known_multiple(rhs, lets))
        }
        Expr::Binary { op: BinOp::Mul, lhs, rhs } => {
            let (a, b) = (known_multiple(lhs, lets), known_multiple(rhs, lets));
            a.checked_mul(b).unwrap_or_else(|| a.max(b))
        }
        Expr::Binary { op: BinOp::Shl, lhs, rhs } => match const_int(rhs) {
            Some(c @ 0..=30) => known_multiple(lhs, lets).saturating_mul(1 << c),
            _ => 1,
        },
        Expr::Cast { dtype, value } if dtype.is_integer() && dtype.bits >= value.dtype().bits => {
            known_multiple(value, lets)
        }
        _ => 1,
    }
}

/// Whether `e` is provably a multiple of `m` (`m` > 0).
pub(super) fn is_multiple(e: &Expr, m: u64, lets: &Lets) -> bool {
    known_multiple(e, lets).is_multiple_of(m)
}

/// `e / m` for an `e` that `is_multiple` of `m`.
pub(super) fn divide(e: &Expr, m: u64, lets: &Lets) -> Expr {
    let t = e.dtype();
    let divisor = i64::try_from(m).unwrap_or(i64::MAX);
    match e {
        Expr::Int { value, .. } => imm(value / divisor, t),
        Expr::Binary { op: BinOp::Mul, lhs, rhs } if is_multiple(rhs, m, lets) => {
            mul((**lhs).clone(), divide(rhs, m, lets))
        }
        Expr::Binary { op: BinOp::Mul, lhs, rhs } if is_multiple(lhs, m, lets) => {
            mul(divide(lhs, m, lets), (**rhs).clone())
        }
        Expr::Binary { op: BinOp::Add, lhs, rhs } => add(divide(lhs, m, lets), divide(rhs, m, lets)),
        Expr::Binary { op: BinOp::Sub, lhs, rhs } => {
            let (a, b) = (divide(lhs, m, lets), divide(rhs, m, lets));
            match (const_int(&a), const_int(&b)) {
                (_, Some(0)) => a,
                _ => Expr::binary(BinOp::Sub, a, b),
            }
        }
        _ => Expr::floordiv(e.clone(), imm(divisor, t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::{DataType, Var};

    #[test]
    fn multiples_of_affine_indices() {
        let i = Var::new("i", DataType::INT32);
        let x = Expr::var(&i);
        let lets = Lets::new();
        assert!(is_multiple(&((x.clone() + Expr::int(1)) * Expr::int(4)), 4, &lets));
        assert!(is_multiple(&(x.clone() * Expr::int(8) + Expr::int(12)), 4, &lets));
        assert!(!is_multiple(&(x.clone() * Expr::int(8) + Expr::int(2)), 4, &lets));
        assert!(!is_multiple(&(x.clone() * Expr::int(3)), 4, &lets));
        assert!(is_multiple(&Expr::int(0), 4, &lets));
    }

    #[test]
    fn divides_by_cancelling_visible_factors() {
        let i = Var::new("i", DataType::INT32);
        let x = Expr::var(&i);
        let lets = Lets::new();
        assert_eq!(divide(&((x.clone() + Expr::int(1)) * Expr::int(4)), 4, &lets), x.clone() + Expr::int(1));
        assert_eq!(
            divide(&(x.clone() * Expr::int(8) + Expr::int(12)), 4, &lets),
            x.clone() * Expr::int(2) + Expr::int(3)
        );
    }

    #[test]
    fn let_bound_variables_carry_their_factor() {
        let i = Var::new("i", DataType::INT32);
        let v = Var::new("cse_v1", DataType::INT32);
        let mut lets = Lets::new();
        lets.insert(v.id(), Expr::var(&i) * Expr::int(32));
        assert!(is_multiple(&(Expr::var(&v) + Expr::int(4)), 4, &lets));
        assert_eq!(divide(&Expr::var(&v), 4, &lets), Expr::floordiv(Expr::var(&v), Expr::int(4)));
    }
}
