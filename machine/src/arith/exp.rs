//! `exp` of a float32, as one fixed sequence of IEEE float64 operations that every executor
//! performs the same way: the interpreter here, and the PTX that codegen emits for `T.exp`
//! (`tirproof-ptx`'s `codegen`, instruction for instruction), so that the two agree bit for
//! bit, on the CPU emulator and on a GPU alike. A platform's `expf` differs between libraries
//! and PTX has only `ex2.approx`, so neither could be that common definition.
//!
//! The sequence: `d = x` widened (exact), clamped to `[-104, 89]` (below, every result rounds
//! to 0 in float32; above, to infinity); `n = round_ties_even(d * log2(e))`;
//! `r = d - n * ln(2)` with `ln(2)` split in two (the first part has 21 trailing zero bits, so
//! `n * LN2_HI` is exact for every `n` here) and two fused multiply-adds; `e^r` by its Taylor
//! polynomial of degree 9 in Horner form with fused multiply-adds (`|r| <= 0.35`, so the
//! truncation error is below `2^-32` relative); the result `p * 2^n` (exact in float64) rounded
//! once to float32. A NaN returns itself. The float64 result is within about `2^-50` of `e^x`,
//! so the float32 result is the correctly rounded one except when `e^x` lies that close to the
//! midpoint of two float32 values (checked against float64 `exp` below).

/// Where the argument is clamped: `e^-104` rounds to 0 and `e^89` to infinity in float32.
pub const EXP_MIN_ARG: f64 = -104.0;
pub const EXP_MAX_ARG: f64 = 89.0;
pub const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// `ln(2)` split: the high part's last 21 significand bits are zero.
pub const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
pub const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
/// `1 / k!` for `k = 9, 8, ..., 0`: the Horner order.
pub const EXP_TAYLOR: [f64; 10] = [
    1.0 / 362_880.0,
    1.0 / 40_320.0,
    1.0 / 5_040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    1.0 / 2.0,
    1.0,
    1.0,
];
/// The float64 exponent bias: `2^n` has the bits `(n + EXP_BIAS) << 52`.
pub const EXP_BIAS: i32 = 1023;

/// `e^x` for a float32 `x` (see the module documentation for the exact sequence).
pub fn exp_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    // Two compares and selects in the PTX; `d` is not a NaN here.
    let d = f64::from(x).clamp(EXP_MIN_ARG, EXP_MAX_ARG);
    let n = (d * LOG2_E).round_ties_even();
    let r = n.mul_add(-LN2_HI, d);
    let r = n.mul_add(-LN2_LO, r);
    let mut p = EXP_TAYLOR[0];
    for c in &EXP_TAYLOR[1..] {
        p = p.mul_add(r, *c);
    }
    // `n` is an integer in [-151, 129]: the cast is exact and the biased exponent positive.
    let scale = f64::from_bits(((n as i32 + EXP_BIAS) as u64) << 52);
    (p * scale) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_correctly_rounded_on_a_sweep_and_exact_at_the_edges() {
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(1.0), std::f32::consts::E);
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(89.0), f32::INFINITY);
        assert_eq!(exp_f32(-104.0), 0.0);
        assert!(exp_f32(f32::NAN).is_nan());
        // Against float64 `exp` rounded once to float32, over every 97th float32 in [-110, 100].
        let (mut checked, mut off) = (0u32, 0u32);
        let mut bits = (-110f32).to_bits();
        while f32::from_bits(bits) < 0.0 || f32::from_bits(bits) <= 100.0 {
            let x = f32::from_bits(bits);
            let want = f64::from(x).exp() as f32;
            let got = exp_f32(x);
            if got != want {
                // Never more than one float32 step away.
                assert!(got.to_bits().abs_diff(want.to_bits()) <= 1, "exp({x}) = {got}, want {want}");
                off += 1;
            }
            checked += 1;
            bits = if x < 0.0 && bits > 0x8000_0000 + 96 {
                bits - 97
            } else if x < 0.0 {
                0
            } else {
                bits + 97
            };
        }
        assert!(checked > 10_000_000 / 97 && off * 100_000 < checked, "{off} of {checked} off by one step");
    }
}
