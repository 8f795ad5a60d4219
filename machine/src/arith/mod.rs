//! Scalar semantics of every operator, one lane at a time, on canonical bits (see `value`).
//!
//! Split by family: `int` (wrapping arithmetic, division, shifts), `float` (IEEE arithmetic in
//! the element type), `cast` (conversions), `math` (pure intrinsics), `exp` (the float32 `exp`
//! every executor computes the same way). Vector operations apply these lane by lane. Faults
//! (division by zero, bad shifts, invalid casts) come back as `Trap`s without location; the
//! executor adds it.

pub mod cast;
pub mod exp;
pub mod float;
pub mod int;
pub mod math;

use tirproof_ir::expr::{BinOp, CmpOp};

use super::error::R;
use super::value::{float_to_f64, Num};

/// `a op b` for two canonical scalars of kind `num`.
#[inline]
pub fn binary(op: BinOp, num: Num, a: u64, b: u64) -> R<u64> {
    if num.is_float() {
        float::binary(op, num, a, b)
    } else {
        int::binary(op, num, a, b)
    }
}

/// `a op b` for two canonical scalars of kind `num`; NaN compares unequal to everything.
#[inline]
pub fn compare(op: CmpOp, num: Num, a: u64, b: u64) -> bool {
    match num {
        Num::Int(_) => op.holds(&(a as i64), &(b as i64)),
        Num::UInt(_) | Num::Bool => op.holds(&a, &b),
        Num::F32 => op.holds(&f32::from_bits(a as u32), &f32::from_bits(b as u32)),
        _ => op.holds(&float_to_f64(num, a), &float_to_f64(num, b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_compares_unequal() {
        let nan = u64::from(f32::NAN.to_bits());
        assert!(!compare(CmpOp::Eq, Num::F32, nan, nan));
        assert!(compare(CmpOp::Ne, Num::F32, nan, nan));
        assert!(!compare(CmpOp::Lt, Num::F32, nan, 0));
    }

    #[test]
    fn signedness_decides_order() {
        let minus_one = (-1i64) as u64;
        assert!(compare(CmpOp::Lt, Num::Int(32), minus_one, 0));
        assert!(!compare(CmpOp::Lt, Num::UInt(64), minus_one, 0));
    }
}
