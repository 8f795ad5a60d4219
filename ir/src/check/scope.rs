//! Scoping and SSA: which variables and buffers are visible where, and that every variable
//! is bound exactly once.
//!
//! Invariants: `Scope` is a stack; every binding pushed while walking a statement is popped
//! (`restore`) when the walk leaves it. A use that is not visible is reported at once as
//! undefined; when the walk finishes, those whose identity was bound or declared somewhere
//! else in the function are reworded as "used outside the scope", so the checker needs no
//! separate pass to tell the two apart. Thread-launch variables may be launched again (TVM
//! re-launches one environment thread in sibling kernels); every other rebinding is an error.

use std::collections::{HashMap, HashSet};

use super::Checker;
use crate::buffer::{Buffer, BufferId};
use crate::var::{Var, VarId};

/// What binds a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BindKind {
    Param,
    Let,
    Loop,
    IterVar,
    Launch,
    AllocData,
    BufferData,
    /// A bare variable in a parameter buffer's shape (TVM's `match_buffer` defines it).
    ShapeVar,
}

/// A position in the scope stacks, to return to when a scope ends.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mark {
    vars: usize,
    bufs: usize,
}

/// A use reported as undefined, to be reworded if the identity turns out to be bound
/// elsewhere.
#[derive(Debug)]
enum Unresolved {
    Var { diag: usize, id: VarId, name: String },
    Buffer { diag: usize, id: BufferId, name: String },
}

#[derive(Debug, Default)]
pub(super) struct Scope {
    live_vars: Vec<VarId>,
    live_var_count: HashMap<VarId, u32>,
    live_bufs: Vec<BufferId>,
    live_buf_count: HashMap<BufferId, u32>,
    /// Every variable bound so far in the function, with what bound it first.
    bound: HashMap<VarId, BindKind>,
    /// Every buffer declared so far in the function.
    declared: HashSet<BufferId>,
    unresolved: Vec<Unresolved>,
}

impl Scope {
    pub(super) fn mark(&self) -> Mark {
        Mark { vars: self.live_vars.len(), bufs: self.live_bufs.len() }
    }

    pub(super) fn restore(&mut self, mark: Mark) {
        while self.live_vars.len() > mark.vars {
            if let Some(id) = self.live_vars.pop() {
                decrement(&mut self.live_var_count, id);
            }
        }
        while self.live_bufs.len() > mark.bufs {
            if let Some(id) = self.live_bufs.pop() {
                decrement(&mut self.live_buf_count, id);
            }
        }
    }

    pub(super) fn has_var(&self, var: &Var) -> bool {
        self.live_var_count.contains_key(&var.id())
    }

    fn has_buffer(&self, buffer: &Buffer) -> bool {
        self.live_buf_count.contains_key(&buffer.id())
    }

    fn push_var(&mut self, id: VarId) {
        self.live_vars.push(id);
        *self.live_var_count.entry(id).or_insert(0) += 1;
    }

    fn push_buffer(&mut self, id: BufferId) {
        self.live_bufs.push(id);
        *self.live_buf_count.entry(id).or_insert(0) += 1;
    }
}

fn decrement<K: std::hash::Hash + Eq>(counts: &mut HashMap<K, u32>, key: K) {
    if let Some(n) = counts.get_mut(&key) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            counts.remove(&key);
        }
    }
}

impl Checker {
    /// Brings `var` into scope, reporting a second binding.
    pub(super) fn bind_var(&mut self, var: &Var, kind: BindKind) {
        match self.scope.bound.get(&var.id()) {
            None => {
                self.scope.bound.insert(var.id(), kind);
            }
            Some(BindKind::Launch) if kind == BindKind::Launch => {}
            Some(_) => self.error(rebinding_message(var, kind)),
        }
        self.scope.push_var(var.id());
    }

    /// Reports a use of `var` outside every scope that binds it.
    pub(super) fn use_var(&mut self, var: &Var) {
        if self.scope.has_var(var) {
            return;
        }
        self.scope.unresolved.push(Unresolved::Var {
            diag: self.diags.len(),
            id: var.id(),
            name: var.name().to_string(),
        });
        self.error(format!("use of undefined variable `{var}`"));
    }

    /// Brings `buffer` into scope, reporting a second declaration.
    pub(super) fn declare_buffer(&mut self, buffer: &Buffer) {
        if !self.scope.declared.insert(buffer.id()) {
            self.error(format!("buffer `{buffer}` is declared twice"));
        }
        self.scope.push_buffer(buffer.id());
    }

    /// Reports a load, store or region of a buffer that is not in scope.
    pub(super) fn use_buffer(&mut self, buffer: &Buffer) {
        if self.scope.has_buffer(buffer) {
            return;
        }
        self.scope.unresolved.push(Unresolved::Buffer {
            diag: self.diags.len(),
            id: buffer.id(),
            name: buffer.name().to_string(),
        });
        self.error(format!("use of undeclared buffer `{buffer}`"));
    }

    /// A `DeclBuffer` reuses the storage of a data variable that must already be in scope.
    pub(super) fn use_decl_data(&mut self, buffer: &Buffer) {
        let data = buffer.data();
        if !self.scope.has_var(data) {
            self.error(format!("buffer `{buffer}` is declared over data variable `{data}`, which is not in scope"));
        }
    }

    /// Rewords undefined uses whose identity is bound or declared elsewhere in the function.
    pub(super) fn resolve_undefined(&mut self) {
        for u in std::mem::take(&mut self.scope.unresolved) {
            let (diag, message) = match u {
                Unresolved::Var { diag, id, name } if self.scope.bound.contains_key(&id) => {
                    (diag, format!("variable `{name}` is used outside the scope that binds it"))
                }
                Unresolved::Buffer { diag, id, name } if self.scope.declared.contains(&id) => {
                    (diag, format!("buffer `{name}` is used outside the scope that declares it"))
                }
                _ => continue,
            };
            if let Some(d) = self.diags.get_mut(diag) {
                d.message = message;
            }
        }
    }
}

fn rebinding_message(var: &Var, kind: BindKind) -> String {
    match kind {
        BindKind::Let => format!("variable `{var}` is bound twice (Let statements must be in SSA form)"),
        _ => format!("variable `{var}` is bound twice (every variable must be bound exactly once)"),
    }
}
