//! `tirproof ptx FILE [--arch sm_80|sm_90] [-o OUT.ptx]`: lower a TIR program to PTX.
//!
//! The module goes through the lowering pipeline (`tirproof_ptx::LOWERING_PASSES`), then
//! codegen; the PTX is printed or written (atomically onto a regular file). Codegen's notes (an async copy done
//! synchronously, a wait made stricter) go to stderr. A pass that refuses the module, or a
//! statement codegen cannot lower, is reported with its location and exits 1.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use tirproof::source::Source;
use tirproof_ir::Diagnostics;
use tirproof_ptx::{lower_module, lower_tir, module::print, Arch, Lowered, PrepareError};

#[derive(clap::Args)]
pub struct Args {
    /// The TVMScript file.
    file: PathBuf,
    /// The GPU architecture to target (sm_80 or sm_90).
    #[arg(long, default_value = "sm_80")]
    arch: Arch,
    /// Write the PTX here (atomically) instead of printing it.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let src = Source::read(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?;
    let lowered = match lower(&src, args.arch) {
        Ok(lowered) => lowered,
        Err(rendered) => {
            eprintln!("{rendered}");
            return Ok(super::input_problems());
        }
    };
    for note in &lowered.notes {
        eprintln!("{}:{note}", src.name);
    }
    let text = print(&lowered.module)?;
    match &args.output {
        Some(path) => tirproof::output::write_file(path, text.as_bytes())?,
        None => tirproof::out!("{text}")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Parses, checks, runs the lowering pipeline and codegen; what stopped it, rendered against
/// the source.
fn lower(src: &Source, arch: Arch) -> Result<Lowered, String> {
    let mut module = src.parse_and_check().map_err(|diags| src.render(&diags))?;
    lower_tir(&mut module).map_err(|error| match error {
        PrepareError::Pipeline(e) => e.render(&src.name, &src.text),
        other => other.to_string(),
    })?;
    lower_module(&module, arch).map_err(|error| src.render(&Diagnostics(vec![error.to_diagnostic()])))
}
