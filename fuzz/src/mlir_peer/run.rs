//! Running mlir-opt: finding it, checking it is LLVM 22's, and running MLIR's pipeliner on one
//! program under a time limit.
//!
//! mlir-opt is found through `TIRPROOF_MLIR_OPT`, or as `third_party/mlir/mlir-opt` above the
//! crate's sources, the executable or the current directory (`scripts/mlir_tools.sh` installs
//! it there). The program and the transform script are written to temporary files and given to
//! `mlir-opt INPUT --transform-preload-library=transform-library-paths=SCRIPT
//! --transform-interpreter`, the command `scripts/foreign_nvgpu.sh` runs.
//!
//! Invariants: a run never blocks past its limit (the process is killed and reaped, and the
//! answer is [`MlirExit::TimedOut`]); its temporary files are removed whatever happens; a
//! missing mlir-opt or one of another LLVM major version is an [`MlirError`] with the reason,
//! which a caller turns into a skip, never a panic.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::gen::PipelineOptions;
use crate::peer::process::{find_tool, run_limited};
pub use crate::peer::process::{Exit as MlirExit, Ran as MlirReply};

/// The environment variable naming the mlir-opt to run (overrides the search).
pub const MLIR_OPT_VARIABLE: &str = "TIRPROOF_MLIR_OPT";

/// Where `scripts/mlir_tools.sh` installs mlir-opt, relative to the repository.
pub const MLIR_OPT_PATH: &str = "third_party/mlir/mlir-opt";

/// The LLVM major version whose mlir-opt tirproof audits (corpus/nvgpu was printed by it).
pub const LLVM_MAJOR: u32 = 22;

/// How long one pipeliner run may take (it takes milliseconds on generated programs).
pub const RUN_LIMIT: Duration = Duration::from_secs(30);

/// How long `mlir-opt --version` may take.
const VERSION_LIMIT: Duration = Duration::from_secs(30);

/// Why mlir-opt gave no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MlirError {
    #[error("mlir-opt is not installed: {why} (run scripts/mlir_tools.sh, or set {MLIR_OPT_VARIABLE})")]
    NotInstalled { why: String },
    #[error("{path} is not LLVM {LLVM_MAJOR}'s mlir-opt (it says `{found}`); tirproof audits mlir-opt {LLVM_MAJOR} (run scripts/mlir_tools.sh)")]
    WrongVersion { path: String, found: String },
    #[error("mlir-opt at {path} could not be run: {reason}")]
    Start { path: String, reason: String },
    #[error("could not write or read mlir-opt's temporary files: {0}")]
    Files(String),
}

/// An mlir-opt of LLVM [`LLVM_MAJOR`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MlirOpt {
    pub path: PathBuf,
    /// What `--version` says, first line (`Debian LLVM version 22.1.8`).
    pub version: String,
}

impl MlirOpt {
    /// The mlir-opt of [`MLIR_OPT_VARIABLE`] or of the repository, checked.
    pub fn find() -> Result<MlirOpt, MlirError> {
        MlirOpt::at(&find_mlir_opt()?)
    }

    /// The mlir-opt at `path`, checked to be LLVM [`LLVM_MAJOR`]'s.
    pub fn at(path: &Path) -> Result<MlirOpt, MlirError> {
        if !path.exists() {
            return Err(MlirError::NotInstalled { why: format!("no mlir-opt at {}", path.display()) });
        }
        let start_error = |reason: String| MlirError::Start { path: path.display().to_string(), reason };
        let reply = run_limited(Command::new(path).arg("--version"), VERSION_LIMIT).map_err(start_error)?;
        if reply.exit != MlirExit::Success {
            return Err(start_error(format!("`--version` ended with {:?}: {}", reply.exit, reply.stderr.trim())));
        }
        let text = format!("{}{}", reply.stdout, reply.stderr);
        let line = text.lines().find(|l| l.contains("LLVM version")).unwrap_or("").trim().to_owned();
        if llvm_major(&line) != Some(LLVM_MAJOR) {
            let found = if line.is_empty() { text.trim().to_owned() } else { line };
            return Err(MlirError::WrongVersion { path: path.display().to_string(), found });
        }
        Ok(MlirOpt { path: path.to_path_buf(), version: line })
    }

    /// Runs MLIR's pipeliner with `options` on `program` (MLIR text), killed after `limit`.
    pub fn pipeline(&self, program: &str, options: PipelineOptions, limit: Duration) -> Result<MlirReply, MlirError> {
        let files = TempFiles::new()?;
        let input = files.write("input.mlir", program)?;
        let script = files.write("pipeline.mlir", &options.transform_script())?;
        let mut command = Command::new(&self.path);
        command.arg(&input).args(pipeline_arguments(&script));
        run_limited(&mut command, limit)
            .map_err(|reason| MlirError::Start { path: self.path.display().to_string(), reason })
    }
}

/// The arguments after the input file that run the transform script at `script`.
pub fn pipeline_arguments(script: &Path) -> [String; 2] {
    [
        format!("--transform-preload-library=transform-library-paths={}", script.display()),
        "--transform-interpreter".to_owned(),
    ]
}

/// The major version in a `... LLVM version 22.1.8` line.
fn llvm_major(line: &str) -> Option<u32> {
    let version = line.split("LLVM version").nth(1)?.trim();
    version.split('.').next()?.trim().parse().ok()
}

/// The path of the mlir-opt to run (not yet checked).
fn find_mlir_opt() -> Result<PathBuf, MlirError> {
    find_tool(MLIR_OPT_VARIABLE, MLIR_OPT_PATH).map_err(|missing| MlirError::NotInstalled { why: missing.to_string() })
}

/// A directory of temporary files, removed when dropped.
struct TempFiles {
    dir: PathBuf,
}

impl TempFiles {
    fn new() -> Result<TempFiles, MlirError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let name = format!("tirproof-mlir-{}-{}-{nanos}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let dir = std::env::temp_dir().join(name);
        fs::create_dir_all(&dir).map_err(|e| MlirError::Files(format!("{}: {e}", dir.display())))?;
        Ok(TempFiles { dir })
    }

    fn write(&self, name: &str, text: &str) -> Result<PathBuf, MlirError> {
        let path = self.dir.join(name);
        fs::write(&path, text).map_err(|e| MlirError::Files(format!("{}: {e}", path.display())))?;
        Ok(path)
    }
}

impl Drop for TempFiles {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;
    use std::time::Instant;

    /// A shell script at `dir/name` that runs `body`.
    fn fake(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write a fake mlir-opt");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("make it executable");
        path
    }

    #[test]
    fn the_llvm_major_version_is_read_from_the_version_line() {
        assert_eq!(llvm_major("Debian LLVM version 22.1.8"), Some(22));
        assert_eq!(llvm_major("LLVM version 19.1.0git"), Some(19));
        assert_eq!(llvm_major("mlir-opt 22"), None);
    }

    #[test]
    fn another_llvm_is_refused_with_what_it_says() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let old = fake(dir.path(), "mlir-opt", "echo 'LLVM (http://llvm.org/):'; echo '  LLVM version 18.1.3'");
        match MlirOpt::at(&old) {
            Err(MlirError::WrongVersion { found, .. }) => assert!(found.contains("18.1.3"), "{found}"),
            other => panic!("{other:?}"),
        }
        let ours = fake(dir.path(), "mlir-opt-22", "echo 'Debian LLVM version 22.1.8'");
        assert_eq!(MlirOpt::at(&ours).expect("LLVM 22").version, "Debian LLVM version 22.1.8");
    }

    #[test]
    fn a_missing_mlir_opt_is_not_installed() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let missing = dir.path().join("mlir-opt");
        assert!(matches!(MlirOpt::at(&missing), Err(MlirError::NotInstalled { .. })));
    }

    #[test]
    fn a_hang_is_killed_at_the_limit_and_a_signal_is_a_signal() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let hangs =
            fake(dir.path(), "hangs", "case \"$1\" in --version) echo 'LLVM version 22.1.8';; *) exec sleep 30;; esac");
        let opt = MlirOpt::at(&hangs).expect("says LLVM 22");
        let options = PipelineOptions { depth: 2, peel_epilogue: false };
        let started = Instant::now();
        let reply = opt.pipeline("", options, Duration::from_millis(300)).expect("runs");
        assert_eq!(reply.exit, MlirExit::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(10));
        let aborts = fake(
            dir.path(),
            "aborts",
            "case \"$1\" in --version) echo 'LLVM version 22.1.8';; *) echo 'PLEASE submit a bug report' >&2; kill -ABRT $$;; esac",
        );
        let reply = MlirOpt::at(&aborts).expect("says LLVM 22").pipeline("", options, RUN_LIMIT).expect("runs");
        assert_eq!(reply.exit, MlirExit::Signal(6), "{reply:?}");
        assert!(reply.stderr.contains("PLEASE"), "{reply:?}");
    }

    #[test]
    fn the_input_and_the_script_reach_mlir_opt_and_are_removed() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let echo = fake(
            dir.path(),
            "echo",
            "case \"$1\" in --version) echo 'LLVM version 22.0.0';; *) cat \"$1\"; echo \"$2\" >&2; exit 3;; esac",
        );
        let opt = MlirOpt::at(&echo).expect("says LLVM 22");
        let reply =
            opt.pipeline("the program", PipelineOptions { depth: 3, peel_epilogue: true }, RUN_LIMIT).expect("runs");
        assert_eq!(reply.exit, MlirExit::Failed(3));
        assert_eq!(reply.stdout, "the program");
        let script =
            reply.stderr.trim().strip_prefix("--transform-preload-library=transform-library-paths=").expect("the flag");
        assert!(!Path::new(script).exists(), "{script} was not removed");
    }
}
