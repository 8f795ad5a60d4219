//! The decisions of one round of a scope, taken on the scope as scanned (nothing is cloned
//! until an action needs it): see `scope` for the policy.
//!
//! What the queue asks of a computation (is it one, its complexity, its direct
//! sub-computations) comes from the scan's `Nodes`, so a step never walks a subtree for it;
//! only a representative the strategy builds (not a node of the scope) is asked directly.
//!
//! Invariant: the queue stays sorted by decreasing complexity of the representatives, and a
//! sub-computation queued by expansion is inserted after the class that expanded it.

use tirproof_ir::{Expr, Var};

use super::context::Context;
use super::eligible::{complexity, is_computation, may_trap};
use super::key::same_tree as expr_eq;
use super::strategy::{classify, Strategy};
use super::table::{NodeId, Nodes, Table};

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

/// What a class binds: a node of the scope, or a tree the strategy built.
enum Repr {
    Node(NodeId),
    Built(Expr),
}

/// A class waiting in the queue.
struct Candidate {
    class: u64,
    repr: Repr,
    /// Whether the representative is a computation.
    computation: bool,
    complexity: u32,
    /// The first of its members (the forms seen, with how often each is performed), a chain
    /// in `Queue::members`.
    first: usize,
    last: usize,
    count: u32,
    definite: bool,
}

/// One form of a class, and how often it is performed.
struct Member {
    node: NodeId,
    count: u32,
    next: Option<usize>,
}

/// The queue's memory, kept across rounds.
#[derive(Default)]
pub struct Queue {
    candidates: Vec<Candidate>,
    members: Vec<Member>,
    /// Direct sub-computations being queued.
    subs: Vec<NodeId>,
    /// The classes of the queue, sorted (`performed_once`).
    classes: Vec<u64>,
}

/// The actions of a round on a scope whose computations are `table`, with the facts `nodes`,
/// and whose leading lets bind `head`.
pub fn decide(
    strategy: &mut dyn Strategy,
    queue: &mut Queue,
    nodes: &Nodes<'_>,
    table: &Table,
    head: &[&Expr],
    ctx: &Context,
) -> Vec<Action> {
    queue.candidates.clear();
    queue.members.clear();
    if strategy.classes_are_trees() {
        // The table's entries are distinct trees, so distinct classes: queuing them one by one
        // is a stable sort by decreasing complexity.
        for e in table.entries() {
            let node = nodes.get(e.node);
            let first = queue.members.len();
            queue.members.push(Member { node: e.node, count: e.count, next: None });
            queue.candidates.push(Candidate {
                class: e.key,
                repr: Repr::Node(e.node),
                computation: node.computation,
                complexity: node.size,
                first,
                last: first,
                count: e.count,
                definite: e.definite,
            });
        }
        queue.candidates.sort_by_key(|c| std::cmp::Reverse(c.complexity));
    } else {
        for e in table.entries() {
            let class = strategy.class_of_computation(nodes.get(e.node).expr, e.key);
            queue.enqueue(strategy, nodes, 0, e.node, class, e.count, e.definite);
        }
    }
    let head: Vec<(u64, &Expr)> = head.iter().filter_map(|v| Some((classify(strategy, v)?, *v))).collect();
    let mut actions = Vec::new();
    let mut i = 0;
    while i < queue.candidates.len() {
        let c = &queue.candidates[i];
        let (class, repr) = (c.class, queue.repr(nodes, i));
        let action = if head.iter().any(|(h, v)| *h == class && strategy.interchangeable(repr, v)) {
            // The scope starts by binding this very computation: its body reuses that
            // variable (the context carries it there), which beats binding it twice. What it
            // is made of may still be worth binding.
            None
        } else if let Some(var) = strategy.context_var(class, repr, ctx) {
            Some(With::Var(var))
        } else if !c.computation && ctx.defines_all(repr) {
            Some(With::Leaf)
        } else if c.count >= 2 && c.computation && ctx.defines_all(repr) && (c.definite || !may_trap(repr)) {
            Some(With::New)
        } else {
            None
        };
        match action {
            Some(with) => actions.push(Action { class, repr: repr.clone(), with }),
            None => queue.expand(strategy, nodes, i),
        }
        i += 1;
    }
    actions
}

impl Queue {
    /// Whether every class of the last decision was performed once: every candidate counted
    /// once, and no class queued twice (expansion may queue a class again after its first
    /// place).
    pub fn performed_once(&mut self) -> bool {
        if self.candidates.iter().any(|c| c.count != 1) {
            return false;
        }
        self.classes.clear();
        self.classes.extend(self.candidates.iter().map(|c| c.class));
        self.classes.sort_unstable();
        self.classes.windows(2).all(|w| w[0] != w[1])
    }

    fn repr<'a>(&'a self, nodes: &Nodes<'a>, i: usize) -> &'a Expr {
        match &self.candidates[i].repr {
            Repr::Node(node) => nodes.get(*node).expr,
            Repr::Built(e) => e,
        }
    }

    /// Queues the direct sub-computations of every member of candidate `i`, after it.
    fn expand(&mut self, strategy: &mut dyn Strategy, nodes: &Nodes<'_>, i: usize) {
        let definite = self.candidates[i].definite;
        let mut at = Some(self.candidates[i].first);
        while let Some(m) = at {
            let (member, count) = (self.members[m].node, self.members[m].count);
            at = self.members[m].next;
            self.subs.clear();
            direct_computations(nodes, member, &mut self.subs);
            for k in 0..self.subs.len() {
                let sub = self.subs[k];
                let node = nodes.get(sub);
                let class = strategy.class_of_computation(node.expr, node.key);
                self.enqueue(strategy, nodes, i + 1, sub, class, count, definite);
            }
        }
    }

    /// Adds `count` occurrences of the node `e` (of class `class`) to its class at or after
    /// `start`, or inserts a new class there, keeping the queue sorted by decreasing complexity.
    #[expect(clippy::too_many_arguments, reason = "one queue step: the node, its class and its occurrences")]
    fn enqueue(
        &mut self,
        strategy: &mut dyn Strategy,
        nodes: &Nodes<'_>,
        start: usize,
        e: NodeId,
        class: Option<u64>,
        count: u32,
        definite: bool,
    ) {
        let Some(class) = class else { return };
        let expr = nodes.get(e).expr;
        let found = (start..self.candidates.len())
            .find(|&k| self.candidates[k].class == class && strategy.interchangeable(expr, self.repr(nodes, k)));
        if let Some(k) = found {
            let c = &mut self.candidates[k];
            c.count += count;
            c.definite |= definite;
            let mut at = Some(c.first);
            while let Some(m) = at {
                if expr_eq(nodes.get(self.members[m].node).expr, expr) {
                    self.members[m].count += count;
                    return;
                }
                at = self.members[m].next;
            }
            let new = self.members.len();
            self.members.push(Member { node: e, count, next: None });
            let c = &mut self.candidates[k];
            self.members[c.last].next = Some(new);
            c.last = new;
            return;
        }
        let (repr, computation, complexity) = match strategy.representative(class, expr) {
            Some(built) => {
                let facts = (is_computation(&built), complexity(&built));
                (Repr::Built(built), facts.0, facts.1)
            }
            None => (Repr::Node(e), nodes.get(e).computation, nodes.get(e).size),
        };
        let at = (start..self.candidates.len())
            .find(|&k| self.candidates[k].complexity < complexity)
            .unwrap_or(self.candidates.len());
        let first = self.members.len();
        self.members.push(Member { node: e, count, next: None });
        self.candidates
            .insert(at, Candidate { class, repr, computation, complexity, first, last: first, count, definite });
    }
}

/// Appends to `out` the biggest computations strictly inside the node `e` (not inside lazy
/// arms), left to right.
fn direct_computations(nodes: &Nodes<'_>, e: NodeId, out: &mut Vec<NodeId>) {
    for (c, lazy) in nodes.operands(e) {
        if lazy {
            continue;
        }
        if nodes.get(c).computation {
            out.push(c);
        } else {
            direct_computations(nodes, c, out);
        }
    }
}
