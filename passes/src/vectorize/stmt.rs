//! Vectorizing the statements of a `T.vectorized` loop body: each statement runs once for all
//! lanes instead of once per iteration.
//!
//! Handled: stores (the last index must vary: a store at a uniform index would be one element
//! written by every lane), sequences, lets, `if` on a uniform condition, `async_scope` and
//! attributes with uniform values that have no run-time effect, and constant evaluations.
//! Everything else blocks: nested loops, a varying `if`, commits and waits (they must run
//! once per iteration), allocations, declarations, barriers, thread launches and blocks.
//!
//! Invariant: statement-major order is only valid because `deps.rs` has already shown that
//! no element is touched by two iterations; this file only rewrites.

use tirproof_ir::annotation::ASYNC_SCOPE;
use tirproof_ir::{AttrStmt, BufferStore, Stmt, StmtKind};

use super::blocker::Blocker;
use super::expr::{Vectorizer, Vx};

type R<T> = Result<T, Blocker>;

impl Vectorizer<'_> {
    pub(super) fn stmt(&mut self, s: &Stmt) -> R<Stmt> {
        let kind = match &s.kind {
            StmtKind::Store(store) => StmtKind::Store(self.store(store)?),
            StmtKind::Seq(items) => StmtKind::Seq(items.iter().map(|i| self.stmt(i)).collect::<R<_>>()?),
            StmtKind::Let { var, value, body } => {
                let value = self.expr(value)?;
                let (var, body) = self.bind(var, &value, |v| v.stmt(body))?;
                let value = value.into_expr();
                StmtKind::Let { var, value, body: Box::new(body) }
            }
            StmtKind::If { cond, then_case, else_case } => {
                let Vx::Uniform(cond) = self.expr(cond)? else {
                    return Err(Blocker::VaryingIf);
                };
                let then_case = Box::new(self.stmt(then_case)?);
                let else_case = else_case.as_ref().map(|e| self.stmt(e).map(Box::new)).transpose()?;
                StmtKind::If { cond, then_case, else_case }
            }
            StmtKind::Attr(attr) => StmtKind::Attr(self.attr(attr)?),
            StmtKind::Evaluate(e) if e.is_const() => s.kind.clone(),
            other => return Err(blocking_statement(other)),
        };
        Ok(Stmt { kind, span: s.span, origin: s.origin.clone() })
    }

    fn store(&mut self, store: &BufferStore) -> R<BufferStore> {
        let (indices, varying) = self.indices(&store.buffer, &store.indices)?;
        if !varying {
            return Err(Blocker::InvariantStore(store.buffer.name().to_string()));
        }
        let value = self.expr(&store.value)?;
        let value = self.widen(value)?;
        let want = u32::from(store.buffer.dtype().lanes) * u32::from(self.lanes);
        if u32::from(value.dtype().lanes) != want {
            return Err(Blocker::Lanes(format!(
                "the store to `{}` takes {want} lanes, its value has {}",
                store.buffer,
                value.dtype().lanes
            )));
        }
        Ok(BufferStore { buffer: store.buffer.clone(), indices, value })
    }

    /// `async_scope` marks each lane's store asynchronous, as it marked each iteration's;
    /// commits and waits count iterations, so they block.
    fn attr(&mut self, attr: &AttrStmt) -> R<AttrStmt> {
        if attr.key != ASYNC_SCOPE && attr.key.starts_with("async_") {
            return Err(Blocker::Attr(attr.key.clone()));
        }
        let uniform = |v: Vx| match v {
            Vx::Uniform(e) => Ok(e),
            Vx::Varying(_) => Err(Blocker::Attr(attr.key.clone())),
        };
        let value = uniform(self.expr(&attr.value)?)?;
        let node = attr.node.as_ref().map(|n| self.expr(n).and_then(uniform)).transpose()?;
        Ok(AttrStmt { node, key: attr.key.clone(), value, body: Box::new(self.stmt(&attr.body)?) })
    }
}

fn blocking_statement(kind: &StmtKind) -> Blocker {
    match kind {
        StmtKind::For(f) => Blocker::NestedLoop(f.var.name().to_string()),
        StmtKind::Evaluate(_) => Blocker::Statement("a `T.evaluate` of a non-constant expression"),
        StmtKind::Barrier { .. } => Blocker::Statement("a barrier"),
        StmtKind::Allocate(_) | StmtKind::AllocBuffer { .. } => Blocker::Statement("an allocation"),
        StmtKind::DeclBuffer { .. } => Blocker::Statement("a buffer declaration"),
        StmtKind::LaunchThread { .. } => Blocker::Statement("a thread launch"),
        StmtKind::Block(_) => Blocker::Statement("an S-TIR block (run lower-opaque-block first)"),
        _ => Blocker::Statement("a statement the vectorizer does not handle"),
    }
}
