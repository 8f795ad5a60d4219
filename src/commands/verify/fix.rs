//! `tirproof verify --fix -o OUT FILE`: the program with every constant wait count replaced by
//! the largest count the verifier proved safe.
//!
//! A refuted wait is lowered to its fix hint's largest safe constant, an over-synchronized one
//! raised to its tight count; a tight wait is kept. A wait whose count is not a constant, for
//! which no count is safe, or whose safe count was not decided is left as written and named.
//!
//! Invariants: a wait is rewritten by its [`WaitIndex`] (its position among its function's
//! waits in program order, as the verifier numbers them: `T.attr` chains and block
//! annotations alike, each in pre-order), and only when the wait found there has the count
//! and line its report gives, so a numbering that disagrees leaves the wait as written (and
//! named) instead of changing another one.

use std::collections::BTreeMap;
use std::fmt;

use tirproof_ir::annotation::{AnnValue, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_WAIT_QUEUE_SCOPE};
use tirproof_ir::async_op::{decode_annotations, AsyncKey};
use tirproof_ir::visit::{walk_stmt_mut, MutVisitor};
use tirproof_ir::{Expr, PrimFunc, Stmt, StmtKind};
use tirproof_verify::waits::{FuncReport, WaitCount, WaitIndex, WaitReport, WaitVerdict};

/// What `--fix` does with one wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The count becomes `to`.
    Set { to: i64 },
    /// The count is kept: proved tight, or proved and needed by no count at all.
    Keep,
    /// The count is left as written, and why.
    Leave(LeftBecause),
}

/// Why a wait is left as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeftBecause {
    /// No count is safe there, not even 0.
    NoSafeCount,
    /// The largest safe count was not decided.
    NotDecided,
    /// The count is not a constant (an expression, or tokens).
    NotConstant,
    /// The wait found at its position is not the one the verifier reported.
    NotLocated,
}

impl fmt::Display for LeftBecause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LeftBecause::NoSafeCount => "no count is safe there, not even 0",
            LeftBecause::NotDecided => "its largest safe count was not decided",
            LeftBecause::NotConstant => "its count is not a constant",
            LeftBecause::NotLocated => "it was not found where the verifier numbers it",
        })
    }
}

/// What `--fix` decides for `wait` from its verdict.
pub fn decide(wait: &WaitReport) -> Decision {
    let WaitCount::Constant(written) = wait.count else {
        return match wait.verdict {
            WaitVerdict::ProvedTight | WaitVerdict::Proved | WaitVerdict::ProvedOverSynchronized { .. } => {
                Decision::Keep
            }
            _ => Decision::Leave(LeftBecause::NotConstant),
        };
    };
    let to = match &wait.verdict {
        WaitVerdict::ProvedTight => return Decision::Keep,
        WaitVerdict::ProvedOverSynchronized { best: None, .. } => return Decision::Keep,
        WaitVerdict::ProvedOverSynchronized { best: Some(WaitCount::Constant(best)), .. } => *best,
        WaitVerdict::Refuted { .. } => match wait.help.as_ref().map(|help| help.largest_safe) {
            Some(Some(largest)) => largest,
            Some(None) => return Decision::Leave(LeftBecause::NoSafeCount),
            None => return Decision::Leave(LeftBecause::NotDecided),
        },
        WaitVerdict::ProvedOverSynchronized { .. }
        | WaitVerdict::Proved
        | WaitVerdict::Unknown { .. }
        | WaitVerdict::ProvedBounded { .. } => return Decision::Leave(LeftBecause::NotDecided),
    };
    if to == written {
        Decision::Keep
    } else {
        Decision::Set { to }
    }
}

/// One wait's part of a fix: where it is and what was done.
pub struct Change {
    pub index: WaitIndex,
    pub line: u32,
    pub written: WaitCount,
    pub decision: Decision,
}

/// Rewrites the waits of `func` as `report` decides (see [`decide`]), and answers what was
/// done with each of its waits.
pub fn fix_func(func: &mut PrimFunc, report: &FuncReport) -> Vec<Change> {
    let wanted: BTreeMap<usize, (&WaitReport, i64)> = (report.waits.iter())
        .filter_map(|w| match decide(w) {
            Decision::Set { to } => Some((w.index.position(), (w, to))),
            _ => None,
        })
        .collect();
    let mut rewrite = Rewrite { wanted, seen: 0, done: Vec::new() };
    rewrite.mutate_stmt(&mut func.body);
    let done = rewrite.done;
    (report.waits.iter())
        .map(|w| {
            let decision = match decide(w) {
                Decision::Set { .. } if !done.contains(&w.index.position()) => Decision::Leave(LeftBecause::NotLocated),
                other => other,
            };
            Change { index: w.index, line: w.line, written: w.count.clone(), decision }
        })
        .collect()
}

/// Sets the counts of the waits in `wanted` (by position), each only where the wait found has
/// the reported count and line; `done` holds the positions set.
struct Rewrite<'a> {
    wanted: BTreeMap<usize, (&'a WaitReport, i64)>,
    seen: usize,
    done: Vec<usize>,
}

impl Rewrite<'_> {
    /// The next wait in program order, written at one of `lines` with count `count`: the count
    /// to set it to.
    fn next(&mut self, lines: &[u32], count: Option<&Expr>) -> Option<i64> {
        let position = self.seen;
        self.seen += 1;
        let (wait, to) = self.wanted.get(&position)?;
        let same_line = wait.line == 0 || lines.iter().all(|&l| l == 0) || lines.contains(&wait.line);
        let same_count = count.is_some_and(|c| WaitCount::of(c) == wait.count);
        (same_line && same_count).then(|| {
            self.done.push(position);
            *to
        })
    }
}

impl MutVisitor for Rewrite<'_> {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        let line = stmt.span.line;
        match &mut stmt.kind {
            StmtKind::Attr(attr) if attr.key == ASYNC_WAIT_QUEUE_SCOPE => {
                if let Some(count) = chain_count(&mut attr.body) {
                    if let Some(to) = self.next(&[line, count.1], Some(&*count.0)) {
                        *count.0 = Expr::int(to);
                    }
                } else {
                    self.next(&[line], None);
                }
            }
            StmtKind::Block(block) if block.annotations.get(ASYNC_WAIT_QUEUE_SCOPE).is_some() => {
                let span = block.annotations.span;
                let written = decode_annotations(&block.annotations).ok().flatten().and_then(|ops| ops.wait);
                let count = written.as_ref().and_then(|w| w.inflight());
                if let Some(to) = self.next(&[line, span.line], count) {
                    block.annotations.insert(ASYNC_WAIT_INFLIGHT_COUNT, AnnValue::Int(to));
                }
            }
            _ => {}
        }
        walk_stmt_mut(self, stmt);
    }
}

/// The in-flight count of the wait whose queue attribute has `body` as its body, and its
/// line: the `async_wait_inflight_count` attribute further down the same chain.
fn chain_count(body: &mut Stmt) -> Option<(&mut Expr, u32)> {
    let line = body.span.line;
    let StmtKind::Attr(attr) = &mut body.kind else { return None };
    match AsyncKey::parse(&attr.key)? {
        AsyncKey::InflightCount => Some((&mut attr.value, line)),
        AsyncKey::WaitQueue => None,
        _ => chain_count(&mut attr.body),
    }
}
