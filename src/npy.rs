//! `.npy` files for buffer inputs and outputs, through the `npyz` crate.
//!
//! A file is read in the element type of the parameter it fills; a type the file cannot be
//! read as (or a shape with another element count) is an error naming the file, never a
//! silent conversion. Reading is bounded: the header's declared length and the data must fit
//! the buffer's byte size, and no more than that (plus one byte, to tell a longer file) is
//! ever read, so `/dev/zero` or a huge file is an error, not an unbounded read.

use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context};
use npyz::WriterBuilder;
use tirproof_interp::Tensor;
use tirproof_ir::{DataType, TypeCode};

/// The magic string of every `.npy` file.
const MAGIC: &[u8] = b"\x93NUMPY";

/// The longest `.npy` header accepted (numpy writes them padded to 64 bytes; a longer one
/// would describe a shape no buffer has).
const MAX_HEADER_BYTES: u64 = 64 * 1024;

/// Reads `path` as a tensor of element type `dtype` and shape `shape` (the buffer it fills).
pub fn read(path: &Path, dtype: DataType, shape: &[usize]) -> anyhow::Result<Tensor> {
    let bytes = read_bounded(path, dtype, shape)?;
    let file = npyz::NpyFile::new(&bytes[..]).with_context(|| format!("{} is not a .npy file", path.display()))?;
    let shape: Vec<usize> = file.shape().iter().map(|&d| d as usize).collect();
    let bad = |e: std::io::Error| anyhow::anyhow!("{}: cannot read as {dtype}: {e}", path.display());
    let tensor = match (dtype.code, dtype.bits) {
        (TypeCode::Float, 16) => {
            let values: Vec<f64> = file.into_vec::<half::f16>().map_err(bad)?.into_iter().map(f64::from).collect();
            Tensor::from_f64(dtype, shape, &values)
        }
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

/// The element types a `.npy` file may hold for [`read_stored`], by numpy's type string.
const STORED_TYPES: [(&str, DataType); 11] = [
    ("<f2", DataType::FLOAT16),
    ("<f4", DataType::FLOAT32),
    ("<f8", DataType::FLOAT64),
    ("|i1", DataType::INT8),
    ("<i2", DataType::INT16),
    ("<i4", DataType::INT32),
    ("<i8", DataType::INT64),
    ("|u1", DataType::new(TypeCode::UInt, 8, 1)),
    ("<u2", DataType::new(TypeCode::UInt, 16, 1)),
    ("<u4", DataType::new(TypeCode::UInt, 32, 1)),
    ("|b1", DataType::BOOL),
];

/// The most data [`read_stored`] reads: a buffer of 1 GiB.
const MAX_STORED_BYTES: u64 = 1 << 30;

/// Reads `path` as a tensor of the element type and shape it is stored with (for PTX, whose
/// parameters are bare addresses); at most [`MAX_STORED_BYTES`] of data.
pub fn read_stored(path: &Path) -> anyhow::Result<Tensor> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut head = Vec::new();
    file.take(MAGIC.len() as u64 + 4 + MAX_HEADER_BYTES)
        .read_to_end(&mut head)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let header = npyz::NpyFile::new(&head[..]).with_context(|| format!("{} is not a .npy file", path.display()))?;
    let type_string = header.dtype().descr();
    let dtype = STORED_TYPES
        .iter()
        .find(|(name, _)| format!("'{name}'") == type_string)
        .map(|(_, dtype)| *dtype)
        .with_context(|| format!("{}: .npy elements of type {type_string} are not supported", path.display()))?;
    let shape: Vec<usize> = header.shape().iter().map(|&d| usize::try_from(d).unwrap_or(usize::MAX)).collect();
    let bytes = shape.iter().try_fold(u64::from(dtype.bytes()), |size, &d| size.checked_mul(d as u64));
    if bytes.is_none_or(|b| b > MAX_STORED_BYTES) {
        bail!("{}: shape {shape:?} holds more than {MAX_STORED_BYTES} bytes", path.display());
    }
    read(path, dtype, &shape)
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

/// The bytes of `path`: its preamble and header, whose length must be at most
/// [`MAX_HEADER_BYTES`], and data of at most the buffer's byte size. Reads one byte past that
/// size to tell a longer file, never more.
fn read_bounded(path: &Path, dtype: DataType, shape: &[usize]) -> anyhow::Result<Vec<u8>> {
    let cannot_read = || format!("cannot read {}", path.display());
    let data_bytes = shape
        .iter()
        .try_fold(u64::from(dtype.bytes()), |size, &d| size.checked_mul(u64::try_from(d).ok()?))
        .with_context(|| format!("{}: the buffer's byte size overflows", path.display()))?;
    let file = std::fs::File::open(path).with_context(cannot_read)?;
    let mut reader = file.take(MAGIC.len() as u64 + 2);
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).with_context(cannot_read)?;
    let not_npy = || anyhow::anyhow!("{} is not a .npy file (no .npy magic string)", path.display());
    let (Some(magic), Some(&major)) = (bytes.get(..MAGIC.len()), bytes.get(MAGIC.len())) else { return Err(not_npy()) };
    if magic != MAGIC {
        return Err(not_npy());
    }
    // Version 1 stores the header length in 2 bytes, later versions in 4.
    let length_bytes: u64 = if major == 1 { 2 } else { 4 };
    let mut reader = reader.into_inner().take(length_bytes);
    let start = bytes.len();
    reader.read_to_end(&mut bytes).with_context(cannot_read)?;
    let header_bytes = bytes.get(start..).unwrap_or_default().iter().rev().fold(0u64, |n, &b| n << 8 | u64::from(b));
    if header_bytes > MAX_HEADER_BYTES {
        bail!("{}: the .npy header says it is {header_bytes} bytes long (at most {MAX_HEADER_BYTES})", path.display());
    }
    let expected = bytes.len() as u64 + header_bytes + data_bytes;
    let mut reader = reader.into_inner().take(expected + 1 - bytes.len() as u64);
    reader.read_to_end(&mut bytes).with_context(cannot_read)?;
    if bytes.len() as u64 > expected {
        bail!("{} holds more data than the buffer's {data_bytes} bytes ({dtype}, shape {shape:?})", path.display());
    }
    Ok(bytes)
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
