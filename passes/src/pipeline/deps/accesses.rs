//! The accesses of a loop body's statements: which storage (by data variable, so aliases
//! are one storage), through which buffer, read or written, at which indices, whether those
//! depend on the pipelined loop variable, and under which conditions (`if` conditions and
//! block predicates, by conjunct).

use tirproof_ir::expr::{Expr, LogicOp};
use tirproof_ir::index_arith::const_int;
use tirproof_ir::structural::{IdMap, IdSet};
use tirproof_ir::visit::{walk_expr, walk_stmt, Visitor};
use tirproof_ir::{Buffer, Stmt, StmtKind, Var, VarId};

use super::relation::Index;

/// One access of a statement to a storage.
#[derive(Clone, Debug)]
pub(super) struct Access {
    pub(super) storage: VarId,
    pub(super) buffer: Buffer,
    pub(super) write: bool,
    pub(super) indices: Vec<Index>,
    /// The indices do not depend on the pipelined loop variable.
    pub(super) invariant: bool,
    /// Conjuncts of the `if` conditions and block predicates the access runs under.
    pub(super) guards: Vec<Guard>,
}

/// One condition an access runs under.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Guard {
    /// The access is in the then-branch (or under the predicate).
    Holds(Expr),
    /// The access is in the else-branch.
    Fails(Expr),
}

/// The accesses of the loop body's statements, each with its statement's position, in
/// statement order (and in each statement, in the order met).
pub(super) fn collect_accesses(
    stmts: &[Stmt],
    loop_var: &Var,
    lets: &mut IdMap<VarId, Expr>,
    inner: &mut IdMap<VarId, Option<(i64, i64)>>,
) -> Vec<(usize, Access)> {
    let mut c = Collector { variant: IdSet::default(), stmt: 0, out: Vec::new(), guards: Vec::new(), lets, inner };
    for (k, s) in stmts.iter().enumerate() {
        // Each statement starts anew: only the loop variable varies.
        c.variant.clear();
        c.variant.insert(loop_var.id());
        c.stmt = k;
        c.visit_stmt(s);
    }
    c.out
}

pub(super) struct Collector<'a> {
    /// The loop variable and variables bound to values that depend on it.
    pub(super) variant: IdSet<VarId>,
    /// The position of the statement being visited.
    pub(super) stmt: usize,
    pub(super) out: Vec<(usize, Access)>,
    /// The conditions enclosing the statement being visited.
    pub(super) guards: Vec<Guard>,
    /// Values of bound variables, for the dependence test.
    pub(super) lets: &'a mut IdMap<VarId, Expr>,
    /// Variables of the loops inside the statement, with their constant ranges.
    pub(super) inner: &'a mut IdMap<VarId, Option<(i64, i64)>>,
}

impl Collector<'_> {
    pub(super) fn depends(&self, e: &Expr) -> bool {
        struct Mentions<'a>(&'a IdSet<VarId>, bool);
        impl Visitor for Mentions<'_> {
            fn visit_expr(&mut self, e: &Expr) {
                if let Expr::Var(v) = e {
                    self.1 |= self.0.contains(&v.id());
                }
                walk_expr(self, e);
            }
        }
        let mut m = Mentions(&self.variant, false);
        m.visit_expr(e);
        m.1
    }

    pub(super) fn record(&mut self, buffer: &Buffer, indices: &[Expr], write: bool) {
        let invariant = !indices.iter().any(|i| self.depends(i));
        // `0 * 8 + i % 4` is `i % 4`: constant parts folded once, so the dependence test's
        // forms apply.
        let indices = indices
            .iter()
            .map(|index| {
                let mut index = index.clone();
                crate::fold::fold_expr(&mut index);
                Index::new(index)
            })
            .collect();
        self.out.push((
            self.stmt,
            Access {
                storage: buffer.data().id(),
                buffer: buffer.clone(),
                write,
                indices,
                invariant,
                guards: self.guards.clone(),
            },
        ));
    }
}

impl Collector<'_> {
    pub(super) fn bind(&mut self, var: &Var, value: &Expr) {
        if self.depends(value) {
            self.variant.insert(var.id());
        }
        self.lets.insert(var.id(), value.clone());
    }

    /// Visits `s` under the extra conditions `guards` (split at `and`).
    pub(super) fn guarded(&mut self, guards: Vec<Guard>, s: &Stmt) {
        let depth = self.guards.len();
        self.guards.extend(guards);
        self.visit_stmt(s);
        self.guards.truncate(depth);
    }
}

/// The conjuncts of `cond`.
pub(super) fn conjuncts(cond: &Expr) -> Vec<Guard> {
    match cond {
        Expr::Logic { op: LogicOp::And, lhs, rhs } => {
            let mut out = conjuncts(lhs);
            out.extend(conjuncts(rhs));
            out
        }
        _ => vec![Guard::Holds(cond.clone())],
    }
}

impl Visitor for Collector<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        match e {
            Expr::Load(load) => self.record(&load.buffer, &load.indices, false),
            Expr::Let { var, value, .. } => self.bind(var, value),
            _ => {}
        }
        walk_expr(self, e);
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Store(store) => self.record(&store.buffer, &store.indices, true),
            StmtKind::Let { var, value, .. } => self.bind(var, value),
            StmtKind::For(f) => {
                let range = const_int(&f.min)
                    .zip(const_int(&f.extent))
                    .filter(|(_, extent)| *extent >= 1)
                    .and_then(|(min, extent)| Some((min, min.checked_add(extent - 1)?)));
                self.inner.insert(f.var.id(), range);
            }
            StmtKind::If { cond, then_case, else_case } => {
                self.visit_expr(cond);
                self.guarded(conjuncts(cond), then_case);
                if let Some(other) = else_case {
                    self.guarded(vec![Guard::Fails(cond.clone())], other);
                }
                return;
            }
            StmtKind::Block(block) => {
                for iv in &block.iter_vars {
                    self.bind(&iv.var, &iv.binding);
                }
                if let Some(predicate) = &block.predicate {
                    let depth = self.guards.len();
                    self.guards.extend(conjuncts(predicate));
                    walk_stmt(self, s);
                    self.guards.truncate(depth);
                    return;
                }
            }
            _ => {}
        }
        walk_stmt(self, s);
    }
}
