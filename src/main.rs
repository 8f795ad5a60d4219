//! The `tirproof` command line: argument parsing, file I/O and exit codes, nothing else.
//!
//! Exit codes are the same for every command: 0 when everything is clean, 1 when the input
//! has problems (diagnostics, faults, refuted proofs, failed cases), 2 on usage or I/O errors.
//! A reader that closes standard output early (`| head`) ends a command quietly with 141, the
//! status a shell reports for a command stopped by SIGPIPE.

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tirproof::output::{flush_stdout, StdoutError};

const EXIT_CODES: &str = "\
Exit codes:
  0  everything is clean
  1  the input has problems (diagnostics, a program fault, outputs that differ,
     a wait refuted or unknown, failed corpus cases)
  2  usage error, or a file could not be read or written
  141  standard output was closed before everything was written (`| head`)";

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
    /// Lower a program through the lowering pipeline to PTX (sm_80 or sm_90).
    #[command(after_help = EXIT_CODES)]
    Ptx(commands::ptx::Args),
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
        Command::Ptx(args) => commands::ptx::run(&args),
    };
    match result.and_then(|code| Ok(flush_stdout().map(|()| code)?)) {
        Ok(code) => code,
        Err(err) if err.downcast_ref::<StdoutError>().is_some_and(StdoutError::is_closed_pipe) => {
            ExitCode::from(CLOSED_STDOUT)
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// The exit status when the reader of standard output went away: 128 + SIGPIPE, what a shell
/// reports for a command the signal stopped.
const CLOSED_STDOUT: u8 = 141;
