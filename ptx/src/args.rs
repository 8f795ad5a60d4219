//! Typed kernel arguments: a buffer for a 64-bit address parameter, or a scalar encoded in its
//! parameter's PTX type (`Param::encode`), bound to a kernel's parameters by name
//! (`ArgBinder`) and answered in parameter order for the emulator and the GPU.
//!
//! Invariants: a scalar is encoded only when it fits its parameter's type (an integer in the
//! type's range, a number for a float, a truth value for a predicate), never wrapped; a buffer
//! binds only to a 64-bit integer parameter; `ArgBinder::finish` answers one argument per
//! parameter or names the first one left unbound.

use tirproof_machine::Tensor;

use crate::module::{Kernel, Param, Ty};

/// A kernel argument: a buffer's contents, or a scalar's bits in the parameter's type.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    Buffer(Tensor),
    Scalar(u64),
}

/// A scalar argument's value before it is encoded in its parameter's type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarArg {
    Int(i128),
    Float(f64),
    Pred(bool),
}

impl ScalarArg {
    fn kind(self) -> &'static str {
        match self {
            ScalarArg::Int(_) => "an integer",
            ScalarArg::Float(_) => "a number",
            ScalarArg::Pred(_) => "a predicate",
        }
    }
}

/// Why an argument does not bind to a kernel's parameter.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ArgError {
    #[error("kernel `{kernel}` has no parameter `{name}` (its parameters: {})", known.join(", "))]
    NoParam { kernel: String, name: String, known: Vec<String> },
    #[error("the parameter is {ty}, not a 64-bit address")]
    NotAnAddress { ty: Ty },
    #[error("{value} is out of the range of {ty}")]
    OutOfRange { value: i128, ty: Ty },
    #[error("{ty} parameters are not supported")]
    Unsupported { ty: Ty },
    #[error("{} is not a value of a {ty} parameter", value.kind())]
    WrongKind { value: ScalarArg, ty: Ty },
    #[error("parameter `{name}` is bound twice")]
    BoundTwice { name: String },
    #[error("parameter `{name}` ({ty}) is unbound")]
    Unbound { name: String, ty: Ty },
}

impl Param {
    /// Whether the parameter takes a buffer: a 64-bit integer, the buffer's global address.
    pub fn takes_buffer(&self) -> bool {
        (self.ty.bits() == 64 && !self.ty.is_float()) || self.array.is_some()
    }

    /// The bits of `value` in the parameter's type, two's complement cut to its width.
    pub fn encode(&self, value: ScalarArg) -> Result<u64, ArgError> {
        let ty = self.ty;
        let bits = ty.bits();
        match value {
            ScalarArg::Pred(truth) if ty == Ty::Pred => Ok(u64::from(truth)),
            ScalarArg::Float(number) if ty.is_float() => match bits {
                // The nearest float32, as a literal in the source would be.
                32 => Ok(u64::from((number as f32).to_bits())),
                64 => Ok(number.to_bits()),
                _ => Err(ArgError::Unsupported { ty }),
            },
            ScalarArg::Int(number) if ty != Ty::Pred && !ty.is_float() => {
                let (min, max) = if ty.is_signed() {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                if number < min || number > max {
                    return Err(ArgError::OutOfRange { value: number, ty });
                }
                // In range, so the low 64 bits are the value; the emulator masks the same way.
                Ok((number as u64) & (u64::MAX >> (64 - bits)))
            }
            _ => Err(ArgError::WrongKind { value, ty }),
        }
    }
}

/// A kernel's arguments being bound by parameter name.
#[derive(Debug)]
pub struct ArgBinder<'k> {
    kernel: &'k Kernel,
    bound: Vec<Option<KernelArg>>,
}

impl<'k> ArgBinder<'k> {
    pub fn new(kernel: &'k Kernel) -> Self {
        ArgBinder { kernel, bound: vec![None; kernel.params.len()] }
    }

    /// The parameter named `name`, with its position.
    pub fn param(&self, name: &str) -> Result<(usize, &'k Param), ArgError> {
        let kernel = self.kernel;
        kernel.params.iter().enumerate().find(|(_, p)| p.name == name).ok_or_else(|| ArgError::NoParam {
            kernel: kernel.name.clone(),
            name: name.to_string(),
            known: kernel.params.iter().map(|p| p.name.clone()).collect(),
        })
    }

    /// Binds a buffer to the 64-bit address parameter `name`.
    pub fn buffer(&mut self, name: &str, tensor: Tensor) -> Result<(), ArgError> {
        let (at, param) = self.param(name)?;
        if !param.takes_buffer() {
            return Err(ArgError::NotAnAddress { ty: param.ty });
        }
        self.bind(at, KernelArg::Buffer(tensor))
    }

    /// Binds a scalar, encoded in the type of the parameter `name`.
    pub fn scalar(&mut self, name: &str, value: ScalarArg) -> Result<(), ArgError> {
        let (at, param) = self.param(name)?;
        let bits = param.encode(value)?;
        self.bind(at, KernelArg::Scalar(bits))
    }

    fn bind(&mut self, at: usize, arg: KernelArg) -> Result<(), ArgError> {
        match self.bound.get_mut(at) {
            Some(slot @ None) => {
                *slot = Some(arg);
                Ok(())
            }
            _ => Err(ArgError::BoundTwice {
                name: self.kernel.params.get(at).map(|p| p.name.clone()).unwrap_or_default(),
            }),
        }
    }

    /// The arguments in parameter order, or the first parameter left unbound.
    pub fn finish(self) -> Result<Vec<KernelArg>, ArgError> {
        self.kernel
            .params
            .iter()
            .zip(self.bound)
            .map(|(param, arg)| arg.ok_or_else(|| ArgError::Unbound { name: param.name.clone(), ty: param.ty }))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::{BlockDirectives, Launch};
    use tirproof_ir::dtype::DataType;

    fn param(ty: Ty) -> Param {
        Param { name: "p".into(), ty, array: None }
    }

    #[test]
    fn scalars_are_encoded_in_their_parameters_type() {
        assert_eq!(param(Ty::S32).encode(ScalarArg::Int(-1)), Ok(0xFFFF_FFFF));
        assert_eq!(param(Ty::U8).encode(ScalarArg::Int(255)), Ok(255));
        assert_eq!(param(Ty::S64).encode(ScalarArg::Int(i128::from(i64::MIN))), Ok(1 << 63));
        assert_eq!(param(Ty::F32).encode(ScalarArg::Float(1.5)), Ok(u64::from(1.5f32.to_bits())));
        assert_eq!(param(Ty::F64).encode(ScalarArg::Float(-2.0)), Ok((-2.0f64).to_bits()));
        assert_eq!(param(Ty::Pred).encode(ScalarArg::Pred(true)), Ok(1));
    }

    #[test]
    fn a_scalar_that_does_not_fit_is_refused() {
        assert_eq!(param(Ty::U8).encode(ScalarArg::Int(256)), Err(ArgError::OutOfRange { value: 256, ty: Ty::U8 }));
        assert_eq!(param(Ty::U32).encode(ScalarArg::Int(-1)), Err(ArgError::OutOfRange { value: -1, ty: Ty::U32 }));
        let over = i128::from(i32::MAX) + 1;
        assert_eq!(
            param(Ty::S32).encode(ScalarArg::Int(over)).unwrap_err().to_string(),
            "2147483648 is out of the range of .s32"
        );
        assert_eq!(param(Ty::F16).encode(ScalarArg::Float(1.0)), Err(ArgError::Unsupported { ty: Ty::F16 }));
        let wrong = param(Ty::S32).encode(ScalarArg::Float(1.0));
        assert_eq!(wrong, Err(ArgError::WrongKind { value: ScalarArg::Float(1.0), ty: Ty::S32 }));
        assert!(param(Ty::F32).encode(ScalarArg::Int(1)).is_err());
        assert!(param(Ty::Pred).encode(ScalarArg::Int(1)).is_err());
    }

    #[test]
    fn arguments_bind_by_name_in_parameter_order() {
        let kernel = Kernel {
            name: "k".into(),
            params: vec![
                Param { name: "n".into(), ty: Ty::S32, array: None },
                Param { name: "a".into(), ty: Ty::U64, array: None },
            ],
            arrays: Vec::new(),
            launch: Launch::default(),
            directives: BlockDirectives::default(),
            source_file: None,
            body: Vec::new(),
        };
        let tensor = Tensor::from_bits(DataType::FLOAT32, vec![1], vec![0]).expect("a tensor");
        let mut binder = ArgBinder::new(&kernel);
        assert_eq!(binder.buffer("n", tensor.clone()), Err(ArgError::NotAnAddress { ty: Ty::S32 }));
        let unknown = binder.scalar("m", ScalarArg::Int(1)).unwrap_err();
        assert_eq!(unknown.to_string(), "kernel `k` has no parameter `m` (its parameters: n, a)");
        binder.buffer("a", tensor.clone()).unwrap();
        assert_eq!(binder.buffer("a", tensor.clone()), Err(ArgError::BoundTwice { name: "a".into() }));
        let mut unbound = ArgBinder::new(&kernel);
        unbound.buffer("a", tensor.clone()).unwrap();
        assert_eq!(unbound.finish(), Err(ArgError::Unbound { name: "n".into(), ty: Ty::S32 }));
        binder.scalar("n", ScalarArg::Int(-2)).unwrap();
        assert_eq!(binder.finish(), Ok(vec![KernelArg::Scalar(0xFFFF_FFFE), KernelArg::Buffer(tensor)]));
    }
}
