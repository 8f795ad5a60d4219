//! A long-lived Triton process: `triton_worker.py` (embedded, run with `python -u -c`) under the
//! Python of the venv `third_party/foreign` (or `TIRPROOF_TRITON_PYTHON`), spoken to in JSON
//! lines. It parses TTGIR, runs Triton's wait-count rule (`add_pipeline(pm, 0, False)`) and
//! prints the module.
//!
//! Invariants: every request gets an answer or a [`TritonError`] within its time limit; a
//! process that hangs is killed and one that dies is reaped (the next request starts a new
//! one); the child's stderr is drained on its own thread and its tail kept for crash reports.
//! A Python without Triton, or with another version than [`TRITON_VERSION`], is refused at
//! start with the reason, which callers take for a skip, never a failure of Triton.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::peer::process::{find_tool, tail_of, Answer, LineWorker, ProcessFailure, StartFailure};

const WORKER_SOURCE: &str = include_str!("triton_worker.py");

/// The Triton release audited: another one may compute other counts, so it is refused.
pub const TRITON_VERSION: &str = "3.9.0";

/// The environment variable naming the Python that has Triton (overrides the search).
pub const PYTHON_VARIABLE: &str = "TIRPROOF_TRITON_PYTHON";

/// Where `scripts/foreign_ir.sh` puts the venv, relative to the repository.
pub const VENV_PYTHON: &str = "third_party/foreign/bin/python";

/// How long importing Triton may take.
const START_LIMIT: Duration = Duration::from_secs(120);

/// Where Triton refused a program.
pub use crate::peer::process::Stage as TritonStage;

/// Triton's answer to one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TritonReply {
    /// The module after the pass.
    Printed(String),
    /// An exception: where, its Python type and message.
    Refused { stage: TritonStage, kind: String, message: String },
}

/// Why Triton gave no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TritonError {
    #[error("Triton is not installed: {why} (run scripts/foreign_ir.sh, or set {PYTHON_VARIABLE})")]
    NotInstalled { why: String },
    #[error("Triton {found} is installed, tirproof audits Triton {TRITON_VERSION} (run scripts/foreign_ir.sh)")]
    WrongVersion { found: String },
    #[error("Triton could not be started with {python}: {reason}")]
    Start { python: String, reason: String },
    #[error("Triton's process died ({status}){}", tail_of(.stderr))]
    Crashed { status: String, stderr: String },
    #[error("Triton did not answer within {limit:?}; its process was killed")]
    Hung { limit: Duration },
    #[error("Triton's worker broke the protocol: {0}")]
    Protocol(String),
}

impl TritonError {
    /// Whether Triton is unavailable here (a skip), as opposed to failing on a program.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, TritonError::NotInstalled { .. } | TritonError::WrongVersion { .. } | TritonError::Start { .. })
    }
}

impl From<ProcessFailure> for TritonError {
    fn from(failure: ProcessFailure) -> TritonError {
        match failure {
            ProcessFailure::Crashed { status, stderr } => TritonError::Crashed { status, stderr: stderr.trim().into() },
            ProcessFailure::Hung { limit } => TritonError::Hung { limit },
            ProcessFailure::Protocol(why) => TritonError::Protocol(why),
        }
    }
}

/// One Triton process.
pub struct TritonWorker {
    process: LineWorker,
    /// `triton.__version__` of the process.
    pub version: String,
}

impl TritonWorker {
    /// Starts a worker under `python` and checks its Triton version.
    pub fn start(python: &Path) -> Result<TritonWorker, TritonError> {
        let (process, version) =
            LineWorker::start(python, WORKER_SOURCE, START_LIMIT).map_err(|failure| match failure {
                StartFailure::NotInstalled(message) => {
                    TritonError::NotInstalled { why: format!("{} cannot import Triton: {message}", python.display()) }
                }
                StartFailure::Start(reason) => TritonError::Start { python: python.display().to_string(), reason },
            })?;
        if version != TRITON_VERSION {
            return Err(TritonError::WrongVersion { found: version });
        }
        Ok(TritonWorker { process, version })
    }

    /// Triton's wait-count pass on `text`.
    pub fn waits(&mut self, text: &str, limit: Duration) -> Result<TritonReply, TritonError> {
        let answer: Answer = self.process.ask("waits", text, limit)?;
        if answer.ok {
            return Ok(TritonReply::Printed(answer.text.unwrap_or_default()));
        }
        Ok(TritonReply::Refused {
            stage: answer.stage.unwrap_or(TritonStage::Pass),
            kind: answer.kind.unwrap_or_else(|| "Exception".into()),
            message: answer.message.unwrap_or_default(),
        })
    }
}

/// The Python to run Triton with: `TIRPROOF_TRITON_PYTHON`, else [`VENV_PYTHON`] found above
/// the running executable or the current directory.
pub fn find_python() -> Result<PathBuf, TritonError> {
    find_tool(PYTHON_VARIABLE, VENV_PYTHON).map_err(|missing| TritonError::NotInstalled { why: missing.to_string() })
}

/// A Triton process that restarts itself after a crash or a hang.
pub struct Triton {
    python: PathBuf,
    worker: Option<TritonWorker>,
    pub version: String,
}

impl Triton {
    /// Triton under `python` (see [`find_python`]), started once to check that it is there.
    pub fn start(python: PathBuf) -> Result<Triton, TritonError> {
        let worker = TritonWorker::start(&python)?;
        let version = worker.version.clone();
        Ok(Triton { python, worker: Some(worker), version })
    }

    /// Triton's pass on `text`; a crash or a hang is the answer for this text, and the next
    /// request gets a new process.
    pub fn waits(&mut self, text: &str, limit: Duration) -> Result<TritonReply, TritonError> {
        let worker = match self.worker.take() {
            Some(worker) => worker,
            None => TritonWorker::start(&self.python)?,
        };
        let mut worker = worker;
        let result = worker.waits(text, limit);
        if !matches!(result, Err(TritonError::Crashed { .. } | TritonError::Hung { .. } | TritonError::Protocol(_))) {
            self.worker = Some(worker);
        }
        result
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// A stand-in for Python: answers the version request with `version`, then does `then`.
    fn fake_python(dir: &Path, version: &str, then: &str) -> PathBuf {
        let path = dir.join("python");
        let script = format!(
            "#!/bin/sh\nread line\necho '{{\"id\": 1, \"ok\": true, \"text\": \"{version}\"}}'\nread line\necho 'a diagnostic' >&2\n{then}\n"
        );
        std::fs::write(&path, script).expect("writes the script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("makes it executable");
        path
    }

    #[test]
    fn another_triton_version_is_refused_and_is_unavailable() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let error = TritonWorker::start(&fake_python(dir.path(), "3.8.0", "exit 0")).err();
        assert!(matches!(&error, Some(TritonError::WrongVersion { found }) if found == "3.8.0"), "{error:?}");
        assert!(error.is_some_and(|e| e.is_unavailable()));
    }

    #[test]
    fn a_worker_that_dies_is_a_crash_with_its_stderr() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut worker = TritonWorker::start(&fake_python(dir.path(), TRITON_VERSION, "exit 3")).expect("starts");
        let error = worker.waits("", Duration::from_secs(10)).expect_err("it died");
        assert!(matches!(&error, TritonError::Crashed { status, .. } if status.contains('3')), "{error}");
        assert!(!error.is_unavailable());
    }

    #[test]
    fn a_worker_that_does_not_answer_is_a_hang() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut worker = TritonWorker::start(&fake_python(dir.path(), TRITON_VERSION, "sleep 30")).expect("starts");
        let error = worker.waits("", Duration::from_millis(300)).expect_err("it hangs");
        assert_eq!(error, TritonError::Hung { limit: Duration::from_millis(300) });
    }

    #[test]
    fn a_refusal_is_an_answer_with_its_stage() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let answer = r#"echo '{"id": 2, "ok": false, "stage": "parse", "kind": "RuntimeError", "message": "bad"}'"#;
        let mut worker = TritonWorker::start(&fake_python(dir.path(), TRITON_VERSION, answer)).expect("starts");
        let reply = worker.waits("", Duration::from_secs(10)).expect("an answer");
        let expected =
            TritonReply::Refused { stage: TritonStage::Parse, kind: "RuntimeError".into(), message: "bad".into() };
        assert_eq!(reply, expected);
    }

    #[test]
    fn a_missing_python_does_not_start() {
        let error = TritonWorker::start(Path::new("/nonexistent/python")).err();
        assert!(matches!(error, Some(TritonError::Start { .. })), "{error:?}");
    }
}
