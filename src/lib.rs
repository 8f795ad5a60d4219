//! The library half of the `tirproof` package: what the CLI and the integration tests share.
//!
//! `findings` is what a command found, rendered for machines (`--format`) and turned into its
//! exit code; `source` loads files and turns parse and check results into rendered diagnostics;
//! `compare` runs two programs differentially; `npy` reads and writes tensors; `output` writes
//! result files and standard output; `duration` parses every duration flag. The corpus
//! filetest engine is its own crate, `tirproof-filetests`. The command-line front end itself
//! lives in `main.rs` and `commands/`.

pub mod duration;
pub mod findings;
pub mod npy;
pub mod output;
pub mod source;

/// Differential execution lives with the engines (`tirproof-exec`); the CLI uses it too.
pub use tirproof_exec::compare;
