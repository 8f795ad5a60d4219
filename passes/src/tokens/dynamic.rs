//! The dynamic fallback: a per-thread counter of the groups committed to each queue, for
//! waits whose count has no closed form.
//!
//! Each constant queue `q` of the function gets a local `int64` buffer of one element, set to
//! 0 where the thread starts (the function's body, or the body of each outermost thread
//! binding, which every thread runs) and incremented right after every commit to `q`. Token
//! calls become values of it (`Token { queue: q, group: 0 }` plus `counter - 1` for
//! `async_group_token`, plus `counter` for `async_copy_token`), and a wait's count is
//! `counter - 1 - (token & TOKEN_GROUP_MASK)`, the least over its tokens. The tokens stay as
//! the wait's claim, so a token of another queue, or of a group not committed yet, still
//! faults where the wait runs.
//!
//! Invariants: the counter equals `committed(q)` of the thread at every point, because every
//! commit to `q` is followed by its increment and nothing else writes it; a commit or token
//! call whose queue is not a constant is refused with its location.

use std::collections::BTreeMap;

use tirproof_ir::async_op::{decode_annotations, decode_chain, decode_token_op, Token, TokenOp, TOKEN_GROUP_MASK};
use tirproof_ir::buffer::BufferSpec;
use tirproof_ir::index_arith::{const_int, imm};
use tirproof_ir::visit::{walk_expr_mut, walk_stmt_mut, MutVisitor, Visitor};
use tirproof_ir::{
    Annotations, BinOp, Buffer, BufferStore, DataType, Diagnostic, Expr, ForKind, PrimFunc, Span, Stmt, StmtKind,
};

use super::{chain_body_mut, DerivedCount};
use crate::fold::{add, binary, sub};

/// The counters of one function, one per constant queue.
pub(crate) struct Counters {
    buffers: BTreeMap<i64, Buffer>,
}

impl Counters {
    /// A counter for every queue of `func`, or the located errors of queues that are not
    /// constants.
    pub(crate) fn new(func: &PrimFunc) -> Result<Counters, Vec<Diagnostic>> {
        let mut finder = NonConstantQueues { span: func.span, errors: Vec::new() };
        finder.visit_stmt(&func.body);
        if !finder.errors.is_empty() {
            return Err(finder.errors);
        }
        let buffers = super::flow::queues(&func.body)
            .into_iter()
            .map(|q| {
                let spec = BufferSpec::new(format!("committed_q{q}"), DataType::INT64, vec![Expr::int(1)], "local");
                (q, spec.build())
            })
            .collect();
        Ok(Counters { buffers })
    }

    fn value(&self, queue: i64) -> Option<Expr> {
        self.buffers.get(&queue).map(|b| Expr::load(b, vec![Expr::int(0)]))
    }

    /// The count of `wait` from the counter of its queue.
    pub(crate) fn count(&self, wait: &DerivedCount) -> Result<Expr, Diagnostic> {
        let refuse = || Diagnostic::error(wait.span, "a wait on tokens of a queue that is not a constant has no count");
        let committed = const_int(&wait.queue).and_then(|q| self.value(q)).ok_or_else(refuse)?;
        let mut count: Option<Expr> = None;
        for token in &wait.tokens {
            let group = binary(BinOp::BitAnd, token.clone(), imm(TOKEN_GROUP_MASK, DataType::INT64));
            let needed = sub(sub(committed.clone(), imm(1, DataType::INT64)), group);
            count = Some(match count {
                None => needed,
                Some(c) => binary(BinOp::Min, c, needed),
            });
        }
        count.ok_or_else(refuse)
    }

    /// Counts commits and replaces token calls in `func`.
    pub(crate) fn apply(self, func: &mut PrimFunc) -> Result<(), Vec<Diagnostic>> {
        let mut rewriter = Rewriter { counters: &self, errors: Vec::new() };
        rewriter.mutate_stmt(&mut func.body);
        if !rewriter.errors.is_empty() {
            return Err(rewriter.errors);
        }
        let body = std::mem::replace(&mut func.body, Stmt::nop());
        let (body, launched) = self.start_threads(body);
        func.body = if launched { body } else { self.initialized(body) };
        Ok(())
    }

    /// `body` with the counters allocated and set to 0 before it.
    fn initialized(&self, body: Stmt) -> Stmt {
        let span = body.span;
        let mut stmts: Vec<Stmt> = self
            .buffers
            .values()
            .map(|b| {
                let store =
                    BufferStore { buffer: b.clone(), indices: vec![Expr::int(0)], value: imm(0, DataType::INT64) };
                Stmt::new(StmtKind::Store(store), span)
            })
            .collect();
        stmts.push(body);
        let mut stmt = Stmt::seq(stmts);
        for buffer in self.buffers.values().rev() {
            stmt = Stmt::new(
                StmtKind::AllocBuffer {
                    buffer: buffer.clone(),
                    annotations: Annotations::default(),
                    body: Box::new(stmt),
                },
                span,
            );
        }
        stmt
    }

    /// `stmt` with the counters set up at the start of each outermost thread binding; whether
    /// there was one.
    fn start_threads(&self, mut stmt: Stmt) -> (Stmt, bool) {
        let launched = match &mut stmt.kind {
            StmtKind::LaunchThread { body, .. } => {
                let inner = std::mem::replace(body.as_mut(), Stmt::nop());
                **body = self.initialized(inner);
                true
            }
            StmtKind::For(f) if f.kind == ForKind::ThreadBinding => {
                let inner = std::mem::replace(&mut f.body, Stmt::nop());
                f.body = self.initialized(inner);
                true
            }
            StmtKind::Seq(stmts) => {
                let mut any = false;
                for s in stmts.iter_mut() {
                    let (done, launched) = self.start_threads(std::mem::replace(s, Stmt::nop()));
                    *s = done;
                    any |= launched;
                }
                any
            }
            StmtKind::If { then_case, else_case, .. } => {
                let (done, mut any) = self.start_threads(std::mem::replace(then_case.as_mut(), Stmt::nop()));
                **then_case = done;
                if let Some(e) = else_case {
                    let (done, launched) = self.start_threads(std::mem::replace(e.as_mut(), Stmt::nop()));
                    **e = done;
                    any |= launched;
                }
                any
            }
            StmtKind::Block(block) => {
                let (done, launched) = self.start_threads(std::mem::replace(&mut block.body, Stmt::nop()));
                block.body = done;
                launched
            }
            _ => match stmt_body_mut(&mut stmt) {
                Some(body) => {
                    let (done, launched) = self.start_threads(std::mem::replace(body, Stmt::nop()));
                    *body = done;
                    launched
                }
                None => false,
            },
        };
        (stmt, launched)
    }

    /// The increment of the counter of `queue` after a commit.
    fn increment(&self, queue: i64, span: Span) -> Option<Stmt> {
        let buffer = self.buffers.get(&queue)?;
        let value = add(self.value(queue)?, imm(1, DataType::INT64));
        Some(Stmt::new(
            StmtKind::Store(BufferStore { buffer: buffer.clone(), indices: vec![Expr::int(0)], value }),
            span,
        ))
    }
}

/// The one statement a binding statement or loop scopes over.
fn stmt_body_mut(stmt: &mut Stmt) -> Option<&mut Stmt> {
    match &mut stmt.kind {
        StmtKind::For(f) => Some(&mut f.body),
        StmtKind::Let { body, .. }
        | StmtKind::AllocBuffer { body, .. }
        | StmtKind::DeclBuffer { body, .. }
        | StmtKind::LaunchThread { body, .. } => Some(body),
        StmtKind::Allocate(a) => Some(&mut a.body),
        StmtKind::Attr(a) => Some(&mut a.body),
        _ => None,
    }
}

/// Replaces token calls by counter values and counts every commit.
struct Rewriter<'a> {
    counters: &'a Counters,
    errors: Vec<Diagnostic>,
}

impl MutVisitor for Rewriter<'_> {
    fn mutate_expr(&mut self, expr: &mut Expr) {
        walk_expr_mut(self, expr);
        let Expr::Call(call) = expr else { return };
        let Some(Ok((op, queue))) = decode_token_op(call) else { return };
        let Some(q) = const_int(queue) else { return };
        let (Some(committed), Some(base)) = (self.counters.value(q), Token { queue: q, group: 0 }.encode()) else {
            return;
        };
        let value = add(imm(base, DataType::INT64), committed);
        *expr = match op {
            TokenOp::LastCommitted => sub(value, imm(1, DataType::INT64)),
            TokenOp::NextCommit => value,
        };
    }

    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        let chain = match &stmt.kind {
            StmtKind::Attr(attr) => decode_chain(attr).map(|c| (c.links.len(), c.ops().ok().and_then(|o| o.commit))),
            _ => None,
        };
        let block_commit = match &stmt.kind {
            StmtKind::Block(block) => decode_annotations(&block.annotations).ok().flatten().and_then(|o| o.commit),
            _ => None,
        };
        let commit = match chain {
            Some((links, commit)) => {
                let mut link = &mut *stmt;
                for _ in 0..links {
                    let StmtKind::Attr(a) = &mut link.kind else { break };
                    self.mutate_expr(&mut a.value);
                    link = &mut a.body;
                }
                self.mutate_stmt(chain_body_mut(stmt, links));
                commit
            }
            None => {
                walk_stmt_mut(self, stmt);
                if let StmtKind::Block(block) = &mut stmt.kind {
                    for (_, value) in block.annotations.entries.iter_mut() {
                        if let tirproof_ir::AnnValue::Expr(e) = value {
                            self.mutate_expr(e);
                        }
                    }
                }
                block_commit
            }
        };
        let Some(queue) = commit else { return };
        match const_int(&queue).and_then(|q| self.counters.increment(q, stmt.span)) {
            Some(increment) => {
                let committed = std::mem::replace(stmt, Stmt::nop());
                let span = committed.span;
                *stmt = Stmt::seq(vec![committed, increment]);
                stmt.span = span;
            }
            None => self.errors.push(Diagnostic::error(stmt.span, "a commit to a queue that is not a constant")),
        }
    }
}

/// Commits and token calls whose queue is not a constant (no counter can follow them).
struct NonConstantQueues {
    span: Span,
    errors: Vec<Diagnostic>,
}

impl Visitor for NonConstantQueues {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        if stmt.span.is_known() {
            self.span = stmt.span;
        }
        if let StmtKind::Attr(attr) = &stmt.kind {
            if let Some(Ok(ops)) = decode_chain(attr).map(|c| c.ops()) {
                if ops.commit.as_ref().is_some_and(|q| const_int(q).is_none()) {
                    self.errors.push(Diagnostic::error(
                        stmt.span,
                        "a commit to a queue that is not a constant: no counter of commits follows it",
                    ));
                }
            }
        }
        tirproof_ir::visit::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, e: &Expr) {
        if let Expr::Call(call) = e {
            if let Some(Ok((op, queue))) = decode_token_op(call) {
                if const_int(queue).is_none() {
                    self.errors.push(Diagnostic::error(
                        self.span,
                        format!(
                            "`{}` of a queue that is not a constant: no counter of commits follows it",
                            op.symbol()
                        ),
                    ));
                }
            }
        }
        tirproof_ir::visit::walk_expr(self, e);
    }
}
