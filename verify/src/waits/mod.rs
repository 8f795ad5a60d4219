//! Proofs about async waits: for every wait of a function, whether it is safe, whether it is
//! tight, whether its executed count is never negative, and whether every group is complete
//! when the function ends — as SMT queries over the loop variables and symbolic extents,
//! without unrolling.
//!
//! `model` extracts loops and events from any TVMScript (our pipeline output, TVM's S-TIR or
//! flattened TIR); `encode` gives the closed forms (commits before a point, the last wait
//! before a point); `obligations` builds and runs the queries; `report` holds the verdicts.
//! Data flow (whether a read sees the producer instance the original program meant) needs
//! the pass's provenance, which text does not carry: from text, race freedom is checked and
//! the report says so.

mod encode;
mod model;
mod obligations;
mod report;

use std::collections::BTreeSet;
use std::time::Duration;

use tirproof_ir::PrimFunc;

pub use report::{Finding, FuncReport, WaitReport, WaitVerdict};

use model::{EventKind, Model};
use obligations::{Checker, Loosen, Safety, WaitFailure};

/// How to verify.
#[derive(Clone, Debug)]
pub struct Options {
    /// Time limit of each query.
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

/// Largest loosening tried when measuring how over-synchronized a wait is.
const MAX_SLACK: i64 = 64;
/// Violations reported per queue before giving up on finding more.
const MAX_VIOLATIONS: usize = 8;

/// Verifies every wait of `func`. The second value holds the SMT-LIB dumps, if asked for.
pub fn verify_func(func: &PrimFunc, options: &Options) -> (FuncReport, Vec<(String, String)>) {
    let model = Model::of(func);
    let mut checker = Checker {
        model: &model,
        bounded: Default::default(),
        timeout: options.timeout,
        name: func.name.clone(),
        dumps: options.dump_smtlib.then(Vec::new),
        queries: 0,
    };
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
    for l in checker.bounded.borrow().iter() {
        report.notes.push(format!(
            "bounded encoding: a condition on loop `{}` is not an interval; the proofs hold for at most {} iterations of it",
            model.loops[*l].var.name(),
            encode::ENUMERATED_ITERATIONS
        ));
    }
    report.queries = checker.queries;
    let dumps = checker.dumps.take().unwrap_or_default();
    (report, dumps)
}

fn verify_queue(checker: &mut Checker, q: i64, report: &mut FuncReport, measure_tightness: bool) {
    let waits = checker.waits(q);
    let mut verdicts: Vec<Option<WaitVerdict>> = vec![None; waits.len()];
    let index = |w: usize| waits.iter().position(|x| *x == w);
    // Safety: find violations, attributing each to the wait that governed the use.
    let mut excluded = Vec::new();
    for _ in 0..MAX_VIOLATIONS {
        match checker.safety(q, None, &excluded) {
            Safety::Safe => break,
            Safety::Unknown(why) => {
                report.unknown.push(format!("queue {q}: {why}"));
                for v in verdicts.iter_mut().filter(|v| v.is_none()) {
                    *v = Some(WaitVerdict::Unknown { reason: why.clone() });
                }
                break;
            }
            Safety::Violated(v) => {
                excluded.push((v.store, v.use_));
                let refuted = WaitVerdict::Refuted { reason: v.reason.clone(), values: v.values.clone() };
                match v.wait.and_then(index) {
                    Some(i) if verdicts[i].is_none() => verdicts[i] = Some(refuted),
                    Some(_) => {}
                    None => report.findings.push(Finding {
                        line: checker.model.events[v.use_].span.line,
                        message: v.reason,
                        values: v.values,
                    }),
                }
            }
        }
    }
    for (i, &w) in waits.iter().enumerate() {
        if let Some(failure) = checker.negative(w) {
            verdicts[i] = Some(match failure {
                WaitFailure::Refuted(reason, values) => WaitVerdict::Refuted { reason, values },
                WaitFailure::Unknown(reason) => WaitVerdict::Unknown { reason },
            });
        }
    }
    // With violations elsewhere on the queue, tightness is measured around them.
    let open: Vec<usize> = (0..waits.len()).filter(|&i| verdicts[i].is_none()).collect();
    if measure_tightness {
        for (i, verdict) in tightness_in_parallel(checker, q, &waits, &open, &excluded) {
            verdicts[i] = Some(verdict);
        }
    } else {
        for i in open {
            verdicts[i] = Some(WaitVerdict::Proved);
        }
    }
    if let Some(failure) = checker.drained(q, None) {
        match failure {
            WaitFailure::Refuted(message, values) => report.findings.push(Finding { line: 0, message, values }),
            WaitFailure::Unknown(why) => report.unknown.push(format!("queue {q} drained at the end: {why}")),
        }
    }
    for (i, &w) in waits.iter().enumerate() {
        let event = &checker.model.events[w];
        let EventKind::Wait { count, .. } = &event.kind else { continue };
        report.waits.push(WaitReport {
            line: event.span.line,
            queue: q,
            count: tirproof_ir::text::print_expr(count),
            verdict: verdicts[i].take().unwrap_or(WaitVerdict::Unknown { reason: "not checked".into() }),
        });
    }
}

/// What one tightness thread found: verdicts by wait index, queries run, loops it bounded.
type ThreadResult = (Vec<(usize, WaitVerdict)>, usize, Vec<usize>);

/// Tightness of several waits, on as many threads as the machine has (each thread has its own
/// Z3 context; the queries are independent).
fn tightness_in_parallel(
    checker: &mut Checker,
    q: i64,
    waits: &[usize],
    open: &[usize],
    excluded: &[(usize, usize)],
) -> Vec<(usize, WaitVerdict)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(open.len()).max(1);
    if threads == 1 || checker.dumps.is_some() {
        return open.iter().map(|&i| (i, tightness(checker, q, waits[i], excluded))).collect();
    }
    let chunks: Vec<Vec<usize>> =
        (0..threads).map(|t| open.iter().copied().skip(t).step_by(threads).collect()).collect();
    let (model, timeout, name) = (checker.model, checker.timeout, checker.name.clone());
    let results: Vec<ThreadResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let name = name.clone();
                scope.spawn(move || {
                    let mut local =
                        Checker { model, bounded: Default::default(), timeout, name, dumps: None, queries: 0 };
                    let verdicts: Vec<(usize, WaitVerdict)> =
                        chunk.iter().map(|&i| (i, tightness(&mut local, q, waits[i], excluded))).collect();
                    let bounded = local.bounded.borrow().iter().copied().collect();
                    (verdicts, local.queries, bounded)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| (Vec::new(), 0, Vec::new()))).collect()
    });
    let mut out = Vec::new();
    for (verdicts, queries, bounded) in results {
        checker.queries += queries;
        checker.bounded.borrow_mut().extend(bounded);
        out.extend(verdicts);
    }
    // A thread that died leaves its waits without a verdict; they are reported unknown later.
    out
}

/// Safe as written: is one more group in flight still safe, and how many more?
fn tightness(checker: &mut Checker, q: i64, wait: usize, excluded: &[(usize, usize)]) -> WaitVerdict {
    // Loosened, the wait must still keep every use safe and leave nothing in flight at the end.
    let safe_with = |checker: &mut Checker, by: i64| {
        let loosen = Some(Loosen { wait, by });
        match checker.safety(q, loosen, excluded) {
            Safety::Safe => match checker.drained(q, loosen) {
                None => Safety::Safe,
                Some(WaitFailure::Unknown(why)) => Safety::Unknown(why),
                Some(WaitFailure::Refuted(..)) => Safety::Violated(obligations::Violation::at_end()),
            },
            other => other,
        }
    };
    match safe_with(checker, 1) {
        Safety::Violated(_) => return WaitVerdict::ProvedTight,
        Safety::Unknown(why) => return WaitVerdict::Unknown { reason: format!("tightness: {why}") },
        Safety::Safe => {}
    }
    // Find the largest safe loosening: double, then bisect.
    let (mut good, mut bad) = (1, None);
    let mut by = 2;
    while by <= MAX_SLACK {
        match safe_with(checker, by) {
            Safety::Safe => good = by,
            Safety::Violated(_) => {
                bad = Some(by);
                break;
            }
            Safety::Unknown(why) => return WaitVerdict::Unknown { reason: format!("tightness: {why}") },
        }
        by *= 2;
    }
    let Some(mut bad) = bad else { return WaitVerdict::ProvedOverSynchronized { best: None, by: None } };
    while bad - good > 1 {
        let mid = (good + bad) / 2;
        match safe_with(checker, mid) {
            Safety::Safe => good = mid,
            _ => bad = mid,
        }
    }
    let EventKind::Wait { count, .. } = &checker.model.events[wait].kind else {
        return WaitVerdict::ProvedOverSynchronized { best: None, by: Some(good) };
    };
    let best = match count.as_int() {
        Some(n) => (n + good).to_string(),
        None => format!("{} + {good}", tirproof_ir::text::print_expr(count)),
    };
    WaitVerdict::ProvedOverSynchronized { best: Some(best), by: Some(good) }
}
