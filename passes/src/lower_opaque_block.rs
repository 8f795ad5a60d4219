//! `lower-opaque-block`: S-TIR blocks become plain statements, as TVM's LowerOpaqueBlock (with
//! LowerInitBlock) does before FlattenBuffer.
//!
//! A block `with T.sblock(...)` becomes, from the outside in:
//! `if predicate:` (its `T.where`) > one `AllocBuffer` per block allocation > its async
//! annotations as an `AttrStmt` chain > `if reduce_0 == min_0 and ...: init` followed by the
//! body. Iteration variables are replaced by their bindings (bound by a `LetStmt` instead
//! when the binding reads memory or calls something impure, so it is still evaluated once, at
//! block entry). Access regions, the block name and other annotations are dropped.
//!
//! Invariants: this nesting is the order in which the interpreter executes a block (bindings,
//! predicate, allocations, wait, body, commit), so the output computes exactly what the input
//! computes; blocks are lowered innermost first; the annotation chain keeps the block's key
//! order except that an in-flight count is moved right after its wait (the checker pairs them
//! in chain order). When the body itself starts with async attributes, the block's chain and
//! the body's read as one chain up to the first repeated key, where a nested chain starts
//! (`tirproof_ir::async_op`'s rule); with at most one wait, one scope and one
//! commit per chain, that is the same wait-body-commit order as the block's nesting.

use tirproof_ir::async_op::AsyncKey;
use tirproof_ir::subst::Substitution;
use tirproof_ir::visit::{walk_expr, walk_stmt_mut, MutVisitor, Visitor};
use tirproof_ir::{
    AnnValue, Annotations, AttrStmt, Block, CallEffect, Diagnostic, Expr, IterKind, IterVar, PrimFunc, Span, Stmt,
    StmtKind,
};

use crate::provenance::{replace, seq};
use crate::{FunctionPass, FunctionReport};

pub struct LowerOpaqueBlock;

impl FunctionPass for LowerOpaqueBlock {
    const NAME: &'static str = "lower-opaque-block";
    const DESCRIPTION: &'static str =
        "lower S-TIR blocks: T.where to if, block allocations, async annotations to attributes, T.init guarded";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        let mut lowerer = Lowerer::default();
        lowerer.mutate_stmt(&mut func.body);
        FunctionReport::unless(lowerer.errors)
    }
}

#[derive(Default)]
struct Lowerer {
    errors: Vec<Diagnostic>,
}

impl MutVisitor for Lowerer {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        walk_stmt_mut(self, stmt);
        match &mut stmt.kind {
            StmtKind::Block(block) => match lower_block(block, stmt.span) {
                Ok(lowered) => replace(stmt, lowered),
                Err(d) => self.errors.push(d),
            },
            // A lowered block may be a sequence inside a sequence; keep sequences flat, except
            // those that carry provenance (flattening would drop it).
            StmtKind::Seq(items) if items.iter().any(|s| s.origin.is_none() && matches!(s.kind, StmtKind::Seq(_))) => {
                let span = stmt.span;
                let flat = seq(std::mem::take(items));
                replace(stmt, flat);
                stmt.span = span;
            }
            _ => {}
        }
    }
}

/// The plain statement that executes `block` (see the module documentation).
fn lower_block(block: &Block, span: Span) -> Result<Stmt, Diagnostic> {
    let mut inner = block.body.clone();
    if let Some(init) = &block.init {
        inner = Stmt::seq(vec![guarded_init(init, &block.iter_vars, span), inner]);
    }
    let attrs = async_attrs(&block.annotations, span)?;
    for (key, value) in attrs.into_iter().rev() {
        inner = located(StmtKind::Attr(AttrStmt { node: None, key, value, body: Box::new(inner) }), span);
    }
    for alloc in block.alloc_buffers.iter().rev() {
        inner = located(
            StmtKind::AllocBuffer {
                buffer: alloc.buffer.clone(),
                annotations: alloc.annotations.clone(),
                body: Box::new(inner),
            },
            span,
        );
    }
    if let Some(cond) = block.predicate.as_ref().filter(|p| !is_true(p)) {
        inner = located(StmtKind::If { cond: cond.clone(), then_case: Box::new(inner), else_case: None }, span);
    }
    Ok(bind_iter_vars(&block.iter_vars, inner, span))
}

fn located(kind: StmtKind, span: Span) -> Stmt {
    Stmt::new(kind, span)
}

fn is_true(e: &Expr) -> bool {
    matches!(e, Expr::Int { value: 1, dtype } if dtype.is_bool())
}

/// `if r0 == min0 and r1 == min1 ...: init` over the reduction variables (TVM's
/// LowerInitBlock); the init alone when the block has none.
fn guarded_init(init: &Stmt, iter_vars: &[IterVar], span: Span) -> Stmt {
    let guard = iter_vars
        .iter()
        .filter(|iv| iv.kind == IterKind::Reduce)
        .map(|iv| Expr::eq(Expr::var(&iv.var), iv.min.clone()))
        .reduce(Expr::and);
    match guard {
        Some(cond) => located(StmtKind::If { cond, then_case: Box::new(init.clone()), else_case: None }, span),
        None => init.clone(),
    }
}

/// Replaces iteration variables by their bindings; a binding that reads memory or calls an
/// impure function is bound once by a `LetStmt` instead, outermost, as a block binds it.
fn bind_iter_vars(iter_vars: &[IterVar], mut body: Stmt, span: Span) -> Stmt {
    let mut subst = Substitution::new();
    let mut lets = Vec::new();
    for iv in iter_vars {
        if is_substitutable(&iv.binding) {
            subst = subst.var(&iv.var, iv.binding.clone());
        } else {
            lets.push(iv);
        }
    }
    subst.apply_stmt(&mut body);
    for iv in lets.into_iter().rev() {
        body = located(StmtKind::Let { var: iv.var.clone(), value: iv.binding.clone(), body: Box::new(body) }, span);
    }
    body
}

/// Whether evaluating `e` again later gives the same value: no loads, only pure calls.
fn is_substitutable(e: &Expr) -> bool {
    struct Impure(bool);
    impl Visitor for Impure {
        fn visit_expr(&mut self, e: &Expr) {
            match e {
                Expr::Load(_) => self.0 = true,
                Expr::Call(c) if c.effect != CallEffect::Pure => self.0 = true,
                _ => walk_expr(self, e),
            }
        }
    }
    let mut v = Impure(false);
    v.visit_expr(e);
    !v.0
}

/// The block's async annotations as attribute entries, in the block's order, each in-flight
/// count moved right after the wait it belongs to.
fn async_attrs(annotations: &Annotations, span: Span) -> Result<Vec<(String, Expr)>, Diagnostic> {
    let mut out: Vec<(String, Expr)> = Vec::new();
    let mut pending_count: Option<(String, Expr)> = None;
    for (key, value) in annotations.iter() {
        let Some(async_key) = AsyncKey::parse(key) else { continue };
        let entry = (key.to_string(), attr_value(key, value, span)?);
        let waited = out.iter().any(|(k, _)| AsyncKey::parse(k) == Some(AsyncKey::WaitQueue));
        if async_key == AsyncKey::InflightCount && !waited {
            pending_count = Some(entry);
            continue;
        }
        out.push(entry);
        if async_key == AsyncKey::WaitQueue {
            out.extend(pending_count.take());
        }
    }
    out.extend(pending_count);
    Ok(out)
}

/// An annotation value as an attribute value (an integer or an expression).
fn attr_value(key: &str, value: &AnnValue, span: Span) -> Result<Expr, Diagnostic> {
    match value {
        AnnValue::Int(v) => Ok(Expr::int(*v)),
        AnnValue::Bool(b) => Ok(Expr::int(i64::from(*b))),
        AnnValue::Expr(e) => Ok(e.clone()),
        other => Err(Diagnostic::error(
            span,
            format!("block annotation `{key}` is {}; an attribute needs an integer expression", other.kind_name()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pass;
    use tirproof_ir::print::print_module;
    use tirproof_reader::parse_module;

    fn lower(src: &str) -> String {
        let mut m = parse_module(src).expect("parses");
        LowerOpaqueBlock.run(&mut m).expect("lowers");
        print_module(&m)
    }

    #[test]
    fn predicate_allocation_attrs_and_bindings() {
        let out = lower(
            r#"
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("b"):
            vi = T.axis.spatial(16, i)
            T.where(i < 15)
            T.reads(A[vi])
            T.writes(C[vi])
            T.attr({"async_wait_inflight_count": 0, "async_wait_queue_scope": 0, "other": 1})
            B = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            B[0] = A[vi]
            C[vi] = B[0]
"#,
        );
        assert!(out.contains("if i < 15:"), "{out}");
        assert!(out.contains("T.alloc_buffer((1,), \"float32\", scope=\"shared\")"), "{out}");
        assert!(out.contains("T.attr({\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": 0})"), "{out}");
        assert!(out.contains("C[i] = B[0]"), "{out}");
        assert!(!out.contains("other") && !out.contains("sblock"), "{out}");
    }

    #[test]
    fn init_runs_at_the_first_reduction_iteration() {
        let out = lower(
            r#"
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), S: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 8):
        with T.sblock("sum"):
            vi = T.axis.spatial(4, i)
            vk = T.axis.reduce(8, k)
            with T.init():
                S[vi] = T.float32(0.0)
            S[vi] = S[vi] + A[vi, vk]
"#,
        );
        assert!(out.contains("if k == 0:"), "{out}");
        assert!(out.contains("S[i] = S[i] + A[i, k]"), "{out}");
    }
}
