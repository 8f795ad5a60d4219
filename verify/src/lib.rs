//! tirproof-verify: proofs about TIR with the Z3 SMT solver.
//!
//! This is the only crate of the workspace that imports `z3`. [`cse`] validates common
//! subexpression elimination (every rewritten expression proved equal to the original one, every
//! rule of `cse-semantic` proved sound). Every proof goes through the typed layer [`solver`]: a [`Query`] is a set of assumptions and obligations over
//! named integer and bit-vector variables; [`Query::check`] asks Z3 whether the obligations can
//! fail under the assumptions, within a time limit, and answers with a [`Verdict`]. Only
//! [`Verdict::Proved`] is a pass: a timeout or any other inconclusive answer is
//! [`Verdict::Unknown`], and contradictory assumptions are [`Verdict::Vacuous`]. Every query can
//! be written out as SMT-LIB 2 ([`Query::to_smtlib`]) and replayed with the `z3` command line
//! tool. Many queries can share one solver: a [`solver::Session`] checks a query's
//! obligations one at a time, each in a push/pop scope, with the same verdicts and time limit
//! (the wait verifier runs all its queries this way).
//!
//! # Which Z3
//!
//! The build links the libz3 that `scripts/setup.sh` installs into `third_party/z3` (the version
//! pinned by `Z3_SYS_Z3_VERSION` in `.cargo/config.toml`), never a system one: Debian's 4.8.12
//! deadlocks when a timeout fires. `build.rs` fails with a message naming `scripts/setup.sh`
//! when that installation is missing, and embeds its directory as the run-time search path of
//! this crate's tests. A crate that depends on this one and builds binaries (the CLI, fuzzers)
//! needs the same search path in its own build script, since link arguments do not cross
//! packages:
//!
//! ```text
//! // build.rs of a dependent crate
//! fn main() {
//!     let dir = std::env::var("DEP_TIRPROOF_Z3_LIB_DIR").expect("set by tirproof-verify");
//!     println!("cargo::rustc-link-arg=-Wl,-rpath,{dir}");
//! }
//! ```
//!
//! # Threads
//!
//! Z3 terms belong to the calling thread's implicit Z3 context (z3 0.22), so a [`Query`] and the
//! terms that go into it are built, checked and dropped on one thread. Independent queries may
//! run on different threads.

pub mod cse;
pub mod solver;
pub mod waits;

pub use solver::{
    Assignment, ObligationId, Query, QueryError, Signedness, UnknownReason, Verdict, DEFAULT_TIMEOUT, SYMBOL_PREFIX,
};
