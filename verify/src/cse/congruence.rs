//! Congruence: a cheaper route to the proof of a rewrite. When the original and the rewritten
//! expression apply the same operator (same kind, operator, type, lanes, buffer or pure
//! call), they have the same value and the same faults whenever their operands do, pairwise:
//! an operator's fault depends only on its operands' faults and values, and a lazy
//! `if_then_else` takes the same arm when its conditions agree. So the walk proves the
//! operand pairs that differ, each on its own (mostly small integer index expressions, where
//! Z3 is fast, instead of whole float expressions it must bit-blast), and falls back to the
//! whole expression when any operand pair is not proved.
//!
//! Only for expressions without `Let` (a binder the operands would need in scope) and without
//! impure calls (which change the memory the loads after them read): there every load of
//! either side reads the memory both sides start from.

use tirproof_ir::visit::{walk_expr, Visitor};
use tirproof_ir::{Buffer, CallEffect, Expr};

/// Whether congruence applies inside `e` (see the module documentation).
pub fn decomposable(e: &Expr) -> bool {
    struct Blocks(bool);
    impl Visitor for Blocks {
        fn visit_expr(&mut self, e: &Expr) {
            self.0 |= matches!(e, Expr::Let { .. }) || matches!(e, Expr::Call(c) if c.effect != CallEffect::Pure);
            walk_expr(self, e);
        }
    }
    let mut blocks = Blocks(false);
    blocks.visit_expr(e);
    !blocks.0
}

/// The operand pairs of `o` and `n` when both apply the same operator; `None` when they do
/// not, or when either is a leaf.
pub fn operand_pairs<'e>(
    o: &'e Expr,
    n: &'e Expr,
    same_buffer: impl Fn(&Buffer, &Buffer) -> bool,
) -> Option<Vec<(&'e Expr, &'e Expr)>> {
    use Expr::*;
    let pairs = match (o, n) {
        (Binary { op: a, lhs: l1, rhs: r1 }, Binary { op: b, lhs: l2, rhs: r2 }) if a == b => {
            vec![(&**l1, &**l2), (&**r1, &**r2)]
        }
        (Cmp { op: a, lhs: l1, rhs: r1 }, Cmp { op: b, lhs: l2, rhs: r2 }) if a == b => {
            vec![(&**l1, &**l2), (&**r1, &**r2)]
        }
        (Logic { op: a, lhs: l1, rhs: r1 }, Logic { op: b, lhs: l2, rhs: r2 }) if a == b => {
            vec![(&**l1, &**l2), (&**r1, &**r2)]
        }
        (Not(a), Not(b)) => vec![(&**a, &**b)],
        (Select { cond: c1, on_true: t1, on_false: f1 }, Select { cond: c2, on_true: t2, on_false: f2 })
        | (IfThenElse { cond: c1, on_true: t1, on_false: f1 }, IfThenElse { cond: c2, on_true: t2, on_false: f2 })
            if std::mem::discriminant(o) == std::mem::discriminant(n) =>
        {
            vec![(&**c1, &**c2), (&**t1, &**t2), (&**f1, &**f2)]
        }
        (Cast { dtype: a, value: v1 }, Cast { dtype: b, value: v2 }) if a == b => vec![(&**v1, &**v2)],
        (Ramp { base: b1, stride: s1, lanes: a }, Ramp { base: b2, stride: s2, lanes: b }) if a == b => {
            vec![(&**b1, &**b2), (&**s1, &**s2)]
        }
        (Broadcast { value: v1, lanes: a }, Broadcast { value: v2, lanes: b }) if a == b => vec![(&**v1, &**v2)],
        (Load(a), Load(b)) if same_buffer(&a.buffer, &b.buffer) && a.indices.len() == b.indices.len() => {
            a.indices.iter().zip(&b.indices).collect()
        }
        (Call(a), Call(b))
            if a.effect == CallEffect::Pure
                && b.effect == CallEffect::Pure
                && a.name == b.name
                && a.dtype == b.dtype
                && a.external == b.external
                && a.args.len() == b.args.len() =>
        {
            a.args.iter().zip(&b.args).collect()
        }
        _ => return None,
    };
    // The operands' types must agree too (they decide the operator's semantics).
    pairs.iter().all(|(a, b)| a.dtype() == b.dtype()).then_some(pairs)
}
