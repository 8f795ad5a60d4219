//! Conversions between scalar kinds (`T.Cast`).
//!
//! int -> int wraps to the target width; int -> float and float -> float round to nearest
//! even, exactly once; float -> int truncates toward zero and faults (`InvalidCast`) on NaN
//! and on values whose truncation is outside the target range; anything -> bool is `!= 0`.

use crate::error::{Trap, R};
use crate::fault::FaultKind;
use crate::value::{float_from_f64, float_from_int, float_to_f64, int_value, norm, show, truthy, Num};

/// Converts canonical bits of kind `from` to canonical bits of kind `to`.
#[inline]
pub fn cast(from: Num, to: Num, bits: u64) -> R<u64> {
    if from == to {
        return Ok(bits);
    }
    if to == Num::Bool {
        return Ok(u64::from(truthy(from, bits)));
    }
    Ok(match (from.is_float(), to.is_float()) {
        (false, false) => norm(to, bits),
        (false, true) => float_from_int(to, int_value(from, bits)),
        (true, true) => float_from_f64(to, float_to_f64(from, bits)),
        (true, false) => return float_to_int(from, to, bits),
    })
}

/// The half-open range `[lo, hi)` of an integer kind, as exact f64 bounds.
fn int_range(num: Num) -> (f64, f64) {
    match num {
        Num::Int(b) => {
            let half = 2f64.powi(i32::from(b) - 1);
            (-half, half)
        }
        Num::UInt(b) => (0.0, 2f64.powi(i32::from(b))),
        _ => (0.0, 2.0),
    }
}

fn float_to_int(from: Num, to: Num, bits: u64) -> R<u64> {
    let value = float_to_f64(from, bits);
    if value.is_nan() {
        return Err(Trap::fault(FaultKind::InvalidCast, format!("cast of NaN ({from}) to {to}")));
    }
    let truncated = value.trunc();
    let (lo, hi) = int_range(to);
    if truncated < lo || truncated >= hi {
        return Err(Trap::fault(
            FaultKind::InvalidCast,
            format!("cast of {} ({from}) to {to} is out of range", show(from, bits)),
        ));
    }
    // In range, so the value fits in i128 exactly and `as` does not saturate.
    Ok(norm(to, truncated as i128 as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::TrapKind;

    fn f(num: Num, v: f64) -> u64 {
        float_from_f64(num, v)
    }

    fn fault_message(r: R<u64>) -> (FaultKind, String) {
        match *r.unwrap_err().0 {
            TrapKind::Fault { kind, message } => (kind, message),
            _ => panic!("expected a fault"),
        }
    }

    #[test]
    fn int_to_int_wraps() {
        assert_eq!(cast(Num::Int(32), Num::Int(8), 300).unwrap() as i64, 44);
        assert_eq!(cast(Num::Int(32), Num::UInt(8), (-1i64) as u64).unwrap(), 255);
        assert_eq!(cast(Num::UInt(8), Num::Int(32), 255).unwrap(), 255);
        assert_eq!(cast(Num::Int(8), Num::Int(64), (-5i64) as u64).unwrap() as i64, -5);
        assert_eq!(cast(Num::Int(32), Num::Bool, 7).unwrap(), 1);
    }

    #[test]
    fn float_to_int_truncates_toward_zero() {
        assert_eq!(cast(Num::F32, Num::Int(32), f(Num::F32, -2.75)).unwrap() as i64, -2);
        assert_eq!(cast(Num::F64, Num::Int(32), f(Num::F64, 2.75)).unwrap() as i64, 2);
        assert_eq!(cast(Num::F32, Num::UInt(8), f(Num::F32, -0.5)).unwrap(), 0);
        assert_eq!(cast(Num::F16, Num::Int(8), f(Num::F16, 127.9)).unwrap() as i64, 127);
    }

    #[test]
    fn invalid_casts_fault() {
        let (kind, msg) = fault_message(cast(Num::F32, Num::Int(32), f(Num::F32, f64::NAN)));
        assert_eq!(kind, FaultKind::InvalidCast);
        assert_eq!(msg, "cast of NaN (float32) to int32");
        let (_, msg) = fault_message(cast(Num::F32, Num::Int(8), f(Num::F32, 128.0)));
        assert_eq!(msg, "cast of 128.0 (float32) to int8 is out of range");
        assert!(cast(Num::F32, Num::UInt(8), f(Num::F32, -1.0)).is_err());
        assert!(cast(Num::F64, Num::Int(32), f(Num::F64, f64::INFINITY)).is_err());
    }

    #[test]
    fn int_to_float_rounds_to_nearest_even() {
        let r = cast(Num::Int(32), Num::F32, 16_777_217).unwrap();
        assert_eq!(f32::from_bits(r as u32), 16_777_216.0);
        let r = cast(Num::Int(32), Num::F16, 2049).unwrap();
        assert_eq!(float_to_f64(Num::F16, r), 2048.0);
        let r = cast(Num::UInt(64), Num::F64, u64::MAX).unwrap();
        assert_eq!(f64::from_bits(r), 18_446_744_073_709_551_616.0);
    }

    #[test]
    fn float_to_float_rounds() {
        let r = cast(Num::F64, Num::F32, f(Num::F64, 0.1)).unwrap();
        assert_eq!(f32::from_bits(r as u32), 0.1f32);
        let r = cast(Num::F32, Num::F16, f(Num::F32, 65520.0)).unwrap();
        assert!(float_to_f64(Num::F16, r).is_infinite());
        let r = cast(Num::F16, Num::F32, f(Num::F16, 0.5)).unwrap();
        assert_eq!(f32::from_bits(r as u32), 0.5);
    }
}
