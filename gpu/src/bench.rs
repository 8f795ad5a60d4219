//! The bandwidth benchmark on the device: the streaming kernels of [`crate::stream`] (loaded
//! by the caller) on two device buffers of zeros, and a device-to-device copy of the same
//! bytes, each timed as the best of several runs after a warm-up run.
//!
//! Bytes moved count a read and a write of every element, for the kernels and the copy alike,
//! so their rates compare directly; the kernels' rate over the copy's is how close generated
//! code comes to the device's own copy.
//!
//! Invariants: a kernel's rate is reported only after a sample of its output (the first and
//! last 4 KiB of `C`) is checked to be `2 * 0 + 1`; runs are timed on the host around the
//! launch and the wait for it, so a rate never exceeds what the device did.

use std::time::{Duration, Instant};

use cudarc::driver::CudaSlice;

use crate::device::Gpu;
use crate::error::{at, GpuError, Step};
use crate::ffi::Arg;
use crate::run::Loaded;

/// A zero-filled buffer of device memory.
#[derive(Debug)]
pub struct DeviceBuffer(CudaSlice<u8>);

/// One benchmarked operation: what moved how many bytes in the best of its timed runs.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub name: String,
    /// Bytes read plus bytes written by one run.
    pub bytes: u64,
    pub runs: Vec<Duration>,
}

impl Measurement {
    /// The fastest run.
    pub fn best(&self) -> Duration {
        self.runs.iter().copied().min().unwrap_or_default()
    }

    /// Gigabytes (10^9 bytes) per second of the fastest run.
    pub fn gb_per_s(&self) -> f64 {
        let seconds = self.best().as_secs_f64();
        if seconds > 0.0 {
            self.bytes as f64 / seconds / 1e9
        } else {
            0.0
        }
    }
}

impl Gpu {
    /// `bytes` of device memory, zero-filled.
    pub fn zeroed(&self, bytes: usize) -> Result<DeviceBuffer, GpuError> {
        self.stream.alloc_zeros::<u8>(bytes.max(1)).map(DeviceBuffer).map_err(at(Step::Allocate))
    }

    /// Runs `loaded` (a kernel whose parameters are the buffers `A` and `C`, in that order)
    /// once to warm up and `repeats` times timed, then checks a sample of `C`.
    pub fn measure_stream(
        &self,
        loaded: &Loaded,
        a: &DeviceBuffer,
        c: &DeviceBuffer,
        repeats: usize,
    ) -> Result<Measurement, GpuError> {
        let _busy = self.lock();
        let args = [Arg::Buffer(&a.0), Arg::Buffer(&c.0)];
        let mut runs = Vec::new();
        for run in 0..=repeats {
            let took = self.launch_and_wait(loaded, &args)?;
            if run > 0 {
                runs.push(took);
            }
        }
        let sample = 4096.min(c.0.len());
        let one = 1.0f32.to_le_bytes();
        for range in [0..sample, c.0.len() - sample..c.0.len()] {
            let bytes = self.stream.clone_dtoh(&c.0.slice(range)).map_err(at(Step::CopyToHost))?;
            if let Some(word) = bytes.chunks_exact(4).position(|word| word != one) {
                let why =
                    format!("C holds {:?} where 1.0 belongs (word {word} of a sample)", &bytes[word * 4..word * 4 + 4]);
                return Err(GpuError::WrongOutput { kernel: loaded.kernel.name.clone(), why });
            }
        }
        Ok(Measurement { name: loaded.kernel.name.clone(), bytes: 2 * a.0.len() as u64, runs })
    }

    /// Copies `from` into `to` on the device once to warm up and `repeats` times timed.
    pub fn measure_copy(
        &self,
        from: &DeviceBuffer,
        to: &mut DeviceBuffer,
        repeats: usize,
    ) -> Result<Measurement, GpuError> {
        let _busy = self.lock();
        let mut runs = Vec::new();
        for run in 0..=repeats {
            let start = Instant::now();
            self.stream.memcpy_dtod(&from.0, &mut to.0).map_err(at(Step::DeviceToDeviceCopy))?;
            let took = self.wait("the device-to-device copy", start)?;
            if run > 0 {
                runs.push(took);
            }
        }
        Ok(Measurement { name: "memcpy_dtod".into(), bytes: 2 * from.0.len() as u64, runs })
    }
}
