//! The library half of the `tirproof` package: what the CLI and the integration tests share.
//!
//! `source` loads files and turns parse and check results into rendered diagnostics;
//! `filetest` runs the corpus cases (one file, one test) for both `tirproof corpus` and
//! `cargo test`. The command-line front end itself lives in `main.rs` and `commands/`.

pub mod filetest;
pub mod source;
