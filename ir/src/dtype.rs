//! Element and vector data types (`DataType`) and their text syntax.
//!
//! A type is a code (int, uint, float, bfloat, bool, handle), a bit width and a lane count.
//! Vector types follow vectorized-buffer-semantics: a buffer's element type may itself have
//! several lanes. `Display` and `FromStr` use the TVMScript spelling (`float32`, `float32x4`,
//! `bool`, `handle`), so the printer, the parser and diagnostics agree on one syntax.

use std::fmt;
use std::str::FromStr;

/// The kind of a scalar element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TypeCode {
    Int,
    UInt,
    Float,
    BFloat,
    Bool,
    Handle,
}

/// A scalar or vector type: `code`, `bits` per lane and `lanes` (1 for scalars).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DataType {
    pub code: TypeCode,
    pub bits: u16,
    pub lanes: u16,
}

impl DataType {
    pub const BOOL: DataType = DataType::new(TypeCode::Bool, 1, 1);
    pub const INT8: DataType = DataType::new(TypeCode::Int, 8, 1);
    pub const INT16: DataType = DataType::new(TypeCode::Int, 16, 1);
    pub const INT32: DataType = DataType::new(TypeCode::Int, 32, 1);
    pub const INT64: DataType = DataType::new(TypeCode::Int, 64, 1);
    pub const FLOAT16: DataType = DataType::new(TypeCode::Float, 16, 1);
    pub const FLOAT32: DataType = DataType::new(TypeCode::Float, 32, 1);
    pub const FLOAT64: DataType = DataType::new(TypeCode::Float, 64, 1);
    pub const HANDLE: DataType = DataType::new(TypeCode::Handle, 64, 1);

    pub const fn new(code: TypeCode, bits: u16, lanes: u16) -> Self {
        DataType { code, bits, lanes }
    }

    /// The same element type with `lanes` lanes.
    pub const fn with_lanes(self, lanes: u16) -> Self {
        DataType { lanes, ..self }
    }

    /// The one-lane element type.
    pub const fn element(self) -> Self {
        self.with_lanes(1)
    }

    pub const fn is_scalar(self) -> bool {
        self.lanes == 1
    }
    pub const fn is_vector(self) -> bool {
        self.lanes > 1
    }
    pub fn is_int(self) -> bool {
        self.code == TypeCode::Int
    }
    pub fn is_uint(self) -> bool {
        self.code == TypeCode::UInt
    }
    /// Signed or unsigned integer.
    pub fn is_integer(self) -> bool {
        matches!(self.code, TypeCode::Int | TypeCode::UInt)
    }
    /// IEEE float or bfloat.
    pub fn is_float(self) -> bool {
        matches!(self.code, TypeCode::Float | TypeCode::BFloat)
    }
    pub fn is_bool(self) -> bool {
        self.code == TypeCode::Bool
    }
    pub fn is_handle(self) -> bool {
        self.code == TypeCode::Handle
    }

    /// Size of one element (all lanes) in bytes, rounded up.
    pub fn bytes(self) -> u32 {
        (u32::from(self.bits) * u32::from(self.lanes)).div_ceil(8)
    }

    /// The bool type with this type's lane count (the result type of comparisons).
    pub const fn bool_like(self) -> Self {
        DataType::BOOL.with_lanes(self.lanes)
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            TypeCode::Bool => f.write_str("bool")?,
            TypeCode::Handle => return f.write_str("handle"),
            TypeCode::Int => write!(f, "int{}", self.bits)?,
            TypeCode::UInt => write!(f, "uint{}", self.bits)?,
            TypeCode::Float => write!(f, "float{}", self.bits)?,
            TypeCode::BFloat => write!(f, "bfloat{}", self.bits)?,
        }
        if self.lanes > 1 {
            write!(f, "x{}", self.lanes)?;
        }
        Ok(())
    }
}

/// Why a type name could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown data type `{0}` (expected e.g. int32, uint8, float16, float32x4, bool, handle)")]
pub struct ParseDataTypeError(pub String);

impl FromStr for DataType {
    type Err = ParseDataTypeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = || ParseDataTypeError(text.to_string());
        let (base, lanes) = match text.rsplit_once('x') {
            Some((base, lanes)) if !lanes.is_empty() && lanes.bytes().all(|b| b.is_ascii_digit()) => {
                let lanes: u16 = lanes.parse().map_err(|_| err())?;
                (base, lanes)
            }
            _ => (text, 1),
        };
        if lanes == 0 {
            return Err(err());
        }
        let scalar = match base {
            "bool" => DataType::BOOL,
            "handle" if lanes == 1 => DataType::HANDLE,
            "float" => DataType::FLOAT32,
            "int" => DataType::INT32,
            _ => scalar_with_bits(base).ok_or_else(err)?,
        };
        Ok(scalar.with_lanes(lanes))
    }
}

fn scalar_with_bits(base: &str) -> Option<DataType> {
    let (code, digits, allowed): (TypeCode, &str, &[u16]) = if let Some(d) = base.strip_prefix("uint") {
        (TypeCode::UInt, d, &[1, 8, 16, 32, 64])
    } else if let Some(d) = base.strip_prefix("int") {
        (TypeCode::Int, d, &[1, 8, 16, 32, 64])
    } else if let Some(d) = base.strip_prefix("bfloat") {
        (TypeCode::BFloat, d, &[16])
    } else if let Some(d) = base.strip_prefix("float") {
        (TypeCode::Float, d, &[16, 32, 64])
    } else {
        return None;
    };
    let bits: u16 = digits.parse().ok()?;
    allowed.contains(&bits).then_some(DataType::new(code, bits, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_type_names() {
        for name in
            ["int8", "int32", "uint16", "float16", "float32x4", "bfloat16", "bool", "boolx4", "handle", "int64x2"]
        {
            let ty: DataType = name.parse().unwrap();
            assert_eq!(ty.to_string(), name);
        }
    }

    #[test]
    fn rejects_bad_names() {
        for name in ["float7", "int7x4", "float32x0", "handlex2", "", "x4", "floaty"] {
            assert!(name.parse::<DataType>().is_err(), "{name} should not parse");
        }
    }

    #[test]
    fn bytes_counts_all_lanes() {
        assert_eq!(DataType::FLOAT32.with_lanes(4).bytes(), 16);
        assert_eq!(DataType::BOOL.bytes(), 1);
    }
}
