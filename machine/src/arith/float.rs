//! Float operators computed in the element type with IEEE round-to-nearest-even.
//!
//! float32 is computed in `f32` and float64 in `f64`. float16 and bfloat16 use `half`, whose
//! operators compute in f32 and round once: exact for `+ - * / %` because f32 carries more than
//! twice their precision plus two bits. Composite operators (`//`, `%` of TVMScript) round
//! after every primitive step, as the element type would. Division by zero follows IEEE
//! (infinities, NaN); it is not a fault for floats.

use std::ops::{Add, Div, Mul, Rem, Sub};

use half::{bf16, f16};

use tirproof_ir::expr::BinOp;

use crate::error::{Trap, R};
use crate::value::Num;

/// A float element type the interpreter computes in.
pub trait Fp:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
{
    fn load(bits: u64) -> Self;
    fn store(self) -> u64;
    fn floor(self) -> Self;
    fn trunc(self) -> Self;
}

impl Fp for f32 {
    #[inline]
    fn load(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    #[inline]
    fn store(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn floor(self) -> Self {
        f32::floor(self)
    }
    fn trunc(self) -> Self {
        f32::trunc(self)
    }
}

impl Fp for f64 {
    #[inline]
    fn load(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    #[inline]
    fn store(self) -> u64 {
        self.to_bits()
    }
    fn floor(self) -> Self {
        f64::floor(self)
    }
    fn trunc(self) -> Self {
        f64::trunc(self)
    }
}

// Floor and trunc of a 16-bit float are representable in it, so going through f32 is exact.
impl Fp for f16 {
    fn load(bits: u64) -> Self {
        f16::from_bits(bits as u16)
    }
    fn store(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn floor(self) -> Self {
        f16::from_f32(self.to_f32().floor())
    }
    fn trunc(self) -> Self {
        f16::from_f32(self.to_f32().trunc())
    }
}

impl Fp for bf16 {
    fn load(bits: u64) -> Self {
        bf16::from_bits(bits as u16)
    }
    fn store(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn floor(self) -> Self {
        bf16::from_f32(self.to_f32().floor())
    }
    fn trunc(self) -> Self {
        bf16::from_f32(self.to_f32().trunc())
    }
}

/// `a op b` on canonical float bits of kind `num`.
#[inline]
pub fn binary(op: BinOp, num: Num, a: u64, b: u64) -> R<u64> {
    match num {
        Num::F32 => apply::<f32>(op, num, a, b),
        Num::F64 => apply::<f64>(op, num, a, b),
        Num::F16 => apply::<f16>(op, num, a, b),
        _ => apply::<bf16>(op, num, a, b),
    }
}

#[inline]
fn apply<T: Fp>(op: BinOp, num: Num, a: u64, b: u64) -> R<u64> {
    let (x, y) = (T::load(a), T::load(b));
    let r = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::FloorDiv => (x / y).floor(),
        BinOp::FloorMod => x - (x / y).floor() * y,
        BinOp::TruncDiv => (x / y).trunc(),
        BinOp::TruncMod => x % y,
        // TVM lowers min/max to `select(a < b, a, b)`: with a NaN operand the second wins.
        BinOp::Min => {
            if x < y {
                x
            } else {
                y
            }
        }
        BinOp::Max => {
            if x > y {
                x
            } else {
                y
            }
        }
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr => {
            return Err(Trap::ill_formed(format!("bitwise operator `{op}` applied to {num}")))
        }
    };
    Ok(r.store())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{float_from_f64, float_to_f64};

    fn op(op: BinOp, num: Num, a: f64, b: f64) -> f64 {
        let r = binary(op, num, float_from_f64(num, a), float_from_f64(num, b)).unwrap();
        float_to_f64(num, r)
    }

    #[test]
    fn float32_is_computed_in_f32() {
        // 16777216 + 1 is not representable in f32: the sum rounds back to 16777216.
        assert_eq!(op(BinOp::Add, Num::F32, 16_777_216.0, 1.0), 16_777_216.0);
        assert_eq!(op(BinOp::Add, Num::F64, 16_777_216.0, 1.0), 16_777_217.0);
        let third = op(BinOp::Div, Num::F32, 1.0, 3.0);
        assert_eq!(third, f64::from(1.0f32 / 3.0));
    }

    #[test]
    fn float16_rounds_each_operation() {
        assert_eq!(op(BinOp::Add, Num::F16, 2048.0, 1.0), 2048.0);
        assert_eq!(op(BinOp::Add, Num::F16, 2048.0, 3.0), 2052.0);
        assert_eq!(op(BinOp::Mul, Num::BF16, 257.0, 1.0), 256.0);
        assert!(op(BinOp::Mul, Num::F16, 300.0, 300.0).is_infinite());
    }

    #[test]
    fn floor_division_of_floats() {
        assert_eq!(op(BinOp::FloorDiv, Num::F32, -7.0, 2.0), -4.0);
        assert_eq!(op(BinOp::FloorMod, Num::F32, -7.0, 2.0), 1.0);
        assert_eq!(op(BinOp::TruncDiv, Num::F32, -7.0, 2.0), -3.0);
        assert_eq!(op(BinOp::TruncMod, Num::F32, -7.0, 2.0), -1.0);
        assert!(op(BinOp::Div, Num::F32, 1.0, 0.0).is_infinite());
        assert!(op(BinOp::Div, Num::F64, 0.0, 0.0).is_nan());
    }

    #[test]
    fn min_max_select_semantics() {
        assert_eq!(op(BinOp::Min, Num::F32, 1.0, 2.0), 1.0);
        assert_eq!(op(BinOp::Max, Num::F32, 1.0, 2.0), 2.0);
        assert_eq!(op(BinOp::Min, Num::F32, f64::NAN, 2.0), 2.0);
    }
}
