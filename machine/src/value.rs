//! Scalar kinds and the raw-bit representation of interpreter values.
//!
//! Every scalar the interpreter handles is a `u64` holding the *canonical bits* of its kind:
//! signed integers are sign-extended from their width, unsigned integers are zero-extended,
//! bools are 0 or 1, and floats keep their IEEE encoding in the low 16/32/64 bits with the rest
//! zero. Operations take canonical inputs and return canonical outputs (`norm` restores the
//! invariant after wrapping arithmetic), so two values are equal exactly when their bits are.
//! Vectors are slices of such scalars, one per lane.

use std::fmt;

use half::{bf16, f16};

use tirproof_ir::dtype::{DataType, TypeCode};

/// The kind of one lane: what the bits of a scalar mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Num {
    /// Signed integer of the given width (1..=64).
    Int(u8),
    /// Unsigned integer of the given width (1..=64).
    UInt(u8),
    Bool,
    F16,
    BF16,
    F32,
    F64,
}

impl Num {
    /// The kind of the lanes of `dtype`; `None` for handles and unsupported widths.
    #[inline]
    pub fn of(dtype: DataType) -> Option<Num> {
        let width = u8::try_from(dtype.bits).ok().filter(|b| (1..=64).contains(b));
        match (dtype.code, dtype.bits) {
            (TypeCode::Int, _) => width.map(Num::Int),
            (TypeCode::UInt, _) => width.map(Num::UInt),
            (TypeCode::Bool, _) => Some(Num::Bool),
            (TypeCode::Float, 16) => Some(Num::F16),
            (TypeCode::Float, 32) => Some(Num::F32),
            (TypeCode::Float, 64) => Some(Num::F64),
            (TypeCode::BFloat, 16) => Some(Num::BF16),
            _ => None,
        }
    }

    /// The one-lane data type of this kind.
    #[inline]
    pub fn dtype(self) -> DataType {
        match self {
            Num::Int(b) => DataType::new(TypeCode::Int, u16::from(b), 1),
            Num::UInt(b) => DataType::new(TypeCode::UInt, u16::from(b), 1),
            Num::Bool => DataType::BOOL,
            Num::F16 => DataType::FLOAT16,
            Num::BF16 => DataType::new(TypeCode::BFloat, 16, 1),
            Num::F32 => DataType::FLOAT32,
            Num::F64 => DataType::FLOAT64,
        }
    }

    /// Storage width in bits (bool counts as 1).
    #[inline]
    pub fn width(self) -> u32 {
        match self {
            Num::Int(b) | Num::UInt(b) => u32::from(b),
            Num::Bool => 1,
            Num::F16 | Num::BF16 => 16,
            Num::F32 => 32,
            Num::F64 => 64,
        }
    }

    #[inline]
    pub fn is_float(self) -> bool {
        matches!(self, Num::F16 | Num::BF16 | Num::F32 | Num::F64)
    }

    /// Signed or unsigned integer (not bool).
    #[inline]
    pub fn is_integer(self) -> bool {
        matches!(self, Num::Int(_) | Num::UInt(_))
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.dtype().fmt(f)
    }
}

/// Restores the canonical form of `raw` for `num` (wraps integers to their width).
#[inline]
pub fn norm(num: Num, raw: u64) -> u64 {
    match num {
        Num::Int(b) => sign_extend(raw, b),
        Num::UInt(b) => zero_extend(raw, b),
        Num::Bool => raw & 1,
        Num::F16 | Num::BF16 => raw & 0xFFFF,
        Num::F32 => raw & 0xFFFF_FFFF,
        Num::F64 => raw,
    }
}

#[inline]
fn sign_extend(raw: u64, bits: u8) -> u64 {
    if bits >= 64 {
        return raw;
    }
    let shift = 64 - u32::from(bits);
    (((raw << shift) as i64) >> shift) as u64
}

#[inline]
fn zero_extend(raw: u64, bits: u8) -> u64 {
    if bits >= 64 {
        return raw;
    }
    raw & ((1u64 << bits) - 1)
}

/// Reads the same bits as another kind of the same width (buffer aliases over one storage).
#[inline]
pub fn reinterpret(bits: u64, from: Num, to: Num) -> u64 {
    norm(to, zero_extend(bits, u8::try_from(from.width()).unwrap_or(64)))
}

/// The value of a float kind as an `f64` (exact for every float kind).
#[inline]
pub fn float_to_f64(num: Num, bits: u64) -> f64 {
    match num {
        Num::F16 => f16::from_bits(bits as u16).to_f64(),
        Num::BF16 => bf16::from_bits(bits as u16).to_f64(),
        Num::F32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// An `f64` rounded to nearest-even in a float kind.
#[inline]
pub fn float_from_f64(num: Num, value: f64) -> u64 {
    match num {
        Num::F16 => u64::from(f16::from_f32(f64_to_f32_odd(value)).to_bits()),
        Num::BF16 => u64::from(bf16::from_f32(f64_to_f32_odd(value)).to_bits()),
        Num::F32 => u64::from((value as f32).to_bits()),
        _ => value.to_bits(),
    }
}

/// `value` rounded to f32 with round-to-odd. Rounding that result again to a format with at
/// most 22 significand bits (f16, bf16) equals rounding `value` directly, which a plain
/// round-to-nearest f64 -> f32 -> f16 chain does not guarantee (double rounding).
#[inline]
pub fn f64_to_f32_odd(value: f64) -> f32 {
    let nearest = value as f32;
    if !nearest.is_finite() || f64::from(nearest) == value {
        return nearest;
    }
    let toward_zero =
        if f64::from(nearest).abs() > value.abs() { f32::from_bits(nearest.to_bits() - 1) } else { nearest };
    f32::from_bits(toward_zero.to_bits() | 1)
}

/// An integer (as an exact i128) rounded to nearest-even in a float kind.
#[inline]
pub fn float_from_int(num: Num, value: i128) -> u64 {
    match num {
        Num::F64 => (value as f64).to_bits(),
        Num::F32 => u64::from((value as f32).to_bits()),
        _ => {
            // Round to odd in f32 first so the final rounding to 16 bits is exact-once.
            let nearest = value as f32;
            let odd = if !nearest.is_finite() || nearest as i128 == value {
                nearest
            } else {
                let toward_zero = if (nearest as i128).unsigned_abs() > value.unsigned_abs() {
                    f32::from_bits(nearest.to_bits() - 1)
                } else {
                    nearest
                };
                f32::from_bits(toward_zero.to_bits() | 1)
            };
            match num {
                Num::F16 => u64::from(f16::from_f32(odd).to_bits()),
                _ => u64::from(bf16::from_f32(odd).to_bits()),
            }
        }
    }
}

/// The exact integer value of canonical integer or bool bits.
#[inline]
pub fn int_value(num: Num, bits: u64) -> i128 {
    match num {
        Num::Int(_) => i128::from(bits as i64),
        _ => i128::from(bits),
    }
}

/// Canonical bits as an index or count: signed kinds as themselves, unsigned values above
/// `i64::MAX` saturate (they are out of range for any buffer anyway).
#[inline]
pub fn as_i64(num: Num, bits: u64) -> i64 {
    match num {
        Num::Int(_) => bits as i64,
        _ => i64::try_from(bits).unwrap_or(i64::MAX),
    }
}

/// Whether canonical bits are "true" when used as a condition.
#[inline]
pub fn truthy(num: Num, bits: u64) -> bool {
    if num.is_float() {
        float_to_f64(num, bits) != 0.0
    } else {
        bits != 0
    }
}

/// A scalar supplied by or shown to the caller (scalar parameters, constants in messages).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl ScalarValue {
    /// The canonical bits of this value converted to `num` (ints wrap, floats round).
    pub fn to_bits(self, num: Num) -> u64 {
        match (self, num.is_float()) {
            (ScalarValue::Int(v), false) => norm(num, v as u64),
            (ScalarValue::Int(v), true) => float_from_int(num, i128::from(v)),
            (ScalarValue::Float(v), true) => float_from_f64(num, v),
            // A float given for an integer parameter: truncate (saturating) like `as`.
            (ScalarValue::Float(v), false) => norm(num, v as i64 as u64),
            (ScalarValue::Bool(b), false) => norm(num, u64::from(b)),
            (ScalarValue::Bool(b), true) => float_from_int(num, i128::from(b)),
        }
    }

    /// The value that canonical bits of `num` denote.
    pub fn from_bits(num: Num, bits: u64) -> ScalarValue {
        match num {
            Num::Bool => ScalarValue::Bool(bits != 0),
            Num::Int(_) => ScalarValue::Int(bits as i64),
            Num::UInt(_) => ScalarValue::Int(bits as i64),
            _ => ScalarValue::Float(float_to_f64(num, bits)),
        }
    }
}

impl fmt::Display for ScalarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarValue::Int(v) => write!(f, "{v}"),
            ScalarValue::Float(v) => write!(f, "{v:?}"),
            ScalarValue::Bool(b) => write!(f, "{}", if *b { "True" } else { "False" }),
        }
    }
}

/// Canonical bits of a small random value of `num`, the one distribution of seeded random
/// inputs: integers in -8..8 (unsigned 0..8), floats in quarters of -4..=4, exact in every
/// float type so that sums of products do not depend on their order.
pub fn random_bits(num: Num, rng: &mut impl rand::Rng) -> u64 {
    match num {
        Num::Bool => u64::from(rng.gen_bool(0.5)),
        Num::UInt(_) => norm(num, rng.gen_range(0..8)),
        Num::Int(_) => norm(num, rng.gen_range(-8i64..8) as u64),
        _ => ScalarValue::Float(f64::from(rng.gen_range(-16i32..=16)) * 0.25).to_bits(num),
    }
}

/// Formats canonical bits for a message (`7`, `-2.5`, `True`).
pub fn show(num: Num, bits: u64) -> String {
    match num {
        Num::UInt(_) => bits.to_string(),
        _ => ScalarValue::from_bits(num, bits).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm_wraps_to_width() {
        assert_eq!(norm(Num::Int(8), 0x80) as i64, -128);
        assert_eq!(norm(Num::Int(32), u64::from(u32::MAX)) as i64, -1);
        assert_eq!(norm(Num::UInt(8), 0x1FF), 0xFF);
        assert_eq!(norm(Num::UInt(64), u64::MAX), u64::MAX);
        assert_eq!(norm(Num::Int(64), u64::MAX) as i64, -1);
    }

    #[test]
    fn f16_rounds_to_nearest_even() {
        // 2049 lies halfway between 2048 and 2050 in float16: ties go to even (2048).
        assert_eq!(float_to_f64(Num::F16, float_from_f64(Num::F16, 2049.0)), 2048.0);
        assert_eq!(float_to_f64(Num::F16, float_from_f64(Num::F16, 2051.0)), 2052.0);
        assert_eq!(float_to_f64(Num::F16, float_from_int(Num::F16, 2049)), 2048.0);
        assert!(float_to_f64(Num::F16, float_from_f64(Num::F16, 70000.0)).is_infinite());
    }

    #[test]
    fn f64_to_f16_avoids_double_rounding() {
        // Just above the tie 2049: nearest-even f32 rounding would land exactly on the tie.
        let x = 2049.0 + 2f64.powi(-30);
        assert_eq!(float_to_f64(Num::F16, float_from_f64(Num::F16, x)), 2050.0);
        let y = (1i128 << 40) + (1 << 32) + 1; // just above a bf16 tie
        let expect = (1u64 << 40) as f64 + (1u64 << 33) as f64;
        assert_eq!(float_to_f64(Num::BF16, float_from_int(Num::BF16, y)), expect);
    }

    #[test]
    fn reinterpret_keeps_bits() {
        let bits = u64::from(1.5f32.to_bits());
        let as_int = reinterpret(bits, Num::F32, Num::Int(32));
        assert_eq!(as_int as i64, i64::from(1.5f32.to_bits() as i32));
        assert_eq!(reinterpret(as_int, Num::Int(32), Num::F32), bits);
    }
}
