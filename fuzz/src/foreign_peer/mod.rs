//! Foreign compilers as peers: programs written in a foreign IR are given to that compiler's
//! own wait-count rule, and tirproof verifies what it gives back (`tirproof audit-peer`).
//!
//! Two peers: [`ForeignPeer::Triton`], token programs generated as TTGIR ([`ttgir_gen`]),
//! Triton 3.9's `updateWaits` run on them by a long-lived Python worker ([`triton`]), its
//! output read back with `tirproof-foreign` and verified ([`judge`]), each outcome a closed
//! [`TritonClass`]; and [`ForeignPeer::Mlir`], MLIR's shared-memory copy pipeliner on
//! generated nvgpu copy loops (`crate::mlir_peer`), each outcome a closed
//! [`crate::mlir_peer::MlirClass`].
//!
//! A peer is one [`Auditor`] ([`auditor`]): its case, its signature (a class and the structure
//! around what it is about, [`PeerSignature`]) and the files of its findings. The campaign
//! ([`campaign`]) is written once over the trait: it deduplicates findings by signature,
//! minimizes a case by the auditor's shrinking steps while its signature holds, and counts
//! programs and findings per summary row.
//!
//! Invariant: a peer that is not installed (or of another version) is a skip with the reason,
//! never a failure; a crash or a hang of the peer is an outcome of the program that caused it;
//! a case the auditor could not judge ([`NotAudited`]: an input that does not verify safe, a
//! peer that could not be run) is counted as a skip, never a finding.

pub mod auditor;
pub mod campaign;
pub mod class;
pub mod judge;
pub mod triton;
pub mod ttgir_gen;

use std::fmt::{self, Debug, Display};
use std::hash::Hash;
use std::str::FromStr;
use std::time::Duration;

pub use auditor::{MlirAuditor, TritonAuditor};
pub use class::{Signature, TritonClass};
pub use judge::Judged;
pub use triton::{TritonError, TRITON_VERSION};

use campaign::Finding;

/// How long Triton may take on one program (milliseconds on generated programs).
pub const REQUEST_LIMIT: Duration = Duration::from_secs(30);

/// The foreign compilers `audit-peer` audits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForeignPeer {
    Triton,
    Mlir,
}

impl ForeignPeer {
    pub const ALL: [ForeignPeer; 2] = [ForeignPeer::Triton, ForeignPeer::Mlir];

    /// The spelling of `--peer`.
    pub fn name(self) -> &'static str {
        match self {
            ForeignPeer::Triton => "triton",
            ForeignPeer::Mlir => "mlir",
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
#[error("unknown peer `{0}` (expected triton or mlir)")]
pub struct UnknownForeignPeer(pub String);

impl FromStr for ForeignPeer {
    type Err = UnknownForeignPeer;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ForeignPeer::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| UnknownForeignPeer(s.to_string()))
    }
}

/// A peer's closed outcome class, as the campaign sees it.
pub trait PeerClass: Clone + Ord + Hash + Debug + Display {
    /// The summary table's rows, in order.
    const ROWS: &'static [&'static str];
    /// The row of [`PeerClass::ROWS`] this class is counted in.
    fn row(&self) -> &'static str;
    /// A row's words in the summary table.
    fn describe_row(row: &str) -> String;
    /// Whether a case of this class is a finding (kept, minimized, reported).
    fn is_finding(&self) -> bool;
    /// Whether the class is about tirproof rather than the peer.
    fn is_tirproof_limitation(&self) -> bool;
}

/// A finding's identity: two cases with one signature are one finding.
pub trait PeerSignature: Clone + Ord + Hash + Debug + Display {
    type Class: PeerClass;
    fn class(&self) -> &Self::Class;
}

/// The words of the rows every peer has.
pub fn common_row_words(row: &str) -> Option<&'static str> {
    Some(match row {
        "agree" => "agree (every wait safe and tight)",
        "over-synchronized" => "over-synchronized (safe, not tight)",
        "crashed" => "crashed",
        "hung" => "hung",
        "output-unreadable" => "output unreadable (tirproof's limitation)",
        "unknown" => "unknown (verifier undecided; skipped)",
        _ => return None,
    })
}

/// Why a case got no outcome: a skip, counted in its own row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotAudited {
    /// The generated input does not verify safe (the generator's fault, not the peer's).
    InputNotSafe { why: String },
    /// The peer could not be run on the case (its files, its process).
    PeerNotRun { why: String },
}

impl NotAudited {
    /// Every skip row, in table order.
    pub const ROWS: [&'static str; 2] = ["input-not-safe", "peer-not-run"];

    /// The summary row this skip is counted in.
    pub fn row(&self) -> &'static str {
        match self {
            NotAudited::InputNotSafe { .. } => "input-not-safe",
            NotAudited::PeerNotRun { .. } => "peer-not-run",
        }
    }

    /// A row's words in the summary table.
    pub fn describe_row(row: &str) -> String {
        match row {
            "input-not-safe" => "skipped: the input does not verify safe".into(),
            "peer-not-run" => "skipped: the peer could not be run".into(),
            other => other.into(),
        }
    }

    pub fn why(&self) -> &str {
        match self {
            NotAudited::InputNotSafe { why } | NotAudited::PeerNotRun { why } => why,
        }
    }
}

/// One case, its text, and the peer's judged answer.
pub struct Audited<A: Auditor + ?Sized> {
    pub case: A::Case,
    /// The case as the peer reads it.
    pub text: String,
    pub signature: A::Signature,
    pub judged: A::Judged,
}

/// What a campaign needs of a peer.
pub trait Auditor {
    /// A generated program (with whatever options the peer runs with).
    type Case: Clone;
    type Signature: PeerSignature;
    /// The peer's answer judged.
    type Judged;
    const PEER: ForeignPeer;
    /// The names of the files a finding's directory holds.
    const FINDING_FILES: &'static [&'static str];
    /// The peer's version (`3.9.0`).
    fn version(&self) -> &str;
    /// The case of program seed `seed`.
    fn generate(seed: u64) -> Self::Case;
    /// Cases one shrinking step smaller than `case`, first tried first.
    fn shrink_candidates(case: &Self::Case) -> Vec<Self::Case>;
    /// Runs the peer on `case` and judges its answer.
    fn audit(&mut self, case: &Self::Case) -> Result<Audited<Self>, NotAudited>;
    /// The files of `finding`'s directory, `report.md` among them (names from
    /// [`Auditor::FINDING_FILES`]).
    fn finding_files(finding: &Finding<Self>) -> Vec<(&'static str, String)>;
}
