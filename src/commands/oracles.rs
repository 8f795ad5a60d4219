//! `tirproof oracles FILE`: run the fuzzers' oracle chain on one program and say what each
//! oracle answered; the command a fuzzing report gives to reproduce a finding.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use tirproof::duration::parse_time_limit;
use tirproof::findings::{ExitStatus, Format, Report};
use tirproof::outln;
use tirproof_fuzz::oracle::{Chain, ChainConfig, InputMode, OracleName, Outcome, PassVariant};
use tirproof_fuzz::peer::PeerMode;

#[derive(clap::Args)]
pub struct Args {
    /// A TVMScript file with pipeline annotations (the input of the pipeline pass); `-` is
    /// standard input.
    file: PathBuf,
    /// Run only these oracles (repeatable; default: all but `gpu`, in chain order).
    #[arg(long = "oracle", value_name = "NAME")]
    oracles: Vec<OracleName>,
    /// The pipeline pass may refuse the program (with located diagnostics) instead of having
    /// to accept it; `--peer` still judges TVM's pass on it.
    #[arg(long)]
    may_be_refused: bool,
    #[command(flatten)]
    chain: ChainArgs,
}

/// The options `oracles`, `reduce` and `fuzz` share.
#[derive(clap::Args)]
pub struct ChainArgs {
    /// Time limit of each Z3 check (seconds, or with a unit: `500ms`, `1m`).
    #[arg(long, default_value = "10", value_parser = parse_time_limit)]
    pub timeout: Duration,
    /// Seed of the random schedule, the inputs and the mutated wait (of the campaign, for
    /// `fuzz`).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Test the pipeline pass with its deliberate bug (for testing the fuzzers).
    #[arg(long)]
    pub planted_bug: bool,
    /// Also give each program to TVM's own pass and judge its output (`tvm`: its
    /// InjectSoftwarePipeline; `tvm-lower`: that and the lowering up to FlattenBuffer). Needs
    /// scripts/setup_tvm.sh (or TIRPROOF_TVM_PYTHON); without TVM the oracle is skipped.
    #[arg(long, value_name = "PEER")]
    pub peer: Option<PeerMode>,
}

impl ChainArgs {
    /// The chain configuration, running `oracles` (all when empty).
    pub fn config(&self, oracles: &[OracleName]) -> ChainConfig {
        let mut oracles = if oracles.is_empty() { OracleName::DEFAULT.to_vec() } else { oracles.to_vec() };
        if self.peer.is_some() && !oracles.contains(&OracleName::Tvm) {
            oracles.push(OracleName::Tvm);
        }
        ChainConfig {
            pass: if self.planted_bug { PassVariant::PlantedBug } else { PassVariant::Real },
            oracles,
            peer: self.peer.unwrap_or_default(),
            timeout: self.timeout.max(Duration::from_millis(1)),
            seed: self.seed,
            ..ChainConfig::default()
        }
    }
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let mut found = Report::new("oracles");
    let Some((_, module)) = super::load_checked(&args.file, &mut found) else { return found.finish(Format::Text) };
    let mut config = args.chain.config(&args.oracles);
    if args.may_be_refused {
        config.mode = InputMode::Unknown;
    }
    let result = Chain { config: &config }.run(&module);
    for (oracle, outcome, elapsed) in &result.outcomes {
        match outcome {
            Outcome::Pass => outln!("{oracle}: pass ({elapsed:.1?})")?,
            Outcome::Skip(why) => outln!("{oracle}: skipped: {why}")?,
            Outcome::Fail(f) => {
                outln!("{oracle}: FAIL {}\n  {}", f.signature(), f.message)?;
                if let Some(evidence) = &f.counterexample {
                    outln!("  counterexample:\n    {}", evidence.replace('\n', "\n    "))?;
                }
            }
        }
    }
    Ok(if result.failure().is_some() { ExitStatus::Refuted.into() } else { ExitCode::SUCCESS })
}
