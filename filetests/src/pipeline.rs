//! The `pass` (alias `pipeline`) and `pass-error` kinds: run the case's passes on the program.
//!
//! The passes run through the pass manager, with the checker after every pass. A `pass` case
//! checks that the passes succeed, that the checker accepts every pass's output, that
//! the output round-trips through the printer, and that the printed output equals the case's
//! expected-output section (a trailing block of comment lines after `EXPECTED_MARKER`, which
//! `BLESS=1` regenerates). A `pass-error` case lists the pass's diagnostics as `# error:` lines.

use tirproof_ir::print::print_module;
use tirproof_ir::IRModule;
use tirproof_passes::{PassManager, PipelineError, UnknownPass};
use tirproof_verify::waits::Tally;

use super::{Case, Verdict};

/// The line that starts the expected output of a `pipeline` case.
pub const EXPECTED_MARKER: &str = "# ---- expected output ----";

/// The program (without the expected-output section) and the expected output, if any.
pub(super) fn split_expected(body: &str) -> (&str, Option<String>) {
    split_commented_tail(body, EXPECTED_MARKER)
}

/// `body` cut at the line `marker`: the program before it, and the block of comment lines after
/// it uncommented (a trailing section of a case: an expected output, TVM's recorded output).
pub(super) fn split_commented_tail<'a>(body: &'a str, marker: &str) -> (&'a str, Option<String>) {
    match body.find(marker) {
        None => (body, None),
        Some(pos) => {
            let tail = body[pos + marker.len()..]
                .lines()
                .skip(1)
                .map(|l| l.strip_prefix("# ").unwrap_or(l.strip_prefix('#').unwrap_or(l)))
                .collect::<Vec<_>>()
                .join("\n");
            (body[..pos].trim_end(), Some(format!("{}\n", tail.trim_end())))
        }
    }
}

/// Runs the case's passes, in order, on a copy of `module`, with the checker after each.
fn run_passes(case: &Case, module: &IRModule) -> Result<IRModule, Failure> {
    let manager = PassManager::from_names(&case.passes).map_err(Failure::UnknownPass)?;
    let mut out = module.clone();
    match manager.run(&mut out) {
        Ok(_) => Ok(out),
        Err(error) => Err(Failure::Pipeline { error, output: out }),
    }
}

/// Why a case's passes produced no output.
enum Failure {
    UnknownPass(UnknownPass),
    /// A pass refused the module, or the checker rejected a pass's output (then `output`).
    Pipeline {
        error: PipelineError,
        output: IRModule,
    },
}

impl Failure {
    /// What a `pass` case reports.
    fn verdict(&self, case: &Case) -> Verdict {
        match self {
            Failure::UnknownPass(e) => Verdict::Fail(e.to_string()),
            Failure::Pipeline { error, output } => {
                let why = error.render(&case.path.display().to_string(), &case.text);
                match error {
                    PipelineError::Refused { .. } => Verdict::Fail(why),
                    PipelineError::Broken { .. } => {
                        Verdict::Fail(format!("{why}\n--- output ---\n{}", print_module(output)))
                    }
                }
            }
        }
    }
}

pub(super) fn run_pipeline(case: &Case, bless: bool) -> Verdict {
    let module = match super::text::load_module(case) {
        Ok(m) => m,
        Err(v) => return v,
    };
    let output = match run_passes(case, &module) {
        Ok(o) => o,
        Err(failure) => return failure.verdict(case),
    };
    let printed = match super::text::round_trip(&output) {
        Ok(p) => p,
        Err(v) => return v,
    };
    if let Err(why) = crate::compare::check_equivalent(&module, &output, &crate::compare::standard_schedules()) {
        return Verdict::Fail(why);
    }
    let summary = match all_waits_proved_and_tight(&output) {
        Ok(summary) => summary,
        Err(why) => return Verdict::Fail(why),
    };
    let (program, expected) = split_expected(case.body());
    if expected.as_deref() == Some(printed.as_str()) {
        return if summary.is_empty() { Verdict::Pass } else { Verdict::Proved(summary) };
    }
    if bless {
        let commented: Vec<String> =
            printed.lines().map(|l| if l.is_empty() { "#".to_string() } else { format!("# {l}") }).collect();
        return case.rewrite(&case.header, &format!("{program}\n\n{EXPECTED_MARKER}\n{}\n", commented.join("\n")));
    }
    Verdict::Fail(format!(
        "the pass prints a different program (run with BLESS=1 to accept):\n--- expected ---\n{}--- printed ---\n{printed}",
        expected.unwrap_or_default()
    ))
}

pub(super) fn run_pass_error(case: &Case, bless: bool) -> Verdict {
    // Parse only: the checker would already reject some of these annotations, and the point
    // is the pass's own diagnostics (it also runs on modules built in memory).
    let module = match tirproof_reader::parse_module(&case.text) {
        Ok(m) => m,
        Err(d) => return Verdict::Fail(format!("the program does not parse:\n{}", d.render("<case>", &case.text))),
    };
    let actual: Vec<String> = match run_passes(case, &module) {
        Ok(_) => return Verdict::Fail("expected the pass to refuse the program, but it succeeded".to_string()),
        Err(Failure::Pipeline { error: PipelineError::Refused { error, .. }, .. }) => {
            error.diagnostics.iter().map(|d| d.headline()).collect()
        }
        Err(failure) => return failure.verdict(case),
    };
    super::text::compare_errors(case, actual, bless)
}

/// Every wait of every function is proved safe and tight, and nothing else is refuted; the
/// summary counts them.
fn all_waits_proved_and_tight(module: &IRModule) -> Result<Tally, String> {
    use tirproof_verify::waits::{verify_func, Options, WaitVerdict};
    let mut tally = Tally::default();
    for func in &module.functions {
        let (report, _) = verify_func(func, &Options::default());
        let loose: Vec<String> = report
            .waits
            .iter()
            .filter(|w| w.verdict != WaitVerdict::ProvedTight)
            .map(ToString::to_string)
            .chain(report.findings.iter().map(|f| format!("refuted: {}", f.message)))
            .chain(report.unknown.iter().map(|u| format!("unknown: {u}")))
            .collect();
        if !loose.is_empty() {
            return Err(format!(
                "the verifier does not prove every wait safe and tight:\n{}\n--- output ---\n{}",
                loose.join("\n"),
                print_module(module)
            ));
        }
        tally.add(&Tally::of(&report));
    }
    Ok(tally)
}
