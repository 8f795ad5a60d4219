//! `tirproof audit-peer --peer triton|mlir --out DIR`: a campaign of generated programs given to
//! a foreign compiler's wait-count rule, its outputs verified (`tirproof_fuzz::foreign_peer`).
//!
//! Writes `DIR/findings/NNN-CLASS/` as findings are minimized (Triton:
//! `input.ttgir`, `triton_output.ttgir`, `report.md`; MLIR: `input.mlir`, `transform.mlir`,
//! `mlir_output.mlir`, `report.md`) and `DIR/summary.md` at the end; prints a progress line every `--progress-every` (30 s) and the summary.
//! Findings are the product: the exit code is 0 with findings too, and 0 when the peer is not
//! installed (the summary says skipped and why); 2 on usage and I/O errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tirproof::duration::parse_duration;
use tirproof::outln;
use tirproof_fuzz::foreign_peer::campaign::{self, AuditConfig, Event, Finding, Summary};
use tirproof_fuzz::foreign_peer::{Auditor, ForeignPeer, MlirAuditor, PeerClass, PeerSignature, TritonAuditor};
use tirproof_fuzz::publish::{check, publish, Layout};

use super::fuzz::progress_line;

#[derive(clap::Args)]
pub struct Args {
    /// The foreign compiler to audit (triton, mlir).
    #[arg(long)]
    peer: ForeignPeer,
    /// The campaign directory (created; nothing in it is replaced).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// How long to run (`90s`, `30m`; a bare number is seconds).
    #[arg(long, value_parser = parse_duration, default_value = "30m")]
    time: Duration,
    /// Stop after this many programs.
    #[arg(long)]
    programs: Option<u64>,
    /// The campaign's seed (program `i` is drawn from it and `i`).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Time budget of each minimization.
    #[arg(long, value_parser = parse_duration, default_value = "60s")]
    minimize_budget: Duration,
    /// How often a progress line is printed (`30s`, `5m`).
    #[arg(long, value_parser = parse_duration, default_value = "30s")]
    progress_every: Duration,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    match args.peer {
        ForeignPeer::Triton => audit(args, TritonAuditor::start()),
        ForeignPeer::Mlir => audit(args, MlirAuditor::start()),
    }
}

/// The campaign of `args` with the peer `started` (or the summary of a skip).
fn audit<A: Auditor>(args: &Args, started: Result<A, String>) -> anyhow::Result<ExitCode> {
    let findings_dir = args.out.join("findings");
    if findings_dir.exists() && std::fs::read_dir(&findings_dir)?.next().is_some() {
        anyhow::bail!("{} already holds findings; name a new directory", findings_dir.display());
    }
    let config = AuditConfig {
        seed: args.seed,
        duration: args.time,
        max_programs: args.programs,
        minimize_budget: args.minimize_budget,
        progress_every: args.progress_every,
    };
    let summary = match started {
        Err(why) => Summary::skipped(A::PEER, args.seed, why),
        Ok(auditor) => {
            let mut failure = None;
            let mut observe = |event: Event<'_, A>| {
                let result = match event {
                    Event::Progress { programs, elapsed, findings } => {
                        outln!("{}", progress_line(elapsed.as_secs_f64(), programs, findings))
                            .map_err(anyhow::Error::from)
                    }
                    Event::Finding(finding) => write_finding(&findings_dir, finding),
                };
                if let Err(error) = result {
                    failure.get_or_insert(error);
                }
            };
            let summary = campaign::run(&config, auditor, &AtomicBool::new(false), &mut observe);
            if let Some(error) = failure {
                return Err(error);
            }
            summary
        }
    };
    let markdown = summary.markdown();
    std::fs::create_dir_all(&args.out)?;
    tirproof::output::write_file(&args.out.join("summary.md"), markdown.as_bytes())?;
    if let Some(why) = &summary.skipped {
        outln!("audit of {} skipped: {why}", args.peer)?;
    }
    outln!("{}", markdown.trim_end())?;
    Ok(ExitCode::SUCCESS)
}

/// `DIR/findings/NNN-ROW/` for `finding`; prints where it is.
fn write_finding<A: Auditor>(findings_dir: &Path, finding: &Finding<A>) -> anyhow::Result<()> {
    let layout = Layout { what: "a finding of audit-peer", owns: |name| A::FINDING_FILES.contains(&name) };
    let dir = findings_dir.join(format!("{:03}-{}", finding.number, finding.signature.class().row()));
    check(&dir, layout)?;
    let files = A::finding_files(finding);
    publish(&dir, layout, files.iter().map(|(name, text)| (*name, text.as_bytes())))?;
    outln!("finding {}: {} ({})", finding.number, finding.signature, dir.display())?;
    Ok(())
}
