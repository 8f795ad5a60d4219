//! The table of computations a scope performs (TVM's `ComputationTable`), built by one scan.
//!
//! The scan records *maximal* computations only: a computation inside a bigger computation is
//! not counted on its own (the placement counts it when the bigger one is not bound, as TVM's
//! direct-subexpression step does). What a scope performs:
//! - the expressions of its statements (store indices and value, let values, loop bounds,
//!   conditions, evaluated expressions) and of the statements nested in it; not attribute
//!   values, allocation extents, launch extents or S-TIR block headers, which later passes
//!   expect in their written form, nor anything inside a block;
//! - of an `if` statement, the condition plus what *both* branches perform (a computation of
//!   one branch only is not performed on every path), however it is nested in each;
//! - never the arms of a lazy `if_then_else`: they run only when taken.
//!
//! Each entry also says whether the computation is *definitely* performed when the scope runs
//! (not only under a loop that may run zero times, nor only in one branch): a computation that
//! may trap is only bound before the scope when it is, so that binding it early cannot add a
//! fault the original program does not have.
//!
//! Invariant: the positions scanned here are exactly those `replace` rewrites (plus the branch
//! statements of an `if`, which `replace` also rewrites).

use std::collections::HashMap;

use tirproof_ir::structural::expr_eq;
use tirproof_ir::{Expr, Stmt, StmtKind};

use super::eligible::{children, node_eligible, poisons_parents};
use super::key::node_key;

/// One computation of the table.
#[derive(Clone, Debug)]
pub struct Entry<'a> {
    /// Its first occurrence.
    pub expr: &'a Expr,
    pub key: u64,
    /// How many times the scope performs it (outside other computations).
    pub count: u32,
    /// Whether some occurrence is performed whenever the scope runs.
    pub definite: bool,
}

/// The computations of one scope, in order of first occurrence.
#[derive(Clone, Debug, Default)]
pub struct Table<'a> {
    entries: Vec<Entry<'a>>,
    index: HashMap<u64, Vec<usize>>,
}

impl<'a> Table<'a> {
    pub fn entries(&self) -> &[Entry<'a>] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn add(&mut self, expr: &'a Expr, key: u64, count: u32, definite: bool) {
        let slots = self.index.entry(key).or_default();
        if let Some(&i) = slots.iter().find(|&&i| expr_eq(self.entries[i].expr, expr)) {
            let entry = &mut self.entries[i];
            entry.count += count;
            entry.definite |= definite;
            return;
        }
        slots.push(self.entries.len());
        self.entries.push(Entry { expr, key, count, definite });
    }

    fn find(&self, entry: &Entry<'a>) -> Option<&Entry<'a>> {
        let slots = self.index.get(&entry.key)?;
        slots.iter().map(|&i| &self.entries[i]).find(|e| expr_eq(e.expr, entry.expr))
    }

    /// The computations both tables perform: counts add up, definite only if both are.
    fn intersect(a: &Table<'a>, b: &Table<'a>) -> Table<'a> {
        let mut out = Table::default();
        for ea in &a.entries {
            if let Some(eb) = b.find(ea) {
                out.add(ea.expr, ea.key, ea.count + eb.count, ea.definite && eb.definite);
            }
        }
        out
    }
}

/// What the scan learns about a subtree.
#[derive(Clone, Copy, Debug)]
struct Info {
    /// Its structural key; meaningful only when `clean`.
    key: u64,
    /// Nothing in it poisons a parent.
    clean: bool,
    /// It is a computation.
    computation: bool,
}

/// Records the maximal computations of the expression `e` of a scope.
pub fn scan_root<'a>(e: &'a Expr, definite: bool, table: &mut Table<'a>) {
    Scanner { table, all: false }.root(e, definite);
}

/// Records the maximal computations the statement `s` performs (see the module documentation).
pub fn scan_stmt<'a>(s: &'a Stmt, definite: bool, table: &mut Table<'a>) {
    Scanner { table, all: false }.stmt(s, definite);
}

/// One scan: records maximal computations, or every computation when `all` (for the branches
/// of an `if`, whose common computations may be nested differently in each branch).
struct Scanner<'t, 'a> {
    table: &'t mut Table<'a>,
    all: bool,
}

impl<'a> Scanner<'_, 'a> {
    fn root(&mut self, e: &'a Expr, definite: bool) {
        let info = self.expr(e, true, definite);
        if info.computation && !self.all {
            self.table.add(e, info.key, 1, definite);
        }
    }

    fn expr(&mut self, e: &'a Expr, record: bool, definite: bool) -> Info {
        let kids = children(e);
        let infos: Vec<Info> = kids.iter().map(|(c, lazy)| self.expr(c, record && !lazy, definite)).collect();
        let clean_below = infos.iter().all(|i| i.clean);
        let computation = clean_below && node_eligible(e);
        let clean = clean_below && !poisons_parents(e);
        let key = if clean { node_key(e, &infos.iter().map(|i| i.key).collect::<Vec<_>>()) } else { 0 };
        if record && self.all && computation {
            self.table.add(e, key, 1, definite);
        } else if record && !self.all && !computation {
            for ((c, lazy), info) in kids.iter().zip(&infos) {
                if info.computation && !lazy {
                    self.table.add(c, info.key, 1, definite);
                }
            }
        }
        Info { key, clean, computation }
    }

    fn stmt(&mut self, s: &'a Stmt, definite: bool) {
        match &s.kind {
            StmtKind::Store(store) => {
                store.indices.iter().for_each(|i| self.root(i, definite));
                self.root(&store.value, definite);
            }
            StmtKind::Let { value, body, .. } => {
                self.root(value, definite);
                self.stmt(body, definite);
            }
            StmtKind::For(f) => {
                self.root(&f.min, definite);
                self.root(&f.extent, definite);
                let runs = matches!(f.extent, Expr::Int { value, .. } if value > 0);
                self.stmt(&f.body, definite && runs);
            }
            StmtKind::If { cond, then_case, else_case } => {
                self.root(cond, definite);
                if let Some(else_case) = else_case {
                    self.branches(then_case, else_case, definite);
                }
            }
            StmtKind::Seq(items) => items.iter().for_each(|s| self.stmt(s, definite)),
            StmtKind::Evaluate(e) => self.root(e, definite),
            StmtKind::Attr(a) => self.stmt(&a.body, definite),
            StmtKind::Allocate(a) => self.stmt(&a.body, definite),
            StmtKind::AllocBuffer { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::LaunchThread { body, .. } => self.stmt(body, definite),
            StmtKind::Barrier { .. } | StmtKind::Block(_) => {}
        }
    }

    /// Records what both branches compute: every computation of each, intersected, and (for a
    /// maximal scan) only those of the intersection not inside another one.
    fn branches(&mut self, then_case: &'a Stmt, else_case: &'a Stmt, definite: bool) {
        let (mut a, mut b) = (Table::default(), Table::default());
        Scanner { table: &mut a, all: true }.stmt(then_case, definite);
        Scanner { table: &mut b, all: true }.stmt(else_case, definite);
        let common = Table::intersect(&a, &b);
        for e in &common.entries {
            let nested =
                common.entries.iter().any(|big| !std::ptr::eq(big.expr, e.expr) && occurs_in(e.expr, big.expr));
            if self.all || !nested {
                self.table.add(e.expr, e.key, e.count, e.definite);
            }
        }
    }
}

/// Whether `small` occurs strictly inside `big` (outside lazy arms).
fn occurs_in(small: &Expr, big: &Expr) -> bool {
    children(big).iter().any(|(c, lazy)| !lazy && (expr_eq(c, small) || occurs_in(small, c)))
}
