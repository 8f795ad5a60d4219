//! `.npy` files for buffer inputs and outputs, through the `npyz` crate.
//!
//! A file is read in the element type of the parameter it fills; a type the file cannot be
//! read as (or a shape with another element count) is an error naming the file, never a
//! silent conversion.

use std::path::Path;

use anyhow::{bail, Context};
use npyz::WriterBuilder;
use tirproof_interp::Tensor;
use tirproof_ir::{DataType, TypeCode};

/// Reads `path` as a tensor of element type `dtype`.
pub fn read(path: &Path, dtype: DataType) -> anyhow::Result<Tensor> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file = npyz::NpyFile::new(&bytes[..]).with_context(|| format!("{} is not a .npy file", path.display()))?;
    let shape: Vec<usize> = file.shape().iter().map(|&d| d as usize).collect();
    let bad = |e: std::io::Error| anyhow::anyhow!("{}: cannot read as {dtype}: {e}", path.display());
    let tensor = match (dtype.code, dtype.bits) {
        (TypeCode::Float, 32) => Tensor::from_f64(dtype, shape, &widen(file.into_vec::<f32>().map_err(bad)?)),
        (TypeCode::Float, 64) => Tensor::from_f64(dtype, shape, &file.into_vec::<f64>().map_err(bad)?),
        (TypeCode::Int, 8) => Tensor::from_i64(dtype, shape, &ints(file.into_vec::<i8>().map_err(bad)?)),
        (TypeCode::Int, 16) => Tensor::from_i64(dtype, shape, &ints(file.into_vec::<i16>().map_err(bad)?)),
        (TypeCode::Int, 32) => Tensor::from_i64(dtype, shape, &ints(file.into_vec::<i32>().map_err(bad)?)),
        (TypeCode::Int, 64) => Tensor::from_i64(dtype, shape, &file.into_vec::<i64>().map_err(bad)?),
        (TypeCode::UInt, 8) => Tensor::from_i64(dtype, shape, &ints(file.into_vec::<u8>().map_err(bad)?)),
        (TypeCode::UInt, 16) => Tensor::from_i64(dtype, shape, &ints(file.into_vec::<u16>().map_err(bad)?)),
        (TypeCode::UInt, 32) => Tensor::from_i64(dtype, shape, &ints(file.into_vec::<u32>().map_err(bad)?)),
        (TypeCode::Bool, _) => {
            let values: Vec<i64> = file.into_vec::<bool>().map_err(bad)?.into_iter().map(i64::from).collect();
            Tensor::from_i64(dtype, shape, &values)
        }
        _ => bail!("{}: .npy input for {dtype} buffers is not supported", path.display()),
    };
    tensor.with_context(|| format!("{} does not fit the parameter", path.display()))
}

/// Writes `tensor` to `path` in its own element type.
pub fn write(path: &Path, tensor: &Tensor) -> anyhow::Result<()> {
    let shape: Vec<u64> = tensor.shape.iter().map(|&d| d as u64).collect();
    let mut out = Vec::new();
    let dtype = tensor.dtype;
    match (dtype.code, dtype.bits) {
        (TypeCode::Float, 32) => emit(&mut out, &shape, tensor.to_f64_vec().into_iter().map(|v| v as f32))?,
        (TypeCode::Float, 64) => emit(&mut out, &shape, tensor.to_f64_vec())?,
        (TypeCode::Int, 8) => emit(&mut out, &shape, narrow::<i8>(tensor))?,
        (TypeCode::Int, 16) => emit(&mut out, &shape, narrow::<i16>(tensor))?,
        (TypeCode::Int, 32) => emit(&mut out, &shape, narrow::<i32>(tensor))?,
        (TypeCode::Int, 64) => emit(&mut out, &shape, tensor.to_i64_vec())?,
        (TypeCode::UInt, 8) => emit(&mut out, &shape, narrow::<u8>(tensor))?,
        (TypeCode::UInt, 16) => emit(&mut out, &shape, narrow::<u16>(tensor))?,
        (TypeCode::UInt, 32) => emit(&mut out, &shape, narrow::<u32>(tensor))?,
        (TypeCode::Bool, _) => emit(&mut out, &shape, tensor.to_i64_vec().into_iter().map(|v| v != 0))?,
        _ => emit(&mut out, &shape, tensor.to_f64_vec())?,
    }
    crate::write_atomically(path, &out)
}

fn emit<T: npyz::AutoSerialize>(
    out: &mut Vec<u8>,
    shape: &[u64],
    values: impl IntoIterator<Item = T>,
) -> anyhow::Result<()> {
    let mut writer = npyz::WriteOptions::new().default_dtype().shape(shape).writer(out).begin_nd()?;
    writer.extend(values)?;
    writer.finish()?;
    Ok(())
}

fn widen(values: Vec<f32>) -> Vec<f64> {
    values.into_iter().map(f64::from).collect()
}

fn ints<T: Into<i64>>(values: Vec<T>) -> Vec<i64> {
    values.into_iter().map(Into::into).collect()
}

/// The tensor's values in a narrower integer type (they were stored in that type, so they fit).
fn narrow<T: TryFrom<i64> + Default>(tensor: &Tensor) -> Vec<T> {
    tensor.to_i64_vec().into_iter().map(|v| T::try_from(v).unwrap_or_default()).collect()
}
