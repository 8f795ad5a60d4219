//! Counterexample reports: a directory per minimized failure with `REPORT.md` (for people),
//! `report.json` (for tools), the original and minimized programs, the pass's output, and a
//! ready corpus file for `corpus/regressions/`.
//!
//! A report directory is published through [`crate::publish`] as [`REPORT_LAYOUT`]: written
//! into, never replaced, and refused when it holds anything but a report's files. Crash
//! consistency: a kill at any step of writing a report leaves a state that
//! [`recover_findings`] repairs (the publication finished or undone, an emptied report
//! directory removed, and what earlier versions left beside a report put back or removed); so
//! after a recovery every report is complete, of one version, and a report once written is
//! never lost. Single files ([`write_atomically`]) are synced and renamed over their target.
//!
//! `report.json` records how far minimization got ([`Minimization`]), so that a resumed
//! campaign minimizes again what a kill interrupted. Every line a report names is a line of
//! the program it prints (`minimized.py`, or `output.py` for statements the pass made), or is
//! left out with the reason (see [`LineRefs`]).

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use serde::Serialize;
use tirproof_ir::print::print_module;

use crate::oracle::{Failure, OracleName, Signature};
use crate::peer;
use crate::publish::{sync_dir, write_synced, Layout, PublishError, PublishStep};
use crate::reduce::{LineRefs, Minimization, Reduction, Size};

/// The data of `report.json`.
#[derive(Clone, Debug, Serialize)]
pub struct ReportData {
    pub signature: Signature,
    pub oracle: OracleName,
    pub message: String,
    pub counterexample: Option<String>,
    pub size_before: Size,
    pub size_after: Size,
    pub text_lines_before: usize,
    pub text_lines_after: usize,
    pub steps: Vec<&'static str>,
    pub attempts: usize,
    pub reduce_seconds: f64,
    pub budget_reached: bool,
    /// How far minimization got; a campaign minimizes again a report that is not
    /// [`Minimization::is_final`].
    pub minimization: Minimization,
    /// The campaign program the failure came from, when it came from a campaign.
    pub program: Option<u64>,
    /// The one command that shows the failure again, run from the report's directory.
    pub reproduce: String,
    /// Where the program came from (a campaign's seed and index, or an input file's name).
    pub origin: String,
    /// The chain's seed the failure needs (`--seed`, `# seed:`).
    pub seed: u64,
    /// For a finding about TVM (`tvm` oracle): the TVM version it was found with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tvm_version: Option<String>,
}

/// The files a report consists of.
pub const FILES: [&str; 6] = ["REPORT.md", "report.json", "original.py", "minimized.py", "output.py", "regression.py"];

/// The files a report about TVM has besides [`FILES`]: the Python script that shows the
/// finding in TVM, and what TVM printed for the minimized program.
pub const TVM_FILES: [&str; 2] = ["reproduce_tvm.py", "tvm_output.py"];

/// What a report about TVM shows of TVM.
struct TvmEvidence {
    version: String,
    script: String,
    /// What TVM printed for the minimized program, or `None` when it raised (or is gone).
    output: Option<String>,
}

/// TVM's side of a `tvm` finding, asked of TVM again for the minimized program.
fn tvm_evidence(reduction: &Reduction) -> TvmEvidence {
    let output = match peer::run_tvm(&reduction.reduced, reduction.peer) {
        Ok(peer::TvmReply::Printed(text)) => Some(text),
        _ => None,
    };
    let version = peer::worker::version().unwrap_or_else(|e| format!("unknown ({e})"));
    TvmEvidence { version, script: peer::reproduction(&reduction.reduced, reduction.peer), output }
}

fn tvm_markdown(data: &ReportData, tvm: &TvmEvidence) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "\n## TVM\n");
    let _ = writeln!(md, "Found with TVM {}. `reproduce_tvm.py` shows it in TVM alone:\n", tvm.version);
    let _ = writeln!(md, "The lines in the message and the counterexample above are lines of `tvm_output.py`.\n");
    let _ = writeln!(md, "```python\n{}```\n", tvm.script);
    if let Some(output) = &tvm.output {
        let _ = writeln!(md, "What TVM printed (`tvm_output.py`):\n\n```python\n{output}```\n");
    }
    let _ = writeln!(md, "tirproof's verdict on it: {}", data.message);
    md
}

/// Where a report's program came from and how to run it again.
#[derive(Clone, Debug)]
pub struct ReportContext<'a> {
    /// A campaign's seed and program, or an input file's name.
    pub origin: &'a str,
    /// The campaign program, when there is one (a resumed campaign regenerates it).
    pub program: Option<u64>,
    pub planted_bug: bool,
}

/// Writes the report of `reduction` into the directory `dir`: created when missing, written
/// into when it holds a report, refused when it holds anything else (see [`crate::publish`]).
pub fn write_report(
    dir: &Path,
    reduction: &Reduction,
    origin: &str,
    planted_bug: bool,
) -> Result<ReportData, PublishError> {
    write_finding(dir, reduction, &ReportContext { origin, program: None, planted_bug })
}

/// [`write_report`] with the campaign program the failure came from.
pub fn write_finding(
    dir: &Path,
    reduction: &Reduction,
    context: &ReportContext<'_>,
) -> Result<ReportData, PublishError> {
    let original = print_module(&reduction.original);
    let minimized = print_module(&reduction.reduced);
    let tvm = (reduction.failure.oracle == OracleName::Tvm).then(|| tvm_evidence(reduction));
    let mut data = report_data(reduction, context, &original, &minimized);
    data.tvm_version = tvm.as_ref().map(|t| t.version.clone());
    let output =
        reduction.result.output.as_ref().map(print_module).unwrap_or_else(|| "# the pass produced no output\n".into());
    let json = serde_json::to_string_pretty(&data).map_err(|e| json_error(dir, e))?;
    let mut md = markdown(&data, &minimized, &output);
    let mut files: Vec<(&str, String)> = Vec::with_capacity(FILES.len() + TVM_FILES.len());
    if let Some(tvm) = &tvm {
        md.push_str(&tvm_markdown(&data, tvm));
        files.push(("reproduce_tvm.py", tvm.script.clone()));
        files.push(("tvm_output.py", tvm.output.clone().unwrap_or_else(|| "# TVM printed no output\n".into())));
    }
    files.extend([
        ("REPORT.md", md),
        ("report.json", json + "\n"),
        ("original.py", original),
        ("minimized.py", minimized.clone()),
        ("output.py", output),
        (
            "regression.py",
            match (peer::TvmClass::of_failure_class(&reduction.failure.class), &tvm) {
                (Some(class), Some(tvm)) => {
                    let desc = format!("TVM {}: {} ({})", tvm.version, class, data.origin);
                    let finding =
                        peer::Finding { class: &class, desc: &desc, seed: reduction.seed, mode: reduction.peer };
                    peer::finding_case(&finding, &minimized, tvm.output.as_deref())
                }
                _ => regression_case(&data, &minimized),
            },
        ),
    ]);
    publish(dir, files.iter().map(|(name, text)| (*name, text.as_str())))?;
    Ok(data)
}

/// The report of a failure on text that does not parse into a program (a parser panic): the
/// text as found, unminimized.
pub fn write_text_report(dir: &Path, failure: &Failure, text: &str, origin: &str) -> Result<(), PublishError> {
    let signature = failure.signature();
    let data = serde_json::json!({
        "signature": signature,
        "oracle": failure.oracle.name(),
        "message": failure.message,
        "counterexample": failure.counterexample,
        "origin": origin,
        "reproduce": "tirproof check input.py",
        "minimization": Minimization::Done,
    });
    let md = format!(
        "# {signature}\n\n{}\n\nFound in: {origin}\n\n## Reproduce\n\n```sh\ntirproof check input.py\n```\n\n## Input (`input.py`)\n\n```python\n{text}\n```\n",
        failure.message
    );
    let json = serde_json::to_string_pretty(&data).map_err(|e| json_error(dir, e))? + "\n";
    publish(dir, [("REPORT.md", md.as_str()), ("report.json", json.as_str()), (TEXT_INPUT, text)])
}

/// A report that cannot be put in JSON (it always can: its fields are plain data).
fn json_error(dir: &Path, error: serde_json::Error) -> PublishError {
    PublishError::Io { path: dir.join("report.json"), error: io::Error::other(error) }
}

/// What a report directory holds: [`FILES`], [`TVM_FILES`] and the input of a report on text
/// ([`write_text_report`]); a directory holding anything else is never written into.
pub const REPORT_LAYOUT: Layout =
    Layout { what: "a report", owns: |name| FILES.contains(&name) || TVM_FILES.contains(&name) || name == TEXT_INPUT };

/// The input of a report on text that does not parse.
const TEXT_INPUT: &str = "input.py";

/// Writes `files` into the report directory `dir` (see [`crate::publish`]).
fn publish<'a>(dir: &Path, files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<(), PublishError> {
    publish_stepwise(dir, files, &mut |_| Ok(()))
}

/// [`publish`], calling `after` after each step (the fault-injection tests use it).
pub(crate) fn publish_stepwise<'a>(
    dir: &Path,
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
    after: &mut dyn FnMut(PublishStep) -> io::Result<()>,
) -> Result<(), PublishError> {
    let parent = parent_of(dir);
    std::fs::create_dir_all(parent).map_err(|error| PublishError::Io { path: parent.to_path_buf(), error })?;
    let files = files.into_iter().map(|(name, text)| (name, text.as_bytes()));
    crate::publish::publish_stepwise(dir, REPORT_LAYOUT, files, after)
}

fn parent_of(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Staging (`.NAME.new`) and aside (`.NAME.old`) report directories of earlier versions,
/// which replaced a report as a whole.
const STAGING: &str = "new";
const ASIDE: &str = "old";

/// Repairs what a kill left of publishing the report `dir`: its own journal (see
/// [`crate::publish::recover`]), and what earlier versions left beside it: an aside report
/// whose place is empty goes back there; staging and aside directories are removed otherwise.
/// A report directory left empty (a kill before its first file) is removed. Returns whether
/// anything was repaired.
pub fn recover_report(dir: &Path) -> io::Result<bool> {
    let parent = parent_of(dir);
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "report".into());
    let (staging, aside) = (parent.join(format!(".{name}.{STAGING}")), parent.join(format!(".{name}.{ASIDE}")));
    let mut repaired = false;
    if aside.exists() {
        if dir.exists() {
            std::fs::remove_dir_all(&aside)?;
        } else {
            std::fs::rename(&aside, dir)?;
        }
        repaired = true;
    }
    if staging.exists() {
        std::fs::remove_dir_all(&staging)?;
        repaired = true;
    }
    if dir.is_dir() {
        repaired |= crate::publish::recover(dir)?;
        if std::fs::read_dir(dir)?.next().is_none() {
            std::fs::remove_dir(dir)?;
            repaired = true;
        }
    }
    if repaired {
        sync_dir(parent)?;
    }
    Ok(repaired)
}

/// Repairs every report under `findings` (see [`recover_report`]) and removes the temporary
/// files of interrupted atomic writes; returns the names of the reports repaired.
pub fn recover_findings(findings: &Path) -> io::Result<Vec<String>> {
    let mut repaired = Vec::new();
    for entry in std::fs::read_dir(findings)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        let Some(hidden) = name.strip_prefix('.') else {
            if recover_report(&findings.join(&name))? {
                repaired.push(name);
            }
            continue;
        };
        let report = hidden.strip_suffix(&format!(".{STAGING}")).or_else(|| hidden.strip_suffix(&format!(".{ASIDE}")));
        match report {
            Some(report) if recover_report(&findings.join(report))? => repaired.push(report.to_string()),
            Some(_) => {}
            // Staging of earlier versions (`.NAME.tmpPID`): never complete, nothing refers to it.
            None if is_temporary(hidden) => remove_any(&findings.join(&name))?,
            None => {}
        }
    }
    repaired.sort();
    repaired.dedup();
    Ok(repaired)
}

/// Whether a hidden name (without its dot) is a temporary of [`write_atomically`] or of an
/// earlier version's staging: `NAME.tmpPID`.
fn is_temporary(hidden: &str) -> bool {
    hidden.rsplit_once(".tmp").is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

fn remove_any(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

/// Writes through a temporary file in the same directory, synced, then renames it over `path`
/// (and syncs the directory), so a reader never sees a half-written file and an interrupted
/// write loses nothing.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_of(path);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let written = write_synced(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        // Best effort: the error that matters is the write's.
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    sync_dir(dir)
}

fn report_data(reduction: &Reduction, context: &ReportContext<'_>, original: &str, minimized: &str) -> ReportData {
    let failure = &reduction.failure;
    let mut flag = if context.planted_bug { " --planted-bug".to_string() } else { String::new() };
    if reduction.seed != 0 {
        flag.push_str(&format!(" --seed {}", reduction.seed));
    }
    if failure.oracle == OracleName::Tvm {
        flag.push_str(&format!(" --peer {}", reduction.peer.name()));
    }
    if reduction.mode == crate::oracle::InputMode::Unknown {
        flag.push_str(" --may-be-refused");
    }
    // A finding about TVM names lines of TVM's output (`tvm_output.py`), not of ours.
    let lines_of = |text: &str| {
        if failure.oracle == OracleName::Tvm {
            text.to_string()
        } else {
            real_lines(text, reduction.lines, minimized)
        }
    };
    ReportData {
        signature: failure.signature(),
        oracle: failure.oracle,
        message: lines_of(&failure.message),
        counterexample: failure.counterexample.as_deref().map(lines_of),
        size_before: reduction.original_size,
        size_after: reduction.reduced_size,
        text_lines_before: original.lines().count(),
        text_lines_after: minimized.lines().count(),
        steps: reduction.steps.clone(),
        attempts: reduction.attempts,
        reduce_seconds: reduction.elapsed.as_secs_f64(),
        budget_reached: reduction.budget_reached,
        minimization: reduction.minimization,
        program: context.program,
        reproduce: format!("tirproof oracles minimized.py --oracle {}{flag}", failure.oracle),
        origin: context.origin.to_string(),
        seed: reduction.seed,
        tvm_version: None,
    }
}

fn markdown(data: &ReportData, minimized: &str, output: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n", data.signature);
    let _ = writeln!(md, "Oracle `{}` fails: {}\n", data.oracle, data.message);
    let _ = writeln!(md, "Found in: {}\n", data.origin);
    let _ = writeln!(md, "## Reproduce\n\n```sh\n{}\n```\n", data.reproduce);
    let _ = writeln!(md, "## Size\n");
    let _ = writeln!(
        md,
        "| | statements | conditions | async stages | stage sum | extent sum | buffer elements | expressions | lines |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|");
    for (label, s, lines) in
        [("before", data.size_before, data.text_lines_before), ("after", data.size_after, data.text_lines_after)]
    {
        let _ = writeln!(
            md,
            "| {label} | {} | {} | {} | {} | {} | {} | {} | {lines} |",
            s.statements, s.conditions, s.async_stages, s.stage_sum, s.extent_sum, s.buffer_elements, s.expressions
        );
    }
    let budget = match data.minimization {
        Minimization::Done => "",
        Minimization::BudgetSpent => " (time budget reached before a fixed point)",
        Minimization::NotStarted | Minimization::InProgress => {
            " (minimization not finished: a resumed campaign minimizes it again)"
        }
    };
    let _ = writeln!(
        md,
        "\n{} edits kept of {} candidates tried in {:.1} s{budget}.\n",
        data.steps.len(),
        data.attempts,
        data.reduce_seconds
    );
    let _ = writeln!(md, "## Counterexample\n");
    let evidence = data.counterexample.as_deref().unwrap_or("(none: the message above is the whole evidence)");
    let _ = writeln!(md, "```text\n{evidence}\n```\n");
    let _ = writeln!(md, "Lines in interpreter faults and verifier messages are lines of `minimized.py`: the pipeline pass keeps the input's lines on the statements it copies; a line that is not one of them is left out, with the reason.\n");
    let _ = writeln!(md, "## Minimized program (`minimized.py`)\n\n```python\n{}```\n", minimized);
    let _ = writeln!(md, "## Pipeline pass output (`output.py`)\n\n```python\n{}```\n", output);
    let _ = writeln!(
        md,
        "## Regression test\n\nCopy `regression.py` into `corpus/regressions/`: it passes once the bug is fixed."
    );
    md
}

/// `text` with every `line N` that is not a line of `program` (the printed program the
/// report shows) replaced by why it is left out, so that a report never points at a line that
/// is not there (`line ?`, `line 0`, or a line of a program the report does not print).
fn real_lines(text: &str, refs: LineRefs, program: &str) -> String {
    const WORD: &str = "line ";
    let lines = program.lines().count();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(WORD) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let after = &from[WORD.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let taken = if digits == 0 && after.starts_with('?') { 1 } else { digits };
        let number = after[..digits].parse::<usize>().ok();
        let reason = match (refs, number) {
            _ if taken == 0 => None,
            (LineRefs::Minimized, Some(n)) if (1..=lines).contains(&n) => None,
            (LineRefs::Minimized, Some(n)) if n > lines => Some("not a line of minimized.py"),
            (LineRefs::Minimized, _) => Some("none: a statement without a source line, such as one the pass made"),
            (LineRefs::Original, _) => Some("left out: the check located it in the program before minimization"),
        };
        match reason {
            Some(reason) => {
                let _ = write!(out, "line ({reason})");
                rest = &after[taken..];
            }
            None => {
                out.push_str(WORD);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A filetest that runs the failing oracle and passes once the bug is fixed.
pub fn regression_case(data: &ReportData, minimized: &str) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "# test: fuzz");
    let _ = writeln!(text, "# oracles: {}", data.oracle);
    if data.seed != 0 {
        let _ = writeln!(text, "# seed: {}", data.seed);
    }
    let _ = writeln!(text, "# desc: found by the fuzzers as {} ({})", data.signature, data.origin);
    text.push('\n');
    text.push_str(minimized);
    text
}

/// Sizes as one line: `12 statements, 3 conditions`.
pub fn describe(size: &Size) -> String {
    format!("{} statements, {} expressions, extent sum {}", size.statements, size.expressions, size.extent_sum)
}

#[cfg(test)]
mod tests {
    use super::{real_lines, LineRefs};

    const PROGRAM: &str = "a\nb\nc\n";

    #[test]
    fn a_report_names_only_lines_of_the_program_it_prints() {
        let fault = "line 2: read of B[0] (group 0 of queue 0, committed at line 0); line ?: x; line 9: y";
        let shown = real_lines(fault, LineRefs::Minimized, PROGRAM);
        assert!(shown.starts_with("line 2: read of B[0]"), "{shown}");
        assert!(shown.contains("committed at line (none: a statement without a source line"), "{shown}");
        assert!(shown.contains("line (none: a statement without a source line, such as one the pass made): x"));
        assert!(shown.contains("line (not a line of minimized.py): y"), "{shown}");
        let original = real_lines("line 2: z, in line of fire", LineRefs::Original, PROGRAM);
        assert!(original.starts_with("line (left out: "), "{original}");
        assert!(original.ends_with("in line of fire"), "{original}");
    }
}
