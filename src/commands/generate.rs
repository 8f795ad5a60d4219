//! `tirproof generate --seed S --count N --out DIR`: writes the pipeline pass inputs a campaign
//! with seed `S` generates (programs `0..N`, the arbitrary async programs and invalid ones left
//! out), one file per program, so that other tools (TVM's pass, a benchmark) see exactly the
//! programs a campaign sees.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use tirproof::outln;
use tirproof_fuzz::campaign::{input, Input};
use tirproof_fuzz::gen::GenConfig;
use tirproof_fuzz::oracle::InputMode;
use tirproof_ir::print::print_module;

#[derive(clap::Args)]
pub struct Args {
    /// The campaign seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many campaign programs to look at (programs `0..COUNT`).
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// The directory to write `program-<index>.py` into (created).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let gen = GenConfig::default();
    let mut written = 0;
    for index in 0..args.count {
        // The same inputs a campaign with `--valid-only` runs: pass inputs, valid or possibly refused.
        let Input::Module(module, mode) = input(args.seed, index, &gen, false) else { continue };
        if matches!(mode, InputMode::AsyncProgram | InputMode::InvalidAnnotations) || module.functions.is_empty() {
            continue;
        }
        let path = args.out.join(format!("program-{index}.py"));
        tirproof::output::write_file(&path, print_module(&module).as_bytes())?;
        written += 1;
    }
    outln!(
        "{written} pass inputs of campaign seed {} (programs 0..{}) in {}",
        args.seed,
        args.count,
        args.out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
