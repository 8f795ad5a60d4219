//! `tirproof fmt FILE`: parse, check and print in canonical form.

use std::path::PathBuf;
use std::process::ExitCode;

use tirproof::out;
use tirproof_ir::print::print_module;

#[derive(clap::Args)]
pub struct Args {
    /// The TVMScript file (`-`: standard input).
    file: PathBuf,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let Some((_, module)) = super::load_checked(&args.file)? else { return Ok(super::input_problems()) };
    out!("{}", print_module(&module))?;
    Ok(ExitCode::SUCCESS)
}
