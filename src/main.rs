//! The `tirproof` command line: argument parsing, file I/O and exit codes, nothing else.
//!
//! Exit codes are the same for every command: 0 when everything is clean, 1 when the input
//! has problems (diagnostics, faults, refuted proofs, failed cases), 2 on usage or I/O errors.

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

const EXIT_CODES: &str = "\
Exit codes:
  0  everything is clean
  1  the input has problems (diagnostics, a program fault, outputs that differ,
     a wait refuted or unknown, failed corpus cases)
  2  usage error, or a file could not be read or written";

/// Proofs and fuzzing for software-pipelined TVM TIR with asynchronous copies.
#[derive(Parser)]
#[command(name = "tirproof", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and check a TVMScript file, then print it in canonical form to stdout.
    #[command(after_help = EXIT_CODES)]
    Fmt(commands::fmt::Args),
    /// Parse and check TVMScript files (directories are searched for .py files).
    #[command(after_help = EXIT_CODES)]
    Check(commands::check::Args),
    /// Run passes over a module and print (or write) the result.
    #[command(after_help = EXIT_CODES)]
    Opt(commands::opt::Args),
    /// Run a function with the reference interpreter (optionally against a reference program).
    #[command(after_help = EXIT_CODES)]
    Run(commands::run::Args),
    /// Prove every async wait safe and tight (Z3), for our output and IR printed by TVM alike.
    #[command(after_help = EXIT_CODES)]
    Verify(commands::verify::Args),
    /// Run every corpus case under a directory and print one line per case.
    #[command(after_help = EXIT_CODES)]
    Corpus(commands::corpus::Args),
    /// Run the fuzzers' oracle chain on one program (the command a fuzzing report gives).
    #[command(after_help = EXIT_CODES)]
    Oracles(commands::oracles::Args),
    /// Minimize a failing program while its failure signature holds, and write a report.
    #[command(after_help = EXIT_CODES)]
    Reduce(commands::reduce::Args),
    /// Run a fuzzing campaign: generated programs through every oracle, findings minimized.
    #[command(after_help = EXIT_CODES)]
    Fuzz(commands::fuzz::Args),
}

/// The stack of the thread that runs a command. The reader accepts a flat chain `a + b + ...`
/// of any length, and the walks over expressions after it (lowering, printing, compiling,
/// passes, dropping the tree) recurse once per term of such a chain; a 100,000-term chain
/// overflowed the default 8 MiB main stack (docs/limits.md). Only the pages a command touches are
/// committed, so the reservation costs nothing for ordinary programs.
const COMMAND_STACK_BYTES: usize = 1 << 30;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = std::thread::Builder::new().name("command".into()).stack_size(COMMAND_STACK_BYTES);
    match command.spawn(move || run(cli)).map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(err) => {
            eprintln!("error: cannot start the command's thread: {err}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Fmt(args) => commands::fmt::run(&args),
        Command::Check(args) => commands::check::run(&args),
        Command::Opt(args) => commands::opt::run(&args),
        Command::Run(args) => commands::run::run_command(&args),
        Command::Verify(args) => commands::verify::run(&args),
        Command::Corpus(args) => commands::corpus::run(&args),
        Command::Oracles(args) => commands::oracles::run(&args),
        Command::Reduce(args) => commands::reduce::run(&args),
        Command::Fuzz(args) => commands::fuzz::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}
