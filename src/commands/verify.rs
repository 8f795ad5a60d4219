//! `tirproof verify FILE...`: prove every async wait of every function safe and tight.
//!
//! Every file is checked first (an ill-formed program gets its diagnostics and exit 1, never a
//! verdict). The summary lines add up: each wait has exactly one verdict, counted on the waits
//! line, and what is not about one wait (groups in flight at the end, races, data flow) is
//! counted on its own line. SMT-LIB dumps are named after the input's path, the function, the
//! query and its kind, so two inputs never share a name and a tightness probe never looks like
//! a safety check.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use tirproof::duration::parse_duration;
use tirproof::outln;
use tirproof::source::Source;
use tirproof_verify::waits::{
    plural, verify_func, Dump, DumpKind, DumpOutcome, FuncReport, Options, Tally, WaitVerdict,
};

/// The version of `verify --json`'s layout: `{schema_version, summary: {all_proved, files,
/// tally}, functions: [{file, seconds, tally, report}]}`. Raised when a field changes meaning
/// or goes away (adding one does not).
const JSON_SCHEMA_VERSION: u32 = 1;

#[derive(clap::Args)]
pub struct Args {
    /// TVMScript files or directories (searched for .py files); `-` is standard input.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Only this function (a usage error when no input has it).
    #[arg(long)]
    func: Option<String>,
    /// Print the results as JSON.
    #[arg(long)]
    json: bool,
    /// Write every query as an SMT-LIB file into this directory.
    #[arg(long, value_name = "DIR")]
    smtlib: Option<PathBuf>,
    /// Time limit of each solver check (seconds, or with a unit: `500ms`, `1m`).
    #[arg(long, default_value = "10", value_parser = parse_duration)]
    timeout: Duration,
    /// Time budget of each function (`90s`, `10m`): once spent, the checks still to run are
    /// not run and what they would decide is unknown ("budget spent"), never refuted.
    #[arg(long, default_value = "5m", value_parser = parse_duration)]
    budget: Duration,
    /// Prove safety only: do not measure how over-synchronized proved waits are (fewer
    /// queries; proved waits are reported "proved (tightness not measured)").
    #[arg(long)]
    no_tightness: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let files = super::input_files(&args.paths)?;
    let options = Options {
        timeout: args.timeout.max(Duration::from_millis(1)),
        dump_smtlib: args.smtlib.is_some(),
        tightness: !args.no_tightness,
        budget: Some(args.budget),
    };
    let mut dumps = args.smtlib.as_deref().map(DumpDir::new).transpose()?;
    let mut all_proved = true;
    let mut json = Vec::new();
    let mut total = Tally::default();
    let mut notes = BTreeSet::new();
    let mut functions_seen = BTreeSet::new();
    for file in &files {
        let src = Source::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        let module = match src.parse_and_check() {
            Ok(m) => m,
            Err(diags) => {
                eprintln!("{}", src.render(&diags));
                all_proved = false;
                continue;
            }
        };
        functions_seen.extend(module.functions.iter().map(|f| f.name.clone()));
        for func in module.functions.iter().filter(|f| args.func.as_ref().is_none_or(|n| *n == f.name)) {
            let start = Instant::now();
            let (report, queries) = verify_func(func, &options);
            let elapsed = start.elapsed();
            if let Some(dir) = &mut dumps {
                dir.write(&src.name, &report, &queries)?;
            }
            all_proved &= report.all_proved();
            let tally = Tally::of(&report);
            total.add(&tally);
            notes.extend(report.notes.iter().filter(|n| !is_located(n)).cloned());
            if args.json {
                json.push(serde_json::json!({
                    "file": src.name,
                    "seconds": elapsed.as_secs_f64(),
                    "tally": tally,
                    "report": report,
                }));
            } else {
                print_report(&src.name, &report, &tally, elapsed)?;
            }
        }
    }
    if let Some(name) = &args.func {
        // With no program read, the diagnostics (exit 1) already say what is wrong.
        if !functions_seen.is_empty() && !functions_seen.contains(name) {
            let known: Vec<&str> = functions_seen.iter().map(String::as_str).collect();
            bail!("no function `{name}` in the inputs (their functions: {})", known.join(", "));
        }
    }
    if args.json {
        let document = serde_json::json!({
            "schema_version": JSON_SCHEMA_VERSION,
            "summary": { "all_proved": all_proved, "files": files.len(), "tally": total },
            "functions": json,
        });
        outln!("{}", serde_json::to_string_pretty(&document)?)?;
    } else {
        if total.functions > 1 {
            outln!("total: {} in {}:", plural(total.functions, "function"), plural(files.len(), "file"))?;
            print_tally(&total)?;
        }
        for note in &notes {
            outln!("note: {note}")?;
        }
    }
    Ok(if all_proved { ExitCode::SUCCESS } else { super::input_problems() })
}

/// A note about one place of one function (`line 10: ...`), printed with that function; the
/// others say what a run checks and are printed once, at its end.
fn is_located(note: &str) -> bool {
    note.starts_with("line ")
}

fn print_report(file: &str, report: &FuncReport, tally: &Tally, elapsed: Duration) -> anyhow::Result<()> {
    let queries = plural(report.queries, "query");
    outln!("{file}: function {} ({queries}, {:.0} ms)", report.name, elapsed.as_secs_f64() * 1e3)?;
    for w in &report.waits {
        outln!("  {w}")?;
        if let WaitVerdict::Refuted { values, .. } = &w.verdict {
            if !values.is_empty() {
                outln!("    model: {values}")?;
            }
        }
    }
    for f in &report.findings {
        let at = if f.line > 0 { format!("line {}: ", f.line) } else { String::new() };
        outln!("  refuted: {at}{}", f.message)?;
    }
    for u in &report.unknown {
        outln!("  unknown: {u}")?;
    }
    for note in report.notes.iter().filter(|n| is_located(n)) {
        outln!("  note: {note}")?;
    }
    print_tally(tally)
}

/// `1 wait`, `2 waits`, `1 query`, `2 queries`.
/// The waits line, and the function-level line when there are such findings.
fn print_tally(tally: &Tally) -> anyhow::Result<()> {
    outln!("  {}", tally.waits_line())?;
    if let Some(findings) = tally.findings_line() {
        outln!("  {findings}")?;
    }
    Ok(())
}

/// The directory of SMT-LIB dumps, and the names given out so far (each dump gets its own).
struct DumpDir {
    dir: PathBuf,
    used: HashSet<String>,
}

impl DumpDir {
    fn new(dir: &Path) -> anyhow::Result<DumpDir> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(DumpDir { dir: dir.to_path_buf(), used: HashSet::new() })
    }

    /// Writes the dumps of `report`'s function of input `file`, one file per check, each named
    /// and headed with the input, the function, the query, what it asked (the program as
    /// written, or a tightness probe of one wait) and what the solver answered.
    fn write(&mut self, file: &str, report: &FuncReport, dumps: &[Dump]) -> anyhow::Result<()> {
        let input = file_label(file);
        let func = report.name.as_str();
        for (k, dump) in dumps.iter().enumerate() {
            let query = dump.name.strip_prefix(func).and_then(|q| q.strip_prefix('_')).unwrap_or(&dump.name);
            let (kind, wait) = match dump.kind {
                DumpKind::AsWritten => ("check", String::new()),
                DumpKind::TightnessProbe { line, .. } => ("tightness_probe", format!("; wait: line {line}\n")),
            };
            let answer = match (dump.kind, dump.outcome) {
                (DumpKind::AsWritten, DumpOutcome::Failed) => "refuted",
                (DumpKind::AsWritten, DumpOutcome::Held) => "held",
                (DumpKind::TightnessProbe { .. }, DumpOutcome::Failed) => "unsafe",
                (DumpKind::TightnessProbe { .. }, DumpOutcome::Held) => "safe",
                (_, DumpOutcome::Unknown) => "unknown",
            };
            let stem = format!("{input}__{}__{}_{k:03}_{kind}_{answer}", safe(func), safe(query));
            let mut unique = stem.clone();
            let mut again = 1;
            while !self.used.insert(unique.clone()) {
                again += 1;
                unique = format!("{stem}_{again}");
            }
            let header = format!(
                "; input: {file}\n; function: {func}\n; query: {query} (check {k} of the function)\n{wait}; kind: {}\n; answer: {}\n",
                dump.kind, dump.outcome
            );
            let path = self.dir.join(format!("{unique}.smt2"));
            tirproof::output::write_file(&path, format!("{header}{}", dump.script).as_bytes())?;
        }
        Ok(())
    }
}

/// A name for an input's dumps that tells inputs with the same file name apart: its whole
/// path, with every character but letters and digits replaced.
fn file_label(file: &str) -> String {
    let path = Path::new(file);
    let without_ext = path.with_extension("");
    safe(without_ext.to_string_lossy().trim_start_matches(['.', '/']))
}

fn safe(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_with_one_file_name_get_different_labels() {
        assert_ne!(file_label("a/x.py"), file_label("b/x.py"));
        assert_eq!(file_label("./corpus/tvm/seed.py"), "corpus_tvm_seed");
    }
}
