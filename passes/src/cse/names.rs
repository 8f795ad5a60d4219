//! Names of the variables CSE introduces: `cse_v1`, `cse_v2`, ... in order of creation, as
//! TVM 0.27 names them, skipping any name the function already uses so that the printed
//! program needs no disambiguation and a second run does not reuse a name.

use std::collections::HashSet;

use tirproof_ir::visit::{walk_buffer_def, walk_expr, walk_func, Visitor};
use tirproof_ir::{Buffer, DataType, Expr, PrimFunc, Var};

pub struct Names {
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
            let name = format!("cse_v{}", self.next);
            self.next += 1;
            if self.taken.insert(name.clone()) {
                return Var::new(name, dtype);
            }
        }
    }
}

#[derive(Default)]
struct Used(HashSet<String>);

impl Visitor for Used {
    fn visit_expr(&mut self, expr: &Expr) {
        if let Expr::Var(v) = expr {
            self.0.insert(v.name().to_string());
        }
        walk_expr(self, expr);
    }
    fn visit_var_def(&mut self, var: &Var) {
        self.0.insert(var.name().to_string());
    }
    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        self.0.insert(buffer.name().to_string());
        walk_buffer_def(self, buffer);
    }
}
