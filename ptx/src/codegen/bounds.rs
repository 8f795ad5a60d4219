//! Integer ranges of TIR expressions, for bounding a wait count that is not a constant.
//!
//! Invariant: a range is returned only when every value the expression can take, given the
//! ranges of its variables (a variable of unknown range: its type's), lies in it, in the
//! expression's own fixed-width arithmetic (a result that could wrap has no range). `None`, or
//! a range reaching the type's maximum, means "unbounded as far as we can tell".

use std::collections::HashMap;

use tirproof_ir::dtype::{DataType, TypeCode};
use tirproof_ir::expr::{BinOp, Expr};
use tirproof_ir::var::VarId;

/// An inclusive range `[lo, hi]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub lo: i64,
    pub hi: i64,
}

impl Range {
    pub fn point(v: i64) -> Range {
        Range { lo: v, hi: v }
    }

    fn hull(self, other: Range) -> Range {
        Range { lo: self.lo.min(other.lo), hi: self.hi.max(other.hi) }
    }

    /// The range of `f` over the corners of `self` x `other` (exact for monotone `f` in each
    /// argument, such as `+`, `-`, `*`, `min` and `max`).
    fn corners(self, other: Range, f: impl Fn(i64, i64) -> Option<i64>) -> Option<Range> {
        let values = [f(self.lo, other.lo)?, f(self.lo, other.hi)?, f(self.hi, other.lo)?, f(self.hi, other.hi)?];
        let lo = values.iter().copied().min()?;
        let hi = values.iter().copied().max()?;
        Some(Range { lo, hi })
    }
}

/// The ranges of the variables in scope.
pub type Ranges = HashMap<VarId, Range>;

/// The range of an integer expression, when it can be bounded.
pub fn range(expr: &Expr, ranges: &Ranges) -> Option<Range> {
    let result = match expr {
        Expr::Int { value, .. } => Range::point(*value),
        // A variable of unknown range takes any value of its type.
        Expr::Var(var) => ranges.get(&var.id()).copied().or_else(|| type_range(var.dtype()))?,
        Expr::Binary { op, lhs, rhs } => binary(*op, range(lhs, ranges)?, range(rhs, ranges)?)?,
        Expr::Select { on_true, on_false, .. } | Expr::IfThenElse { on_true, on_false, .. } => {
            range(on_true, ranges)?.hull(range(on_false, ranges)?)
        }
        Expr::Cast { value, dtype } if dtype.is_integer() && value.dtype().is_integer() => range(value, ranges)?,
        _ => return None,
    };
    fits(result, expr.dtype().bits, expr.dtype().is_int()).then_some(result)
}

/// Every value of an integer type (unsigned 64-bit values capped at `i64::MAX`).
pub fn type_range(dtype: DataType) -> Option<Range> {
    let bits = u32::from(dtype.bits);
    match (dtype.code, bits) {
        (TypeCode::Int, 1..=64) => {
            let half = 1i128 << (bits - 1);
            Some(Range { lo: i64::try_from(-half).ok()?, hi: i64::try_from(half - 1).ok()? })
        }
        (TypeCode::UInt, 1..=64) => Some(Range { lo: 0, hi: i64::try_from((1i128 << bits) - 1).unwrap_or(i64::MAX) }),
        _ => None,
    }
}

/// Whether the range holds only values of the expression's type, so nothing wrapped.
fn fits(r: Range, bits: u16, signed: bool) -> bool {
    let bits = u32::from(bits.min(64));
    let (min, max) = match (signed, bits) {
        (_, 64) if signed => (i128::from(i64::MIN), i128::from(i64::MAX)),
        (true, b) => (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1),
        (false, b) => (0, (1i128 << b) - 1),
    };
    (min..=max).contains(&i128::from(r.lo)) && (min..=max).contains(&i128::from(r.hi))
}

fn binary(op: BinOp, a: Range, b: Range) -> Option<Range> {
    match op {
        BinOp::Add => a.corners(b, i64::checked_add),
        BinOp::Sub => a.corners(b, i64::checked_sub),
        BinOp::Mul => a.corners(b, i64::checked_mul),
        BinOp::Min => a.corners(b, |x, y| Some(x.min(y))),
        BinOp::Max => a.corners(b, |x, y| Some(x.max(y))),
        BinOp::FloorMod if b.lo == b.hi && b.lo > 0 => Some(Range { lo: 0, hi: b.lo - 1 }),
        BinOp::FloorDiv if b.lo == b.hi && b.lo > 0 => {
            Some(Range { lo: a.lo.div_euclid(b.lo), hi: a.hi.div_euclid(b.lo) })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::var::Var;

    #[test]
    fn bounds_follow_loop_ranges() {
        let i = Var::new("i", DataType::INT32);
        let ranges: Ranges = [(i.id(), Range { lo: 0, hi: 9 })].into_iter().collect();
        let count = Expr::binary(BinOp::Sub, Expr::int(2), Expr::var(&i));
        assert_eq!(range(&count, &ranges), Some(Range { lo: -7, hi: 2 }));
        let clamped = Expr::binary(BinOp::Min, count, Expr::int(1));
        assert_eq!(range(&clamped, &ranges).map(|r| r.hi), Some(1));
        let modulo = Expr::binary(BinOp::FloorMod, Expr::var(&i), Expr::int(3));
        assert_eq!(range(&modulo, &ranges), Some(Range { lo: 0, hi: 2 }));
        let n = Var::new("n", DataType::INT32);
        assert_eq!(range(&Expr::var(&n), &ranges), type_range(DataType::INT32));
        let clamped = Expr::binary(BinOp::Max, Expr::binary(BinOp::Min, Expr::var(&n), Expr::int(2)), Expr::int(0));
        assert_eq!(range(&clamped, &ranges), Some(Range { lo: 0, hi: 2 }));
        let shifted = Expr::binary(BinOp::Add, Expr::var(&n), Expr::int(1));
        assert_eq!(range(&shifted, &ranges), None, "could wrap");
        let huge = Expr::binary(BinOp::Mul, Expr::var(&i), Expr::int(1 << 30));
        assert_eq!(range(&huge, &ranges), None, "could wrap in int32");
    }
}
