//! Foreign compilers as peers: programs written in a foreign IR are given to that compiler's
//! own wait-count rule, and tirproof verifies what it gives back (`tirproof audit-peer`).
//!
//! One peer so far, [`ForeignPeer::Triton`]: token programs generated as TTGIR
//! ([`ttgir_gen`]), Triton 3.9's `updateWaits` run on them by a long-lived Python worker
//! ([`triton`]), its output read back with `tirproof-foreign` and verified ([`judge`]), each
//! outcome a closed [`TritonClass`]. The campaign ([`campaign`]) deduplicates findings by
//! [`Signature`] and minimizes the structured program while the signature holds.
//!
//! A peer is one [`Auditor`]: adding another (MLIR's nvgpu, say) is a variant of
//! [`ForeignPeer`] and an implementation of the trait; the campaign does not change.
//!
//! Invariant: a peer that is not installed (or of another version) is a skip with the reason,
//! never a failure; a crash or a hang of the peer is an outcome of the program that caused it.

pub mod campaign;
pub mod class;
pub mod judge;
pub mod triton;
pub mod ttgir_gen;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

pub use class::{Signature, TritonClass};
pub use judge::Judged;
pub use triton::{TritonError, TRITON_VERSION};

use ttgir_gen::Program;

/// How long Triton may take on one program (milliseconds on generated programs).
pub const REQUEST_LIMIT: Duration = Duration::from_secs(30);

/// The foreign compilers `audit-peer` audits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForeignPeer {
    Triton,
}

impl ForeignPeer {
    pub const ALL: [ForeignPeer; 1] = [ForeignPeer::Triton];

    /// The spelling of `--peer`.
    pub fn name(self) -> &'static str {
        match self {
            ForeignPeer::Triton => "triton",
        }
    }

    /// The peer's auditor, or why it cannot run here (a skip).
    pub fn start(self) -> Result<Box<dyn Auditor>, String> {
        match self {
            ForeignPeer::Triton => {
                let started = triton::find_python().and_then(triton::Triton::start);
                started.map(|triton| Box::new(TritonAuditor { triton }) as Box<dyn Auditor>).map_err(|e| e.to_string())
            }
        }
    }
}

impl ForeignPeer {
    /// The command, run from the repository, that shows the peer's answer on the file `path`.
    pub fn reproduction(self, path: &str) -> String {
        match self {
            ForeignPeer::Triton => format!("{} scripts/triton_wait_pass.py {path}", triton::VENV_PYTHON),
        }
    }
}

impl fmt::Display for ForeignPeer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `--peer` value that names no foreign peer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown peer `{0}` (expected triton)")]
pub struct UnknownForeignPeer(pub String);

impl FromStr for ForeignPeer {
    type Err = UnknownForeignPeer;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ForeignPeer::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| UnknownForeignPeer(s.to_string()))
    }
}

/// One program, its text, and the peer's judged answer.
#[derive(Clone, Debug)]
pub struct Audited {
    pub program: Program,
    pub text: String,
    pub judged: Judged,
}

/// What a campaign needs of a peer.
pub trait Auditor {
    /// The peer's version (`3.9.0`).
    fn version(&self) -> &str;
    /// Runs the peer on `program` and judges its answer.
    fn audit(&mut self, program: &Program) -> Audited;
}

struct TritonAuditor {
    triton: triton::Triton,
}

impl Auditor for TritonAuditor {
    fn version(&self) -> &str {
        &self.triton.version
    }

    fn audit(&mut self, program: &Program) -> Audited {
        let text = program.print();
        let reply = self.triton.waits(&text, REQUEST_LIMIT);
        let judged = judge::judge(&text, &program.wait_sites(), reply);
        Audited { program: program.clone(), text, judged }
    }
}
