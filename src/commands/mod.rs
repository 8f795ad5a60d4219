//! One module per subcommand. Each `run` returns the exit code for problems in the input
//! and an `anyhow` error (exit code 2) for problems of the tool: usage and I/O.

pub mod check;
pub mod corpus;
pub mod fmt;
pub mod fuzz;
pub mod opt;
pub mod oracles;
pub mod ptx;
pub mod reduce;
pub mod run;
pub mod verify;

use std::process::ExitCode;

/// Exit code 1: the input has problems.
pub fn input_problems() -> ExitCode {
    ExitCode::from(1)
}
