//! Replacing every occurrence of a class by a variable (or, in the semantic pass, by a leaf the
//! class contains), in the positions the scan counts.
//!
//! Classes are computed bottom-up, so a tree is classified in one pass; an occurrence is
//! replaced before its parent is classified, and the parent then contains the variable.
//! Invariants: positions are those of `table` (an `if` statement's branches included), and
//! nothing inside a lazy `if_then_else` arm is replaced: a computation never leaves an arm.
//!
//! When classes are trees (`Strategy::classes_are_trees`), occurrences are found top-down by
//! comparing trees, without classifying: the result is the same, since a tree never strictly
//! contains a tree equal to itself, and a node is only replaced where no node inside it was.

use tirproof_ir::{Expr, Stmt, StmtKind};

use super::eligible::for_each_child_mut;
use super::key::same_tree;
use super::strategy::{classify, Strategy};

/// One replacement: the members of `target` interchangeable with `repr` become `with`.
pub struct Replacer<'s> {
    pub strategy: &'s mut dyn Strategy,
    pub target: u64,
    pub repr: &'s Expr,
    pub with: &'s Expr,
    /// How many occurrences were replaced.
    pub count: usize,
    /// The classes of the operands being combined (a stack shared by the whole walk).
    pub classes: Vec<Option<u64>>,
}

impl Replacer<'_> {
    /// Rewrites `e` (a root of the scope).
    pub fn expr(&mut self, e: &mut Expr) {
        if self.strategy.classes_are_trees() {
            self.replace_trees(e);
        } else {
            self.visit(e, true);
        }
    }

    fn replace_trees(&mut self, e: &mut Expr) {
        if same_tree(e, self.repr) {
            *e = self.with.clone();
            self.count += 1;
            return;
        }
        for_each_child_mut(e, |c, lazy| {
            if !lazy {
                self.replace_trees(c);
            }
        });
    }

    fn visit(&mut self, e: &mut Expr, allowed: bool) -> Option<u64> {
        let first = self.classes.len();
        for_each_child_mut(e, |c, lazy| {
            let class = self.visit(c, allowed && !lazy);
            self.classes.push(class);
        });
        let class = self.strategy.class(e, &self.classes[first..]);
        self.classes.truncate(first);
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
                store.indices.iter_mut().for_each(|i| self.expr(i));
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
            StmtKind::Evaluate(e) => self.expr(e),
            StmtKind::Attr(a) => self.stmt(&mut a.body),
            StmtKind::Allocate(a) => self.stmt(&mut a.body),
            StmtKind::AllocBuffer { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::LaunchThread { body, .. } => self.stmt(body),
            StmtKind::Barrier { .. } | StmtKind::Block(_) => {}
        }
    }
}
