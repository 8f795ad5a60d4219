//! The generators' shapes of IR (float buffers, nested allocations, pipeline annotations, the
//! one-function module around a body), built with the IR builder (`tirproof_ir::build`).
//!
//! Everything built here is synthetic (`Span::UNKNOWN`); the generators never depend on
//! positions.

use tirproof_ir::annotation::{PIPELINE_ASYNC_STAGES, PIPELINE_ORDER, PIPELINE_STAGE};
use tirproof_ir::{
    build, AnnValue, Annotations, Axis, Buffer, DataType, Expr, ForKind, IRModule, Stmt, ThreadTag, Var,
};

use super::schedule::PipelineAnnotations;

/// A one-dimensional float32 buffer.
pub(super) fn float_buffer(name: impl Into<String>, len: i64, scope: &str) -> Buffer {
    build::buffer(name, DataType::FLOAT32, &[len.max(1)], scope)
}

/// `body` inside `T.alloc_buffer` of each buffer, the first outermost.
pub(super) fn allocate(buffers: &[Buffer], body: Stmt) -> Stmt {
    buffers.iter().rev().fold(body, |body, b| build::alloc_buffer(b, body))
}

/// A serial loop.
pub(super) fn serial_loop(var: &Var, min: Expr, extent: Expr, annotations: Annotations, body: Stmt) -> Stmt {
    let mut f = build::loop_of(ForKind::Serial, var, extent, body);
    f.min = min;
    f.annotations = annotations;
    build::for_stmt(f)
}

/// `body` under `T.thread_binding(threads, thread="threadIdx.x")`.
pub(super) fn thread_loop(var: &Var, threads: i64, body: Stmt) -> Stmt {
    bound_loop(var, threads, ThreadTag::Thread(Axis::X), body)
}

/// `body` under `T.thread_binding(extent, thread=tag)`.
pub(super) fn bound_loop(var: &Var, extent: i64, tag: ThreadTag, body: Stmt) -> Stmt {
    build::thread_loop(var, tag, Expr::int(extent), body)
}

/// `buffer[index] = value`.
pub(super) fn store(buffer: &Buffer, index: Expr, value: Expr) -> Stmt {
    build::store(buffer, vec![index], value)
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
    let params = buffers.iter().map(build::buffer_param).chain(scalars.iter().map(build::scalar_param)).collect();
    build::module(vec![build::func("main", params, body)])
}
