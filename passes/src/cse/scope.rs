//! The placement of one scope (TVM's `VisitStmt` / `VisitExpr` of the CSE pass).
//!
//! A round scans the scope, groups its computations into classes, and considers the classes
//! from the biggest computation to the smallest (ties: first occurrence first; `queue` decides
//! on the unchanged scope, then the actions are applied in order):
//! - a class whose value a let of the context already holds is replaced by that variable, and
//!   one that a let of the chain the scope starts with binds is left to that let (its body
//!   reuses the variable);
//! - a class performed at least twice, whose variables are all defined here, and which cannot
//!   trap or is definitely performed, gets a new variable: its occurrences are replaced and the
//!   scope is wrapped in a binding (`LetStmt` for statements, `Let` for expressions), so the
//!   classes bound later (smaller ones) wrap the earlier (bigger) ones: longer computations end
//!   up bound inside shorter ones;
//! - any other class is not bound here, but its direct sub-computations join the queue with its
//!   count (they are performed at least that often).
//!
//! Rounds repeat while they create variables (a new binding can make more commoning possible),
//! up to `MAX_ROUNDS`. Invariant: every binding is placed where all its variables are defined.

use tirproof_ir::{Expr, Stmt, StmtKind, Var};

use super::context::Context;
use super::names::Names;
use super::queue::{self, Action, Queue, With};
use super::replace::Replacer;
use super::strategy::Strategy;
use super::table::{scan_root, scan_stmt, Nodes, Table};

/// A bound on the rounds of one scope; each round but the last binds at least one class, so
/// real programs stop long before.
const MAX_ROUNDS: usize = 1000;

/// What the placement needs of a scope: a statement or an expression.
pub trait Holder {
    fn scan<'a>(&'a self, table: &mut Table, nodes: &mut Nodes<'a>);
    fn replace(&mut self, replacer: &mut Replacer<'_>);
    /// Makes `self` the body of a binding of `var` to `value`.
    fn wrap(&mut self, var: Var, value: Expr);
    /// The values of the chain of bindings `self` starts with.
    fn head_values(&self) -> Vec<&Expr>;
}

impl Holder for Stmt {
    fn scan<'a>(&'a self, table: &mut Table, nodes: &mut Nodes<'a>) {
        scan_stmt(self, true, table, nodes);
    }
    fn replace(&mut self, replacer: &mut Replacer<'_>) {
        replacer.stmt(self);
    }
    fn wrap(&mut self, var: Var, value: Expr) {
        let body = std::mem::replace(self, Stmt::nop());
        *self = Stmt::synthetic(StmtKind::Let { var, value, body: Box::new(body) });
    }
    fn head_values(&self) -> Vec<&Expr> {
        let (mut out, mut at) = (Vec::new(), self);
        while let StmtKind::Let { value, body, .. } = &at.kind {
            out.push(value);
            at = body;
        }
        out
    }
}

impl Holder for Expr {
    fn scan<'a>(&'a self, table: &mut Table, nodes: &mut Nodes<'a>) {
        scan_root(self, true, table, nodes);
    }
    fn replace(&mut self, replacer: &mut Replacer<'_>) {
        replacer.expr(self);
    }
    fn wrap(&mut self, var: Var, value: Expr) {
        let body = std::mem::replace(self, Expr::int(0));
        *self = Expr::let_in(var, value, body);
    }
    fn head_values(&self) -> Vec<&Expr> {
        let (mut out, mut at) = (Vec::new(), self);
        while let Expr::Let { value, body, .. } = at {
            out.push(&**value);
            at = body;
        }
        out
    }
}

/// What the pass did, for reports and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// New variables introduced.
    pub introduced: usize,
    /// Occurrences replaced by a variable (new or already bound).
    pub replaced: usize,
}

/// What the placement of a scope ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Its last round decided nothing, so the scope is as that round scanned it.
    Settled {
        /// The scan met a handle-typed variable.
        handle_vars: bool,
        /// Classes are trees, and every class of the last round (its queue fully expanded)
        /// was performed once: see `Outcome::within`.
        single: bool,
    },
    /// It was not placed, or its last round changed it.
    Unknown,
}

impl Outcome {
    /// The outcome for a statement whose scan is the same as that of the settled scope, in
    /// the same context but for `var`, which the walk defines between the two. A handle
    /// variable the scan never met cannot change a decision, nor can any variable when every
    /// class was performed once (only a new binding needs a variable defined).
    pub fn across(self, var: &Var) -> Outcome {
        match self {
            Outcome::Settled { single: true, .. } => self,
            Outcome::Settled { handle_vars: false, .. } if var.dtype().is_handle() => self,
            _ => Outcome::Unknown,
        }
    }

    /// The outcome for a statement inside the settled scope, among what it scans (not in a
    /// branch of an `if` or in a block). Known only when every class was performed once: the
    /// statement's classes are among the scope's, each performed at most once, so none is
    /// bound anew; and none is in the class of a let between the two, since that let's value
    /// is the one occurrence of its class (with no new binding, the context's other lets are
    /// those the scope already had and found no class of).
    pub fn within(self) -> Outcome {
        match self {
            Outcome::Settled { single: true, .. } => self,
            _ => Outcome::Unknown,
        }
    }
}

/// The state the placement shares across scopes.
pub struct Placer<'s> {
    pub strategy: &'s mut dyn Strategy,
    pub names: Names,
    pub stats: Stats,
    pub scratch: Scratch,
}

/// The memory of a round, kept for the next one.
#[derive(Default)]
pub struct Scratch {
    nodes: Nodes<'static>,
    table: Table,
    queue: Queue,
}

impl Placer<'_> {
    /// Runs rounds on the scope `holder` with context `ctx`: each round decides on a fresh scan
    /// (`queue`, which only reads the scope), then applies its actions in order.
    pub fn place<H: Holder>(&mut self, holder: &mut H, ctx: &mut Context) -> Outcome {
        for _ in 0..MAX_ROUNDS {
            let (actions, handle_vars, single) = {
                let Scratch { nodes, table, queue } = &mut self.scratch;
                let mut scanned = std::mem::take(nodes).recycle();
                table.clear();
                holder.scan(table, &mut scanned);
                let actions = if table.is_empty() {
                    Vec::new()
                } else {
                    queue::decide(&mut *self.strategy, queue, &scanned, table, &holder.head_values(), ctx)
                };
                *nodes = scanned.recycle();
                let single = actions.is_empty() && self.strategy.classes_are_trees() && queue.performed_once();
                (actions, table.handle_vars(), single)
            };
            if actions.is_empty() {
                return Outcome::Settled { handle_vars, single };
            }
            let mut created = false;
            for action in actions {
                created |= self.apply(holder, action, ctx);
            }
            if !created {
                return Outcome::Unknown;
            }
        }
        Outcome::Unknown
    }

    /// Applies one action; whether it introduced a variable.
    fn apply<H: Holder>(&mut self, holder: &mut H, action: Action, ctx: &mut Context) -> bool {
        match action.with {
            With::Var(var) => self.replace(holder, action.class, &action.repr, &Expr::Var(var)),
            With::Leaf => self.replace(holder, action.class, &action.repr, &action.repr),
            With::New => {
                let var = self.names.fresh(action.repr.dtype());
                ctx.note_binder(&var);
                self.replace(holder, action.class, &action.repr, &Expr::Var(var.clone()));
                self.strategy.bound(&var, &action.repr);
                holder.wrap(var, action.repr);
                self.stats.introduced += 1;
                return true;
            }
        }
        false
    }

    fn replace<H: Holder>(&mut self, holder: &mut H, class: u64, repr: &Expr, with: &Expr) {
        let mut r =
            Replacer { strategy: &mut *self.strategy, target: class, repr, with, count: 0, classes: Vec::new() };
        holder.replace(&mut r);
        self.stats.replaced += r.count;
    }
}
