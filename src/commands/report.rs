//! `tirproof report DIR`: writes the page of the campaign in DIR (`DIR/page/index.html`, one
//! self-contained HTML file: see `tirproof_fuzz::campaign::page`) and prints its path. A
//! directory that is not a campaign's is refused (exit 2), and nothing is written into it.

use std::path::PathBuf;
use std::process::ExitCode;

use tirproof::outln;
use tirproof_fuzz::campaign::page::write_page;

#[derive(clap::Args)]
pub struct Args {
    /// The campaign directory (the one given to `tirproof fuzz --out`).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let page = write_page(&args.dir)?;
    outln!("{}", page.display())?;
    Ok(ExitCode::SUCCESS)
}
