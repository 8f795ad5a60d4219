//! `tirproof check FILE...`: parse and check, report every diagnostic.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use tirproof::source::Source;

#[derive(clap::Args)]
pub struct Args {
    /// Files or directories (searched recursively for .py files); `-` is standard input.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let files = super::input_files(&args.paths)?;
    let mut failed = 0usize;
    for file in &files {
        let src = Source::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        if let Err(diags) = src.parse_and_check() {
            failed += 1;
            eprintln!("{}\n", src.render(&diags));
        }
    }
    eprintln!("{} files checked, {} clean, {} with errors", files.len(), files.len() - failed, failed);
    Ok(if failed == 0 { ExitCode::SUCCESS } else { super::input_problems() })
}
