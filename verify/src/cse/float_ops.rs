//! Float operators on IEEE terms, with the interpreter's semantics: every operation rounds to
//! nearest-even in the element type; `//` is `floor(a / b)`, `%` is `a - floor(a / b) * b`
//! (each step rounded), `truncdiv` truncates `a / b`; `min`/`max` are `select(a < b, a, b)` /
//! `select(a > b, a, b)` (so a NaN operand picks the second); comparisons are IEEE (NaN compares
//! unequal to everything). Floats never fault. `truncmod` (C's `fmod`) has no exact Z3 form
//! and is encoded as an uninterpreted function by the caller.

use tirproof_ir::{BinOp, CmpOp};
use z3::ast::RoundingMode;
use z3::ast::{Bool, Float};

use super::EncodeError;

fn rne() -> RoundingMode {
    RoundingMode::round_nearest_ties_to_even()
}

/// `a op b`; `None` for `truncmod`, which the caller models.
pub fn binary(op: BinOp, a: &Float, b: &Float) -> Result<Option<Float>, EncodeError> {
    let rm = rne();
    Ok(Some(match op {
        BinOp::Add => a.add_with_rounding_mode(b, &rm),
        BinOp::Sub => a.sub_with_rounding_mode(b, &rm),
        BinOp::Mul => a.mul_with_rounding_mode(b, &rm),
        BinOp::Div => a.div_with_rounding_mode(b, &rm),
        BinOp::FloorDiv => floor_div(a, b),
        BinOp::FloorMod => a.sub_with_rounding_mode(floor_div(a, b).mul_with_rounding_mode(b, &rm), &rm),
        BinOp::TruncDiv => {
            a.div_with_rounding_mode(b, &rm).round_to_integral_with_rounding_mode(&RoundingMode::round_towards_zero())
        }
        BinOp::Min => a.lt(b).ite(a, b),
        BinOp::Max => a.gt(b).ite(a, b),
        BinOp::TruncMod => return Ok(None),
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr => {
            return Err(EncodeError::Unsupported(format!("bitwise operator `{op}` on floats")))
        }
    }))
}

fn floor_div(a: &Float, b: &Float) -> Float {
    a.div_with_rounding_mode(b, &rne()).round_to_integral_with_rounding_mode(&RoundingMode::round_towards_negative())
}

/// `a op b` as a condition.
pub fn compare(op: CmpOp, a: &Float, b: &Float) -> Bool {
    match op {
        CmpOp::Eq => a.eq_fpa(b),
        CmpOp::Ne => a.eq_fpa(b).not(),
        CmpOp::Lt => a.lt(b),
        CmpOp::Le => a.le(b),
        CmpOp::Gt => a.gt(b),
        CmpOp::Ge => a.ge(b),
    }
}
