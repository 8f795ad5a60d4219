//! How much work a function's expressions describe, to measure what CSE saves.
//!
//! An *operation* is an operator node: arithmetic, comparison, logic, select, `if_then_else`,
//! cast or call. Leaves, loads, ramps, broadcasts and lets are not operations. Every
//! expression of the function counts (indices, values, bounds, conditions, let values), each
//! as written: a let value counts once however often its variable is read.

use tirproof_ir::visit::{walk_expr, walk_func, Visitor};
use tirproof_ir::{Expr, PrimFunc};

/// The number of operations written in `func`.
pub fn operations(func: &PrimFunc) -> usize {
    struct Count(usize);
    impl Visitor for Count {
        fn visit_expr(&mut self, expr: &Expr) {
            if is_operation(expr) {
                self.0 += 1;
            }
            walk_expr(self, expr);
        }
    }
    let mut count = Count(0);
    walk_func(&mut count, func);
    count.0
}

fn is_operation(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Binary { .. }
            | Expr::Cmp { .. }
            | Expr::Logic { .. }
            | Expr::Not(_)
            | Expr::Select { .. }
            | Expr::IfThenElse { .. }
            | Expr::Cast { .. }
            | Expr::Call(_)
    )
}
