//! `tirproof fuzz --out DIR`: a fuzzing campaign with a progress bar (a progress line every
//! `--progress-every` without a terminal); findings are printed as they are written, and a
//! summary (also `DIR/summary.json`) ends the run. The campaign keeps `DIR/page/index.html`
//! current (see `tirproof report`).
//!
//! The first Ctrl-C (or SIGTERM) stops the campaign: it writes what it has (the state, the
//! summary) and says how to resume; a second one exits at once (every report on disk is
//! complete either way).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use tirproof::duration::parse_duration;
use tirproof::findings::ExitStatus;
use tirproof::outln;
use tirproof::output::StdoutError;
use tirproof_fuzz::campaign::page::{PAGE_DIR, PAGE_FILE};
use tirproof_fuzz::campaign::{run_campaign, CampaignConfig, CampaignEnd, Event, Generator, Summary, GRACE};
use tirproof_fuzz::gen::GenConfig;
use tirproof_fuzz::oracle::OracleName;
use tirproof_fuzz::report::describe;

use super::oracles::ChainArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The campaign directory (created; an existing campaign there is resumed).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// How long to run (`90s`, `10m`, `2h`; a bare number is seconds).
    #[arg(long, value_parser = parse_duration, default_value = "10m")]
    time: Duration,
    /// Stop after this many programs in all (counting earlier runs of the campaign).
    #[arg(long)]
    programs: Option<u64>,
    /// Worker threads, from 1 to 4 per core (default: the number of cores).
    #[arg(long, value_parser = parse_jobs)]
    jobs: Option<usize>,
    /// Run only these oracles (repeatable; default: all but `gpu`, which needs a device).
    #[arg(long = "oracle", value_name = "NAME")]
    oracles: Vec<OracleName>,
    /// Time budget of each minimization (seconds, or with a unit: `2m`).
    #[arg(long, default_value = "60", value_parser = parse_duration)]
    reduce_budget: Duration,
    /// Time budget of each program's oracles (`30s`, `2m`): checks still running when it is
    /// spent are stopped, and the oracles they belong to count as skipped, not failed.
    #[arg(long, value_parser = parse_duration, default_value = "60s")]
    program_budget: Duration,
    /// Only valid programs (by default one in ten has invalid annotations and one in ten is
    /// mutated text, for the error paths).
    #[arg(long)]
    valid_only: bool,
    /// How often a progress point is made (`30s`, `5m`): a line on stdout when there is no
    /// terminal for the progress bar, a point in DIR/progress.jsonl and DIR/page/index.html
    /// rewritten.
    #[arg(long, value_parser = parse_duration, default_value = "30s")]
    progress_every: Duration,
    /// Draw programs only from these generators, in turn (repeatable: pipeline,
    /// invalid-annotations, mutated-text, async-program, tokens; default: the mix of all).
    #[arg(long = "generator", value_name = "NAME")]
    generators: Vec<Generator>,
    #[command(flatten)]
    chain: ChainArgs,
}

/// The most worker threads per core `--jobs` may ask for: each holds a Z3 context and a
/// program's state (megabytes each, a TVM process with `--peer`), and threads beyond the cores
/// only share them; a thousand took gigabytes for a few seconds' campaign.
const JOBS_PER_CORE: usize = 4;

/// The cores this process may use (1 when the system does not say).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `--jobs`: a number of worker threads from 1 to [`JOBS_PER_CORE`] per core.
fn parse_jobs(text: &str) -> Result<usize, String> {
    let cores = cores();
    let most = cores * JOBS_PER_CORE;
    match text.parse::<usize>() {
        Ok(jobs) if (1..=most).contains(&jobs) => Ok(jobs),
        _ => Err(format!(
            "expected a number of worker threads from 1 to {most} ({JOBS_PER_CORE} per core, {cores} cores here)"
        )),
    }
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let jobs = args.jobs.unwrap_or_else(cores);
    let config = CampaignConfig {
        out: args.out.clone(),
        seed: args.chain.seed,
        jobs,
        duration: Some(args.time),
        max_programs: args.programs,
        chain: args.chain.config(&args.oracles),
        gen: GenConfig::default(),
        reduce_budget: args.reduce_budget,
        program_budget: args.program_budget,
        mixed: !args.valid_only,
        generators: args.generators.clone(),
        stop: Some(stop_on_signals()?),
        progress_every: args.progress_every,
    };
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let progress = Progress {
        bar: &bar,
        start: Instant::now(),
        programs: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        findings: AtomicU64::new(0),
        stdout_error: Mutex::new(None),
    };
    let observe = |event| match event {
        Event::Overdue { summary, running } => {
            bar.finish_and_clear();
            let _ =
                outln!("programs {running:?} are still running {GRACE:?} after the end; left for a resumed campaign");
            let code = conclude(args, &summary, jobs).map_or(2, |code| if code == ExitCode::SUCCESS { 0 } else { 1 });
            std::process::exit(code);
        }
        event => progress.observe(event),
    };
    let summary = run_campaign(&config, &observe).with_context(|| format!("campaign in {}", args.out.display()))?;
    bar.finish_and_clear();
    if let Some(error) = progress.stdout_error.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
        return Err(error.into());
    }
    conclude(args, &summary, jobs)
}

/// Writes `summary.json`, prints the summary, says how to resume a campaign that did not
/// finish, and gives the exit code.
fn conclude(args: &Args, summary: &Summary, jobs: usize) -> anyhow::Result<ExitCode> {
    let json = serde_json::to_string_pretty(summary)? + "\n";
    tirproof::output::write_file(&args.out.join("summary.json"), json.as_bytes())?;
    print_summary(summary, jobs)?;
    outln!("page: {}", args.out.join(PAGE_DIR).join(PAGE_FILE).display())?;
    if summary.end == CampaignEnd::Stopped || !summary.unfinished_minimizations.is_empty() {
        outln!(
            "campaign {}: resume it with `tirproof fuzz --out {} --seed {}` (and the same options)",
            summary.end,
            args.out.display(),
            summary.seed
        )?;
    }
    Ok(if summary.new_findings.is_empty() && summary.signatures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitStatus::Refuted.into()
    })
}

/// A flag that the first SIGINT or SIGTERM sets; the second exits at once (130, as a shell
/// reports a program killed by SIGINT).
fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("stopping: finishing what is running (Ctrl-C again to quit at once)");
    })
    .context("cannot handle Ctrl-C")?;
    Ok(stop)
}

struct Progress<'a> {
    bar: &'a ProgressBar,
    start: Instant,
    programs: AtomicU64,
    failed: AtomicU64,
    findings: AtomicU64,
    /// The first failed write of a line to standard output; the campaign goes on (its
    /// findings are on disk) and the command reports it at the end.
    stdout_error: Mutex<Option<StdoutError>>,
}

impl Progress<'_> {
    /// Above the bar on a terminal; plain lines on stdout otherwise (a hidden bar prints
    /// nothing), so findings are never silent.
    fn say(&self, line: String) {
        if self.bar.is_hidden() {
            if let Err(e) = outln!("{line}") {
                self.stdout_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(e);
            }
        } else {
            self.bar.println(line);
        }
    }

    fn observe(&self, event: Event) {
        match event {
            Event::Program { failed, .. } => {
                let programs = self.programs.fetch_add(1, Ordering::Relaxed) + 1;
                let failed = self.failed.fetch_add(u64::from(failed), Ordering::Relaxed) + u64::from(failed);
                let rate = programs as f64 / self.start.elapsed().as_secs_f64().max(1e-3);
                let findings = self.findings.load(Ordering::Relaxed);
                self.bar.set_message(format!(
                    "{programs} programs ({rate:.1}/s), {} passed all oracles, {failed} failed, {findings} findings",
                    programs - failed
                ));
            }
            // The bar shows the same on a terminal; without one, a line says the campaign is alive.
            Event::Progress { summary } if self.bar.is_hidden() => {
                let failed: u64 = summary.signatures.values().sum();
                let line = progress_line(summary.seconds, summary.programs, summary.new_findings.len());
                self.say(format!("{line}, {failed} failed"));
            }
            Event::Progress { .. } => {}
            Event::Finding { signature, dir, origin } => {
                self.findings.fetch_add(1, Ordering::Relaxed);
                self.say(format!("finding: {signature} ({origin})\n  report: {}", dir.join("REPORT.md").display()));
            }
            Event::Minimized { signature, before, after, seconds, .. } => {
                self.say(format!(
                    "minimized {signature}: {} -> {} in {seconds:.1} s",
                    describe(&before),
                    describe(&after)
                ));
            }
            Event::Problem { message } => self.say(format!("problem: {message}")),
            Event::StaleLock { owner } => {
                self.say(format!("note: taking over the lock of a campaign that was killed ({owner}; it is gone)"))
            }
            // `run` ends the process on it before it gets here.
            Event::Overdue { .. } => {}
        }
    }
}

/// The progress line of a campaign (`fuzz`, `audit-peer`) without a terminal.
pub fn progress_line(seconds: f64, programs: u64, findings: usize) -> String {
    format!(
        "{:>5} s: {programs} programs ({:.1}/s), {findings} findings",
        seconds.round(),
        programs as f64 / seconds.max(1e-3)
    )
}

fn print_summary(summary: &Summary, jobs: usize) -> anyhow::Result<()> {
    let rate = summary.programs as f64 / summary.seconds.max(1e-3);
    outln!(
        "{} programs in {:.1} s ({rate:.1}/s, {:.1}/s per job, {jobs} jobs), seed {}, from program {}",
        summary.programs,
        summary.seconds,
        rate / jobs as f64,
        summary.seed,
        summary.resumed_at
    )?;
    let generators: Vec<String> = summary.generators.iter().map(|(g, n)| format!("{g} {n}")).collect();
    outln!("  programs by generator: {}", generators.join(", "))?;
    for (oracle, counts) in &summary.oracles {
        let undecided = if counts.undecided > 0 {
            format!("  (of the skips, {} undecided by the verifier)", counts.undecided)
        } else {
            String::new()
        };
        outln!("  {oracle:<14} pass {:>7}  skip {:>6}  fail {:>6}{undecided}", counts.pass, counts.skip, counts.fail)?;
        if counts.skip > 0 {
            let reasons: Vec<String> = counts.skips.iter().map(|(kind, n)| format!("{kind} {n}")).collect();
            outln!("  {:<14} skips by reason: {}", "", reasons.join(", "))?;
        }
        if counts.undecided > 0 {
            let reasons: Vec<String> = counts.undecided_reasons.iter().map(|(kind, n)| format!("{kind} {n}")).collect();
            outln!("  {:<14} undecided by reason: {}", "", reasons.join(", "))?;
        }
    }
    print_tvm_table(summary)?;
    if summary.signatures.is_empty() {
        outln!("no findings")?;
    }
    for (signature, count) in &summary.signatures {
        let new = if summary.new_findings.contains(signature) { " (new)" } else { "" };
        outln!("  {signature}: {count} programs{new}")?;
    }
    Ok(())
}

/// With `--peer`: what TVM did with the programs given to it, per class of failure.
fn print_tvm_table(summary: &Summary) -> anyhow::Result<()> {
    let Some(counts) = summary.oracles.get(OracleName::Tvm.name()) else { return Ok(()) };
    let given = counts.pass + counts.fail;
    outln!("TVM's pass on {given} programs (and {} skipped):", counts.skip)?;
    outln!("  | outcome | programs |")?;
    outln!("  | --- | --- |")?;
    outln!("  | TVM and tirproof both clean | {} |", counts.pass)?;
    let prefix = format!("{}/tvm:", OracleName::Tvm);
    for (signature, count) in summary.signatures.iter().filter(|(s, _)| s.starts_with(&prefix)) {
        outln!("  | {} | {count} |", &signature[prefix.len()..])?;
    }
    Ok(())
}
