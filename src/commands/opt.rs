//! `tirproof opt FILE --passes A,B`: run passes over a module and print or write the result.
//!
//! The passes run through the pass manager, with the checker after every pass unless
//! `--no-verify-each`; a refusal or a checker failure names the pass and exits 1.
//!
//! With `--validate`, every CSE pass in the list (`cse`, `cse-semantic`) is checked by
//! tirproof-verify's translation validation: each rewritten expression and each inserted binding
//! must be proved by Z3. Any other verdict is printed with the obligation, nothing is written,
//! and the exit code is 1 (refuted) or 3 (undecided).
//!
//! A pass that refuses the module is bad input (exit 4), like a file that does not check; a
//! pass whose output the checker rejects is a finding (exit 1). With a machine `--format`,
//! standard output holds the report only: the result is written with `-o` or not at all.

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail};
use tirproof::duration::parse_time_limit;
use tirproof::findings::{Finding, FormatArgs, Location, Report, Rule};
use tirproof::{out, outln};
use tirproof_ir::print::print_module;
use tirproof_ir::IRModule;
use tirproof_passes::{registry, AfterPass, PassManager, PassRecord};
use tirproof_verify::solver::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// The TVMScript file (`-`: standard input).
    #[arg(required_unless_present = "list")]
    file: Option<PathBuf>,
    /// Comma-separated pass names, run in order (see --list).
    #[arg(long, value_delimiter = ',', required_unless_present = "list")]
    passes: Vec<String>,
    /// Write the result here instead of printing it (a regular file is replaced atomically and
    /// keeps its mode; a device or FIFO is written through; a symlink is followed).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Run the well-formedness checker after every pass (the default).
    #[arg(long, overrides_with = "no_verify_each")]
    verify_each: bool,
    /// Do not run the well-formedness checker after every pass.
    #[arg(long, overrides_with = "verify_each")]
    no_verify_each: bool,
    /// Print each emitted statement's origin (statement, stage, iteration) as a comment.
    #[arg(long)]
    provenance: bool,
    /// Print each pass's median time over --repeat runs (parsing and printing excluded).
    #[arg(long)]
    time: bool,
    /// Runs per pass for --time.
    #[arg(long, default_value = "1")]
    repeat: NonZeroU32,
    /// Print the passes' explanations to stderr (why a loop stayed serial, ...).
    #[arg(long)]
    explain: bool,
    /// List the registered passes and exit.
    #[arg(long)]
    list: bool,
    /// Prove every rewrite of the CSE passes with Z3; exit 1 if any is not proved.
    #[arg(long)]
    validate: bool,
    /// Time limit of each validation query (seconds, or with a unit: `500ms`, `1m`).
    #[arg(long, default_value = "10", value_parser = parse_time_limit)]
    validate_timeout: Duration,
    #[command(flatten)]
    format: FormatArgs,
}

/// The passes `--validate` checks.
const VALIDATED: [&str; 2] = ["cse", "cse-semantic"];

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if args.list {
        let passes = registry();
        let width = passes.iter().map(|p| p.name().len()).max().unwrap_or(0);
        for pass in passes {
            outln!("{:<width$} {}", pass.name(), pass.description())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut manager = PassManager::from_names(&args.passes)?.check_each(args.verify_each || !args.no_verify_each);
    if args.time {
        manager = manager.timed(args.repeat);
    }
    if args.validate && !manager.passes().any(|p| VALIDATED.contains(&p.name())) {
        bail!("--validate checks the CSE passes ({}), and --passes has none of them", VALIDATED.join(", "));
    }
    let file = args.file.as_deref().ok_or_else(|| anyhow!("a FILE is needed unless --list is given"))?;
    if let Some(output) = &args.output {
        tirproof::output::refuse_inputs(output, &[file])?;
    }
    let format = args.format.format();
    let mut found = Report::new("opt");
    let Some((src, mut module)) = super::load_checked(file, &mut found) else { return found.finish(format) };
    let mut after = AfterEach { args, file: &src.name, unproved: 0, found };
    if let Err(error) = manager.run_with(&mut module, &mut after) {
        super::pass_failed(&mut after.found, &src.name, &src.text, &error);
        return after.found.finish(format);
    }
    if after.unproved > 0 {
        eprintln!("validation failed: {} rewrite(s) not proved; nothing written", after.unproved);
        return after.found.finish(format);
    }
    let text =
        if args.provenance { tirproof_ir::print::print_module_with_provenance(&module) } else { print_module(&module) };
    match &args.output {
        Some(path) => tirproof::output::write_file(path, text.as_bytes())?,
        None if args.format.is_text() => out!("{text}")?,
        None => {}
    }
    after.found.finish(format)
}

/// What `opt` reports after each pass: the validation of CSE passes, the notes, the time.
struct AfterEach<'a> {
    args: &'a Args,
    /// The input, where validation findings are.
    file: &'a str,
    /// Obligations of the CSE validation not proved so far.
    unproved: usize,
    found: Report,
}

impl AfterPass for AfterEach<'_> {
    fn after_pass(&mut self, record: &PassRecord, before: &IRModule, after: &IRModule) {
        let args = self.args;
        if args.validate && VALIDATED.contains(&record.pass) {
            self.unproved += validate(record.pass, before, after, args.validate_timeout, self.file, &mut self.found);
        }
        if args.explain {
            record.notes.iter().for_each(|note| eprintln!("{}: {note}", record.pass));
        }
        if let Some(median) = record.median() {
            let us = median.as_secs_f64() * 1e6;
            eprintln!("{:<28} median {us:>10.1} µs over {} runs", record.pass, record.times.len());
            record.stopped.iter().for_each(|stopped| eprintln!("{:<28} {stopped}", record.pass));
        }
    }
}

/// Validates one CSE pass; prints what is not proved, records it in `found` and returns how
/// many obligations.
fn validate(
    pass: &str,
    before: &IRModule,
    after: &IRModule,
    timeout: Duration,
    file: &str,
    found: &mut Report,
) -> usize {
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
            for failure in failures {
                let rule = if matches!(failure.verdict, Verdict::Refuted(_)) {
                    Rule::RewriteRefuted
                } else {
                    Rule::RewriteUnknown
                };
                let message = format!("`{pass}` on `{}`: {}", report.function, failure.to_string().trim_end());
                found.add(Finding::new(rule, Location::file(file), message));
            }
        }
    }
    unproved
}
