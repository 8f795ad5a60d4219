//! `tirproof reduce FILE --oracle NAME`: minimize a failing program and write its report.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use tirproof::duration::parse_duration;
use tirproof::findings::{ExitStatus, Format, Report};
use tirproof::outln;
use tirproof_fuzz::oracle::{InputMode, OracleName};
use tirproof_fuzz::publish::check;
use tirproof_fuzz::reduce::{reduce, ReduceConfig, ReduceError};
use tirproof_fuzz::report::{describe, write_report, FILES, REPORT_LAYOUT, TVM_FILES};

use super::oracles::ChainArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The failing TVMScript program (the input of the pipeline pass); `-` is standard input.
    file: PathBuf,
    /// The oracle whose failure to keep (default: the first oracle that fails).
    #[arg(long, value_name = "NAME")]
    oracle: Option<OracleName>,
    /// Where to write the report (REPORT.md, report.json, minimized.py, regression.py, ...):
    /// created when missing, written into when it holds a report; a directory holding anything
    /// else, or a path that is not a directory, is refused.
    #[arg(long, value_name = "DIR", default_value = "reduced")]
    out: PathBuf,
    /// Stop minimizing after this long (seconds, or with a unit: `2m`); the result still fails
    /// the same way.
    #[arg(long, default_value = "120", value_parser = parse_duration)]
    budget: Duration,
    /// The pipeline pass may refuse the program (with located diagnostics) instead of having
    /// to accept it (as for a campaign's program generated so).
    #[arg(long)]
    may_be_refused: bool,
    #[command(flatten)]
    chain: ChainArgs,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    // Refused before minimizing, which takes minutes: a directory of other files, or a report
    // file that is the input.
    check(&args.out, REPORT_LAYOUT)?;
    for name in FILES.iter().chain(&TVM_FILES) {
        tirproof::output::refuse_inputs(&args.out.join(name), &[&args.file])?;
    }
    let mut found = Report::new("reduce");
    let Some((src, module)) = super::load_checked(&args.file, &mut found) else { return found.finish(Format::Text) };
    let mut chain = args.chain.config(&[]);
    if args.may_be_refused {
        chain.mode = InputMode::Unknown;
    }
    let config = ReduceConfig { chain, oracle: args.oracle, budget: args.budget };
    let reduction = match reduce(&module, &config) {
        Ok(r) => r,
        Err(e @ (ReduceError::DoesNotFail(_) | ReduceError::OtherFailure { .. } | ReduceError::OtherOracle { .. })) => {
            eprintln!("{}: {e}; nothing to reduce", src.name);
            return Ok(ExitCode::from(2));
        }
        Err(e) => return Err(e).context(src.name.clone()),
    };
    let origin = format!("`{}`", args.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    let data = write_report(&args.out, &reduction, &origin, args.chain.planted_bug)
        .with_context(|| format!("cannot write the report into {}", args.out.display()))?;
    outln!("{}: {}", data.signature, data.message)?;
    outln!(
        "reduced from {} to {} in {:.1} s ({} candidates, {} kept)",
        describe(&reduction.original_size),
        describe(&reduction.reduced_size),
        data.reduce_seconds,
        data.attempts,
        data.steps.len()
    )?;
    outln!("report: {}", args.out.join("REPORT.md").display())?;
    Ok(ExitStatus::Refuted.into())
}
