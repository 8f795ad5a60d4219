//! The context of a CSE scope: which variables are defined where a new binding would go, and
//! the values of the enclosing let bindings (TVM's `Context`).
//!
//! Invariants: a variable is available when an enclosing binder of the scope binds it, or when
//! no binder inside the function binds it (parameters, buffer shape variables). The stack is
//! restored to its mark when a scope closes, so nothing leaks out of the scope that bound it.
//! A binding's `key` is the structural key of its value, kept only when the value is a
//! computation (only those can be reused by a later occurrence).

use std::collections::HashSet;

use tirproof_ir::visit::Visitor;
use tirproof_ir::{Expr, PrimFunc, Var, VarId};

use super::eligible::{for_each_free_var, is_computation};
use super::key::key;

/// One enclosing binder.
#[derive(Clone, Debug)]
pub struct Binding {
    pub var: Var,
    /// The bound value of a let binding that is a computation, with its key.
    pub value: Option<(Expr, u64)>,
}

#[derive(Debug, Default)]
pub struct Context {
    stack: Vec<Binding>,
    in_scope: HashSet<VarId>,
    /// Variables some binder inside the function binds.
    inner: HashSet<VarId>,
}

/// A position of the context stack to restore.
#[derive(Clone, Copy, Debug)]
pub struct Mark(usize);

impl Context {
    /// The context at the top of `func`'s body.
    pub fn for_func(func: &PrimFunc) -> Self {
        let mut binders = Binders::default();
        binders.visit_stmt(&func.body);
        Context { stack: Vec::new(), in_scope: HashSet::new(), inner: binders.0 }
    }

    pub fn mark(&self) -> Mark {
        Mark(self.stack.len())
    }

    pub fn restore(&mut self, mark: Mark) {
        for b in self.stack.drain(mark.0..) {
            self.in_scope.remove(&b.var.id());
        }
    }

    /// Enters the scope of a binder; `value` is the bound value of a let binding.
    pub fn push(&mut self, var: &Var, value: Option<&Expr>) {
        let value = value.filter(|v| is_computation(v)).map(|v| (v.clone(), key(v)));
        self.in_scope.insert(var.id());
        self.stack.push(Binding { var: var.clone(), value });
    }

    pub fn is_available(&self, var: &Var) -> bool {
        self.in_scope.contains(&var.id()) || !self.inner.contains(&var.id())
    }

    /// Whether every variable `e` uses is available.
    pub fn defines_all(&self, e: &Expr) -> bool {
        let mut ok = true;
        for_each_free_var(e, &mut |v| ok &= self.is_available(v));
        ok
    }

    /// The let bindings whose value is a computation, outermost first.
    pub fn valued(&self) -> impl Iterator<Item = (&Var, &Expr, u64)> {
        self.stack.iter().filter_map(|b| b.value.as_ref().map(|(e, k)| (&b.var, e, *k)))
    }
}

/// Collects the variables bound anywhere in a statement.
#[derive(Default)]
struct Binders(HashSet<VarId>);

impl Visitor for Binders {
    fn visit_var_def(&mut self, var: &Var) {
        self.0.insert(var.id());
    }
}
