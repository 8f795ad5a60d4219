//! Which expressions CSE may bind to a variable, and the facts about them the placement needs.
//!
//! A *computation* is an expression CSE may introduce a variable for. It is not an immediate or
//! a variable (nothing to save), not a `Ramp` or `Broadcast` (later passes match those nodes
//! directly), not handle-typed, not a hint call (`T.likely`, `T.assume`: binding them would lose
//! the hint), and it neither is nor contains a buffer load, a call that is not pure, or a `Let`
//! (a load may read a different value after a store, a barrier or an async wait; an impure call
//! may differ between two evaluations; a `Let` is a scope, handled on its own).
//!
//! Invariants: `children` and `children_mut` list the operands of every node in the same order,
//! and flag the arms of a lazy `if_then_else` (evaluated only when taken) the same way.

use tirproof_ir::visit::{walk_expr, Visitor};
use tirproof_ir::{BinOp, CallEffect, Expr, Var};

/// Calls that are hints rather than values.
const HINT_CALLS: [&str; 2] = ["likely", "assume"];

/// The operands of `e`, each with whether it is an arm of a lazy `if_then_else`.
pub fn children(e: &Expr) -> Vec<(&Expr, bool)> {
    match e {
        Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) | Expr::Var(_) => Vec::new(),
        Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } | Expr::Logic { lhs, rhs, .. } => {
            vec![(&**lhs, false), (&**rhs, false)]
        }
        Expr::Not(v) | Expr::Cast { value: v, .. } | Expr::Broadcast { value: v, .. } => vec![(&**v, false)],
        Expr::Select { cond, on_true, on_false } => vec![(&**cond, false), (&**on_true, false), (&**on_false, false)],
        Expr::IfThenElse { cond, on_true, on_false } => vec![(&**cond, false), (&**on_true, true), (&**on_false, true)],
        Expr::Ramp { base, stride, .. } => vec![(&**base, false), (&**stride, false)],
        Expr::Let { value, body, .. } => vec![(&**value, false), (&**body, false)],
        Expr::Load(load) => load.indices.iter().map(|i| (i, false)).collect(),
        Expr::Call(call) => call.args.iter().map(|a| (a, false)).collect(),
    }
}

/// The operands of `e`, mutably, in the order and with the flags of `children`.
pub fn children_mut(e: &mut Expr) -> Vec<(&mut Expr, bool)> {
    match e {
        Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) | Expr::Var(_) => Vec::new(),
        Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } | Expr::Logic { lhs, rhs, .. } => {
            vec![(&mut **lhs, false), (&mut **rhs, false)]
        }
        Expr::Not(v) | Expr::Cast { value: v, .. } | Expr::Broadcast { value: v, .. } => vec![(&mut **v, false)],
        Expr::Select { cond, on_true, on_false } => {
            vec![(&mut **cond, false), (&mut **on_true, false), (&mut **on_false, false)]
        }
        Expr::IfThenElse { cond, on_true, on_false } => {
            vec![(&mut **cond, false), (&mut **on_true, true), (&mut **on_false, true)]
        }
        Expr::Ramp { base, stride, .. } => vec![(&mut **base, false), (&mut **stride, false)],
        Expr::Let { value, body, .. } => vec![(&mut **value, false), (&mut **body, false)],
        Expr::Load(load) => load.indices.iter_mut().map(|i| (i, false)).collect(),
        Expr::Call(call) => call.args.iter_mut().map(|a| (a, false)).collect(),
    }
}

/// Whether a node makes every expression containing it ineligible.
pub fn poisons_parents(e: &Expr) -> bool {
    match e {
        Expr::Load(_) | Expr::Let { .. } => true,
        Expr::Call(call) => call.effect != CallEffect::Pure,
        _ => false,
    }
}

/// Whether the node itself may be bound, given that nothing below it poisons it.
pub fn node_eligible(e: &Expr) -> bool {
    let kind_ok = match e {
        Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) | Expr::Var(_) => false,
        Expr::Ramp { .. } | Expr::Broadcast { .. } | Expr::Load(_) | Expr::Let { .. } => false,
        Expr::Call(call) => call.effect == CallEffect::Pure && !HINT_CALLS.contains(&call.name.as_str()),
        _ => true,
    };
    kind_ok && !e.dtype().is_handle()
}

/// Whether nothing in `e` (arms of lazy branches included) poisons it.
pub fn is_clean(e: &Expr) -> bool {
    !poisons_parents(e) && children(e).iter().all(|(c, _)| is_clean(c))
}

/// Whether `e` is a computation (see the module documentation).
pub fn is_computation(e: &Expr) -> bool {
    node_eligible(e) && children(e).iter().all(|(c, _)| is_clean(c))
}

/// Whether evaluating the node itself can fault (its operands aside): integer division by a
/// divisor that is not a non-zero immediate, a shift by an amount that is not an immediate in
/// range, a cast from float to integer.
pub fn node_may_trap(e: &Expr) -> bool {
    match e {
        Expr::Binary { op, lhs, rhs } if op.is_division() => !lhs.dtype().is_float() && !nonzero_immediate(rhs),
        Expr::Binary { op: BinOp::Shl | BinOp::Shr, lhs, rhs } => {
            let bits = i64::from(lhs.dtype().bits);
            !matches!(immediate(rhs), Some(v) if (0..bits).contains(&v))
        }
        Expr::Cast { dtype, value } => value.dtype().is_float() && dtype.is_integer(),
        _ => false,
    }
}

/// Whether evaluating `e` can fault. Over-approximates: lazy arms count as evaluated.
pub fn may_trap(e: &Expr) -> bool {
    node_may_trap(e) || children(e).iter().any(|(c, _)| may_trap(c))
}

/// The integer value of an immediate, or of a broadcast immediate.
fn immediate(e: &Expr) -> Option<i64> {
    match e {
        Expr::Int { value, .. } => Some(*value),
        Expr::Broadcast { value, .. } => immediate(value),
        _ => None,
    }
}

fn nonzero_immediate(e: &Expr) -> bool {
    immediate(e).is_some_and(|v| v != 0)
}

/// The number of nodes of `e` (TVM's "complexity": bigger computations are bound first).
pub fn complexity(e: &Expr) -> u32 {
    1 + children(e).iter().map(|(c, _)| complexity(c)).sum::<u32>()
}

/// Calls `f` on every variable used in `e` that is not bound inside it.
pub fn for_each_free_var(e: &Expr, f: &mut dyn FnMut(&Var)) {
    struct Free<'f> {
        bound: Vec<Var>,
        f: &'f mut dyn FnMut(&Var),
    }
    impl Visitor for Free<'_> {
        fn visit_expr(&mut self, expr: &Expr) {
            match expr {
                Expr::Var(v) if !self.bound.contains(v) => (self.f)(v),
                Expr::Let { var, value, body } => {
                    self.visit_expr(value);
                    self.bound.push(var.clone());
                    self.visit_expr(body);
                    self.bound.pop();
                }
                _ => walk_expr(self, expr),
            }
        }
    }
    Free { bound: Vec::new(), f }.visit_expr(e);
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::{BufferSpec, Call, DataType};

    fn var(name: &str) -> Expr {
        Expr::var(&Var::new(name, DataType::INT32))
    }

    #[test]
    fn leaves_vectors_and_loads_are_not_computations() {
        let a = BufferSpec::new("A", DataType::INT32, vec![Expr::int(4)], "global").build();
        assert!(!is_computation(&var("x")));
        assert!(!is_computation(&Expr::int(3)));
        assert!(is_computation(&(var("x") + var("y"))));
        assert!(!is_computation(&(var("x") + Expr::load(&a, vec![Expr::int(0)]))));
        assert!(!is_computation(&Expr::ramp(var("x"), Expr::int(1), 4)));
        assert!(is_computation(&(Expr::ramp(var("x"), Expr::int(1), 4) + Expr::broadcast(var("y"), 4))));
    }

    #[test]
    fn impure_and_hint_calls_are_excluded() {
        let call = |name: &str, effect| {
            Expr::Call(Call {
                name: name.into(),
                dtype: DataType::INT32,
                args: vec![var("x")],
                effect,
                external: false,
            })
        };
        assert!(is_computation(&call("abs", CallEffect::Pure)));
        assert!(!is_computation(&call("likely", CallEffect::Pure)));
        assert!(!is_computation(&(call("f", CallEffect::Opaque) + Expr::int(1))));
    }

    #[test]
    fn traps_come_from_divisions_shifts_and_float_to_int_casts() {
        assert!(!may_trap(&Expr::floordiv(var("x"), Expr::int(4))));
        assert!(may_trap(&Expr::floordiv(var("x"), var("y"))));
        assert!(may_trap(&Expr::binary(BinOp::Shl, var("x"), Expr::int(32))));
        assert!(!may_trap(&Expr::binary(BinOp::Shl, var("x"), Expr::int(31))));
        let f = Expr::var(&Var::new("f", DataType::FLOAT32));
        assert!(may_trap(&Expr::cast(DataType::INT32, f.clone())));
        assert!(!may_trap(&Expr::binary(BinOp::Div, f.clone(), f)));
    }
}
