//! Loading PTX onto the device and running a kernel on buffers and scalars, as the emulator
//! runs it: the same [`KernelArg`]s in, the buffers after the run out.
//!
//! A buffer goes to the device as its elements' little-endian bytes (a bool is one byte, as
//! codegen lays it out), each in an allocation of its own; a scalar goes by value at its
//! parameter's width. The launch shape is the kernel's own (`Kernel::launch`, fixed by the
//! thread bindings of the TIR it was generated from): grid, block and dynamic shared memory.
//!
//! Invariants: outputs come back in parameter order, `None` for scalars, with the shapes and
//! element types of the inputs; a run that does not finish within the device's timeout is an
//! error, never a hang of the caller.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::sys::CUfunction_attribute_enum;
use cudarc::driver::{CudaFunction, CudaModule, CudaSlice, LaunchConfig};
use cudarc::nvrtc::Ptx;
use tirproof_machine::value::Num;
use tirproof_machine::Tensor;
use tirproof_ptx::emu::KernelArg;
use tirproof_ptx::module::{print, Kernel, Module};

use crate::device::Gpu;
use crate::error::{at, GpuError, Step};
use crate::ffi::{launch, Arg, LaunchError};
use crate::ptxas::ptxas_log;

/// Dynamic shared memory a kernel gets without asking for more.
const DEFAULT_DYNAMIC_SHARED: u64 = 48 * 1024;

/// One kernel of a module loaded on the device.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub kernel: Kernel,
    function: CudaFunction,
    /// Keeps the module loaded while its function is used.
    _module: Arc<CudaModule>,
}

impl Gpu {
    /// Prints `module`, loads it through the driver's JIT and finds each of its kernels; when
    /// the JIT refuses it, the error has ptxas's log of the same text for this device.
    pub fn load(&self, module: &Module) -> Result<Vec<Loaded>, GpuError> {
        let text = print(module).map_err(|e| GpuError::Unsupported(e.to_string()))?;
        let first = || module.kernels.first().map_or_else(String::new, |k| k.name.clone());
        let _busy = self.lock();
        let loaded = self.ctx.load_module(Ptx::from_src(text.clone())).map_err(|driver| GpuError::Jit {
            kernel: first(),
            driver,
            ptxas: ptxas_log(&text, &self.sm()),
        })?;
        module
            .kernels
            .iter()
            .map(|kernel| {
                let function = loaded
                    .load_function(&kernel.name)
                    .map_err(|driver| GpuError::NoKernel { kernel: kernel.name.clone(), driver })?;
                if kernel.launch.dynamic_shared > DEFAULT_DYNAMIC_SHARED {
                    let bytes = i32::try_from(kernel.launch.dynamic_shared).map_err(|_| {
                        GpuError::Unsupported(format!("{} bytes of shared memory", kernel.launch.dynamic_shared))
                    })?;
                    let attribute = CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
                    function.set_attribute(attribute, bytes).map_err(at(Step::SharedMemoryLimit))?;
                }
                Ok(Loaded { kernel: kernel.clone(), function, _module: Arc::clone(&loaded) })
            })
            .collect()
    }

    /// Runs `loaded` on `args` (one per parameter, in order) and returns the buffers after
    /// the run, in parameter order (`None` for scalars).
    pub fn run(&self, loaded: &Loaded, args: &[KernelArg]) -> Result<Vec<Option<Tensor>>, GpuError> {
        let kernel = &loaded.kernel;
        let _busy = self.lock();
        let buffers = args
            .iter()
            .map(|arg| match arg {
                KernelArg::Buffer(tensor) => {
                    let bytes = to_bytes(tensor)?;
                    self.stream.clone_htod(&bytes).map(Some).map_err(at(Step::CopyToDevice))
                }
                KernelArg::Scalar(_) => Ok(None),
            })
            .collect::<Result<Vec<Option<CudaSlice<u8>>>, GpuError>>()?;
        let launch_args = args
            .iter()
            .zip(&buffers)
            .zip(&kernel.params)
            .map(|((arg, buffer), param)| match (arg, buffer) {
                (KernelArg::Scalar(bits), _) => scalar(*bits, param.ty.bits()).ok_or_else(|| GpuError::BadArguments {
                    kernel: kernel.name.clone(),
                    why: format!("the parameter `{}` is {}", param.name, param.ty),
                }),
                (KernelArg::Buffer(_), Some(buffer)) => Ok(Arg::Buffer(buffer)),
                (KernelArg::Buffer(_), None) => Err(GpuError::Unsupported("a buffer without device memory".into())),
            })
            .collect::<Result<Vec<Arg<'_>>, GpuError>>()?;
        self.launch_and_wait(loaded, &launch_args)?;
        args.iter()
            .zip(buffers)
            .map(|(arg, buffer)| match (arg, buffer) {
                (KernelArg::Buffer(tensor), Some(buffer)) => {
                    let bytes = self.stream.clone_dtoh(&buffer).map_err(at(Step::CopyToHost))?;
                    from_bytes(tensor, &bytes).map(Some)
                }
                _ => Ok(None),
            })
            .collect()
    }

    /// Launches `loaded` with `args` and waits until it finishes or the timeout passes; the
    /// time it took.
    pub(crate) fn launch_and_wait(&self, loaded: &Loaded, args: &[Arg<'_>]) -> Result<Duration, GpuError> {
        let kernel = &loaded.kernel;
        let launch_shape = kernel.launch;
        let config = LaunchConfig {
            grid_dim: (launch_shape.grid[0], launch_shape.grid[1], launch_shape.grid[2]),
            block_dim: (launch_shape.block[0], launch_shape.block[1], launch_shape.block[2]),
            shared_mem_bytes: u32::try_from(launch_shape.dynamic_shared).map_err(|_| {
                GpuError::Unsupported(format!("{} bytes of shared memory", launch_shape.dynamic_shared))
            })?,
        };
        let start = Instant::now();
        launch(&self.stream, &loaded.function, &kernel.params, config, args).map_err(|e| match e {
            LaunchError::Mismatch(why) => GpuError::BadArguments { kernel: kernel.name.clone(), why },
            LaunchError::Driver(driver) => GpuError::Driver { step: Step::Launch, driver },
        })?;
        self.wait(&kernel.name, start)
    }

    /// Waits for the work queued on the stream, polling so that a kernel that never ends is a
    /// [`GpuError::Timeout`]; the time since `start`.
    pub(crate) fn wait(&self, what: &str, start: Instant) -> Result<Duration, GpuError> {
        let done = self.stream.record_event(None).map_err(at(Step::Execute))?;
        let mut pause = Duration::from_micros(20);
        loop {
            if done.try_is_complete().map_err(at(Step::Execute))? {
                return Ok(start.elapsed());
            }
            if start.elapsed() > self.timeout {
                return Err(GpuError::Timeout { kernel: what.to_string(), timeout: self.timeout });
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(5));
        }
    }
}

/// The bytes one element of `tensor` takes on the device.
fn unit(tensor: &Tensor) -> Result<usize, GpuError> {
    match Num::of(tensor.dtype.element()) {
        Some(Num::Bool) => Ok(1),
        Some(num) if num.width() >= 8 => Ok(num.width() as usize / 8),
        _ => Err(GpuError::Unsupported(format!("buffers of {}", tensor.dtype))),
    }
}

/// The tensor's elements as the device lays them out (at least one byte: the driver allocates
/// nothing for an empty buffer).
fn to_bytes(tensor: &Tensor) -> Result<Vec<u8>, GpuError> {
    let unit = unit(tensor)?;
    let mut bytes: Vec<u8> = tensor.bits().iter().flat_map(|bits| bits.to_le_bytes().into_iter().take(unit)).collect();
    if bytes.is_empty() {
        bytes.push(0);
    }
    Ok(bytes)
}

/// A tensor shaped and typed like `like`, from the device's bytes.
fn from_bytes(like: &Tensor, bytes: &[u8]) -> Result<Tensor, GpuError> {
    let unit = unit(like)?;
    let bits = bytes
        .chunks_exact(unit)
        .take(like.len())
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..unit].copy_from_slice(chunk);
            u64::from_le_bytes(word)
        })
        .collect();
    Tensor::from_bits(like.dtype, like.shape.clone(), bits).map_err(|e| GpuError::Unsupported(e.to_string()))
}

/// A scalar argument of a parameter `bits` wide.
fn scalar(bits: u64, width: u32) -> Option<Arg<'static>> {
    match width {
        8 => Some(Arg::B8(bits as u8)),
        16 => Some(Arg::B16(bits as u16)),
        32 => Some(Arg::B32(bits as u32)),
        64 => Some(Arg::B64(bits)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use tirproof_machine::Tensor;

    use super::*;

    #[test]
    fn elements_go_to_the_device_little_endian_at_their_width_and_come_back() {
        let dtype = |s: &str| s.parse::<tirproof_ir::DataType>().expect("a type");
        let ints = Tensor::from_i64(dtype("int16"), vec![3], &[-2, 7, 300]).expect("a tensor");
        let bytes = to_bytes(&ints).expect("bytes");
        assert_eq!(bytes, [0xFE, 0xFF, 7, 0, 0x2C, 0x01]);
        assert_eq!(from_bytes(&ints, &bytes).expect("back").bits(), ints.bits());
        let flags = Tensor::from_i64(dtype("bool"), vec![2], &[1, 0]).expect("a tensor");
        assert_eq!(to_bytes(&flags).expect("bytes"), [1, 0]);
        let empty = Tensor::from_i64(dtype("float32"), vec![0], &[]).expect("a tensor");
        assert_eq!(to_bytes(&empty).expect("bytes").len(), 1);
        assert!(from_bytes(&empty, &[0]).expect("back").is_empty());
    }

    #[test]
    fn scalars_are_passed_at_their_parameters_width() {
        assert!(matches!(scalar(0x1_0000_0005, 32), Some(Arg::B32(5))));
        assert!(matches!(scalar(0xFFFF, 16), Some(Arg::B16(0xFFFF))));
        assert!(scalar(1, 1).is_none());
    }
}
