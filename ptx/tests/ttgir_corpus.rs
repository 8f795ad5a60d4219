//! Every kernel Triton 3.9 emitted for sm_80 in `corpus/ttgir` parses, prints back to text
//! that parses to the same module, and decodes for the emulator: no instruction of them is
//! refused. (Running them against references is `tests/foreign.rs`.)

use std::path::{Path, PathBuf};

use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};
use tirproof_ptx::module::print;
use tirproof_ptx::parse::parse;

fn sm80_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ttgir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus/ttgir")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with("_sm80.ptx"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_sm80_kernel_parses_round_trips_and_decodes() {
    let files = sm80_files();
    assert!(files.len() >= 9, "{files:?}");
    for file in files {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(&file).expect("the PTX file");
        let parsed = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = print(&parsed.module).unwrap_or_else(|e| panic!("{name}: {e}"));
        let reparsed = parse(&printed).unwrap_or_else(|e| panic!("{name} printed: {e}\n{printed}"));
        assert_eq!(reparsed.module.kernels, parsed.module.kernels, "{name}: the printed text reads back the same");
        for kernel in &parsed.module.kernels {
            // No fuel: decoding happens before the first instruction, which then stops the run.
            let args: Vec<KernelArg> = kernel.params.iter().map(|_| KernelArg::Scalar(0)).collect();
            let config = EmuConfig { fuel: 0, ..EmuConfig::default() };
            let result = run_kernel(kernel, None, &args, &config).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(matches!(result.outcome, EmuOutcome::Fault(_)), "{name}: stops for want of fuel");
        }
    }
}
