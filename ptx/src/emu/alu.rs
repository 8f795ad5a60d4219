//! Arithmetic of the emulator on register bits, as the PTX ISA defines it.
//!
//! Invariants: a register holds its value's bits zero-extended to 64 (predicates are 0 or
//! 1); integer results wrap to the type's width; float results are IEEE with one rounding to
//! nearest even (f16 computes in f32 and rounds once, which is exact for add, sub and mul);
//! `cvt` to an integer from a float saturates and maps NaN to 0, as PTX does; shifts clamp
//! amounts at the width. Every integer operand is read at its instruction's type (`operand`):
//! its low bits, sign-extended for signed types, whatever a wider register holds above them
//! (a shift amount is the `.u32` the ISA makes it), so a divisor is zero exactly when its
//! type's bits are. Integer division by zero is the one failure (`None`); `INT_MIN / -1`
//! wraps to `INT_MIN` with remainder 0.

use half::f16;

use crate::module::{Cmp, FloatOp, IntOp, PackedHalf, Rounding, Ty};

#[inline(always)]
pub(super) fn mask(bits: u64, width: u32) -> u64 {
    if width >= 64 {
        bits
    } else {
        bits & ((1u64 << width) - 1)
    }
}

#[inline(always)]
pub(super) fn sext(bits: u64, width: u32) -> i64 {
    if width >= 64 {
        bits as i64
    } else {
        let shift = 64 - width;
        ((bits << shift) as i64) >> shift
    }
}

/// The bits of an integer operand of `width` bits: the register's low `width` bits.
#[inline(always)]
pub(super) fn operand(bits: u64, width: u32) -> u64 {
    mask(bits, width)
}

/// An integer operation; `None` for a division by zero.
#[inline]
pub(super) fn int(op: IntOp, ty: Ty, a: u64, b: u64) -> Option<u64> {
    let w = ty.bits();
    let a = operand(a, w);
    let b = if matches!(op, IntOp::Shl | IntOp::Shr) { operand(b, 32) } else { operand(b, w) };
    if ty == Ty::Pred {
        return Some(
            match op {
                IntOp::And => a & b,
                IntOp::Or => a | b,
                _ => a ^ b,
            } & 1,
        );
    }
    let signed = ty.is_signed();
    let (sa, sb) = (sext(a, w), sext(b, w));
    let r = match op {
        IntOp::Add => a.wrapping_add(b),
        IntOp::Sub => a.wrapping_sub(b),
        IntOp::MulLo => a.wrapping_mul(b),
        IntOp::Div | IntOp::Rem if b == 0 => return None,
        IntOp::Div if signed => sa.wrapping_div(sb) as u64,
        IntOp::Div => a / b,
        IntOp::Rem if signed => sa.wrapping_rem(sb) as u64,
        IntOp::Rem => a % b,
        IntOp::Min if signed => sa.min(sb) as u64,
        IntOp::Min => a.min(b),
        IntOp::Max if signed => sa.max(sb) as u64,
        IntOp::Max => a.max(b),
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        IntOp::Shl if b >= u64::from(w) => 0,
        IntOp::Shl => a << b,
        IntOp::Shr if signed => (sa >> b.min(u64::from(w) - 1)) as u64,
        IntOp::Shr if b >= u64::from(w) => 0,
        IntOp::Shr => a >> b,
    };
    Some(mask(r, w))
}

/// `a * b + c`, wrapping.
#[inline]
pub(super) fn mad(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    mask(a.wrapping_mul(b).wrapping_add(c), ty.bits())
}

/// A float operation with one rounding to nearest even.
#[inline]
pub(super) fn float(op: FloatOp, ty: Ty, a: u64, b: u64) -> u64 {
    fn apply<
        T: std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T> + std::ops::Div<Output = T>,
    >(
        op: FloatOp,
        x: T,
        y: T,
    ) -> T {
        match op {
            FloatOp::Add => x + y,
            FloatOp::Sub => x - y,
            FloatOp::Mul => x * y,
            FloatOp::Div => x / y,
        }
    }
    match ty {
        Ty::F64 => apply(op, f64::from_bits(a), f64::from_bits(b)).to_bits(),
        Ty::F16 => {
            let r = apply(op, f16::from_bits(a as u16).to_f32(), f16::from_bits(b as u16).to_f32());
            u64::from(f16::from_f32(r).to_bits())
        }
        _ => u64::from(apply(op, f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits()),
    }
}

/// `a * b + c` with one rounding.
#[inline]
pub(super) fn fma(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    match ty {
        Ty::F64 => f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)).to_bits(),
        _ => u64::from(f32::from_bits(a as u32).mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32)).to_bits()),
    }
}

fn to_f64(ty: Ty, bits: u64) -> f64 {
    match ty {
        Ty::F64 => f64::from_bits(bits),
        Ty::F16 => f16::from_bits(bits as u16).to_f64(),
        Ty::Bf16 => f64::from(super::approx::bf16_value(bits)),
        _ => f64::from(f32::from_bits(bits as u32)),
    }
}

/// `setp`: ordered comparisons are false on NaN, `Neu` true.
#[inline]
pub(super) fn compare(cmp: Cmp, ty: Ty, a: u64, b: u64) -> bool {
    if ty.is_float() {
        let (x, y) = (to_f64(ty, a), to_f64(ty, b));
        let unordered = x.is_nan() || y.is_nan();
        return match cmp {
            Cmp::Eq => x == y,
            Cmp::Ne => x != y && !x.is_nan() && !y.is_nan(),
            Cmp::Neu => x != y,
            Cmp::Lt | Cmp::Lo => x < y,
            Cmp::Le | Cmp::Ls => x <= y,
            Cmp::Gt | Cmp::Hi => x > y,
            Cmp::Ge | Cmp::Hs => x >= y,
            Cmp::Equ => unordered || x == y,
            Cmp::Ltu => unordered || x < y,
            Cmp::Leu => unordered || x <= y,
            Cmp::Gtu => unordered || x > y,
            Cmp::Geu => unordered || x >= y,
            Cmp::Num => !unordered,
            Cmp::Nan => unordered,
        };
    }
    let w = ty.bits();
    let (a, b) = (operand(a, w), operand(b, w));
    let (sa, sb) = (sext(a, w), sext(b, w));
    let signed = ty.is_signed();
    match cmp {
        Cmp::Eq | Cmp::Equ => a == b,
        Cmp::Ne | Cmp::Neu => a != b,
        // The parser admits the float-only comparisons on floats only; on integers they are
        // their ordered forms (nothing is NaN).
        Cmp::Num => true,
        Cmp::Nan => false,
        Cmp::Ltu if signed => sa < sb,
        Cmp::Leu if signed => sa <= sb,
        Cmp::Gtu if signed => sa > sb,
        Cmp::Geu if signed => sa >= sb,
        Cmp::Ltu => a < b,
        Cmp::Leu => a <= b,
        Cmp::Gtu => a > b,
        Cmp::Geu => a >= b,
        Cmp::Lt if signed => sa < sb,
        Cmp::Le if signed => sa <= sb,
        Cmp::Gt if signed => sa > sb,
        Cmp::Ge if signed => sa >= sb,
        Cmp::Lt | Cmp::Lo => a < b,
        Cmp::Le | Cmp::Ls => a <= b,
        Cmp::Gt | Cmp::Hi => a > b,
        Cmp::Ge | Cmp::Hs => a >= b,
    }
}

fn from_f64(ty: Ty, value: f64) -> u64 {
    match ty {
        Ty::F64 => value.to_bits(),
        Ty::F16 => u64::from(f16::from_f64(value).to_bits()),
        Ty::Bf16 => u64::from(half::bf16::from_f64(value).to_bits()),
        Ty::Tf32 => super::approx::to_tf32(Rounding::Rn, u64::from((value as f32).to_bits())),
        _ => u64::from((value as f32).to_bits()),
    }
}

/// `cvt` between any two types of the subset.
pub(super) fn cvt(dst: Ty, src: Ty, rounding: Option<Rounding>, bits: u64) -> u64 {
    match (src.is_float(), dst.is_float()) {
        (false, false) => {
            // The source is its type's low bits of the register (`cvt.u16.u8` zero-extends
            // the low byte), sign-extended when signed.
            let value = if src.is_signed() { sext(bits, src.bits()) as u64 } else { mask(bits, src.bits()) };
            mask(value, dst.bits())
        }
        (false, true) => {
            let bits = operand(bits, src.bits());
            // Rust's int -> float `as` rounds to nearest even, like `cvt.rn`.
            match dst {
                Ty::F64 if src.is_signed() => (sext(bits, src.bits()) as f64).to_bits(),
                Ty::F64 => (bits as f64).to_bits(),
                Ty::F16 if src.is_signed() => u64::from(f16::from_f32(sext(bits, src.bits()) as f32).to_bits()),
                Ty::F16 => u64::from(f16::from_f32(bits as f32).to_bits()),
                Ty::Bf16 if src.is_signed() => from_f64(dst, sext(bits, src.bits()) as f64),
                Ty::Bf16 => from_f64(dst, bits as f64),
                _ if src.is_signed() => u64::from((sext(bits, src.bits()) as f32).to_bits()),
                _ => u64::from((bits as f32).to_bits()),
            }
        }
        (true, false) => {
            let value = to_f64(src, bits);
            let value = match rounding {
                Some(Rounding::Rni) => value.round_ties_even(),
                _ => value.trunc(),
            };
            // `as` saturates and maps NaN to 0, as `cvt.rzi` does.
            let r = match (dst.is_signed(), dst.bits()) {
                (true, 64) => value as i64 as u64,
                (true, 32) => value as i32 as u64,
                (true, _) => value as i16 as u64,
                (false, 64) => value as u64,
                (false, 32) => u64::from(value as u32),
                (false, _) => u64::from(value as u16),
            };
            mask(r, dst.bits())
        }
        (true, true) => match (src, dst, rounding) {
            // Narrowing an f32 to the tensor-core formats, each rounding as asked.
            (Ty::F32, Ty::Tf32, Some(r)) => super::approx::to_tf32(r, bits),
            (Ty::F32, Ty::F16, Some(Rounding::Rz)) => {
                u64::from(super::approx::narrow_16(PackedHalf::F16x2, Rounding::Rz, false, f32::from_bits(bits as u32)))
            }
            (Ty::F32, Ty::Bf16, Some(r @ (Rounding::Rn | Rounding::Rz))) => {
                u64::from(super::approx::narrow_16(PackedHalf::Bf16x2, r, false, f32::from_bits(bits as u32)))
            }
            // `cvt.rni` / `cvt.rzi` between floats round to an integral value.
            (_, _, Some(Rounding::Rni)) => from_f64(dst, to_f64(src, bits).round_ties_even()),
            (_, _, Some(Rounding::Rzi)) => from_f64(dst, to_f64(src, bits).trunc()),
            (Ty::F32, Ty::F16, _) => u64::from(f16::from_f32(f32::from_bits(bits as u32)).to_bits()),
            _ => from_f64(dst, to_f64(src, bits)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_and_divide_toward_zero() {
        assert_eq!(int(IntOp::Add, Ty::S32, 0xFFFF_FFFF, 1), Some(0));
        assert_eq!(int(IntOp::Div, Ty::S32, (-7i64 as u64) & 0xFFFF_FFFF, 2), Some((-3i64 as u64) & 0xFFFF_FFFF));
        assert_eq!(int(IntOp::Rem, Ty::S32, 7, 0), None);
        assert_eq!(int(IntOp::Shr, Ty::S32, 0x8000_0000, 40), Some(0xFFFF_FFFF));
        assert_eq!(int(IntOp::Shl, Ty::B32, 1, 32), Some(0));
        assert_eq!(mad(Ty::S64, 3, 4, 5), 17);
    }

    #[test]
    fn conversions_round_like_ptx() {
        let f = |v: f32| u64::from(v.to_bits());
        assert_eq!(cvt(Ty::S32, Ty::F32, Some(Rounding::Rzi), f(-2.7)), (-2i64 as u64) & 0xFFFF_FFFF);
        assert_eq!(cvt(Ty::S32, Ty::F32, Some(Rounding::Rzi), f(f32::NAN)), 0);
        assert_eq!(cvt(Ty::S64, Ty::S32, None, 0xFFFF_FFFF), u64::MAX);
        assert_eq!(cvt(Ty::F32, Ty::S32, Some(Rounding::Rn), 16_777_217), f(16_777_216.0));
        assert!(compare(Cmp::Neu, Ty::F32, f(f32::NAN), f(1.0)));
        assert!(!compare(Cmp::Ne, Ty::F32, f(f32::NAN), f(1.0)));
        assert!(compare(Cmp::Lt, Ty::S32, 0xFFFF_FFFF, 0));
        assert!(!compare(Cmp::Lo, Ty::U32, 0xFFFF_FFFF, 0));
        // Unordered comparisons are true on NaN, ordered ones false.
        let nan = f(f32::NAN);
        for (cmp, on_nan, one_two) in [
            (Cmp::Ltu, true, true),
            (Cmp::Geu, true, false),
            (Cmp::Equ, true, false),
            (Cmp::Gtu, true, false),
            (Cmp::Leu, true, true),
            (Cmp::Num, false, true),
            (Cmp::Nan, true, false),
            (Cmp::Lt, false, true),
        ] {
            assert_eq!(compare(cmp, Ty::F32, nan, f(1.0)), on_nan, "{cmp:?} with NaN");
            assert_eq!(compare(cmp, Ty::F32, f(1.0), f(2.0)), one_two, "{cmp:?} of 1, 2");
        }
    }
}

/// `mul.wide.s32` / `.u32`: the exact 64-bit product of two 32-bit operands.
#[inline]
pub(super) fn mul_wide(signed: bool, a: u64, b: u64) -> u64 {
    if signed {
        sext(a, 32).wrapping_mul(sext(b, 32)) as u64
    } else {
        mask(a, 32).wrapping_mul(mask(b, 32))
    }
}

/// `bfe`: `len` bits of `a` (of `width` bits) from bit `pos`; bits past the source's top
/// repeat its sign bit for signed types and are zeros otherwise (the PTX ISA's definition,
/// with `pos` and `len` taken modulo 256).
pub(super) fn bfe(signed: bool, width: u32, a: u64, pos: u64, len: u64) -> u64 {
    let (pos, len) = ((pos & 0xff) as u32, (len & 0xff) as u32);
    if len == 0 {
        return 0;
    }
    let bit = |i: u32| if i < width { (a >> i) & 1 } else { 0 };
    let sign = if !signed {
        0
    } else if pos.saturating_add(len) > width {
        bit(width - 1)
    } else {
        bit(pos + len - 1)
    };
    let mut result = 0u64;
    for i in 0..width {
        let b = if i < len && pos.saturating_add(i) < width { bit(pos + i) } else { sign };
        result |= b << i;
    }
    result
}

/// `neg`: two's complement for integers (wrapping), the sign bit flipped for floats.
#[inline]
pub(super) fn neg(ty: Ty, a: u64) -> u64 {
    let w = ty.bits();
    if ty.is_float() {
        a ^ (1u64 << (w - 1))
    } else {
        mask(a.wrapping_neg(), w)
    }
}

/// The f32 value of the f16 in the low 16 bits of `bits` (exact).
#[inline]
pub(super) fn f16_to_f32(bits: u64) -> f32 {
    f16::from_bits(bits as u16).to_f32()
}

#[cfg(test)]
mod wide_tests {
    use super::*;

    #[test]
    fn bit_field_extraction_follows_the_isa() {
        // Unsigned: bits 4..8 of 0xab = 0xa; past the top, zeros.
        assert_eq!(bfe(false, 32, 0xab, 4, 4), 0xa);
        assert_eq!(bfe(false, 32, 0x8000_0000, 28, 8), 0x8);
        // Signed: the field's top bit extends; past the source's top, its sign bit does.
        assert_eq!(bfe(true, 32, 0xab, 4, 4), 0xffff_fffa);
        assert_eq!(bfe(true, 32, 0x8000_0000, 28, 8), 0xffff_fff8);
        assert_eq!(bfe(true, 32, 0x7, 0, 0), 0);
    }

    #[test]
    fn widening_products_are_exact() {
        assert_eq!(mul_wide(true, 0xffff_ffff, 2), (-2i64) as u64);
        assert_eq!(mul_wide(false, 0xffff_ffff, 2), 0x1_ffff_fffe);
        assert_eq!(neg(Ty::S32, 5), 0xffff_fffb);
        assert_eq!(neg(Ty::F32, 0x3f80_0000), 0xbf80_0000);
    }
}
