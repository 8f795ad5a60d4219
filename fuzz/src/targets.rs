//! The bodies of the cargo-fuzz targets (`fuzz/fuzz_targets/`), as plain functions so that
//! `cargo test` can replay each target's corpus on the stable toolchain without libFuzzer.
//! `npy` feeds any bytes to the `.npy` reader the command line uses (`tirproof_machine::npy`);
//! `foreign` feeds any bytes to the readers of Triton's TTGIR and MLIR's nvgpu
//! (`tirproof_foreign`); `ptx` feeds generated kernels (and, one input in four, any bytes) to the PTX reader and
//! runs what it reads on the emulator, with little fuel and a small grid; one generated input
//! in eight is a Hopper pipeline kernel with a known verdict, checked against the emulator.
//!
//! A target panics when an oracle fails: that is how libFuzzer learns of a crash. Generated
//! programs come from [`crate::gen`], so libFuzzer's byte mutations become program mutations.
//! Z3 queries get a short limit here (a fuzzer runs millions of inputs); an inconclusive
//! answer still counts as a failure.

use std::path::Path;
use std::time::Duration;

use arbitrary::Unstructured;
use tirproof_foreign::Dialect;
use tirproof_ir::check::check_module;
use tirproof_machine::npy::{self, Expected};
use tirproof_reader::parse_module;

use tirproof_machine::Schedule;
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};
use tirproof_ptx::module::{print, Kernel};

use crate::gen::{hopper_kernel, pipeline_program, ptx_kernel, GenConfig, HopperVerdict, HOPPER_OUT_PARAM};
use crate::oracle::{round_trip, Chain, ChainConfig, OracleName, Outcome};

/// Time limit of each Z3 check in a fuzz target.
const TARGET_TIMEOUT: Duration = Duration::from_secs(5);

/// A target: panics when an oracle fails on the input.
pub type Target = fn(&[u8]);

/// The targets, by name (the file names under `fuzz/fuzz_targets/`).
pub const TARGETS: [(&str, Target); 7] = [
    ("parse", parse),
    ("pipeline", pipeline),
    ("verify", verify),
    ("cse", cse),
    ("npy", npy),
    ("ptx", ptx),
    ("foreign", foreign),
];

/// The most data the `npy` target reads as a stored tensor (small, so an input of a few bytes
/// claiming a large shape is refused quickly).
const NPY_TARGET_MAX_BYTES: u64 = 1 << 16;

/// Any bytes as program text: the parser and checker never panic, and what parses and checks
/// survives a print/parse round trip.
pub fn parse(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(module) = parse_module(&text) else { return };
    if check_module(&module).has_errors() {
        return;
    }
    if let Outcome::Fail(failure) = round_trip(&module, "program") {
        panic!("{failure}");
    }
}

/// Any bytes as Triton's TTGIR and as MLIR's nvgpu: the readers never panic, every diagnostic
/// is located inside the text, and what they read their own reader and checker accept (a
/// refusal of the translation is a bug of the import).
pub fn foreign(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let lines = u32::try_from(tirproof_ir::span::source_lines(&text).count()).unwrap_or(u32::MAX).saturating_add(1);
    for dialect in [Dialect::Ttgir, Dialect::Nvgpu] {
        match tirproof_foreign::import(&text, dialect) {
            Ok(module) => assert!(!check_module(&module.module).has_errors(), "{dialect:?}: an ill-formed import"),
            Err(diags) => {
                for d in diags.iter() {
                    assert!(d.message != tirproof_foreign::INTERNAL_ERROR, "{dialect:?}: {}", d.render("input", &text));
                    assert!(d.span.line <= lines, "{dialect:?}: `{}` at {} is outside the input", d.message, d.span);
                }
            }
        }
    }
}

/// Any bytes as a `.npy` file: the reader never panics; what it reads as a stored tensor has
/// as many elements as its shape says, and reads the same when expected as exactly that
/// buffer (the two ways the command line reads a file agree).
pub fn npy(data: &[u8]) {
    let Ok(tensor) = npy::read(data, Expected::Stored { max_bytes: NPY_TARGET_MAX_BYTES }) else { return };
    let elements = tensor.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    assert_eq!(elements, Some(tensor.len()), "shape {:?} but {} elements", tensor.shape, tensor.len());
    let expected = Expected::Buffer { dtype: tensor.dtype, shape: &tensor.shape };
    match npy::read(data, expected) {
        Ok(again) => assert!(again == tensor, "read as its own buffer, the file gives other values"),
        Err(e) => panic!("read as its own buffer ({}, {:?}), the file is refused: {e}", tensor.dtype, tensor.shape),
    }
}

/// Instructions of a generated PTX kernel at most (besides its setup).
const PTX_TARGET_MAX_INSTS: usize = 24;
/// The fuel of each emulator run in the `ptx` target.
const PTX_TARGET_FUEL: u64 = 20_000;
/// The most threads (blocks times threads per block) of a launch the `ptx` target runs.
const PTX_TARGET_MAX_THREADS: u64 = 256;

/// A PTX kernel: generated from the bytes (the first byte's low two bits not both zero), or
/// the bytes themselves as text. The reader never panics and accepts every generated kernel;
/// what it reads prints, and the print reads back to a module that prints the same; the
/// emulator never panics on what it reads, under the lazy, eager and a random schedule, and
/// two runs of one configuration give the same result.
pub fn ptx(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode & 3 != 0 && mode & HOPPER_MODE_BITS == HOPPER_MODE_BITS {
        return ptx_hopper(mode, rest);
    }
    let (text, generated_args) = if mode & 3 == 0 {
        (String::from_utf8_lossy(rest).into_owned(), None)
    } else {
        let Ok(case) = ptx_kernel(&mut Unstructured::new(rest), PTX_TARGET_MAX_INSTS) else { return };
        (case.text, Some(case.args))
    };
    let parsed = match tirproof_ptx::parse::parse(&text) {
        Ok(parsed) => parsed,
        Err(e) if generated_args.is_some() => panic!("a generated kernel does not read: {e}\n{text}"),
        Err(_) => return,
    };
    if let Ok(printed) = print(&parsed.module) {
        match tirproof_ptx::parse::parse(&printed) {
            Ok(again) => {
                let reprinted = print(&again.module).unwrap_or_else(|e| panic!("the print does not print: {e}"));
                assert_eq!(reprinted, printed, "the printed module reads back to another module");
            }
            Err(e) => panic!("the printed module does not read back: {e}\n{printed}"),
        }
    }
    for (kernel, lines) in parsed.module.kernels.iter().zip(&parsed.lines) {
        let threads = kernel.launch.block.iter().chain(&kernel.launch.grid).map(|d| u64::from(*d)).product::<u64>();
        if threads > PTX_TARGET_MAX_THREADS {
            continue;
        }
        let args = generated_args.clone().unwrap_or_else(|| default_args(kernel));
        let schedules = [Schedule::Lazy, Schedule::Eager, Schedule::Random(u64::from(mode))];
        for (index, schedule) in schedules.into_iter().enumerate() {
            let thread_order_seed = (index == 2).then_some(u64::from(mode));
            let config = EmuConfig { schedule, thread_order_seed, fuel: PTX_TARGET_FUEL };
            let first = run_kernel(kernel, Some(lines), &args, &config);
            if index == 2 {
                let again = run_kernel(kernel, Some(lines), &args, &config);
                assert!(again == first, "two runs of one configuration differ:\n{first:?}\n{again:?}\n{text}");
            }
        }
    }
}

/// The mode bits that make a generated input a Hopper pipeline kernel (one in eight).
const HOPPER_MODE_BITS: u8 = 0x1c;

/// A generated Hopper pipeline kernel ([`hopper_kernel`]): it reads, a safe one runs clean
/// and equal to its expected sums under the lazy, eager and a random schedule and a permuted
/// thread order, and a racy one faults under the lazy schedule.
fn ptx_hopper(mode: u8, rest: &[u8]) {
    let Ok(case) = hopper_kernel(&mut Unstructured::new(rest)) else { return };
    let text = &case.case.text;
    let parsed =
        tirproof_ptx::parse::parse(text).unwrap_or_else(|e| panic!("a generated kernel does not read: {e}\n{text}"));
    let (kernel, lines) = (&parsed.module.kernels[0], &parsed.lines[0]);
    let seed = u64::from(mode);
    let runs: &[(Schedule, Option<u64>)] = match case.verdict {
        HopperVerdict::Safe => &[(Schedule::Lazy, None), (Schedule::Eager, None), (Schedule::Random(seed), Some(seed))],
        HopperVerdict::Racy(_) => &[(Schedule::Lazy, None)],
    };
    for &(schedule, thread_order_seed) in runs {
        let config = EmuConfig { schedule, thread_order_seed, ..EmuConfig::default() };
        let result = run_kernel(kernel, Some(lines), &case.case.args, &config)
            .unwrap_or_else(|e| panic!("{schedule:?}: the emulator cannot run a generated kernel: {e}\n{text}"));
        match (&case.verdict, &result.outcome) {
            (HopperVerdict::Safe, EmuOutcome::Completed) => {
                let out = result.buffers[HOPPER_OUT_PARAM].as_ref().map(|t| t.to_f64_vec());
                assert!(
                    out.as_ref() == Some(&case.expected),
                    "{schedule:?}: {out:?}, expected {:?}\n{text}",
                    case.expected
                );
            }
            (HopperVerdict::Racy(_), EmuOutcome::Fault(_)) => {}
            (verdict, outcome) => panic!("{schedule:?}: a {verdict:?} kernel gives {outcome:?}\n{text}"),
        }
    }
}

/// Arguments for a kernel read from any text: a buffer of 16 `int32` for each 64-bit
/// parameter, the scalar 1 for the others.
fn default_args(kernel: &Kernel) -> Vec<KernelArg> {
    let dtype = tirproof_ir::DataType::new(tirproof_ir::TypeCode::Int, 32, 1);
    kernel
        .params
        .iter()
        .map(|param| match param.ty.bits() {
            64 => tirproof_machine::Tensor::zeros(dtype, vec![16]).map_or(KernelArg::Scalar(0), KernelArg::Buffer),
            _ => KernelArg::Scalar(1),
        })
        .collect()
}

/// A generated loop: the pipeline pass accepts it and its output computes the same.
pub fn pipeline(data: &[u8]) {
    if let Some(module) = generated(data) {
        run_chain(&module, &[OracleName::Pipeline, OracleName::Equivalence]);
    }
}

/// A generated loop: the verifier proves the pass's waits tight and agrees with the lazy
/// interpreter on a loosened wait.
pub fn verify(data: &[u8]) {
    if let Some(module) = generated(data) {
        run_chain(&module, &[OracleName::WaitsTight, OracleName::Agreement]);
    }
}

/// A generated loop, pipelined: both CSE modes are validated by Z3 and interpreter-equal.
pub fn cse(data: &[u8]) {
    if let Some(module) = generated(data) {
        run_chain(&module, &[OracleName::Cse]);
    }
}

fn generated(data: &[u8]) -> Option<tirproof_ir::IRModule> {
    pipeline_program(&mut Unstructured::new(data), &GenConfig::accepted()).ok().map(|(module, _)| module)
}

fn run_chain(module: &tirproof_ir::IRModule, oracles: &[OracleName]) {
    let config = ChainConfig { oracles: oracles.to_vec(), timeout: TARGET_TIMEOUT, ..ChainConfig::default() };
    let result = Chain { config: &config }.run(module);
    if let Some(failure) = result.failure() {
        panic!("{failure}\n{}", failure.counterexample.as_deref().unwrap_or(""));
    }
}

/// The `main` of a target binary built without cargo-fuzz: runs `target` on every file named
/// on the command line (directories: every file inside), reporting the first failure.
pub fn replay_main(name: &str, target: Target) -> std::process::ExitCode {
    let mut count = 0;
    for arg in std::env::args_os().skip(1) {
        match replay_path(Path::new(&arg), target, &mut count) {
            Ok(()) => {}
            Err(message) => {
                eprintln!("{name}: {message}");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    println!("{name}: {count} inputs replayed without a failure");
    std::process::ExitCode::SUCCESS
}

/// Runs `target` on `path` (a file, or every file of a directory, sorted).
pub fn replay_path(path: &Path, target: Target, count: &mut usize) -> Result<(), String> {
    if path.is_dir() {
        let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut files: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        files.sort();
        return files.iter().try_for_each(|f| replay_path(f, target, count));
    }
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    *count += 1;
    crate::oracle::panics::catch(|| target(&data))
        .map_err(|p| format!("{} fails: {} (at {})", path.display(), p.message, p.location))
}
