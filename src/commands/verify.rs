//! `tirproof verify FILE...`: prove every async wait of every function safe and tight.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use tirproof::source::{expand_paths, Source};
use tirproof_verify::waits::{verify_func, FuncReport, Options, WaitVerdict};

#[derive(clap::Args)]
pub struct Args {
    /// TVMScript files or directories (searched for .py files).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Only this function.
    #[arg(long)]
    func: Option<String>,
    /// Print the results as JSON.
    #[arg(long)]
    json: bool,
    /// Write every query as an SMT-LIB file into this directory.
    #[arg(long, value_name = "DIR")]
    smtlib: Option<PathBuf>,
    /// Time limit of each solver check, in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Prove safety only: do not measure how over-synchronized proved waits are (fewer
    /// queries; proved waits are reported "proved (tightness not measured)").
    #[arg(long)]
    no_tightness: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let files = expand_paths(&args.paths).context("cannot list the inputs")?;
    let options = Options {
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
        dump_smtlib: args.smtlib.is_some(),
        tightness: !args.no_tightness,
    };
    let mut all_proved = true;
    let mut json = Vec::new();
    for file in &files {
        let src = Source::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        let module = match src.parse() {
            Ok(m) => m,
            Err(diags) => {
                eprintln!("{}", src.render(&diags));
                return Ok(ExitCode::from(2));
            }
        };
        for func in module.functions.iter().filter(|f| args.func.as_ref().is_none_or(|n| *n == f.name)) {
            let start = Instant::now();
            let (report, dumps) = verify_func(func, &options);
            let elapsed = start.elapsed();
            if let Some(dir) = &args.smtlib {
                write_dumps(dir, &src.name, &dumps)?;
            }
            all_proved &= report.all_proved();
            if args.json {
                json.push(serde_json::json!({ "file": src.name, "seconds": elapsed.as_secs_f64(), "report": report }));
            } else {
                print_report(&src.name, &report, elapsed);
            }
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json)?);
    }
    Ok(if all_proved { ExitCode::SUCCESS } else { super::input_problems() })
}

fn print_report(file: &str, report: &FuncReport, elapsed: Duration) {
    println!("{file}: function {} ({} queries, {:.0} ms)", report.name, report.queries, elapsed.as_secs_f64() * 1e3);
    for w in &report.waits {
        println!("  {w}");
        if let WaitVerdict::Refuted { values, .. } = &w.verdict {
            if !values.is_empty() {
                println!("    model: {values}");
            }
        }
    }
    for f in &report.findings {
        let at = if f.line > 0 { format!("line {}: ", f.line) } else { String::new() };
        println!("  refuted: {at}{}", f.message);
    }
    for u in &report.unknown {
        println!("  unknown: {u}");
    }
    for n in &report.notes {
        println!("  note: {n}");
    }
    let tight = report.count(|v| matches!(v, WaitVerdict::ProvedTight));
    let untested = report.count(|v| matches!(v, WaitVerdict::Proved));
    let over = report.count(|v| matches!(v, WaitVerdict::ProvedOverSynchronized { .. }));
    let refuted = report.count(|v| matches!(v, WaitVerdict::Refuted { .. })) + report.findings.len();
    let unknown = report.count(|v| matches!(v, WaitVerdict::Unknown { .. } | WaitVerdict::ProvedBounded { .. }))
        + report.unknown.len();
    let untested = if untested > 0 { format!(", {untested} proved (tightness not measured)") } else { String::new() };
    println!(
        "  {} waits: {tight} proved and tight, {over} over-synchronized{untested}, {refuted} refuted, {unknown} unknown",
        report.waits.len()
    );
}

fn write_dumps(dir: &std::path::Path, file: &str, dumps: &[(String, String)]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let stem = std::path::Path::new(file).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    for (i, (name, text)) in dumps.iter().enumerate() {
        let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        tirproof::write_atomically(&dir.join(format!("{stem}_{i:03}_{safe}.smt2")), text.as_bytes())?;
    }
    Ok(())
}
