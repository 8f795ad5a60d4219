//! The `verify` oracle, for arbitrary async programs (not pipeline pass inputs): what the wait
//! verifier says about each whole function agrees with what the lazy interpreter does.
//!
//! Per function, the verifier's [`VerifierVerdict`] (every obligation proved, something
//! refuted, or something undecided) is held to the interpreter's [`InterpreterVerdict`] over
//! every tried value of the integer parameters ([`scalar_assignments`]) and two thread orders:
//! racy when a run faults with an async-protocol fault or a race, clean when every run
//! completes, inconclusive when a run stops at another fault first (out of bounds, say: the
//! program's own bug, about which the verifier promises nothing; a skip, never a verdict).
//! Runs that are clean are probed once more with every integer parameter at [`LATE_VALUE`]
//! ([`late_assignments`]): a fault that first shows at iteration 64 or later (a periodic
//! guard of a long period, a ring of 64 slots) is beyond the fast plan's values, and a
//! program the verifier proves must not fault there either. The probe only adds evidence of
//! a fault: a late run that stops at another fault leaves the verdict clean.
//!
//! A wait the verifier proves must not fault itself either (a `token-wait` fault at its line:
//! its claimed count leaves a group its tokens name in flight), whatever the rest of the
//! function's verdict: that too is `proved-faulting`.
//!
//! Classes, most severe first: `proved-faulting` (everything proved, yet a run races),
//! `refutation-not-reproduced` (a refutation, yet every run is clean, including those with the
//! parameter values of the counterexample and on a few other inputs). An undecided function is
//! a skip ([`SkipReason::VerifierUnknown`]), counted apart in campaign summaries: Unknown is an
//! honest answer, not a disagreement.

use std::collections::BTreeMap;
use std::time::Duration;

use tirproof_interp::{FaultKind, ScalarValue};
use tirproof_ir::{IRModule, PrimFunc};
use tirproof_verify::solver::Assignment;
use tirproof_verify::waits::{verify_func, FuncReport, Options, WaitVerdict};

use super::equivalence::scalar_assignments;
use super::waits::{lazy_runs, replay_assignment, show_values, too_large_to_replay, LazyRuns};
use super::{Failure, FailureClass, OracleName, Outcome, SkipReason, UndecidedKind};

/// What the verifier says about a whole function.
#[derive(Clone, Debug)]
pub enum VerifierVerdict {
    /// Every wait and every other obligation proved.
    Proved,
    /// Something refuted: what, the values of its counterexample, and the line of the
    /// refuted wait or finding (0 for a finding of the whole function).
    Refuted { refutation: String, values: Assignment, line: u32 },
    /// Nothing refuted, something undecided: why, whether the time budget stopped it, and
    /// the kind of the reason.
    Unknown { why: String, budget_spent: bool, kind: UndecidedKind },
}

impl VerifierVerdict {
    /// The verdict of a function's report.
    pub fn of(report: &FuncReport) -> Self {
        let refuted_wait = report.waits.iter().find_map(|w| match &w.verdict {
            WaitVerdict::Refuted { values, .. } => Some((w.to_string(), values.clone(), w.line)),
            _ => None,
        });
        let finding =
            report.findings.first().map(|f| (format!("line {}: {}", f.line, f.message), f.values.clone(), f.line));
        if let Some((refutation, values, line)) = refuted_wait.or(finding) {
            return VerifierVerdict::Refuted { refutation, values, line };
        }
        let undecided_wait = report.waits.iter().find_map(|w| match &w.verdict {
            WaitVerdict::Unknown { reason } => Some(reason.clone()),
            _ => None,
        });
        match report.unknown.first().cloned().or(undecided_wait) {
            Some(why) => VerifierVerdict::Unknown {
                why: why.to_string(),
                budget_spent: why.is_budget_spent(),
                kind: UndecidedKind::of(&why),
            },
            None => VerifierVerdict::Proved,
        }
    }
}

/// What the lazy interpreter does with a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterpreterVerdict {
    /// Every run completed.
    Clean,
    /// A run faulted with an async-protocol fault or a race (the fault, described).
    Racy(String),
    /// A run stopped at another fault first, or could not run.
    Inconclusive(String),
}

impl From<LazyRuns> for InterpreterVerdict {
    fn from(runs: LazyRuns) -> Self {
        match runs {
            LazyRuns::AsyncFault { described, .. } => InterpreterVerdict::Racy(described),
            LazyRuns::Clean => InterpreterVerdict::Clean,
            LazyRuns::Inconclusive(why) => InterpreterVerdict::Inconclusive(why),
        }
    }
}

/// The faults that make a program racy: those of the async protocol (a wait on tokens that
/// do not name a committed group of its queue, or whose claimed count leaves one in flight,
/// included), and races of threads and of blocks.
pub fn is_race_or_async_fault(kind: FaultKind) -> bool {
    use FaultKind::*;
    matches!(
        kind,
        ReadPendingAsync
            | WritePendingAsync
            | CrossThreadRace
            | CrossBlockRace
            | NegativeWait
            | UnwaitedGroup
            | TokenWait
    )
}

/// A wait that faults itself under the lazy schedule (a `token-wait` fault at its line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultingWait {
    pub line: u32,
    /// The fault, described.
    pub fault: String,
}

/// The value every integer parameter takes in the late probe: above 64, and far enough past
/// it for a ring of 64 slots to wrap onto a group in flight.
pub const LATE_VALUE: i64 = 100;

/// The late probe's assignment (every integer parameter at [`LATE_VALUE`]); none when the
/// function has no integer parameter.
pub fn late_assignments(func: &PrimFunc) -> Vec<BTreeMap<String, ScalarValue>> {
    let ints: BTreeMap<String, ScalarValue> = func
        .scalar_params()
        .filter(|v| v.dtype().is_integer())
        .map(|v| (v.name().to_string(), ScalarValue::Int(LATE_VALUE)))
        .collect();
    if ints.is_empty() {
        return Vec::new();
    }
    vec![ints]
}

/// The interpreter's verdict on `func`: the runs of the fast plan's parameter values, and
/// when those are clean, the late probe's; and the wait that faulted, when a wait did.
fn tried(func: &PrimFunc) -> (InterpreterVerdict, Option<FaultingWait>) {
    let faulting_wait = |runs: &LazyRuns| match runs {
        LazyRuns::AsyncFault { described, kind: FaultKind::TokenWait, line } if *line > 0 => {
            Some(FaultingWait { line: *line, fault: described.clone() })
        }
        _ => None,
    };
    let fast = lazy_runs(func, scalar_assignments(func), is_race_or_async_fault, 0);
    let wait = faulting_wait(&fast);
    let fast = InterpreterVerdict::from(fast);
    if fast != InterpreterVerdict::Clean {
        return (fast, wait);
    }
    let late = lazy_runs(func, late_assignments(func), is_race_or_async_fault, 0);
    let wait = faulting_wait(&late);
    match late {
        LazyRuns::AsyncFault { described, .. } => (InterpreterVerdict::Racy(described), wait),
        LazyRuns::Clean | LazyRuns::Inconclusive(_) => (InterpreterVerdict::Clean, None),
    }
}

/// A wait the verifier proves, which faults itself under the lazy schedule: a wait proved safe
/// must never fault (whatever else the function's verdict is).
pub fn proved_wait_faulting(name: &str, report: &FuncReport, faulting: Option<&FaultingWait>) -> Option<Failure> {
    let faulting = faulting?;
    let wait = report.waits.iter().find(|w| w.line == faulting.line && w.verdict.is_proved())?;
    let message = format!("the verifier proves a wait of `{name}` ({wait}), but the lazy interpreter faults there");
    let failure = Failure::new(OracleName::Verify, FailureClass::ProvedFaulting, message);
    Some(failure.with_counterexample(&faulting.fault).at_line(faulting.line))
}

/// Every function of `module`: the verifier against the lazy interpreter.
pub fn check(module: &IRModule, timeout: Duration) -> Outcome {
    let mut skipped = None;
    for func in &module.functions {
        match check_func(func, timeout) {
            Outcome::Pass => {}
            Outcome::Skip(why) => skipped = skipped.or(Some(why)),
            failed @ Outcome::Fail(_) => return failed,
        }
    }
    skipped.map_or(Outcome::Pass, Outcome::Skip)
}

fn check_func(func: &PrimFunc, timeout: Duration) -> Outcome {
    let options = Options { timeout, tightness: false, ..Options::default() };
    let (report, _) = verify_func(func, &options);
    let verifier = VerifierVerdict::of(&report);
    let (tried, faulting_wait) = tried(func);
    if let Some(failure) = proved_wait_faulting(&func.name, &report, faulting_wait.as_ref()) {
        return Outcome::Fail(failure);
    }
    let replayed = match (&verifier, &tried) {
        (VerifierVerdict::Refuted { values, .. }, InterpreterVerdict::Clean) => {
            if let Some(value) = too_large_to_replay(func, values) {
                // A counterexample the interpreter cannot reach in reasonable time (hundreds of
                // millions of iterations) is neither confirmed nor contradicted by it.
                let why = format!("`{}`: the refutation's counterexample ({value}) is too long to replay", func.name);
                return Outcome::Skip(SkipReason::Unreplayable(why));
            }
            Some(replay(func, values))
        }
        _ => None,
    };
    if replayed == Some(InterpreterVerdict::Clean) && super::control_reads_memory(func) {
        // The counterexample chooses the memory a condition or count reads; the inputs tried
        // may never hold it.
        let why = format!("the verifier refutes `{}` for some memory contents the inputs tried do not hold", func.name);
        return Outcome::Skip(SkipReason::Undecided(why));
    }
    judge(&func.name, &verifier, &tried, replayed.as_ref())
}

/// Seeds of the other inputs a refutation is replayed on.
const OTHER_INPUTS: std::ops::RangeInclusive<u64> = 1..=3;

/// The lazy runs of a refuted function that ran clean, again: with the parameter values of
/// the counterexample, and on other inputs (a refutation may need a loaded value, in a
/// condition say, that the first inputs do not have). The first verdict that is not clean.
fn replay(func: &PrimFunc, values: &Assignment) -> InterpreterVerdict {
    let mut assignments = scalar_assignments(func);
    assignments.extend(replay_assignment(func, values));
    let counterexample = assignments.len() - 1;
    let mut runs = std::iter::once((0, vec![assignments[counterexample].clone()]))
        .chain(OTHER_INPUTS.map(|seed| (seed, assignments.clone())));
    runs.find_map(|(seed, tried)| {
        let verdict = InterpreterVerdict::from(lazy_runs(func, tried, is_race_or_async_fault, seed));
        (verdict != InterpreterVerdict::Clean).then_some(verdict)
    })
    .unwrap_or(InterpreterVerdict::Clean)
}

/// The oracle's comparison: the verifier's verdict on function `name` against the
/// interpreter's on the tried parameter values and, for a refutation those run clean, on the
/// values of its counterexample and other inputs (`replayed`, `None`: not replayed).
pub fn judge(
    name: &str,
    verifier: &VerifierVerdict,
    tried: &InterpreterVerdict,
    replayed: Option<&InterpreterVerdict>,
) -> Outcome {
    let fail = |class, message: String| Failure::new(OracleName::Verify, class, message);
    if let InterpreterVerdict::Inconclusive(why) = tried {
        return Outcome::Skip(SkipReason::Undecided(format!("`{name}`: {why}")));
    }
    match (verifier, tried) {
        (VerifierVerdict::Proved, InterpreterVerdict::Racy(fault)) => {
            let message = format!("the verifier proves every wait of `{name}`, but the lazy interpreter faults");
            Outcome::Fail(fail(FailureClass::ProvedFaulting, message).with_counterexample(fault.clone()))
        }
        (VerifierVerdict::Unknown { why, budget_spent: true, .. }, _) => {
            Outcome::Skip(SkipReason::BudgetSpent { stopped: Some(format!("`{name}`: undecided: {why}")) })
        }
        (VerifierVerdict::Unknown { why, budget_spent: false, kind }, _) => {
            Outcome::Skip(SkipReason::VerifierUnknown(*kind, format!("`{name}`: {why}")))
        }
        (VerifierVerdict::Refuted { refutation, values, line }, InterpreterVerdict::Clean) => match replayed {
            Some(InterpreterVerdict::Racy(_)) => Outcome::Pass,
            Some(InterpreterVerdict::Inconclusive(why)) => {
                Outcome::Skip(SkipReason::Undecided(format!("`{name}` with the counterexample's values: {why}")))
            }
            Some(InterpreterVerdict::Clean) | None => {
                let message = format!(
                    "the verifier refutes `{name}` ({refutation}), but the lazy interpreter runs it without a fault"
                );
                let evidence = format!("{refutation}\nvalues: {}", show_values(values));
                let failure = fail(FailureClass::RefutationNotReproduced, message).with_counterexample(evidence);
                Outcome::Fail(failure.at_line(*line))
            }
        },
        _ => Outcome::Pass,
    }
}
