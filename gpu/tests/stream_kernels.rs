//! The bandwidth benchmark's kernels without a GPU: each variant parses, lowers to PTX (with
//! `cp.async` and the pipeline's wait for the pipelined ones), assembles with ptxas where it is
//! installed, and at a small size runs on the PTX emulator bitwise equal to the interpreter;
//! the full-size TIR kept in `benches/gpu/` is what the generator writes, and lowers with a
//! grid of 32768 blocks.

use std::path::{Path, PathBuf};
use std::process::Command;

use tirproof_gpu::find_ptxas;
use tirproof_gpu::stream::{elements, streaming_tir, Pipelining, BENCH_BLOCKS};
use tirproof_interp::{random_inputs, run, RunConfig};
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};
use tirproof_ptx::module::print_with_lines;
use tirproof_ptx::{lower_module, lower_tir, Arch};

fn bench_file(pipelining: Pipelining) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../benches/gpu/stream_{}.py", pipelining.name().replace('-', "_")))
}

#[test]
fn the_kept_tir_is_the_generators_at_4_gib() {
    assert_eq!(elements(BENCH_BLOCKS) * 4, 4 << 30);
    for pipelining in Pipelining::ALL {
        let file = bench_file(pipelining);
        let kept = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(kept, streaming_tir(BENCH_BLOCKS, pipelining), "{} is stale", file.display());
        let mut module = tirproof_reader::parse_module(&kept).unwrap_or_else(|e| panic!("{pipelining}: {e}"));
        lower_tir(&mut module).unwrap_or_else(|e| panic!("{pipelining}: {e}"));
        let ptx = lower_module(&module, Arch::Sm80).unwrap_or_else(|e| panic!("{pipelining}: {e}")).module;
        assert_eq!(ptx.kernels[0].launch.grid, [BENCH_BLOCKS as u32, 1, 1], "{pipelining}");
    }
}

#[test]
fn the_streaming_kernels_lower_assemble_and_emulate_equal_to_the_interpreter() {
    let blocks = 2;
    let ptxas = find_ptxas();
    let scratch = tempfile::tempdir().expect("a scratch directory");
    for pipelining in Pipelining::ALL {
        let text = streaming_tir(blocks, pipelining);
        let original = tirproof_reader::parse_module(&text).unwrap_or_else(|e| panic!("{pipelining}: {e}"));
        let mut module = original.clone();
        lower_tir(&mut module).unwrap_or_else(|e| panic!("{pipelining}: {e}"));
        let ptx = lower_module(&module, Arch::Sm80).unwrap_or_else(|e| panic!("{pipelining}: {e}")).module;
        let (printed, lines) = print_with_lines(&ptx).expect("prints");
        let kernel = &ptx.kernels[0];
        assert_eq!(kernel.launch.grid, [2, 1, 1], "{pipelining}");
        assert_eq!(kernel.launch.block, [128, 1, 1], "{pipelining}");
        let asynchronous = printed.contains("cp.async.cg.shared.global");
        assert_eq!(asynchronous, pipelining != Pipelining::Off, "{pipelining}:\n{printed}");
        match &ptxas {
            Some(ptxas) => {
                let file = scratch.path().join(format!("{}.ptx", pipelining.name()));
                std::fs::write(&file, &printed).expect("writes");
                let out = Command::new(ptxas)
                    .args(["-arch", "sm_80"])
                    .arg(&file)
                    .arg("-o")
                    .arg(file.with_extension("cubin"))
                    .output()
                    .expect("ptxas runs");
                assert!(out.status.success(), "{pipelining}: {}", String::from_utf8_lossy(&out.stderr));
            }
            None => {
                println!("{pipelining}: not assembled: ptxas is not installed (scripts/setup.sh, or TIRPROOF_PTXAS)")
            }
        }
        let func = &original.functions[0];
        let inputs = random_inputs(func, 11, &Default::default()).expect("inputs");
        let reference = run(func, &inputs, &RunConfig::default()).expect("the interpreter runs");
        assert!(reference.outcome.is_completed(), "{pipelining}: {:?}", reference.outcome);
        let lowered_func = &module.functions[0];
        let args: Vec<KernelArg> = lowered_func
            .params
            .iter()
            .map(|p| KernelArg::Buffer(inputs.buffers[p.buffer.as_ref().expect("buffers only").name()].clone()))
            .collect();
        let config = EmuConfig { fuel: 100_000_000, ..EmuConfig::default() };
        let result = run_kernel(kernel, Some(&lines[0]), &args, &config).expect("the emulator runs it");
        assert_eq!(result.outcome, EmuOutcome::Completed, "{pipelining}");
        let c = result.buffers[1].as_ref().expect("C");
        assert_eq!(c.bits(), reference.outputs["C"].bits(), "{pipelining}: C differs");
        let a = &inputs.buffers["A"];
        assert_eq!(c.get_f64(5), a.get_f64(5).map(|x| 2.0 * x + 1.0), "{pipelining}");
    }
}
