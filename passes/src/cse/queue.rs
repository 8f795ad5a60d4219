//! The decisions of one round of a scope, taken on the scope as scanned (nothing is cloned
//! until an action needs it): see `scope` for the policy.
//!
//! Invariant: the queue stays sorted by decreasing complexity of the representatives, and a
//! sub-computation queued by expansion is inserted after the class that expanded it.

use std::borrow::Cow;

use tirproof_ir::{Expr, Var};

use super::context::Context;
use super::eligible::{children, complexity, is_computation, may_trap};
use super::key::same_tree as expr_eq;
use super::strategy::{classify, Strategy};
use super::table::Table;

/// What an action replaces the members of a class with.
pub enum With {
    /// A let of the context that holds the class's value.
    Var(Var),
    /// The class's representative itself, a leaf (semantic rules showed e.g. `x * 1` is `x`).
    Leaf,
    /// A new variable bound to the representative around the scope.
    New,
}

/// One thing a round does to its scope.
pub struct Action {
    pub class: u64,
    pub repr: Expr,
    pub with: With,
}

/// A class waiting in the queue.
struct Candidate<'a> {
    class: u64,
    repr: Cow<'a, Expr>,
    /// The forms seen, with how often each is performed.
    members: Vec<(&'a Expr, u32)>,
    count: u32,
    definite: bool,
    complexity: u32,
}

/// The actions of a round on a scope whose computations are `table` and whose leading lets
/// bind `head`.
pub fn decide<'a>(strategy: &mut dyn Strategy, table: &Table<'a>, head: &[&'a Expr], ctx: &Context) -> Vec<Action> {
    let mut queue = Vec::new();
    for e in table.entries() {
        let class = strategy.class_of_computation(e.expr, e.key);
        enqueue(strategy, &mut queue, 0, e.expr, class, e.count, e.definite);
    }
    let head: Vec<(u64, &Expr)> = head.iter().filter_map(|v| Some((classify(strategy, v)?, *v))).collect();
    let mut actions = Vec::new();
    let mut i = 0;
    while i < queue.len() {
        let c = &queue[i];
        let (class, repr) = (c.class, &*c.repr);
        let action = if head.iter().any(|(h, v)| *h == class && strategy.interchangeable(repr, v)) {
            // The scope starts by binding this very computation: its body reuses that
            // variable (the context carries it there), which beats binding it twice. What it
            // is made of may still be worth binding.
            None
        } else if let Some(var) = strategy.context_var(class, repr, ctx) {
            Some(With::Var(var))
        } else if !is_computation(repr) && ctx.defines_all(repr) {
            Some(With::Leaf)
        } else if c.count >= 2 && is_computation(repr) && ctx.defines_all(repr) && (c.definite || !may_trap(repr)) {
            Some(With::New)
        } else {
            None
        };
        match action {
            Some(with) => actions.push(Action { class, repr: repr.clone(), with }),
            None => expand(strategy, &mut queue, i),
        }
        i += 1;
    }
    actions
}

/// Queues the direct sub-computations of every member of `queue[i]`, after position `i`.
fn expand<'a>(strategy: &mut dyn Strategy, queue: &mut Vec<Candidate<'a>>, i: usize) {
    let definite = queue[i].definite;
    let members = queue[i].members.clone();
    for (member, count) in members {
        let mut subs = Vec::new();
        direct_computations(member, &mut subs);
        for sub in subs {
            let class = classify(strategy, sub);
            enqueue(strategy, queue, i + 1, sub, class, count, definite);
        }
    }
}

/// Adds `count` occurrences of `e` (of class `class`) to its class at or after `start`, or
/// inserts a new class there, keeping the queue sorted by decreasing complexity.
fn enqueue<'a>(
    strategy: &mut dyn Strategy,
    queue: &mut Vec<Candidate<'a>>,
    start: usize,
    e: &'a Expr,
    class: Option<u64>,
    count: u32,
    definite: bool,
) {
    let Some(class) = class else { return };
    if let Some(c) = queue[start..].iter_mut().find(|c| c.class == class && strategy.interchangeable(e, &c.repr)) {
        c.count += count;
        c.definite |= definite;
        match c.members.iter_mut().find(|(m, _)| expr_eq(m, e)) {
            Some((_, n)) => *n += count,
            None => c.members.push((e, count)),
        }
        return;
    }
    let repr = strategy.representative(class, e).map_or(Cow::Borrowed(e), Cow::Owned);
    let complexity = complexity(&repr);
    let at = queue[start..].iter().position(|c| c.complexity < complexity).map_or(queue.len(), |p| p + start);
    queue.insert(at, Candidate { class, repr, members: vec![(e, count)], count, definite, complexity });
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
