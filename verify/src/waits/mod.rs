//! Proofs about async waits: for every wait of a function, whether it is safe, whether it is
//! tight, whether its executed count is never negative, and whether every group is complete
//! when the function ends — as SMT queries over the loop variables and symbolic extents,
//! without unrolling.
//!
//! `model` extracts loops and events from any TVMScript (our pipeline output, TVM's S-TIR or
//! flattened TIR); `encode` gives the closed forms (commits before a point, the last wait
//! before a point), built with `fold`, which folds constants as terms are built; `checker`
//! holds the solver session and the counts the obligations are built from; `safety`,
//! `drained` and `dataflow` encode and check the queries, `tightness` measures how
//! over-synchronized a safe wait is; `report` holds the verdicts.
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
mod report;
mod safety;
mod tightness;

use std::collections::BTreeSet;
use std::time::Duration;

use tirproof_ir::PrimFunc;

pub use report::{Finding, FuncReport, WaitReport, WaitVerdict};

use crate::solver::{in_fresh_context, watched, Watchdog};
use checker::{Checker, WaitFailure};
use encode::Unsupported;
use model::{EventId, EventKind, Model};
use safety::{QueueSafety, Round};
use tightness::Queue;

/// How to verify.
#[derive(Clone, Debug)]
pub struct Options {
    /// Time limit of each solver check.
    pub timeout: Duration,
    /// Keep every query as SMT-LIB (name, text) in the report's dumps.
    pub dump_smtlib: bool,
    /// Measure how over-synchronized each proved wait is (more queries); without it a proved
    /// wait is reported tight.
    pub tightness: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { timeout: crate::DEFAULT_TIMEOUT, dump_smtlib: false, tightness: true }
    }
}

/// Violations reported per queue before giving up on finding more.
const MAX_VIOLATIONS: usize = 8;

/// Verifies every wait of `func`. The second value holds the SMT-LIB dumps, if asked for.
pub fn verify_func(func: &PrimFunc, options: &Options) -> (FuncReport, Vec<(String, String)>) {
    let model = Model::of(func);
    in_fresh_context(|| watched(|watchdog| verify_model(func, &model, options, watchdog)))
}

fn verify_model<'m>(
    func: &PrimFunc,
    model: &'m Model,
    options: &Options,
    watchdog: &'m Watchdog<'m>,
) -> (FuncReport, Vec<(String, String)>) {
    let mut checker = Checker::new(model, &func.name, (options.timeout, watchdog), options.dump_smtlib);
    let mut report = FuncReport { name: func.name.clone(), ..FuncReport::default() };
    if model.has_provenance() {
        report.notes.push("data flow checked with the pass's provenance".into());
        match checker.data_flow() {
            None => {}
            Some(WaitFailure::Refuted(message, values)) => report.findings.push(Finding { line: 0, message, values }),
            Some(WaitFailure::Unknown(why)) => report.unknown.push(why),
        }
    } else {
        report.notes.push("data flow is not checked (no provenance in the input); race freedom is".into());
    }
    for (span, why) in &model.unsupported {
        report.notes.push(format!("line {}: {why}", span.line));
    }
    for e in &model.events {
        if let EventKind::AsyncStore { commit: None, .. } = e.kind {
            // It joins whichever commit this thread runs next (of any queue); that is not
            // encoded, so nothing about it is claimed.
            report.unknown.push(format!(
                "line {}: the async store {} is outside every commit scope; which group it joins is not encoded",
                e.span.line, e.text
            ));
        }
    }
    let queues: BTreeSet<i64> = model
        .events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Commit { queue } | EventKind::Wait { queue, .. } => Some(queue),
            _ => None,
        })
        .collect();
    for q in queues {
        verify_queue(&mut checker, q, &mut report, options.tightness);
    }
    report.waits.sort_by_key(|w| (w.line, w.queue));
    for l in &checker.bounded {
        report.notes.push(format!(
            "bounded encoding: a condition on loop `{}` is not an interval; the proofs hold for at most {} iterations of it",
            model.loops[*l].var.name(),
            encode::ENUMERATED_ITERATIONS
        ));
    }
    report.queries = checker.log.queries();
    let dumps = checker.log.take_dumps();
    (report, dumps)
}

fn verify_queue(checker: &mut Checker, q: i64, report: &mut FuncReport, measure_tightness: bool) {
    let waits = checker.waits(q);
    let mut verdicts: Vec<Option<WaitVerdict>> = vec![None; waits.len()];
    let safety = checker.encode_safety(q);
    let drained = checker.encode_drained(q);
    let excluded = find_violations(checker, q, &safety, (&waits, &mut verdicts), report);
    for (i, &w) in waits.iter().enumerate() {
        if let Some(failure) = checker.negative(w) {
            verdicts[i] = Some(match failure {
                WaitFailure::Refuted(reason, values) => WaitVerdict::Refuted { reason, values },
                WaitFailure::Unknown(reason) => WaitVerdict::Unknown { reason },
            });
        }
    }
    // With violations elsewhere on the queue, tightness is measured around them.
    for (i, verdict) in verdicts.iter_mut().enumerate().filter(|(_, v)| v.is_none()) {
        *verdict = Some(match &safety {
            Ok(encoded) if measure_tightness => {
                let queue = Queue { safety: encoded, drained: &drained, excluded: &excluded };
                tightness::tightness(checker, &queue, waits[i])
            }
            _ => WaitVerdict::Proved,
        });
    }
    if let Some(failure) = tightness::drained(checker, &drained, None) {
        match failure {
            WaitFailure::Refuted(message, values) => report.findings.push(Finding { line: 0, message, values }),
            WaitFailure::Unknown(why) => report.unknown.push(format!("queue {q} drained at the end: {why}")),
        }
    }
    report_waits(checker, q, &waits, verdicts, report);
}

/// Safety of queue `q` as written: refutes the wait that governed each violating use (or
/// reports a finding when no wait ran before it), marks the waits unknown when a pair could
/// not be decided, and returns the violating (store, use) pairs.
fn find_violations(
    checker: &Checker,
    q: i64,
    safety: &Result<QueueSafety, Unsupported>,
    (waits, verdicts): (&[EventId], &mut [Option<WaitVerdict>]),
    report: &mut FuncReport,
) -> Vec<(EventId, EventId)> {
    let round = match safety {
        Err(Unsupported(why)) => Round { violations: Vec::new(), unknown: Some(format!("not encoded exactly: {why}")) },
        Ok(encoded) => checker.safety(encoded, None, &[], (&encoded.all(), MAX_VIOLATIONS)),
    };
    let mut excluded = Vec::new();
    for v in round.violations {
        excluded.push((v.store, v.use_));
        let refuted = WaitVerdict::Refuted { reason: v.reason.clone(), values: v.values.clone() };
        match v.wait.and_then(|w| waits.iter().position(|x| *x == w)) {
            Some(i) if verdicts[i].is_none() => verdicts[i] = Some(refuted),
            Some(_) => {}
            None => report.findings.push(Finding {
                line: checker.model.events[v.use_].span.line,
                message: v.reason,
                values: v.values,
            }),
        }
    }
    if let Some(why) = round.unknown {
        report.unknown.push(format!("queue {q}: {why}"));
        for v in verdicts.iter_mut().filter(|v| v.is_none()) {
            *v = Some(WaitVerdict::Unknown { reason: why.clone() });
        }
    }
    excluded
}

fn report_waits(
    checker: &Checker,
    q: i64,
    waits: &[EventId],
    mut verdicts: Vec<Option<WaitVerdict>>,
    report: &mut FuncReport,
) {
    let all_waits = checker.events_where(|k| matches!(k, EventKind::Wait { .. }));
    for (i, &w) in waits.iter().enumerate() {
        let event = &checker.model.events[w];
        let EventKind::Wait { count, .. } = &event.kind else { continue };
        report.waits.push(WaitReport {
            index: all_waits.partition_point(|&x| x < w),
            line: event.span.line,
            queue: q,
            count: tirproof_ir::print::print_expr(count),
            verdict: verdicts[i].take().unwrap_or(WaitVerdict::Unknown { reason: "not checked".into() }),
        });
    }
}
