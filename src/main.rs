//! The `tirproof` command line: argument parsing, file I/O and exit codes, nothing else.
//!
//! Exit codes are the same for every command (`tirproof::findings::ExitStatus`): 0 clean,
//! 1 refuted, 2 usage, 3 unknown, 4 bad input, the worst winning when several apply.
//! A reader that closes standard output early (`| head`) ends a command quietly with 141, the
//! status a shell reports for a command stopped by SIGPIPE.

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tirproof::findings::{ExitStatus, ReadError};
use tirproof::output::{flush_stdout, StdoutError};

const EXIT_CODES: &str = tirproof::findings::EXIT_CODES_HELP;

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
    /// Parse and check TVMScript files, or TTGIR and nvgpu MLIR (directories are searched for .py, .ttgir and .mlir files).
    #[command(after_help = EXIT_CODES)]
    Check(commands::check::Args),
    /// Run passes over a module and print (or write) the result.
    #[command(after_help = EXIT_CODES)]
    Opt(commands::opt::Args),
    /// Run a function with the reference interpreter (optionally against a reference program).
    #[command(after_help = EXIT_CODES)]
    Run(commands::run::Args),
    /// Prove every async wait safe and tight (Z3): our output, IR printed by TVM, Triton's TTGIR, MLIR's nvgpu.
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
    /// Write the pass inputs a campaign generates, one file per program.
    #[command(after_help = EXIT_CODES)]
    Generate(commands::generate::Args),
    /// Audit a foreign compiler's wait counts (Triton's wait-count rule, MLIR's pipeliner):
    /// generated programs through it, its outputs verified; findings minimized into DIR (exit 0
    /// with findings).
    #[command(after_help = EXIT_CODES)]
    AuditPeer(commands::audit_peer::Args),
    /// Write a campaign directory's page (DIR/page/index.html: rate, outcomes, findings).
    #[command(after_help = EXIT_CODES)]
    Report(commands::report::Args),
}

/// The stack of the thread that runs a command. The reader accepts a flat chain `a + b + ...`
/// of any length, and the walks over expressions after it (lowering, printing, compiling,
/// passes, dropping the tree) recurse once per term of such a chain; a 100,000-term chain
/// overflowed the default 8 MiB main stack and needs between 16 and 64 MiB (docs/limits.md).
/// Only the pages a command touches are committed, so the reservation costs nothing for
/// ordinary programs. Under an address-space limit (`ulimit -v`) too small for the largest,
/// the next that fits is taken: a smaller stack only lowers the longest chain a command
/// handles, where refusing to start would stop every command.
const COMMAND_STACK_BYTES: [usize; 3] = [1 << 30, 1 << 28, 1 << 26];

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // The thread takes the arguments when it starts; a thread that could not start leaves
    // them for the next size.
    let cli = std::sync::Mutex::new(Some(Cli::parse()));
    let mut refused = None;
    for bytes in COMMAND_STACK_BYTES {
        let command = std::thread::Builder::new().name("command".into()).stack_size(bytes);
        let outcome = std::thread::scope(|scope| {
            let take = || cli.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            command.spawn_scoped(scope, move || take().map(run)).map(std::thread::ScopedJoinHandle::join)
        });
        match outcome {
            Ok(Ok(Some(code))) => return code,
            Ok(Ok(None)) => break,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(err) => refused = Some(err),
        }
    }
    let reason = refused.map_or_else(|| "its arguments were taken".to_string(), |err| err.to_string());
    eprintln!("error: cannot start the command's thread: {reason}");
    ExitCode::from(2)
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
        Command::Generate(args) => commands::generate::run(&args),
        Command::AuditPeer(args) => commands::audit_peer::run(&args),
        Command::Report(args) => commands::report::run(&args),
    };
    match result.and_then(|code| Ok(flush_stdout().map(|()| code)?)) {
        Ok(code) => code,
        Err(err) if err.downcast_ref::<StdoutError>().is_some_and(StdoutError::is_closed_pipe) => {
            ExitCode::from(CLOSED_STDOUT)
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            // An input that cannot be read is bad input; every other error is of the usage.
            let status =
                if err.chain().any(|cause| cause.is::<ReadError>()) { ExitStatus::BadInput } else { ExitStatus::Usage };
            status.into()
        }
    }
}

/// The exit status when the reader of standard output went away: 128 + SIGPIPE, what a shell
/// reports for a command the signal stopped.
const CLOSED_STDOUT: u8 = 141;

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};
    use proptest::prelude::*;

    use super::Cli;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every subcommand name and every long and short flag the definition has, so generated
    /// argument lists reach every parser.
    fn vocabulary() -> Vec<String> {
        let mut words = Vec::new();
        for sub in Cli::command().get_subcommands() {
            words.push(sub.get_name().to_string());
            for arg in sub.get_arguments() {
                words.extend(arg.get_long().map(|l| format!("--{l}")));
                words.extend(arg.get_short().map(|s| format!("-{s}")));
            }
        }
        words
    }

    /// Values that have broken parsers before or sit on an edge: numbers out of range, not
    /// finite or negative, durations with and without units, `name=value` pairs, paths.
    const VALUES: &[&str] = &[
        "",
        "-",
        "--",
        "0",
        "1",
        "-1",
        "4294967300",
        "9223372036854775808",
        "1e20",
        "inf",
        "NaN",
        "1.5",
        "0s",
        "10ms",
        "2m",
        "3h",
        "1x",
        "n=4",
        "n=4294967300",
        "zz=1",
        "=",
        "n=",
        "A=/dev/zero",
        "corpus",
        "a,b",
        "inject-software-pipeline",
        "lazy",
        "sm_80",
        "sm_7",
        "é",
        "\u{1b}[31m",
    ];

    fn word() -> impl Strategy<Value = String> {
        let vocabulary = vocabulary();
        prop_oneof![
            proptest::sample::select(vocabulary),
            proptest::sample::select(VALUES).prop_map(str::to_string),
            "[ -~]{0,12}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("TIRPROOF_PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000)
        ))]

        /// Parsing any argument list gives a command or a usage error, never a panic.
        #[test]
        fn any_argument_list_parses_or_is_a_usage_error(words in proptest::collection::vec(word(), 0..8)) {
            let args = std::iter::once("tirproof".to_string()).chain(words);
            if let Err(err) = Cli::try_parse_from(args) {
                // Rendering the error must not panic either.
                let _ = err.render().to_string();
            }
        }
    }
}
