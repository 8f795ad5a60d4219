//! `lower-async-tokens`: every wait on tokens alone gets an in-flight count
//! (docs/async-semantics.md, "Lowering tokens to counts").
//!
//! [`derive_counts`] is the derivation other crates call: for each wait that names tokens, the
//! count written by hand (if any) and the count the tokens need, as a closed form of the loop
//! variables (`counter` counts commits, `flow` follows tokens through lets and local buffers)
//! or `Dynamic` where none exists. The pass then gives each token-only wait its count next to
//! the tokens, which stay as the claim the verifier and the interpreter check, so a derived
//! count is proved exact wherever it runs; a written count is never replaced. Where some wait
//! has no closed form, `dynamic` keeps a per-thread counter of commits and computes the count
//! from it.
//!
//! Invariants: a token program that faults is refused with a located error when the
//! derivation sees the fault (a token of another queue, a group not committed yet at the wait,
//! a group token before the first commit), and otherwise still faults after lowering (the
//! tokens stay as a claim); the pass changes nothing in a function without token-only waits.

mod counter;
mod dynamic;
mod flow;
mod poly;

use std::collections::HashMap;

use tirproof_ir::annotation::ASYNC_WAIT_INFLIGHT_COUNT;
use tirproof_ir::async_op::{decode_annotations, decode_chain, WaitUntil};
use tirproof_ir::visit::{walk_stmt_mut, MutVisitor};
use tirproof_ir::{AnnValue, Diagnostic, Expr, PrimFunc, Span, Stmt, StmtKind};

use crate::{FunctionPass, FunctionReport};

pub use flow::MAX_INSTANCES;

/// The count a wait on tokens needs.
#[derive(Clone, Debug, PartialEq)]
pub enum Derived {
    /// A closed form of the loop variables and parameters (folded: a constant wherever every
    /// path agrees).
    Static(Expr),
    /// No closed form: the count follows from a counter of commits at run time.
    Dynamic(Undecided),
    /// The token program faults at this wait on every run that reaches it.
    Faults(TokenFault),
}

/// Why a wait's count has no closed form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Undecided {
    #[error("the commits before it depend on the path or on memory")]
    PathDependentCount,
    #[error("a token it names is not traced to the call that made it")]
    UntracedToken,
    #[error("the groups of its tokens are not a constant apart")]
    IncomparableTokens,
    #[error("its queue is not a constant")]
    QueueNotConstant,
}

/// A fault of the token program that the derivation sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenFault {
    #[error("the wait on queue {wait} names a token of queue {token}")]
    OtherQueue { wait: i64, token: i64 },
    #[error("the wait on queue {queue} names a group that is not committed yet (a copy that is never committed before the wait)")]
    NotCommittedYet { queue: i64 },
    #[error("`async_group_token({queue})` before the thread's first commit to queue {queue}: no group to name")]
    BeforeFirstCommit { queue: i64 },
}

/// One wait that names tokens.
#[derive(Clone, Debug, PartialEq)]
pub struct DerivedCount {
    /// The wait's position among the function's waits (every wait, in program order).
    pub index: usize,
    /// The wait's statement.
    pub span: Span,
    pub queue: Expr,
    /// The tokens the wait names.
    pub tokens: Vec<Expr>,
    /// The in-flight count written next to the tokens, if any.
    pub written: Option<Expr>,
    pub derived: Derived,
}

/// The count every wait on tokens of `func` needs, in program order.
pub fn derive_counts(func: &PrimFunc) -> Vec<DerivedCount> {
    flow::derive(func).waits
}

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct LowerAsyncTokens;

impl FunctionPass for LowerAsyncTokens {
    const NAME: &'static str = "lower-async-tokens";
    const DESCRIPTION: &'static str =
        "give every wait on tokens alone its in-flight count (closed form, or from a counter of commits)";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        let flow = flow::derive(func);
        let lowered: Vec<&DerivedCount> = flow.waits.iter().filter(|w| w.written.is_none()).collect();
        if lowered.is_empty() {
            return Ok(FunctionReport::default());
        }
        let mut errors: Vec<Diagnostic> =
            flow.faults.iter().map(|(span, fault)| Diagnostic::error(*span, fault.to_string())).collect();
        for wait in &lowered {
            if let Derived::Faults(fault) = &wait.derived {
                errors.push(Diagnostic::error(wait.span, format!("cannot lower this wait on tokens: {fault}")));
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let dynamic = lowered.iter().any(|w| matches!(w.derived, Derived::Dynamic(_)));
        let counters = if dynamic { Some(dynamic::Counters::new(func)?) } else { None };
        let mut counts = HashMap::new();
        let mut notes = Vec::new();
        for wait in lowered {
            let count = match (&wait.derived, &counters) {
                (Derived::Static(count), _) => count.clone(),
                (Derived::Dynamic(why), Some(counters)) => {
                    notes.push(format!(
                        "line {}: the wait's count comes from a counter of commits: {why}",
                        wait.span.line
                    ));
                    counters.count(wait).map_err(|d| vec![d])?
                }
                _ => continue,
            };
            counts.insert(wait.index, count);
        }
        let mut rewriter = CountWriter { next: 0, counts };
        rewriter.mutate_stmt(&mut func.body);
        if let Some(counters) = counters {
            counters.apply(func)?;
        }
        Ok(FunctionReport::notes(notes))
    }
}

/// The body of the chain of `links` attributes that starts at `stmt`.
fn chain_body_mut(stmt: &mut Stmt, links: usize) -> &mut Stmt {
    if links == 0 || !matches!(stmt.kind, StmtKind::Attr(_)) {
        return stmt;
    }
    match &mut stmt.kind {
        StmtKind::Attr(link) => chain_body_mut(&mut link.body, links - 1),
        _ => unreachable!("checked to be an attribute above"),
    }
}

/// Gives the waits of `counts` (by index) their counts, keeping their tokens as the claim.
struct CountWriter {
    next: usize,
    counts: HashMap<usize, Expr>,
}

impl MutVisitor for CountWriter {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        match &mut stmt.kind {
            StmtKind::Attr(attr) => {
                let Some(chain) = decode_chain(attr) else { return walk_stmt_mut(self, stmt) };
                let links = chain.links.len();
                let ops = chain.ops().ok();
                let count = match ops.as_ref().and_then(|o| o.wait.as_ref()) {
                    Some(_) => {
                        self.next += 1;
                        self.counts.remove(&(self.next - 1))
                    }
                    None => None,
                };
                self.mutate_stmt(chain_body_mut(stmt, links));
                let (Some(count), Some(mut ops)) = (count, ops) else { return };
                let span = stmt.span;
                let inner = std::mem::replace(chain_body_mut(stmt, links), Stmt::nop());
                if let Some(wait) = &mut ops.wait {
                    wait.until = WaitUntil::InFlightClaiming { count, tokens: wait.tokens().to_vec() };
                }
                *stmt = ops.wrap(inner);
                stmt.span = span;
            }
            StmtKind::Block(block) => {
                let has_wait =
                    matches!(decode_annotations(&block.annotations), Ok(Some(ref ops)) if ops.wait.is_some());
                let count = has_wait.then(|| {
                    self.next += 1;
                    self.counts.remove(&(self.next - 1))
                });
                if let Some(Some(count)) = count {
                    block.annotations.insert(ASYNC_WAIT_INFLIGHT_COUNT, AnnValue::Expr(count));
                }
                walk_stmt_mut(self, stmt);
            }
            _ => walk_stmt_mut(self, stmt),
        }
    }
}
