//! Constant folding for the integer index expressions that passes build.
//!
//! Only what keeps emitted indices readable and exact: `+`, `-`, `*`, `//` and `%` of signed
//! integer immediates of one type (floor semantics, wrapping arithmetic at the type's width,
//! computed by `tirproof_ir::int_arith` like every other fold and the interpreter), and the
//! identities `x + 0`, `x - 0`, `x * 1`, `0 + x`. Division by zero is left unfolded so the
//! program keeps its trap.
//!
//! The builders (`binary`, `add`, `sub`, `floormod`) also keep operand types equal: a literal
//! written as `Expr::int` next to an int64 (or int8) operand takes that operand's type when
//! its value fits, so a pass never prints `T.int64(0) + i` or `i + 1` of mixed types.

use tirproof_ir::int_arith::{fold_binary, wrap};
use tirproof_ir::subst::NodeRewrite;
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

/// The fold of one node whose parts are already folded: what `fold_stmt` does at every node,
/// bottom-up. A substitution that applies it ([`tirproof_ir::subst::NodeRewrite`]) folds a
/// copy in the same walk that makes it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Folder;

impl NodeRewrite for Folder {
    fn expr(&mut self, expr: &mut Expr) {
        let folded = match expr {
            Expr::Binary { op: BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::FloorMod, .. } => {
                // In place: a node that does not fold keeps its operands' boxes.
                fold_binary_node(expr);
                return;
            }
            Expr::Cmp { op, lhs, rhs } => match (constant(lhs), constant(rhs)) {
                (Some((a, ta)), Some((b, tb))) if ta == tb => Some(Expr::bool(op.holds(&a, &b))),
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

    fn stmt(&mut self, stmt: &mut Stmt) {
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

impl MutVisitor for Folder {
    fn mutate_expr(&mut self, expr: &mut Expr) {
        walk_expr_mut(self, expr);
        NodeRewrite::expr(self, expr);
    }

    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        walk_stmt_mut(self, stmt);
        NodeRewrite::stmt(self, stmt);
    }
}

fn as_bool(e: &Expr) -> Option<bool> {
    match e {
        Expr::Int { value, dtype } if *dtype == DataType::BOOL => Some(*value != 0),
        _ => None,
    }
}

/// `lhs op rhs`, folded when both sides are constants or an identity applies; a literal
/// takes the other operand's integer type (see the module doc).
pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    let mut node = Expr::binary(op, lhs, rhs);
    fold_binary_node(&mut node);
    node
}

/// What [`binary`] does, on a binary node in place (other nodes are left alone): the
/// literal's type, then the fold or identity, reusing the node's boxes when nothing folds.
fn fold_binary_node(node: &mut Expr) {
    let Expr::Binary { op, lhs, rhs } = node else { return };
    // Without a literal operand nothing folds, retypes or is an identity.
    if constant(lhs).is_none() && constant(rhs).is_none() {
        return;
    }
    same_type_in_place(lhs, rhs);
    let (lhs_constant, rhs_constant) = (constant(lhs), constant(rhs));
    if let (Some((a, ta)), Some((b, tb))) = (lhs_constant, rhs_constant) {
        if ta == tb {
            if let Some(v) = folded(*op, ta, a, b) {
                *node = Expr::int_of(v, ta);
                return;
            }
        }
    }
    if lhs.dtype() != rhs.dtype() {
        return;
    }
    let kept = match (*op, lhs_constant.map(|c| c.0), rhs_constant.map(|c| c.0)) {
        (BinOp::Add | BinOp::Sub, _, Some(0)) | (BinOp::Mul, _, Some(1)) => {
            std::mem::replace(lhs.as_mut(), Expr::int(0))
        }
        (BinOp::Add, Some(0), _) => std::mem::replace(rhs.as_mut(), Expr::int(0)),
        _ => return,
    };
    *node = kept;
}

pub fn add(lhs: Expr, rhs: Expr) -> Expr {
    let (lhs, rhs) = same_type(lhs, rhs);
    // Keep `i + 3` rather than `3 + i`, and merge `(i + 1) + 2` into `i + 3`.
    if let (Expr::Binary { op: BinOp::Add, lhs: inner, rhs: c1 }, Some((c2, t2))) = (&lhs, constant(&rhs)) {
        if let Some((c1, t1)) = constant(c1).filter(|(_, t1)| *t1 == t2 && inner.dtype() == t2) {
            if let Some(sum) = folded(BinOp::Add, t1, c1, c2) {
                return add((**inner).clone(), Expr::int_of(sum, t1));
            }
        }
    }
    match constant(&rhs) {
        Some((c, t)) if c < 0 && folded(BinOp::Sub, t, 0, c) == Some(-c) => {
            binary(BinOp::Sub, lhs, Expr::int_of(-c, t))
        }
        _ => binary(BinOp::Add, lhs, rhs),
    }
}

pub fn sub(lhs: Expr, rhs: Expr) -> Expr {
    let (lhs, rhs) = same_type(lhs, rhs);
    match constant(&rhs) {
        Some((c, t)) if constant(&lhs).is_none() && folded(BinOp::Sub, t, 0, c) == Some(-c) => {
            add(lhs, Expr::int_of(-c, t))
        }
        _ => binary(BinOp::Sub, lhs, rhs),
    }
}

pub fn floormod(lhs: Expr, rhs: Expr) -> Expr {
    binary(BinOp::FloorMod, lhs, rhs)
}

/// `lhs` and `rhs` with a literal on one side given the other side's signed integer type,
/// where the literal's value fits it; when both are literals, the int32 one (what `Expr::int`
/// writes) takes the other's type. Otherwise unchanged.
fn same_type(mut lhs: Expr, mut rhs: Expr) -> (Expr, Expr) {
    same_type_in_place(&mut lhs, &mut rhs);
    (lhs, rhs)
}

/// [`same_type`] on operands in place.
fn same_type_in_place(lhs: &mut Expr, rhs: &mut Expr) {
    let retyped = |literal: &Expr, like: &Expr| -> Option<Expr> {
        let (value, dtype) = constant(literal)?;
        let target = like.dtype();
        (dtype != target && wrap(value, target) == Some(value)).then(|| Expr::int_of(value, target))
    };
    let default_literal = |e: &Expr| constant(e).is_some_and(|(_, t)| t == DataType::INT32);
    let (lhs_literal, rhs_literal) = (constant(lhs).is_some(), constant(rhs).is_some());
    if rhs_literal && (!lhs_literal || default_literal(rhs)) {
        if let Some(r) = retyped(rhs, lhs) {
            *rhs = r;
        }
    } else if lhs_literal && (!rhs_literal || default_literal(lhs)) {
        if let Some(l) = retyped(lhs, rhs) {
            *lhs = l;
        }
    }
}

/// The operators folded here, with the program's own semantics (`tirproof_ir::int_arith`).
fn folded(op: BinOp, dtype: DataType, a: i64, b: i64) -> Option<i64> {
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::FloorMod => fold_binary(op, dtype, a, b),
        _ => None,
    }
}

/// A signed integer immediate (not a boolean) with its type.
fn constant(e: &Expr) -> Option<(i64, DataType)> {
    match e {
        Expr::Int { value, dtype } if wrap(*value, *dtype) == Some(*value) => Some((*value, *dtype)),
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
    fn literals_take_the_type_of_what_they_meet() {
        let i = Var::new("i", DataType::INT64);
        let int64 = |v| Expr::int_of(v, DataType::INT64);
        assert_eq!(add(Expr::var(&i), Expr::int(1)), Expr::var(&i) + int64(1));
        assert_eq!(floormod(int64(5), Expr::int(2)), int64(1));
        assert_eq!(add(int64(0), Expr::var(&i)), Expr::var(&i));
        // int64 arithmetic folds at its own width; a value int32 cannot hold stays int64.
        assert_eq!(binary(BinOp::Mul, int64(1 << 20), Expr::int(1 << 20)), int64(1 << 40));
        // A literal that does not fit the other side's type keeps its own.
        let small = Var::new("s", DataType::INT8);
        assert_eq!(add(Expr::var(&small), Expr::int(300)), Expr::binary(BinOp::Add, Expr::var(&small), Expr::int(300)));
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
