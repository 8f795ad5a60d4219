//! `.npy` files for buffer inputs and outputs: reading through the one bounded, strict reader
//! (`tirproof_machine::npy`), writing through the `npyz` crate.
//!
//! A TIR buffer's file must hold the buffer's element type and shape; a PTX buffer's file is
//! read in its own type and shape, at most [`MAX_STORED_BYTES`] of data. Every error names the
//! file. The reader bounds the header and the data before reading them, so `/dev/zero`, an
//! endless stream or a header claiming gigabytes is an error, not an unbounded read.

use std::io::BufReader;
use std::path::Path;

use anyhow::{anyhow, bail, Context};
use npyz::WriterBuilder;
use tirproof_interp::Tensor;
use tirproof_ir::{DataType, TypeCode};
use tirproof_machine::npy::{self, Expected};

/// Reads `path` as a tensor of element type `dtype` and shape `shape` (the buffer it fills).
pub fn read(path: &Path, dtype: DataType, shape: &[usize]) -> anyhow::Result<Tensor> {
    read_expecting(path, Expected::Buffer { dtype, shape })
}

/// The most data [`read_stored`] reads: a buffer of 1 GiB.
pub const MAX_STORED_BYTES: u64 = 1 << 30;

/// Reads `path` as a tensor of the element type and shape it is stored with (for PTX, whose
/// parameters are bare addresses); at most [`MAX_STORED_BYTES`] of data.
pub fn read_stored(path: &Path) -> anyhow::Result<Tensor> {
    read_expecting(path, Expected::Stored { max_bytes: MAX_STORED_BYTES })
}

fn read_expecting(path: &Path, expected: Expected<'_>) -> anyhow::Result<Tensor> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    npy::read(BufReader::new(file), expected).map_err(|e| anyhow!("{}: {e}", path.display()))
}

/// Writes `tensor` to `path` in its own element type (bfloat16 as float32, which holds it
/// exactly); a type `.npy` cannot hold is an error, never a lossy conversion.
pub fn write(path: &Path, tensor: &Tensor) -> anyhow::Result<()> {
    let bytes = encode(tensor).with_context(|| path.display().to_string())?;
    Ok(crate::output::write_file(path, &bytes)?)
}

/// The bytes of the `.npy` file of `tensor` (see [`write`]).
pub fn encode(tensor: &Tensor) -> anyhow::Result<Vec<u8>> {
    let shape: Vec<u64> = tensor.shape.iter().map(|&d| d as u64).collect();
    let mut out = Vec::new();
    let dtype = tensor.dtype;
    match (dtype.code, dtype.bits) {
        // Exact: the tensor holds float16 values.
        (TypeCode::Float, 16) => emit(&mut out, &shape, tensor.to_f64_vec().into_iter().map(half::f16::from_f64))?,
        (TypeCode::Float, 32) => emit(&mut out, &shape, tensor.to_f64_vec().into_iter().map(|v| v as f32))?,
        (TypeCode::Float, 64) => emit(&mut out, &shape, tensor.to_f64_vec())?,
        (TypeCode::Int, 8) => emit(&mut out, &shape, narrow::<i8>(tensor))?,
        (TypeCode::Int, 16) => emit(&mut out, &shape, narrow::<i16>(tensor))?,
        (TypeCode::Int, 32) => emit(&mut out, &shape, narrow::<i32>(tensor))?,
        (TypeCode::Int, 64) => emit(&mut out, &shape, tensor.to_i64_vec())?,
        (TypeCode::UInt, 8) => emit(&mut out, &shape, narrow::<u8>(tensor))?,
        (TypeCode::UInt, 16) => emit(&mut out, &shape, narrow::<u16>(tensor))?,
        (TypeCode::UInt, 32) => emit(&mut out, &shape, narrow::<u32>(tensor))?,
        // The canonical bits are the value: no detour through i64, which cannot hold 2^63 and up.
        (TypeCode::UInt, 64) => emit(&mut out, &shape, tensor.bits().iter().copied())?,
        (TypeCode::Bool, _) => emit(&mut out, &shape, tensor.to_i64_vec().into_iter().map(|v| v != 0))?,
        // numpy has no bfloat16: float32 holds every bfloat16 value exactly.
        (TypeCode::BFloat, 16) => emit(&mut out, &shape, tensor.to_f64_vec().into_iter().map(|v| v as f32))?,
        _ => bail!("{dtype} buffers have no .npy element type"),
    }
    Ok(out)
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

/// The tensor's values in a narrower integer type (they were stored in that type, so they fit).
fn narrow<T: TryFrom<i64> + Default>(tensor: &Tensor) -> Vec<T> {
    tensor.to_i64_vec().into_iter().map(|v| T::try_from(v).unwrap_or_default()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element type a buffer can have writes and reads back to the same values; the
    /// largest unsigned 64-bit values and bfloat16 included.
    #[test]
    fn outputs_keep_their_values() {
        let dir = tempfile::tempdir().expect("scratch");
        let path = dir.path().join("out.npy");
        let big = Tensor::from_bits(DataType::new(TypeCode::UInt, 64, 1), vec![2], vec![u64::MAX, 1 << 63])
            .expect("a tensor");
        write(&path, &big).expect("writes");
        assert_eq!(read_stored(&path).ok().map(|t| t.bits().to_vec()), None, "uint64 is not a stored input type");
        let bytes = std::fs::read(&path).expect("reads");
        assert!(bytes.ends_with(&[0xff; 8].iter().copied().chain((1u64 << 63).to_le_bytes()).collect::<Vec<u8>>()));
        let bf16 =
            Tensor::from_f64(DataType::new(TypeCode::BFloat, 16, 1), vec![2], &[1.5, -3.0e38]).expect("a tensor");
        write(&path, &bf16).expect("writes");
        let back = read_stored(&path).expect("reads back as float32");
        assert_eq!((back.dtype, back.to_f64_vec()), (DataType::FLOAT32, bf16.to_f64_vec()));
        let handle = Tensor::from_bits(DataType::new(TypeCode::Handle, 64, 1), vec![1], vec![7]);
        if let Ok(handle) = handle {
            assert!(write(&path, &handle).is_err());
        }
    }
}
