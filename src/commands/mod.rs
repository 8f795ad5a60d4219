//! One module per subcommand. Each `run` returns the exit code for problems in the input
//! and an `anyhow` error (exit code 2) for problems of the tool: usage and I/O.

pub mod audit_peer;
pub mod check;
pub mod corpus;
pub mod fmt;
pub mod fuzz;
pub mod generate;
pub mod opt;
pub mod oracles;
pub mod ptx;
pub mod reduce;
pub mod report;
pub mod run;
pub mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use tirproof::source::{expand_paths, Source};
use tirproof_ir::IRModule;

/// Exit code 1: the input has problems.
pub fn input_problems() -> ExitCode {
    ExitCode::from(1)
}

/// Reads, parses and checks a program; `None` (after printing the diagnostics to stderr) when
/// it does not parse or check, which is exit code 1 for every command.
pub fn load_checked(path: &Path) -> anyhow::Result<Option<(Source, IRModule)>> {
    let src = Source::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    match src.parse_and_check() {
        Ok(module) => Ok(Some((src, module))),
        Err(diags) => {
            eprintln!("{}", src.render(&diags));
            Ok(None)
        }
    }
}

/// The files the arguments name, directories expanded into their program files (`.py`,
/// `.ttgir`, `.mlir`); a directory
/// without any is a usage error, never a silent success.
pub fn input_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        let found = expand_paths(std::slice::from_ref(path))
            .with_context(|| format!("cannot list the files under {}", path.display()))?;
        if found.is_empty() {
            bail!("{} has no program files (.py, .ttgir, .mlir)", path.display());
        }
        files.extend(found);
    }
    Ok(files)
}
