//! `tirproof corpus [DIR]`: the main job. Runs every case under DIR and prints one line per
//! case and a closing `N passed, M failed` line (with a machine `--format`, the report
//! instead: each failed case a finding, exit 1).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::bail;
use tirproof::findings::{FileStatus, Finding, FormatArgs, Location, Report, Rule};
use tirproof::outln;
use tirproof::source::STDIN_PATH;
use tirproof_filetests::{self as filetest, Case, Verdict};
use tirproof_verify::waits::{plural, Tally};

#[derive(clap::Args)]
pub struct Args {
    /// The corpus directory (or single case files).
    #[arg(default_value = "corpus")]
    paths: Vec<PathBuf>,
    /// Rewrite the expectations of failing cases instead of failing (same as BLESS=1).
    #[arg(long)]
    bless: bool,
    #[command(flatten)]
    format: FormatArgs,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if args.paths.iter().any(|p| p.as_os_str() == STDIN_PATH) {
        bail!("corpus cases are files (their expectations name other files); `-` (standard input) is not one");
    }
    // A corpus case is TVMScript with its `# test:` header; foreign IR in the folders is read
    // by its own tests.
    let files: Vec<_> =
        super::input_files(&args.paths)?.into_iter().filter(|p| p.extension().is_some_and(|e| e == "py")).collect();
    let bless = args.bless || filetest::bless_requested();
    let (mut passed, mut failed) = (0usize, 0usize);
    let (mut verified, mut totals) = (0usize, Tally::default());
    let mut found = Report::new("corpus");
    let text = args.format.is_text();
    for file in &files {
        let start = Instant::now();
        let kind = Case::load(file).map_or("?", |c| c.kind.name());
        let verdict = filetest::run_file(file, bless);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let name = file.display().to_string();
        found.file(&name, FileStatus::Checked);
        if let Verdict::Fail(why) = &verdict {
            found.add(Finding::new(Rule::CaseFailed, Location::file(&name), format!("{kind} case fails: {why}")));
        }
        if !text {
            match verdict {
                Verdict::Fail(_) => failed += 1,
                _ => passed += 1,
            }
            continue;
        }
        match verdict {
            Verdict::Pass => {
                passed += 1;
                outln!("ok      {:<9} {:>8.2} ms  {}", kind, ms, file.display())?;
            }
            Verdict::Proved(summary) => {
                passed += 1;
                verified += 1;
                totals.add(&summary);
                outln!("ok      {:<9} {:>8.2} ms  {}  ({summary})", kind, ms, file.display())?;
            }
            Verdict::Blessed => {
                passed += 1;
                outln!("blessed {:<9} {:>8.2} ms  {}", kind, ms, file.display())?;
            }
            Verdict::Fail(why) => {
                failed += 1;
                outln!("FAILED  {:<9} {:>8.2} ms  {}\n{}", kind, ms, file.display(), indent(&why))?;
            }
        }
    }
    if !text {
        return found.finish(args.format.format());
    }
    if verified > 0 {
        // The same counts as `tirproof verify`: each wait under its verdict, and the findings
        // not about one wait apart.
        outln!("verified {}: {totals}", plural(verified, "program"))?;
    }
    outln!("{passed} passed, {failed} failed")?;
    found.finish(args.format.format())
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}
