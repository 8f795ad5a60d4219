//! The placement of one scope (TVM's `VisitStmt` / `VisitExpr` of the CSE pass).
//!
//! A round scans the scope, groups its computations into classes, and considers the classes
//! from the biggest computation to the smallest (ties: first occurrence first):
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
use super::eligible::{children, complexity, is_computation, may_trap};
use super::names::Names;
use super::replace::Replacer;
use super::strategy::{classify, Strategy};
use super::table::{scan_root, scan_stmt, Table};

/// A bound on the rounds of one scope; each round binds at least one class, so real programs
/// stop long before.
const MAX_ROUNDS: usize = 1000;

/// What the placement needs of a scope: a statement or an expression.
pub trait Holder {
    fn scan<'a>(&'a self, table: &mut Table<'a>);
    fn replace(&mut self, replacer: &mut Replacer<'_>);
    /// Makes `self` the body of a binding of `var` to `value`.
    fn wrap(&mut self, var: Var, value: Expr);
    /// The values of the chain of bindings `self` starts with.
    fn head_values(&self) -> Vec<&Expr>;
}

impl Holder for Stmt {
    fn scan<'a>(&'a self, table: &mut Table<'a>) {
        scan_stmt(self, true, table);
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
    fn scan<'a>(&'a self, table: &mut Table<'a>) {
        scan_root(self, true, table);
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

/// A class waiting in the queue of a round.
struct Candidate {
    class: u64,
    repr: Expr,
    /// The syntactic forms seen, with how often each is performed.
    members: Vec<(Expr, u32)>,
    count: u32,
    definite: bool,
    complexity: u32,
}

/// The state the placement shares across scopes.
pub struct Placer<'s> {
    pub strategy: &'s mut dyn Strategy,
    pub names: Names,
    pub stats: Stats,
}

impl Placer<'_> {
    /// Runs rounds on the scope `holder` with context `ctx`.
    pub fn place<H: Holder>(&mut self, holder: &mut H, ctx: &Context) {
        for _ in 0..MAX_ROUNDS {
            let mut queue = {
                let mut table = Table::default();
                holder.scan(&mut table);
                if table.is_empty() {
                    return;
                }
                let exprs: Vec<&Expr> = table.entries().iter().map(|e| e.expr).collect();
                self.strategy.begin(&exprs, ctx);
                let mut queue = Vec::new();
                for e in table.entries() {
                    self.enqueue(&mut queue, 0, e.expr, e.count, e.definite);
                }
                queue
            };
            if !self.round(holder, ctx, &mut queue) {
                return;
            }
        }
    }

    /// Considers the queue in order; whether a variable was created.
    fn round<H: Holder>(&mut self, holder: &mut H, ctx: &Context, queue: &mut Vec<Candidate>) -> bool {
        let mut created = false;
        let head: Vec<(u64, Expr)> = holder
            .head_values()
            .into_iter()
            .filter_map(|v| Some((classify(&mut *self.strategy, v)?, v.clone())))
            .collect();
        let mut i = 0;
        while i < queue.len() {
            let (class, repr) = (queue[i].class, queue[i].repr.clone());
            if head.iter().any(|(c, v)| *c == class && self.strategy.interchangeable(&repr, v)) {
                // The scope starts by binding this very computation: its body reuses that
                // variable (the context carries it there), which beats binding it twice. What
                // it is made of may still be worth binding.
                self.expand(queue, i);
            } else if let Some(var) = self.strategy.context_var(class, &repr, ctx) {
                self.replace(holder, class, &repr, &Expr::Var(var));
            } else if !is_computation(&repr) {
                // The class holds a leaf (semantic rules showed e.g. `x * 1` is `x`): use it.
                self.replace(holder, class, &repr, &repr);
            } else if self.bindable(&queue[i], ctx) {
                let var = self.names.fresh(repr.dtype());
                self.replace(holder, class, &repr, &Expr::Var(var.clone()));
                holder.wrap(var, repr);
                self.stats.introduced += 1;
                created = true;
            } else {
                self.expand(queue, i);
            }
            i += 1;
        }
        created
    }

    fn bindable(&self, c: &Candidate, ctx: &Context) -> bool {
        c.count >= 2 && ctx.defines_all(&c.repr) && (c.definite || !may_trap(&c.repr))
    }

    fn replace<H: Holder>(&mut self, holder: &mut H, class: u64, repr: &Expr, with: &Expr) {
        let mut r = Replacer { strategy: &mut *self.strategy, target: class, repr, with, count: 0 };
        holder.replace(&mut r);
        self.stats.replaced += r.count;
    }

    /// Queues the direct sub-computations of every member of `queue[i]`, after position `i`.
    fn expand(&mut self, queue: &mut Vec<Candidate>, i: usize) {
        let (members, definite) = (queue[i].members.clone(), queue[i].definite);
        for (member, count) in &members {
            let mut subs = Vec::new();
            direct_computations(member, &mut subs);
            for sub in subs {
                self.enqueue(queue, i + 1, sub, *count, definite);
            }
        }
    }

    /// Adds `count` occurrences of `e` to its class at or after `start`, or inserts a new
    /// class there, keeping the queue sorted by decreasing complexity.
    fn enqueue(&mut self, queue: &mut Vec<Candidate>, start: usize, e: &Expr, count: u32, definite: bool) {
        let Some(class) = classify(&mut *self.strategy, e) else { return };
        let strategy = &*self.strategy;
        if let Some(c) = queue[start..].iter_mut().find(|c| c.class == class && strategy.interchangeable(e, &c.repr)) {
            c.count += count;
            c.definite |= definite;
            match c.members.iter_mut().find(|(m, _)| tirproof_ir::structural::expr_eq(m, e)) {
                Some((_, n)) => *n += count,
                None => c.members.push((e.clone(), count)),
            }
            return;
        }
        let repr = self.strategy.representative(class, e);
        let complexity = complexity(&repr);
        let at = queue[start..].iter().position(|c| c.complexity < complexity).map_or(queue.len(), |p| p + start);
        let candidate = Candidate { class, repr, members: vec![(e.clone(), count)], count, definite, complexity };
        queue.insert(at, candidate);
    }
}

/// The biggest computations strictly inside the computation `e` (not inside lazy arms).
fn direct_computations<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    for (c, lazy) in children(e) {
        if lazy {
            continue;
        }
        if is_computation(c) {
            out.push(c);
        } else {
            direct_computations(c, out);
        }
    }
}
