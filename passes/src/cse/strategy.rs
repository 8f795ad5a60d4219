//! How computations are grouped into classes whose members one variable may replace.
//!
//! The syntactic strategy (`cse`) puts structurally equal computations in one class; the
//! semantic one (`cse-semantic`, see `semantic`) puts computations an e-graph proves equal in
//! one class. The placement (`scope`) only talks to this trait.
//!
//! Invariant: two expressions of one class for which `interchangeable` holds have the same
//! value and fault under the same conditions, so either may replace the other.

use tirproof_ir::structural::expr_eq;
use tirproof_ir::{Expr, Var};

use super::context::Context;
use super::eligible::children;
use super::key::node_key;

pub trait Strategy {
    /// Starts a round of a scope: its maximal computations and its context.
    fn begin(&mut self, computations: &[&Expr], ctx: &Context);
    /// The class of the node `e` given the classes of its operands (bottom-up), if it has one.
    fn class(&mut self, e: &Expr, children: &[Option<u64>]) -> Option<u64>;
    /// Whether `e`, of the class of `repr`, may be replaced by a variable holding `repr`.
    fn interchangeable(&self, e: &Expr, repr: &Expr) -> bool;
    /// The expression to bind for the class of `member`.
    fn representative(&mut self, class: u64, member: &Expr) -> Expr;
    /// A let-bound variable of the context whose value is in the class of `repr`.
    fn context_var(&mut self, class: u64, repr: &Expr, ctx: &Context) -> Option<Var>;
}

/// The class of a whole expression.
pub fn classify(strategy: &mut dyn Strategy, e: &Expr) -> Option<u64> {
    let kids: Vec<Option<u64>> = children(e).iter().map(|(c, _)| classify(strategy, c)).collect();
    strategy.class(e, &kids)
}

/// Classes are structural keys, confirmed by structural equality.
#[derive(Debug, Default)]
pub struct Syntactic;

impl Strategy for Syntactic {
    fn begin(&mut self, _computations: &[&Expr], _ctx: &Context) {}

    fn class(&mut self, e: &Expr, children: &[Option<u64>]) -> Option<u64> {
        let keys: Vec<u64> = children.iter().map(|c| c.unwrap_or(0)).collect();
        Some(node_key(e, &keys))
    }

    fn interchangeable(&self, e: &Expr, repr: &Expr) -> bool {
        expr_eq(e, repr)
    }

    fn representative(&mut self, _class: u64, member: &Expr) -> Expr {
        member.clone()
    }

    fn context_var(&mut self, class: u64, repr: &Expr, ctx: &Context) -> Option<Var> {
        ctx.valued().find(|(_, value, key)| *key == class && expr_eq(value, repr)).map(|(v, _, _)| v.clone())
    }
}
