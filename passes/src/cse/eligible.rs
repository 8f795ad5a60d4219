//! Which expressions CSE may bind to a variable, and the facts about them the placement needs.
//!
//! A *computation* is an expression CSE may introduce a variable for. It is not an immediate or
//! a variable (nothing to save), not a `Ramp` or `Broadcast` (later passes match those nodes
//! directly), not handle-typed, not a hint call (`T.likely`, `T.assume`: binding them would lose
//! the hint), and it neither is nor contains a buffer load, a call that is not pure, or a `Let`
//! (a load may read a different value after a store, a barrier or an async wait; an impure call
//! may differ between two evaluations; a `Let` is a scope, handled on its own).
//!
//! Invariants: `children` and `for_each_child_mut` list the operands of every node in the same
//! order, and flag the arms of a lazy `if_then_else` (evaluated only when taken) the same way.

use tirproof_ir::visit::{walk_expr, Visitor};
use tirproof_ir::{BinOp, CallEffect, Expr, Var};

/// Calls that are hints rather than values.
const HINT_CALLS: [&str; 2] = ["likely", "assume"];

/// The operands of an expression, each with whether it is an arm of a lazy `if_then_else`;
/// an iterator that does not allocate (at most three fixed operands, or a slice).
pub struct Children<'a> {
    fixed: [Option<(&'a Expr, bool)>; 3],
    at: usize,
    rest: std::slice::Iter<'a, Expr>,
}

impl<'a> Iterator for Children<'a> {
    type Item = (&'a Expr, bool);
    fn next(&mut self) -> Option<Self::Item> {
        while self.at < 3 {
            self.at += 1;
            if let Some(item) = self.fixed[self.at - 1] {
                return Some(item);
            }
        }
        self.rest.next().map(|e| (e, false))
    }
}

/// The operands of `e` (see `Children`).
pub fn children(e: &Expr) -> Children<'_> {
    fn fixed(items: [Option<(&Expr, bool)>; 3]) -> Children<'_> {
        Children { fixed: items, at: 0, rest: [].iter() }
    }
    match e {
        Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) | Expr::Var(_) => fixed([None, None, None]),
        Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } | Expr::Logic { lhs, rhs, .. } => {
            fixed([Some((lhs, false)), Some((rhs, false)), None])
        }
        Expr::Not(v) | Expr::Cast { value: v, .. } | Expr::Broadcast { value: v, .. } => {
            fixed([Some((v, false)), None, None])
        }
        Expr::Select { cond, on_true, on_false } => {
            fixed([Some((cond, false)), Some((on_true, false)), Some((on_false, false))])
        }
        Expr::IfThenElse { cond, on_true, on_false } => {
            fixed([Some((cond, false)), Some((on_true, true)), Some((on_false, true))])
        }
        Expr::Ramp { base, stride, .. } => fixed([Some((base, false)), Some((stride, false)), None]),
        Expr::Let { value, body, .. } => fixed([Some((value, false)), Some((body, false)), None]),
        Expr::Load(load) => Children { fixed: [None, None, None], at: 0, rest: load.indices.iter() },
        Expr::Call(call) => Children { fixed: [None, None, None], at: 0, rest: call.args.iter() },
    }
}

/// Calls `f` on the operands of `e`, mutably, in the order and with the flags of `children`.
pub fn for_each_child_mut(e: &mut Expr, mut f: impl FnMut(&mut Expr, bool)) {
    match e {
        Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) | Expr::Var(_) => {}
        Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } | Expr::Logic { lhs, rhs, .. } => {
            f(lhs, false);
            f(rhs, false);
        }
        Expr::Not(v) | Expr::Cast { value: v, .. } | Expr::Broadcast { value: v, .. } => f(v, false),
        Expr::Select { cond, on_true, on_false } => {
            f(cond, false);
            f(on_true, false);
            f(on_false, false);
        }
        Expr::IfThenElse { cond, on_true, on_false } => {
            f(cond, false);
            f(on_true, true);
            f(on_false, true);
        }
        Expr::Ramp { base, stride, .. } => {
            f(base, false);
            f(stride, false);
        }
        Expr::Let { value, body, .. } => {
            f(value, false);
            f(body, false);
        }
        Expr::Load(load) => load.indices.iter_mut().for_each(|i| f(i, false)),
        Expr::Call(call) => call.args.iter_mut().for_each(|a| f(a, false)),
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
        Expr::Call(call) => {
            call.effect == CallEffect::Pure && !HINT_CALLS.contains(&call.name.as_str()) && !call.dtype.is_handle()
        }
        Expr::Cast { dtype, .. } => !dtype.is_handle(),
        // Other operators take their type from operands, which are never handles in
        // well-typed programs (the checker rejects arithmetic on handles).
        _ => true,
    };
    kind_ok
}

/// Whether nothing in `e` (arms of lazy branches included) poisons it.
pub fn is_clean(e: &Expr) -> bool {
    !poisons_parents(e) && children(e).all(|(c, _)| is_clean(c))
}

/// Whether `e` is a computation (see the module documentation).
pub fn is_computation(e: &Expr) -> bool {
    node_eligible(e) && children(e).all(|(c, _)| is_clean(c))
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
    node_may_trap(e) || children(e).any(|(c, _)| may_trap(c))
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
    1 + children(e).map(|(c, _)| complexity(c)).sum::<u32>()
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
