//! How computations are grouped into classes whose members one variable may replace.
//!
//! The syntactic strategy (`cse`) puts structurally equal computations in one class; the
//! semantic one (`cse-semantic`, see `semantic`) puts computations an e-graph proves equal in
//! one class. The placement (`scope`) only talks to this trait.
//!
//! Invariant: two expressions of one class for which `interchangeable` holds have the same
//! value and fault under the same conditions, so either may replace the other.

use tirproof_ir::{Expr, PrimFunc, Var};

use super::context::Context;
use super::eligible::children;
use super::key::{self, same_tree as expr_eq};

pub trait Strategy {
    /// Starts a function.
    fn begin_func(&mut self, _func: &PrimFunc) {}
    /// A variable the placement bound to `value`.
    fn bound(&mut self, _var: &Var, _value: &Expr) {}
    /// The class of a computation of the scan, whose structural key is `key`.
    fn class_of_computation(&mut self, e: &Expr, _key: u64) -> Option<u64> {
        classify(self.as_dyn(), e)
    }
    /// `self` as a trait object (for the provided methods).
    fn as_dyn(&mut self) -> &mut dyn Strategy;
    /// The class of the node `e` given the classes of its operands (bottom-up), if it has one.
    fn class(&mut self, e: &Expr, children: &[Option<u64>]) -> Option<u64>;
    /// Whether `e`, of the class of `repr`, may be replaced by a variable holding `repr`.
    fn interchangeable(&self, e: &Expr, repr: &Expr) -> bool;
    /// The expression to bind for the class of `member`, when it is not `member` itself.
    fn representative(&mut self, class: u64, member: &Expr) -> Option<Expr>;
    /// A let-bound variable of the context whose value is in the class of `repr`.
    fn context_var(&mut self, class: u64, repr: &Expr, ctx: &Context) -> Option<Var>;
    /// Whether a computation's class is its structural key, its members are the trees equal
    /// to it and it is its own representative: occurrences are then found by comparing trees
    /// (no node classified), and distinct trees of a scan are distinct classes.
    fn classes_are_trees(&self) -> bool {
        false
    }
}

/// The class of a whole expression.
pub fn classify(strategy: &mut dyn Strategy, e: &Expr) -> Option<u64> {
    classify_with(strategy, e, &mut Vec::new())
}

fn classify_with(strategy: &mut dyn Strategy, e: &Expr, stack: &mut Vec<Option<u64>>) -> Option<u64> {
    let first = stack.len();
    for (c, _) in children(e) {
        let class = classify_with(strategy, c, stack);
        stack.push(class);
    }
    let class = strategy.class(e, &stack[first..]);
    stack.truncate(first);
    class
}

/// Classes are structural keys, confirmed by structural equality.
#[derive(Debug, Default)]
pub struct Syntactic;

impl Strategy for Syntactic {
    fn class_of_computation(&mut self, _e: &Expr, key: u64) -> Option<u64> {
        // The scan computed the key the same way `class` does.
        Some(key)
    }

    fn as_dyn(&mut self) -> &mut dyn Strategy {
        self
    }

    fn class(&mut self, e: &Expr, children: &[Option<u64>]) -> Option<u64> {
        let h = children.iter().fold(key::start(e), |h, c| key::with_child(h, c.unwrap_or(0)));
        Some(key::finish(h, children.len()))
    }

    fn interchangeable(&self, e: &Expr, repr: &Expr) -> bool {
        expr_eq(e, repr)
    }

    fn representative(&mut self, _class: u64, _member: &Expr) -> Option<Expr> {
        None
    }

    fn context_var(&mut self, class: u64, repr: &Expr, ctx: &Context) -> Option<Var> {
        ctx.valued().find(|(_, value, key)| *key == class && expr_eq(value, repr)).map(|(v, _, _)| v.clone())
    }

    fn classes_are_trees(&self) -> bool {
        // A class is a key, and a member one that `expr_eq` confirms: equal trees have equal
        // keys.
        true
    }
}
