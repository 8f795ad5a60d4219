//! The minimizer's edits and where they apply.
//!
//! Every edit makes the program smaller by the [`Size`](super::Size) measure or leaves it
//! alone; sites are numbered in walk order, so `apply(edit, module, site)` is deterministic.
//! An edit may produce an ill-formed or different program: the minimizer checks every
//! candidate and keeps it only if it still fails the same way.

use std::collections::BTreeMap;

use tirproof_ir::subst::Substitution;
use tirproof_ir::visit::{walk_expr_mut, walk_stmt_mut, MutVisitor};
use tirproof_ir::{Buffer, BufferId, BufferRegion, Expr, IRModule, Stmt, StmtKind};

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

/// Halves the largest constant dimension of the `site`-th shrinkable buffer everywhere, its
/// `T.reads`/`T.writes` regions cut to fit the smaller buffer.
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
        FitRegions { buffer: smaller.id(), dim, size: largest / 2 }.mutate_stmt(&mut func.body);
    }
    Some(copy)
}

/// Cuts every block region of `buffer` in dimension `dim` to `[0, size)`, the dimension's new
/// extent: a constant range keeps what of it is inside (its last element when none is), a
/// range of constant extent keeps at most `size` elements.
struct FitRegions {
    buffer: BufferId,
    dim: usize,
    size: i64,
}

impl FitRegions {
    fn fit(&self, regions: Option<&mut Vec<BufferRegion>>) {
        let regions = regions.into_iter().flatten().filter(|r| r.buffer.id() == self.buffer);
        for range in regions.filter_map(|r| r.region.get_mut(self.dim)) {
            let min = range.min.as_int();
            if let Some(min) = min {
                set_int(&mut range.min, min.clamp(0, self.size - 1));
            }
            let room = self.size - range.min.as_int().unwrap_or(0);
            if let Some(extent) = range.extent.as_int().filter(|&e| e > room) {
                set_int(&mut range.extent, extent.min(room).max(1));
            }
        }
    }
}

impl MutVisitor for FitRegions {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        if let StmtKind::Block(block) = &mut stmt.kind {
            self.fit(block.reads.as_mut());
            self.fit(block.writes.as_mut());
        }
        walk_stmt_mut(self, stmt);
    }
}

/// Sets the value of an integer constant, keeping its type.
fn set_int(expr: &mut Expr, to: i64) {
    if let Expr::Int { value, .. } = expr {
        *value = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::visit::{walk_stmt, Visitor};

    const REGIONS: &str = r#"
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("copy"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi, 0:8], A[12:16, 2])
            T.writes(C[vi])
            C[vi] = A[vi, 0]
"#;

    /// A region as its buffer's shape and each range's constant `(min, extent)`.
    type Shaped = (Vec<i64>, Vec<(Option<i64>, Option<i64>)>);

    /// Every region of every block.
    fn regions(module: &IRModule) -> Vec<Shaped> {
        struct Collect(Vec<Shaped>);
        impl Visitor for Collect {
            fn visit_stmt(&mut self, stmt: &Stmt) {
                if let StmtKind::Block(block) = &stmt.kind {
                    for region in block.reads.iter().chain(block.writes.iter()).flatten() {
                        let ranges = region.region.iter().map(|r| (r.min.as_int(), r.extent.as_int())).collect();
                        self.0.push((region.buffer.const_shape().unwrap_or_default(), ranges));
                    }
                }
                walk_stmt(self, stmt);
            }
        }
        let mut collect = Collect(Vec::new());
        module.functions.iter().for_each(|f| collect.visit_stmt(&f.body));
        collect.0
    }

    #[test]
    fn a_shrunk_buffer_keeps_regions_that_fit_it() {
        let module = tirproof_reader::parse_module(REGIONS).expect("parses");
        let shrunk = shrink_buffer(&module, 0).expect("A shrinks");
        let found = regions(&shrunk);
        assert_eq!(found.len(), 3, "{found:?}");
        for (shape, ranges) in &found {
            for (dim, (min, extent)) in ranges.iter().enumerate() {
                let (Some(min), Some(extent)) = (min, extent) else { continue };
                assert!(
                    *min >= 0 && *extent >= 1 && min + extent <= shape[dim],
                    "a region [{min}, {}) in dimension {dim} of a buffer of shape {shape:?}:\n{}",
                    min + extent,
                    tirproof_ir::print::print_module(&shrunk)
                );
            }
        }
        // A's first dimension halved: `A[12:16, 2]` keeps its last row, `A[vi, 0:8]` its width.
        assert_eq!(found[0].0, vec![8, 8]);
        assert_eq!(found[1].1, vec![(Some(7), Some(1)), (Some(2), Some(1))]);
        let diags = tirproof_ir::check::check_module(&shrunk);
        assert!(!diags.has_errors(), "{diags}");
    }
}
