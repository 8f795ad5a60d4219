//! Every kernel Triton 3.9 emitted for sm_80 in `corpus/ttgir` parses, prints back to text
//! that parses to the same module, and decodes for the emulator: no instruction of them is
//! refused. (Running them against references is `tests/foreign.rs`.) So does every sm_90a
//! kernel there with its warpgroup MMA instructions and proxy fences taken out. Each form of the
//! compilers' sm_80 instructions the parser reads (`tests/fixtures/sm80_forms.ptx`) prints as
//! PTX the installed ptxas assemble, `.version` included.

use std::path::{Path, PathBuf};

use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};
use tirproof_ptx::module::print;
use tirproof_ptx::parse::parse;

/// The PTX files of `corpus/ttgir` whose names end with `suffix`.
fn ttgir_files(suffix: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ttgir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus/ttgir")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    files
}

fn sm80_files() -> Vec<PathBuf> {
    ttgir_files("_sm80.ptx")
}

/// Parses `text` and decodes each of its kernels (a run without fuel stops before the first
/// instruction, after decoding); `name` names the file in failures.
fn parses_and_decodes(name: &str, text: &str) {
    let parsed = parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    for kernel in &parsed.module.kernels {
        let args: Vec<KernelArg> = kernel.params.iter().map(|_| KernelArg::Scalar(0)).collect();
        let config = EmuConfig { fuel: 0, ..EmuConfig::default() };
        let result = run_kernel(kernel, None, &args, &config).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(matches!(result.outcome, EmuOutcome::Fault(_)), "{name}: stops for want of fuel");
    }
}

/// Hopper's warpgroup MMA queue and its proxy fence, which the sm_90a kernels use around
/// their dots; every other instruction of theirs is one the sm_80 kernels use too.
const HOPPER_PREFIXES: [&str; 2] = ["wgmma.", "fence.proxy."];

#[test]
fn every_sm90_kernel_parses_and_decodes_but_for_its_warpgroup_instructions() {
    let files = ttgir_files("_sm90.ptx");
    assert!(files.len() >= 9, "{files:?}");
    let mut removed = 0;
    for file in files {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(&file).expect("the PTX file");
        let kept: Vec<&str> = text
            .lines()
            .map(|line| {
                let inst = line.trim_start();
                let inst = if inst.starts_with('@') { inst.split_once(' ').map_or("", |(_, rest)| rest) } else { inst };
                if HOPPER_PREFIXES.iter().any(|p| inst.trim_start().starts_with(p)) {
                    removed += 1;
                    ""
                } else {
                    line
                }
            })
            .collect();
        parses_and_decodes(&name, &kept.join("\n"));
    }
    assert!(removed >= 80, "only {removed} warpgroup instructions taken out");
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
        parses_and_decodes(&name, &text);
    }
}

/// The assemblers `scripts/setup.sh` installs (CUDA 12 and 13), where they run.
fn installed_ptxas() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../third_party");
    ["ptxas", "ptxas13"]
        .iter()
        .map(|dir| root.join(dir).join("bin/ptxas"))
        .filter(|p| std::process::Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
        .collect()
}

#[test]
fn every_sm80_form_prints_as_ptx_that_ptxas_assembles() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sm80_forms.ptx");
    let parsed = parse(&std::fs::read_to_string(&fixture).expect("the fixture")).unwrap_or_else(|e| panic!("{e}"));
    let text = print(&parsed.module).expect("prints");
    let assemblers = installed_ptxas();
    if assemblers.is_empty() {
        println!("skipped: no ptxas installed (scripts/setup.sh installs them)");
        return;
    }
    let file = std::env::temp_dir().join(format!("tirproof-sm80-forms-{}.ptx", std::process::id()));
    std::fs::write(&file, &text).expect("writes the printed module");
    for ptxas in assemblers {
        for arch in ["sm_80", "sm_90"] {
            let cubin = file.with_extension(format!("{arch}.cubin"));
            let out = std::process::Command::new(&ptxas)
                .args(["-arch", arch, "-o"])
                .arg(&cubin)
                .arg(&file)
                .output()
                .expect("runs ptxas");
            let _ = std::fs::remove_file(&cubin);
            let log = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{} -arch {arch} refuses the printed forms:\n{log}\n{text}", ptxas.display());
        }
    }
    let _ = std::fs::remove_file(&file);
}
