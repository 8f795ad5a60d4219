//! Launch files: a JSON description of one launch of a kernel of PTX text (its name, grid,
//! block, dynamic shared bytes, a seed, and each parameter by name: a buffer of a dtype and
//! length, random or from a `.npy` file, or a scalar value; and each host tensor map over a
//! buffer parameter, for `cp.async.bulk.tensor`), read with a located error
//! (`LaunchFile::parse`) and written from a kernel's header (`LaunchFile::of_kernel`).
//!
//! Invariants: a launch file that parses names each parameter once, every buffer has a dtype
//! the emulator stores, and a random buffer is the same for the same seed and parameter
//! position; nothing here reads files (the caller reads the `.npy` a buffer names).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use tirproof_ir::dtype::{DataType, TypeCode};
use tirproof_machine::value::{random_bits, Num};
use tirproof_machine::{ExecError, Tensor};

use crate::args::ScalarArg;
use crate::emu::tensormap::HostTensorMap;
use crate::launch::LaunchRequest;
use crate::module::{Dims, Kernel, StateSpace, Ty};

/// One launch of a kernel, as a launch file describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchFile {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory per block (the `.extern .shared` array).
    #[serde(default)]
    pub shared: u64,
    /// The seed of the random buffers (default: `--seed`, or 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Each parameter by name, in the order written.
    #[serde(serialize_with = "write_params", deserialize_with = "read_params")]
    pub params: Vec<(String, ParamSpec)>,
    /// Each host tensor map parameter (`.param .align 64 .b8 name[128]`) by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tensor_maps: BTreeMap<String, TensorMapSpec>,
}

/// What a parameter is bound to: `{"buffer": {...}}` or `{"scalar": 64}` (tensor maps are
/// `LaunchFile::tensor_maps`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamSpec {
    Buffer(BufferSpec),
    Scalar(ScalarValue),
}

/// A host tensor map (`CUtensorMap`) over the buffer parameter `buffer`: its element type, its
/// extents (dimension 0, the contiguous one, first), the byte strides of dimensions 1.., the
/// box and the swizzle span in bytes (0, 32, 64 or 128). Element strides are 1, no interleave,
/// zero fill: what the emulator's TMA model supports (docs/ptx.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorMapSpec {
    pub buffer: String,
    pub dtype: Dtype,
    pub dims: Vec<u64>,
    pub strides: Vec<u64>,
    #[serde(rename = "box")]
    pub box_dims: Vec<u64>,
    #[serde(default)]
    pub swizzle: u32,
}

impl TensorMapSpec {
    /// The map's 128 bytes as the argument of its parameter in `kernel` (the emulator's
    /// encoding, `emu::tensormap`, with the buffer's address to be filled in at launch).
    pub fn tensor(&self, kernel: &Kernel) -> Result<Tensor, String> {
        let Some(index) = kernel.params.iter().position(|p| p.name == self.buffer && p.array.is_none()) else {
            return Err(format!(
                "the tensor map's buffer `{}` is no buffer parameter of `{}`",
                self.buffer, kernel.name
            ));
        };
        let dtype = self.dtype.0;
        let elemtype = match (dtype.code, dtype.bits) {
            (TypeCode::UInt, 8) => 0,
            (TypeCode::UInt, 16) => 1,
            (TypeCode::UInt, 32) => 2,
            (TypeCode::Int, 32) => 3,
            (TypeCode::UInt, 64) => 4,
            (TypeCode::Int, 64) => 5,
            (TypeCode::Float, 16) => 6,
            (TypeCode::Float, 32) => 7,
            (TypeCode::Float, 64) => 9,
            (TypeCode::BFloat, 16) => 10,
            _ => return Err(format!("a tensor map of {dtype} elements (no TMA element type)")),
        };
        let map = HostTensorMap {
            buffer_param: index as u32,
            elemtype,
            dims: self.dims.clone(),
            strides: self.strides.clone(),
            box_dims: self.box_dims.clone(),
            swizzle: self.swizzle,
        };
        let bytes = map.encode()?;
        Tensor::from_bits(DataType::new(TypeCode::UInt, 8, 1), vec![128], bytes.iter().map(|b| u64::from(*b)).collect())
            .map_err(|e| e.to_string())
    }
}

/// A buffer: `len` elements of `dtype`, random (seeded) or read from the `.npy` file `npy`
/// (relative to the launch file), which must hold exactly that.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    pub dtype: Dtype,
    pub len: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npy: Option<PathBuf>,
}

/// An element type a buffer can hold (`float16`, `int32`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Dtype(pub DataType);

impl TryFrom<String> for Dtype {
    type Error = String;

    fn try_from(name: String) -> Result<Dtype, String> {
        let dtype: DataType = name.parse().map_err(|e| format!("`{name}` is not a dtype ({e})"))?;
        match Num::of(dtype) {
            Some(num) if dtype.lanes == 1 && (num.width() >= 8 || num == Num::Bool) => Ok(Dtype(dtype)),
            _ => Err(format!("`{name}` is not a dtype of a buffer (float16/32/64, int8..64, uint8..64, bool)")),
        }
    }
}

impl From<Dtype> for String {
    fn from(dtype: Dtype) -> String {
        dtype.0.to_string()
    }
}

/// A scalar's value as JSON writes it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScalarValue {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
}

impl ScalarValue {
    /// The value for a parameter of type `ty`: an integer is a number too for a float
    /// parameter, and 0/1 a truth value for a predicate.
    pub fn arg(self, ty: Ty) -> ScalarArg {
        match self {
            ScalarValue::Bool(truth) => ScalarArg::Pred(truth),
            ScalarValue::Int(n) if ty.is_float() => ScalarArg::Float(n as f64),
            ScalarValue::UInt(n) if ty.is_float() => ScalarArg::Float(n as f64),
            ScalarValue::Int(n @ (0 | 1)) if ty == Ty::Pred => ScalarArg::Pred(n == 1),
            ScalarValue::Int(n) => ScalarArg::Int(i128::from(n)),
            ScalarValue::UInt(n) => ScalarArg::Int(i128::from(n)),
            ScalarValue::Float(x) => ScalarArg::Float(x),
        }
    }
}

impl fmt::Display for ScalarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarValue::Bool(b) => write!(f, "{b}"),
            ScalarValue::Int(n) => write!(f, "{n}"),
            ScalarValue::UInt(n) => write!(f, "{n}"),
            ScalarValue::Float(x) => write!(f, "{x:?}"),
        }
    }
}

/// A launch file that does not parse, at its line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct LaunchFileError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl LaunchFile {
    /// Reads a launch file's text.
    pub fn parse(text: &str) -> Result<LaunchFile, LaunchFileError> {
        serde_json::from_str(text).map_err(|error| {
            let (line, col) = (error.line(), error.column());
            let full = error.to_string();
            let located = format!(" at line {line} column {col}");
            let message = full.strip_suffix(&located).unwrap_or(&full).to_string();
            LaunchFileError { line: line.max(1), col: col.max(1), message }
        })
    }

    /// The launch file as JSON text, one field a line.
    pub fn to_json(&self) -> String {
        // Serializing plain data into a string cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// The launch the file asks for.
    pub fn request(&self) -> LaunchRequest {
        LaunchRequest { grid: Some(Dims(self.grid)), block: Some(Dims(self.block)), dynamic_shared: self.shared }
    }

    /// A launch file from what a kernel's header says: its name, the block of its `.reqntid`
    /// (or `.maxntid`, or its `// launch:` comment), its grid comment, a random float32
    /// buffer of the block's thread count for each 64-bit parameter and 1 for each scalar, and
    /// notes on what the header cannot say (what to adjust).
    pub fn of_kernel(kernel: &Kernel) -> (LaunchFile, Vec<String>) {
        let mut notes = Vec::new();
        let block = match (kernel.directives.reqntid, kernel.directives.maxntid) {
            (Some(required), _) => required,
            (None, Some(max)) => {
                notes.push(format!("block {} is the kernel's `.maxntid`; a smaller one may be meant", Dims(max)));
                max
            }
            (None, None) => {
                notes.push("the kernel declares no block shape (`.reqntid`/`.maxntid`): set \"block\"".into());
                kernel.launch.block
            }
        };
        notes.push(format!("set \"grid\" (written: {}, the kernel's header does not say)", Dims(kernel.launch.grid)));
        let threads = usize::try_from(Dims(block).count()).unwrap_or(1);
        let mut shared = kernel.launch.dynamic_shared;
        if let Some(array) = kernel.arrays.iter().find(|a| a.dynamic && a.space == StateSpace::Shared) {
            if shared == 0 {
                shared = u64::from(array.align.max(16)) * 256;
                notes.push(format!(
                    "the kernel has dynamic shared memory (`.extern .shared {}`): set \"shared\" to its bytes \
                     (written: {shared})",
                    array.name
                ));
            }
        }
        let first_buffer =
            kernel.params.iter().find(|p| p.takes_buffer() && p.array.is_none()).map(|p| p.name.as_str());
        let mut tensor_maps = BTreeMap::new();
        for param in kernel.params.iter().filter(|p| p.array.is_some()) {
            notes.push(format!("tensor map `{}`: describe it (its buffer, dtype, dims, strides, box)", param.name));
            let spec = TensorMapSpec {
                buffer: first_buffer.unwrap_or_default().to_string(),
                dtype: Dtype(DataType::FLOAT32),
                dims: vec![threads as u64],
                strides: Vec::new(),
                box_dims: vec![threads.min(256) as u64],
                swizzle: 0,
            };
            tensor_maps.insert(param.name.clone(), spec);
        }
        let params = kernel
            .params
            .iter()
            .filter(|param| param.array.is_none())
            .map(|param| {
                let spec = if param.takes_buffer() {
                    notes.push(format!("parameter `{}`: set the buffer's dtype and length", param.name));
                    ParamSpec::Buffer(BufferSpec { dtype: Dtype(DataType::FLOAT32), len: threads, npy: None })
                } else {
                    notes.push(format!("parameter `{}` ({}): set its value", param.name, param.ty));
                    let one = if param.ty.is_float() { ScalarValue::Float(1.0) } else { ScalarValue::Int(1) };
                    ParamSpec::Scalar(one)
                };
                (param.name.clone(), spec)
            })
            .collect();
        let file = LaunchFile {
            kernel: kernel.name.clone(),
            grid: kernel.launch.grid,
            block,
            shared,
            seed: None,
            params,
            tensor_maps,
        };
        (file, notes)
    }
}

impl BufferSpec {
    /// The buffer's seeded random contents: the same for the same seed and parameter position.
    pub fn random(&self, seed: u64, position: usize) -> Result<Tensor, ExecError> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(position as u64);
        let num = Num::of(self.dtype.0).unwrap_or(Num::F32);
        let bits = (0..self.len).map(|_| random_bits(num, &mut rng)).collect();
        Tensor::from_bits(self.dtype.0, vec![self.len], bits)
    }
}

fn write_params<S: Serializer>(params: &[(String, ParamSpec)], serializer: S) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(params.len()))?;
    for (name, spec) in params {
        map.serialize_entry(name, spec)?;
    }
    map.end()
}

/// The parameters object in the order written, each name once.
fn read_params<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<(String, ParamSpec)>, D::Error> {
    struct Params;
    impl<'de> Visitor<'de> for Params {
        type Value = Vec<(String, ParamSpec)>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object of parameters by name")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut params: Vec<(String, ParamSpec)> = Vec::new();
            while let Some(name) = map.next_key::<String>()? {
                if params.iter().any(|(known, _)| *known == name) {
                    return Err(serde::de::Error::custom(format!("parameter `{name}` is given twice")));
                }
                let spec = map.next_value()?;
                params.push((name, spec));
            }
            Ok(params)
        }
    }
    deserializer.deserialize_map(Params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    const KERNEL: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .entry k(.param .u64 a, .param .u32 n)\n.reqntid 64, 1, 1\n{\n\
        .extern .shared .align 16 .b8 smem[];\nret;\n}\n";

    #[test]
    fn a_launch_file_is_written_from_the_header_and_read_back() {
        let parsed = parse(KERNEL).expect("the kernel parses");
        let (file, notes) = LaunchFile::of_kernel(&parsed.module.kernels[0]);
        assert_eq!(file.block, [64, 1, 1]);
        assert!(file.shared > 0, "{file:?}");
        assert_eq!(file.params.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["a", "n"]);
        assert!(matches!(file.params[0].1, ParamSpec::Buffer(BufferSpec { len: 64, .. })));
        assert!(notes.iter().any(|n| n.contains(".extern .shared smem")), "{notes:?}");
        assert_eq!(LaunchFile::parse(&file.to_json()), Ok(file));
    }

    #[test]
    fn a_bad_launch_file_is_a_located_error() {
        let duplicate = "{\"kernel\": \"k\", \"grid\": [1,1,1], \"block\": [1,1,1],\n\"params\": {\"a\": {\"scalar\": 1},\n \"a\": {\"scalar\": 2}}}";
        let error = LaunchFile::parse(duplicate).unwrap_err();
        assert_eq!((error.line, error.message.contains("`a` is given twice")), (3, true), "{error}");
        let dtype = "{\"kernel\": \"k\", \"grid\": [1,1,1], \"block\": [1,1,1],\n\"params\": {\"a\": {\"buffer\": {\"dtype\": \"float33\", \"len\": 4}}}}";
        let error = LaunchFile::parse(dtype).unwrap_err();
        assert!(error.line == 2 && error.message.contains("`float33` is not a dtype"), "{error}");
        let unknown = "{\"kernel\": \"k\", \"grid\": [1,1,1], \"blocks\": [1,1,1]}";
        assert!(LaunchFile::parse(unknown).unwrap_err().message.contains("unknown field `blocks`"));
        assert!(LaunchFile::parse("{\"kernel\": ").is_err());
    }

    #[test]
    fn random_buffers_are_seeded() {
        let spec = BufferSpec { dtype: Dtype(DataType::FLOAT32), len: 16, npy: None };
        let random = |seed, position| spec.random(seed, position).expect("a tensor");
        assert_eq!(random(3, 0), random(3, 0));
        assert_ne!(random(3, 0), random(3, 1));
        assert_ne!(random(3, 0), random(4, 0));
    }
}
