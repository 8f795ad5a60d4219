//! `cse-semantic`: the placement of `cse`, with computations grouped by equivalence.
//!
//! Each round of a scope builds an e-graph (egg) of the scope's computations and of the values
//! of the context's lets (each let variable is made equal to its value), saturates it with the
//! rules of `rules` within `NODE_LIMIT` nodes and `ITER_LIMIT` iterations, and then uses
//! e-classes as the classes of the placement: one variable per class performed at least twice,
//! bound to the class's cheapest term (`extract`: fewest nodes, ties broken toward terms
//! written in the program, earliest first). egg's `deterministic` feature and a generous time
//! limit (never reached before the node and iteration limits on real scopes) make every run
//! reproducible.
//!
//! Invariant: classes only ever contain terms equal in value and in faults (rules are proved so
//! in tirproof-verify), so replacing a member by the class's variable is sound. When the table
//! cannot be compiled or two types meet in one class, the round falls back to syntactic
//! classes.

mod analysis;
pub mod convert;
mod extract;
pub mod lang;
pub mod rewrites;
pub mod rules;

use std::collections::HashMap;
use std::time::Duration;

use egg::{Id, Language, Pattern, Rewrite, Runner};
use tirproof_ir::{Expr, Var};

use self::analysis::{Facts, Graph};
use self::convert::{Leaves, ToExprError};
use self::lang::TirLang;
use super::context::Context;
use super::strategy::{Strategy, Syntactic};

/// Most e-nodes a scope's e-graph may grow to.
pub const NODE_LIMIT: usize = 4_000;
/// Most rule iterations per scope.
pub const ITER_LIMIT: usize = 6;
/// Only a backstop: the node and iteration limits stop every real run first.
const TIME_LIMIT: Duration = Duration::from_secs(600);

/// The semantic strategy.
#[derive(Default)]
pub struct Semantic {
    rules: Option<Vec<Rewrite<TirLang, Facts>>>,
    session: Option<Session>,
    /// Used for rounds whose e-graph cannot be trusted.
    fallback: Syntactic,
}

/// The e-graph of one round.
struct Session {
    egraph: Graph,
    leaves: Leaves,
    /// Nodes written in the program, by canonical form, with the order they were added in.
    written: HashMap<TirLang, u64>,
    /// Classes of the context's let values, outermost first.
    context: Vec<(Id, Var)>,
}

impl Semantic {
    fn rules(&mut self) -> Option<&[Rewrite<TirLang, Facts>]> {
        if self.rules.is_none() {
            self.rules = rewrites::rewrites().ok();
        }
        self.rules.as_deref()
    }
}

impl Strategy for Semantic {
    fn begin(&mut self, computations: &[&Expr], ctx: &Context) {
        self.session = None;
        let Some(rules) = self.rules() else { return };
        let (mut egraph, mut leaves, mut added) = (Graph::default(), Leaves::default(), Vec::new());
        for c in computations {
            convert::add(&mut egraph, c, &mut leaves, &mut added);
        }
        let mut context = Vec::new();
        for (var, value, _) in ctx.valued() {
            if let Some(id) = convert::add(&mut egraph, value, &mut leaves, &mut added) {
                let leaf = convert::add(&mut egraph, &Expr::var(var), &mut leaves, &mut added);
                if let Some(leaf) = leaf {
                    egraph.union(leaf, id);
                }
                context.push((id, var.clone()));
            }
        }
        egraph.rebuild();
        let runner = Runner::default()
            .with_egraph(egraph)
            .with_node_limit(NODE_LIMIT)
            .with_iter_limit(ITER_LIMIT)
            .with_time_limit(TIME_LIMIT)
            .run(rules);
        let egraph = runner.egraph;
        if egraph.classes().any(|c| c.data.conflict) {
            return;
        }
        let mut written = HashMap::new();
        for (rank, node) in added.into_iter().enumerate() {
            let canonical = node.map_children(|c| egraph.find(c));
            written.entry(canonical).or_insert(rank as u64);
        }
        self.session = Some(Session { egraph, leaves, written, context });
    }

    fn class(&mut self, e: &Expr, children: &[Option<u64>]) -> Option<u64> {
        let Some(s) = &mut self.session else { return self.fallback.class(e, children) };
        let kids = children.iter().map(|c| c.map(|c| Id::from(c as usize))).collect::<Option<Vec<Id>>>()?;
        let node = convert::node_of(e, &kids, &mut s.leaves, false)?;
        s.egraph.lookup(node).map(|id| usize::from(s.egraph.find(id)) as u64)
    }

    fn interchangeable(&self, e: &Expr, repr: &Expr) -> bool {
        match &self.session {
            Some(_) => true,
            None => self.fallback.interchangeable(e, repr),
        }
    }

    fn representative(&mut self, class: u64, member: &Expr) -> Expr {
        let Some(s) = &self.session else { return member.clone() };
        extract::best(&s.egraph, Id::from(class as usize), &s.written, &s.leaves).unwrap_or_else(|_| member.clone())
    }

    fn context_var(&mut self, class: u64, repr: &Expr, ctx: &Context) -> Option<Var> {
        let Some(s) = &self.session else { return self.fallback.context_var(class, repr, ctx) };
        s.context.iter().find(|(id, _)| usize::from(s.egraph.find(*id)) as u64 == class).map(|(_, v)| v.clone())
    }
}

/// The IR expression of `pattern` with its variables replaced by `vars(name)` (names with
/// their `?`); for the soundness proofs of the rules.
pub fn instantiate(pattern: &Pattern<TirLang>, vars: &dyn Fn(&str) -> Option<Expr>) -> Result<Expr, ToExprError> {
    let nodes = pattern.ast.as_ref();
    let root = nodes.len().checked_sub(1).ok_or_else(|| ToExprError("<empty pattern>".into()))?;
    convert::build(nodes, root, &mut |node| match node {
        egg::ENodeOrVar::Var(v) => vars(&v.to_string()).ok_or_else(|| ToExprError(v.to_string())),
        egg::ENodeOrVar::ENode(n) => Err(ToExprError(n.to_string())),
    })
}
