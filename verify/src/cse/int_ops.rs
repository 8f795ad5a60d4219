//! Integer and bool operators on bit-vectors, with the interpreter's exact semantics.
//!
//! `+ - *` wrap; `/` and `truncdiv` round toward zero, `//` toward negative infinity, `%` has
//! the sign of the divisor (`bvsmod`), `truncmod` the sign of the dividend; `MIN / -1` wraps to
//! `MIN` (SMT-LIB's `bvsdiv` does too). Division by zero faults (the value is then
//! irrelevant); a shift faults when its amount is outside `0..width`. Signed types compare and
//! divide as signed, unsigned types and bool as unsigned.

use tirproof_ir::{BinOp, CmpOp};
use z3::ast::{Bool, BV};

/// `a op b` and when it faults.
pub fn binary(op: BinOp, signed: bool, a: &BV, b: &BV) -> (BV, Bool) {
    let width = a.get_size();
    let zero = BV::from_u64(0, width);
    let no_fault = Bool::from_bool(false);
    match op {
        BinOp::Add => (a.bvadd(b), no_fault),
        BinOp::Sub => (a.bvsub(b), no_fault),
        BinOp::Mul => (a.bvmul(b), no_fault),
        BinOp::Min => (less(signed, b, a).ite(b, a), no_fault),
        BinOp::Max => (less(signed, a, b).ite(b, a), no_fault),
        BinOp::BitAnd => (a.bvand(b), no_fault),
        BinOp::BitOr => (a.bvor(b), no_fault),
        BinOp::BitXor => (a.bvxor(b), no_fault),
        BinOp::Shl | BinOp::Shr => shift(op, signed, a, b),
        BinOp::Div | BinOp::TruncDiv | BinOp::TruncMod | BinOp::FloorDiv | BinOp::FloorMod => {
            (division(op, signed, a, b), b.eq(&zero))
        }
    }
}

fn less(signed: bool, a: &BV, b: &BV) -> Bool {
    if signed {
        a.bvslt(b)
    } else {
        a.bvult(b)
    }
}

fn division(op: BinOp, signed: bool, a: &BV, b: &BV) -> BV {
    if !signed {
        return match op {
            BinOp::Div | BinOp::TruncDiv | BinOp::FloorDiv => a.bvudiv(b),
            _ => a.bvurem(b),
        };
    }
    match op {
        BinOp::Div | BinOp::TruncDiv => a.bvsdiv(b),
        BinOp::TruncMod => a.bvsrem(b),
        BinOp::FloorMod => a.bvsmod(b),
        _ => floor_div(a, b),
    }
}

/// Signed division rounding toward negative infinity: the truncated quotient, minus one when
/// the remainder is non-zero and the operands have opposite signs.
fn floor_div(a: &BV, b: &BV) -> BV {
    let width = a.get_size();
    let zero = BV::from_u64(0, width);
    let q = a.bvsdiv(b);
    let r = a.bvsrem(b);
    let opposite = a.bvslt(&zero).xor(b.bvslt(&zero));
    let adjust = Bool::and(&[r.eq(&zero).not(), opposite]);
    adjust.ite(&q.bvsub(BV::from_u64(1, width)), &q)
}

fn shift(op: BinOp, signed: bool, a: &BV, b: &BV) -> (BV, Bool) {
    let width = a.get_size();
    let limit = BV::from_u64(u64::from(width), width.max(8));
    // Compare the amount at a width that can hold `width` itself (a 1-bit bool cannot).
    let amount = if width < 8 {
        if signed {
            b.sign_ext(8 - width)
        } else {
            b.zero_ext(8 - width)
        }
    } else {
        b.clone()
    };
    let zero = BV::from_u64(0, amount.get_size());
    let out_of_range =
        if signed { Bool::or(&[amount.bvslt(&zero), amount.bvsge(&limit)]) } else { amount.bvuge(&limit) };
    let value = match (op, signed) {
        (BinOp::Shl, _) => a.bvshl(b),
        (_, true) => a.bvashr(b),
        _ => a.bvlshr(b),
    };
    (value, out_of_range)
}

/// `a op b` as a condition.
pub fn compare(op: CmpOp, signed: bool, a: &BV, b: &BV) -> Bool {
    match op {
        CmpOp::Eq => a.eq(b),
        CmpOp::Ne => a.eq(b).not(),
        CmpOp::Lt => less(signed, a, b),
        CmpOp::Le => less(signed, b, a).not(),
        CmpOp::Gt => less(signed, b, a),
        CmpOp::Ge => less(signed, a, b).not(),
    }
}
