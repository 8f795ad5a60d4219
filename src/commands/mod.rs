//! One module per subcommand. Each `run` returns the exit code of what it found (its
//! `tirproof::findings::Report`'s status) and an `anyhow` error for problems of usage and
//! output (exit code 2; an unreadable input, `ReadError`, is exit code 4).

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

use anyhow::{bail, Context};
use std::path::{Path, PathBuf};
use tirproof::findings::{FileStatus, Finding, Location, ReadError, Report, Rule};
use tirproof::source::{expand_paths, Source};
use tirproof_ir::IRModule;
use tirproof_passes::PipelineError;

/// Reads a program file; a failure is bad input (exit 4), never a usage error.
pub fn read_source(path: &Path) -> Result<Source, ReadError> {
    Source::read(path).map_err(|error| ReadError { path: path.display().to_string(), error })
}

/// Reads, parses and checks a program; `None` when it does not read, parse or check, after
/// printing why to stderr and recording it in `report` (bad input, exit 4).
pub fn load_checked(path: &Path, report: &mut Report) -> Option<(Source, IRModule)> {
    let src = match read_source(path) {
        Ok(src) => src,
        Err(error) => {
            report.unreadable(&error);
            return None;
        }
    };
    match src.parse_and_check() {
        Ok(module) => {
            report.file(&src.name, FileStatus::Checked);
            Some((src, module))
        }
        Err(diags) => {
            eprintln!("{}", src.render(&diags));
            report.reject(&src.name, &diags);
            None
        }
    }
}

/// Records that the passes failed on `file` (`text`): printed to stderr, one finding per
/// diagnostic, a refusal (bad input) or a pass that broke the module.
pub fn pass_failed(report: &mut Report, file: &str, text: &str, error: &PipelineError) {
    eprintln!("{}", error.render(file, text));
    let rule = match error {
        PipelineError::Refused { .. } => Rule::PassRefused,
        PipelineError::Broken { .. } => Rule::PassBroken,
    };
    report.file(file, FileStatus::Rejected);
    for diagnostic in &error.diagnostics().0 {
        let location = Location::at(file, diagnostic.span.line, diagnostic.span.col);
        report.add(Finding::new(rule, location, format!("{}: {}", error.headline(), diagnostic.message)));
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
