//! Counterexample reports: a directory per minimized failure with `REPORT.md` (for people),
//! `report.json` (for tools), the original and minimized programs, the pass's output, and a
//! ready corpus file for `corpus/regressions/`.
//!
//! Every file is written atomically (a temporary file renamed into place), and the directory
//! itself is assembled under a temporary name and renamed last, so a reader (or a campaign
//! killed at any moment) never sees a half-written report.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tirproof_ir::print::print_module;

use crate::oracle::{Failure, OracleName, Signature};
use crate::reduce::{Reduction, Size};

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
    /// The one command that shows the failure again, run from the report's directory.
    pub reproduce: String,
    /// Where the program came from (a campaign's seed and index, or an input file's name).
    pub origin: String,
    /// The chain's seed the failure needs (`--seed`, `# seed:`).
    pub seed: u64,
}

/// The files a report consists of.
pub const FILES: [&str; 6] = ["REPORT.md", "report.json", "original.py", "minimized.py", "output.py", "regression.py"];

/// Writes the report of `reduction` into the directory `dir` (created; an existing report
/// there is replaced as a whole).
pub fn write_report(dir: &Path, reduction: &Reduction, origin: &str, planted_bug: bool) -> io::Result<ReportData> {
    let original = print_module(&reduction.original);
    let minimized = print_module(&reduction.reduced);
    let data = report_data(reduction, origin, planted_bug, &original, &minimized);
    let output =
        reduction.result.output.as_ref().map(print_module).unwrap_or_else(|| "# the pass produced no output\n".into());
    let json = serde_json::to_string_pretty(&data).map_err(io::Error::other)?;
    let files: [(&str, String); 6] = [
        ("REPORT.md", markdown(&data, &minimized, &output)),
        ("report.json", json + "\n"),
        ("original.py", original),
        ("minimized.py", minimized.clone()),
        ("output.py", output),
        ("regression.py", regression_case(&data, &minimized)),
    ];
    publish(dir, files.iter().map(|(name, text)| (*name, text.as_str())))?;
    Ok(data)
}

/// The report of a failure on text that does not parse into a program (a parser panic): the
/// text as found, unminimized.
pub fn write_text_report(dir: &Path, failure: &Failure, text: &str, origin: &str) -> io::Result<()> {
    let signature = failure.signature();
    let data = serde_json::json!({
        "signature": signature,
        "oracle": failure.oracle.name(),
        "message": failure.message,
        "counterexample": failure.counterexample,
        "origin": origin,
        "reproduce": "tirproof check input.py",
    });
    let md = format!(
        "# {signature}\n\n{}\n\nFound in: {origin}\n\n## Reproduce\n\n```sh\ntirproof check input.py\n```\n\n## Input (`input.py`)\n\n```python\n{text}\n```\n",
        failure.message
    );
    let json = serde_json::to_string_pretty(&data).map_err(io::Error::other)? + "\n";
    publish(dir, [("REPORT.md", md.as_str()), ("report.json", json.as_str()), ("input.py", text)])
}

/// Writes `files` into a staging directory beside `dir`, then swaps it in for `dir`.
fn publish<'a>(dir: &Path, files: impl IntoIterator<Item = (&'a str, &'a str)>) -> io::Result<()> {
    let staging = staging_dir(dir)?;
    for (name, text) in files {
        std::fs::write(staging.join(name), text)?;
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::rename(&staging, dir)
}

/// Writes through a temporary file in the same directory, then renames it over `path`, so a
/// reader never sees a half-written file and an interrupted write loses nothing.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

fn staging_dir(dir: &Path) -> io::Result<PathBuf> {
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "report".into());
    let staging = parent.join(format!(".{name}.tmp{}", std::process::id()));
    if staging.exists() {
        std::fs::remove_dir_all(&staging)?;
    }
    std::fs::create_dir_all(&staging)?;
    Ok(staging)
}

fn report_data(reduction: &Reduction, origin: &str, planted_bug: bool, original: &str, minimized: &str) -> ReportData {
    let failure = &reduction.failure;
    let mut flag = if planted_bug { " --planted-bug".to_string() } else { String::new() };
    if reduction.seed != 0 {
        flag.push_str(&format!(" --seed {}", reduction.seed));
    }
    ReportData {
        signature: failure.signature(),
        oracle: failure.oracle,
        message: failure.message.clone(),
        counterexample: failure.counterexample.clone(),
        size_before: reduction.original_size,
        size_after: reduction.reduced_size,
        text_lines_before: original.lines().count(),
        text_lines_after: minimized.lines().count(),
        steps: reduction.steps.clone(),
        attempts: reduction.attempts,
        reduce_seconds: reduction.elapsed.as_secs_f64(),
        budget_reached: reduction.budget_reached,
        reproduce: format!("tirproof oracles minimized.py --oracle {}{flag}", failure.oracle),
        origin: origin.to_string(),
        seed: reduction.seed,
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
    let budget = if data.budget_reached { " (time budget reached before a fixed point)" } else { "" };
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
    let _ = writeln!(md, "Lines in interpreter faults and verifier messages refer to the program they ran on: the pipeline pass keeps the input's lines on the statements it copies, so they point into `minimized.py`.\n");
    let _ = writeln!(md, "## Minimized program (`minimized.py`)\n\n```python\n{}```\n", minimized);
    let _ = writeln!(md, "## Pipeline pass output (`output.py`)\n\n```python\n{}```\n", output);
    let _ = writeln!(
        md,
        "## Regression test\n\nCopy `regression.py` into `corpus/regressions/`: it passes once the bug is fixed."
    );
    md
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
