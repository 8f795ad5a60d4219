//! The minimizer's edits and where they apply.
//!
//! Every edit makes the program smaller by the [`Size`](super::Size) measure or leaves it
//! alone; sites are numbered in walk order, so `apply(edit, module, site)` is deterministic.
//! An edit may produce an ill-formed or different program: the minimizer checks every
//! candidate and keeps it only if it still fails the same way.

use std::collections::BTreeMap;

use tirproof_ir::subst::Substitution;
use tirproof_ir::visit::{walk_expr_mut, walk_stmt_mut, MutVisitor};
use tirproof_ir::{Buffer, BufferId, Expr, IRModule, Stmt, StmtKind};

use super::pipeline_edits::{LoopEdit, Spec};

/// One kind of edit, from the most to the least aggressive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// A pipelined loop's statement, with its annotation entries.
    Loop(LoopEdit),
    /// Any element of a statement sequence.
    RemoveStatement,
    /// `if c: s` becomes `s` (and `else` arms their own candidate).
    DropCondition,
    /// An allocation or declaration is removed (kept only if its buffer was unused).
    RemoveAllocation,
    /// A constant loop extent becomes 1, half of it, or one less.
    ShrinkExtent,
    /// A constant dimension of a buffer is halved.
    ShrinkBuffer,
    /// A binary operation in a stored value becomes one of its operands.
    SimplifyExpression,
}

pub const EDITS: [Edit; 9] = [
    Edit::Loop(LoopEdit::RemoveStatement),
    Edit::RemoveStatement,
    Edit::DropCondition,
    Edit::RemoveAllocation,
    Edit::Loop(LoopEdit::DropAsyncStage),
    Edit::Loop(LoopEdit::LowerStage),
    Edit::ShrinkExtent,
    Edit::ShrinkBuffer,
    Edit::SimplifyExpression,
];

impl Edit {
    pub fn name(self) -> &'static str {
        match self {
            Edit::Loop(LoopEdit::RemoveStatement) => "remove a pipelined statement",
            Edit::Loop(LoopEdit::DropAsyncStage) => "drop an async stage",
            Edit::Loop(LoopEdit::LowerStage) => "lower a stage",
            Edit::RemoveStatement => "remove a statement",
            Edit::DropCondition => "drop a condition",
            Edit::RemoveAllocation => "remove an allocation",
            Edit::ShrinkExtent => "shrink an extent",
            Edit::ShrinkBuffer => "shrink a buffer",
            Edit::SimplifyExpression => "simplify an expression",
        }
    }
}

/// How many sites `edit` has in `module`.
pub fn sites(edit: Edit, module: &IRModule) -> usize {
    if edit == Edit::ShrinkBuffer {
        return shrinkable_buffers(module).len();
    }
    let mut walker = Walker { edit, target: usize::MAX, seen: 0, applied: false };
    let mut copy = module.clone();
    for func in &mut copy.functions {
        walker.mutate_stmt(&mut func.body);
    }
    walker.seen
}

/// `module` with `edit` applied at `site`, or `None` when it does not apply there.
pub fn apply(edit: Edit, module: &IRModule, site: usize) -> Option<IRModule> {
    if edit == Edit::ShrinkBuffer {
        return shrink_buffer(module, site);
    }
    let mut walker = Walker { edit, target: site, seen: 0, applied: false };
    let mut copy = module.clone();
    for func in &mut copy.functions {
        walker.mutate_stmt(&mut func.body);
    }
    walker.applied.then_some(copy)
}

/// Counts sites and applies the edit at `target`.
struct Walker {
    edit: Edit,
    target: usize,
    seen: usize,
    applied: bool,
}

impl Walker {
    /// Claims `count` sites; the local index of the target among them, if it is one of them.
    fn claim(&mut self, count: usize) -> Option<usize> {
        let local = self.target.checked_sub(self.seen).filter(|&i| i < count && !self.applied);
        self.seen += count;
        local
    }
}

impl MutVisitor for Walker {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        match (self.edit, &mut stmt.kind) {
            (Edit::Loop(edit), StmtKind::For(f)) if Spec::of(f).is_some() => {
                if let Some(i) = self.claim(edit.sites(f)) {
                    self.applied = edit.apply(f, i);
                }
            }
            (Edit::RemoveStatement, StmtKind::Seq(items)) if items.len() >= 2 => {
                if let Some(i) = self.claim(items.len()) {
                    items.remove(i);
                    self.applied = true;
                }
            }
            (Edit::DropCondition, StmtKind::If { then_case, else_case, .. }) => {
                let arms = 1 + usize::from(else_case.is_some());
                if let Some(i) = self.claim(arms) {
                    let arm = if i == 0 {
                        then_case.as_ref().clone()
                    } else {
                        else_case.as_deref().cloned().unwrap_or_else(Stmt::nop)
                    };
                    *stmt = arm;
                    self.applied = true;
                    return;
                }
            }
            (Edit::RemoveAllocation, StmtKind::AllocBuffer { body, .. } | StmtKind::DeclBuffer { body, .. }) => {
                let claimed = self.claim(1).is_some();
                if claimed {
                    let inner = body.as_ref().clone();
                    *stmt = inner;
                    self.applied = true;
                    return;
                }
            }
            (Edit::ShrinkExtent, StmtKind::For(f)) => {
                let choices = smaller_extents(&f.extent);
                if let Some(i) = self.claim(choices.len()) {
                    if let Expr::Int { value, .. } = &mut f.extent {
                        *value = choices[i];
                        self.applied = true;
                    }
                }
            }
            (Edit::SimplifyExpression, StmtKind::Store(store)) => {
                self.mutate_expr(&mut store.value);
            }
            _ => {}
        }
        walk_stmt_mut(self, stmt);
    }

    fn mutate_expr(&mut self, expr: &mut Expr) {
        if self.edit == Edit::SimplifyExpression {
            if let Expr::Binary { lhs, rhs, .. } = expr {
                if let Some(i) = self.claim(2) {
                    let operand = if i == 0 { lhs.as_ref().clone() } else { rhs.as_ref().clone() };
                    if operand.dtype() == expr.dtype() {
                        *expr = operand;
                        self.applied = true;
                    }
                    return;
                }
            }
        }
        walk_expr_mut(self, expr);
    }
}

fn smaller_extents(extent: &Expr) -> Vec<i64> {
    let Some(e) = extent.as_int() else { return Vec::new() };
    let mut out: Vec<i64> = [1, e / 2, e - 1].into_iter().filter(|&x| x >= 1 && x < e).collect();
    out.dedup();
    out
}

/// Buffers (parameters and allocations) with a constant dimension above 1, in walk order.
fn shrinkable_buffers(module: &IRModule) -> Vec<Buffer> {
    struct Collect(BTreeMap<BufferId, (usize, Buffer)>);
    impl Collect {
        fn add(&mut self, b: &Buffer) {
            if b.const_shape().is_some_and(|s| s.iter().any(|&d| d > 1)) {
                let next = self.0.len();
                self.0.entry(b.id()).or_insert((next, b.clone()));
            }
        }
    }
    impl MutVisitor for Collect {
        fn mutate_stmt(&mut self, stmt: &mut Stmt) {
            match &stmt.kind {
                StmtKind::AllocBuffer { buffer, .. } | StmtKind::DeclBuffer { buffer, .. } => self.add(buffer),
                StmtKind::Block(block) => block.alloc_buffers.iter().for_each(|a| self.add(&a.buffer)),
                _ => {}
            }
            walk_stmt_mut(self, stmt);
        }
    }
    let mut collect = Collect(BTreeMap::new());
    let mut copy = module.clone();
    for func in &mut copy.functions {
        func.params.iter().filter_map(|p| p.buffer.as_ref()).for_each(|b| collect.add(b));
        collect.mutate_stmt(&mut func.body);
    }
    let mut found: Vec<(usize, Buffer)> = collect.0.into_values().collect();
    found.sort_by_key(|(position, _)| *position);
    found.into_iter().map(|(_, b)| b).collect()
}

/// Halves the largest constant dimension of the `site`-th shrinkable buffer everywhere.
fn shrink_buffer(module: &IRModule, site: usize) -> Option<IRModule> {
    let buffer = shrinkable_buffers(module).into_iter().nth(site)?;
    let shape = buffer.const_shape()?;
    let (dim, &largest) = shape.iter().enumerate().max_by_key(|&(i, &d)| (d, usize::MAX - i))?;
    let mut spec = buffer.to_spec();
    spec.shape[dim] = Expr::int(largest / 2);
    let smaller = spec.build();
    let mut copy = module.clone();
    for func in &mut copy.functions {
        for param in &mut func.params {
            if param.buffer.as_ref().is_some_and(|b| b.id() == buffer.id()) {
                param.buffer = Some(smaller.clone());
            }
        }
        Substitution::new().buffer(&buffer, smaller.clone()).apply_stmt(&mut func.body);
    }
    Some(copy)
}
