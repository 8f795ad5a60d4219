//! Constant folding for the integer index expressions that passes build.
//!
//! Only what keeps emitted indices readable and exact: `+`, `-`, `*`, `//` and `%` of int32
//! immediates (floor semantics, wrapping arithmetic, computed by `tirproof_ir::int_arith`
//! like every other fold and the interpreter), and the identities `x + 0`, `x - 0`,
//! `x * 1`, `0 + x`. Division by zero is left unfolded so the program keeps its trap.

use tirproof_ir::int_arith::fold_binary;
use tirproof_ir::visit::{walk_expr_mut, walk_stmt_mut, MutVisitor};
use tirproof_ir::{BinOp, DataType, Expr, LogicOp, Stmt, StmtKind};

use crate::provenance::replace;

/// Folds every foldable integer subexpression of `stmt` in place (after a substitution has
/// put constants where loop variables were), and drops the branches of conditionals whose
/// condition became a constant.
pub fn fold_stmt(stmt: &mut Stmt) {
    Folder.mutate_stmt(stmt);
}

/// Folds every foldable integer subexpression of `expr` in place.
pub fn fold_expr(expr: &mut Expr) {
    Folder.mutate_expr(expr);
}

struct Folder;

impl MutVisitor for Folder {
    fn mutate_expr(&mut self, expr: &mut Expr) {
        walk_expr_mut(self, expr);
        let folded = match expr {
            Expr::Binary { op, lhs, rhs }
                if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::FloorMod) =>
            {
                Some(binary(*op, (**lhs).clone(), (**rhs).clone()))
            }
            Expr::Cmp { op, lhs, rhs } => match (int32(lhs), int32(rhs)) {
                (Some(a), Some(b)) => Some(Expr::bool(op.holds(&a, &b))),
                _ => None,
            },
            Expr::Logic { op, lhs, rhs } => match (as_bool(lhs), as_bool(rhs), op) {
                (Some(a), Some(b), LogicOp::And) => Some(Expr::bool(a && b)),
                (Some(a), Some(b), LogicOp::Or) => Some(Expr::bool(a || b)),
                (Some(false), _, LogicOp::And) | (_, Some(false), LogicOp::And) => Some(Expr::bool(false)),
                (Some(true), _, LogicOp::Or) | (_, Some(true), LogicOp::Or) => Some(Expr::bool(true)),
                _ => None,
            },
            Expr::Not(value) => as_bool(value).map(|b| Expr::bool(!b)),
            _ => None,
        };
        if let Some(f) = folded {
            *expr = f;
        }
    }

    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        walk_stmt_mut(self, stmt);
        let StmtKind::If { cond, then_case, else_case } = &mut stmt.kind else {
            return;
        };
        let branch = match as_bool(cond) {
            Some(true) => std::mem::replace(then_case.as_mut(), Stmt::nop()),
            Some(false) => else_case.take().map_or_else(Stmt::nop, |e| *e),
            None => return,
        };
        replace(stmt, branch);
    }
}

fn as_bool(e: &Expr) -> Option<bool> {
    match e {
        Expr::Int { value, dtype } if *dtype == DataType::BOOL => Some(*value != 0),
        _ => None,
    }
}

/// `lhs op rhs`, folded when both sides are constants or an identity applies.
pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    if let (Some(a), Some(b)) = (int32(&lhs), int32(&rhs)) {
        if let Some(v) = folded(op, a, b) {
            return Expr::int(v);
        }
    }
    match (op, int32(&lhs), int32(&rhs)) {
        (BinOp::Add | BinOp::Sub, _, Some(0)) | (BinOp::Mul, _, Some(1)) => lhs,
        (BinOp::Add, Some(0), _) => rhs,
        _ => Expr::binary(op, lhs, rhs),
    }
}

pub fn add(lhs: Expr, rhs: Expr) -> Expr {
    // Keep `i + 3` rather than `3 + i`, and merge `(i + 1) + 2` into `i + 3`.
    if let (Expr::Binary { op: BinOp::Add, lhs: inner, rhs: c1 }, Some(c2)) = (&lhs, int32(&rhs)) {
        if let Some(c1) = int32(c1) {
            return add((**inner).clone(), Expr::int(i64::from(c1.wrapping_add(c2))));
        }
    }
    match int32(&rhs) {
        Some(c) if c < 0 => binary(BinOp::Sub, lhs, Expr::int(-i64::from(c))),
        _ => binary(BinOp::Add, lhs, rhs),
    }
}

pub fn sub(lhs: Expr, rhs: Expr) -> Expr {
    match int32(&rhs) {
        Some(c) if int32(&lhs).is_none() => add(lhs, Expr::int(-i64::from(c))),
        _ => binary(BinOp::Sub, lhs, rhs),
    }
}

pub fn floormod(lhs: Expr, rhs: Expr) -> Expr {
    binary(BinOp::FloorMod, lhs, rhs)
}

/// The operators folded here, with the program's own semantics (`tirproof_ir::int_arith`).
fn folded(op: BinOp, a: i32, b: i32) -> Option<i64> {
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::FloorMod => {
            fold_binary(op, DataType::INT32, i64::from(a), i64::from(b))
        }
        _ => None,
    }
}

fn int32(e: &Expr) -> Option<i32> {
    match e {
        Expr::Int { value, dtype } if *dtype == DataType::INT32 => i32::try_from(*value).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::Var;

    #[test]
    fn folds_constants_with_floor_semantics() {
        assert_eq!(floormod(Expr::int(-1), Expr::int(4)), Expr::int(3));
        assert_eq!(binary(BinOp::FloorDiv, Expr::int(-7), Expr::int(2)), Expr::int(-4));
        assert_eq!(
            binary(BinOp::FloorDiv, Expr::int(7), Expr::int(0)),
            Expr::binary(BinOp::FloorDiv, Expr::int(7), Expr::int(0))
        );
    }

    #[test]
    fn keeps_variable_offsets_readable() {
        let i = Var::new("i", DataType::INT32);
        assert_eq!(add(add(Expr::var(&i), Expr::int(1)), Expr::int(2)), Expr::var(&i) + Expr::int(3));
        assert_eq!(add(Expr::var(&i), Expr::int(0)), Expr::var(&i));
        assert_eq!(sub(Expr::var(&i), Expr::int(-2)), Expr::var(&i) + Expr::int(2));
        assert_eq!(add(Expr::var(&i), Expr::int(-2)), Expr::var(&i) - Expr::int(2));
    }

    #[test]
    fn a_folded_conditional_leaves_its_origin_on_the_branch() {
        let origin = tirproof_ir::Origin { stmt: 3, stage: 1, iteration: Expr::int(2) };
        let branch = Stmt::synthetic(StmtKind::Evaluate(Expr::int(0)));
        let cond = Expr::bool(true);
        let mut s = Stmt::synthetic(StmtKind::If { cond, then_case: Box::new(branch), else_case: None });
        s = s.with_origin(origin.clone());
        fold_stmt(&mut s);
        assert!(matches!(s.kind, StmtKind::Evaluate(_)));
        assert_eq!(s.origin.as_deref(), Some(&origin));
    }
}
