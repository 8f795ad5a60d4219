//! What the CLI tests share to read a finished command: its exit code, its standard output
//! and error as text, and a path as the command line shows it.

use std::path::Path;
use std::process::Output;

/// The exit code, or -1 when a signal ended the process.
pub fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn show(path: &Path) -> String {
    path.display().to_string()
}
