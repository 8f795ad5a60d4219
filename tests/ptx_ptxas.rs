//! NVIDIA's assembler accepts every PTX tirproof emits for the corpus, for sm_80 and sm_90
//! (`ptxas -arch` always given), with ptxas of CUDA 12 and of CUDA 13. Each comes from
//! `scripts/setup.sh` (third_party/ptxas, third_party/ptxas13); CUDA 12's may also come from
//! the `TIRPROOF_PTXAS` variable or the PATH. A missing one is skipped with a printed reason.

use std::path::{Path, PathBuf};
use std::process::Command;

use tirproof::source::{expand_paths, Source};
use tirproof_ptx::module::print;
use tirproof_ptx::{lower_module, lower_tir, Arch};

/// Whether `ptxas` runs.
fn runs(ptxas: &Path) -> bool {
    Command::new(ptxas).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// The CUDA 12 ptxas to use, if any runs.
fn ptxas() -> Option<PathBuf> {
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("third_party/ptxas/bin/ptxas");
    let candidates =
        [std::env::var_os("TIRPROOF_PTXAS").map(PathBuf::from), Some(bundled), Some(PathBuf::from("ptxas"))];
    candidates.into_iter().flatten().find(|p| runs(p))
}

/// The CUDA 13 ptxas that `scripts/setup.sh` installs, if it runs.
fn ptxas13() -> Option<PathBuf> {
    Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("third_party/ptxas13/bin/ptxas")).filter(|p| runs(p))
}

#[test]
fn ptxas_assembles_every_emitted_module_for_both_architectures() {
    let Some(ptxas) = ptxas() else {
        println!("skipped: ptxas is not installed (run scripts/setup.sh, or set TIRPROOF_PTXAS)");
        return;
    };
    assemble_the_corpus(&ptxas);
}

#[test]
fn ptxas_13_assembles_every_emitted_module_for_both_architectures() {
    let Some(ptxas) = ptxas13() else {
        println!("skipped: ptxas 13 is not installed (run scripts/setup.sh: it downloads nvidia-cuda-nvcc 13.x)");
        return;
    };
    assemble_the_corpus(&ptxas);
}

fn assemble_the_corpus(ptxas: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let dirs: Vec<PathBuf> = ["pipeline", "rfc", "tvm", "lowering", "verify", "regressions", "faults", "cse"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    let scratch = tempfile::tempdir().expect("scratch");
    let mut assembled = 0;
    for file in expand_paths(&dirs).expect("the corpus lists") {
        let Ok(mut module) = Source::read(&file).expect("reads").parse_and_check() else { continue };
        if lower_tir(&mut module).is_err() {
            continue;
        }
        for arch in Arch::ALL {
            let Ok(lowered) = lower_module(&module, arch) else { continue };
            let ptx =
                scratch.path().join(format!("{}.{arch}.ptx", file.file_stem().unwrap_or_default().to_string_lossy()));
            std::fs::write(&ptx, print(&lowered.module).expect("prints")).expect("writes");
            let out = Command::new(ptxas)
                .args(["-arch", &arch.to_string()])
                .arg(&ptx)
                .arg("-o")
                .arg(scratch.path().join("out.cubin"))
                .output()
                .expect("ptxas runs");
            assert!(out.status.success(), "{} for {arch}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
            assembled += 1;
        }
    }
    println!("ptxas ({}) assembled {assembled} modules", ptxas.display());
    assert!(assembled >= 200, "only {assembled} modules assembled");
}
