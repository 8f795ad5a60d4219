//! Lexical scopes for name resolution during lowering.
//!
//! A frame is opened for a function's parameters, for every statement list (a loop, branch,
//! `with` or block body), and for expression binders (`T.Let`). Python-like visibility: a name
//! bound by a statement is visible to the rest of its statement list and everything nested in
//! it, and disappears when the list ends. Binding a name again shadows the older binding (the
//! new one is a fresh `Var` or `Buffer`). Invariant: lookups search the innermost frame first
//! and, inside a frame, the latest binding first.

use tirproof_ir::buffer::Buffer;
use tirproof_ir::expr::Expr;
use tirproof_ir::var::Var;

/// What a name stands for.
#[derive(Clone, Debug)]
pub(super) enum Binding {
    /// A scalar or handle variable: parameter, let, iteration, launch or allocation variable.
    Var(Var),
    /// A loop variable with its loop's bounds (`T.axis.remap` reads them).
    LoopVar {
        var: Var,
        min: Expr,
        extent: Expr,
    },
    Buffer(Buffer),
    /// `tx = T.env_thread("threadIdx.x")`: a thread variable for a later `T.launch_thread`.
    EnvThread {
        var: Var,
        tag: String,
    },
    /// A name whose definition had an error: uses are accepted silently (as placeholders), so
    /// one mistake does not cascade into "undefined name" reports.
    Poison,
}

/// Whether TVM 0.27 prints `buffer` as a scalar: one element (shape `(1,)`), its name standing
/// for that element (`x = e`, `y = x + 1`).
pub(super) fn is_scalar_buffer(buffer: &Buffer) -> bool {
    buffer.const_shape().as_deref() == Some(&[1])
}

/// The indices of a scalar buffer's element.
pub(super) fn scalar_indices(_buffer: &Buffer) -> Vec<Expr> {
    vec![Expr::int(0)]
}

impl Binding {
    /// Whether the name stands for a scalar buffer ([`is_scalar_buffer`]).
    pub fn is_scalar_buffer(&self) -> bool {
        matches!(self, Binding::Buffer(buffer) if is_scalar_buffer(buffer))
    }

    /// The variable behind a name that can be used as a value.
    pub fn var(&self) -> Option<&Var> {
        match self {
            Binding::Var(var) | Binding::LoopVar { var, .. } | Binding::EnvThread { var, .. } => Some(var),
            Binding::Buffer(_) | Binding::Poison => None,
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct Scopes {
    frames: Vec<Vec<(String, Binding)>>,
}

impl Scopes {
    pub fn push(&mut self) {
        self.frames.push(Vec::new());
    }

    pub fn pop(&mut self) {
        self.frames.pop();
    }

    /// Binds `name` in the innermost frame (opening one if none is open).
    pub fn bind(&mut self, name: &str, binding: Binding) {
        if self.frames.is_empty() {
            self.push();
        }
        if let Some(frame) = self.frames.last_mut() {
            frame.push((name.to_string(), binding));
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Binding> {
        self.frames.iter().rev().flat_map(|frame| frame.iter().rev()).find(|(n, _)| n == name).map(|(_, b)| b)
    }

    pub fn buffer(&self, name: &str) -> Option<&Buffer> {
        match self.lookup(name)? {
            Binding::Buffer(buffer) => Some(buffer),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::dtype::DataType;

    #[test]
    fn inner_frames_shadow_and_expire() {
        let mut scopes = Scopes::default();
        let outer = Var::new("x", DataType::INT32);
        let inner = Var::new("x", DataType::INT32);
        scopes.push();
        scopes.bind("x", Binding::Var(outer.clone()));
        scopes.push();
        scopes.bind("x", Binding::Var(inner.clone()));
        assert_eq!(scopes.lookup("x").and_then(Binding::var), Some(&inner));
        scopes.pop();
        assert_eq!(scopes.lookup("x").and_then(Binding::var), Some(&outer));
        assert!(scopes.lookup("y").is_none());
    }
}
