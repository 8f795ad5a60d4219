//! Structural keys: a 64-bit hash of an expression computed bottom-up from its node and the keys
//! of its operands, so a whole tree is keyed in one pass.
//!
//! Invariant: structurally equal expressions (same operators, types, immediates, and the same
//! variables by identity) have equal keys. Unequal expressions may collide, so a key is only a
//! filter: whoever relies on equality confirms it with `expr_eq`. Keys are deterministic (no
//! random hash state), so everything ordered by them is reproducible.

use tirproof_ir::{DataType, Expr};

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Mixes `x` into `h`.
fn mix(h: u64, x: u64) -> u64 {
    (h.rotate_left(23) ^ x).wrapping_mul(0x2127_599b_f432_5c37).wrapping_add(SEED)
}

fn dtype_bits(t: DataType) -> u64 {
    (t.code as u64) << 32 | u64::from(t.bits) << 16 | u64::from(t.lanes)
}

/// The key of `e` given the keys of its operands (in `eligible::children` order).
pub fn node_key(e: &Expr, children: &[u64]) -> u64 {
    let mut h = mix(SEED, tag(e));
    h = mix(h, dtype_bits(e.dtype()));
    h = match e {
        Expr::Int { value, .. } => mix(h, *value as u64),
        Expr::Float { value, .. } => mix(h, value.to_bits()),
        Expr::Str(s) => s.bytes().fold(h, |h, b| mix(h, u64::from(b))),
        Expr::Var(v) => mix(h, u64::from(v.id().0)),
        Expr::Binary { op, .. } => mix(h, *op as u64),
        Expr::Cmp { op, .. } => mix(h, *op as u64),
        Expr::Logic { op, .. } => mix(h, *op as u64),
        Expr::Ramp { lanes, .. } | Expr::Broadcast { lanes, .. } => mix(h, u64::from(*lanes)),
        Expr::Let { var, .. } => mix(h, u64::from(var.id().0)),
        Expr::Load(load) => mix(h, load.buffer.id().0 as u64),
        Expr::Call(call) => call.name.bytes().fold(mix(h, call.effect as u64), |h, b| mix(h, u64::from(b))),
        Expr::Not(_) | Expr::Select { .. } | Expr::IfThenElse { .. } | Expr::Cast { .. } => h,
    };
    children.iter().fold(mix(h, children.len() as u64), |h, c| mix(h, *c))
}

/// The key of a whole expression.
pub fn key(e: &Expr) -> u64 {
    let kids: Vec<u64> = crate::cse::eligible::children(e).iter().map(|(c, _)| key(c)).collect();
    node_key(e, &kids)
}

fn tag(e: &Expr) -> u64 {
    match e {
        Expr::Int { .. } => 1,
        Expr::Float { .. } => 2,
        Expr::Str(_) => 3,
        Expr::Var(_) => 4,
        Expr::Binary { .. } => 5,
        Expr::Cmp { .. } => 6,
        Expr::Logic { .. } => 7,
        Expr::Not(_) => 8,
        Expr::Select { .. } => 9,
        Expr::IfThenElse { .. } => 10,
        Expr::Cast { .. } => 11,
        Expr::Ramp { .. } => 12,
        Expr::Broadcast { .. } => 13,
        Expr::Let { .. } => 14,
        Expr::Load(_) => 15,
        Expr::Call(_) => 16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::Var;

    #[test]
    fn equal_trees_have_equal_keys_and_order_matters() {
        let x = Var::new("x", DataType::INT32);
        let y = Var::new("y", DataType::INT32);
        let a = Expr::var(&x) + Expr::var(&y);
        let b = Expr::var(&x) + Expr::var(&y);
        let c = Expr::var(&y) + Expr::var(&x);
        assert_eq!(key(&a), key(&b));
        assert_ne!(key(&a), key(&c));
        assert_ne!(key(&Expr::int(1)), key(&Expr::int_of(1, DataType::INT64)));
    }
}
