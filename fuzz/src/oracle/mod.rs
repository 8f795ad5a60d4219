//! Differential oracles: what must hold of every generated program, each answered with a
//! closed outcome.
//!
//! An oracle looks at one input program (before the pipeline pass) and, where it needs them,
//! the pass's output and other derived programs. It answers [`Outcome::Pass`],
//! [`Outcome::Skip`] (with a closed [`SkipReason`]: the oracle does not apply, has no
//! answer, or the time budget stopped it) or [`Outcome::Fail`] with a
//! [`Failure`]: the oracle, a [`FailureClass`] from a closed set, a human message and, where
//! there is one, the counterexample (an interpreter fault with its loop values, or a Z3 model).
//! A failure's [`Signature`] (oracle and class, without values or lines) is what campaigns
//! deduplicate on and what the minimizer preserves.
//!
//! These outcome types are a leaf: they know no peer. A peer (TVM today, `crate::peer`) is one
//! oracle among others ([`OracleName::PEERS`]), and its failures are
//! [`FailureClass::Peer`]: the peer's oracle and the peer's own class as an opaque
//! [`PeerClass`] key, which the peer alone spells and reads.
//!
//! Invariants: an oracle never panics outward (a panic anywhere becomes a `no-panic` failure);
//! an inconclusive answer (Z3 unknown, an interpreter limit) is a failure of its own class,
//! never a pass.

mod chain;
mod cse;
pub(crate) mod equivalence;
mod gpu;
pub mod panics;
pub mod pipeline_tokens;
mod ptx;
mod text;
pub mod tokens;
pub mod verify;
pub mod waits;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use tirproof_interp::FaultKind;
use tirproof_verify::solver::BUDGET_SPENT;

pub use tirproof_exec::Side;

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
    /// The PTX lowered from the input computes on the emulator what the input computes on
    /// the interpreter, under the lazy, eager and a random schedule.
    Ptx,
    /// The same PTX computes on the GPU, bit for bit, what the input computes on the
    /// interpreter (skipped, saying why, where there is no GPU; not in the default set).
    Gpu,
    /// Every wait of the output is proved safe and tight.
    WaitsTight,
    /// The verifier and the lazy interpreter agree on mutants of the output.
    Agreement,
    /// `cse` and `cse-semantic` on the output: every rewrite validated by Z3, and the result
    /// computes what the output computes.
    Cse,
    /// For arbitrary async programs (not pass inputs): what the verifier says about each
    /// function agrees with what the lazy interpreter does with it.
    Verify,
    /// For token programs: a program clean under the lazy schedule runs clean, with the same
    /// outputs, under the eager and a random schedule.
    Schedules,
    /// For token programs: the program computes what its lowering by `lower-async-tokens`
    /// computes (a skip while the pass manager has no such pass).
    TokenLowering,
    /// The pipeline pass writing tokens, lowered by `lower-async-tokens`, gives exactly the
    /// counts the pass computes directly.
    PipelineTokens,
    /// Printing and parsing the input and the output gives them back.
    RoundTrip,
    /// TVM's own pipeline pass on the input (`--peer tvm`): its output judged like ours
    /// (`crate::peer`). Not in the default set: it needs TVM.
    Tvm,
}

impl OracleName {
    pub const ALL: [OracleName; 14] = [
        OracleName::NoPanic,
        OracleName::Pipeline,
        OracleName::Tvm,
        OracleName::Equivalence,
        OracleName::PipelineTokens,
        OracleName::Ptx,
        OracleName::Gpu,
        OracleName::WaitsTight,
        OracleName::Agreement,
        OracleName::Cse,
        OracleName::Schedules,
        OracleName::Verify,
        OracleName::TokenLowering,
        OracleName::RoundTrip,
    ];

    /// The oracles run when none are named: all but `tvm`, which needs TVM and is asked for
    /// with `--peer`, and `gpu`, which needs a device and is asked for by name (`--oracle gpu`),
    /// so that what a campaign runs and finds does not depend on the machine it runs on.
    pub const DEFAULT: [OracleName; 12] = [
        OracleName::NoPanic,
        OracleName::Pipeline,
        OracleName::Equivalence,
        OracleName::PipelineTokens,
        OracleName::Ptx,
        OracleName::WaitsTight,
        OracleName::Agreement,
        OracleName::Cse,
        OracleName::Schedules,
        OracleName::Verify,
        OracleName::TokenLowering,
        OracleName::RoundTrip,
    ];

    /// The oracles that run another implementation (a peer) and judge its output; each
    /// classes its own failures ([`FailureClass::Peer`]).
    pub const PEERS: [OracleName; 1] = [OracleName::Tvm];

    /// The oracles that apply to arbitrary async programs, in chain order.
    pub const FOR_ASYNC_PROGRAMS: [OracleName; 3] = [OracleName::NoPanic, OracleName::Verify, OracleName::RoundTrip];

    /// The oracles that apply to token programs, in chain order.
    pub const FOR_TOKEN_PROGRAMS: [OracleName; 5] = [
        OracleName::NoPanic,
        OracleName::Schedules,
        OracleName::Verify,
        OracleName::TokenLowering,
        OracleName::RoundTrip,
    ];

    /// The oracles that apply to token programs only.
    pub const ONLY_FOR_TOKEN_PROGRAMS: [OracleName; 2] = [OracleName::Schedules, OracleName::TokenLowering];

    /// Whether the oracle applies to pipeline pass inputs (all but those of arbitrary async
    /// and token programs).
    pub fn applies_to_pass_inputs(self) -> bool {
        self != OracleName::Verify && !OracleName::ONLY_FOR_TOKEN_PROGRAMS.contains(&self)
    }

    /// Whether the oracle runs a peer ([`OracleName::PEERS`]).
    pub fn is_peer(self) -> bool {
        OracleName::PEERS.contains(&self)
    }

    /// Whether the oracle's verdict rests on Z3 checks (which a time budget can stop).
    pub fn asks_z3(self) -> bool {
        matches!(
            self,
            OracleName::WaitsTight | OracleName::Agreement | OracleName::Cse | OracleName::Verify | OracleName::Tvm
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            OracleName::NoPanic => "no-panic",
            OracleName::Pipeline => "pipeline",
            OracleName::Equivalence => "equivalence",
            OracleName::Ptx => "ptx",
            OracleName::Gpu => "gpu",
            OracleName::WaitsTight => "waits-tight",
            OracleName::Agreement => "agreement",
            OracleName::Cse => "cse",
            OracleName::Verify => "verify",
            OracleName::Schedules => "schedules",
            OracleName::TokenLowering => "token-lowering",
            OracleName::PipelineTokens => "pipeline-tokens",
            OracleName::RoundTrip => "round-trip",
            OracleName::Tvm => "tvm",
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
#[error("unknown oracle `{0}` (expected one of: {known})", known = OracleName::ALL.map(OracleName::name).join(", "))]
pub struct UnknownOracle(pub String);

impl FromStr for OracleName {
    type Err = UnknownOracle;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OracleName::ALL.into_iter().find(|o| o.name() == s).ok_or_else(|| UnknownOracle(s.to_string()))
    }
}

/// The spelling of a side in failure class keys: the pipeline pass's input and output.
fn side_key(side: Side) -> &'static str {
    match side {
        Side::Original => "input",
        Side::Transformed => "output",
    }
}

/// What kind of failure: closed, and free of values and line numbers so that the same bug
/// found twice has the same class. Its [`key`](FailureClass::key) is its spelling in reports
/// and parses back ([`FromStr`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    /// The PTX of a program faulted in the emulator where the interpreter ran it cleanly.
    EmulatorFault { kind: FaultKind },
    /// The emulator refused PTX that codegen produced (not a construct it does not model).
    EmulatorError,
    /// The GPU could not load or run PTX that codegen produced and the emulator runs cleanly
    /// (the driver's JIT refused it, the launch failed, the kernel faulted on the device or did
    /// not finish).
    DeviceError,
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
    /// The verifier proves every obligation of a function, but the lazy interpreter shows an
    /// async-protocol fault or a race for some tried parameter value (`verify`; the most
    /// severe: a wrong proof).
    ProvedFaulting,
    /// The verifier refutes a function that the lazy interpreter runs without a fault, for the
    /// tried parameter values and those of the counterexample (`verify`).
    RefutationNotReproduced,
    /// The pipeline pass's waits written with tokens lower to other counts than the pass
    /// computes directly.
    TokenCountsDiffer,
    /// A lowering changed what the verifier proves of a wait (a wait on tokens proved tight
    /// whose lowered count is refuted, over-synchronized or the reverse).
    VerdictChanged,
    /// Printed text that does not parse back.
    ReparseFailed,
    /// Printed and parsed back, but different.
    RoundTripChanged,
    /// A peer failed on the program, or its output is wrong: the peer's oracle (one of
    /// [`OracleName::PEERS`]) and the peer's own class of the failure (TVM's: `tvm`).
    Peer { peer: OracleName, class: PeerClass },
}

/// A peer's own class of a failure, as the peer spells it (`racy:read-pending-async`): opaque
/// here, compared and serialised as its key, and free of values and line numbers like every
/// class. The peer alone builds and reads it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PeerClass(String);

impl PeerClass {
    /// The class whose key is `key`.
    pub fn new(key: impl Into<String>) -> Self {
        PeerClass(key.into())
    }

    pub fn key(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PeerClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FailureClass {
    /// A stable key: `fault:output:read-pending-async`, `panic:pipeline@passes/src/..:12`,
    /// `tvm:racy:read-pending-async` (a peer's class after its oracle's name).
    pub fn key(&self) -> String {
        match self {
            FailureClass::Panic { during, location } => format!("panic:{during}@{location}"),
            FailureClass::PassRejected => "pass-rejected".into(),
            FailureClass::PassAcceptedInvalid => "pass-accepted-invalid".into(),
            FailureClass::UnlocatedDiagnostic => "unlocated-diagnostic".into(),
            FailureClass::CheckerRejected => "checker-rejected".into(),
            FailureClass::Fault { side, kind } => format!("fault:{}:{kind}", side_key(*side)),
            FailureClass::OutputMismatch => "output-mismatch".into(),
            FailureClass::EmulatorFault { kind } => format!("emulator-fault:{kind}"),
            FailureClass::EmulatorError => "emulator-error".into(),
            FailureClass::DeviceError => "device-error".into(),
            FailureClass::InterpreterError { side } => format!("interpreter-error:{}", side_key(*side)),
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
            FailureClass::ProvedFaulting => "proved-faulting".into(),
            FailureClass::RefutationNotReproduced => "refutation-not-reproduced".into(),
            FailureClass::TokenCountsDiffer => "token-counts-differ".into(),
            FailureClass::VerdictChanged => "verdict-changed".into(),
            FailureClass::ReparseFailed => "reparse-failed".into(),
            FailureClass::RoundTripChanged => "round-trip-changed".into(),
            FailureClass::Peer { peer, class } => format!("{peer}:{class}"),
        }
    }

    /// The classes whose key is a fixed word (those without fields, and both `Disagreement`s):
    /// what [`FromStr`] looks keys up in, so a new class of that kind belongs here too.
    const UNIT: [FailureClass; 21] = [
        FailureClass::PassRejected,
        FailureClass::PassAcceptedInvalid,
        FailureClass::UnlocatedDiagnostic,
        FailureClass::CheckerRejected,
        FailureClass::OutputMismatch,
        FailureClass::EmulatorError,
        FailureClass::DeviceError,
        FailureClass::WaitRefuted,
        FailureClass::WaitOverSynchronized,
        FailureClass::VerifierUnknown,
        FailureClass::Disagreement { verifier_proved: true },
        FailureClass::Disagreement { verifier_proved: false },
        FailureClass::TightnessInconsistent,
        FailureClass::CseUnvalidated,
        FailureClass::CseMismatch,
        FailureClass::ProvedFaulting,
        FailureClass::RefutationNotReproduced,
        FailureClass::TokenCountsDiffer,
        FailureClass::VerdictChanged,
        FailureClass::ReparseFailed,
        FailureClass::RoundTripChanged,
    ];
}

impl fmt::Display for FailureClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// A failure class key that is not the key of any [`FailureClass`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown failure class `{0}`")]
pub struct UnknownClass(pub String);

impl FromStr for FailureClass {
    type Err = UnknownClass;

    /// The class whose [`key`](FailureClass::key) is `key`.
    fn from_str(key: &str) -> Result<Self, Self::Err> {
        let side = |text: &str| Side::BOTH.into_iter().find(|s| side_key(*s) == text);
        let parsed = if let Some(rest) = key.strip_prefix("panic:") {
            rest.split_once('@').and_then(|(during, location)| {
                let during = during.parse().ok()?;
                Some(FailureClass::Panic { during, location: location.to_string() })
            })
        } else if let Some(rest) = key.strip_prefix("fault:") {
            rest.split_once(':').and_then(|(s, kind)| {
                let kind = FaultKind::ALL.into_iter().find(|k| k.name() == kind)?;
                Some(FailureClass::Fault { side: side(s)?, kind })
            })
        } else if let Some(kind) = key.strip_prefix("emulator-fault:") {
            FaultKind::ALL.into_iter().find(|k| k.name() == kind).map(|kind| FailureClass::EmulatorFault { kind })
        } else if let Some((peer, class)) = peer_key(key) {
            Some(FailureClass::Peer { peer, class })
        } else if let Some(s) = key.strip_prefix("interpreter-error:") {
            side(s).map(|side| FailureClass::InterpreterError { side })
        } else {
            FailureClass::UNIT.into_iter().find(|c| c.key() == key)
        };
        parsed.ok_or_else(|| UnknownClass(key.to_string()))
    }
}

/// A peer's class key split at the first `:` into the peer's oracle and its own class.
fn peer_key(key: &str) -> Option<(OracleName, PeerClass)> {
    let (peer, class) = key.split_once(':')?;
    let peer = OracleName::PEERS.into_iter().find(|p| p.name() == peer)?;
    (!class.is_empty()).then(|| (peer, PeerClass::new(class)))
}

impl Serialize for FailureClass {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key())
    }
}

/// What campaigns deduplicate on and the minimizer preserves. Serialized as the oracle's name
/// and the class's key (`{"oracle": "equivalence", "class": "output-mismatch"}`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Signature {
    pub oracle: OracleName,
    pub class: FailureClass,
}

/// A signature's text that names no oracle or no failure class of this version.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnknownSignature {
    #[error(transparent)]
    Oracle(#[from] UnknownOracle),
    #[error(transparent)]
    Class(#[from] UnknownClass),
}

impl Signature {
    /// The signature spelled `oracle` and `class` (as in `report.json`).
    pub fn parse(oracle: &str, class: &str) -> Result<Signature, UnknownSignature> {
        Ok(Signature { oracle: oracle.parse()?, class: class.parse()? })
    }

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
    /// The statement the failure is at, when it is one statement.
    site: Option<Site>,
}

/// The statement a failure is at: the wait a verdict is on, or the statement that faulted, by
/// the line of its span in the program the oracle was given. The minimizer's edits keep the
/// spans of the statements they leave, so a candidate failing at another site moved the
/// failure to another statement (see `crate::reduce`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    pub line: u32,
}

impl Site {
    /// The site at `line`; none for line 0 (a failure that belongs to no one statement).
    pub fn at_line(line: u32) -> Option<Site> {
        (line > 0).then_some(Site { line })
    }
}

impl Failure {
    pub fn new(oracle: OracleName, class: FailureClass, message: impl Into<String>) -> Self {
        Failure { oracle, class, message: message.into(), counterexample: None, budget_spent: false, site: None }
    }

    /// The same failure, at the statement of line `line` (none for line 0).
    #[must_use]
    pub fn at_line(mut self, line: u32) -> Self {
        self.site = Site::at_line(line);
        self
    }

    /// The statement the failure is at, when it is one statement.
    pub fn site(&self) -> Option<Site> {
        self.site
    }

    /// The same failure at `site` (the minimizer moves a site to the lines of a reprinted
    /// program).
    #[must_use]
    pub fn with_site(mut self, site: Option<Site>) -> Self {
        self.site = site;
        self
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
        Signature { oracle: self.oracle, class: self.class.clone() }
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
    /// The oracle did not decide this program, and says why.
    Skip(SkipReason),
    Fail(Failure),
}

impl Outcome {
    pub fn failure(&self) -> Option<&Failure> {
        match self {
            Outcome::Fail(f) => Some(f),
            _ => None,
        }
    }

    /// A skip because the oracle does not apply to this program (`why`).
    pub fn not_applicable(why: impl Into<String>) -> Outcome {
        Outcome::Skip(SkipReason::NotApplicable(why.into()))
    }
}

/// Why an oracle was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// The program's time budget ran out before the oracle ran, or stopped its checks (with
    /// what the oracle would have reported otherwise).
    BudgetSpent { stopped: Option<String> },
    /// The oracle does not apply to this program (no waits to mutate, say).
    NotApplicable(String),
    /// The oracle cannot run on this machine (no GPU), and why.
    Unavailable(String),
    /// The oracle's evidence has no answer for this program (the interpreter stops at another
    /// fault before the one in question, say).
    Undecided(String),
    /// The verifier left an arbitrary program undecided (why): honest, never a pass, and
    /// counted apart; not a disagreement with the interpreter, so not a finding. (On the pass's
    /// own outputs an Unknown is a finding of the `waits-tight` oracle.)
    VerifierUnknown(UndecidedKind, String),
    /// The verifier refuted a program at values the interpreter cannot run in reasonable time
    /// (an extent of hundreds of millions, where an index wraps): neither confirmed nor
    /// contradicted.
    Unreplayable(String),
}

/// Why the verifier left a program undecided, without the details: what campaign summaries
/// count undecided verdicts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum UndecidedKind {
    /// A check ran out of its time limit.
    TimeLimit,
    /// Z3 gave up (incompleteness, a resource limit).
    GaveUp,
    /// A counterexample without a model, or with a value beyond an i64.
    NoUsableModel,
    /// Whether the assumptions can hold was not decided.
    AssumptionsUndecided,
    /// A counterexample that could not be confirmed.
    Unconfirmed,
    /// A construct without an exact encoding.
    NotEncoded,
    /// The assumptions of the checks contradict each other.
    ContradictoryAssumptions,
    /// A wait the verifier did not reach.
    NotChecked,
    /// Proved only up to a bound on a loop's iterations.
    Bounded,
    /// Another reason (a peer's output, an obligation missing from its query).
    Other,
}

impl UndecidedKind {
    /// The kind of `undecided`.
    pub fn of(undecided: &tirproof_verify::waits::Undecided) -> UndecidedKind {
        use tirproof_verify::solver::UnknownReason as R;
        use tirproof_verify::waits::Cause;
        match &undecided.cause {
            Cause::Solver(R::TimeLimit { .. } | R::BudgetSpent { .. }) => UndecidedKind::TimeLimit,
            Cause::Solver(R::GaveUp(_)) => UndecidedKind::GaveUp,
            Cause::Solver(R::NoModel | R::ValueOutOfRange { .. }) => UndecidedKind::NoUsableModel,
            Cause::Solver(R::AssumptionsUndecided(_)) => UndecidedKind::AssumptionsUndecided,
            Cause::Solver(R::Unconfirmed(_)) => UndecidedKind::Unconfirmed,
            Cause::Solver(R::NotAsked(_)) | Cause::NotEncoded(_) | Cause::StoreOutsideCommit { .. } => {
                UndecidedKind::NotEncoded
            }
            Cause::Solver(R::NoSuchObligation { .. }) => UndecidedKind::Other,
            Cause::ContradictoryAssumptions => UndecidedKind::ContradictoryAssumptions,
            Cause::NotChecked => UndecidedKind::NotChecked,
            Cause::Bounded { .. } => UndecidedKind::Bounded,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            UndecidedKind::TimeLimit => "time-limit",
            UndecidedKind::GaveUp => "z3-gave-up",
            UndecidedKind::NoUsableModel => "no-usable-model",
            UndecidedKind::AssumptionsUndecided => "assumptions-undecided",
            UndecidedKind::Unconfirmed => "unconfirmed",
            UndecidedKind::NotEncoded => "not-encoded",
            UndecidedKind::ContradictoryAssumptions => "contradictory-assumptions",
            UndecidedKind::NotChecked => "not-checked",
            UndecidedKind::Bounded => "bounded",
            UndecidedKind::Other => "other",
        }
    }
}

impl SkipReason {
    /// The kind of the reason, without its text: what campaign summaries count skips by.
    pub fn kind(&self) -> &'static str {
        match self {
            SkipReason::BudgetSpent { .. } => "budget-spent",
            SkipReason::NotApplicable(_) => "not-applicable",
            SkipReason::Unavailable(_) => "unavailable",
            SkipReason::Undecided(_) => "undecided",
            SkipReason::VerifierUnknown(..) => "verifier-unknown",
            SkipReason::Unreplayable(_) => "unreplayable",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::BudgetSpent { stopped: None } => f.write_str(BUDGET_SPENT),
            SkipReason::BudgetSpent { stopped: Some(message) } => write!(f, "{BUDGET_SPENT}: {message}"),
            SkipReason::NotApplicable(why) | SkipReason::Undecided(why) | SkipReason::Unreplayable(why) => {
                f.write_str(why)
            }
            SkipReason::VerifierUnknown(_, why) => write!(f, "the verifier did not decide: {why}"),
            SkipReason::Unavailable(why) => write!(f, "not available here: {why}"),
        }
    }
}

/// Whether a condition, a loop bound or an attribute value of `func` reads memory: what runs
/// then depends on the input data.
pub(crate) fn control_reads_memory(func: &tirproof_ir::PrimFunc) -> bool {
    use crate::gen::reads_memory as reads;
    use tirproof_ir::visit::{walk_expr, walk_stmt, Visitor};
    use tirproof_ir::{Expr, Stmt, StmtKind};
    struct Control(bool);
    impl Visitor for Control {
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::IfThenElse { cond, .. } | Expr::Select { cond, .. } = e {
                self.0 |= reads(cond);
            }
            walk_expr(self, e);
        }
        fn visit_stmt(&mut self, s: &Stmt) {
            match &s.kind {
                StmtKind::If { cond, .. } => self.0 |= reads(cond),
                StmtKind::For(f) => self.0 |= reads(&f.min) || reads(&f.extent),
                StmtKind::Attr(a) => self.0 |= reads(&a.value),
                _ => {}
            }
            walk_stmt(self, s);
        }
    }
    let mut control = Control(false);
    control.visit_stmt(&func.body);
    control.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_key_parses_back() {
        let mut classes = FailureClass::UNIT.to_vec();
        classes.push(FailureClass::Panic { during: OracleName::Cse, location: "passes/src/cse/mod.rs:12".into() });
        for side in Side::BOTH {
            classes.push(FailureClass::InterpreterError { side });
            classes.extend(FaultKind::ALL.map(|kind| FailureClass::Fault { side, kind }));
        }
        classes.extend(FaultKind::ALL.map(|kind| FailureClass::EmulatorFault { kind }));
        for peer in OracleName::PEERS {
            classes.push(FailureClass::Peer { peer, class: PeerClass::new("racy:read-pending-async") });
            classes.push(FailureClass::Peer { peer, class: PeerClass::new("pass-raised:InternalError@a.cc:1") });
        }
        for class in classes {
            assert_eq!(class.key().parse::<FailureClass>(), Ok(class.clone()), "{class}");
        }
        assert!("fault:input:no-such-kind".parse::<FailureClass>().is_err());
        assert!("panic:no-such-oracle@x.rs:1".parse::<FailureClass>().is_err());
        assert!("ptx:racy".parse::<FailureClass>().is_err(), "ptx is no peer");
        assert!("tvm:".parse::<FailureClass>().is_err());
    }

    #[test]
    fn an_unknown_oracle_lists_every_oracle_in_chain_order() {
        let error = "equivalent".parse::<OracleName>().map_err(|e| e.to_string());
        let expected = "unknown oracle `equivalent` (expected one of: no-panic, pipeline, tvm, equivalence, pipeline-tokens, ptx, gpu, waits-tight, agreement, cse, schedules, verify, token-lowering, round-trip)";
        assert_eq!(error, Err(expected.to_string()));
    }

    #[test]
    fn signatures_serialize_as_the_names_of_oracle_and_class() {
        let class = FailureClass::Fault { side: Side::Transformed, kind: FaultKind::ReadPendingAsync };
        let signature = Signature { oracle: OracleName::Equivalence, class };
        let json = serde_json::to_value(&signature).unwrap_or_default();
        assert_eq!(json, serde_json::json!({"oracle": "equivalence", "class": "fault:output:read-pending-async"}));
        assert_eq!(Signature::parse("equivalence", "fault:output:read-pending-async"), Ok(signature));
    }
}
