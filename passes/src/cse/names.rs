//! Names of the variables CSE introduces: `cse_v1`, `cse_v2`, ... in order of creation, as
//! TVM 0.27 names them, skipping any name the function already uses so that the printed
//! program needs no disambiguation and a second run does not reuse a name. Only the names
//! that start with `cse_v` can clash, so only those are collected.

use std::collections::HashSet;

use tirproof_ir::visit::{walk_buffer_def, walk_expr, walk_func, Visitor};
use tirproof_ir::{Buffer, DataType, Expr, PrimFunc, Var};

/// The prefix of every name this module makes.
const PREFIX: &str = "cse_v";

pub struct Names {
    /// The names starting with `PREFIX` that are in use.
    taken: HashSet<String>,
    next: u32,
}

impl Names {
    pub fn for_func(func: &PrimFunc) -> Self {
        let mut used = Used::default();
        walk_func(&mut used, func);
        Names { taken: used.0, next: 1 }
    }

    /// A fresh variable of type `dtype`.
    pub fn fresh(&mut self, dtype: DataType) -> Var {
        loop {
            let name = format!("{PREFIX}{}", self.next);
            self.next += 1;
            if self.taken.insert(name.clone()) {
                return Var::new(name, dtype);
            }
        }
    }
}

#[derive(Default)]
struct Used(HashSet<String>);

impl Used {
    fn note(&mut self, name: &str) {
        if name.starts_with(PREFIX) && !self.0.contains(name) {
            self.0.insert(name.to_string());
        }
    }
}

impl Visitor for Used {
    fn visit_expr(&mut self, expr: &Expr) {
        if let Expr::Var(v) = expr {
            self.note(v.name());
        }
        walk_expr(self, expr);
    }
    fn visit_var_def(&mut self, var: &Var) {
        self.note(var.name());
    }
    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        self.note(buffer.name());
        walk_buffer_def(self, buffer);
    }
}
