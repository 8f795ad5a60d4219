//! What the wait verifier says: a verdict per wait and the other findings of a function.
//!
//! Invariant: the typed parts of a report (counts, reasons, values) serialize as the text and
//! numbers `tirproof verify --json` has always emitted, and display as its text output.

use std::fmt;

use serde::{Serialize, Serializer};
use tirproof_ir::print::print_expr;
use tirproof_ir::{DataType, Expr};

use super::model::QueueId;
use super::tally::plural;
use crate::solver::{Assignment, UnknownReason};

/// The verdict on one wait.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum WaitVerdict {
    /// Safe, and one more group in flight would not be.
    ProvedTight,
    /// Safe; how tight was not measured (`Options::tightness` off).
    Proved,
    /// Safe, but `best` groups in flight would be safe too (`None`: the wait is not needed at
    /// all, any count is safe).
    ProvedOverSynchronized { best: Option<WaitCount>, by: Option<i64> },
    /// A counterexample: the reason and the values of the variables.
    Refuted { reason: String, values: Assignment },
    /// Z3 gave no answer in time, or the program has a construct without an exact encoding.
    Unknown { reason: Undecided },
    /// Safe in every execution where each loop counted by enumeration has at most
    /// `iterations` iterations: a bounded check, not a proof.
    ProvedBounded { iterations: i64 },
}

impl WaitVerdict {
    pub fn is_proved(&self) -> bool {
        matches!(self, WaitVerdict::ProvedTight | WaitVerdict::Proved | WaitVerdict::ProvedOverSynchronized { .. })
    }

    pub fn is_refuted(&self) -> bool {
        matches!(self, WaitVerdict::Refuted { .. })
    }
}

/// A wait statement's position among its function's wait statements, in program order (from
/// 0): names a wait where lines do not (IR built in memory has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct WaitIndex(usize);

impl WaitIndex {
    /// The wait that has `position` waits of its function before it.
    #[must_use]
    pub fn new(position: usize) -> Self {
        WaitIndex(position)
    }

    /// How many waits of its function come before it.
    #[must_use]
    pub fn position(self) -> usize {
        self.0
    }
}

impl fmt::Display for WaitIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wait #{}", self.0)
    }
}

/// A wait's in-flight count, as written in the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitCount {
    /// An integer constant of TIR's default type (`int32`), printed as the bare number.
    Constant(i64),
    /// Any other expression, printed: a symbolic count, or a constant that TVMScript spells
    /// with its type (`T.int64(2)`).
    Expr(String),
    /// No count: the wait runs until the groups its tokens name are complete (the wait,
    /// printed).
    Tokens(String),
}

impl WaitCount {
    /// The count `expr` as written.
    #[must_use]
    pub fn of(expr: &Expr) -> Self {
        match expr {
            Expr::Int { value, dtype } if *dtype == DataType::INT32 => WaitCount::Constant(*value),
            other => WaitCount::Expr(print_expr(other)),
        }
    }
}

impl fmt::Display for WaitCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitCount::Constant(n) => write!(f, "{n}"),
            WaitCount::Expr(text) | WaitCount::Tokens(text) => f.write_str(text),
        }
    }
}

/// As its text (`"2"`, `"n - 1"`).
impl Serialize for WaitCount {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// What an undecided obligation is about, when it is not one wait's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// How over-synchronized a safe wait is.
    Tightness,
    /// The safety of a queue's uses.
    Queue(QueueId),
    /// Whether a queue's groups are all complete when the function ends.
    Drained(QueueId),
    /// The original order of conflicting accesses.
    DataFlow,
    /// Races between threads and blocks.
    Races,
}

/// Why an obligation is undecided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The solver did not decide it.
    Solver(UnknownReason),
    /// The program has a construct without an exact encoding: which.
    NotEncoded(String),
    /// Every obligation held, but the assumptions of the checks contradict each other.
    ContradictoryAssumptions,
    /// An async store outside every commit scope, in a launch that commits to several queues:
    /// which group it joins is not encoded.
    StoreOutsideCommit { line: u32, store: String },
    /// Nothing decided the wait (a wait the verifier did not reach).
    NotChecked,
    /// Every obligation held, but only for executions where the loop (by its variable) has
    /// at most `iterations` iterations: its condition was counted by enumeration.
    Bounded { variable: String, iterations: i64 },
}

/// An undecided obligation: why, and what about. Never a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undecided {
    pub subject: Option<Subject>,
    pub cause: Cause,
}

impl Undecided {
    /// The same reason, about `subject` (the reasons given a subject have none yet).
    #[must_use]
    pub fn about(self, subject: Subject) -> Self {
        Undecided { subject: Some(subject), ..self }
    }

    /// Whether the run's time budget, rather than the check itself, left it undecided.
    #[must_use]
    pub fn is_budget_spent(&self) -> bool {
        matches!(&self.cause, Cause::Solver(reason) if reason.is_budget_spent())
    }
}

impl From<Cause> for Undecided {
    fn from(cause: Cause) -> Self {
        Undecided { subject: None, cause }
    }
}

impl From<UnknownReason> for Undecided {
    fn from(reason: UnknownReason) -> Self {
        Cause::Solver(reason).into()
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Tightness => f.write_str("tightness"),
            Subject::Queue(q) => write!(f, "{q}"),
            Subject::Drained(q) => write!(f, "{q} drained at the end"),
            Subject::DataFlow => f.write_str("data flow"),
            Subject::Races => f.write_str("races between threads"),
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Solver(reason) => write!(f, "{reason}"),
            Cause::NotEncoded(why) => write!(f, "not encoded exactly: {why}"),
            Cause::ContradictoryAssumptions => f.write_str("the assumptions contradict each other"),
            Cause::StoreOutsideCommit { line, store } => write!(
                f,
                "line {line}: the async store {store} is outside every commit scope in a launch that commits to several queues; which group it joins is not encoded"
            ),
            Cause::NotChecked => f.write_str("not checked"),
            Cause::Bounded { variable, iterations } => write!(
                f,
                "proved for at most {iterations} iterations of loop `{variable}` only: a condition on it is not an interval (bounded, not a proof)"
            ),
        }
    }
}

/// `queue 0: ...`, `tightness: ...`; `data flow not encoded exactly: ...`.
impl fmt::Display for Undecided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.subject, &self.cause) {
            (Some(Subject::DataFlow), Cause::NotEncoded(why)) => write!(f, "data flow not encoded exactly: {why}"),
            (Some(subject), cause) => write!(f, "{subject}: {cause}"),
            (None, cause) => write!(f, "{cause}"),
        }
    }
}

/// As its text.
impl Serialize for Undecided {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct WaitReport {
    pub index: WaitIndex,
    pub line: u32,
    pub queue: QueueId,
    /// The in-flight count as written.
    pub count: WaitCount,
    #[serde(flatten)]
    pub verdict: WaitVerdict,
    /// What the wait is for beyond its verdict, each proved (`remarks.rs`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remarks: Vec<WaitRemark>,
    /// How a refuted wait can be fixed, each part proved (`tightness::fix`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<FixHint>,
}

/// How a refuted wait can be fixed: the largest constant count that is safe where it stands
/// (one more is not), and where the written count holds once the first iterations are peeled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FixHint {
    /// `None`: no count is safe, not even 0.
    pub largest_safe: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peel: Option<Peel>,
}

/// The written count holds from iteration `from` of the loop of `variable` on, `iterations`
/// after its first, and not from one iteration earlier.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Peel {
    pub count: i64,
    pub variable: String,
    pub from: i64,
    pub iterations: i64,
}

/// `3 is the largest safe constant here; 5 holds for i >= 2 (peel 2 iterations)`.
impl fmt::Display for FixHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.largest_safe {
            Some(n) => write!(f, "{n} is the largest safe constant here")?,
            None => f.write_str("no constant count is safe here, not even 0")?,
        }
        if let Some(Peel { count, variable, from, iterations }) = &self.peel {
            write!(f, "; {count} holds for {variable} >= {from} (peel {})", plural(*iterations as usize, "iteration"))?;
        }
        Ok(())
    }
}

/// A proved fact about what a proved wait does (see `remarks.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "remark", rename_all = "kebab-case")]
pub enum WaitRemark {
    /// Every group it forces complete was already forced by the waits before it.
    Redundant,
    /// The count written next to tokens is `by` below what the tokens leave in flight on
    /// every path: the count plus `by` still completes every named group.
    ClaimBelowTokens { by: i64 },
    /// The uses after the wait are safe without this token (as written in the wait).
    TokenNotNeeded { token: String },
}

impl fmt::Display for WaitRemark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitRemark::Redundant => {
                f.write_str("redundant: every group it completes was completed by an earlier wait (no commit since)")
            }
            WaitRemark::ClaimBelowTokens { by } => {
                write!(f, "over-synchronized for its tokens: they allow {by} more in flight on every path")
            }
            WaitRemark::TokenNotNeeded { token } => {
                write!(f, "over-coarse: the uses after it do not need the token `{token}`")
            }
        }
    }
}

/// A problem that is not about one wait: a use no wait protects, a group never waited.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub line: u32,
    pub message: String,
    pub values: Assignment,
    /// The run that shows the problem, when a caller that executes found it (a refutation
    /// for some memory contents).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<ContentsWitness>,
}

/// Memory contents and scalar values under which a run of the program faults: what makes a
/// finding a refutation for some memory contents. This crate does not execute programs; a
/// caller that does (the interpreter's search for contents) fills it in, and it is a run
/// that faulted, never a model of the solver.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContentsWitness {
    /// The scalar parameters of the run, `name = value`.
    pub scalars: Vec<String>,
    /// Each input buffer's contents, `A = 0.5 everywhere except A[3] = 1.0`.
    pub contents: Vec<String>,
    /// The seed of the order of a block's threads between barriers (`None`: in order).
    pub thread_order_seed: Option<u64>,
    /// The run's fault, as the interpreter reports it.
    pub fault: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FuncReport {
    pub name: String,
    pub waits: Vec<WaitReport>,
    /// Refuted obligations that no single wait is responsible for.
    pub findings: Vec<Finding>,
    /// Obligations that could not be decided (`Unknown` is never a pass).
    pub unknown: Vec<Undecided>,
    /// What was and was not checked.
    pub notes: Vec<String>,
    pub queries: usize,
    /// Of the violations of waits in one thread, the one a run meets first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub earliest_violation: Option<EarliestViolation>,
}

/// The violation a run of the function meets first, of those its refutations found (each
/// minimized in execution order by the solver): the line of the access that sees a pending
/// write, the loop values there, and the scalar parameters of the counterexample (what a run
/// that replays it is given).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EarliestViolation {
    pub line: u32,
    /// `i = 0, j = 1`; `None` outside every serial loop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The function's scalar parameters the counterexample fixes, in signature order.
    pub params: Vec<(String, i64)>,
}

impl FuncReport {
    /// Everything proved: every wait, no findings, nothing unknown.
    pub fn all_proved(&self) -> bool {
        self.findings.is_empty() && self.unknown.is_empty() && self.waits.iter().all(|w| w.verdict.is_proved())
    }

    pub fn count(&self, pred: impl Fn(&WaitVerdict) -> bool) -> usize {
        self.waits.iter().filter(|w| pred(&w.verdict)).count()
    }
}

impl fmt::Display for WaitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head = match &self.count {
            WaitCount::Tokens(tokens) => format!("wait at line {} ({}, tokens {tokens})", self.line, self.queue),
            count => format!("wait at line {} ({}, in-flight {count})", self.line, self.queue),
        };
        match &self.verdict {
            WaitVerdict::ProvedTight => write!(f, "{head}: proved and tight"),
            WaitVerdict::Proved => write!(f, "{head}: proved (tightness not measured)"),
            WaitVerdict::ProvedOverSynchronized { best: Some(b), by } => {
                write!(f, "{head}: proved but over-synchronized by {}; {b} is safe", by.unwrap_or(0))
            }
            WaitVerdict::ProvedOverSynchronized { best: None, by: Some(by) } => write!(
                f,
                "{head}: proved but over-synchronized by {by}: the uses after it are safe with {by} more in flight than its tokens leave"
            ),
            WaitVerdict::ProvedOverSynchronized { best: None, by: None } => {
                write!(f, "{head}: proved but not needed (any in-flight count is safe)")
            }
            WaitVerdict::Refuted { reason, .. } => write!(f, "{head}: refuted: {reason}"),
            WaitVerdict::Unknown { reason } => write!(f, "{head}: unknown: {reason}"),
            WaitVerdict::ProvedBounded { iterations } => {
                write!(f, "{head}: proved for at most {iterations} iterations only (bounded, not a proof)")
            }
        }?;
        for remark in &self.remarks {
            write!(f, "\n    note: {remark}")?;
        }
        if let Some(help) = &self.help {
            write!(f, "\n    help: {help}")?;
        }
        Ok(())
    }
}

/// One check's SMT-LIB script, what it asked and what the solver answered.
#[derive(Clone, Debug)]
pub struct Dump {
    /// The function and the query (`main q0_safety`).
    pub name: String,
    pub kind: DumpKind,
    pub outcome: DumpOutcome,
    pub script: String,
}

/// What a dumped check asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpKind {
    /// The program as written: `sat` is a refutation.
    AsWritten,
    /// Whether the wait at `line` stays safe loosened by `by` (or more, with `at_least`): `sat`
    /// means it does not, which is what makes the wait tight, not a failure.
    TightnessProbe { line: u32, by: i64, at_least: bool },
}

/// What the solver answered a dumped check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpOutcome {
    /// The obligation held (`unsat`).
    Held,
    /// A counterexample (`sat`).
    Failed,
    /// Undecided.
    Unknown,
}

impl fmt::Display for DumpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DumpKind::AsWritten => f.write_str("check of the program as written (sat = refuted, unsat = proved)"),
            DumpKind::TightnessProbe { line, by, at_least } => write!(
                f,
                "tightness probe: the wait at line {line} loosened by {by}{} (sat = that loosening is unsafe, so the wait is tight; not a failure)",
                if *at_least { " or more" } else { "" }
            ),
        }
    }
}

impl fmt::Display for DumpOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DumpOutcome::Held => "unsat (the obligation holds)",
            DumpOutcome::Failed => "sat (a counterexample)",
            DumpOutcome::Unknown => "unknown",
        })
    }
}
