//! `tirproof verify FILE...`: prove every async wait of every function safe and tight.
//!
//! Every file is checked first (an ill-formed program gets its diagnostics and exit 4, never a
//! verdict). Every verdict is a finding of the command's report (`tirproof::findings`): a
//! refuted wait or obligation exits 1, an undecided one 3, and an over-synchronized wait is a
//! warning, or with `--deny over-synchronized` an error that exits 1. The summary lines add up: each wait has exactly one verdict, counted on the waits
//! line, and what is not about one wait (groups in flight at the end, races, data flow) is
//! counted on its own line. SMT-LIB dumps are named after the input's path, the function, the
//! query and its kind, so two inputs never share a name and a tightness probe never looks like
//! a safety check. `--fix -o OUT` writes the program with its constant counts corrected
//! (`fix`), and re-verifies what it wrote.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use std::hash::Hasher;

mod fix;

use anyhow::bail;
use tirproof::duration::{parse_duration, parse_time_limit};
use tirproof::findings::{ExitStatus, FileStatus, Finding, FormatArgs, Location, Report, Rule};
use tirproof::outln;
use tirproof::source::Source;
use tirproof_fuzz::publish::{publish, Layout};
use tirproof_fuzz::witness::{self, Witness};
use tirproof_ir::pipeline_annotations::is_pipelined;
use tirproof_ir::print::print_module;
use tirproof_ir::visit::{walk_stmt, Visitor};
use tirproof_ir::{IRModule, PrimFunc, Stmt, StmtKind};
use tirproof_passes::PassManager;
use tirproof_verify::waits::{
    plural, verify_func, Dump, DumpKind, DumpOutcome, EarliestViolation, FuncReport, Options, Tally, WaitVerdict,
};

#[derive(clap::Args)]
pub struct Args {
    /// TVMScript files, Triton TTGIR (.ttgir) or MLIR nvgpu (.mlir) files, or directories (searched for all three); `-` is standard input (TVMScript).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Only this function (a usage error when no input has it).
    #[arg(long)]
    func: Option<String>,
    #[command(flatten)]
    format: FormatArgs,
    /// Make over-synchronized waits errors that refute (exit 1): for code whose counts must
    /// be tight.
    #[arg(long, value_enum, value_name = "LINT")]
    deny: Vec<Lint>,
    /// Write every query as an SMT-LIB file into this directory.
    #[arg(long, value_name = "DIR")]
    smtlib: Option<PathBuf>,
    /// Time limit of each solver check (seconds, or with a unit: `500ms`, `1m`).
    #[arg(long, default_value = "10", value_parser = parse_time_limit)]
    timeout: Duration,
    /// Time budget of each function (`90s`, `10m`): once spent, the checks still to run are
    /// not run and what they would decide is unknown ("budget spent"), never refuted.
    #[arg(long, default_value = "5m", value_parser = parse_duration)]
    budget: Duration,
    /// Prove safety only: do not measure how over-synchronized proved waits are (fewer
    /// queries; proved waits are reported "proved (tightness not measured)").
    #[arg(long)]
    no_tightness: bool,
    /// Write the inputs of every refutation for some memory contents (a run that faults) as
    /// .npy files into this directory, and print the `tirproof run` command that replays it.
    #[arg(long, value_name = "DIR", conflicts_with = "no_witness")]
    witnesses: Option<PathBuf>,
    /// Do not run a function the solver leaves undecided to look for memory contents under
    /// which it faults (the interpreter's witnesses).
    #[arg(long)]
    no_witness: bool,
    /// Run these passes first (comma-separated, as `tirproof opt --passes`) and verify what
    /// they make: after `inject-software-pipeline`, data flow is checked too, against the
    /// pass's provenance (which printed text does not carry).
    #[arg(long, value_name = "PASSES", value_delimiter = ',')]
    after: Vec<String>,
    /// Write the program with every constant wait count replaced by the largest count proved
    /// safe (refuted waits lowered, over-synchronized ones raised to their tight count) to
    /// `-o OUT`, and verify what was written: exit 0 only when every wait of it is proved.
    #[arg(long, requires = "output", conflicts_with_all = ["after", "no_tightness"])]
    fix: bool,
    /// Where `--fix` writes the corrected program (never one of the inputs).
    #[arg(short = 'o', long, value_name = "OUT", requires = "fix")]
    output: Option<PathBuf>,
}

/// What `--deny` makes an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Lint {
    /// A wait proved safe with more groups in flight than its count allows.
    OverSynchronized,
}

/// What `verify` says of a function without waits that has software-pipeline annotations.
const PIPELINE_NOT_RUN: &str = "its loops carry software-pipeline annotations: the pipeline pass makes the waits; verify its result with `tirproof verify --after inject-software-pipeline FILE` (data flow checked too) or `tirproof opt --passes inject-software-pipeline FILE | tirproof verify -`";

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let files = super::input_files(&args.paths)?;
    let options = Options {
        timeout: args.timeout.max(Duration::from_millis(1)),
        dump_smtlib: args.smtlib.is_some(),
        tightness: !args.no_tightness,
        budget: Some(args.budget),
    };
    let mut dumps = args.smtlib.as_ref().map(|_| Dumps::default());
    let mut all_proved = true;
    let mut json = Vec::new();
    let mut found = Report::new("verify");
    let deny_over_synchronized = args.deny.contains(&Lint::OverSynchronized);
    let text = args.format.is_text();
    let mut total = Tally::default();
    let mut notes = BTreeSet::new();
    let mut functions_seen = BTreeSet::new();
    let mut witness_files = WitnessFiles::default();
    let passes = if args.after.is_empty() { None } else { Some(PassManager::from_names(&args.after)?) };
    if let Some(output) = &args.output {
        let [file] = files.as_slice() else {
            bail!("--fix corrects one program: name one FILE (got {})", plural(files.len(), "file"));
        };
        tirproof::output::refuse_inputs(output, &[file])?;
    }
    let mut fixing: Option<Fixing> = None;
    for file in &files {
        let src = match super::read_source(file) {
            Ok(src) => src,
            Err(error) => {
                found.unreadable(&error);
                all_proved = false;
                continue;
            }
        };
        let module = match src.parse_and_check() {
            Ok(mut m) => match passes.as_ref().map(|passes| passes.run(&mut m)) {
                Some(Err(error)) => {
                    super::pass_failed(&mut found, &src.name, &src.text, &error);
                    all_proved = false;
                    continue;
                }
                _ => m,
            },
            Err(diags) => {
                eprintln!("{}", src.render(&diags));
                found.reject(&src.name, &diags);
                all_proved = false;
                continue;
            }
        };
        found.file(&src.name, FileStatus::Verified);
        if args.fix {
            if src.dialect.is_some() {
                bail!(
                    "--fix writes TVMScript, and {} is foreign IR: correct its counts in the compiler that made it",
                    src.name
                );
            }
            fixing = Some(Fixing { input: src.name.clone(), module: module.clone(), changes: Vec::new() });
        }
        functions_seen.extend(module.functions.iter().map(|f| f.name.clone()));
        for func in module.functions.iter().filter(|f| args.func.as_ref().is_none_or(|n| *n == f.name)) {
            let start = Instant::now();
            let (report, queries, witness) = if args.no_witness {
                let (report, queries) = verify_func(func, &options);
                (report, queries, None)
            } else {
                witness::verify_func(func, &options, witness::Limits::default())
            };
            let elapsed = start.elapsed();
            let replay = match (&args.witnesses, &witness) {
                (Some(dir), Some(witness)) => Some(witness_files.add(dir, &src.name, &func.name, witness)?),
                _ => None,
            };
            if let Some(dumps) = &mut dumps {
                dumps.add(&src.name, &report, &queries);
            }
            if let Some(fixing) = &mut fixing {
                fixing.fix(&func.name, &report);
            }
            all_proved &= report.all_proved();
            let tally = Tally::of(&report);
            total.add(&tally);
            notes.extend(report.notes.iter().filter(|n| !is_located(n)).cloned());
            add_findings(&mut found, &src, &report, deny_over_synchronized);
            if !text {
                json.push(serde_json::json!({
                    "file": src.name,
                    "seconds": elapsed.as_secs_f64(),
                    "tally": tally,
                    "report": report,
                }));
            } else {
                let pipelined = func_is_pipelined(func);
                print_report(&src.name, &report, &tally, elapsed, replay.as_deref(), pipelined)?;
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
    let mut extra = serde_json::Map::new();
    extra.insert(
        "summary".into(),
        serde_json::json!({ "all_proved": all_proved, "files": files.len(), "tally": total }),
    );
    extra.insert("functions".into(), serde_json::Value::Array(json));
    let fixed = match (&fixing, &args.output) {
        (Some(fixing), Some(output)) => {
            let fixed = fixing.write(output, args, &options, deny_over_synchronized)?;
            extra.insert("fix".into(), fixed.json.clone());
            Some(fixed)
        }
        (None, Some(_)) => {
            eprintln!("nothing written: the program was not verified");
            None
        }
        _ => None,
    };
    let code = found.finish_with(args.format.format(), extra)?;
    if text {
        if total.functions > 1 {
            outln!("total: {} in {}:", plural(total.functions, "function"), plural(files.len(), "file"))?;
            print_tally(&total)?;
        }
        for note in &notes {
            outln!("note: {note}")?;
        }
        if let Some(fixed) = &fixed {
            for line in &fixed.lines {
                outln!("{line}")?;
            }
        }
    }
    // The verdicts are out; a failure to write the dumps is reported after them.
    if let (Some(dir), Some(dumps)) = (&args.smtlib, &dumps) {
        let files = dumps.files.iter().map(|(name, text)| (name.as_str(), text.as_bytes()));
        if let Err(error) = publish(dir, SMTLIB_LAYOUT, files) {
            eprintln!("error: the SMT-LIB dumps were not written: {error}");
            return Ok(ExitCode::from(2));
        }
    }
    if let Some(dir) = &args.witnesses {
        let files = witness_files.files.iter().map(|(name, bytes)| (name.as_str(), bytes.as_slice()));
        if let Err(error) = publish(dir, WITNESS_LAYOUT, files) {
            eprintln!("error: the witnesses' inputs were not written: {error}");
            return Ok(ExitCode::from(2));
        }
    }
    Ok(fixed.map_or(code, |fixed| fixed.status.into()))
}

/// The program `--fix` corrects, and what it did to each function's waits so far.
struct Fixing {
    /// The input's name, which the lines of the changes refer to.
    input: String,
    module: IRModule,
    changes: Vec<(String, Vec<fix::Change>)>,
}

/// What `--fix` wrote and found: the lines it prints, its JSON, and the exit status of the
/// program written.
struct Fixed {
    lines: Vec<String>,
    json: serde_json::Value,
    status: ExitStatus,
}

impl Fixing {
    /// Corrects the waits of function `name` as its `report` decides.
    fn fix(&mut self, name: &str, report: &FuncReport) {
        if let Some(func) = self.module.functions.iter_mut().find(|f| f.name == name) {
            self.changes.push((name.to_owned(), fix::fix_func(func, report)));
        }
    }

    /// Writes the corrected program to `output` and verifies what was written.
    fn write(&self, output: &Path, args: &Args, options: &Options, deny: bool) -> anyhow::Result<Fixed> {
        let text = print_module(&self.module);
        tirproof::output::write_file(output, text.as_bytes())?;
        let written = Source::new(output.display().to_string(), text);
        let module = match written.parse_and_check() {
            Ok(module) => module,
            Err(diags) => bail!("the corrected program does not read back:\n{}", written.render(&diags)),
        };
        let mut lines = vec![format!("fix: wrote {}", written.name)];
        let mut changes = Vec::new();
        for (func, func_changes) in &self.changes {
            for change in func_changes {
                let (line, entry) = describe(&self.input, func, change);
                lines.extend(line);
                changes.extend(entry);
            }
        }
        let mut found = Report::new("verify");
        let mut remaining = Vec::new();
        for func in module.functions.iter().filter(|f| args.func.as_ref().is_none_or(|n| *n == f.name)) {
            let (report, _) = verify_func(func, options);
            add_findings(&mut found, &written, &report, deny);
            let unproved = report.waits.iter().filter(|w| !w.verdict.is_proved());
            remaining.extend(
                unproved
                    .map(|w| format!("function {}: {}", func.name, w.to_string().lines().next().unwrap_or_default())),
            );
            if !report.all_proved() && report.waits.iter().all(|w| w.verdict.is_proved()) {
                remaining.push(format!("function {}: an obligation beyond its waits is not proved", func.name));
            }
        }
        let status = found.status();
        if status == ExitStatus::Clean {
            lines.push(format!("fixed: every wait of {} is proved", written.name));
        } else {
            lines.push(format!("not fixed: {} of {} not proved:", plural(remaining.len(), "finding"), written.name));
            lines.extend(remaining.iter().map(|r| format!("  {r}")));
        }
        let json = serde_json::json!({
            "output": written.name,
            "changes": changes,
            "fixed": status == ExitStatus::Clean,
            "remaining": remaining,
        });
        Ok(Fixed { lines, json, status })
    }
}

/// The line `--fix` prints about `change` of function `func` of `input` (none for a wait
/// kept), and its JSON entry.
fn describe(input: &str, func: &str, change: &fix::Change) -> (Option<String>, Option<serde_json::Value>) {
    let at = format!("function {func}: {} at {input}:{}", change.index, change.line);
    let written = &change.written;
    match &change.decision {
        fix::Decision::Keep => (None, None),
        fix::Decision::Set { to } => (
            Some(format!("  {at}: in-flight {written} -> {to}")),
            Some(
                serde_json::json!({ "function": func, "index": change.index, "line": change.line, "from": written, "to": to }),
            ),
        ),
        fix::Decision::Leave(why) => (
            Some(format!("  {at}: left as written (in-flight {written}): {why}")),
            Some(
                serde_json::json!({ "function": func, "index": change.index, "line": change.line, "from": written, "left": why.to_string() }),
            ),
        ),
    }
}

/// The findings of one function's report: a finding per wait verdict (over-synchronized ones
/// errors under `--deny over-synchronized`), per refuted obligation and per undecided one.
fn add_findings(found: &mut Report, src: &Source, report: &FuncReport, deny_over_synchronized: bool) {
    let func = &report.name;
    for wait in &report.waits {
        let rule = match &wait.verdict {
            WaitVerdict::ProvedTight | WaitVerdict::Proved => Rule::WaitProved,
            WaitVerdict::ProvedOverSynchronized { .. } => Rule::WaitOverSynchronized,
            WaitVerdict::Refuted { .. } => Rule::WaitRefuted,
            WaitVerdict::Unknown { .. } | WaitVerdict::ProvedBounded { .. } => Rule::WaitUnknown,
        };
        let finding =
            Finding::new(rule, Location::line_of(&src.name, &src.text, wait.line), format!("function {func}: {wait}"));
        found.add(if rule == Rule::WaitOverSynchronized && deny_over_synchronized {
            finding.denied()
        } else {
            finding
        });
    }
    for finding in &report.findings {
        let location = Location::line_of(&src.name, &src.text, finding.line);
        found.add(Finding::new(Rule::FunctionRefuted, location, format!("function {func}: {}", finding.message)));
    }
    for undecided in &report.unknown {
        let message = format!("function {func}: unknown: {undecided}");
        found.add(Finding::new(Rule::FunctionUnknown, Location::file(&src.name), message));
    }
}

/// What `--witnesses DIR` holds: `.npy` inputs.
const WITNESS_LAYOUT: Layout = Layout { what: "witness inputs", owns: |name| name.ends_with(".npy") };

/// The input files of the witnesses of a run, written out at its end.
#[derive(Default)]
struct WitnessFiles {
    files: Vec<(String, Vec<u8>)>,
}

impl WitnessFiles {
    /// Adds the inputs of `witness` (of function `func` of input `file`), named
    /// `STEM.FUNC.BUFFER.npy`, and answers the command that replays it.
    fn add(&mut self, dir: &Path, file: &str, func: &str, witness: &Witness) -> anyhow::Result<String> {
        let stem: String = Path::new(file)
            .file_stem()
            .map_or_else(|| "stdin".to_string(), |s| s.to_string_lossy().into_owned())
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
            .collect();
        let mut command = format!("tirproof run {file} --func {func}");
        if let Some(seed) = witness.thread_order_seed {
            command.push_str(&format!(" --seed {seed}"));
        }
        let inputs = witness.inputs();
        for (name, value) in &inputs.scalars {
            command.push_str(&format!(" --arg {name}={value}"));
        }
        for (name, tensor) in &inputs.buffers {
            let file_name = format!("{stem}.{func}.{name}.npy");
            self.files.push((file_name.clone(), tirproof::npy::encode(tensor)?));
            command.push_str(&format!(" --input {name}={}", dir.join(file_name).display()));
        }
        Ok(command)
    }
}

/// The `tirproof run` command that meets `first` (under the lazy schedule, the interpreter's
/// default, a run faults at the first access that sees a pending write).
fn replay_command(file: &str, func: &str, first: &EarliestViolation) -> String {
    let mut command = format!("tirproof run {file} --func {func}");
    for (name, value) in &first.params {
        command.push_str(&format!(" --arg {name}={value}"));
    }
    command
}

/// Whether a loop of `func` carries software-pipeline annotations.
fn func_is_pipelined(func: &PrimFunc) -> bool {
    struct Finds(bool);
    impl Visitor for Finds {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            if let StmtKind::For(f) = &stmt.kind {
                self.0 |= is_pipelined(&f.annotations);
            }
            walk_stmt(self, stmt);
        }
    }
    let mut finds = Finds(false);
    finds.visit_stmt(&func.body);
    finds.0
}

/// A note about one place of one function (`line 10: ...`), printed with that function; the
/// others say what a run checks and are printed once, at its end.
fn is_located(note: &str) -> bool {
    note.starts_with("line ")
}

fn print_report(
    file: &str,
    report: &FuncReport,
    tally: &Tally,
    elapsed: Duration,
    replay: Option<&str>,
    pipelined: bool,
) -> anyhow::Result<()> {
    let queries = plural(report.queries, "query");
    outln!("{file}: function {} ({queries}, {:.0} ms)", report.name, elapsed.as_secs_f64() * 1e3)?;
    if report.waits.is_empty() {
        outln!("  no waits: this function has no async wait to verify")?;
        if pipelined {
            outln!("    help: {PIPELINE_NOT_RUN}")?;
        }
    }
    for w in &report.waits {
        outln!("  {w}")?;
        if let WaitVerdict::Refuted { values, .. } = &w.verdict {
            if !values.is_empty() {
                outln!("    model: {values}")?;
            }
        }
    }
    if let Some(first) = &report.earliest_violation {
        let at = first.at.as_ref().map_or(String::new(), |at| format!(", {at}"));
        outln!(
            "  first violation a run meets: line {}{at}; replay: {}",
            first.line,
            replay_command(file, &report.name, first)
        )?;
    }
    for f in &report.findings {
        let at = if f.line > 0 { format!("line {}: ", f.line) } else { String::new() };
        outln!("  refuted: {at}{}", f.message)?;
        if let Some(witness) = &f.witness {
            if !witness.scalars.is_empty() {
                outln!("    with {}", witness.scalars.join(", "))?;
            }
            for contents in &witness.contents {
                outln!("    memory: {contents}")?;
            }
            match replay {
                Some(command) => outln!("    replay: {command}")?,
                None => outln!("    (`--witnesses DIR` writes these inputs and the command that replays them)")?,
            }
        }
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

/// What `--smtlib DIR` holds: `.smt2` dumps.
const SMTLIB_LAYOUT: Layout = Layout { what: "SMT-LIB dumps", owns: |name| name.ends_with(".smt2") };

/// The longest dump file name, in bytes: well under the 255 bytes file systems allow.
const MAX_DUMP_NAME: usize = 160;

/// The SMT-LIB dumps of a run, named and written out at its end, and the names given out so
/// far (each dump gets its own).
#[derive(Default)]
struct Dumps {
    files: Vec<(String, String)>,
    used: HashSet<String>,
}

impl Dumps {
    /// Adds the dumps of `report`'s function of input `file`, one file per check, each named
    /// and headed with the input, the function, the query, what it asked (the program as
    /// written, or a tightness probe of one wait) and what the solver answered.
    fn add(&mut self, file: &str, report: &FuncReport, dumps: &[Dump]) {
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
            let stem = bounded(&format!("{input}__{}__{}_{k:03}_{kind}_{answer}", safe(func), safe(query)));
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
            self.files.push((format!("{unique}.smt2"), format!("{header}{}", dump.script)));
        }
    }
}

/// `stem` when it is short enough for a file name; otherwise its end (the file, function,
/// query and answer) after a hash of all of it, so that long names stay apart and stable.
fn bounded(stem: &str) -> String {
    if stem.len() <= MAX_DUMP_NAME {
        return stem.to_owned();
    }
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(stem.as_bytes());
    let hash = format!("{:016x}_", hasher.finish());
    // The stem is ASCII (see `safe`), so any byte offset is a character boundary.
    let tail = &stem[stem.len() - (MAX_DUMP_NAME - hash.len())..];
    format!("{hash}{tail}")
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
    fn long_dump_names_are_bounded_distinct_and_stable() {
        let long = "a".repeat(300);
        let (one, other) = (bounded(&format!("x{long}")), bounded(&format!("y{long}")));
        assert_eq!(one.len(), MAX_DUMP_NAME);
        assert_ne!(one, other);
        assert_eq!(one, bounded(&format!("x{long}")));
        assert_eq!(bounded("short"), "short");
    }

    #[test]
    fn inputs_with_one_file_name_get_different_labels() {
        assert_ne!(file_label("a/x.py"), file_label("b/x.py"));
        assert_eq!(file_label("./corpus/tvm/seed.py"), "corpus_tvm_seed");
    }
}
