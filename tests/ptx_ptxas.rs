//! NVIDIA's assembler accepts every PTX tirproof emits for the corpus, for sm_80 and sm_90
//! (`ptxas -arch` always given), with ptxas of CUDA 12 and of CUDA 13; and every kernel Triton
//! and nvcc emitted for corpus/ptx-foreign and corpus/ttgir, for its own target, with each
//! ptxas that reads its PTX ISA version (Triton's sm_90a PTX is ISA 9.4: CUDA 13.4's). Each
//! comes from `scripts/setup.sh` (third_party/ptxas, ptxas13, ptxas134); CUDA 12's may also
//! come from the `TIRPROOF_PTXAS` variable or the PATH. A missing one is skipped with a
//! printed reason.
//! The corpus is lowered with its file names, so every module carries `.file` and `.loc`.

use std::path::{Path, PathBuf};
use std::process::Command;

use tirproof::source::{expand_paths, Source};
use tirproof_ptx::module::print;
use tirproof_ptx::{lower_module, lower_module_from, lower_tir, Arch};

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

/// The CUDA 13.4 ptxas that `scripts/setup.sh` installs (PTX ISA 9.4), if it runs.
fn ptxas134() -> Option<PathBuf> {
    Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("third_party/ptxas134/bin/ptxas")).filter(|p| runs(p))
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

/// Runs `ptxas -arch ARCH FILE`; panics with its log when it refuses the file.
fn assemble(ptxas: &Path, arch: &str, file: &Path, what: &str) {
    let cubin = file.with_extension("cubin");
    let out = Command::new(ptxas).args(["-arch", arch]).arg(file).arg("-o").arg(&cubin).output().expect("ptxas runs");
    assert!(out.status.success(), "{what} for {arch}: {}", String::from_utf8_lossy(&out.stderr));
}

fn assemble_the_corpus(ptxas: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let dirs: Vec<PathBuf> = ["pipeline", "rfc", "tvm", "lowering", "verify", "regressions", "faults", "cse", "tokens"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    let scratch = tempfile::tempdir().expect("scratch");
    let mut assembled = 0;
    for file in expand_paths(&dirs).expect("the corpus lists") {
        let src = Source::read(&file).expect("reads");
        let Ok(mut module) = src.parse_and_check() else { continue };
        if lower_tir(&mut module).is_err() {
            continue;
        }
        for arch in Arch::ALL {
            let Ok(lowered) = lower_module_from(&module, arch, Some(&src.name)) else { continue };
            let text = print(&lowered.module).expect("prints");
            assert!(text.contains(".file 1 \"") && text.contains("\t.loc 1 "), "{}: no line information", src.name);
            let ptx =
                scratch.path().join(format!("{}.{arch}.ptx", file.file_stem().unwrap_or_default().to_string_lossy()));
            std::fs::write(&ptx, text).expect("writes");
            assemble(ptxas, &arch.to_string(), &ptx, &file.display().to_string());
            assembled += 1;
        }
    }
    println!("ptxas ({}) assembled {assembled} modules", ptxas.display());
    assert!(assembled >= 200, "only {assembled} modules assembled");
}

/// The compiler-emitted kernels of corpus/ptx-foreign and corpus/ttgir, as the emulator's
/// tests run them, and their printed form after our parser read them: both assemble for the
/// target the file names. nvcc 13's PTX (ISA 9.0) is newer than ptxas 12.9 reads, so only
/// ptxas 13 takes it; Triton's sm_80 PTX (ISA 8.8) all do, its sm_90a PTX (ISA 9.4) ptxas 13.4.
fn assemble_the_foreign_kernels(ptxas: &Path, ptx_isa_limit: (u32, u32)) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let scratch = tempfile::tempdir().expect("scratch");
    let mut assembled = 0;
    let entries = ["ptx-foreign", "ttgir"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).expect("a corpus directory"))
        .collect::<Vec<_>>();
    for entry in entries {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "ptx") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("reads");
        let version = text.lines().find_map(|l| l.strip_prefix(".version ")).expect("a .version");
        let (major, minor) = version.trim().split_once('.').expect("major.minor");
        let version: (u32, u32) = (major.parse().expect("a number"), minor.parse().expect("a number"));
        if version > ptx_isa_limit {
            println!("{}: PTX ISA {version:?} is newer than this ptxas reads; not assembled", path.display());
            continue;
        }
        let target = text.lines().find_map(|l| l.strip_prefix(".target ")).expect("a .target").trim().to_string();
        let reprinted = print(&tirproof_ptx::parse::parse(&text).expect("parses").module).expect("prints");
        for (name, ptx) in [("as emitted", text), ("as reprinted", reprinted)] {
            let file = scratch.path().join("kernel.ptx");
            std::fs::write(&file, ptx).expect("writes");
            assemble(ptxas, &target, &file, &format!("{} {name}", path.display()));
            assembled += 1;
        }
    }
    assert!(assembled >= 8, "only {assembled} foreign modules assembled");
}

#[test]
fn ptxas_assembles_the_compiler_emitted_kernels_and_their_reprints() {
    match ptxas() {
        Some(ptxas) => assemble_the_foreign_kernels(&ptxas, (8, 8)),
        None => println!("skipped: ptxas is not installed (run scripts/setup.sh, or set TIRPROOF_PTXAS)"),
    }
    match ptxas13() {
        Some(ptxas) => assemble_the_foreign_kernels(&ptxas, (9, 0)),
        None => println!("skipped: ptxas 13 is not installed (run scripts/setup.sh)"),
    }
    match ptxas134() {
        Some(ptxas) => assemble_the_foreign_kernels(&ptxas, (9, 4)),
        None => println!("skipped: ptxas 13.4 is not installed (run scripts/setup.sh)"),
    }
}

/// The token programs of corpus/tokens whose counts come from the counter of commits that
/// `lower-async-tokens` keeps: each count lowers to the predicated `wait_group` chain
/// clamped at `MAX_WAIT_CHAIN`, which both assemblers accept for both architectures.
fn assemble_the_counted_token_programs(ptxas: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/tokens");
    let scratch = tempfile::tempdir().expect("scratch");
    let top = tirproof_ptx::codegen::MAX_WAIT_CHAIN;
    for name in ["commit_in_one_arm", "trip_count_from_memory"] {
        let file = root.join(format!("{name}.py"));
        let mut module = Source::read(&file).expect("reads").parse_and_check().expect("checks");
        let tokens = tirproof_passes::PassManager::from_names(&["lower-async-tokens"]).expect("registered");
        tokens.run(&mut module).expect("the tokens lower");
        lower_tir(&mut module).expect("the lowering passes run");
        for arch in Arch::ALL {
            let lowered = lower_module(&module, arch).expect("codegen");
            let text = print(&lowered.module).expect("prints");
            assert!(text.contains(&format!("cp.async.wait_group {top};")), "{name}: no chain up to {top}:\n{text}");
            let ptx = scratch.path().join(format!("{name}.{arch}.ptx"));
            std::fs::write(&ptx, text).expect("writes");
            assemble(ptxas, &arch.to_string(), &ptx, name);
        }
    }
}

#[test]
fn both_assemblers_take_the_wait_chain_of_a_counted_token_wait() {
    let found: Vec<PathBuf> = [ptxas(), ptxas13()].into_iter().flatten().collect();
    if found.is_empty() {
        println!("skipped: neither ptxas 12 nor 13 is installed (run scripts/setup.sh)");
    }
    for ptxas in found {
        assemble_the_counted_token_programs(&ptxas);
    }
}
