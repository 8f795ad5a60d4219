//! Inputs of a run: binding tensors and scalars to parameters, and seeded random inputs.
//!
//! Parameter buffers are global storage supplied by the caller, fully initialized. A
//! parameter buffer's tensor has the buffer's scalar element type and its shape (plus a
//! trailing dimension for vector elements); a buffer with explicit strides or an element
//! offset is given as the flat storage it spans. Shapes may depend on scalar parameters.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use tirproof_ir::func::PrimFunc;

use super::compile::compile_params;
use super::exec::Executor;
use super::frame::Layout;
use super::program::ParamBinding;
use super::thread::Thread;
use super::RunConfig;
use tirproof_machine::error::{ExecError, TrapKind};
use tirproof_machine::memory::{Data, Visibility};
use tirproof_machine::tensor::Tensor;
use tirproof_machine::value::{random_bits, Num, ScalarValue};

/// Tensors for parameter buffers (by buffer name) and values for scalar parameters (by
/// variable name).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    pub buffers: BTreeMap<String, Tensor>,
    pub scalars: BTreeMap<String, ScalarValue>,
}

/// A parameter storage, to read back as an output.
pub(crate) struct ParamStorage {
    pub(crate) name: String,
    pub(crate) storage: u32,
    pub(crate) dtype: tirproof_ir::dtype::DataType,
    pub(crate) shape: Vec<usize>,
}

/// The shape of the tensor that fills a buffer with this layout.
fn tensor_shape(layout: &Layout, len: i64) -> Vec<usize> {
    if layout.is_compact() {
        let mut shape: Vec<usize> = layout.shape.iter().map(|d| usize::try_from(*d).unwrap_or(0)).collect();
        if layout.lanes > 1 {
            shape.push(usize::try_from(layout.lanes).unwrap_or(0));
        }
        shape
    } else {
        vec![usize::try_from(len).unwrap_or(0)]
    }
}

fn to_error(name: &str, trap: tirproof_machine::error::Trap) -> ExecError {
    match *trap.0 {
        TrapKind::Error(e) => e,
        TrapKind::Fault { message, .. } => {
            ExecError::BadInput { name: name.to_string(), message: format!("its shape cannot be computed: {message}") }
        }
        TrapKind::Located(f) => {
            ExecError::BadInput { name: name.to_string(), message: format!("its shape cannot be computed: {f}") }
        }
    }
}

impl Executor<'_> {
    /// Evaluates a parameter buffer's layout and storage size.
    fn param_layout(
        &mut self,
        th: &mut Thread,
        name: &str,
        layout: &super::program::LayoutIns,
    ) -> Result<(Layout, i64), ExecError> {
        let l = self.eval_layout(th, layout).map_err(|t| to_error(name, t))?;
        let len =
            l.storage_len().ok_or_else(|| ExecError::ResourceLimit(format!("parameter `{name}` is too large")))?;
        Ok((l, len))
    }

    /// Binds scalar parameters, creates parameter storages from the tensors and declares
    /// the parameter buffers and their aliases.
    pub(crate) fn bind_inputs(&mut self, th: &mut Thread, inputs: &Inputs) -> Result<Vec<ParamStorage>, ExecError> {
        let prog = self.prog;
        for p in &prog.params {
            if let ParamBinding::Scalar { name, slot, num } = p {
                let value = inputs.scalars.get(name).ok_or_else(|| ExecError::MissingInput(name.clone()))?;
                th.frame.scalars[*slot as usize] = value.to_bits(*num);
            }
        }
        let mut storages = Vec::new();
        for p in &prog.params {
            let ParamBinding::Buffer { name, layout } = p else {
                continue;
            };
            let (l, len) = self.param_layout(th, name, layout)?;
            let tensor = inputs.buffers.get(name).ok_or_else(|| ExecError::MissingInput(name.clone()))?;
            let dtype = l.num.dtype();
            let shape = tensor_shape(&l, len);
            if tensor.dtype != dtype || tensor.shape != shape {
                return Err(ExecError::BadInput {
                    name: name.clone(),
                    message: format!(
                        "expected a {dtype} tensor of shape {shape:?}, got {} of shape {:?}",
                        tensor.dtype, tensor.shape
                    ),
                });
            }
            // Tensors hold canonical bits already (their constructors normalize); the storage
            // shares them until its first write.
            let bits = Data::Shared(tensor.shared_bits());
            let storage =
                self.mem.alloc(name, l.num, len, Some(bits), Visibility::Device).map_err(|t| to_error(name, t))?;
            th.frame.data[layout.data as usize] = storage;
            th.frame.layouts[layout.buf as usize] = Some(l);
            storages.push(ParamStorage { name: name.clone(), storage, dtype, shape });
        }
        for alias in &prog.param_aliases {
            self.materialize(th, alias).map_err(|t| to_error("alias", t))?;
        }
        Ok(storages)
    }

    /// The final contents of the parameter storages (moved out: the run is over).
    pub(crate) fn take_outputs(&mut self, params: &[ParamStorage]) -> BTreeMap<String, Tensor> {
        params
            .iter()
            .filter_map(|p| {
                let storage = self.mem.storages.get_mut(p.storage as usize)?;
                let data = std::mem::replace(&mut storage.data, Data::Owned(Vec::new()));
                Some((p.name.clone(), Tensor::from_shared(p.dtype, p.shape.clone(), data.into_shared())))
            })
            .collect()
    }
}

/// A random value of kind `num`: integers in -8..8 (unsigned 0..8), floats multiples of 0.25
/// in [-4, 4] (exactly representable, so sums and products stay exact), random bools.
/// Seeded random inputs for every parameter of `func`. Scalar parameters not in `scalars`
/// get a random value (integers in 1..=64, so shapes that depend on them are non-empty);
/// the chosen scalars are part of the result, and a scalar given the value the seed draws for
/// it changes nothing.
pub fn random_inputs(func: &PrimFunc, seed: u64, scalars: &BTreeMap<String, ScalarValue>) -> Result<Inputs, ExecError> {
    let prog = compile_params(func)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut inputs = Inputs::default();
    for p in &prog.params {
        if let ParamBinding::Scalar { name, num, .. } = p {
            // Drawn whether given or not, so that giving a scalar the value the seed drew
            // (`--seed S --arg n=46`) leaves every other input as it was.
            let drawn = match num {
                _ if num.is_float() => ScalarValue::from_bits(*num, random_bits(*num, &mut rng)),
                Num::Bool => ScalarValue::Bool(rng.gen_bool(0.5)),
                _ => ScalarValue::Int(rng.gen_range(1..=64)),
            };
            inputs.scalars.insert(name.clone(), scalars.get(name).copied().unwrap_or(drawn));
        }
    }
    let mut machine = Executor::new(&prog, &RunConfig::default());
    let mut th = machine.main_thread();
    for p in &prog.params {
        if let ParamBinding::Scalar { name, slot, num } = p {
            let value = inputs.scalars.get(name).copied().unwrap_or(ScalarValue::Int(0));
            th.frame.scalars[*slot as usize] = value.to_bits(*num);
        }
    }
    for p in &prog.params {
        let ParamBinding::Buffer { name, layout } = p else {
            continue;
        };
        let (l, len) = machine.param_layout(&mut th, name, layout)?;
        if usize::try_from(len).map_or(true, |n| n > tirproof_machine::memory::MAX_LIVE_ELEMENTS) {
            return Err(ExecError::ResourceLimit(format!("parameter `{name}` has {len} elements")));
        }
        let bits = (0..len).map(|_| random_bits(l.num, &mut rng)).collect();
        let tensor = Tensor::from_bits(l.num.dtype(), tensor_shape(&l, len), bits)?;
        inputs.buffers.insert(name.clone(), tensor);
    }
    Ok(inputs)
}
