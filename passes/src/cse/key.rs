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

/// The key of `e` before its operands are mixed in (`mix` each operand key, then `finish`).
/// The type is mixed in only where the operands do not determine it (immediates, casts,
/// calls): `Expr::dtype` recomputes it from the operands, which would cost a walk per node.
pub fn start(e: &Expr) -> u64 {
    let h = mix(SEED, tag(e));
    match e {
        Expr::Int { value, dtype } => mix(mix(h, dtype_bits(*dtype)), *value as u64),
        Expr::Float { value, dtype } => mix(mix(h, dtype_bits(*dtype)), value.to_bits()),
        Expr::Cast { dtype, .. } => mix(h, dtype_bits(*dtype)),
        Expr::Str(s) => s.bytes().fold(h, |h, b| mix(h, u64::from(b))),
        Expr::Var(v) => mix(h, u64::from(v.id().0)),
        Expr::Binary { op, .. } => mix(h, *op as u64),
        Expr::Cmp { op, .. } => mix(h, *op as u64),
        Expr::Logic { op, .. } => mix(h, *op as u64),
        Expr::Ramp { lanes, .. } | Expr::Broadcast { lanes, .. } => mix(h, u64::from(*lanes)),
        Expr::Let { var, .. } => mix(h, u64::from(var.id().0)),
        Expr::Load(load) => mix(h, u64::from(load.buffer.id().0)),
        Expr::Call(call) => {
            let h = mix(mix(h, dtype_bits(call.dtype)), call.effect as u64 | u64::from(call.external) << 8);
            call.name.bytes().fold(h, |h, b| mix(h, u64::from(b)))
        }
        Expr::Not(_) | Expr::Select { .. } | Expr::IfThenElse { .. } => h,
    }
}

/// Mixes the key of the next operand into a key being built.
pub fn with_child(h: u64, child: u64) -> u64 {
    mix(h, child)
}

/// Completes a key built from `start` and `count` operands.
pub fn finish(h: u64, count: usize) -> u64 {
    mix(h, count as u64)
}

/// The key of a whole expression.
pub fn key(e: &Expr) -> u64 {
    let (h, n) = crate::cse::eligible::children(e).fold((start(e), 0), |(h, n), (c, _)| (mix(h, key(c)), n + 1));
    finish(h, n)
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

/// Structural equality of two trees without `Let`s: same operators, types, immediates (floats
/// by bits) and variables (by identity). Trees with a `Let` fall back to `expr_eq` (which
/// equates renamed binders).
pub fn same_tree(a: &Expr, b: &Expr) -> bool {
    use tirproof_ir::structural::expr_eq;
    let shallow = match (a, b) {
        (Expr::Int { value: x, dtype: s }, Expr::Int { value: y, dtype: t }) => x == y && s == t,
        (Expr::Float { value: x, dtype: s }, Expr::Float { value: y, dtype: t }) => {
            x.to_bits() == y.to_bits() && s == t
        }
        (Expr::Str(x), Expr::Str(y)) => x == y,
        (Expr::Var(x), Expr::Var(y)) => x == y,
        (Expr::Binary { op: x, .. }, Expr::Binary { op: y, .. }) => x == y,
        (Expr::Cmp { op: x, .. }, Expr::Cmp { op: y, .. }) => x == y,
        (Expr::Logic { op: x, .. }, Expr::Logic { op: y, .. }) => x == y,
        (Expr::Not(_), Expr::Not(_)) | (Expr::Select { .. }, Expr::Select { .. }) => true,
        (Expr::IfThenElse { .. }, Expr::IfThenElse { .. }) => true,
        (Expr::Cast { dtype: s, .. }, Expr::Cast { dtype: t, .. }) => s == t,
        (Expr::Ramp { lanes: x, .. }, Expr::Ramp { lanes: y, .. }) => x == y,
        (Expr::Broadcast { lanes: x, .. }, Expr::Broadcast { lanes: y, .. }) => x == y,
        (Expr::Load(x), Expr::Load(y)) => x.buffer.id() == y.buffer.id() && x.indices.len() == y.indices.len(),
        (Expr::Call(x), Expr::Call(y)) => {
            x.name == y.name
                && x.dtype == y.dtype
                && x.effect == y.effect
                && x.external == y.external
                && x.args.len() == y.args.len()
        }
        (Expr::Let { .. }, _) | (_, Expr::Let { .. }) => return expr_eq(a, b),
        _ => false,
    };
    shallow
        && crate::cse::eligible::children(a)
            .zip(crate::cse::eligible::children(b))
            .all(|((x, _), (y, _))| same_tree(x, y))
}

/// A hasher for keys that are already hashes: it passes them through.
#[derive(Clone, Copy, Debug, Default)]
pub struct PassThrough(u64);

impl std::hash::Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = bytes.iter().fold(self.0, |h, b| mix(h, u64::from(*b)));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = mix(SEED, u64::from(n));
    }
}

/// Maps keyed by structural keys or variable ids.
pub type KeyMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<PassThrough>>;
/// Sets of variable ids.
pub type KeySet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<PassThrough>>;

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
