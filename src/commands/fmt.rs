//! `tirproof fmt FILE`: parse, check and print in canonical form.
//!
//! With a machine `--format`, standard output holds the report only: the program is not
//! printed (the command then checks the file, as `check` does).

use std::path::PathBuf;
use std::process::ExitCode;

use tirproof::findings::{FormatArgs, Report};
use tirproof::out;
use tirproof_ir::print::print_module;

#[derive(clap::Args)]
pub struct Args {
    /// The TVMScript file (`-`: standard input).
    file: PathBuf,
    /// Print the S-TIR form that `--peer tvm` gives TVM's pass (allocations in blocks).
    #[arg(long)]
    for_tvm: bool,
    #[command(flatten)]
    format: FormatArgs,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let mut report = Report::new("fmt");
    if let Some((_, module)) = super::load_checked(&args.file, &mut report) {
        if args.format.is_text() {
            let module = if args.for_tvm { tirproof_fuzz::peer::s_tir::for_tvm(&module) } else { module };
            out!("{}", print_module(&module))?;
        }
    }
    report.finish(args.format.format())
}
