//! Proofs about async waits: for every wait of a function, whether it is safe, whether it is
//! tight, whether its executed count is never negative, and whether every group is complete
//! when the function ends — as SMT queries over the loop variables and symbolic extents,
//! without unrolling.
//!
//! `model` extracts loops and events from any TVMScript (our pipeline output, TVM's S-TIR or
//! flattened TIR); `encode` gives the closed forms (commits before a point, the last wait
//! before a point), built with `fold`, which folds constants as terms are built; `checker`
//! holds the solver session, the record of the checks and the terms the obligations are built
//! from (groups, completed counts, addresses); `names` names the variables of the queries by
//! the role each plays; `report` holds the verdicts.
//!
//! # Obligations
//!
//! Every obligation has one shape and one prover, in `obligation`: a kind says what is asked
//! (its items), how it is encoded (one query, each item one or more obligations in it, each
//! with how far its counterexample is trusted), and how its verdict is reported (a refutation
//! explained from its counterexample; what an undecided verdict is about; what contradictory
//! assumptions mean), by implementing `obligation::Obligation`; `Checker::discharge` runs it.
//! Every check (push/pop scope, time limit, counterexample confirmation, verdict, SMT-LIB
//! dump) goes through `Checker::round`. The kinds, one file each: `dataflow` (the original
//! order of conflicting accesses), `races` (unordered accesses of different threads or
//! blocks), `negative` (a wait's count is never negative); `safety` (no use sees a pending
//! store) and `drained` (every group complete at the end) are encoded once per queue, with a
//! slack on every wait, and asked again by `tightness`, which measures how over-synchronized
//! a safe wait is. A new kind of obligation is a new file implementing `Obligation`, and its
//! `discharge` call in `verify_model` or `verify_queue` below.
//!
//! How queries run: every query of a function runs on one Z3 solver (a
//! [`Session`](crate::solver::Session)), each check in its own push/pop scope. A query with
//! one obligation per pair of accesses is checked one pair at a time (small checks are far
//! cheaper than one large disjunction; each event is encoded once and shared by its pairs),
//! and a queue is encoded once, with a slack on every wait, for its safety and every
//! tightness question. The time limit holds for each check; `queries` in the report counts
//! the checks, and a dump holds one standalone script per check.
//!
//! Data flow (whether a read sees the producer instance the original program meant) needs
//! the pass's provenance, which text does not carry: from text, race freedom is checked and
//! the report says so.

mod checker;
mod dataflow;
mod drained;
mod encode;
mod fold;
mod model;
mod names;
mod negative;
mod obligation;
mod races;
mod ranges;
mod remarks;
mod report;
mod safety;
mod summary;
mod tally;
mod tightness;
mod tokens;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use tirproof_ir::PrimFunc;

pub use model::QueueId;
pub use report::{
    Cause, ContentsWitness, Dump, DumpKind, DumpOutcome, EarliestViolation, Finding, FixHint, FuncReport, Peel,
    Subject, Undecided, WaitCount, WaitIndex, WaitRemark, WaitReport, WaitVerdict,
};
pub use tally::{plural, Tally};

use crate::solver::{in_fresh_context, watched, within_budget, Watchdog};
use checker::Checker;
use dataflow::DataFlow;
use encode::Unsupported;
use model::{EventId, EventKind, LoopId, Model, Until};
use negative::NegativeCount;
use obligation::{Round, WaitFailure};
use races::Races;
use safety::{PairChecks, QueueSafety, StoreUse};
use tightness::Queue;
use tokens::{TokenBeforeCommit, TokenClaims};

/// How to verify.
#[derive(Clone, Debug)]
pub struct Options {
    /// Time limit of each solver check.
    pub timeout: Duration,
    /// Keep every check as SMT-LIB, with what it asked and its answer ([`Dump`]).
    pub dump_smtlib: bool,
    /// Measure how over-synchronized each proved wait is (more queries); without it a proved
    /// wait is reported tight.
    pub tightness: bool,
    /// Time for all the checks of one function together; a check it stops is Unknown. (Z3's
    /// own memory limit is not set: it is process-wide, and below what a context needs Z3
    /// fails to create one rather than answer unknown. Memory follows from time here: each
    /// check is stopped by its time limit and the function by its budget.)
    pub budget: Option<Duration>,
}

/// The default [`Options::budget`]: the slowest function of the corpus takes under a second,
/// so a function that takes minutes is one a user wants an answer about (Unknown) rather
/// than a wait.
pub const DEFAULT_FUNCTION_BUDGET: Duration = Duration::from_secs(300);

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: crate::DEFAULT_TIMEOUT,
            dump_smtlib: false,
            tightness: true,
            budget: Some(DEFAULT_FUNCTION_BUDGET),
        }
    }
}

/// Violations reported per queue before giving up on finding more.
const MAX_VIOLATIONS: usize = 8;

/// Verifies every wait of `func`. The second value holds the SMT-LIB dumps, if asked for.
pub fn verify_func(func: &PrimFunc, options: &Options) -> (FuncReport, Vec<Dump>) {
    let model = Model::of(func);
    let deadline = options.budget.map(|b| Instant::now() + b);
    in_fresh_context(|| within_budget(deadline, || watched(|watchdog| verify_model(func, &model, options, watchdog))))
}

fn verify_model<'m>(
    func: &PrimFunc,
    model: &'m Model,
    options: &Options,
    watchdog: &'m Watchdog<'m>,
) -> (FuncReport, Vec<Dump>) {
    let mut checker = Checker::new(model, &func.name, options, watchdog);
    let mut report = FuncReport { name: func.name.clone(), ..FuncReport::default() };
    if model.has_provenance() {
        report.notes.push("data flow checked with the pass's provenance".into());
        record(&mut report, checker.discharge(&DataFlow), None);
    } else {
        report.notes.push("data flow is not checked (no provenance in the input); race freedom is checked".into());
    }
    record(&mut report, checker.discharge(&Races), None);
    record(&mut report, checker.discharge(&TokenBeforeCommit), None);
    for (span, why) in &model.unsupported {
        report.notes.push(format!("line {}: {why}", span.line));
    }
    for (span, why) in &model.unencoded {
        report.unknown.push(Cause::NotEncoded(format!("line {}: {why}", span.line)).into());
    }
    let mut queues: BTreeSet<QueueId> = BTreeSet::new();
    for (id, e) in model.events_by_id() {
        match e.kind {
            EventKind::Commit { queue } | EventKind::Wait { queue, .. } => {
                queues.insert(queue);
            }
            EventKind::AsyncStore { .. } => match model.store_queue(id) {
                Some(queue) => {
                    queues.insert(queue);
                }
                // It joins whichever commit its thread runs next, of one of several queues:
                // not encoded, so nothing about it is claimed.
                None => {
                    report.unknown.push(Cause::StoreOutsideCommit { line: e.span.line, store: e.text.clone() }.into())
                }
            },
            _ => {}
        }
    }
    let mut earliest = None;
    for q in queues {
        verify_queue(&mut checker, q, &mut report, options.tightness, &mut earliest);
    }
    report.earliest_violation = earliest.map(|(_, _, shown)| shown);
    report.waits.sort_by_key(|w| (w.line, w.queue));
    // A bounded encoding proves nothing about longer loops: never a pass.
    let iterations = encode::ENUMERATED_ITERATIONS;
    for l in &checker.bounded {
        let variable = model.loop_info(*l).var.name().to_string();
        report.unknown.push(Cause::Bounded { variable, iterations }.into());
    }
    if !checker.bounded.is_empty() {
        for w in &mut report.waits {
            if w.verdict.is_proved() {
                w.verdict = WaitVerdict::ProvedBounded { iterations };
            }
        }
    }
    // A construct the encoding leaves out (a wait it cannot express, a commit it cannot
    // place) changes what every check saw: no verdict of the function stands.
    if let Some((span, why)) = model.unencoded.first() {
        let cause = || Cause::NotEncoded(format!("line {}: {why}", span.line));
        for w in &mut report.waits {
            if !matches!(w.verdict, WaitVerdict::Unknown { .. }) {
                w.verdict = WaitVerdict::Unknown { reason: cause().into() };
            }
        }
        for finding in std::mem::take(&mut report.findings) {
            // Function-level findings have line 0: their message locates them.
            let at = if finding.line > 0 { format!("line {}: ", finding.line) } else { String::new() };
            report.unknown.push(Cause::NotEncoded(format!("{at}{} (undecided: {why})", finding.message)).into());
        }
    }
    report.queries = checker.log.queries();
    let dumps = checker.log.take_dumps();
    (report, dumps)
}

/// Records the failure of a function-level obligation (not about one wait): a refutation is
/// a finding, an undecided verdict an unknown (about `subject`, when given).
fn record(report: &mut FuncReport, failure: Option<WaitFailure>, subject: Option<Subject>) {
    match failure {
        None => {}
        Some(WaitFailure::Refuted { reason, values }) => {
            report.findings.push(Finding { line: 0, message: reason, values, witness: None })
        }
        Some(WaitFailure::Unknown(why)) => report.unknown.push(match subject {
            Some(subject) => why.about(subject),
            None => why,
        }),
    }
}

/// The waits of one queue and their verdicts so far, in program order.
struct QueueWaits {
    waits: Vec<EventId>,
    verdicts: Vec<Option<WaitVerdict>>,
}

impl QueueWaits {
    fn of(checker: &Checker, q: QueueId) -> Self {
        let waits = checker.waits(q);
        let verdicts = vec![None; waits.len()];
        QueueWaits { waits, verdicts }
    }

    /// The verdict of `wait`, unless it has one; false when it is not a wait of the queue.
    fn decide(&mut self, wait: EventId, verdict: WaitVerdict) -> bool {
        let Some(i) = self.waits.iter().position(|w| *w == wait) else { return false };
        self.verdicts[i].get_or_insert(verdict);
        true
    }

    /// The waits without a verdict yet.
    fn undecided(&mut self) -> impl Iterator<Item = (EventId, &mut Option<WaitVerdict>)> {
        self.waits.iter().copied().zip(self.verdicts.iter_mut()).filter(|(_, v)| v.is_none())
    }
}

/// The earliest same-thread violation found so far: its use, the use's loop values, and how it
/// is reported.
type Earliest = (EventId, Vec<(LoopId, i64)>, EarliestViolation);

fn verify_queue(
    checker: &mut Checker,
    q: QueueId,
    report: &mut FuncReport,
    measure_tightness: bool,
    earliest: &mut Option<Earliest>,
) {
    let mut waits = QueueWaits::of(checker, q);
    let safety = checker.encode_safety(q);
    let drained = checker.encode_drained(q);
    let violations = find_violations(checker, q, &safety, &mut waits, report, earliest);
    let excluded: Vec<StoreUse> = violations.iter().map(|(pair, _)| *pair).collect();
    for (w, verdict) in waits.waits.iter().zip(waits.verdicts.iter_mut()) {
        if let Some(failure) = checker.discharge(&NegativeCount { wait: *w }) {
            *verdict = Some(failure.into_verdict());
        }
        // A wrong token or an unkept claim refutes the wait whatever its uses saw.
        if let Some(failure) = checker.discharge(&TokenClaims { wait: *w }) {
            *verdict = Some(failure.into_verdict());
        }
    }
    // With violations elsewhere on the queue, tightness is measured around them.
    for (w, verdict) in waits.undecided() {
        *verdict = Some(match &safety {
            Ok(encoded) if measure_tightness => {
                let queue = Queue { safety: encoded, drained: &drained, excluded: &excluded };
                tightness::tightness(checker, &queue, w)
            }
            _ => WaitVerdict::Proved,
        });
    }
    // A wait refuted by its uses, with a constant count: how to fix it, measured around the
    // violations of the other waits.
    let helps: Vec<Option<FixHint>> = (waits.waits.iter().zip(&waits.verdicts))
        .map(|(w, verdict)| {
            let written = fixable_count(checker.model, *w)?;
            let refuted_here = violations.iter().any(|(_, by)| *by == Some(*w));
            let encoded = safety.as_ref().ok().filter(|_| measure_tightness && refuted_here)?;
            if !verdict.as_ref().is_some_and(WaitVerdict::is_refuted) {
                return None;
            }
            let others: Vec<StoreUse> =
                violations.iter().filter(|(_, by)| *by != Some(*w)).map(|(pair, _)| *pair).collect();
            let queue = Queue { safety: encoded, drained: &drained, excluded: &others };
            tightness::fix(checker, &queue, *w, written)
        })
        .collect();
    record(report, tightness::drained(checker, &drained, None), Some(Subject::Drained(q)));
    let remarks = waits
        .waits
        .iter()
        .zip(&waits.verdicts)
        .map(|(w, v)| v.as_ref().map_or_else(Vec::new, |v| remarks::remarks(checker, *w, v)))
        .collect();
    report_waits(checker, q, waits, remarks, helps, report);
}

/// The count of `wait` when it is a non-negative constant on its own (no tokens).
fn fixable_count(model: &Model, wait: EventId) -> Option<i64> {
    match &model.event(wait).kind {
        EventKind::Wait { until: Until::InFlight(count), .. } => count.as_int().filter(|n| *n >= 0),
        _ => None,
    }
}

/// Safety of queue `q` as written: refutes the wait that governed each violating use (or
/// reports a finding when no wait ran before it), marks the waits unknown when a pair could
/// not be decided, and returns the violating (store, use) pairs.
fn find_violations(
    checker: &Checker,
    q: QueueId,
    safety: &Result<QueueSafety, Unsupported>,
    waits: &mut QueueWaits,
    report: &mut FuncReport,
    earliest: &mut Option<Earliest>,
) -> Vec<(StoreUse, Option<EventId>)> {
    let round = match safety {
        Err(Unsupported(why)) => Round { refuted: Vec::new(), unknown: Some(Cause::NotEncoded(why.clone()).into()) },
        Ok(encoded) => {
            let order = encoded.all();
            checker.safety(
                encoded,
                &PairChecks { order: &order, excluded: &[], loosen: None, limit: MAX_VIOLATIONS, from: None },
            )
        }
    };
    let mut excluded = Vec::new();
    // Each wait is refuted by its earliest violation, the one a run meets first.
    let mut refuted = round.refuted;
    let model = checker.model;
    refuted.sort_by(|a, b| model.execution_order((a.accesses.use_, &a.use_at), (b.accesses.use_, &b.use_at)));
    if let Some(first) = refuted.first().filter(|v| v.wait.is_some() || !v.use_at.is_empty()) {
        let sooner = earliest.as_ref().is_none_or(|(use_, at, _)| {
            model.execution_order((first.accesses.use_, &first.use_at), (*use_, at)).is_lt()
        });
        if sooner {
            let event = model.event(first.accesses.use_);
            let params = model.params.iter().filter_map(|p| Some((p.name().to_owned(), first.values.get(p.name())?)));
            let shown = EarliestViolation {
                line: event.span.line,
                at: (first.use_at.iter())
                    .map(|(l, v)| format!("{} = {v}", model.loop_info(*l).var.name()))
                    .reduce(|a, b| format!("{a}, {b}")),
                params: params.collect(),
            };
            *earliest = Some((first.accesses.use_, first.use_at.clone(), shown));
        }
    }
    for v in refuted {
        excluded.push((v.accesses, v.wait));
        let refuted = WaitVerdict::Refuted { reason: v.reason.clone(), values: v.values.clone() };
        if !v.wait.is_some_and(|w| waits.decide(w, refuted)) {
            report.findings.push(Finding {
                line: checker.model.event(v.accesses.use_).span.line,
                message: v.reason,
                values: v.values,
                witness: None,
            });
        }
    }
    if let Some(why) = round.unknown {
        report.unknown.push(why.clone().about(Subject::Queue(q)));
        for (_, v) in waits.undecided() {
            *v = Some(WaitVerdict::Unknown { reason: why.clone() });
        }
    }
    excluded
}

fn report_waits(
    checker: &Checker,
    q: QueueId,
    waits: QueueWaits,
    remarks: Vec<Vec<WaitRemark>>,
    helps: Vec<Option<FixHint>>,
    report: &mut FuncReport,
) {
    let all_waits = checker.events_where(|k| matches!(k, EventKind::Wait { .. }));
    for (((w, verdict), remarks), help) in waits.waits.into_iter().zip(waits.verdicts).zip(remarks).zip(helps) {
        let event = checker.model.event(w);
        let EventKind::Wait { until, .. } = &event.kind else { continue };
        report.waits.push(WaitReport {
            index: WaitIndex::new(all_waits.partition_point(|&x| x < w)),
            line: event.span.line,
            queue: q,
            count: match until.runs() {
                Some(count) => WaitCount::of(count),
                None => match until {
                    Until::Tokens { shown, .. } => WaitCount::Tokens(shown.join(", ")),
                    Until::InFlight(count) => WaitCount::of(count),
                },
            },
            verdict: verdict.unwrap_or(WaitVerdict::Unknown { reason: Cause::NotChecked.into() }),
            remarks,
            help,
        });
    }
}
