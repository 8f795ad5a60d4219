//! Symbolic values: what an IR expression denotes in Z3.
//!
//! A value is one term per lane plus a fault condition. Integers (signed or unsigned, any
//! width) and bools are bit-vectors of their width (bool is 1 bit, 0 or 1, as the interpreter
//! stores it); floats are IEEE terms of their format (float16 is (5, 11), bfloat16 (8, 8),
//! float32 (8, 24), float64 (11, 53)); handles are 64-bit vectors.
//!
//! Equality of two values is SMT equality lane by lane: all NaNs are one value (Z3 has no NaN
//! payloads), `-0.0` and `+0.0` are different, as in the interpreter's bitwise comparison of
//! outputs (up to NaN payloads).

use tirproof_ir::{DataType, TypeCode};
use z3::ast::{Bool, Float, BV};
use z3::Sort;

use super::EncodeError;

/// One lane of a value.
#[derive(Clone, Debug)]
pub enum Lane {
    Bv(BV),
    Fp(Float),
}

/// A value: its lanes and when computing it faults.
#[derive(Clone, Debug)]
pub struct Sym {
    pub lanes: Vec<Lane>,
    pub trap: Bool,
}

impl Sym {
    pub fn new(lanes: Vec<Lane>, trap: Bool) -> Self {
        Sym { lanes, trap }
    }

    /// A value that never faults.
    pub fn pure(lanes: Vec<Lane>) -> Self {
        Sym { lanes, trap: Bool::from_bool(false) }
    }
}

impl Lane {
    pub fn bv(&self) -> Result<&BV, EncodeError> {
        match self {
            Lane::Bv(b) => Ok(b),
            Lane::Fp(_) => Err(EncodeError::Internal("a float where a bit-vector was expected".into())),
        }
    }

    pub fn fp(&self) -> Result<&Float, EncodeError> {
        match self {
            Lane::Fp(f) => Ok(f),
            Lane::Bv(_) => Err(EncodeError::Internal("a bit-vector where a float was expected".into())),
        }
    }

    /// The same term (Z3 terms are hash-consed, so identical structure is identity): equal
    /// without asking a solver.
    pub fn identical(&self, other: &Lane) -> bool {
        match (self, other) {
            (Lane::Bv(a), Lane::Bv(b)) => a == b,
            (Lane::Fp(a), Lane::Fp(b)) => a == b,
            _ => false,
        }
    }

    /// SMT equality of two lanes of one type.
    pub fn same(&self, other: &Lane) -> Result<Bool, EncodeError> {
        match (self, other) {
            (Lane::Bv(a), Lane::Bv(b)) if a.get_size() == b.get_size() => Ok(a.eq(b)),
            (Lane::Fp(a), Lane::Fp(b)) => Ok(a.eq(b)),
            _ => Err(EncodeError::Internal("lanes of different types compared".into())),
        }
    }

    /// Whether the lane counts as true in a condition (non-zero; NaN is true).
    pub fn truthy(&self) -> Bool {
        match self {
            Lane::Bv(b) => b.eq(BV::from_u64(0, b.get_size())).not(),
            Lane::Fp(f) => f.is_zero().not(),
        }
    }

    /// The dynamic AST of the lane, for uninterpreted functions.
    pub fn dynamic(&self) -> z3::ast::Dynamic {
        match self {
            Lane::Bv(b) => z3::ast::Dynamic::from_ast(b),
            Lane::Fp(f) => z3::ast::Dynamic::from_ast(f),
        }
    }
}

/// A bool lane from a condition: 1 when true.
pub fn from_bool(b: &Bool) -> Lane {
    Lane::Bv(b.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1)))
}

/// The IEEE format of a float type: (exponent bits, significand bits).
pub fn float_format(t: DataType) -> Result<(u32, u32), EncodeError> {
    match (t.code, t.bits) {
        (TypeCode::Float, 16) => Ok((5, 11)),
        (TypeCode::BFloat, 16) => Ok((8, 8)),
        (TypeCode::Float, 32) => Ok((8, 24)),
        (TypeCode::Float, 64) => Ok((11, 53)),
        _ => Err(EncodeError::Unsupported(format!("the float type {t}"))),
    }
}

/// The width of the bit-vector of an integer, bool or handle type.
pub fn bv_width(t: DataType) -> Result<u32, EncodeError> {
    match t.code {
        TypeCode::Int | TypeCode::UInt => Ok(u32::from(t.bits)),
        TypeCode::Bool => Ok(1),
        TypeCode::Handle => Ok(64),
        TypeCode::Float | TypeCode::BFloat => Err(EncodeError::Internal(format!("{t} is not a bit-vector type"))),
    }
}

/// The Z3 sort of one lane of `t`.
pub fn lane_sort(t: DataType) -> Result<Sort, EncodeError> {
    if t.is_float() {
        let (e, s) = float_format(t)?;
        Ok(Sort::float(e, s))
    } else {
        Ok(Sort::bitvector(bv_width(t)?))
    }
}

/// Whether comparisons and division of `t` are signed.
pub fn is_signed(t: DataType) -> bool {
    t.code == TypeCode::Int
}

/// The disjunction of some fault conditions.
pub fn any(traps: &[&Bool]) -> Bool {
    let owned: Vec<Bool> = traps.iter().map(|b| (*b).clone()).collect();
    if owned.is_empty() {
        Bool::from_bool(false)
    } else {
        Bool::or(&owned)
    }
}
