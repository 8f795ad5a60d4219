//! `tirproof audit-peer --peer triton --out DIR`: a campaign of generated programs given to a
//! foreign compiler's wait-count rule, its outputs verified (`tirproof_fuzz::foreign_peer`).
//!
//! Writes `DIR/findings/NNN-CLASS/{input.ttgir,triton_output.ttgir,report.md}` as findings are
//! minimized and `DIR/summary.md` at the end; prints a progress line every 30 s and the summary.
//! Findings are the product: the exit code is 0 with findings too, and 0 when the peer is not
//! installed (the summary says skipped and why); 2 on usage and I/O errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tirproof::duration::parse_duration;
use tirproof::outln;
use tirproof_fuzz::foreign_peer::campaign::{self, AuditConfig, Event, Finding};
use tirproof_fuzz::foreign_peer::ForeignPeer;
use tirproof_fuzz::publish::{check, publish, Layout};

#[derive(clap::Args)]
pub struct Args {
    /// The foreign compiler to audit (triton).
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
}

/// The files of one finding's directory.
const FINDING_LAYOUT: Layout = Layout {
    what: "a finding of audit-peer",
    owns: |name| matches!(name, "input.ttgir" | "triton_output.ttgir" | "report.md"),
};

/// How often a progress line is printed.
const PROGRESS_EVERY: Duration = Duration::from_secs(30);

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let findings_dir = args.out.join("findings");
    if findings_dir.exists() && std::fs::read_dir(&findings_dir)?.next().is_some() {
        anyhow::bail!("{} already holds findings; name a new directory", findings_dir.display());
    }
    let config = AuditConfig {
        peer: args.peer,
        seed: args.seed,
        duration: args.time,
        max_programs: args.programs,
        minimize_budget: args.minimize_budget,
        progress_every: PROGRESS_EVERY,
    };
    let mut failure = None;
    let mut observe = |event: Event<'_>| {
        let result = match event {
            Event::Progress { programs, elapsed, findings } => outln!(
                "{:>5} s: {programs} programs ({:.1}/s), {findings} findings",
                elapsed.as_secs(),
                programs as f64 / elapsed.as_secs_f64().max(1e-3)
            )
            .map_err(anyhow::Error::from),
            Event::Finding(finding) => write_finding(&findings_dir, finding),
        };
        if let Err(error) = result {
            failure.get_or_insert(error);
        }
    };
    let summary = campaign::run(&config, &AtomicBool::new(false), &mut observe);
    if let Some(error) = failure {
        return Err(error);
    }
    let markdown = summary.markdown();
    std::fs::create_dir_all(&args.out)?;
    tirproof::output::write_file(&args.out.join("summary.md"), markdown.as_bytes())?;
    if let Some(why) = &summary.skipped {
        outln!("audit of {} skipped: {why}", args.peer)?;
    }
    outln!("{}", markdown.trim_end())?;
    Ok(ExitCode::SUCCESS)
}

/// `DIR/findings/NNN-CLASS/` for `finding`; prints where it is.
fn write_finding(findings_dir: &Path, finding: &Finding) -> anyhow::Result<()> {
    let class = finding.signature.class.row();
    let dir = findings_dir.join(format!("{:03}-{class}", finding.number));
    check(&dir, FINDING_LAYOUT)?;
    let audited = &finding.minimized;
    let input = dir.join("input.ttgir");
    let report = report(finding, &input);
    let output = audited.judged.output.clone().unwrap_or_default();
    let mut files: Vec<(&str, &[u8])> =
        vec![("input.ttgir", audited.text.as_bytes()), ("report.md", report.as_bytes())];
    if audited.judged.output.is_some() {
        files.push(("triton_output.ttgir", output.as_bytes()));
    }
    publish(&dir, FINDING_LAYOUT, files)?;
    outln!("finding {}: {} ({})", finding.number, finding.signature, dir.display())?;
    Ok(())
}

/// A finding's `report.md`.
fn report(finding: &Finding, input: &Path) -> String {
    let audited = &finding.minimized;
    let judged = &audited.judged;
    let peer = finding.peer;
    let mut out = format!("# {peer} finding {}: `{}`\n\n", finding.number, finding.signature);
    out.push_str(&format!(
        "{peer} {}, program seed {}, minimized from {} to {} lines.\n\n",
        finding.peer_version,
        finding.seed,
        finding.lines_before,
        audited.text.lines().count()
    ));
    out.push_str(&format!("## What happened\n\n{}\n\n", judged.message.trim()));
    out.push_str(&format!(
        "## Reproduce\n\nIn {peer} {} (from the repository):\n\n    {}\n\nand tirproof's verdicts on {peer}'s output:\n\n    tirproof verify {}\n\n",
        finding.peer_version,
        peer.reproduction(&input.display().to_string()),
        input.with_file_name("triton_output.ttgir").display()
    ));
    if !judged.verdicts.is_empty() {
        out.push_str(&format!("## tirproof's verdicts on {peer}'s output\n\n```\n{}```\n\n", judged.verdicts));
    }
    out.push_str(&format!("## Input (minimized)\n\n```mlir\n{}```\n", audited.text));
    out
}
