//! `flatten-buffer`: every N-D buffer access becomes a 1-D physical access, as TVM's
//! FlattenBuffer does after LowerOpaqueBlock (docs/buffers-and-lanes.md).
//!
//! - A parameter buffer keeps its logical shape in the buffer map (the calling convention);
//!   the body declares a flattened alias over its data (`A_1 = T.decl_buffer((512,),
//!   "float32", data=A.data)`) and every access goes through it. Every used parameter gets
//!   one, 1-D ones included, as TVM prints it.
//! - `AllocBuffer`s and `DeclBuffer`s that are not already physical take the flattened buffer
//!   itself (same name, data variable and type; 1-D shape); `Allocate`s take one extent.
//! - Accesses: `layout.rs` (strides, `elem_offset`, Ramps).
//!
//! Aliases: each buffer over a data variable is flattened with its own layout into its own
//! element type, so all of them keep addressing the same storage elements (consistent by
//! construction). The pass refuses, naming the buffer and the aliases sharing its data, a
//! buffer that has no declaration to put its flattened form in, and one whose layout cannot
//! be flattened. It also refuses S-TIR blocks: run `lower-opaque-block` first.
//!
//! Invariants: refusing leaves the function untouched; the output declares every buffer it
//! uses; no access keeps more than one index.

mod census;
mod layout;

use std::collections::HashMap;

use tirproof_ir::index_arith::product;
use tirproof_ir::visit::{walk_expr_mut, walk_stmt_mut, MutVisitor};
use tirproof_ir::{Allocate, Buffer, BufferId, Diagnostic, Expr, PrimFunc, Span, Stmt, StmtKind};

use crate::{FunctionPass, FunctionReport};
use census::{Census, Site};
use layout::{is_flat, FlatLayout};

pub struct FlattenBuffer;

impl FunctionPass for FlattenBuffer {
    const NAME: &'static str = "flatten-buffer";
    const DESCRIPTION: &'static str =
        "flatten N-D buffer accesses to 1-D through declared aliases (buffer_map unchanged)";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        flatten_func(func).map(|()| FunctionReport::default())
    }
}

/// Flattens every buffer access of `func`; on error `func` is unchanged.
pub fn flatten_func(func: &mut PrimFunc) -> Result<(), Vec<Diagnostic>> {
    let census = Census::of(func);
    let mut errors: Vec<Diagnostic> = census
        .blocks
        .iter()
        .map(|(name, span)| {
            Diagnostic::error(
                *span,
                format!("block `{name}` is not lowered; run lower-opaque-block before flatten-buffer"),
            )
        })
        .collect();
    errors.extend(undeclared(&census));
    let layouts = plan(&census, &mut errors, func.span);
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut rewriter = Rewriter { layouts: &layouts, errors: Vec::new(), span: func.span };
    let mut body = func.body.clone();
    rewriter.mutate_stmt(&mut body);
    if !rewriter.errors.is_empty() {
        return Err(rewriter.errors);
    }
    for buffer in func.param_buffers().collect::<Vec<_>>().into_iter().rev() {
        if let Some(layout) = layouts.get(&buffer.id()) {
            body = Stmt::new(StmtKind::DeclBuffer { buffer: layout.flat.clone(), body: Box::new(body) }, func.span);
        }
    }
    func.body = body;
    Ok(())
}

/// Buffers used without any declaration (an alias with nowhere to declare its flat form).
fn undeclared(census: &Census) -> Vec<Diagnostic> {
    census
        .used
        .iter()
        .filter(|(b, _)| !census.is_defined(b))
        .map(|(b, span)| {
            let aliases = census.aliases_of(b);
            let shares =
                if aliases.is_empty() { String::new() } else { format!(" (it shares its data with {})", aliases.join(", ")) };
            Diagnostic::error(
                *span,
                format!("buffer `{b}` is used without a declaration{shares}; flatten-buffer has nowhere to declare its flattened alias"),
            )
        })
        .collect()
}

/// The layout of every buffer to flatten: used parameters, and body buffers that are not
/// already physical. Buffers that cannot be flattened are reported with their aliases.
fn plan(census: &Census, errors: &mut Vec<Diagnostic>, func_span: Span) -> HashMap<BufferId, FlatLayout> {
    let mut layouts = HashMap::new();
    for (buffer, site) in &census.defined {
        let wanted = match site {
            Site::Param => census.is_used(buffer),
            Site::Body => !is_flat(buffer),
        };
        if !wanted {
            continue;
        }
        match FlatLayout::of(buffer) {
            Ok(layout) => {
                layouts.insert(buffer.id(), layout);
            }
            Err(why) => {
                let span = census.used.iter().find(|(b, _)| b == buffer).map_or(func_span, |(_, s)| *s);
                let aliases = census.aliases_of(buffer);
                let shared = if aliases.is_empty() {
                    String::new()
                } else {
                    format!(" (it shares its data with {}, so none of them is flattened)", aliases.join(", "))
                };
                errors.push(Diagnostic::error(span, format!("buffer `{buffer}` cannot be flattened: {why}{shared}")));
            }
        }
    }
    layouts
}

/// Rewrites accesses, allocations and declarations to their flattened forms.
struct Rewriter<'a> {
    layouts: &'a HashMap<BufferId, FlatLayout>,
    errors: Vec<Diagnostic>,
    /// The innermost statement with a known position.
    span: Span,
}

impl Rewriter<'_> {
    /// The flat buffer and index of an access, or `None` (after reporting) when impossible.
    fn access(&mut self, buffer: &Buffer, indices: &[Expr]) -> Option<(Buffer, Expr)> {
        let layout = self.layouts.get(&buffer.id())?;
        match layout.index(indices) {
            Ok(index) => Some((layout.flat.clone(), index)),
            Err(why) => {
                self.errors
                    .push(Diagnostic::error(self.span, format!("access to `{buffer}` cannot be flattened: {why}")));
                None
            }
        }
    }

    fn flat_buffer(&self, buffer: &mut Buffer) {
        if let Some(layout) = self.layouts.get(&buffer.id()) {
            *buffer = layout.flat.clone();
        }
    }
}

impl MutVisitor for Rewriter<'_> {
    fn mutate_expr(&mut self, expr: &mut Expr) {
        walk_expr_mut(self, expr);
        if let Expr::Load(load) = expr {
            if let Some((buffer, index)) = self.access(&load.buffer, &load.indices) {
                load.buffer = buffer;
                load.indices = vec![index];
            }
        }
    }

    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        let outer = self.span;
        if stmt.span.is_known() {
            self.span = stmt.span;
        }
        walk_stmt_mut(self, stmt);
        match &mut stmt.kind {
            StmtKind::Store(store) => {
                if let Some((buffer, index)) = self.access(&store.buffer, &store.indices) {
                    store.buffer = buffer;
                    store.indices = vec![index];
                }
            }
            StmtKind::AllocBuffer { buffer, .. } | StmtKind::DeclBuffer { buffer, .. } => self.flat_buffer(buffer),
            StmtKind::Allocate(Allocate { extents, .. }) if extents.len() != 1 => {
                let t = extents
                    .iter()
                    .fold(tirproof_ir::DataType::INT32, |t, e| tirproof_ir::index_arith::wider(t, e.dtype()));
                *extents = vec![product(extents.drain(..), t)];
            }
            _ => {}
        }
        self.span = outer;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pass;
    use tirproof_ir::print::print_module;
    use tirproof_reader::parse_module;

    fn flatten(src: &str) -> Result<String, String> {
        let mut m = parse_module(src).map_err(|d| d.to_string())?;
        FlattenBuffer.run(&mut m).map_err(|e| e.to_string())?;
        Ok(print_module(&m))
    }

    #[test]
    fn parameters_get_flat_aliases_and_allocations_a_flat_shape() {
        let out = flatten(
            r#"
@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), C: T.Buffer((16, 32), "float32")):
    B = T.alloc_buffer((2, 1, 32), "float32", scope="shared")
    for i in range(16):
        B[i % 2, 0, 3] = A[i, 3]
        C[i, 3] = B[i % 2, 0, 3]
"#,
        )
        .unwrap();
        assert!(
            out.contains("def main(A: T.Buffer((16, 32), \"float32\"), C: T.Buffer((16, 32), \"float32\")):"),
            "{out}"
        );
        assert!(out.contains("A_1 = A.view(512)"), "{out}");
        assert!(out.contains("B = T.alloc_buffer((64,), \"float32\", scope=\"shared\")"), "{out}");
        assert!(out.contains("B[i % 2 * 32 + 3] = A_1[i * 32 + 3]"), "{out}");
    }

    #[test]
    fn refuses_an_undeclared_alias_and_names_its_owner() {
        let mut m = parse_module(
            r#"
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    A[0] = T.float32(1.0)
"#,
        )
        .unwrap();
        let func = &mut m.functions[0];
        let a = func.param_buffers().next().unwrap().clone();
        let mut spec = a.to_spec();
        spec.name = "A_view".into();
        spec.shape = vec![Expr::int(2), Expr::int(8)];
        let view = spec.build();
        let store = tirproof_ir::BufferStore {
            buffer: view,
            indices: vec![Expr::int(1), Expr::int(2)],
            value: Expr::float(2.0, tirproof_ir::DataType::FLOAT32),
        };
        func.body = Stmt::seq(vec![func.body.clone(), Stmt::synthetic(StmtKind::Store(store))]);
        let before = print_module(&m);
        let err = FlattenBuffer.run(&mut m).unwrap_err().to_string();
        assert!(err.contains("buffer `A_view` is used without a declaration (it shares its data with `A`)"), "{err}");
        assert_eq!(print_module(&m), before, "a refused function is left untouched");
    }

    #[test]
    fn refuses_unlowered_blocks() {
        let err = flatten(
            r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    with T.sblock("b"):
        A[0] = T.float32(1.0)
"#,
        )
        .unwrap_err();
        assert!(err.contains("block `b` is not lowered"), "{err}");
    }
}
