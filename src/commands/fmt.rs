//! `tirproof fmt FILE`: parse, check and print in canonical form.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use tirproof::source::Source;
use tirproof_ir::print::print_module;

#[derive(clap::Args)]
pub struct Args {
    /// The TVMScript file.
    file: PathBuf,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let src = Source::read(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?;
    match src.parse_and_check() {
        Ok(module) => {
            print!("{}", print_module(&module));
            Ok(ExitCode::SUCCESS)
        }
        Err(diags) => {
            eprintln!("{}", src.render(&diags));
            Ok(super::input_problems())
        }
    }
}
