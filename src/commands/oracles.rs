//! `tirproof oracles FILE`: run the fuzzers' oracle chain on one program and say what each
//! oracle answered; the command a fuzzing report gives to reproduce a finding.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use tirproof::source::Source;
use tirproof_fuzz::oracle::{Chain, ChainConfig, OracleName, Outcome, PassVariant};

#[derive(clap::Args)]
pub struct Args {
    /// A TVMScript file with pipeline annotations (the input of the pipeline pass).
    file: PathBuf,
    /// Run only these oracles (repeatable; default: all of them, in chain order).
    #[arg(long = "oracle", value_name = "NAME")]
    oracles: Vec<OracleName>,
    #[command(flatten)]
    chain: ChainArgs,
}

/// The options `oracles`, `reduce` and `fuzz` share.
#[derive(clap::Args)]
pub struct ChainArgs {
    /// Time limit of each Z3 check, in seconds.
    #[arg(long, default_value_t = 10.0)]
    pub timeout: f64,
    /// Seed of the random schedule, the inputs and the mutated wait (of the campaign, for
    /// `fuzz`).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Test the pipeline pass with its deliberate bug (for testing the fuzzers).
    #[arg(long)]
    pub planted_bug: bool,
}

impl ChainArgs {
    /// The chain configuration, running `oracles` (all when empty).
    pub fn config(&self, oracles: &[OracleName]) -> ChainConfig {
        ChainConfig {
            pass: if self.planted_bug { PassVariant::PlantedBug } else { PassVariant::Real },
            oracles: if oracles.is_empty() { OracleName::ALL.to_vec() } else { oracles.to_vec() },
            timeout: Duration::from_secs_f64(self.timeout.max(0.001)),
            seed: self.seed,
            ..ChainConfig::default()
        }
    }
}

/// Reads, parses and checks the program a fuzzing command works on; `None` (after printing
/// the diagnostics) when it does not parse or check: exit code 2, the input of these commands
/// must be a valid program.
pub fn load_program(path: &std::path::Path) -> anyhow::Result<Option<(Source, tirproof_ir::IRModule)>> {
    let src = Source::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    match src.parse_and_check() {
        Ok(module) => Ok(Some((src, module))),
        Err(diags) => {
            eprintln!("{}", src.render(&diags));
            Ok(None)
        }
    }
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let Some((_, module)) = load_program(&args.file)? else { return Ok(ExitCode::from(2)) };
    let config = args.chain.config(&args.oracles);
    let result = Chain { config: &config }.run(&module);
    for (oracle, outcome, elapsed) in &result.outcomes {
        match outcome {
            Outcome::Pass => println!("{oracle}: pass ({elapsed:.1?})"),
            Outcome::Skip(why) => println!("{oracle}: skipped: {why}"),
            Outcome::Fail(f) => {
                println!("{oracle}: FAIL {}\n  {}", f.signature(), f.message);
                if let Some(evidence) = &f.counterexample {
                    println!("  counterexample:\n    {}", evidence.replace('\n', "\n    "));
                }
            }
        }
    }
    Ok(if result.failure().is_some() { super::input_problems() } else { ExitCode::SUCCESS })
}
