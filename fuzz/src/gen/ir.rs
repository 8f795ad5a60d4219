//! Small constructors for the IR the generators emit: buffers, loops, allocations,
//! annotations and the one-function module around a body.
//!
//! Everything built here is synthetic (`Span::UNKNOWN`); the generators never depend on
//! positions.

use tirproof_ir::annotation::{PIPELINE_ASYNC_STAGES, PIPELINE_ORDER, PIPELINE_STAGE};
use tirproof_ir::{
    AnnValue, Annotations, Buffer, BufferSpec, BufferStore, DataType, Expr, For, ForKind, IRModule, Param, PrimFunc,
    Span, Stmt, StmtKind, Var,
};

use super::schedule::PipelineAnnotations;

/// A one-dimensional float32 buffer.
pub(super) fn float_buffer(name: impl Into<String>, len: i64, scope: &str) -> Buffer {
    BufferSpec::new(name, DataType::FLOAT32, vec![Expr::int(len.max(1))], scope).build()
}

/// `body` inside `T.alloc_buffer` of each buffer, the first outermost.
pub(super) fn allocate(buffers: &[Buffer], body: Stmt) -> Stmt {
    buffers.iter().rev().fold(body, |body, b| {
        Stmt::synthetic(StmtKind::AllocBuffer {
            buffer: b.clone(),
            annotations: Annotations::new(),
            body: Box::new(body),
        })
    })
}

/// A serial loop.
pub(super) fn serial_loop(var: &Var, min: Expr, extent: Expr, annotations: Annotations, body: Stmt) -> Stmt {
    Stmt::synthetic(StmtKind::For(Box::new(For {
        var: var.clone(),
        min,
        extent,
        kind: ForKind::Serial,
        thread: None,
        annotations,
        body,
    })))
}

/// `body` under `T.thread_binding(threads, thread="threadIdx.x")`.
pub(super) fn thread_loop(var: &Var, threads: i64, body: Stmt) -> Stmt {
    bound_loop(var, threads, "threadIdx.x", body)
}

/// `body` under `T.thread_binding(extent, thread=tag)`.
pub(super) fn bound_loop(var: &Var, extent: i64, tag: &str, body: Stmt) -> Stmt {
    Stmt::synthetic(StmtKind::For(Box::new(For {
        var: var.clone(),
        min: Expr::int(0),
        extent: Expr::int(extent),
        kind: ForKind::ThreadBinding,
        thread: Some(tag.into()),
        annotations: Annotations::new(),
        body,
    })))
}

/// `buffer[index] = value`.
pub(super) fn store(buffer: &Buffer, index: Expr, value: Expr) -> Stmt {
    Stmt::synthetic(StmtKind::Store(BufferStore { buffer: buffer.clone(), indices: vec![index], value }))
}

pub(super) fn int_list(values: &[i64]) -> AnnValue {
    AnnValue::List(values.iter().map(|v| AnnValue::Int(*v)).collect())
}

/// The loop annotations asking for this pipeline (no async key when nothing is async).
pub(super) fn pipeline_annotations(spec: &PipelineAnnotations) -> Annotations {
    let mut a = Annotations::new();
    a.insert(PIPELINE_STAGE, int_list(&spec.stages));
    a.insert(PIPELINE_ORDER, int_list(&spec.orders));
    if !spec.async_stages.is_empty() {
        a.insert(PIPELINE_ASYNC_STAGES, int_list(&spec.async_stages));
    }
    a
}

/// A module with one function `main` taking `buffers` (then `scalars`) and running `body`.
pub(super) fn module(buffers: &[Buffer], scalars: &[Var], body: Stmt) -> IRModule {
    let mut params: Vec<Param> = buffers
        .iter()
        .map(|b| Param { var: Var::new(format!("{}_handle", b.name()), DataType::HANDLE), buffer: Some(b.clone()) })
        .collect();
    params.extend(scalars.iter().map(|v| Param { var: v.clone(), buffer: None }));
    let func = PrimFunc {
        name: "main".into(),
        params,
        attrs: Annotations::new(),
        body,
        s_tir: false,
        private: false,
        span: Span::UNKNOWN,
    };
    IRModule { class_name: None, functions: vec![func] }
}
