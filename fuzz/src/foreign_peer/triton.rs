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

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde::{Deserialize, Serialize};

const WORKER_SOURCE: &str = include_str!("triton_worker.py");

/// The Triton release audited: another one may compute other counts, so it is refused.
pub const TRITON_VERSION: &str = "3.9.0";

/// The environment variable naming the Python that has Triton (overrides the search).
pub const PYTHON_VARIABLE: &str = "TIRPROOF_TRITON_PYTHON";

/// Where `scripts/foreign_ir.sh` puts the venv, relative to the repository.
pub const VENV_PYTHON: &str = "third_party/foreign/bin/python";

/// How long importing Triton may take.
const START_LIMIT: Duration = Duration::from_secs(120);

/// How much of the child's stderr is kept.
const STDERR_TAIL: usize = 4096;

/// Where Triton refused a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TritonStage {
    Parse,
    Pass,
    Print,
}

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
    #[error("Triton's process died ({status}){}", if .stderr.is_empty() { String::new() } else { format!(": {}", .stderr) })]
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

#[derive(Serialize)]
struct Request<'a> {
    id: u64,
    op: &'a str,
    text: &'a str,
}

#[derive(Deserialize)]
struct Response {
    id: Option<u64>,
    ok: bool,
    text: Option<String>,
    stage: Option<TritonStage>,
    kind: Option<String>,
    message: Option<String>,
}

/// One Triton process.
pub struct TritonWorker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    stderr: Arc<Mutex<String>>,
    next_id: u64,
    /// `triton.__version__` of the process.
    pub version: String,
}

impl TritonWorker {
    /// Starts a worker under `python` and checks its Triton version.
    pub fn start(python: &Path) -> Result<TritonWorker, TritonError> {
        let start_error = |reason: String| TritonError::Start { python: python.display().to_string(), reason };
        let mut child = Command::new(python)
            .args(["-u", "-c", WORKER_SOURCE])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| start_error(e.to_string()))?;
        let (Some(stdin), Some(stdout), Some(stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(start_error("its standard streams were not piped".into()));
        };
        let (send, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let end = line.is_err();
                if send.send(line).is_err() || end {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let tail = Arc::clone(&stderr);
        thread::spawn(move || keep_tail(stderr_pipe, &tail));
        let mut worker = TritonWorker { child, stdin, lines, stderr, next_id: 0, version: String::new() };
        let version = match worker.ask("version", "", START_LIMIT) {
            Ok(TritonReply::Printed(version)) => version,
            Ok(TritonReply::Refused { kind, message, .. }) if kind == "NotInstalled" => {
                return Err(TritonError::NotInstalled {
                    why: format!("{} cannot import Triton: {message}", python.display()),
                });
            }
            Ok(TritonReply::Refused { message, .. }) => return Err(start_error(message)),
            Err(error) => return Err(start_error(error.to_string())),
        };
        if version != TRITON_VERSION {
            return Err(TritonError::WrongVersion { found: version });
        }
        worker.version = version;
        Ok(worker)
    }

    /// Triton's wait-count pass on `text`.
    pub fn waits(&mut self, text: &str, limit: Duration) -> Result<TritonReply, TritonError> {
        self.ask("waits", text, limit)
    }

    fn ask(&mut self, op: &str, text: &str, limit: Duration) -> Result<TritonReply, TritonError> {
        self.next_id += 1;
        let id = self.next_id;
        let line =
            serde_json::to_string(&Request { id, op, text }).map_err(|e| TritonError::Protocol(e.to_string()))?;
        if writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).is_err() {
            return Err(self.crashed());
        }
        let line = match self.lines.recv_timeout(limit) {
            Ok(Ok(line)) => line,
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => return Err(self.crashed()),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return Err(TritonError::Hung { limit });
            }
        };
        let response: Response =
            serde_json::from_str(&line).map_err(|e| TritonError::Protocol(format!("{e} in {line:?}")))?;
        if response.id != Some(id) {
            return Err(TritonError::Protocol(format!("answer {:?} to request {id}", response.id)));
        }
        if response.ok {
            return Ok(TritonReply::Printed(response.text.unwrap_or_default()));
        }
        Ok(TritonReply::Refused {
            stage: response.stage.unwrap_or(TritonStage::Pass),
            kind: response.kind.unwrap_or_else(|| "Exception".into()),
            message: response.message.unwrap_or_default(),
        })
    }

    /// The error for a process that stopped answering: its exit status and stderr's tail.
    fn crashed(&mut self) -> TritonError {
        let mut status = None;
        for _ in 0..50 {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            thread::sleep(Duration::from_millis(20));
        }
        if status.is_none() {
            let _ = self.child.kill();
            status = self.child.wait().ok();
        }
        let stderr = self.stderr.lock().map(|s| s.trim().to_string()).unwrap_or_default();
        let status = status.map_or_else(|| "no exit status".to_string(), |s| s.to_string());
        TritonError::Crashed { status, stderr }
    }
}

impl Drop for TritonWorker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads `pipe` to its end, keeping its last [`STDERR_TAIL`] bytes in `tail`.
fn keep_tail(mut pipe: impl Read, tail: &Mutex<String>) {
    let mut buffer = [0u8; 4096];
    while let Ok(n) = pipe.read(&mut buffer) {
        if n == 0 {
            break;
        }
        if let Ok(mut tail) = tail.lock() {
            tail.push_str(&String::from_utf8_lossy(&buffer[..n]));
            if tail.len() > STDERR_TAIL {
                let cut = tail.len() - STDERR_TAIL;
                let cut = (cut..tail.len()).find(|&i| tail.is_char_boundary(i)).unwrap_or(tail.len());
                tail.drain(..cut);
            }
        }
    }
}

/// The Python to run Triton with: `TIRPROOF_TRITON_PYTHON`, else [`VENV_PYTHON`] found above
/// the running executable or the current directory.
pub fn find_python() -> Result<PathBuf, TritonError> {
    if let Some(python) = std::env::var_os(PYTHON_VARIABLE) {
        let python = PathBuf::from(python);
        return if python.exists() {
            Ok(python)
        } else {
            Err(TritonError::NotInstalled { why: format!("no Python at {} ({PYTHON_VARIABLE})", python.display()) })
        };
    }
    let mut roots = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        roots.extend(exe.ancestors().skip(1).map(Path::to_path_buf));
    }
    if let Ok(dir) = std::env::current_dir() {
        roots.extend(dir.ancestors().map(Path::to_path_buf));
    }
    roots.iter().map(|root| root.join(VENV_PYTHON)).find(|python| python.exists()).ok_or_else(|| {
        TritonError::NotInstalled {
            why: format!("no Python at {VENV_PYTHON} above the executable or the current directory"),
        }
    })
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
