//! The library half of the `tirproof` package: what the CLI and the integration tests share.
//!
//! `source` loads files and turns parse and check results into rendered diagnostics;
//! `compare` runs two programs differentially; `npy` reads and writes tensors. The corpus
//! filetest engine is its own crate, `tirproof-filetests`. The command-line front end itself
//! lives in `main.rs` and `commands/`.

pub mod npy;
pub mod source;

/// Differential execution lives with the fuzzers' oracles; the CLI uses it too.
pub use tirproof_fuzz::compare;

use std::path::Path;

/// Writes through a temporary file in the same directory, then renames it over `path`, so a
/// reader never sees a half-written file and an interrupted write loses nothing.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    tirproof_fuzz::report::write_atomically(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}
