//! PTX emulator throughput and lowering time: `cargo bench --bench ptx`.
//!
//! Streaming copy kernels lowered by our codegen, run under the lazy schedule; throughput is
//! instructions executed per second (all threads together, on one core):
//! - one thread copying 2^20 float32 elements in a loop (no race tracking: one thread);
//! - a grid of 64 blocks of 128 threads, each thread copying its own 128 elements (every
//!   global access checked for races between threads and blocks).
//!
//! Compiler-emitted kernels (`ptx-emulator-foreign`): Triton's flash attention forward for
//! sm_80 and sm_90a from corpus/ptx-foreign, launched as its launch file says (random inputs of
//! seed 0), lazy schedule, threads in order.
//!
//! Lowering (`ptx-lowering`): the lowering pipeline and codegen for sm_80 on every corpus
//! program that lowers, all of them per iteration (throughput: programs per second), and on
//! the corpus's GEMM and vector copy alone. Parsing is outside the measured time.

use std::collections::BTreeMap;

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tirproof::source::{expand_paths, Source};
use tirproof_interp::{random_inputs, Inputs};
use tirproof_ir::func::PrimFunc;
use tirproof_ir::IRModule;
use tirproof_ptx::args::ArgBinder;
use tirproof_ptx::emu::{run_kernel, EmuConfig, KernelArg};
use tirproof_ptx::launch_file::{LaunchFile, ParamSpec};
use tirproof_ptx::module::Kernel;
use tirproof_ptx::{lower_module, lower_tir, Arch};
use tirproof_reader::parse_module;

const ONE_THREAD: &str = r#"
@T.prim_func
def main(A: T.Buffer((1048576,), "float32"), C: T.Buffer((1048576,), "float32")):
    for i in range(1048576):
        C[i] = A[i]
"#;

const GRID: &str = r#"
@T.prim_func
def main(A: T.Buffer((1048576,), "float32"), C: T.Buffer((1048576,), "float32")):
    for bx in T.thread_binding(64, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            for i in range(128):
                C[bx * 16384 + i * 128 + tx] = A[bx * 16384 + i * 128 + tx]
"#;

fn args(func: &PrimFunc, inputs: &Inputs) -> Vec<KernelArg> {
    func.param_buffers().map(|b| KernelArg::Buffer(inputs.buffers[b.name()].clone())).collect()
}

fn bench_kernel(c: &mut Criterion, name: &str, text: &str) {
    let mut module = parse_module(text).expect("the benchmark program parses");
    lower_tir(&mut module).expect("lowers");
    let func = &module.functions[0];
    let ptx = lower_module(&module, Arch::Sm80).expect("codegen");
    let kernel: &Kernel = &ptx.module.kernels[0];
    let inputs = random_inputs(func, 0, &BTreeMap::new()).expect("inputs");
    let args = args(func, &inputs);
    let config = EmuConfig::default();
    let instructions = run_kernel(kernel, None, &args, &config).expect("runs").instructions;
    let mut group = c.benchmark_group("ptx-emulator");
    group.throughput(Throughput::Elements(instructions));
    group.sample_size(10);
    group.bench_function(name, |b| b.iter(|| run_kernel(kernel, None, &args, &config).map(|r| r.instructions)));
    group.finish();
}

fn streaming_copy(c: &mut Criterion) {
    bench_kernel(c, "copy 2^20 float32, one thread", ONE_THREAD);
    bench_kernel(c, "copy 2^20 float32, 64 blocks x 128 threads", GRID);
}

/// The kernel of `corpus/ptx-foreign/STEM.ptx` launched as `STEM.launch.json` says, with
/// its PTX lines and arguments (random buffers of seed 0).
fn foreign_launch(stem: &str) -> (Kernel, Vec<u32>, Vec<KernelArg>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/ptx-foreign");
    let text = std::fs::read_to_string(dir.join(format!("{stem}.ptx"))).expect("the PTX file");
    let launch = std::fs::read_to_string(dir.join(format!("{stem}.launch.json"))).expect("the launch file");
    let launch = LaunchFile::parse(&launch).expect("a launch file");
    let parsed = tirproof_ptx::parse::parse(&text).expect("parses");
    let index = parsed.module.kernels.iter().position(|k| k.name == launch.kernel).expect("the kernel");
    let kernel = parsed.module.kernels[index].launched(parsed.module.arch, launch.request()).expect("launches");
    let mut binder = ArgBinder::new(&kernel);
    for (name, spec) in &launch.params {
        let (position, param) = binder.param(name).expect("a parameter");
        match spec {
            ParamSpec::Buffer(buffer) => binder.buffer(name, buffer.random(0, position).expect("a buffer")),
            ParamSpec::Scalar(value) => binder.scalar(name, value.arg(param.ty)),
        }
        .expect("binds");
    }
    for (name, map) in &launch.tensor_maps {
        binder.buffer(name, map.tensor(&kernel).expect("a tensor map")).expect("binds");
    }
    let args = binder.finish().expect("every parameter bound");
    (kernel, parsed.lines[index].clone(), args)
}

fn foreign_kernels(c: &mut Criterion) {
    let mut group = c.benchmark_group("ptx-emulator-foreign");
    group.sample_size(10);
    for stem in ["triton_flash_attention_sm_80", "triton_flash_attention_sm_90a"] {
        let (kernel, lines, args) = foreign_launch(stem);
        let config = EmuConfig::default();
        let instructions = run_kernel(&kernel, Some(&lines), &args, &config).expect("runs").instructions;
        group.throughput(Throughput::Elements(instructions));
        group.bench_function(stem, |b| {
            b.iter(|| run_kernel(&kernel, Some(&lines), &args, &config).map(|r| r.instructions))
        });
    }
    group.finish();
}

/// Lowers `module` to PTX text, as `tirproof ptx` does; `None` when it cannot be lowered.
fn lower_to_ptx(module: &IRModule) -> Option<String> {
    let mut module = module.clone();
    lower_tir(&mut module).ok()?;
    let lowered = lower_module(&module, Arch::Sm80).ok()?;
    tirproof_ptx::module::print(&lowered.module).ok()
}

/// Every corpus program that parses, checks and lowers, by its path under `corpus/`.
fn lowerable_corpus() -> Vec<(String, IRModule)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let files = expand_paths(std::slice::from_ref(&root)).expect("the corpus lists");
    files
        .iter()
        .filter_map(|file| {
            let module = Source::read(file).ok()?.parse_and_check().ok()?;
            lower_to_ptx(&module)?;
            Some((file.strip_prefix(&root).unwrap_or(file).display().to_string(), module))
        })
        .collect()
}

fn lowering(c: &mut Criterion) {
    let corpus = lowerable_corpus();
    let mut group = c.benchmark_group("ptx-lowering");
    group.throughput(Throughput::Elements(corpus.len() as u64));
    group.bench_function(format!("every corpus program that lowers ({})", corpus.len()), |b| {
        b.iter(|| corpus.iter().filter_map(|(_, m)| lower_to_ptx(black_box(m))).count())
    });
    group.throughput(Throughput::Elements(1));
    for name in ["rfc/gemm_printed.py", "pipeline/vector_copy.py"] {
        let Some((_, module)) = corpus.iter().find(|(n, _)| n == name) else { continue };
        group.bench_function(name, |b| b.iter(|| lower_to_ptx(black_box(module))));
    }
    group.finish();
}

criterion_group!(benches, streaming_copy, foreign_kernels, lowering);
criterion_main!(benches);
