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
//!   one branch only is not performed on every path);
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

    fn absorb(&mut self, other: &Table<'a>) {
        for e in &other.entries {
            self.add(e.expr, e.key, e.count, e.definite);
        }
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
    let info = scan_expr(e, true, definite, table);
    if info.computation {
        table.add(e, info.key, 1, definite);
    }
}

fn scan_expr<'a>(e: &'a Expr, record: bool, definite: bool, table: &mut Table<'a>) -> Info {
    let kids = children(e);
    let infos: Vec<Info> = kids.iter().map(|(c, lazy)| scan_expr(c, record && !lazy, definite, table)).collect();
    let clean_below = infos.iter().all(|i| i.clean);
    let computation = clean_below && node_eligible(e);
    let clean = clean_below && !poisons_parents(e);
    let key = if clean { node_key(e, &infos.iter().map(|i| i.key).collect::<Vec<_>>()) } else { 0 };
    if record && !computation {
        for ((c, lazy), info) in kids.iter().zip(&infos) {
            if info.computation && !lazy {
                table.add(c, info.key, 1, definite);
            }
        }
    }
    Info { key, clean, computation }
}

/// Records the maximal computations the statement `s` performs (see the module documentation).
pub fn scan_stmt<'a>(s: &'a Stmt, definite: bool, table: &mut Table<'a>) {
    match &s.kind {
        StmtKind::Store(store) => {
            store.indices.iter().for_each(|i| scan_root(i, definite, table));
            scan_root(&store.value, definite, table);
        }
        StmtKind::Let { value, body, .. } => {
            scan_root(value, definite, table);
            scan_stmt(body, definite, table);
        }
        StmtKind::For(f) => {
            scan_root(&f.min, definite, table);
            scan_root(&f.extent, definite, table);
            let runs = matches!(f.extent, Expr::Int { value, .. } if value > 0);
            scan_stmt(&f.body, definite && runs, table);
        }
        StmtKind::If { cond, then_case, else_case } => {
            scan_root(cond, definite, table);
            if let Some(else_case) = else_case {
                let (mut a, mut b) = (Table::default(), Table::default());
                scan_stmt(then_case, definite, &mut a);
                scan_stmt(else_case, definite, &mut b);
                table.absorb(&Table::intersect(&a, &b));
            }
        }
        StmtKind::Seq(items) => items.iter().for_each(|s| scan_stmt(s, definite, table)),
        StmtKind::Evaluate(e) => scan_root(e, definite, table),
        StmtKind::Attr(a) => scan_stmt(&a.body, definite, table),
        StmtKind::Allocate(a) => scan_stmt(&a.body, definite, table),
        StmtKind::AllocBuffer { body, .. }
        | StmtKind::DeclBuffer { body, .. }
        | StmtKind::LaunchThread { body, .. } => scan_stmt(body, definite, table),
        StmtKind::Barrier { .. } | StmtKind::Block(_) => {}
    }
}
