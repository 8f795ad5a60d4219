//! The e-graph of one function, built once and saturated once.
//!
//! Every maximal load-free subtree of the function's expressions is added (in program order,
//! which ranks the nodes for extraction), every let variable is made equal to its value, and the
//! rules run once within `NODE_LIMIT` nodes and `ITER_LIMIT` iterations. The placement then
//! classifies any expression by looking it up (through congruence, a rewritten expression that
//! reads a bound variable is found in the class of what the variable holds), and each variable
//! CSE binds is made equal to its value (`bind`), which needs no new rule run.
//!
//! Invariants: let variables are SSA, so `v == value` holds wherever `v` is visible and the one
//! e-graph serves every scope; representatives never read a let variable (their cost is
//! infinite), so a representative never names a variable of another scope.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use egg::{Id, Language, Rewrite, Runner};
use tirproof_ir::visit::{walk_expr, walk_stmt, Visitor};
use tirproof_ir::{Expr, PrimFunc, Stmt, StmtKind, Var};

use super::analysis::{Facts, Graph};
use super::convert::{self, Leaves};
use super::extract;
use super::lang::{TirLang, VarLeaf};
use crate::cse::eligible::is_clean;
use crate::stop::Limit;

/// Most e-nodes the function's e-graph may grow to.
pub const NODE_LIMIT: usize = 20_000;
/// Most rule iterations. Measured on the 60-function quality suite
/// (`cargo run --release --example cse_quality`): 8 iterations took 3.3 ms per function, 5 took
/// 1.9, 3 take 0.8 and 2 take 0.55, all with the same result (881 operations left, 1519
/// eliminated); 3 keeps one iteration of margin for chains the suite does not have.
pub const ITER_LIMIT: usize = 3;
/// Only a backstop: the node and iteration limits stop every real run first.
const TIME_LIMIT: Duration = Duration::from_secs(600);

/// How far the e-graph of one function may grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub nodes: usize,
    pub iterations: usize,
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { nodes: NODE_LIMIT, iterations: ITER_LIMIT, time: TIME_LIMIT }
    }
}

pub struct Session {
    egraph: Graph,
    leaves: Leaves,
    /// The cheapest term of each class that holds a node written in the program.
    best: HashMap<Id, Expr>,
}

impl Session {
    /// The e-graph of `func` saturated within `limits`, with the limit it stopped at (egg's
    /// stop reason); no session when two types meet in a class (a rule bug).
    pub fn build(
        func: &PrimFunc,
        rules: &[Rewrite<TirLang, Facts>],
        limits: Limits,
    ) -> (Option<Session>, Option<Limit>) {
        let mut collect = Collect::default();
        collect.visit_stmt(&func.body);
        let Collect { mut egraph, mut leaves, added, lets } = collect;
        let mut let_vars = HashSet::new();
        for (var, value) in &lets {
            let_vars.insert(var.id().0);
            let Some(v) = convert::add(&mut egraph, value, &mut leaves, &mut Vec::new()) else { continue };
            if let Some(leaf) = convert::add(&mut egraph, &Expr::var(var), &mut leaves, &mut Vec::new()) {
                egraph.union(leaf, v);
            }
        }
        egraph.rebuild();
        let runner = Runner::default()
            .with_egraph(egraph)
            .with_node_limit(limits.nodes)
            .with_iter_limit(limits.iterations)
            .with_time_limit(limits.time)
            .run(rules);
        let stopped = runner.stop_reason.as_ref().and_then(Limit::of_egg);
        let egraph = runner.egraph;
        if egraph.classes().any(|c| c.data.conflict) {
            return (None, stopped);
        }
        let mut written = HashMap::new();
        for (rank, node) in added.iter().enumerate() {
            written.entry(node.clone().map_children(|c| egraph.find(c))).or_insert(rank as u64);
        }
        let classes: HashSet<Id> = written.keys().filter_map(|n| egraph.lookup(n.clone())).collect();
        let best = extract::best_terms(&egraph, classes, &written, &let_vars, &leaves);
        (Some(Session { egraph, leaves, best }), stopped)
    }

    /// The class of the node `e` with operand classes `kids`, if the e-graph has it.
    pub fn class(&mut self, e: &Expr, kids: &[Option<u64>]) -> Option<u64> {
        let kids = kids.iter().map(|c| c.map(|c| Id::from(c as usize))).collect::<Option<Vec<Id>>>()?;
        let node = convert::node_of(e, &kids, &mut self.leaves, false)?;
        self.egraph.lookup(node).map(|id| usize::from(self.egraph.find(id)) as u64)
    }

    /// The class of a whole expression.
    pub fn classify(&mut self, e: &Expr) -> Option<u64> {
        let kids: Vec<Option<u64>> = crate::cse::eligible::children(e).map(|(c, _)| self.classify(c)).collect();
        self.class(e, &kids)
    }

    /// The cheapest term of `class` that reads no let variable, if known.
    pub fn best(&self, class: u64) -> Option<&Expr> {
        self.best.get(&self.egraph.find(Id::from(class as usize)))
    }

    /// The class of a variable, if the e-graph has it.
    pub fn var_class(&self, var: &Var) -> Option<u64> {
        let leaf = TirLang::Var(VarLeaf { id: var.id().0, dtype: var.dtype() });
        self.egraph.lookup(leaf).map(|id| usize::from(self.egraph.find(id)) as u64)
    }

    /// Records that `var` holds `value` (a binding CSE introduced).
    pub fn bind(&mut self, var: &Var, value: &Expr) {
        let Some(class) = self.classify(value) else { return };
        let class = Id::from(class as usize);
        let best = self.best.get(&class).cloned();
        let Some(leaf) = convert::add(&mut self.egraph, &Expr::var(var), &mut self.leaves, &mut Vec::new()) else {
            return;
        };
        self.egraph.union(leaf, class);
        self.egraph.rebuild();
        if let Some(best) = best {
            let root = self.egraph.find(class);
            self.best.insert(root, best);
        }
    }
}

/// Adds the maximal load-free subtrees of a function and collects its let bindings.
#[derive(Default)]
struct Collect {
    egraph: Graph,
    leaves: Leaves,
    added: Vec<TirLang>,
    lets: Vec<(Var, Expr)>,
}

impl Visitor for Collect {
    fn visit_expr(&mut self, e: &Expr) {
        if let Expr::Let { var, value, .. } = e {
            self.lets.push((var.clone(), (**value).clone()));
        }
        if is_clean(e) && !matches!(e, Expr::Var(_)) {
            convert::add(&mut self.egraph, e, &mut self.leaves, &mut self.added);
        } else {
            walk_expr(self, e);
        }
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        if let StmtKind::Let { var, value, .. } = &s.kind {
            self.lets.push((var.clone(), value.clone()));
        }
        walk_stmt(self, s);
    }
}
