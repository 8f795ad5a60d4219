//! The one read-only visitor and the one in-place mutator that every pass uses.
//!
//! `Visitor` walks a tree by shared reference; `MutVisitor` walks it by mutable reference and
//! may rewrite nodes in place. Override a hook and call the matching `walk_*` function to keep
//! descending. Definitions (loop, let, iteration and launch variables, allocated data
//! variables, declared buffers) are reported through `visit_var_def` / `visit_buffer_def`
//! before the scope they open is walked; uses through `visit_expr` / `visit_buffer_use`.
//! Buffers are shared handles, so the mutator replaces a buffer (`mutate_buffer`) rather than
//! editing its shape in place.

use crate::buffer::{Buffer, BufferRegion, Range};
use crate::expr::{BufferLoad, Expr};
use crate::func::PrimFunc;
use crate::stmt::{Allocate, AttrStmt, Block, BufferStore, For, Stmt, StmtKind};
use crate::var::Var;

/// A read-only walk over expressions and statements.
pub trait Visitor {
    fn visit_expr(&mut self, expr: &Expr) {
        walk_expr(self, expr);
    }
    fn visit_stmt(&mut self, stmt: &Stmt) {
        walk_stmt(self, stmt);
    }
    /// A variable comes into scope.
    fn visit_var_def(&mut self, _var: &Var) {}
    /// A buffer comes into scope (parameter, allocation, declaration).
    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        walk_buffer_def(self, buffer);
    }
    /// A buffer is loaded from, stored to or named in a region.
    fn visit_buffer_use(&mut self, _buffer: &Buffer) {}
}

/// Visits the parameters (variables, then buffers) and the body of `func`.
pub fn walk_func<V: Visitor + ?Sized>(v: &mut V, func: &PrimFunc) {
    for param in &func.params {
        v.visit_var_def(&param.var);
    }
    for buffer in func.param_buffers() {
        v.visit_buffer_def(buffer);
    }
    v.visit_stmt(&func.body);
}

/// Visits the shape, strides and offset of a buffer definition.
pub fn walk_buffer_def<V: Visitor + ?Sized>(v: &mut V, buffer: &Buffer) {
    for e in buffer.shape().iter().chain(buffer.strides()) {
        v.visit_expr(e);
    }
    v.visit_expr(buffer.elem_offset());
}

pub fn walk_expr<V: Visitor + ?Sized>(v: &mut V, expr: &Expr) {
    match expr {
        Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) | Expr::Var(_) => {}
        Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } | Expr::Logic { lhs, rhs, .. } => {
            v.visit_expr(lhs);
            v.visit_expr(rhs);
        }
        Expr::Not(value) | Expr::Cast { value, .. } | Expr::Broadcast { value, .. } => v.visit_expr(value),
        Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false } => {
            v.visit_expr(cond);
            v.visit_expr(on_true);
            v.visit_expr(on_false);
        }
        Expr::Ramp { base, stride, .. } => {
            v.visit_expr(base);
            v.visit_expr(stride);
        }
        Expr::Let { var, value, body } => {
            v.visit_expr(value);
            v.visit_var_def(var);
            v.visit_expr(body);
        }
        Expr::Load(BufferLoad { buffer, indices }) => {
            v.visit_buffer_use(buffer);
            indices.iter().for_each(|i| v.visit_expr(i));
        }
        Expr::Call(call) => call.args.iter().for_each(|a| v.visit_expr(a)),
    }
}

fn walk_region<V: Visitor + ?Sized>(v: &mut V, region: &BufferRegion) {
    v.visit_buffer_use(&region.buffer);
    for Range { min, extent } in &region.region {
        v.visit_expr(min);
        v.visit_expr(extent);
    }
}

pub fn walk_stmt<V: Visitor + ?Sized>(v: &mut V, stmt: &Stmt) {
    match &stmt.kind {
        StmtKind::Store(BufferStore { buffer, indices, value }) => {
            v.visit_buffer_use(buffer);
            indices.iter().for_each(|i| v.visit_expr(i));
            v.visit_expr(value);
        }
        StmtKind::Let { var, value, body } => {
            v.visit_expr(value);
            v.visit_var_def(var);
            v.visit_stmt(body);
        }
        StmtKind::For(f) => walk_for(v, f),
        StmtKind::If { cond, then_case, else_case } => {
            v.visit_expr(cond);
            v.visit_stmt(then_case);
            if let Some(e) = else_case {
                v.visit_stmt(e);
            }
        }
        StmtKind::Seq(stmts) => stmts.iter().for_each(|s| v.visit_stmt(s)),
        StmtKind::Attr(AttrStmt { node, value, body, .. }) => {
            if let Some(n) = node {
                v.visit_expr(n);
            }
            v.visit_expr(value);
            v.visit_stmt(body);
        }
        StmtKind::Allocate(Allocate { data, extents, condition, body, .. }) => {
            extents.iter().for_each(|e| v.visit_expr(e));
            v.visit_expr(condition);
            v.visit_var_def(data);
            v.visit_stmt(body);
        }
        StmtKind::AllocBuffer { buffer, body, .. } => {
            v.visit_var_def(buffer.data());
            v.visit_buffer_def(buffer);
            v.visit_stmt(body);
        }
        StmtKind::DeclBuffer { buffer, body } => {
            v.visit_buffer_def(buffer);
            v.visit_stmt(body);
        }
        StmtKind::Evaluate(e) => v.visit_expr(e),
        StmtKind::Barrier { .. } => {}
        StmtKind::LaunchThread { var, extent, body, .. } => {
            v.visit_expr(extent);
            v.visit_var_def(var);
            v.visit_stmt(body);
        }
        StmtKind::Block(block) => walk_block(v, block),
    }
}

fn walk_for<V: Visitor + ?Sized>(v: &mut V, f: &For) {
    v.visit_expr(&f.min);
    v.visit_expr(&f.extent);
    v.visit_var_def(&f.var);
    v.visit_stmt(&f.body);
}

/// Visits a block: iteration domains and bindings, the iteration variables, the predicate,
/// the allocated buffers, the access regions, the init statement and the body.
pub fn walk_block<V: Visitor + ?Sized>(v: &mut V, block: &Block) {
    for iv in &block.iter_vars {
        v.visit_expr(&iv.min);
        v.visit_expr(&iv.extent);
        v.visit_expr(&iv.binding);
    }
    for iv in &block.iter_vars {
        v.visit_var_def(&iv.var);
    }
    if let Some(p) = &block.predicate {
        v.visit_expr(p);
    }
    for alloc in &block.alloc_buffers {
        v.visit_var_def(alloc.buffer.data());
        v.visit_buffer_def(&alloc.buffer);
    }
    for region in block.reads.iter().chain(&block.writes).flatten() {
        walk_region(v, region);
    }
    if let Some(init) = &block.init {
        v.visit_stmt(init);
    }
    v.visit_stmt(&block.body);
}

/// An in-place rewrite of expressions and statements.
pub trait MutVisitor {
    fn mutate_expr(&mut self, expr: &mut Expr) {
        walk_expr_mut(self, expr);
    }
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        walk_stmt_mut(self, stmt);
    }
    /// Called on every buffer reference (uses and definitions); may replace it.
    fn mutate_buffer(&mut self, _buffer: &mut Buffer) {}
}

pub fn walk_expr_mut<M: MutVisitor + ?Sized>(m: &mut M, expr: &mut Expr) {
    match expr {
        Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) | Expr::Var(_) => {}
        Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } | Expr::Logic { lhs, rhs, .. } => {
            m.mutate_expr(lhs);
            m.mutate_expr(rhs);
        }
        Expr::Not(value) | Expr::Cast { value, .. } | Expr::Broadcast { value, .. } => m.mutate_expr(value),
        Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false } => {
            m.mutate_expr(cond);
            m.mutate_expr(on_true);
            m.mutate_expr(on_false);
        }
        Expr::Ramp { base, stride, .. } => {
            m.mutate_expr(base);
            m.mutate_expr(stride);
        }
        Expr::Let { value, body, .. } => {
            m.mutate_expr(value);
            m.mutate_expr(body);
        }
        Expr::Load(BufferLoad { buffer, indices }) => {
            m.mutate_buffer(buffer);
            indices.iter_mut().for_each(|i| m.mutate_expr(i));
        }
        Expr::Call(call) => call.args.iter_mut().for_each(|a| m.mutate_expr(a)),
    }
}

fn walk_region_mut<M: MutVisitor + ?Sized>(m: &mut M, region: &mut BufferRegion) {
    m.mutate_buffer(&mut region.buffer);
    for r in &mut region.region {
        m.mutate_expr(&mut r.min);
        m.mutate_expr(&mut r.extent);
    }
}

pub fn walk_stmt_mut<M: MutVisitor + ?Sized>(m: &mut M, stmt: &mut Stmt) {
    match &mut stmt.kind {
        StmtKind::Store(BufferStore { buffer, indices, value }) => {
            m.mutate_buffer(buffer);
            indices.iter_mut().for_each(|i| m.mutate_expr(i));
            m.mutate_expr(value);
        }
        StmtKind::Let { value, body, .. } => {
            m.mutate_expr(value);
            m.mutate_stmt(body);
        }
        StmtKind::For(f) => {
            m.mutate_expr(&mut f.min);
            m.mutate_expr(&mut f.extent);
            m.mutate_stmt(&mut f.body);
        }
        StmtKind::If { cond, then_case, else_case } => {
            m.mutate_expr(cond);
            m.mutate_stmt(then_case);
            if let Some(e) = else_case {
                m.mutate_stmt(e);
            }
        }
        StmtKind::Seq(stmts) => stmts.iter_mut().for_each(|s| m.mutate_stmt(s)),
        StmtKind::Attr(AttrStmt { node, value, body, .. }) => {
            if let Some(n) = node {
                m.mutate_expr(n);
            }
            m.mutate_expr(value);
            m.mutate_stmt(body);
        }
        StmtKind::Allocate(Allocate { extents, condition, body, .. }) => {
            extents.iter_mut().for_each(|e| m.mutate_expr(e));
            m.mutate_expr(condition);
            m.mutate_stmt(body);
        }
        StmtKind::AllocBuffer { buffer, body, .. } | StmtKind::DeclBuffer { buffer, body } => {
            m.mutate_buffer(buffer);
            m.mutate_stmt(body);
        }
        StmtKind::Evaluate(e) => m.mutate_expr(e),
        StmtKind::Barrier { .. } => {}
        StmtKind::LaunchThread { extent, body, .. } => {
            m.mutate_expr(extent);
            m.mutate_stmt(body);
        }
        StmtKind::Block(block) => walk_block_mut(m, block),
    }
}

pub fn walk_block_mut<M: MutVisitor + ?Sized>(m: &mut M, block: &mut Block) {
    for iv in &mut block.iter_vars {
        m.mutate_expr(&mut iv.min);
        m.mutate_expr(&mut iv.extent);
        m.mutate_expr(&mut iv.binding);
    }
    if let Some(p) = &mut block.predicate {
        m.mutate_expr(p);
    }
    for alloc in &mut block.alloc_buffers {
        m.mutate_buffer(&mut alloc.buffer);
    }
    for region in block.reads.iter_mut().chain(block.writes.iter_mut()).flatten() {
        walk_region_mut(m, region);
    }
    if let Some(init) = &mut block.init {
        m.mutate_stmt(init);
    }
    m.mutate_stmt(&mut block.body);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DataType;

    struct CountVars(usize);
    impl Visitor for CountVars {
        fn visit_expr(&mut self, expr: &Expr) {
            if matches!(expr, Expr::Var(_)) {
                self.0 += 1;
            }
            walk_expr(self, expr);
        }
    }

    struct DoubleInts;
    impl MutVisitor for DoubleInts {
        fn mutate_expr(&mut self, expr: &mut Expr) {
            if let Expr::Int { value, .. } = expr {
                *value *= 2;
            }
            walk_expr_mut(self, expr);
        }
    }

    #[test]
    fn visitor_reaches_nested_operands() {
        let x = Var::new("x", DataType::INT32);
        let e = Expr::var(&x) + Expr::var(&x) * Expr::int(3);
        let mut count = CountVars(0);
        count.visit_expr(&e);
        assert_eq!(count.0, 2);
    }

    #[test]
    fn mutator_rewrites_in_place() {
        let x = Var::new("x", DataType::INT32);
        let mut e = Expr::var(&x) + Expr::int(3);
        DoubleInts.mutate_expr(&mut e);
        assert_eq!(e, Expr::var(&x) + Expr::int(6));
    }
}
