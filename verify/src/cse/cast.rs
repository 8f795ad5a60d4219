//! Casts (`T.Cast`), with the interpreter's semantics: to bool is "non-zero" (NaN is true);
//! integer to integer wraps (sign-extending a signed source, zero-extending an unsigned one);
//! float to float rounds to nearest-even; float to integer truncates toward zero and faults on
//! NaN, on infinities and when the truncated value is outside the target's range. Integer to
//! float has no Z3 form in the crate's safe API: the caller encodes it as an uninterpreted
//! function of the source (`None` here), which is exact enough for CSE, which never rewrites a
//! cast into anything but itself.

use tirproof_ir::{DataType, TypeCode};
use z3::ast::RoundingMode;
use z3::ast::{Bool, Float, BV};
use z3::Sort;

use super::sym::{bv_width, float_format, from_bool, is_signed, Lane};
use super::EncodeError;

/// The lane cast from `from` to `to` and when it faults; `None` when the caller must model it.
pub fn cast(lane: &Lane, from: DataType, to: DataType) -> Result<Option<(Lane, Bool)>, EncodeError> {
    let ok = Bool::from_bool(false);
    if from.element() == to.element() {
        return Ok(Some((lane.clone(), ok)));
    }
    if to.code == TypeCode::Bool {
        return Ok(Some((from_bool(&lane.truthy()), ok)));
    }
    match (from.is_float(), to.is_float()) {
        (false, false) => Ok(Some((Lane::Bv(resize(lane.bv()?, is_signed(from), bv_width(to)?)), ok))),
        (true, true) => {
            let (e, s) = float_format(to)?;
            let rm = RoundingMode::round_nearest_ties_to_even();
            Ok(Some((Lane::Fp(lane.fp()?.to_fp_with_rounding_mode(&rm, &Sort::float(e, s))), ok)))
        }
        (true, false) => float_to_int(lane.fp()?, from, to).map(Some),
        (false, true) => Ok(None),
    }
}

/// Wraps or extends a bit-vector to `width` bits.
fn resize(v: &BV, signed: bool, width: u32) -> BV {
    let have = v.get_size();
    if width < have {
        v.extract(width - 1, 0)
    } else if width == have {
        v.clone()
    } else if signed {
        v.sign_ext(width - have)
    } else {
        v.zero_ext(width - have)
    }
}

fn float_to_int(x: &Float, from: DataType, to: DataType) -> Result<(Lane, Bool), EncodeError> {
    let width = bv_width(to)?;
    let (e, s) = float_format(from)?;
    let sort = Sort::float(e, s);
    let rne = RoundingMode::round_nearest_ties_to_even();
    let bound = |v: f64| Float::from_f64(v).to_fp_with_rounding_mode(&rne, &sort);
    let signed = to.code == TypeCode::Int;
    let (lo, hi) = if signed {
        (-(2f64.powi(width as i32 - 1)), 2f64.powi(width as i32 - 1))
    } else {
        (0.0, 2f64.powi(width as i32))
    };
    let t = x.round_to_integral_with_rounding_mode(&RoundingMode::round_towards_zero());
    let fault = Bool::or(&[x.is_nan(), x.is_infinite(), t.lt(bound(lo)), t.ge(bound(hi))]);
    let rtz = RoundingMode::round_towards_zero();
    let value =
        if signed { x.to_sbv_with_rounding_mode(&rtz, width) } else { x.to_ubv_with_rounding_mode(&rtz, width) };
    Ok((Lane::Bv(value), fault))
}
