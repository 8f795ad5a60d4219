//! `tirproof fmt FILE`: parse, check and print in canonical form.

use std::path::PathBuf;
use std::process::ExitCode;

use tirproof::out;
use tirproof_ir::print::print_module;

#[derive(clap::Args)]
pub struct Args {
    /// The TVMScript file (`-`: standard input).
    file: PathBuf,
    /// Print the S-TIR form that `--peer tvm` gives TVM's pass (allocations in blocks).
    #[arg(long)]
    for_tvm: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let Some((_, module)) = super::load_checked(&args.file)? else { return Ok(super::input_problems()) };
    let module = if args.for_tvm { tirproof_fuzz::peer::s_tir::for_tvm(&module) } else { module };
    out!("{}", print_module(&module))?;
    Ok(ExitCode::SUCCESS)
}
