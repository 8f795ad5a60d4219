//! Hopper's wgmma queue and the async proxy on Triton 3.9's sm_90a kernels (`corpus/ttgir`)
//! and on small hand-written kernels: the products equal a reference under every schedule and
//! thread order, and each way of breaking the queue's protocol (a wait loosened, a proxy fence
//! or a barrier removed, an accumulator read early, a warpgroup exiting with work in flight)
//! faults naming the queue, the instruction in flight and the wait.

use std::path::{Path, PathBuf};

use tirproof_ir::dtype::DataType;
use tirproof_machine::fault::FaultKind;
use tirproof_machine::{Schedule, Tensor};
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};
use tirproof_ptx::launch::LaunchRequest;
use tirproof_ptx::module::{Dims, Kernel};
use tirproof_ptx::parse::parse;

fn corpus(file: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ttgir").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first kernel of `text` launched as `grid` x `block` with `shared` dynamic bytes.
fn kernel_of(text: &str, grid: [u32; 3], block: [u32; 3], shared: u64) -> (Kernel, Vec<u32>) {
    let parsed = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let request = LaunchRequest { grid: Some(Dims(grid)), block: Some(Dims(block)), dynamic_shared: shared };
    let kernel = parsed.module.kernels[0].launched(parsed.module.arch, request).unwrap_or_else(|e| panic!("{e}"));
    (kernel, parsed.lines[0].clone())
}

/// Small integers, so every sum of products is exact in f32 in any order.
fn values(len: usize, salt: usize) -> Vec<f64> {
    (0..len).map(|i| ((i * 7 + salt * 3) % 9) as f64 - 4.0).collect()
}

/// Triton's `matmul` kernel (a: m x k, b: k x n, c: m x n f32) on one 64 x 64 tile of c.
struct Matmul {
    m: usize,
    n: usize,
    k: usize,
    input: DataType,
}

impl Matmul {
    fn args(&self) -> Vec<KernelArg> {
        let (m, n, k) = (self.m, self.n, self.k);
        let buffer = |dtype, len, salt| KernelArg::Buffer(Tensor::from_f64(dtype, vec![len], &values(len, salt)).unwrap());
        let scalar = |v: usize| KernelArg::Scalar(v as u64);
        vec![
            buffer(self.input, m * k, 0),
            buffer(self.input, k * n, 1),
            buffer(DataType::FLOAT32, m * n, 2),
            scalar(m),
            scalar(n),
            scalar(k),
            scalar(k),
            scalar(n),
            scalar(n),
            KernelArg::Scalar(0),
            KernelArg::Scalar(0),
        ]
    }

    fn reference(&self) -> Vec<f64> {
        let (a, b) = (values(self.m * self.k, 0), values(self.k * self.n, 1));
        (0..self.m * self.n)
            .map(|at| {
                let (i, j) = (at / self.n, at % self.n);
                (0..self.k).map(|x| a[i * self.k + x] * b[x * self.n + j]).sum()
            })
            .collect()
    }
}

fn run(kernel: &Kernel, lines: &[u32], args: &[KernelArg], config: &EmuConfig) -> (EmuOutcome, Vec<Option<Tensor>>) {
    let result = run_kernel(kernel, Some(lines), args, config).unwrap_or_else(|e| panic!("the emulator failed: {e}"));
    (result.outcome, result.buffers)
}

fn configs() -> Vec<EmuConfig> {
    let mut out = Vec::new();
    for schedule in [Schedule::Lazy, Schedule::Eager, Schedule::Random(7)] {
        for thread_order_seed in [None, Some(3)] {
            out.push(EmuConfig { schedule, thread_order_seed, ..EmuConfig::default() });
        }
    }
    out
}

fn check_matmul(file: &str, shared: u64, input: DataType) {
    let text = corpus(file);
    let mm = Matmul { m: 64, n: 64, k: 128, input };
    let (kernel, lines) = kernel_of(&text, [1, 1, 1], [128, 1, 1], shared);
    for config in configs() {
        let (outcome, buffers) = run(&kernel, &lines, &mm.args(), &config);
        if let EmuOutcome::Fault(f) = &outcome {
            panic!("{file} under {config:?}: {}", f.details());
        }
        let c = buffers[2].as_ref().expect("c").to_f64_vec();
        assert_eq!(c, mm.reference(), "{file} under {config:?}");
    }
}

#[test]
fn triton_sm90_matmuls_equal_the_reference_under_every_schedule() {
    check_matmul("matmul_f16_s3_sm90.ptx", 24576, DataType::FLOAT16);
}
