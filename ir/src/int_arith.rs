//! The integer arithmetic of TIR, written once: what every executor computes and what every
//! pass may fold.
//!
//! Integers are fixed-width two's complement: `+ - *` wrap, `//` and `%` round toward
//! negative infinity (`%` takes the sign of the divisor), `truncdiv`/`truncmod` and integer
//! `/` round toward zero, and `MIN // -1` wraps to `MIN` instead of trapping like the host.
//! Values travel as `i64` holding the value of the type (sign-extended from its width).
//!
//! The interpreter (through `tirproof-machine`), the passes' constant folders and the
//! emitted index arithmetic all call these functions, so a folded constant is the value the
//! program computes at run time.
//!
//! Invariant: `fold_binary` returns `None`, never a value, where the program would trap
//! (division by zero) or where the type is not a signed integer scalar, so a fold never
//! removes a trap.

use crate::dtype::{DataType, TypeCode};
use crate::expr::{BinOp, Expr};

/// Division rounding toward negative infinity; `y != 0`. `i64::MIN // -1` wraps.
pub fn floor_div(x: i64, y: i64) -> i64 {
    let q = x.wrapping_div(y);
    if x.wrapping_rem(y) != 0 && ((x < 0) != (y < 0)) {
        q.wrapping_sub(1)
    } else {
        q
    }
}

/// Remainder with the sign of the divisor; `y != 0`.
pub fn floor_mod(x: i64, y: i64) -> i64 {
    let r = x.wrapping_rem(y);
    if r != 0 && ((r < 0) != (y < 0)) {
        r.wrapping_add(y)
    } else {
        r
    }
}

/// `v` wrapped into a signed integer of `bits` bits (1 to 64): the two's-complement value
/// of its low `bits` bits.
pub fn wrap_signed(v: i64, bits: u32) -> i64 {
    if bits >= 64 || bits == 0 {
        return v;
    }
    let shift = 64 - bits;
    (v << shift) >> shift
}

/// The width of a signed integer scalar type, the only types folded here.
fn signed_width(dtype: DataType) -> Option<u32> {
    let bits = u32::from(dtype.bits);
    (dtype.code == TypeCode::Int && dtype.is_scalar() && (1..=64).contains(&bits)).then_some(bits)
}

/// `v` as a value of `dtype`: wrapped, or `None` when `dtype` is not a signed integer scalar.
pub fn wrap(v: i64, dtype: DataType) -> Option<i64> {
    signed_width(dtype).map(|bits| wrap_signed(v, bits))
}

/// `a op b` for constants `a` and `b` of the signed integer type `dtype`, exactly as the
/// program computes it; `None` for operators that are not folded, a division by zero, or
/// operands that are not values of the type.
pub fn fold_binary(op: BinOp, dtype: DataType, a: i64, b: i64) -> Option<i64> {
    let bits = signed_width(dtype)?;
    if wrap_signed(a, bits) != a || wrap_signed(b, bits) != b {
        return None;
    }
    let raw = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Min => a.min(b),
        BinOp::Max => a.max(b),
        BinOp::FloorDiv if b != 0 => floor_div(a, b),
        BinOp::FloorMod if b != 0 => floor_mod(a, b),
        BinOp::Div | BinOp::TruncDiv if b != 0 => a.wrapping_div(b),
        BinOp::TruncMod if b != 0 => a.wrapping_rem(b),
        _ => return None,
    };
    Some(wrap_signed(raw, bits))
}

/// How deep `const_value` looks: constant extents are written as small expressions, and a
/// bounded walk cannot overflow the stack on a long generated chain.
const CONST_VALUE_DEPTH: u32 = 64;

/// The value of a signed integer expression built from immediates, `+ - * // % min max` and
/// integer casts, computed exactly as the program would (wrapping at the type's width); `None`
/// when it depends on anything else, would trap, or nests deeper than a constant extent does.
pub fn const_value(e: &Expr) -> Option<i64> {
    const_value_within(e, CONST_VALUE_DEPTH)
}

fn const_value_within(e: &Expr, depth: u32) -> Option<i64> {
    let depth = depth.checked_sub(1)?;
    match e {
        Expr::Int { value, dtype } => wrap(*value, *dtype).filter(|v| v == value),
        Expr::Binary { op, lhs, rhs } => {
            fold_binary(*op, e.dtype(), const_value_within(lhs, depth)?, const_value_within(rhs, depth)?)
        }
        Expr::Cast { dtype, value } if value.dtype().code == TypeCode::Int => {
            wrap(const_value_within(value, depth)?, *dtype)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I32: DataType = DataType::INT32;

    #[test]
    fn division_rounds_toward_negative_infinity() {
        assert_eq!((floor_div(-7, 2), floor_mod(-7, 2)), (-4, 1));
        assert_eq!((floor_div(7, -2), floor_mod(7, -2)), (-4, -1));
        assert_eq!((floor_div(-8, 2), floor_mod(-8, 2)), (-4, 0));
        assert_eq!(floor_div(i64::MIN, -1), i64::MIN);
    }

    #[test]
    fn int32_folds_wrap_like_the_program() {
        let max = i64::from(i32::MAX);
        let min = i64::from(i32::MIN);
        assert_eq!(fold_binary(BinOp::Add, I32, max, 1), Some(min));
        assert_eq!(fold_binary(BinOp::Mul, I32, 65536, 65536), Some(0));
        assert_eq!(fold_binary(BinOp::FloorDiv, I32, min, -1), Some(min));
        assert_eq!(fold_binary(BinOp::TruncMod, I32, -7, 2), Some(-1));
        assert_eq!(fold_binary(BinOp::Add, DataType::INT64, i64::MAX, 1), Some(i64::MIN));
    }

    #[test]
    fn traps_and_foreign_types_are_never_folded() {
        assert_eq!(fold_binary(BinOp::FloorDiv, I32, 7, 0), None);
        assert_eq!(fold_binary(BinOp::FloorMod, I32, 7, 0), None);
        assert_eq!(fold_binary(BinOp::Add, DataType::FLOAT32, 1, 2), None);
        assert_eq!(fold_binary(BinOp::Add, I32, 1 << 40, 0), None, "not an int32 value");
        assert_eq!(fold_binary(BinOp::Shl, I32, 1, 2), None);
    }

    #[test]
    fn constant_expressions_evaluate_with_wrapping() {
        let int8 = |v| Expr::int_of(v, DataType::INT8);
        assert_eq!(const_value(&Expr::binary(BinOp::Sub, Expr::int(0), Expr::int(5))), Some(-5));
        assert_eq!(const_value(&Expr::binary(BinOp::Add, int8(127), int8(1))), Some(-128));
        let widened = Expr::cast(DataType::INT32, Expr::binary(BinOp::Add, int8(127), int8(1)));
        assert_eq!(const_value(&widened), Some(-128));
        assert_eq!(const_value(&Expr::binary(BinOp::FloorDiv, Expr::int(1), Expr::int(0))), None);
        let deep = (0..100).fold(Expr::int(1), |acc, _| Expr::binary(BinOp::Add, acc, Expr::int(1)));
        assert_eq!(const_value(&deep), None, "deeper than a constant extent");
    }

    #[test]
    fn wrap_keeps_the_low_bits() {
        assert_eq!(wrap_signed(128, 8), -128);
        assert_eq!(wrap_signed(-1, 64), -1);
        assert_eq!(wrap(1 << 31, I32), Some(i64::from(i32::MIN)));
        assert_eq!(wrap(3, DataType::BOOL), None);
    }
}
