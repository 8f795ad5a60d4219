//! `tirproof opt FILE --passes A,B`: run passes over a module and print or write the result.
//!
//! With `--validate`, every CSE pass in the list (`cse`, `cse-semantic`) is checked by
//! tirproof-verify's translation validation: each rewritten expression and each inserted binding
//! must be proved by Z3. Any other verdict is printed with the obligation, nothing is written,
//! and the exit code is 1.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use tirproof::source::Source;
use tirproof_ir::check::check_module;
use tirproof_ir::print::print_module;
use tirproof_ir::IRModule;
use tirproof_passes::{lookup, registry, Pass};

#[derive(clap::Args)]
pub struct Args {
    /// The TVMScript file.
    file: PathBuf,
    /// Comma-separated pass names, run in order (see --list).
    #[arg(long, value_delimiter = ',', required_unless_present = "list")]
    passes: Vec<String>,
    /// Write the result here (atomically) instead of printing it.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Run the well-formedness checker after every pass.
    #[arg(long)]
    verify_each: bool,
    /// Print each emitted statement's origin (statement, stage, iteration) as a comment.
    #[arg(long)]
    provenance: bool,
    /// Print each pass's median time over --repeat runs (parsing and printing excluded).
    #[arg(long)]
    time: bool,
    /// Runs per pass for --time.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Print the passes' explanations to stderr (why a loop stayed serial, ...).
    #[arg(long)]
    explain: bool,
    /// List the registered passes and exit.
    #[arg(long)]
    list: bool,
    /// Prove every rewrite of the CSE passes with Z3; exit 1 if any is not proved.
    #[arg(long)]
    validate: bool,
    /// Time limit of each validation query, in seconds.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    validate_timeout: u64,
}

/// The passes `--validate` checks.
const VALIDATED: [&str; 2] = ["cse", "cse-semantic"];

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if args.list {
        for pass in registry() {
            println!("{:<28} {}", pass.name(), pass.description());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let passes = resolve(&args.passes)?;
    if args.validate && !passes.iter().any(|p| VALIDATED.contains(&p.name())) {
        bail!("--validate checks the CSE passes ({}), and --passes has none of them", VALIDATED.join(", "));
    }
    let mut unproved = 0;
    let src = Source::read(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?;
    let mut module = match src.parse_and_check() {
        Ok(m) => m,
        Err(diags) => {
            eprintln!("{}", src.render(&diags));
            return Ok(super::input_problems());
        }
    };
    for pass in &passes {
        let (result, times) = run_timed(pass.as_ref(), &module, args.repeat);
        match result {
            Ok((next, notes)) => {
                if args.validate && VALIDATED.contains(&pass.name()) {
                    unproved += validate(pass.name(), &module, &next, Duration::from_secs(args.validate_timeout));
                }
                module = next;
                if args.explain {
                    notes.iter().for_each(|note| eprintln!("{}: {note}", pass.name()));
                }
            }
            Err(err) => {
                eprintln!("{}", src.render(&err.diagnostics));
                return Ok(super::input_problems());
            }
        }
        if args.time {
            eprintln!("{:<28} median {:>10.1} µs over {} runs", pass.name(), median_us(times), args.repeat);
        }
        if args.verify_each {
            let diags = check_module(&module);
            if diags.has_errors() {
                eprintln!("the checker rejects the output of `{}`:\n{diags}", pass.name());
                return Ok(super::input_problems());
            }
        }
    }
    if unproved > 0 {
        eprintln!("validation failed: {unproved} rewrite(s) not proved; nothing written");
        return Ok(super::input_problems());
    }
    let text =
        if args.provenance { tirproof_ir::print::print_module_with_provenance(&module) } else { print_module(&module) };
    match &args.output {
        Some(path) => tirproof::write_atomically(path, text.as_bytes())?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Validates one CSE pass; prints what is not proved and returns how many obligations.
fn validate(pass: &str, before: &IRModule, after: &IRModule, timeout: Duration) -> usize {
    let mut unproved = 0;
    for report in tirproof_verify::cse::validate_module(before, after, timeout) {
        let failures: Vec<_> = report.failures().collect();
        if failures.is_empty() {
            eprintln!(
                "validated `{pass}` on `{}`: {} obligations proved ({} expressions unchanged)",
                report.function,
                report.obligations.len(),
                report.unchanged
            );
        } else {
            eprint!("`{pass}` is not validated: {report}");
            unproved += failures.len();
        }
    }
    unproved
}

fn resolve(names: &[String]) -> anyhow::Result<Vec<Box<dyn Pass>>> {
    names
        .iter()
        .map(|name| match lookup(name.trim()) {
            Some(p) => Ok(p),
            None => {
                let known: Vec<&str> = registry().iter().map(|p| p.name()).collect();
                bail!("unknown pass `{name}` (known passes: {})", known.join(", "))
            }
        })
        .collect()
}

/// A pass's output module and notes, or its refusal.
type PassOutcome = Result<(IRModule, Vec<String>), tirproof_passes::PassError>;

/// Runs `pass` `repeat` times on copies of `module`; returns the last result (with the
/// pass's notes) and the times.
fn run_timed(pass: &dyn Pass, module: &IRModule, repeat: u32) -> (PassOutcome, Vec<Duration>) {
    let mut times = Vec::with_capacity(repeat as usize);
    let mut last = Ok((module.clone(), Vec::new()));
    for _ in 0..repeat {
        let mut copy = module.clone();
        let start = Instant::now();
        let outcome = pass.run_explained(&mut copy);
        times.push(start.elapsed());
        last = outcome.map(|notes| (copy, notes));
    }
    (last, times)
}

fn median_us(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times.get(times.len() / 2).map_or(0.0, |d| d.as_secs_f64() * 1e6)
}
