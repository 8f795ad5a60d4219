//! The TVMScript printer (the reader, which parses the same text, is the `tirproof-reader` crate).
//!
//! Output is deterministic (it depends only on the tree, never on ids or hash order) and
//! parses back to a structurally equal module. The layout follows what TVM 0.27 prints:
//! commented import lines, `@I.ir_module class Module:` (or a bare `@T.prim_func`), buffer
//! parameters as `A: T.Buffer((16,), "float32")`, four-space indentation.

mod expr;
mod names;
mod stmt;

use crate::buffer::Buffer;
use crate::expr::Expr;
use crate::func::{IRModule, PrimFunc};
use crate::stmt::Stmt;
use crate::var::Var;
use crate::visit::{walk_buffer_def, walk_expr, Visitor};

use expr::quote;
use names::Names;

/// Prints a whole module.
pub fn print_module(module: &IRModule) -> String {
    Printer::default().module(module)
}

/// Prints a whole module with a comment before every statement that records its origin.
pub fn print_module_with_provenance(module: &IRModule) -> String {
    Printer { provenance: true, ..Printer::default() }.module(module)
}

impl Printer {
    fn module(mut self, module: &IRModule) -> String {
        let p = &mut self;
        match &module.class_name {
            Some(class) => {
                p.line("# from tvm.script import ir as I");
                p.line("# from tvm.script import tirx as T");
                p.line("");
                p.line("@I.ir_module");
                p.line(&format!("class {class}:"));
                p.indent += 1;
                for (i, func) in module.functions.iter().enumerate() {
                    if i > 0 {
                        p.line("");
                    }
                    p.func(func);
                }
                p.indent -= 1;
            }
            None => {
                p.line("# from tvm.script import tirx as T");
                for func in &module.functions {
                    p.line("");
                    p.func(func);
                }
            }
        }
        self.out
    }
}

/// Prints one function as it would appear at the top level of a file.
pub fn print_func(func: &PrimFunc) -> String {
    let mut p = Printer::default();
    p.func(func);
    p.out
}

/// Prints a statement list at indentation zero (names are the variables' own names).
pub fn print_stmt(stmt: &Stmt) -> String {
    let mut p = Printer::default();
    p.stmt_list(stmt, false);
    p.out
}

/// Prints one expression on one line.
pub fn print_expr(expr: &Expr) -> String {
    Printer::default().expr(expr)
}

#[derive(Default)]
pub(crate) struct Printer {
    pub(crate) out: String,
    pub(crate) indent: usize,
    pub(crate) names: Names,
    /// Print statement origins as comments.
    pub(crate) provenance: bool,
}

impl Printer {
    pub(crate) fn line(&mut self, text: &str) {
        if !text.is_empty() {
            for _ in 0..self.indent {
                self.out.push_str("    ");
            }
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    fn func(&mut self, func: &PrimFunc) {
        self.names = Names::default();
        self.names.open_scope();
        let decorator = match (func.s_tir, func.private) {
            (false, false) => "@T.prim_func".to_string(),
            (true, false) => "@T.prim_func(s_tir=True)".to_string(),
            (false, true) => "@T.prim_func(private=True)".to_string(),
            (true, true) => "@T.prim_func(s_tir=True, private=True)".to_string(),
        };
        self.line(&decorator);
        let (signature, matched) = self.signature(func);
        self.line(&format!("def {}({}):", func.name, signature.join(", ")));
        self.indent += 1;
        if !func.attrs.is_empty() {
            let text = format!("T.func_attr({})", self.annotations(&func.attrs));
            self.line(&text);
        }
        for (handle, buffer) in matched {
            let args = self.buffer_args(&buffer);
            let name = self.names.define_buffer(&buffer);
            self.line(&format!("{name} = T.match_buffer({handle}, {})", args.join(", ")));
        }
        // TVM 0.27 reads the variable of `T.Let(..., where={v: ...})` as a use, so it must be
        // declared before, as TVM prints it: `v = T.int32()` at the top of the function.
        for var in let_expr_vars(&func.body) {
            let name = self.names.define_var(&var);
            self.line(&format!("{name} = T.{}()", var.dtype()));
        }
        let before = self.out.len();
        self.stmt_list(&func.body, false);
        if self.out.len() == before && func.attrs.is_empty() {
            self.line("T.evaluate(0)");
        }
        self.indent -= 1;
        self.names.close_scope();
    }

    /// The parameter list, and the buffers that need `T.match_buffer` because their shape
    /// mentions variables (scalar parameters may come later in the list).
    fn signature(&mut self, func: &PrimFunc) -> (Vec<String>, Vec<(String, Buffer)>) {
        let mut params = Vec::new();
        let mut matched = Vec::new();
        for param in &func.params {
            match &param.buffer {
                Some(buffer) if !mentions_vars(buffer) => {
                    let args = self.buffer_args(buffer);
                    let name = self.names.define_buffer(buffer);
                    params.push(format!("{name}: T.Buffer({})", args.join(", ")));
                }
                Some(buffer) => {
                    let name = self.names.define_var(&param.var);
                    params.push(format!("{name}: T.handle"));
                    matched.push((name, buffer.clone()));
                }
                None => {
                    let name = self.names.define_var(&param.var);
                    params.push(format!("{name}: T.{}", param.var.dtype()));
                }
            }
        }
        (params, matched)
    }

    /// `shape, "dtype"` and the keyword arguments that differ from their defaults.
    pub(crate) fn buffer_args(&mut self, buffer: &Buffer) -> Vec<String> {
        let node = buffer.node();
        let mut args = vec![self.tuple(&node.shape), format!("\"{}\"", node.dtype)];
        if !node.strides.is_empty() {
            args.push(format!("strides={}", self.tuple(&node.strides)));
        }
        if node.elem_offset.as_int() != Some(0) {
            args.push(format!("elem_offset={}", self.expr(&node.elem_offset)));
        }
        if node.scope != crate::buffer::SCOPE_GLOBAL {
            args.push(format!("scope={}", quote(&node.scope)));
        }
        if node.align != 0 {
            args.push(format!("align={}", node.align));
        }
        if node.offset_factor != 0 {
            args.push(format!("offset_factor={}", node.offset_factor));
        }
        args
    }
}

/// Whether a buffer's shape, strides or offset mention any variable.
fn mentions_vars(buffer: &Buffer) -> bool {
    struct AnyVar(bool);
    impl Visitor for AnyVar {
        fn visit_expr(&mut self, e: &Expr) {
            if matches!(e, Expr::Var(_) | Expr::Load(_)) {
                self.0 = true;
            }
            crate::visit::walk_expr(self, e);
        }
    }
    let mut v = AnyVar(false);
    walk_buffer_def(&mut v, buffer);
    v.0
}

#[cfg(test)]
mod tests;

/// The variables that `T.Let` expressions in `body` bind, each once, in order of appearance.
fn let_expr_vars(body: &Stmt) -> Vec<Var> {
    struct Lets(Vec<Var>);
    impl Visitor for Lets {
        fn visit_expr(&mut self, expr: &Expr) {
            if let Expr::Let { var, .. } = expr {
                if !self.0.contains(var) {
                    self.0.push(var.clone());
                }
            }
            walk_expr(self, expr);
        }
    }
    let mut lets = Lets(Vec::new());
    lets.visit_stmt(body);
    lets.0
}
