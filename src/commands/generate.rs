//! `tirproof generate --seed S --count N --out DIR`: writes the pipeline pass inputs a campaign
//! with seed `S` generates (programs `0..N`, the arbitrary async programs, token programs and
//! invalid ones left out), one file per program, so that other tools (TVM's pass, a benchmark) see exactly the
//! programs a campaign sees.

use std::path::PathBuf;
use std::process::ExitCode;

use tirproof::outln;
use tirproof_fuzz::campaign::{input, Input};
use tirproof_fuzz::gen::GenConfig;
use tirproof_fuzz::oracle::InputMode;
use tirproof_fuzz::publish::{check, publish, Layout};
use tirproof_ir::print::print_module;

#[derive(clap::Args)]
pub struct Args {
    /// The campaign seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many campaign programs to look at (programs `0..COUNT`).
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// The directory to write `program-<index>.py` into (created when missing; a directory
    /// holding other files is refused).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// What `--out DIR` holds: the `program-<index>.py` files.
const GENERATED_LAYOUT: Layout =
    Layout { what: "generated programs", owns: |name| name.starts_with("program-") && name.ends_with(".py") };

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    check(&args.out, GENERATED_LAYOUT)?;
    let gen = GenConfig::default();
    let mut programs = Vec::new();
    for index in 0..args.count {
        // The same inputs a campaign with `--valid-only` runs: pass inputs, valid or possibly refused.
        let Input::Module(module, mode) = input(args.seed, index, &gen, false) else { continue };
        if matches!(mode, InputMode::AsyncProgram | InputMode::TokenProgram | InputMode::InvalidAnnotations)
            || module.functions.is_empty()
        {
            continue;
        }
        programs.push((format!("program-{index}.py"), print_module(&module)));
    }
    publish(&args.out, GENERATED_LAYOUT, programs.iter().map(|(name, text)| (name.as_str(), text.as_bytes())))?;
    outln!(
        "{} pass inputs of campaign seed {} (programs 0..{}) in {}",
        programs.len(),
        args.seed,
        args.count,
        args.out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
