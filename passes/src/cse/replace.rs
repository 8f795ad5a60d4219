//! Replacing every occurrence of a class by a variable (or, in the semantic pass, by a leaf the
//! class contains), in the positions the scan counts.
//!
//! Classes are computed bottom-up, so a tree is classified in one pass; an occurrence is
//! replaced before its parent is classified, and the parent then contains the variable.
//! Invariants: positions are those of `table` (an `if` statement's branches included), and
//! nothing inside a lazy `if_then_else` arm is replaced: a computation never leaves an arm.

use tirproof_ir::{Expr, Stmt, StmtKind};

use super::eligible::children_mut;
use super::strategy::{classify, Strategy};

/// One replacement: the members of `target` interchangeable with `repr` become `with`.
pub struct Replacer<'s> {
    pub strategy: &'s mut dyn Strategy,
    pub target: u64,
    pub repr: &'s Expr,
    pub with: &'s Expr,
    /// How many occurrences were replaced.
    pub count: usize,
}

impl Replacer<'_> {
    /// Rewrites `e` (a root of the scope) and returns its class.
    pub fn expr(&mut self, e: &mut Expr) -> Option<u64> {
        self.visit(e, true)
    }

    fn visit(&mut self, e: &mut Expr, allowed: bool) -> Option<u64> {
        let kids: Vec<Option<u64>> =
            children_mut(e).into_iter().map(|(c, lazy)| self.visit(c, allowed && !lazy)).collect();
        let class = self.strategy.class(e, &kids);
        if allowed && class == Some(self.target) && self.strategy.interchangeable(e, self.repr) {
            *e = self.with.clone();
            self.count += 1;
            return classify(&mut *self.strategy, e);
        }
        class
    }

    /// Rewrites the positions of `s` that the scan counts.
    pub fn stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Store(store) => {
                store.indices.iter_mut().for_each(|i| {
                    self.expr(i);
                });
                self.expr(&mut store.value);
            }
            StmtKind::Let { value, body, .. } => {
                self.expr(value);
                self.stmt(body);
            }
            StmtKind::For(f) => {
                self.expr(&mut f.min);
                self.expr(&mut f.extent);
                self.stmt(&mut f.body);
            }
            StmtKind::If { cond, then_case, else_case } => {
                self.expr(cond);
                self.stmt(then_case);
                if let Some(e) = else_case {
                    self.stmt(e);
                }
            }
            StmtKind::Seq(items) => items.iter_mut().for_each(|s| self.stmt(s)),
            StmtKind::Evaluate(e) => {
                self.expr(e);
            }
            StmtKind::Attr(a) => self.stmt(&mut a.body),
            StmtKind::Allocate(a) => self.stmt(&mut a.body),
            StmtKind::AllocBuffer { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::LaunchThread { body, .. } => self.stmt(body),
            StmtKind::Barrier { .. } | StmtKind::Block(_) => {}
        }
    }
}
