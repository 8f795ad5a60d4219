//! The IR builder: short constructors for buffers, statements, functions and modules, for
//! everything that makes IR without parsing text (the fuzzers' generators, the tests of every
//! crate).
//!
//! Invariants: everything built here is synthetic (`Span::UNKNOWN`, no origin) and exactly what
//! the constructor's name says, with no simplification (`seq` of [`Stmt::seq`] flattens; the
//! builder has no sequence of its own); loops start at zero of their variable's type and carry
//! no annotations unless given; a thread binding's tag comes from the closed [`ThreadTag`].

use crate::annotation::Annotations;
use crate::buffer::{Buffer, BufferSpec};
use crate::dtype::DataType;
use crate::expr::Expr;
use crate::func::{IRModule, Param, PrimFunc};
use crate::span::Span;
use crate::stmt::{Allocate, AttrStmt, BufferStore, For, ForKind, Stmt, StmtKind};
use crate::thread::ThreadTag;
use crate::var::Var;

/// A compact buffer with constant extents and a fresh data variable.
pub fn buffer(name: impl Into<String>, dtype: DataType, shape: &[i64], scope: &str) -> Buffer {
    BufferSpec::new(name, dtype, shape.iter().map(|d| Expr::int(*d)).collect(), scope).build()
}

/// A compact buffer over the data variable of `of` (an alias), in its scope.
pub fn alias(of: &Buffer, name: impl Into<String>, dtype: DataType, shape: &[i64]) -> Buffer {
    let mut spec = BufferSpec::new(name, dtype, shape.iter().map(|d| Expr::int(*d)).collect(), of.scope());
    spec.data = of.data().clone();
    spec.build()
}

fn synthetic(kind: StmtKind) -> Stmt {
    Stmt::synthetic(kind)
}

/// `buffer[indices] = value`.
pub fn store(buffer: &Buffer, indices: Vec<Expr>, value: Expr) -> Stmt {
    synthetic(StmtKind::Store(BufferStore { buffer: buffer.clone(), indices, value }))
}

/// `x: T.let[...] = value` over `body`.
pub fn let_stmt(var: &Var, value: Expr, body: Stmt) -> Stmt {
    synthetic(StmtKind::Let { var: var.clone(), value, body: Box::new(body) })
}

/// A loop of `kind` over `[0, extent)`, without a thread tag or annotations.
pub fn loop_of(kind: ForKind, var: &Var, extent: Expr, body: Stmt) -> For {
    For {
        var: var.clone(),
        min: Expr::int_of(0, var.dtype()),
        extent,
        kind,
        thread: None,
        annotations: Annotations::new(),
        body,
    }
}

/// The statement of a loop.
pub fn for_stmt(f: For) -> Stmt {
    synthetic(StmtKind::For(Box::new(f)))
}

/// A serial loop over `[0, extent)`.
pub fn serial(var: &Var, extent: Expr, body: Stmt) -> Stmt {
    for_stmt(loop_of(ForKind::Serial, var, extent, body))
}

/// `for var in T.thread_binding(extent, thread=tag)`.
pub fn thread_loop(var: &Var, tag: ThreadTag, extent: Expr, body: Stmt) -> Stmt {
    let mut f = loop_of(ForKind::ThreadBinding, var, extent, body);
    f.thread = Some(tag.as_str().to_string());
    for_stmt(f)
}

/// `with T.launch_thread(tag, extent) as var`.
pub fn launch(var: &Var, tag: ThreadTag, extent: Expr, body: Stmt) -> Stmt {
    synthetic(StmtKind::LaunchThread { var: var.clone(), tag: tag.as_str().to_string(), extent, body: Box::new(body) })
}

/// `if cond: then_case [else: else_case]`.
pub fn if_then(cond: Expr, then_case: Stmt, else_case: Option<Stmt>) -> Stmt {
    synthetic(StmtKind::If { cond, then_case: Box::new(then_case), else_case: else_case.map(Box::new) })
}

/// A dictionary-form attribute (`T.attr({key: value})`) over `body`.
pub fn attr(key: &str, value: Expr, body: Stmt) -> Stmt {
    synthetic(StmtKind::Attr(AttrStmt { node: None, key: key.to_string(), value, body: Box::new(body) }))
}

/// `T.alloc_buffer` of `buffer` over `body`, without annotations.
pub fn alloc_buffer(buffer: &Buffer, body: Stmt) -> Stmt {
    synthetic(StmtKind::AllocBuffer { buffer: buffer.clone(), annotations: Annotations::new(), body: Box::new(body) })
}

/// `T.decl_buffer` of `buffer` over `body`.
pub fn decl_buffer(buffer: &Buffer, body: Stmt) -> Stmt {
    synthetic(StmtKind::DeclBuffer { buffer: buffer.clone(), body: Box::new(body) })
}

/// `data = T.allocate(extents, dtype, "global")` over `body`, unconditional.
pub fn allocate(data: &Var, dtype: DataType, extents: Vec<Expr>, body: Stmt) -> Stmt {
    synthetic(StmtKind::Allocate(Allocate {
        data: data.clone(),
        dtype,
        extents,
        scope: crate::buffer::SCOPE_GLOBAL.to_string(),
        condition: Expr::bool(true),
        annotations: Annotations::new(),
        body: Box::new(body),
    }))
}

/// `T.evaluate(e)`.
pub fn evaluate(e: Expr) -> Stmt {
    synthetic(StmtKind::Evaluate(e))
}

/// `T.tvm_storage_sync("shared")`.
pub fn barrier() -> Stmt {
    synthetic(StmtKind::Barrier { scope: "shared".into() })
}

/// A parameter handle `{name}_handle` mapped to `buffer`.
pub fn buffer_param(buffer: &Buffer) -> Param {
    Param { var: Var::new(format!("{}_handle", buffer.name()), DataType::HANDLE), buffer: Some(buffer.clone()) }
}

/// A scalar parameter.
pub fn scalar_param(var: &Var) -> Param {
    Param { var: var.clone(), buffer: None }
}

/// A public, non-S-TIR function without attributes.
pub fn func(name: impl Into<String>, params: Vec<Param>, body: Stmt) -> PrimFunc {
    PrimFunc {
        name: name.into(),
        params,
        attrs: Annotations::new(),
        body,
        s_tir: false,
        private: false,
        span: Span::UNKNOWN,
    }
}

/// A module of `functions` outside any class.
pub fn module(functions: Vec<PrimFunc>) -> IRModule {
    IRModule { class_name: None, functions }
}
