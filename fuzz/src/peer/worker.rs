//! A long-lived TVM process: the Python script `worker.py` (embedded in the binary, so nothing
//! is read from the source tree at run time) under the Python of a venv with apache-tvm, spoken
//! to in JSON lines. TVM is imported once per worker, not once per program.
//!
//! Invariants: every request gets an answer or an error within its time limit; a process that
//! hangs is killed and one that dies is reaped, and either is reported as a [`PeerError`] (an
//! outcome for the caller, never a panic); the worker is then gone and the next request starts
//! a new one. The child's stderr is drained on its own thread (so TVM cannot block on a full
//! pipe) and its tail is kept for crash reports. A worker whose TVM is not the pinned version
//! is refused at start.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::process::{find_tool, tail_of, Answer, LineWorker, ProcessFailure, StartFailure};

/// The worker's source, run with `python -c` after the JSON-lines loop.
const WORKER_SOURCE: &str = include_str!("worker.py");

/// The TVM release tirproof audits: the apache-tvm wheel `scripts/setup_tvm.sh` pins. Another
/// version may print or refuse differently, so it is refused rather than half-trusted.
pub const TVM_VERSION: &str = "0.27.0.post1";

/// The environment variable naming the Python that has TVM (overrides the search).
pub const PYTHON_VARIABLE: &str = "TIRPROOF_TVM_PYTHON";

/// Where the set-up script puts the venv, relative to the repository.
const VENV_PYTHON: &str = "third_party/tvm/bin/python";

/// How long importing TVM may take (a cold import reads a few hundred megabytes).
const START_LIMIT: Duration = Duration::from_secs(120);

/// What to ask TVM to do with a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TvmOp {
    /// Parse and print back.
    Parse,
    /// Parse, run `InjectSoftwarePipeline`, print.
    Pipeline,
    /// Parse, run `InjectSoftwarePipeline`, `LowerOpaqueBlock` and `FlattenBuffer`, print.
    Lower,
    /// Parse, run `LowerOpaqueBlock` and `ThreadSync("shared")` (the barriers TVM inserts
    /// between thread scopes), print.
    ThreadSync,
}

/// Where TVM refused.
pub use super::process::Stage as TvmStage;

/// An exception TVM raised, as the worker reports it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct TvmRefusal {
    pub stage: TvmStage,
    /// The exception's Python type (`InternalError`, `ValueError`, ...).
    pub kind: String,
    pub message: String,
    /// The C++ source line the exception was raised at, relative to TVM's `src/`
    /// (`s_tir/transform/inject_software_pipeline.cc:842`), when its traceback names one.
    pub location: Option<String>,
}

/// TVM's answer to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TvmReply {
    /// What TVM printed.
    Printed(String),
    /// TVM raised.
    Refused(TvmRefusal),
}

/// Why TVM gave no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PeerError {
    #[error("TVM is not installed: {why} (run scripts/setup_tvm.sh, or set {PYTHON_VARIABLE})")]
    NotInstalled { why: String },
    #[error("TVM could not be started with {python}: {reason}")]
    Start { python: String, reason: String },
    #[error("TVM {found} is installed, tirproof audits TVM {TVM_VERSION} (run scripts/setup_tvm.sh)")]
    WrongVersion { found: String },
    #[error("TVM's process died ({status}){}", tail_of(.stderr))]
    Crashed { status: String, stderr: String },
    #[error("TVM did not answer within {limit:?}; its process was killed")]
    Hung { limit: Duration },
    #[error("TVM's worker broke the protocol: {0}")]
    Protocol(String),
}

impl PeerError {
    /// Whether TVM itself failed on the program (a crash or a hang), as opposed to TVM being
    /// unavailable here.
    pub fn is_tvm_failure(&self) -> bool {
        matches!(self, PeerError::Crashed { .. } | PeerError::Hung { .. })
    }
}

impl From<ProcessFailure> for PeerError {
    fn from(failure: ProcessFailure) -> PeerError {
        match failure {
            ProcessFailure::Crashed { status, stderr } => PeerError::Crashed { status, stderr },
            ProcessFailure::Hung { limit } => PeerError::Hung { limit },
            ProcessFailure::Protocol(why) => PeerError::Protocol(why),
        }
    }
}

/// One TVM process.
pub struct TvmWorker {
    process: LineWorker,
    /// `tvm.__version__` of the process.
    pub version: String,
}

impl TvmWorker {
    /// Starts a worker under `python` and checks its TVM version.
    pub fn start(python: &Path) -> Result<TvmWorker, PeerError> {
        let (process, version) =
            LineWorker::start(python, WORKER_SOURCE, START_LIMIT).map_err(|failure| match failure {
                StartFailure::NotInstalled(message) => {
                    PeerError::NotInstalled { why: format!("{} cannot import TVM: {message}", python.display()) }
                }
                StartFailure::Start(reason) => PeerError::Start { python: python.display().to_string(), reason },
            })?;
        if version != TVM_VERSION {
            return Err(PeerError::WrongVersion { found: version });
        }
        Ok(TvmWorker { process, version })
    }

    /// Asks TVM to `op` the text, waiting at most `limit`.
    pub fn request(&mut self, op: TvmOp, text: &str, limit: Duration) -> Result<TvmReply, PeerError> {
        let op = match op {
            TvmOp::Parse => "parse",
            TvmOp::Pipeline => "pipeline",
            TvmOp::Lower => "lower",
            TvmOp::ThreadSync => "thread-sync",
        };
        let answer: Answer = self.process.ask(op, text, limit)?;
        if answer.ok {
            return Ok(TvmReply::Printed(answer.text.unwrap_or_default()));
        }
        Ok(TvmReply::Refused(TvmRefusal {
            stage: answer.stage.unwrap_or(TvmStage::Pass),
            kind: answer.kind.unwrap_or_else(|| "Exception".into()),
            message: answer.message.unwrap_or_default(),
            location: answer.location,
        }))
    }
}

/// The Python to run TVM with: `TIRPROOF_TVM_PYTHON`, else the set-up script's venv found
/// above the running executable or the current directory.
pub fn find_python() -> Result<PathBuf, PeerError> {
    find_tool(PYTHON_VARIABLE, VENV_PYTHON)
        .map_err(|missing| PeerError::NotInstalled { why: format!("no Python with apache-tvm: {missing}") })
}

thread_local! {
    /// This thread's worker, or why it could not be started (kept, so a missing TVM is not
    /// looked for again per program; a crashed or hung worker is dropped and restarted).
    static WORKER: RefCell<Option<Result<TvmWorker, PeerError>>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's worker, starting it first when there is none.
pub fn with_worker<R>(f: impl FnOnce(&mut TvmWorker) -> Result<R, PeerError>) -> Result<R, PeerError> {
    WORKER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let worker = slot.get_or_insert_with(|| find_python().and_then(|python| TvmWorker::start(&python)));
        let worker = match worker {
            Ok(worker) => worker,
            Err(error) => return Err(error.clone()),
        };
        let result = f(worker);
        // A process that died, hung or lost the protocol's thread is not asked again.
        if matches!(result, Err(PeerError::Crashed { .. } | PeerError::Hung { .. } | PeerError::Protocol(_))) {
            *slot = None;
        }
        result
    })
}

/// The TVM version this thread's worker runs, or why there is none.
pub fn version() -> Result<String, PeerError> {
    with_worker(|worker| Ok(worker.version.clone()))
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// A stand-in for Python: a shell script that answers the version request with `version`
    /// and then does `then` (`exit 3`, `sleep 30`, or answers with a line of its own).
    fn fake_python(dir: &Path, version: &str, then: &str) -> PathBuf {
        let path = dir.join("python");
        let script = format!(
            "#!/bin/sh\nread line\necho '{{\"id\": 1, \"ok\": true, \"text\": \"{version}\"}}'\nread line\necho 'some diagnostics' >&2\n{then}\n"
        );
        std::fs::write(&path, script).expect("writes the script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("makes it executable");
        path
    }

    #[test]
    fn a_worker_that_dies_is_a_crash_with_its_stderr() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut worker = TvmWorker::start(&fake_python(dir.path(), TVM_VERSION, "exit 3")).expect("starts");
        let error = worker.request(TvmOp::Pipeline, "", Duration::from_secs(10)).expect_err("it died");
        assert!(matches!(&error, PeerError::Crashed { status, .. } if status.contains('3')), "{error}");
        assert!(error.is_tvm_failure());
    }

    #[test]
    fn a_worker_that_does_not_answer_is_a_hang_and_is_killed() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut worker = TvmWorker::start(&fake_python(dir.path(), TVM_VERSION, "sleep 30")).expect("starts");
        let started = std::time::Instant::now();
        let error = worker.request(TvmOp::Pipeline, "", Duration::from_millis(300)).expect_err("it hangs");
        assert_eq!(error, PeerError::Hung { limit: Duration::from_millis(300) });
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn another_tvm_version_is_refused() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let result = TvmWorker::start(&fake_python(dir.path(), "0.20.0", "exit 0"));
        assert!(matches!(result, Err(PeerError::WrongVersion { ref found }) if found == "0.20.0"));
    }

    #[test]
    fn an_answer_to_another_request_breaks_the_protocol() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let answer = "echo '{\"id\": 7, \"ok\": true, \"text\": \"\"}'";
        let mut worker = TvmWorker::start(&fake_python(dir.path(), TVM_VERSION, answer)).expect("starts");
        let error = worker.request(TvmOp::Parse, "", Duration::from_secs(10)).expect_err("a stray answer");
        assert!(matches!(error, PeerError::Protocol(_)), "{error}");
    }

    /// A Python whose `import tvm` fails (here a real Python given a `tvm` package that
    /// raises, so the test does not depend on what this machine has installed) is "TVM is not
    /// installed", with the import's error, never a crash of TVM.
    #[test]
    fn a_python_without_tvm_is_not_installed_with_the_reason() {
        let Ok(python) = which_python3() else {
            eprintln!("skipped: no python3 on PATH");
            return;
        };
        let dir = tempfile::tempdir().expect("a temporary directory");
        let package = dir.path().join("tvm");
        std::fs::create_dir(&package).expect("the package");
        std::fs::write(package.join("__init__.py"), "raise ModuleNotFoundError(\"No module named 'tvm_ffi'\")\n")
            .expect("writes the package");
        let wrapper = dir.path().join("python");
        let script = format!("#!/bin/sh\nPYTHONPATH={} exec {} \"$@\"\n", dir.path().display(), python.display());
        std::fs::write(&wrapper, script).expect("writes the wrapper");
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("makes it executable");
        let error = TvmWorker::start(&wrapper).err();
        match &error {
            Some(error @ PeerError::NotInstalled { why }) => {
                assert!(why.contains("ModuleNotFoundError") && why.contains("tvm_ffi"), "{why}");
                assert!(!error.is_tvm_failure());
            }
            other => panic!("{other:?}"),
        }
    }

    /// A worker that dies before it says its version did not start; it is not TVM crashing.
    #[test]
    fn a_worker_that_dies_at_start_did_not_start() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("python");
        std::fs::write(&path, "#!/bin/sh\necho 'Traceback: ImportError' >&2\nexit 1\n").expect("writes");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("makes it executable");
        let error = TvmWorker::start(&path).err();
        // Its stderr may or may not be read by then: what matters is that it did not start.
        assert!(matches!(&error, Some(PeerError::Start { .. })), "{error:?}");
    }

    fn which_python3() -> Result<PathBuf, ()> {
        let path = std::env::var_os("PATH").ok_or(())?;
        std::env::split_paths(&path).map(|dir| dir.join("python3")).find(|p| p.is_file()).ok_or(())
    }

    #[test]
    fn a_missing_python_is_not_installed() {
        let error = TvmWorker::start(Path::new("/nonexistent/python")).err();
        assert!(matches!(error, Some(PeerError::Start { .. })), "{error:?}");
    }
}
