//! Finding NVIDIA's assembler and getting its log for PTX that the driver's JIT refused: the
//! driver API gives only an error code, ptxas says which line and why.
//!
//! Invariant: never fails outward; what happened is a [`PtxasLog`].

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::PtxasLog;

/// The ptxas to use: `TIRPROOF_PTXAS`, the one `scripts/setup.sh` installs in `third_party/`,
/// `ptxas` on the PATH, then the CUDA toolkit's default place; the first that runs.
pub fn find_ptxas() -> Option<PathBuf> {
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("../third_party/ptxas/bin/ptxas");
    let candidates = [
        std::env::var_os("TIRPROOF_PTXAS").map(PathBuf::from),
        Some(bundled),
        Some(PathBuf::from("ptxas")),
        Some(PathBuf::from("/usr/local/cuda/bin/ptxas")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// What ptxas says about `text` assembled for `arch` (`sm_90`).
pub fn ptxas_log(text: &str, arch: &str) -> PtxasLog {
    let Some(ptxas) = find_ptxas() else { return PtxasLog::NotFound };
    let assemble = || -> std::io::Result<std::process::Output> {
        let dir = tempfile::Builder::new().prefix("tirproof-ptxas-").tempdir()?;
        let file = dir.path().join("kernel.ptx");
        std::fs::write(&file, text)?;
        Command::new(&ptxas).args(["-arch", arch]).arg(&file).arg("-o").arg(dir.path().join("kernel.cubin")).output()
    };
    match assemble() {
        Ok(out) if out.status.success() => PtxasLog::Accepted,
        Ok(out) => PtxasLog::Refused(String::from_utf8_lossy(&out.stderr).into_owned()),
        Err(error) => PtxasLog::Failed(format!("{}: {error}", ptxas.display())),
    }
}
