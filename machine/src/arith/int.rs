//! Integer and bool operators: two's-complement wrapping `+ - *`, the division family,
//! min/max, bitwise operators and shifts.
//!
//! Inputs and outputs are canonical bits (sign-extended for signed kinds, zero-extended for
//! unsigned ones). Division or modulo by zero and shift amounts outside `0..width` are faults;
//! `MIN / -1` wraps to `MIN` (and `MIN % -1` is 0) instead of trapping like the host would.

use tirproof_ir::expr::BinOp;
use tirproof_ir::int_arith::{floor_div, floor_mod};

use crate::error::{Trap, R};
use crate::fault::FaultKind;
use crate::value::{int_value, norm, show, Num};

/// `a op b` on canonical integer or bool bits of kind `num`.
#[inline]
pub fn binary(op: BinOp, num: Num, a: u64, b: u64) -> R<u64> {
    Ok(match op {
        // Canonical forms agree in their low bits with the true result, so wrapping u64
        // arithmetic followed by `norm` is two's-complement arithmetic of any width.
        BinOp::Add => norm(num, a.wrapping_add(b)),
        BinOp::Sub => norm(num, a.wrapping_sub(b)),
        BinOp::Mul => norm(num, a.wrapping_mul(b)),
        BinOp::Min => {
            if less(num, b, a) {
                b
            } else {
                a
            }
        }
        BinOp::Max => {
            if less(num, a, b) {
                b
            } else {
                a
            }
        }
        // Bitwise operations preserve sign- and zero-extension.
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Shl | BinOp::Shr => return shift(op, num, a, b),
        BinOp::Div | BinOp::FloorDiv | BinOp::FloorMod | BinOp::TruncDiv | BinOp::TruncMod => {
            return division(op, num, a, b)
        }
    })
}

#[inline]
fn less(num: Num, a: u64, b: u64) -> bool {
    match num {
        Num::Int(_) => (a as i64) < (b as i64),
        _ => a < b,
    }
}

/// How a division-family operator reads in a message: `7 // 0`, `truncmod(7, 0)`.
fn show_division(op: BinOp, num: Num, a: u64) -> String {
    let a = show(num, a);
    match op {
        BinOp::Div => format!("{a} / 0"),
        BinOp::FloorDiv => format!("{a} // 0"),
        BinOp::FloorMod => format!("{a} % 0"),
        BinOp::TruncDiv => format!("truncdiv({a}, 0)"),
        _ => format!("truncmod({a}, 0)"),
    }
}

fn division(op: BinOp, num: Num, a: u64, b: u64) -> R<u64> {
    if b == 0 {
        let text = show_division(op, num, a);
        return Err(Trap::fault(FaultKind::DivisionByZero, format!("integer division by zero: {text} ({num})")));
    }
    if let Num::Int(_) = num {
        let (x, y) = (a as i64, b as i64);
        let r = match op {
            BinOp::Div | BinOp::TruncDiv => x.wrapping_div(y),
            BinOp::TruncMod => x.wrapping_rem(y),
            BinOp::FloorDiv => floor_div(x, y),
            _ => floor_mod(x, y),
        };
        return Ok(norm(num, r as u64));
    }
    // Unsigned (and bool): truncation and flooring agree.
    Ok(match op {
        BinOp::Div | BinOp::TruncDiv | BinOp::FloorDiv => a / b,
        _ => a % b,
    })
}

fn shift(op: BinOp, num: Num, a: u64, b: u64) -> R<u64> {
    let amount = int_value(num, b);
    let width = num.width();
    if amount < 0 || amount >= i128::from(width) {
        return Err(Trap::fault(
            FaultKind::ShiftOutOfRange,
            format!("shift amount {amount} out of range for {num} (must be in 0..{width})"),
        ));
    }
    // In range: 0 <= amount < width <= 64.
    let amount = amount as u32;
    Ok(match (op, num) {
        (BinOp::Shl, _) => norm(num, a << amount),
        (_, Num::Int(_)) => ((a as i64) >> amount) as u64,
        _ => a >> amount,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::TrapKind;

    const I32: Num = Num::Int(32);

    fn i32op(op: BinOp, a: i64, b: i64) -> i64 {
        binary(op, I32, a as u64, b as u64).unwrap() as i64
    }

    fn fault_kind(r: R<u64>) -> FaultKind {
        match *r.unwrap_err().0 {
            TrapKind::Fault { kind, .. } => kind,
            _ => panic!("expected a fault"),
        }
    }

    #[test]
    fn int32_wraps() {
        assert_eq!(i32op(BinOp::Add, i64::from(i32::MAX), 1), i64::from(i32::MIN));
        assert_eq!(i32op(BinOp::Mul, 65536, 65536), 0);
        assert_eq!(i32op(BinOp::Sub, i64::from(i32::MIN), 1), i64::from(i32::MAX));
        assert_eq!(i32op(BinOp::Div, i64::from(i32::MIN), -1), i64::from(i32::MIN));
        assert_eq!(i32op(BinOp::TruncMod, i64::from(i32::MIN), -1), 0);
        assert_eq!(i32op(BinOp::FloorDiv, i64::from(i32::MIN), -1), i64::from(i32::MIN));
    }

    #[test]
    fn floor_and_trunc_division_of_negatives() {
        assert_eq!(i32op(BinOp::FloorDiv, -7, 2), -4);
        assert_eq!(i32op(BinOp::FloorMod, -7, 2), 1);
        assert_eq!(i32op(BinOp::FloorDiv, 7, -2), -4);
        assert_eq!(i32op(BinOp::FloorMod, 7, -2), -1);
        assert_eq!(i32op(BinOp::FloorMod, -8, 2), 0);
        assert_eq!(i32op(BinOp::TruncDiv, -7, 2), -3);
        assert_eq!(i32op(BinOp::TruncMod, -7, 2), -1);
        assert_eq!(i32op(BinOp::Div, -7, 2), -3);
    }

    #[test]
    fn small_and_unsigned_kinds_wrap() {
        assert_eq!(binary(BinOp::Add, Num::Int(8), 127, 1).unwrap() as i64, -128);
        assert_eq!(binary(BinOp::Add, Num::UInt(8), 255, 1).unwrap(), 0);
        assert_eq!(binary(BinOp::Sub, Num::UInt(16), 0, 1).unwrap(), 65535);
        assert_eq!(binary(BinOp::Mul, Num::Int(16), 300, 300).unwrap() as i64, 24464);
        assert_eq!(binary(BinOp::FloorDiv, Num::UInt(32), 7, 2).unwrap(), 3);
        assert_eq!(binary(BinOp::Max, Num::UInt(64), u64::MAX, 1).unwrap(), u64::MAX);
        assert_eq!(binary(BinOp::Max, Num::Int(64), u64::MAX, 1).unwrap(), 1);
    }

    #[test]
    fn division_by_zero_faults() {
        assert_eq!(fault_kind(binary(BinOp::FloorMod, I32, 3, 0)), FaultKind::DivisionByZero);
        let msg = match *binary(BinOp::FloorDiv, I32, 7, 0).unwrap_err().0 {
            TrapKind::Fault { message, .. } => message,
            _ => unreachable!(),
        };
        assert_eq!(msg, "integer division by zero: 7 // 0 (int32)");
    }

    #[test]
    fn shifts() {
        assert_eq!(i32op(BinOp::Shl, 1, 31), i64::from(i32::MIN));
        assert_eq!(i32op(BinOp::Shr, -8, 1), -4);
        assert_eq!(binary(BinOp::Shr, Num::UInt(32), 0x8000_0000, 31).unwrap(), 1);
        assert_eq!(fault_kind(binary(BinOp::Shl, I32, 1, 32)), FaultKind::ShiftOutOfRange);
        assert_eq!(fault_kind(binary(BinOp::Shr, I32, 1, (-1i64) as u64)), FaultKind::ShiftOutOfRange);
    }

    #[test]
    fn bitwise_keeps_canonical_form() {
        assert_eq!(i32op(BinOp::BitAnd, -1, 0xF0), 0xF0);
        assert_eq!(i32op(BinOp::BitXor, -1, 0), -1);
        assert_eq!(i32op(BinOp::BitOr, i64::from(i32::MIN), 1), i64::from(i32::MIN) + 1);
    }
}
