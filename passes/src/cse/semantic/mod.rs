//! `cse-semantic`: the placement of `cse`, with computations grouped by equivalence.
//!
//! One e-graph (egg) per function (`session`): every load-free subtree of the function, each
//! let variable equal to its value, saturated once with the rules of `rules` within
//! `NODE_LIMIT` nodes and `ITER_LIMIT` iterations. The placement uses its e-classes as classes:
//! one variable per class performed at least twice in a scope, bound to the class's cheapest
//! term (`extract`: fewest nodes, ties broken toward terms written in the program, earliest
//! first) when that is smaller than the form met first, else to that form; each new variable
//! joins the class of its value. egg's `deterministic` feature and a
//! generous time limit (never reached before the node and iteration limits) make every run
//! reproducible.
//!
//! Invariant: classes only ever contain terms equal in value and in faults (rules are proved so
//! in tirproof-verify), so replacing a member by the class's variable is sound. When the table
//! cannot be compiled or two types meet in one class, the function falls back to syntactic
//! classes.

mod analysis;
pub mod convert;
mod extract;
pub mod lang;
pub mod rewrites;
pub mod rules;
mod session;

use egg::{Pattern, Rewrite};
use tirproof_ir::{Expr, PrimFunc, Var};

use self::analysis::Facts;
use self::convert::ToExprError;
use self::lang::TirLang;
use self::session::Session;
use super::context::Context;
use super::eligible::complexity;
use super::scope::Stats;
use super::strategy::{Strategy, Syntactic};
use crate::stop::Limit;

pub use session::{Limits, ITER_LIMIT, NODE_LIMIT};

/// Runs semantic CSE on one function with the e-graph within `limits`; says which limit the
/// e-graph stopped at, if it did not saturate.
pub fn eliminate(func: &mut PrimFunc, limits: Limits) -> (Stats, Option<Limit>) {
    let mut strategy = Semantic { limits, ..Semantic::default() };
    let stats = super::driver::run_func(func, &mut strategy);
    (stats, strategy.stopped)
}

/// The semantic strategy.
#[derive(Default)]
pub struct Semantic {
    rules: Option<Vec<Rewrite<TirLang, Facts>>>,
    session: Option<Session>,
    limits: Limits,
    /// The limit the last function's e-graph stopped at.
    stopped: Option<Limit>,
    /// Used for a function whose e-graph cannot be built or trusted.
    fallback: Syntactic,
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
    fn begin_func(&mut self, func: &PrimFunc) {
        let limits = self.limits;
        let built = self.rules().map(|rules| Session::build(func, rules, limits));
        self.stopped = built.as_ref().and_then(|(_, stopped)| stopped.clone());
        self.session = built.and_then(|(session, _)| session);
    }

    fn as_dyn(&mut self) -> &mut dyn Strategy {
        self
    }

    fn class(&mut self, e: &Expr, children: &[Option<u64>]) -> Option<u64> {
        match &mut self.session {
            Some(s) => s.class(e, children),
            None => self.fallback.class(e, children),
        }
    }

    fn interchangeable(&self, e: &Expr, repr: &Expr) -> bool {
        match &self.session {
            Some(_) => true,
            None => self.fallback.interchangeable(e, repr),
        }
    }

    /// The class's cheapest term when it is smaller than `member` (the cheapest term never
    /// reads a let variable, so a member that does may well be smaller).
    fn representative(&mut self, class: u64, member: &Expr) -> Option<Expr> {
        let best = self.session.as_ref()?.best(class)?;
        (complexity(best) < complexity(member)).then(|| best.clone())
    }

    fn context_var(&mut self, class: u64, repr: &Expr, ctx: &Context) -> Option<Var> {
        let Some(s) = &self.session else { return self.fallback.context_var(class, repr, ctx) };
        ctx.valued().find(|(v, _, _)| s.var_class(v) == Some(class)).map(|(v, _, _)| v.clone())
    }

    fn bound(&mut self, var: &Var, value: &Expr) {
        if let Some(s) = &mut self.session {
            s.bind(var, value);
        }
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
