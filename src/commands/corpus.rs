//! `tirproof corpus [DIR]`: the main job. Runs every case under DIR and prints one line per
//! case and a closing `N passed, M failed` line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use tirproof::filetest::{self, Case, Verdict};
use tirproof::source::expand_paths;

#[derive(clap::Args)]
pub struct Args {
    /// The corpus directory (or single case files).
    #[arg(default_value = "corpus")]
    paths: Vec<PathBuf>,
    /// Rewrite the expectations of failing cases instead of failing (same as BLESS=1).
    #[arg(long)]
    bless: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let files = expand_paths(&args.paths).context("cannot list the corpus")?;
    let bless = args.bless || filetest::bless_requested();
    let (mut passed, mut failed) = (0usize, 0usize);
    for file in &files {
        let start = Instant::now();
        let kind = Case::load(file).map_or("?", |c| c.kind.name());
        let verdict = filetest::run_file(file, bless);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        match verdict {
            Verdict::Pass => {
                passed += 1;
                println!("ok      {:<9} {:>8.2} ms  {}", kind, ms, file.display());
            }
            Verdict::Blessed => {
                passed += 1;
                println!("blessed {:<9} {:>8.2} ms  {}", kind, ms, file.display());
            }
            Verdict::Fail(why) => {
                failed += 1;
                println!("FAILED  {:<9} {:>8.2} ms  {}\n{}", kind, ms, file.display(), indent(&why));
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 { ExitCode::SUCCESS } else { super::input_problems() })
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}
