//! The emulator's model of Hopper's `wgmma` (descriptor layouts and swizzles, register
//! fragments, the f16/bf16/tf32 arithmetic) against the device: Triton's sm_90a kernels of
//! `corpus/ptx-foreign` run on the emulator and on the GPU with the same arguments, and every
//! buffer comes back equal (bitwise for the matmuls, whose small-integer inputs make every sum
//! exact in any order; within a tolerance for flash attention, whose `ex2.approx` and division
//! the emulator models within the ISA's bounds). Without an sm_90 GPU the test says so and
//! checks nothing else.

use tirproof_gpu::{gpu, unavailable};
use tirproof_machine::Tensor;
use tirproof_ptx::args::ArgBinder;
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};
use tirproof_ptx::launch_file::{LaunchFile, ParamSpec};
use tirproof_ptx::module::Module;

/// (stem, PTX, launch file, relative tolerance: 0 for bitwise).
const CASES: [(&str, &str, &str, f64); 5] = [
    (
        "triton_matmul_f16_s3_sm_90a",
        include_str!("../../corpus/ptx-foreign/triton_matmul_f16_s3_sm_90a.ptx"),
        include_str!("../../corpus/ptx-foreign/triton_matmul_f16_s3_sm_90a.launch.json"),
        0.0,
    ),
    (
        "triton_matmul_f16_s2_sm_90a",
        include_str!("../../corpus/ptx-foreign/triton_matmul_f16_s2_sm_90a.ptx"),
        include_str!("../../corpus/ptx-foreign/triton_matmul_f16_s2_sm_90a.launch.json"),
        0.0,
    ),
    (
        "triton_matmul_bf16_s3_sm_90a",
        include_str!("../../corpus/ptx-foreign/triton_matmul_bf16_s3_sm_90a.ptx"),
        include_str!("../../corpus/ptx-foreign/triton_matmul_bf16_s3_sm_90a.launch.json"),
        0.0,
    ),
    (
        "triton_matmul_f32_s3_sm_90a",
        include_str!("../../corpus/ptx-foreign/triton_matmul_f32_s3_sm_90a.ptx"),
        include_str!("../../corpus/ptx-foreign/triton_matmul_f32_s3_sm_90a.launch.json"),
        0.0,
    ),
    (
        "triton_flash_attention_sm_90a",
        include_str!("../../corpus/ptx-foreign/triton_flash_attention_sm_90a.ptx"),
        include_str!("../../corpus/ptx-foreign/triton_flash_attention_sm_90a.launch.json"),
        1e-2,
    ),
];

/// The launch's kernel with its PTX lines and arguments: float buffers of small integers
/// (exact in f16, bf16 and tf32), others random.
fn launch(ptx: &str, launch: &str, exact: bool) -> (Module, Vec<u32>, Vec<KernelArg>) {
    let launch = LaunchFile::parse(launch).expect("a launch file");
    let parsed = tirproof_ptx::parse::parse(ptx).expect("parses");
    let index = parsed.module.kernels.iter().position(|k| k.name == launch.kernel).expect("the kernel");
    let kernel = parsed.module.kernels[index].launched(parsed.module.arch, launch.request()).expect("launches");
    let mut binder = ArgBinder::new(&kernel);
    for (name, spec) in &launch.params {
        let (position, param) = binder.param(name).expect("a parameter");
        match spec {
            ParamSpec::Buffer(buffer) => {
                let random = buffer.random(0, position).expect("a buffer");
                let tensor = if exact && random.dtype.is_float() {
                    let values: Vec<f64> = (0..buffer.len).map(|i| ((i * 7 + position * 3) % 9) as f64 - 4.0).collect();
                    Tensor::from_f64(random.dtype, vec![buffer.len], &values).expect("a tensor")
                } else {
                    random
                };
                binder.buffer(name, tensor)
            }
            ParamSpec::Scalar(value) => binder.scalar(name, value.arg(param.ty)),
        }
        .expect("binds");
    }
    let args = binder.finish().expect("every parameter bound");
    let lines = parsed.lines[index].clone();
    (Module { arch: parsed.module.arch, kernels: vec![kernel] }, lines, args)
}

#[test]
fn triton_sm90a_kernels_agree_with_the_device() {
    let device = match gpu() {
        Ok(device) if device.sm().starts_with("sm_90") => device,
        Ok(device) => return println!("a GPU without wgmma ({}): nothing to compare", device.sm()),
        Err(_) => return println!("no GPU here ({:?}): nothing to compare", unavailable()),
    };
    let mut failures = Vec::new();
    for (stem, ptx, launch_text, tolerance) in CASES {
        let (module, lines, args) = launch(ptx, launch_text, tolerance == 0.0);
        let kernel = &module.kernels[0];
        let emulated = run_kernel(kernel, Some(&lines), &args, &EmuConfig::default()).expect("emulates");
        assert_eq!(emulated.outcome, EmuOutcome::Completed, "{stem}");
        let loaded = device.load(&module).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let on_device = device.run(&loaded[0], &args).unwrap_or_else(|e| panic!("{stem}: {e}"));
        for (index, (emu, dev)) in emulated.buffers.iter().zip(&on_device).enumerate() {
            let (Some(emu), Some(dev)) = (emu, dev) else { continue };
            let (emu, dev) = (emu.to_f64_vec(), dev.to_f64_vec());
            let scale = dev.iter().fold(0f64, |m, v| m.max(v.abs())).max(1.0);
            let worst = emu
                .iter()
                .zip(&dev)
                .enumerate()
                .map(|(i, (e, d))| (i, (e - d).abs()))
                .fold((0, 0f64), |best, (i, diff)| if diff > best.1 || diff.is_nan() { (i, diff) } else { best });
            println!("{stem}: buffer {index}: worst difference {} at {} (scale {scale})", worst.1, worst.0);
            if worst.1 > tolerance * scale || worst.1.is_nan() {
                failures.push(format!(
                    "{stem}: buffer {index}: element {}: emulator {} device {}",
                    worst.0, emu[worst.0], dev[worst.0]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
