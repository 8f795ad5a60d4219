//! The arithmetic compilers emit for sm_80 beyond IEEE operations: float `min`/`max`, the
//! approximate functions (`ex2.approx.f32` ...), the non-IEEE divisions (`div.full.f32`,
//! `div.approx.f32`) and the conversions to narrow floats (`cvt.rn.f16x2.f32`,
//! `cvt.rn.bf16x2.f32`, `cvt.rn.bf16.f32`, `cvt.rna.tf32.f32`), with the error bounds of the
//! approximate ones as data (`approx_bound`: the PTX ISA's statement, what an H200 measured,
//! and the tolerance a reference compares within).
//!
//! The model of an approximate instruction: the f32 nearest the exact function's value
//! (computed in f64 and rounded once; an f64 value within one f64 step of an f32 rounding
//! boundary may round the other way), which lies within every bound the ISA states. Special
//! operands follow the ISA: a NaN result is the canonical NaN `0x7FFFFFFF`; `.ftz` flushes
//! subnormal operands and results to zero of the same sign; without `.ftz` subnormals are
//! kept. Hardware results differ from the model's within the bound, so a kernel's results
//! through these instructions are compared within it, never bit for bit.
//!
//! Invariants: nothing here panics; every function is total on register bits.

use half::f16;

use crate::module::{ApproxFn, Approximate, FloatDiv, PackedHalf, Rounding, Ty};

/// The canonical f32 NaN PTX results carry.
pub const CANONICAL_NAN_F32: u32 = 0x7FFF_FFFF;
/// The canonical f64 NaN.
const CANONICAL_NAN_F64: u64 = 0x7FFF_FFFF_FFFF_FFFF;
/// The canonical NaN of the 16-bit float formats.
const CANONICAL_NAN_16: u16 = 0x7FFF;

/// How far a result may be from the exact value: the sum of the terms it holds (a term left
/// at 0 or `None` adds nothing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorBound {
    /// Units in the last place of the f32 nearest the exact value.
    pub ulps: f64,
    /// `Some(e)`: 2^e times the exact value's magnitude.
    pub relative_log2: Option<f64>,
    /// `Some(e)`: 2^e.
    pub absolute_log2: Option<f64>,
}

impl ErrorBound {
    pub const fn ulps(n: f64) -> ErrorBound {
        ErrorBound { ulps: n, relative_log2: None, absolute_log2: None }
    }

    pub const fn relative(e: f64) -> ErrorBound {
        ErrorBound { ulps: 0.0, relative_log2: Some(e), absolute_log2: None }
    }

    pub const fn absolute(e: f64) -> ErrorBound {
        ErrorBound { ulps: 0.0, relative_log2: None, absolute_log2: Some(e) }
    }

    /// The largest error admitted around `exact`.
    pub fn allowed(self, exact: f64) -> f64 {
        self.ulps * f32_ulp(exact)
            + self.relative_log2.map_or(0.0, |e| e.exp2() * exact.abs())
            + self.absolute_log2.map_or(0.0, f64::exp2)
    }

    /// Whether `got` is within the bound of `exact` (two NaNs agree; infinities agree only
    /// with themselves).
    pub fn admits(self, exact: f64, got: f32) -> bool {
        let got = f64::from(got);
        if exact.is_nan() || got.is_nan() {
            return exact.is_nan() && got.is_nan();
        }
        if exact.is_infinite() || got.is_infinite() {
            return exact == got;
        }
        (got - exact).abs() <= self.allowed(exact)
    }
}

/// The unit in the last place of the f32 nearest `x` (the smallest subnormal's below 2^-126).
pub fn f32_ulp(x: f64) -> f64 {
    let x = x.abs();
    if x < f64::from(f32::MIN_POSITIVE) {
        return (-149f64).exp2();
    }
    (x.log2().floor() - 23.0).exp2()
}

/// What is known of an approximate instruction's error: the bound the PTX ISA states and the
/// operands it holds for, what an H200 gave on 4 million random operands (measured against
/// f64, `docs/ptx.md`), and the tolerance to compare results with: the ISA's bound, widened
/// where the measurement exceeded it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ApproxBound {
    pub inst: Approximate,
    pub isa: ErrorBound,
    /// The operands the ISA's bound (and the tolerance) hold for.
    pub domain: &'static str,
    /// The largest error measured on an H200, in words.
    pub measured: &'static str,
    pub tolerance: ErrorBound,
}

/// The known error of `inst` (the PTX ISA's section on the instruction, PTX 7.0 and later,
/// and an H200's results; docs/ptx.md has the table).
pub fn approx_bound(inst: Approximate) -> ApproxBound {
    let full = "the full range";
    let (isa, domain, measured, tolerance) = match inst {
        Approximate::Fn(ApproxFn::Ex2) => {
            (ErrorBound::relative(-22.5), full, "relative 2^-22.7", ErrorBound::relative(-22.5))
        }
        // The ISA's 2^-22.6 is "for the mantissa", so the result's rounding comes on top (half
        // an ulp); an H200 exceeds it for operands in [0.5, 1) (2^-22.15) and is up to an ulp
        // off for large results (the exponent's part).
        Approximate::Fn(ApproxFn::Lg2) => (
            ErrorBound { ulps: 0.5, relative_log2: None, absolute_log2: Some(-22.6) },
            full,
            "absolute 2^-22.15 in [0.5, 1), 2^-22.6 in [1, 2); 1.02 ulp for results near 100",
            ErrorBound { ulps: 1.5, relative_log2: None, absolute_log2: Some(-22.0) },
        ),
        Approximate::Fn(ApproxFn::Rcp) => (ErrorBound::ulps(1.0), full, "0.98 ulp", ErrorBound::ulps(1.0)),
        Approximate::Fn(ApproxFn::Rsqrt) => {
            (ErrorBound::relative(-22.9), full, "relative 2^-22.94", ErrorBound::relative(-22.9))
        }
        Approximate::Fn(ApproxFn::Sqrt) => {
            (ErrorBound::relative(-23.0), full, "relative 2^-23.26", ErrorBound::relative(-23.0))
        }
        // Outside [-pi, pi] the error grows with the operand (2^-17.8 at 10 pi, 2^-14.7 at
        // 100 pi on an H200): the ISA bounds no other range.
        Approximate::Fn(ApproxFn::Sin) => (
            ErrorBound::absolute(-20.5),
            "a in [-pi, pi]",
            "absolute 2^-21.47 in [-pi, pi]",
            ErrorBound::absolute(-20.5),
        ),
        Approximate::Fn(ApproxFn::Cos) => (
            ErrorBound::absolute(-20.5),
            "a in [-pi, pi]",
            "absolute 2^-21.24 in [-pi, pi]",
            ErrorBound::absolute(-20.5),
        ),
        Approximate::Fn(ApproxFn::Tanh) => {
            (ErrorBound::relative(-10.987), full, "relative 2^-16.5", ErrorBound::relative(-10.987))
        }
        Approximate::Div(FloatDiv::Full) => (ErrorBound::ulps(2.0), full, "2.02 ulp", ErrorBound::ulps(3.0)),
        Approximate::Div(FloatDiv::Approx) => {
            (ErrorBound::ulps(2.0), "|b| in [2^-126, 2^126]", "2.004 ulp", ErrorBound::ulps(3.0))
        }
    };
    ApproxBound { inst, isa, domain, measured, tolerance }
}

/// The exact value an approximate instruction approximates, in f64 (for references).
pub fn approx_exact(inst: Approximate, a: f32, b: f32) -> f64 {
    let (x, y) = (f64::from(a), f64::from(b));
    match inst {
        Approximate::Fn(ApproxFn::Ex2) => x.exp2(),
        Approximate::Fn(ApproxFn::Lg2) => x.log2(),
        Approximate::Fn(ApproxFn::Rcp) => 1.0 / x,
        Approximate::Fn(ApproxFn::Rsqrt) => 1.0 / x.sqrt(),
        Approximate::Fn(ApproxFn::Sqrt) => x.sqrt(),
        Approximate::Fn(ApproxFn::Sin) => x.sin(),
        Approximate::Fn(ApproxFn::Cos) => x.cos(),
        Approximate::Fn(ApproxFn::Tanh) => x.tanh(),
        Approximate::Div(_) => x / y,
    }
}

/// `x` with a subnormal flushed to zero of its sign.
#[inline]
fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

#[inline]
fn flush_if(ftz: bool, x: f32) -> f32 {
    if ftz {
        flush(x)
    } else {
        x
    }
}

/// The bits of an f32 result: NaN canonical, subnormals flushed with `.ftz`.
#[inline]
fn result_bits(ftz: bool, r: f32) -> u64 {
    if r.is_nan() {
        return u64::from(CANONICAL_NAN_F32);
    }
    u64::from(flush_if(ftz, r).to_bits())
}

/// `ex2.approx.f32` and its siblings on the bits of their operand.
pub(super) fn approx(func: ApproxFn, ftz: bool, a: u64) -> u64 {
    let x = flush_if(ftz, f32::from_bits(a as u32));
    let r = match func {
        // IEEE operations already are the f32 nearest the exact value.
        ApproxFn::Rcp => 1.0 / x,
        ApproxFn::Sqrt => x.sqrt(),
        _ => approx_exact(Approximate::Fn(func), x, 0.0) as f32,
    };
    result_bits(ftz, r)
}

/// `div.full.f32` / `div.approx.f32`: the IEEE quotient, within both bounds.
pub(super) fn div(ftz: bool, a: u64, b: u64) -> u64 {
    let (x, y) = (flush_if(ftz, f32::from_bits(a as u32)), flush_if(ftz, f32::from_bits(b as u32)));
    result_bits(ftz, x / y)
}

/// `min`/`max` of f32 or f64: a NaN operand yields the other (the canonical NaN if both are,
/// or with `.NaN` if either is); -0 orders below +0.
pub(super) fn min_max(max: bool, ftz: bool, nan: bool, ty: Ty, a: u64, b: u64) -> u64 {
    if ty == Ty::F64 {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        return match pick(max, nan, x.is_nan(), y.is_nan(), x.total_cmp(&y), x == y) {
            Pick::A => a,
            Pick::B => b,
            Pick::Nan => CANONICAL_NAN_F64,
        };
    }
    let (x, y) = (flush_if(ftz, f32::from_bits(a as u32)), flush_if(ftz, f32::from_bits(b as u32)));
    match pick(max, nan, x.is_nan(), y.is_nan(), x.total_cmp(&y), x == y) {
        Pick::A => u64::from(x.to_bits()),
        Pick::B => u64::from(y.to_bits()),
        Pick::Nan => u64::from(CANONICAL_NAN_F32),
    }
}

enum Pick {
    A,
    B,
    Nan,
}

/// Which operand `min`/`max` returns: `order` is the total order (-0 below +0), `equal`
/// IEEE equality (true for -0 and +0).
fn pick(max: bool, nan: bool, a_nan: bool, b_nan: bool, order: std::cmp::Ordering, equal: bool) -> Pick {
    match (a_nan, b_nan) {
        (true, true) => Pick::Nan,
        (true, false) | (false, true) if nan => Pick::Nan,
        (true, false) => Pick::B,
        (false, true) => Pick::A,
        (false, false) => {
            // Equal values other than zeros of two signs are the same bits either way.
            let a_first = if equal { order.is_le() } else { order.is_lt() };
            if a_first != max {
                Pick::A
            } else {
                Pick::B
            }
        }
    }
}

/// An f32 converted to a 16-bit float format with `rounding` (`.rn` or `.rz`); `.relu` makes
/// a negative result +0. A NaN becomes the format's canonical NaN.
pub(super) fn narrow_16(to: PackedHalf, rounding: Rounding, relu: bool, x: f32) -> u16 {
    if x.is_nan() {
        return CANONICAL_NAN_16;
    }
    let x = if relu && x.is_sign_negative() { 0.0 } else { x };
    let toward_zero = rounding == Rounding::Rz;
    match to {
        PackedHalf::F16x2 => {
            let nearest = f16::from_f32(x);
            if toward_zero && f64::from(nearest.to_f32().abs()) > f64::from(x.abs()) {
                // One step toward zero: the magnitude's bits less one (an infinity from a
                // finite operand becomes the largest finite value).
                return nearest.to_bits() - 1;
            }
            nearest.to_bits()
        }
        PackedHalf::Bf16x2 => {
            let bits = x.to_bits();
            if toward_zero {
                return (bits >> 16) as u16;
            }
            // Ties to even on the dropped 16 bits; a carry into the exponent is the
            // correctly rounded result (up to an infinity).
            let rounded = bits.wrapping_add(0x7FFF + ((bits >> 16) & 1));
            (rounded >> 16) as u16
        }
    }
}

/// `cvt.rn.f16x2.f32 d, a, b` and `.bf16x2`: `a` into the upper half, `b` the lower.
pub(super) fn cvt_pack(to: PackedHalf, rounding: Rounding, relu: bool, a: u64, b: u64) -> u64 {
    let hi = narrow_16(to, rounding, relu, f32::from_bits(a as u32));
    let lo = narrow_16(to, rounding, relu, f32::from_bits(b as u32));
    u64::from(lo) | u64::from(hi) << 16
}

/// `cvt.rna.tf32.f32` (and `.rn`, `.rz`): the f32 with its 13 low fraction bits rounded
/// away. A NaN keeps its sign and payload with those bits cleared, as an H200 does (a NaN
/// whose payload is only in them becomes an infinity there).
pub(super) fn to_tf32(rounding: Rounding, a: u64) -> u64 {
    let bits = a as u32;
    if f32::from_bits(bits).is_nan() {
        return u64::from(bits & !0x1FFF);
    }
    let rounded = match rounding {
        Rounding::Rz | Rounding::Rzi => bits,
        Rounding::Rn | Rounding::Rni => bits.wrapping_add(0xFFF + ((bits >> 13) & 1)),
        Rounding::Rna => bits.wrapping_add(0x1000),
    };
    u64::from(rounded & !0x1FFF)
}

/// The value of a tf32 operand of `mma`: the register's f32 with the 13 low fraction bits
/// ignored (a register `cvt.rna.tf32.f32` wrote has none).
pub(super) fn tf32_value(reg: u64) -> f32 {
    f32::from_bits(reg as u32 & !0x1FFF)
}

/// The value of a bf16 in the low 16 bits of `bits` (exact).
pub(super) fn bf16_value(bits: u64) -> f32 {
    f32::from_bits((bits as u32 & 0xFFFF) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    fn value(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }

    const SUBNORMAL: f32 = 1.0e-40;

    #[test]
    fn approximations_are_the_nearest_f32_and_handle_specials() {
        assert_eq!(value(approx(ApproxFn::Ex2, false, bits(3.0))), 8.0);
        assert_eq!(value(approx(ApproxFn::Ex2, false, bits(-0.5))), std::f32::consts::FRAC_1_SQRT_2);
        assert_eq!(approx(ApproxFn::Ex2, false, bits(f32::NEG_INFINITY)), bits(0.0));
        assert_eq!(approx(ApproxFn::Ex2, false, bits(f32::INFINITY)), bits(f32::INFINITY));
        assert_eq!(approx(ApproxFn::Ex2, false, bits(f32::NAN)), u64::from(CANONICAL_NAN_F32));
        // A subnormal result is kept, and flushed with `.ftz`; so is a subnormal operand.
        assert_eq!(value(approx(ApproxFn::Ex2, false, bits(-140.0))), (-140f32).exp2());
        assert!(value(approx(ApproxFn::Ex2, false, bits(-140.0))).is_subnormal());
        assert_eq!(approx(ApproxFn::Ex2, true, bits(-140.0)), bits(0.0));
        assert_eq!(value(approx(ApproxFn::Rcp, true, bits(-SUBNORMAL))), f32::NEG_INFINITY);
        assert_eq!(value(approx(ApproxFn::Rcp, false, bits(4.0))), 0.25);
        assert_eq!(value(approx(ApproxFn::Lg2, false, bits(0.0))), f32::NEG_INFINITY);
        assert_eq!(approx(ApproxFn::Lg2, false, bits(-1.0)), u64::from(CANONICAL_NAN_F32));
        assert_eq!(value(approx(ApproxFn::Lg2, false, bits(1024.0))), 10.0);
        assert_eq!(value(approx(ApproxFn::Rsqrt, false, bits(-0.0))), f32::NEG_INFINITY);
        assert_eq!(value(approx(ApproxFn::Rsqrt, false, bits(0.25))), 2.0);
        assert_eq!(approx(ApproxFn::Sqrt, false, bits(-0.0)), bits(-0.0));
        assert_eq!(value(approx(ApproxFn::Tanh, false, bits(f32::NEG_INFINITY))), -1.0);
        assert_eq!(approx(ApproxFn::Sin, false, bits(f32::INFINITY)), u64::from(CANONICAL_NAN_F32));
        // The model is within every bound the ISA states.
        for func in ApproxFn::ALL {
            for k in 1..200 {
                let x = (k as f32 - 100.0) * 0.37;
                let got = value(approx(func, false, bits(x)));
                let inst = Approximate::Fn(func);
                let exact = approx_exact(inst, x, 0.0);
                let bound = approx_bound(inst);
                assert!(bound.isa.admits(exact, got), "{inst} of {x}: {got} vs {exact}");
                let wider = !exact.is_finite() || bound.tolerance.allowed(exact) >= bound.isa.allowed(exact);
                assert!(wider, "{inst}: the tolerance is at least the ISA's bound");
            }
        }
    }

    #[test]
    fn divisions_are_ieee_quotients_flushed_with_ftz() {
        assert_eq!(value(div(false, bits(1.0), bits(3.0))), 1.0 / 3.0);
        assert_eq!(value(div(false, bits(1.0), bits(0.0))), f32::INFINITY);
        assert_eq!(div(false, bits(0.0), bits(0.0)), u64::from(CANONICAL_NAN_F32));
        assert_eq!(value(div(false, bits(SUBNORMAL), bits(1.0))), SUBNORMAL);
        assert_eq!(div(true, bits(SUBNORMAL), bits(1.0)), bits(0.0));
        assert_eq!(div(true, bits(1.0e-30), bits(1.0e10)), bits(0.0));
    }

    #[test]
    fn bounds_admit_what_they_state() {
        let ex2 = approx_bound(Approximate::Fn(ApproxFn::Ex2)).isa;
        assert!(ex2.admits(1.0, 1.0 + 2f32.powi(-23)));
        assert!(!ex2.admits(1.0, 1.0 + 2f32.powi(-20)));
        let div = approx_bound(Approximate::Div(FloatDiv::Full));
        assert!(div.isa.admits(1.0, 1.0 + 2.0 * f32::EPSILON));
        assert!(!div.isa.admits(1.0, 1.0 + 3.0 * f32::EPSILON) && div.tolerance.admits(1.0, 1.0 + 3.0 * f32::EPSILON));
        let lg2 = approx_bound(Approximate::Fn(ApproxFn::Lg2));
        assert!(lg2.isa.admits(100.0, 100.0) && !lg2.isa.admits(100.0, 100.001));
        assert!(lg2.isa.admits(0.5, 0.5 + 2f32.powi(-23)) && !lg2.isa.admits(0.5, 0.5 + 2f32.powi(-21)));
        // One ulp of a large result and 2^-22 besides (what an H200 needs).
        assert!(
            lg2.tolerance.admits(100.0, 100.0 + 2f32.powi(-17)) && !lg2.tolerance.admits(100.0, 100.0 + 2f32.powi(-15))
        );
        assert!(ex2.admits(f64::NAN, f32::NAN) && !ex2.admits(1.0, f32::NAN) && !ex2.admits(f64::INFINITY, 1.0e38));
    }

    #[test]
    fn min_max_follow_the_isa_on_nan_and_zeros() {
        let mm = |max, nan, a: f32, b: f32| value(min_max(max, false, nan, Ty::F32, bits(a), bits(b)));
        assert_eq!(mm(true, false, 1.0, 2.0), 2.0);
        assert_eq!(mm(false, false, 1.0, 2.0), 1.0);
        assert_eq!(mm(true, false, f32::NAN, 2.0), 2.0);
        assert_eq!(mm(false, false, 2.0, f32::NAN), 2.0);
        assert_eq!(min_max(true, false, false, Ty::F32, bits(f32::NAN), bits(f32::NAN)), u64::from(CANONICAL_NAN_F32));
        assert_eq!(min_max(true, false, true, Ty::F32, bits(f32::NAN), bits(1.0)), u64::from(CANONICAL_NAN_F32));
        assert_eq!(mm(true, false, -0.0, 0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(mm(true, false, 0.0, -0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(mm(false, false, 0.0, -0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(mm(true, false, f32::NEG_INFINITY, -1.0), -1.0);
        assert_eq!(min_max(true, true, false, Ty::F32, bits(-SUBNORMAL), bits(-0.0)), bits(-0.0));
        assert_eq!(min_max(false, false, false, Ty::F64, 2.0f64.to_bits(), f64::NAN.to_bits()), 2.0f64.to_bits());
    }

    #[test]
    fn narrow_conversions_round_as_asked() {
        let rn = |to, x| narrow_16(to, Rounding::Rn, false, x);
        let rz = |to, x| narrow_16(to, Rounding::Rz, false, x);
        // 1 + 2^-11 is a tie between f16 1.0 and 1 + 2^-10: even is 1.0.
        assert_eq!(rn(PackedHalf::F16x2, 1.0 + 2f32.powi(-11)), 0x3C00);
        assert_eq!(rn(PackedHalf::F16x2, 1.0 + 3.0 * 2f32.powi(-11)), 0x3C02);
        assert_eq!(rz(PackedHalf::F16x2, 1.0 + 3.0 * 2f32.powi(-11)), 0x3C01);
        assert_eq!(rz(PackedHalf::F16x2, -1.0e6), 0xFBFF);
        assert_eq!(rn(PackedHalf::F16x2, -1.0e6), 0xFC00);
        assert_eq!(rn(PackedHalf::F16x2, f32::NAN), 0x7FFF);
        // bf16: 1 + 2^-8 ties to 1.0; 1 + 3 * 2^-8 to 1 + 2^-6.
        assert_eq!(rn(PackedHalf::Bf16x2, 1.0 + 2f32.powi(-8)), 0x3F80);
        assert_eq!(rn(PackedHalf::Bf16x2, 1.0 + 3.0 * 2f32.powi(-8)), 0x3F82);
        assert_eq!(rz(PackedHalf::Bf16x2, 1.0 + 3.0 * 2f32.powi(-8)), 0x3F81);
        assert_eq!(rn(PackedHalf::Bf16x2, f32::MAX), 0x7F80);
        assert_eq!(narrow_16(PackedHalf::Bf16x2, Rounding::Rn, true, -3.0), 0);
        assert_eq!(cvt_pack(PackedHalf::F16x2, Rounding::Rn, false, bits(2.0), bits(1.0)), 0x4000_3C00);
        assert_eq!(bf16_value(0x3FC0), 1.5);
    }

    #[test]
    fn tf32_keeps_ten_fraction_bits() {
        let half_step = 1.0 + 2f32.powi(-11);
        assert_eq!(value(to_tf32(Rounding::Rna, bits(half_step))), 1.0 + 2f32.powi(-10));
        assert_eq!(value(to_tf32(Rounding::Rn, bits(half_step))), 1.0);
        assert_eq!(value(to_tf32(Rounding::Rz, bits(1.0 + 3.0 * 2f32.powi(-11)))), 1.0 + 2f32.powi(-10));
        assert_eq!(to_tf32(Rounding::Rna, bits(f32::INFINITY)), bits(f32::INFINITY));
        assert_eq!(to_tf32(Rounding::Rna, 0x7FFF_FFFF), 0x7FFF_E000);
        assert_eq!(to_tf32(Rounding::Rna, 0xFFC0_0123), 0xFFC0_0000);
        assert_eq!(tf32_value(bits(half_step)), 1.0);
    }
    #[test]
    fn cvt_reaches_the_narrow_formats() {
        use super::super::alu::cvt;
        let f = |v: f32| u64::from(v.to_bits());
        let third = 1.0f32 / 3.0;
        assert_eq!(cvt(Ty::Bf16, Ty::F32, Some(Rounding::Rn), f(third)), 0x3EAB);
        assert_eq!(cvt(Ty::Bf16, Ty::F32, Some(Rounding::Rz), f(third)), 0x3EAA);
        assert_eq!(cvt(Ty::F32, Ty::Bf16, None, 0x3EAB), f(f32::from_bits(0x3EAB_0000)));
        assert_eq!(cvt(Ty::Bf16, Ty::S32, Some(Rounding::Rn), 257), 0x4380);
        assert_eq!(cvt(Ty::S32, Ty::Bf16, Some(Rounding::Rzi), 0xC0A0), (-5i64 as u64) & 0xFFFF_FFFF);
        assert_eq!(cvt(Ty::Tf32, Ty::F32, Some(Rounding::Rna), f(third)), 0x3EAA_A000);
        assert_eq!(cvt(Ty::Tf32, Ty::F32, Some(Rounding::Rna), f(0.7)), 0x3F33_4000);
        // `.rz` to f16 steps toward zero where `.rn` rounds away.
        assert_eq!(cvt(Ty::F16, Ty::F32, Some(Rounding::Rz), f(third)), 0x3555);
        assert_eq!(cvt(Ty::F16, Ty::F32, Some(Rounding::Rn), f(third)), 0x3555);
        assert_eq!(cvt(Ty::F16, Ty::F32, Some(Rounding::Rz), f(2.0 / 3.0)), 0x3955);
        assert_eq!(cvt(Ty::F16, Ty::F32, Some(Rounding::Rn), f(2.0 / 3.0)), 0x3955);
        assert_eq!(cvt(Ty::F16, Ty::F32, Some(Rounding::Rz), f(0.7)), 0x3999);
        assert_eq!(cvt(Ty::F16, Ty::F32, Some(Rounding::Rn), f(0.7)), 0x399A);
    }
}
