//! `tirproof check FILE...`: parse and check, report every diagnostic.
//!
//! Every input gets a report entry: checked, or rejected with its diagnostics (on stderr for
//! people, in the report for `--format`); an unreadable input is rejected too, and the other
//! inputs are still checked.

use std::path::PathBuf;
use std::process::ExitCode;

use tirproof::findings::{FileStatus, FormatArgs, Report};

#[derive(clap::Args)]
pub struct Args {
    /// Files or directories (searched recursively for .py files); `-` is standard input.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    format: FormatArgs,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let files = super::input_files(&args.paths)?;
    let mut report = Report::new("check");
    let mut failed = 0usize;
    for file in &files {
        let src = match super::read_source(file) {
            Ok(src) => src,
            Err(error) => {
                failed += 1;
                report.unreadable(&error);
                continue;
            }
        };
        match src.parse_and_check() {
            Ok(_) => report.file(&src.name, FileStatus::Checked),
            Err(diags) => {
                failed += 1;
                eprintln!("{}\n", src.render(&diags));
                report.reject(&src.name, &diags);
            }
        }
    }
    eprintln!("{} files checked, {} clean, {} with errors", files.len(), files.len() - failed, failed);
    report.finish(args.format.format())
}
