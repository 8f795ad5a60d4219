//! The table of computations a scope performs (TVM's `ComputationTable`), built by one scan,
//! and the facts the scan learns about every node it passes (`Nodes`), so the placement never
//! walks a subtree again to ask them.
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
//! Invariants: the positions scanned here are exactly those `replace` rewrites (plus the branch
//! statements of an `if`, which `replace` also rewrites). `Nodes` holds every node of every
//! scanned expression in pre-order (lazy arms included), so the operands of node `n` are
//! `n + 1`, then each next one right after the subtree of the previous one.

use tirproof_ir::{Expr, Stmt, StmtKind};

use super::eligible::{children, node_eligible, poisons_parents, Children};
use super::key::{self, same_tree as expr_eq, KeyMap};

/// A node of the scan, by its position in `Nodes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeId(u32);

/// What the scan learns about one node and its subtree.
#[derive(Clone, Copy, Debug)]
pub struct Node<'a> {
    pub expr: &'a Expr,
    /// Its structural key; meaningful only when `clean`.
    pub key: u64,
    /// The nodes of its subtree (its complexity, see `eligible::complexity`).
    pub size: u32,
    /// Nothing in it poisons a parent.
    pub clean: bool,
    /// It is a computation.
    pub computation: bool,
}

/// The nodes of one scan in pre-order.
#[derive(Debug, Default)]
pub struct Nodes<'a>(Vec<Node<'a>>);

impl<'a> Nodes<'a> {
    pub fn get(&self, id: NodeId) -> &Node<'a> {
        &self.0[id.0 as usize]
    }

    /// The operands of `id`, each with whether it is a lazy arm.
    pub fn operands(&self, id: NodeId) -> Operands<'_, 'a> {
        Operands { nodes: self, next: id.0 + 1, children: children(self.get(id).expr) }
    }

    /// Empties `self` for a scan of another tree, keeping its memory.
    pub fn recycle<'b>(mut self) -> Nodes<'b> {
        self.0.clear();
        // An empty vector of references of another lifetime, in the same allocation.
        Nodes(self.0.into_iter().map(|_| unreachable!("the vector is empty")).collect())
    }
}

/// The iterator of `Nodes::operands`.
pub struct Operands<'n, 'a> {
    nodes: &'n Nodes<'a>,
    next: u32,
    children: Children<'a>,
}

impl Iterator for Operands<'_, '_> {
    type Item = (NodeId, bool);
    fn next(&mut self) -> Option<Self::Item> {
        let (_, lazy) = self.children.next()?;
        let id = NodeId(self.next);
        self.next += self.nodes.get(id).size;
        Some((id, lazy))
    }
}

/// One computation of the table.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Its first occurrence.
    pub node: NodeId,
    pub key: u64,
    /// How many times the scope performs it (outside other computations).
    pub count: u32,
    /// Whether some occurrence is performed whenever the scope runs.
    pub definite: bool,
    /// The next entry with the same key.
    same_key: Option<u32>,
}

/// The computations of one scope, in order of first occurrence (memory kept across rounds).
#[derive(Debug, Default)]
pub struct Table {
    entries: Vec<Entry>,
    /// The first entry of each key.
    index: KeyMap<u64, u32>,
    /// Whether the scan met a handle-typed variable.
    handle_vars: bool,
}

impl Table {
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the scan met a handle-typed variable (anywhere, computation or not).
    pub fn handle_vars(&self) -> bool {
        self.handle_vars
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.index.clear();
        self.handle_vars = false;
    }

    fn find(&self, nodes: &Nodes<'_>, node: NodeId, key: u64) -> Option<usize> {
        let mut at = self.index.get(&key).copied();
        let expr = nodes.get(node).expr;
        while let Some(i) = at {
            let entry = &self.entries[i as usize];
            if expr_eq(nodes.get(entry.node).expr, expr) {
                return Some(i as usize);
            }
            at = entry.same_key;
        }
        None
    }

    fn add(&mut self, nodes: &Nodes<'_>, node: NodeId, key: u64, count: u32, definite: bool) {
        if let Some(i) = self.find(nodes, node, key) {
            let entry = &mut self.entries[i];
            entry.count += count;
            entry.definite |= definite;
            return;
        }
        let at = self.entries.len() as u32;
        let same_key = self.index.insert(key, at);
        // The chain starts at the newest entry; the order of a chain does not matter, since
        // at most one of its entries equals a given tree.
        self.entries.push(Entry { node, key, count, definite, same_key });
    }

    /// The computations both tables perform: counts add up, definite only if both are.
    fn intersect(nodes: &Nodes<'_>, a: &Table, b: &Table) -> Table {
        let mut out = Table::default();
        for ea in &a.entries {
            if let Some(i) = b.find(nodes, ea.node, ea.key) {
                let eb = &b.entries[i];
                out.add(nodes, ea.node, ea.key, ea.count + eb.count, ea.definite && eb.definite);
            }
        }
        out
    }
}

/// Records the maximal computations of the expression `e` of a scope.
pub fn scan_root<'a>(e: &'a Expr, definite: bool, table: &mut Table, nodes: &mut Nodes<'a>) {
    Scanner { table, nodes, all: false }.root(e, definite);
}

/// Records the maximal computations the statement `s` performs (see the module documentation).
pub fn scan_stmt<'a>(s: &'a Stmt, definite: bool, table: &mut Table, nodes: &mut Nodes<'a>) {
    Scanner { table, nodes, all: false }.stmt(s, definite);
}

/// One scan: records maximal computations, or every computation when `all` (for the branches
/// of an `if`, whose common computations may be nested differently in each branch).
struct Scanner<'t, 'a> {
    table: &'t mut Table,
    nodes: &'t mut Nodes<'a>,
    all: bool,
}

impl<'a> Scanner<'_, 'a> {
    fn root(&mut self, e: &'a Expr, definite: bool) {
        let id = self.expr(e, true, definite);
        let node = *self.nodes.get(id);
        if node.computation && !self.all {
            self.table.add(self.nodes, id, node.key, 1, definite);
        }
    }

    fn expr(&mut self, e: &'a Expr, record: bool, definite: bool) -> NodeId {
        let id = NodeId(self.nodes.0.len() as u32);
        self.nodes.0.push(Node { expr: e, key: 0, size: 1, clean: false, computation: false });
        if let Expr::Var(v) = e {
            self.table.handle_vars |= v.dtype().is_handle();
        }
        let (mut clean_below, mut h, mut size, mut count) = (true, key::start(e), 1, 0);
        for (c, lazy) in children(e) {
            let child = self.expr(c, record && !lazy, definite);
            let child = self.nodes.get(child);
            clean_below &= child.clean;
            h = key::with_child(h, child.key);
            size += child.size;
            count += 1;
        }
        let computation = clean_below && node_eligible(e);
        let clean = clean_below && !poisons_parents(e);
        let key = if clean { key::finish(h, count) } else { 0 };
        self.nodes.0[id.0 as usize] = Node { expr: e, key, size, clean, computation };
        if record && self.all && computation {
            self.table.add(self.nodes, id, key, 1, definite);
        } else if record && !self.all && !computation {
            // The operands that are computations are maximal ones.
            for (c, lazy) in self.nodes.operands(id) {
                let child = self.nodes.get(c);
                if child.computation && !lazy {
                    self.table.add(self.nodes, c, child.key, 1, definite);
                }
            }
        }
        id
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
        Scanner { table: &mut a, nodes: self.nodes, all: true }.stmt(then_case, definite);
        Scanner { table: &mut b, nodes: self.nodes, all: true }.stmt(else_case, definite);
        self.table.handle_vars |= a.handle_vars || b.handle_vars;
        let common = Table::intersect(self.nodes, &a, &b);
        for e in &common.entries {
            let nested = common.entries.iter().any(|big| big.node != e.node && occurs_in(self.nodes, e.node, big.node));
            if self.all || !nested {
                self.table.add(self.nodes, e.node, e.key, e.count, e.definite);
            }
        }
    }
}

/// Whether the tree of `small` occurs strictly inside `big` (outside lazy arms).
fn occurs_in(nodes: &Nodes<'_>, small: NodeId, big: NodeId) -> bool {
    let (small, size) = (nodes.get(small).expr, nodes.get(small).size);
    let mut stack = vec![big];
    while let Some(at) = stack.pop() {
        for (c, lazy) in nodes.operands(at) {
            let node = nodes.get(c);
            // Only a subtree of the same size can equal `small`, and only a bigger one hold it.
            if lazy || node.size < size {
                continue;
            }
            if node.size == size {
                if expr_eq(node.expr, small) {
                    return true;
                }
            } else {
                stack.push(c);
            }
        }
    }
    false
}
