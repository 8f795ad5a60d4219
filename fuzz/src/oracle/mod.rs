//! Differential oracles: what must hold of every generated program, each answered with a
//! closed outcome.
//!
//! An oracle looks at one input program (before the pipeline pass) and, where it needs them,
//! the pass's output and other derived programs. It answers [`Outcome::Pass`],
//! [`Outcome::Skip`] (the oracle does not apply, with the reason) or [`Outcome::Fail`] with a
//! [`Failure`]: the oracle, a [`FailureClass`] from a closed set, a human message and, where
//! there is one, the counterexample (an interpreter fault with its loop values, or a Z3 model).
//! A failure's [`Signature`] (oracle and class, without values or lines) is what campaigns
//! deduplicate on and what the minimizer preserves.
//!
//! Invariants: an oracle never panics outward (a panic anywhere becomes a `no-panic` failure);
//! an inconclusive answer (Z3 unknown, an interpreter limit) is a failure of its own class,
//! never a pass.

mod chain;
mod cse;
mod equivalence;
pub mod panics;
mod text;
pub mod waits;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use tirproof_ir::interp::FaultKind;

pub use chain::{Chain, ChainConfig, ChainResult, InputMode, PassVariant};
pub use equivalence::{runs_cleanly, scalar_assignments};
pub use text::{check as round_trip, parse_text};
pub use waits::{loosen_wait, waits_in};

/// The oracles, in the order a chain runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OracleName {
    /// Nothing panics: parser, printer, checker, passes, interpreter, verifier.
    NoPanic,
    /// The pipeline pass accepts every valid program, and the checker accepts its output.
    Pipeline,
    /// The output computes what the input computes, without a fault, under the lazy, eager
    /// and a random schedule.
    Equivalence,
    /// Every wait of the output is proved safe and tight.
    WaitsTight,
    /// The verifier and the lazy interpreter agree on mutants of the output.
    Agreement,
    /// `cse` and `cse-semantic` on the output: every rewrite validated by Z3, and the result
    /// computes what the output computes.
    Cse,
    /// Printing and parsing the input and the output gives them back.
    RoundTrip,
}

impl OracleName {
    pub const ALL: [OracleName; 7] = [
        OracleName::NoPanic,
        OracleName::Pipeline,
        OracleName::Equivalence,
        OracleName::WaitsTight,
        OracleName::Agreement,
        OracleName::Cse,
        OracleName::RoundTrip,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OracleName::NoPanic => "no-panic",
            OracleName::Pipeline => "pipeline",
            OracleName::Equivalence => "equivalence",
            OracleName::WaitsTight => "waits-tight",
            OracleName::Agreement => "agreement",
            OracleName::Cse => "cse",
            OracleName::RoundTrip => "round-trip",
        }
    }
}

impl fmt::Display for OracleName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for OracleName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// An oracle name that is not one of [`OracleName::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown oracle `{0}` (expected one of: no-panic, pipeline, equivalence, waits-tight, agreement, cse, round-trip)"
)]
pub struct UnknownOracle(pub String);

impl FromStr for OracleName {
    type Err = UnknownOracle;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OracleName::ALL.into_iter().find(|o| o.name() == s).ok_or_else(|| UnknownOracle(s.to_string()))
    }
}

/// Which of the two compared programs misbehaved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Input,
    Output,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Input => "input",
            Side::Output => "output",
        }
    }
}

/// What kind of failure: closed, and free of values and line numbers so that the same bug
/// found twice has the same class.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FailureClass {
    /// A panic while running `during`, at a source location of tirproof.
    Panic { during: OracleName, location: String },
    /// The pipeline pass refused a program that is valid by construction.
    PassRejected,
    /// The pipeline pass accepted a program whose annotations are invalid by construction.
    PassAcceptedInvalid,
    /// The pipeline pass refused a program with a diagnostic that has no location.
    UnlocatedDiagnostic,
    /// The pass returned a program the checker rejects.
    CheckerRejected,
    /// A program faulted in the interpreter.
    Fault { side: Side, kind: FaultKind },
    /// The output computed something else.
    OutputMismatch,
    /// The interpreter could not run a program (an unsupported construct).
    InterpreterError { side: Side },
    /// A wait proved unsafe, or another obligation refuted.
    WaitRefuted,
    /// A wait proved safe but not the largest safe count.
    WaitOverSynchronized,
    /// Z3 did not decide an obligation.
    VerifierUnknown,
    /// The verifier proved a mutant the interpreter shows faulty, or refuted one it runs fine.
    Disagreement { verifier_proved: bool },
    /// The verifier's tightness measure of a wait and its verdict on the text with that wait
    /// loosened by 1 differ.
    TightnessInconsistent,
    /// A CSE rewrite that Z3 did not prove.
    CseUnvalidated,
    /// CSE output that computes something else or faults.
    CseMismatch,
    /// Printed text that does not parse back.
    ReparseFailed,
    /// Printed and parsed back, but different.
    RoundTripChanged,
}

impl FailureClass {
    /// A stable key: `fault:output:read-pending-async`, `panic:pipeline@passes/src/..:12`.
    pub fn key(&self) -> String {
        match self {
            FailureClass::Panic { during, location } => format!("panic:{during}@{location}"),
            FailureClass::PassRejected => "pass-rejected".into(),
            FailureClass::PassAcceptedInvalid => "pass-accepted-invalid".into(),
            FailureClass::UnlocatedDiagnostic => "unlocated-diagnostic".into(),
            FailureClass::CheckerRejected => "checker-rejected".into(),
            FailureClass::Fault { side, kind } => format!("fault:{}:{kind}", side.name()),
            FailureClass::OutputMismatch => "output-mismatch".into(),
            FailureClass::InterpreterError { side } => format!("interpreter-error:{}", side.name()),
            FailureClass::WaitRefuted => "wait-refuted".into(),
            FailureClass::WaitOverSynchronized => "wait-over-synchronized".into(),
            FailureClass::VerifierUnknown => "verifier-unknown".into(),
            FailureClass::Disagreement { verifier_proved: true } => {
                "disagreement:verifier-proved-a-faulty-program".into()
            }
            FailureClass::Disagreement { verifier_proved: false } => {
                "disagreement:verifier-refuted-a-correct-program".into()
            }
            FailureClass::TightnessInconsistent => "tightness-inconsistent".into(),
            FailureClass::CseUnvalidated => "cse-unvalidated".into(),
            FailureClass::CseMismatch => "cse-mismatch".into(),
            FailureClass::ReparseFailed => "reparse-failed".into(),
            FailureClass::RoundTripChanged => "round-trip-changed".into(),
        }
    }
}

/// What campaigns deduplicate on and the minimizer preserves.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub struct Signature {
    pub oracle: String,
    pub class: String,
}

impl Signature {
    /// A name usable as a directory name.
    pub fn slug(&self) -> String {
        let raw = format!("{}--{}", self.oracle, self.class);
        raw.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.oracle, self.class)
    }
}

/// A failed oracle.
#[derive(Clone, Debug)]
pub struct Failure {
    pub oracle: OracleName,
    pub class: FailureClass,
    /// What went wrong, in a sentence or a few lines.
    pub message: String,
    /// The evidence: an interpreter fault with loop values and history, or the verifier's
    /// counterexample.
    pub counterexample: Option<String>,
    /// Whether the failure is a check the run's time budget stopped (see
    /// `tirproof_verify::solver::within_budget`), not one the program left undecided.
    budget_spent: bool,
}

impl Failure {
    pub fn new(oracle: OracleName, class: FailureClass, message: impl Into<String>) -> Self {
        Failure { oracle, class, message: message.into(), counterexample: None, budget_spent: false }
    }

    pub fn with_counterexample(mut self, evidence: impl Into<String>) -> Self {
        self.counterexample = Some(evidence.into());
        self
    }

    /// The same failure, marked as a check the run's time budget stopped when `spent`.
    #[must_use]
    pub fn with_budget_spent(mut self, spent: bool) -> Self {
        self.budget_spent = spent;
        self
    }

    /// Whether the failure is a check the run's time budget stopped.
    pub fn is_budget_spent(&self) -> bool {
        self.budget_spent
    }

    pub fn signature(&self) -> Signature {
        Signature { oracle: self.oracle.name().to_string(), class: self.class.key() }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.signature(), self.message)
    }
}

/// The answer of one oracle.
#[derive(Clone, Debug)]
pub enum Outcome {
    Pass,
    /// The oracle does not apply to this program (no waits to mutate, say).
    Skip(String),
    Fail(Failure),
}

impl Outcome {
    pub fn failure(&self) -> Option<&Failure> {
        match self {
            Outcome::Fail(f) => Some(f),
            _ => None,
        }
    }
}
