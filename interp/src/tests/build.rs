//! Short names for test programs over the IR builder (`tirproof_ir::build`), so each test reads
//! close to the TVMScript it stands for; runs and their results.

use std::collections::BTreeMap;

use tirproof_ir::annotation::{
    ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_WAIT_QUEUE_SCOPE,
};
use tirproof_ir::buffer::Buffer;
use tirproof_ir::build;
use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::{BinOp, Call, CallEffect, Expr};
use tirproof_ir::func::PrimFunc;
use tirproof_ir::span::Span;
use tirproof_ir::stmt::{ForKind, Stmt, StmtKind};
use tirproof_ir::thread::ThreadTag;
use tirproof_ir::var::Var;

use crate::{run, Inputs, Outcome, RunConfig, RunResult, ScalarValue, Schedule, Tensor};

pub(crate) const F32: DataType = DataType::FLOAT32;
pub(crate) const F16: DataType = DataType::FLOAT16;
pub(crate) const F64: DataType = DataType::FLOAT64;
pub(crate) const I32: DataType = DataType::INT32;
pub(crate) const I8: DataType = DataType::INT8;
pub(crate) const I64: DataType = DataType::INT64;
pub(crate) const BOOL: DataType = DataType::BOOL;

/// A global buffer with a fresh data variable.
pub(crate) fn buf(name: &str, dtype: DataType, shape: &[i64]) -> Buffer {
    build::buffer(name, dtype, shape, "global")
}

pub(crate) fn scoped(name: &str, dtype: DataType, shape: &[i64], scope: &str) -> Buffer {
    build::buffer(name, dtype, shape, scope)
}

/// A buffer over `of`'s data variable (an alias).
pub(crate) fn alias(of: &Buffer, name: &str, dtype: DataType, shape: &[i64]) -> Buffer {
    build::alias(of, name, dtype, shape)
}

pub(crate) fn var(name: &str) -> Var {
    Var::new(name, I32)
}

pub(crate) fn ev(v: &Var) -> Expr {
    Expr::var(v)
}

pub(crate) fn int(v: i64) -> Expr {
    Expr::int(v)
}

pub(crate) fn fl(v: f64) -> Expr {
    Expr::float(v, F32)
}

pub(crate) fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

pub(crate) fn ld(b: &Buffer, idx: Vec<Expr>) -> Expr {
    Expr::load(b, idx)
}

pub(crate) fn call(name: &str, dtype: DataType, args: Vec<Expr>) -> Expr {
    Expr::Call(Call { name: name.into(), dtype, args, effect: CallEffect::Pure, external: false })
}

pub(crate) fn store(b: &Buffer, idx: Vec<Expr>, value: Expr) -> Stmt {
    build::store(b, idx, value)
}

/// Puts `stmt` on source line `line`.
pub(crate) fn at(line: u32, mut stmt: Stmt) -> Stmt {
    stmt.span = Span::new(line, 1);
    stmt
}

pub(crate) fn seq(stmts: Vec<Stmt>) -> Stmt {
    Stmt::synthetic(StmtKind::Seq(stmts))
}

fn for_kind(v: &Var, extent: Expr, body: Stmt, kind: ForKind) -> Stmt {
    build::for_stmt(build::loop_of(kind, v, extent, body))
}

pub(crate) fn for_(v: &Var, extent: i64, body: Stmt) -> Stmt {
    for_kind(v, Expr::int_of(extent, v.dtype()), body, ForKind::Serial)
}

pub(crate) fn for_e(v: &Var, extent: Expr, body: Stmt) -> Stmt {
    for_kind(v, extent, body, ForKind::Serial)
}

pub(crate) fn for_thread(v: &Var, tag: &str, extent: i64, body: Stmt) -> Stmt {
    build::thread_loop(v, thread_tag(tag), int(extent), body)
}

/// The tag a test names.
fn thread_tag(tag: &str) -> ThreadTag {
    ThreadTag::parse(tag).unwrap_or_else(|| panic!("a test names an unknown thread tag `{tag}`"))
}

pub(crate) fn launch(v: &Var, tag: &str, extent: i64, body: Stmt) -> Stmt {
    build::launch(v, thread_tag(tag), int(extent), body)
}

pub(crate) fn attr(key: &str, value: Expr, body: Stmt) -> Stmt {
    build::attr(key, value, body)
}

pub(crate) fn async_scope(body: Stmt) -> Stmt {
    attr(ASYNC_SCOPE, int(1), body)
}

pub(crate) fn commit(queue: i64, body: Stmt) -> Stmt {
    attr(ASYNC_COMMIT_QUEUE_SCOPE, int(queue), body)
}

pub(crate) fn wait(queue: i64, count: Expr, body: Stmt) -> Stmt {
    attr(ASYNC_WAIT_QUEUE_SCOPE, int(queue), attr(ASYNC_WAIT_INFLIGHT_COUNT, count, body))
}

pub(crate) fn alloc(b: &Buffer, body: Stmt) -> Stmt {
    build::alloc_buffer(b, body)
}

pub(crate) fn decl(b: &Buffer, body: Stmt) -> Stmt {
    build::decl_buffer(b, body)
}

pub(crate) fn barrier() -> Stmt {
    build::barrier()
}

pub(crate) fn if_(cond: Expr, then_case: Stmt) -> Stmt {
    build::if_then(cond, then_case, None)
}

pub(crate) fn let_(v: &Var, value: Expr, body: Stmt) -> Stmt {
    build::let_stmt(v, value, body)
}

pub(crate) fn func(buffers: Vec<&Buffer>, scalars: Vec<&Var>, body: Stmt) -> PrimFunc {
    let params = buffers.into_iter().map(build::buffer_param).chain(scalars.into_iter().map(build::scalar_param));
    PrimFunc { span: Span::new(1, 1), ..build::func("main", params.collect(), body) }
}

/// `for i in range(n): B[i] = A[i]` over float32 buffers.
pub(crate) fn copy_func(n: i64) -> PrimFunc {
    let a = buf("A", F32, &[n]);
    let b = buf("B", F32, &[n]);
    let i = var("i");
    func(vec![&a, &b], vec![], for_(&i, n, store(&b, vec![ev(&i)], ld(&a, vec![ev(&i)]))))
}

pub(crate) fn tensor_f32(values: &[f64]) -> Tensor {
    Tensor::from_f64(F32, vec![values.len()], values).unwrap()
}

pub(crate) fn tensor_of(dtype: DataType, shape: Vec<usize>, values: &[f64]) -> Tensor {
    Tensor::from_f64(dtype, shape, values).unwrap()
}

/// Inputs from (name, tensor) pairs.
pub(crate) fn inputs(buffers: Vec<(&str, Tensor)>, scalars: Vec<(&str, i64)>) -> Inputs {
    Inputs {
        buffers: buffers.into_iter().map(|(n, t)| (n.to_string(), t)).collect::<BTreeMap<_, _>>(),
        scalars: scalars.into_iter().map(|(n, v)| (n.to_string(), ScalarValue::Int(v))).collect(),
    }
}

pub(crate) fn run_sched(f: &PrimFunc, inputs: &Inputs, schedule: Schedule) -> RunResult {
    let config = RunConfig { schedule, ..RunConfig::default() };
    run(f, inputs, &config).expect("the interpreter runs the program")
}

pub(crate) fn run_lazy(f: &PrimFunc, inputs: &Inputs) -> RunResult {
    run_sched(f, inputs, Schedule::Lazy)
}

/// The fault of a run, which must have faulted.
pub(crate) fn fault_of(r: &RunResult) -> &crate::Fault {
    match &r.outcome {
        Outcome::Fault(f) => f,
        Outcome::Completed => panic!("expected a fault, the run completed"),
    }
}

pub(crate) fn completed(r: &RunResult) {
    if let Outcome::Fault(f) = &r.outcome {
        panic!("expected completion, got {}", f.details());
    }
}

pub(crate) fn out_f64(r: &RunResult, name: &str) -> Vec<f64> {
    r.outputs[name].to_f64_vec()
}
