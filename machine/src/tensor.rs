//! `Tensor`: the contents of a parameter buffer, as raw canonical bits.
//!
//! A tensor has a scalar element type and a shape; its elements are stored as the same
//! canonical bits the interpreter computes with (see `value`), so two runs' outputs compare
//! bitwise (NaN payloads and signed zeros included). Constructors normalize their input.

use std::fmt;
use std::sync::Arc;

use tirproof_ir::dtype::DataType;

use super::error::ExecError;
use super::value::{float_from_f64, float_from_int, float_to_f64, norm, Num, ScalarValue};

#[derive(Clone, PartialEq, Eq)]
pub struct Tensor {
    /// The scalar element type (a vector buffer's tensor has a trailing dimension of lanes).
    pub dtype: DataType,
    pub shape: Vec<usize>,
    /// Shared, so the interpreter reads a parameter without copying it.
    bits: Arc<Vec<u64>>,
}

fn bad(message: String) -> ExecError {
    ExecError::BadInput { name: "tensor".into(), message }
}

fn kind(dtype: DataType) -> Result<Num, ExecError> {
    match Num::of(dtype) {
        Some(num) if dtype.lanes == 1 => Ok(num),
        _ => Err(bad(format!("a tensor's element type must be a scalar type, not {dtype}"))),
    }
}

fn check_len(shape: &[usize], len: usize) -> Result<(), ExecError> {
    let expected = shape.iter().try_fold(1usize, |acc, d| acc.checked_mul(*d));
    if expected != Some(len) {
        return Err(bad(format!("{len} values do not fill a tensor of shape {shape:?}")));
    }
    Ok(())
}

impl Tensor {
    /// A tensor from raw bits (normalized to the canonical form of `dtype`).
    pub fn from_bits(dtype: DataType, shape: Vec<usize>, bits: Vec<u64>) -> Result<Tensor, ExecError> {
        let num = kind(dtype)?;
        check_len(&shape, bits.len())?;
        let bits = Arc::new(bits.into_iter().map(|b| norm(num, b)).collect());
        Ok(Tensor { dtype, shape, bits })
    }

    /// A tensor from bits already canonical for `dtype` (the interpreter's own storage).
    pub fn from_shared(dtype: DataType, shape: Vec<usize>, bits: Arc<Vec<u64>>) -> Tensor {
        Tensor { dtype, shape, bits }
    }

    /// The elements, shared.
    pub fn shared_bits(&self) -> Arc<Vec<u64>> {
        Arc::clone(&self.bits)
    }

    /// A tensor from floats: rounded to nearest for float types, truncated for integers.
    pub fn from_f64(dtype: DataType, shape: Vec<usize>, values: &[f64]) -> Result<Tensor, ExecError> {
        let num = kind(dtype)?;
        let bits = values
            .iter()
            .map(|v| if num.is_float() { float_from_f64(num, *v) } else { ScalarValue::Float(*v).to_bits(num) })
            .collect();
        Tensor::from_bits(dtype, shape, bits)
    }

    /// A tensor from integers: wrapped for integer types, rounded for float types.
    pub fn from_i64(dtype: DataType, shape: Vec<usize>, values: &[i64]) -> Result<Tensor, ExecError> {
        let num = kind(dtype)?;
        let bits = values
            .iter()
            .map(|v| if num.is_float() { float_from_int(num, i128::from(*v)) } else { norm(num, *v as u64) })
            .collect();
        Tensor::from_bits(dtype, shape, bits)
    }

    /// A tensor of zeros.
    pub fn zeros(dtype: DataType, shape: Vec<usize>) -> Result<Tensor, ExecError> {
        let len = shape.iter().try_fold(1usize, |acc, d| acc.checked_mul(*d)).unwrap_or(usize::MAX);
        let len = len.min(super::memory::MAX_LIVE_ELEMENTS + 1);
        Tensor::from_bits(dtype, shape, vec![0; len])
    }

    fn num(&self) -> Num {
        Num::of(self.dtype).unwrap_or(Num::F64)
    }

    /// Element `i` as f64 (integers converted, bools 0/1); `None` past the end.
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        let bits = *self.bits.get(i)?;
        let num = self.num();
        Some(match num {
            Num::Int(_) => bits as i64 as f64,
            Num::UInt(_) | Num::Bool => bits as f64,
            _ => float_to_f64(num, bits),
        })
    }

    /// Element `i` as i64 (floats truncated toward zero, saturating); `None` past the end.
    pub fn get_i64(&self, i: usize) -> Option<i64> {
        let bits = *self.bits.get(i)?;
        let num = self.num();
        Some(match num {
            Num::Int(_) => bits as i64,
            Num::UInt(_) | Num::Bool => i64::try_from(bits).unwrap_or(i64::MAX),
            _ => float_to_f64(num, bits) as i64,
        })
    }

    /// All elements as f64.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        (0..self.len()).filter_map(|i| self.get_f64(i)).collect()
    }

    /// All elements as i64.
    pub fn to_i64_vec(&self) -> Vec<i64> {
        (0..self.len()).filter_map(|i| self.get_i64(i)).collect()
    }

    /// The canonical bits of the elements, row-major.
    pub fn bits(&self) -> &[u64] {
        &self.bits
    }

    pub fn len(&self) -> usize {
        self.bits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// The first element where the two tensors differ bitwise (or where one ends); `Some(0)`
    /// when their types or shapes differ.
    pub fn first_difference(&self, other: &Tensor) -> Option<usize> {
        if self.dtype != other.dtype || self.shape != other.shape {
            return Some(0);
        }
        self.bits.iter().zip(other.bits.iter()).position(|(a, b)| a != b)
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let num = self.num();
        let shown: Vec<String> = self.bits.iter().take(16).map(|b| super::value::show(num, *b)).collect();
        let more = if self.len() > 16 { ", ..." } else { "" };
        write!(f, "Tensor({}, {:?}, [{}{more}])", self.dtype, self.shape, shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_normalize() {
        let t = Tensor::from_i64(DataType::INT8, vec![2], &[200, -1]).unwrap();
        assert_eq!(t.to_i64_vec(), vec![-56, -1]);
        let f = Tensor::from_f64(DataType::FLOAT16, vec![1], &[2049.0]).unwrap();
        assert_eq!(f.get_f64(0), Some(2048.0));
        assert!(Tensor::from_f64(DataType::FLOAT32, vec![3], &[1.0]).is_err());
        assert!(Tensor::from_f64(DataType::FLOAT32.with_lanes(4), vec![1], &[1.0]).is_err());
    }

    #[test]
    fn first_difference_is_bitwise() {
        let a = Tensor::from_f64(DataType::FLOAT32, vec![3], &[1.0, 0.0, 2.0]).unwrap();
        let b = Tensor::from_f64(DataType::FLOAT32, vec![3], &[1.0, -0.0, 2.0]).unwrap();
        assert_eq!(a.first_difference(&b), Some(1));
        assert_eq!(a.first_difference(&a.clone()), None);
        let c = Tensor::from_f64(DataType::FLOAT32, vec![1, 3], &[1.0, 0.0, 2.0]).unwrap();
        assert_eq!(a.first_difference(&c), Some(0));
    }
}
