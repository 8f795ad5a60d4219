//! Child processes of the peers, written once: a long-lived Python worker spoken to in JSON
//! lines ([`LineWorker`], the TVM and Triton workers), a tool run once under a time limit
//! ([`run_limited`], mlir-opt), and where a peer's tool is found ([`find_tool`]).
//!
//! Invariants: no call blocks past its limit (a process past it is killed and reaped); a child's
//! stderr is drained on its own thread, so a full pipe cannot block it, and a worker keeps its
//! last [`STDERR_TAIL`] bytes for crash reports; a worker's answer to another request than the
//! one asked is a [`ProcessFailure::Protocol`], never taken for the answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The JSON-lines loop every worker script runs (`serve(answer)`), put before its source.
const SERVE_SOURCE: &str = include_str!("json_lines.py");

/// How much of a worker's stderr is kept for a crash report.
pub const STDERR_TAIL: usize = 4096;

/// How often a process run once is polled for its exit.
const POLL: Duration = Duration::from_millis(5);

/// The kind of a worker's answer when its Python cannot import the peer.
const NOT_INSTALLED: &str = "NotInstalled";

/// Why a worker gave no answer to a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcessFailure {
    /// The process died (or closed its output): its exit status and stderr's tail.
    Crashed { status: String, stderr: String },
    /// No answer within the limit; the process was killed.
    Hung { limit: Duration },
    /// An answer that is not the protocol's.
    Protocol(String),
}

impl std::fmt::Display for ProcessFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProcessFailure::Crashed { status, stderr } => write!(f, "the process died ({status}){}", tail_of(stderr)),
            ProcessFailure::Hung { limit } => write!(f, "no answer within {limit:?}; the process was killed"),
            ProcessFailure::Protocol(why) => write!(f, "the worker broke the protocol: {why}"),
        }
    }
}

/// `: STDERR` for a nonempty (trimmed) stderr, else nothing.
pub fn tail_of(stderr: &str) -> String {
    let stderr = stderr.trim();
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}

/// Where a worker's pass refused a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    Parse,
    Pass,
    Print,
}

/// One answer of a worker script: `ok` with the printed `text`, or an exception.
#[derive(Clone, Debug, Deserialize)]
pub struct Answer {
    pub ok: bool,
    pub text: Option<String>,
    pub stage: Option<Stage>,
    pub kind: Option<String>,
    pub message: Option<String>,
    /// The source line that raised, when the worker reports one.
    pub location: Option<String>,
}

#[derive(Serialize)]
struct Request<'a> {
    id: u64,
    op: &'a str,
    text: &'a str,
}

#[derive(Deserialize)]
struct Envelope<R> {
    id: Option<u64>,
    #[serde(flatten)]
    body: R,
}

/// Why a worker did not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartFailure {
    /// Its Python cannot import the peer: the import's error.
    NotInstalled(String),
    /// It could not be spawned, or did not say its version.
    Start(String),
}

/// One worker process: a Python script that reads a JSON request per line and answers one.
pub struct LineWorker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    stderr: Arc<Mutex<String>>,
    next_id: u64,
}

impl LineWorker {
    /// Runs `source` (after the JSON-lines loop) under `python -u -c` and asks its version
    /// (op `version`) within `limit`.
    pub fn start(python: &Path, source: &str, limit: Duration) -> Result<(LineWorker, String), StartFailure> {
        let program = format!("{SERVE_SOURCE}\n{source}");
        let mut child = Command::new(python)
            .args(["-u", "-c", &program])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| StartFailure::Start(e.to_string()))?;
        let (Some(stdin), Some(stdout), Some(stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(StartFailure::Start("its standard streams were not piped".into()));
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
        let mut worker = LineWorker { child, stdin, lines, stderr, next_id: 0 };
        // A worker that dies or hangs before it says its version failed to start: that is
        // this machine's Python, not the peer failing on a program.
        match worker.ask::<Answer>("version", "", limit) {
            Ok(Answer { ok: true, text, .. }) => Ok((worker, text.unwrap_or_default())),
            Ok(Answer { kind: Some(kind), message, .. }) if kind == NOT_INSTALLED => {
                Err(StartFailure::NotInstalled(message.unwrap_or_default()))
            }
            Ok(answer) => Err(StartFailure::Start(answer.message.unwrap_or_default())),
            Err(failure) => Err(StartFailure::Start(failure.to_string())),
        }
    }

    /// Sends `{id, op, text}` and reads the answer to it, waiting at most `limit`.
    pub fn ask<R: DeserializeOwned>(&mut self, op: &str, text: &str, limit: Duration) -> Result<R, ProcessFailure> {
        self.next_id += 1;
        let id = self.next_id;
        let line =
            serde_json::to_string(&Request { id, op, text }).map_err(|e| ProcessFailure::Protocol(e.to_string()))?;
        if writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).is_err() {
            return Err(self.crashed());
        }
        let line = match self.lines.recv_timeout(limit) {
            Ok(Ok(line)) => line,
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => return Err(self.crashed()),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return Err(ProcessFailure::Hung { limit });
            }
        };
        let answer: Envelope<R> =
            serde_json::from_str(&line).map_err(|e| ProcessFailure::Protocol(format!("{e} in {line:?}")))?;
        if answer.id != Some(id) {
            return Err(ProcessFailure::Protocol(format!("answer {:?} to request {id}", answer.id)));
        }
        Ok(answer.body)
    }

    /// The failure of a process that stopped answering: its exit status and stderr's tail.
    fn crashed(&mut self) -> ProcessFailure {
        // The reader thread saw the end of stdout; give the process a moment to exit.
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
        let stderr = self.stderr.lock().map(|s| s.clone()).unwrap_or_default();
        let status = status.map_or_else(|| "no exit status".to_string(), |s| s.to_string());
        ProcessFailure::Crashed { status, stderr }
    }
}

impl Drop for LineWorker {
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

/// How a process run once ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Exit status 0.
    Success,
    /// A nonzero exit status.
    Failed(i32),
    /// Killed by this signal.
    Signal(i32),
    /// Still running at the limit; killed.
    TimedOut,
}

/// What a process run once printed, and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ran {
    pub exit: Exit,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `command` with its output captured, killing it after `limit`. `Err`: it could not be
/// started (the reason).
pub fn run_limited(command: &mut Command, limit: Duration) -> Result<Ran, String> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let exit = wait_limited(&mut child, limit);
    let collect = |h: thread::JoinHandle<String>| h.join().unwrap_or_default();
    Ok(Ran { exit, stdout: collect(stdout), stderr: collect(stderr) })
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Waits for `child` until `limit`, then kills and reaps it.
fn wait_limited(child: &mut Child, limit: Duration) -> Exit {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return exit_of(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(POLL),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Exit::TimedOut;
            }
        }
    }
}

fn exit_of(status: ExitStatus) -> Exit {
    if let Some(code) = status.code() {
        return if code == 0 { Exit::Success } else { Exit::Failed(code) };
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return Exit::Signal(signal);
        }
    }
    Exit::Failed(-1)
}

/// Why a tool was not found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolNotFound {
    #[error("nothing at {path} ({variable})")]
    NotAtVariable { variable: &'static str, path: PathBuf },
    #[error("no {relative} above the executable, the current directory or the sources")]
    NotInRepository { relative: &'static str },
}

/// The tool named by the environment variable `variable`, else `relative` (a path inside the
/// repository, `third_party/...`) found above the running executable, the current directory
/// or this crate's sources, in that order.
pub fn find_tool(variable: &'static str, relative: &'static str) -> Result<PathBuf, ToolNotFound> {
    if let Some(path) = std::env::var_os(variable) {
        let path = PathBuf::from(path);
        return if path.exists() { Ok(path) } else { Err(ToolNotFound::NotAtVariable { variable, path }) };
    }
    let mut roots = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        roots.extend(exe.ancestors().skip(1).map(Path::to_path_buf));
    }
    if let Ok(dir) = std::env::current_dir() {
        roots.extend(dir.ancestors().map(Path::to_path_buf));
    }
    roots.extend(Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().map(Path::to_path_buf));
    roots
        .iter()
        .map(|root| root.join(relative))
        .find(|path| path.exists())
        .ok_or(ToolNotFound::NotInRepository { relative })
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn script(dir: &Path, body: &str) -> PathBuf {
        let path = dir.join("python");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("writes the script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("makes it executable");
        path
    }

    #[test]
    fn a_worker_says_its_version_and_answers_by_id() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let body = concat!(
            "read line\necho '{\"id\": 1, \"ok\": true, \"text\": \"1.2\"}'\n",
            "read line\necho '{\"id\": 2, \"ok\": false, \"stage\": \"pass\", \"kind\": \"E\", \"message\": \"m\"}'\n",
            "read line\necho '{\"id\": 9, \"ok\": true}'\nsleep 30",
        );
        let (mut worker, version) =
            LineWorker::start(&script(dir.path(), body), "", Duration::from_secs(10)).expect("starts");
        assert_eq!(version, "1.2");
        let answer: Answer = worker.ask("x", "", Duration::from_secs(10)).expect("an answer");
        assert!(!answer.ok && answer.stage == Some(Stage::Pass) && answer.message.as_deref() == Some("m"));
        let stray = worker.ask::<Answer>("x", "", Duration::from_secs(10)).expect_err("a stray answer");
        assert!(matches!(stray, ProcessFailure::Protocol(_)), "{stray}");
    }

    #[test]
    fn a_worker_that_cannot_import_its_peer_is_not_installed() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let body =
            "read line\necho '{\"id\": 1, \"ok\": false, \"kind\": \"NotInstalled\", \"message\": \"no module\"}'";
        let failure = LineWorker::start(&script(dir.path(), body), "", Duration::from_secs(10)).err();
        assert_eq!(failure, Some(StartFailure::NotInstalled("no module".into())));
    }

    #[test]
    fn a_run_past_its_limit_is_killed_and_an_exit_code_is_kept() {
        let started = Instant::now();
        let ran = run_limited(Command::new("sleep").arg("30"), Duration::from_millis(200)).expect("runs");
        assert_eq!(ran.exit, Exit::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(10));
        let ran =
            run_limited(Command::new("sh").args(["-c", "echo out; echo err >&2; exit 4"]), Duration::from_secs(10))
                .expect("runs");
        assert_eq!(ran, Ran { exit: Exit::Failed(4), stdout: "out\n".into(), stderr: "err\n".into() });
    }

    #[test]
    fn a_tool_named_by_a_missing_path_is_not_found() {
        // A variable no other test sets, so setting it does not race with them.
        const VARIABLE: &str = "TIRPROOF_PROCESS_TEST_TOOL";
        std::env::set_var(VARIABLE, "/nonexistent/tool");
        let found = find_tool(VARIABLE, "third_party/none");
        std::env::remove_var(VARIABLE);
        assert!(matches!(found, Err(ToolNotFound::NotAtVariable { .. })), "{found:?}");
        assert_eq!(
            find_tool("TIRPROOF_PROCESS_TEST_UNSET", "no/such/tool"),
            Err(ToolNotFound::NotInRepository { relative: "no/such/tool" })
        );
    }
}
