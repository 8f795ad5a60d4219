//! Semantics of programs: arithmetic per family, casts, lanes (docs/buffers-and-lanes.md), selects, lets,
//! intrinsics, memory (aliases, strides, offsets, symbolic shapes), S-TIR blocks, inputs.

use std::collections::BTreeMap;

use super::build::*;
use crate::{random_inputs, run, ExecError, FaultKind, Outcome, RunConfig, ScalarValue, Tensor};
use tirproof_ir::buffer::BufferSpec;
use tirproof_ir::expr::{BinOp, Expr};
use tirproof_ir::stmt::{Block, BlockAlloc, IterKind, IterVar, Stmt, StmtKind};

/// `C[0] = op(A[0], B[0])` on one-element buffers of `dtype`.
fn binop_result(op: BinOp, dtype: tirproof_ir::DataType, a: f64, b: f64) -> Result<f64, FaultKind> {
    let (ab, bb, cb) = (buf("A", dtype, &[1]), buf("B", dtype, &[1]), buf("C", dtype, &[1]));
    let body = store(&cb, vec![int(0)], bin(op, ld(&ab, vec![int(0)]), ld(&bb, vec![int(0)])));
    let f = func(vec![&ab, &bb, &cb], vec![], body);
    let t = |v: f64| tensor_of(dtype, vec![1], &[v]);
    let r = run_lazy(&f, &inputs(vec![("A", t(a)), ("B", t(b)), ("C", t(0.0))], vec![]));
    match r.outcome {
        Outcome::Completed => Ok(r.outputs["C"].get_f64(0).unwrap()),
        Outcome::Fault(f) => Err(f.kind),
    }
}

#[test]
fn copy_loop_copies() {
    let f = copy_func(4);
    let r = run_lazy(&f, &inputs(vec![("A", tensor_f32(&[1.0, 2.0, 3.0, 4.0])), ("B", tensor_f32(&[0.0; 4]))], vec![]));
    completed(&r);
    assert_eq!(out_f64(&r, "B"), vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(r.stats.statements, 5);
}

#[test]
fn integer_arithmetic_wraps_in_programs() {
    assert_eq!(binop_result(BinOp::Add, I32, 2147483647.0, 1.0), Ok(-2147483648.0));
    assert_eq!(binop_result(BinOp::Add, I8, 127.0, 1.0), Ok(-128.0));
    assert_eq!(binop_result(BinOp::Mul, I64, 4294967296.0, 4294967296.0), Ok(0.0));
    assert_eq!(binop_result(BinOp::Div, I32, -2147483648.0, -1.0), Ok(-2147483648.0));
}

#[test]
fn division_families_on_negatives() {
    assert_eq!(binop_result(BinOp::FloorDiv, I32, -7.0, 2.0), Ok(-4.0));
    assert_eq!(binop_result(BinOp::FloorMod, I32, -7.0, 2.0), Ok(1.0));
    assert_eq!(binop_result(BinOp::TruncDiv, I32, -7.0, 2.0), Ok(-3.0));
    assert_eq!(binop_result(BinOp::TruncMod, I32, -7.0, 2.0), Ok(-1.0));
    assert_eq!(binop_result(BinOp::FloorMod, I32, 7.0, -2.0), Ok(-1.0));
    assert_eq!(binop_result(BinOp::FloorDiv, F32, -7.0, 2.0), Ok(-4.0));
    assert_eq!(binop_result(BinOp::Div, F32, 1.0, 0.0), Ok(f64::INFINITY));
    assert_eq!(binop_result(BinOp::FloorMod, I32, 1.0, 0.0), Err(FaultKind::DivisionByZero));
}

#[test]
fn float16_rounds_every_operation() {
    assert_eq!(binop_result(BinOp::Add, F16, 2048.0, 1.0), Ok(2048.0));
    assert_eq!(binop_result(BinOp::Add, F16, 2048.0, 3.0), Ok(2052.0));
    // f16(0.1) * 3 is exactly halfway between two float16 values: ties go to even.
    let tenth = half::f16::from_f64(0.1);
    assert_eq!(tenth.to_f64() * 3.0, 0.2999267578125);
    assert_eq!(binop_result(BinOp::Mul, F16, 0.1, 3.0), Ok(0.2998046875));
    // float32 is computed in f32: 2^24 + 1 rounds back to 2^24.
    assert_eq!(binop_result(BinOp::Add, F32, 16777216.0, 1.0), Ok(16777216.0));
    assert_eq!(binop_result(BinOp::Add, F64, 16777216.0, 1.0), Ok(16777217.0));
}

#[test]
fn bfloat16_and_unsigned_kinds() {
    let bf16 = tirproof_ir::DataType::new(tirproof_ir::TypeCode::BFloat, 16, 1);
    let u8t = tirproof_ir::DataType::new(tirproof_ir::TypeCode::UInt, 8, 1);
    // bfloat16 keeps 8 significant bits: 256 + 1 rounds back to 256.
    assert_eq!(binop_result(BinOp::Add, bf16, 256.0, 1.0), Ok(256.0));
    assert_eq!(binop_result(BinOp::Add, bf16, 256.0, 2.0), Ok(258.0));
    assert_eq!(binop_result(BinOp::Sub, u8t, 0.0, 1.0), Ok(255.0));
    assert_eq!(binop_result(BinOp::FloorDiv, u8t, 250.0, 7.0), Ok(35.0));
}

#[test]
fn min_max_and_bitwise() {
    assert_eq!(binop_result(BinOp::Min, I32, -3.0, 2.0), Ok(-3.0));
    assert_eq!(binop_result(BinOp::Max, F32, -3.0, 2.0), Ok(2.0));
    assert_eq!(binop_result(BinOp::BitXor, I32, 6.0, 3.0), Ok(5.0));
    assert_eq!(binop_result(BinOp::Shl, I32, 1.0, 4.0), Ok(16.0));
    assert_eq!(binop_result(BinOp::Shr, I32, -16.0, 2.0), Ok(-4.0));
    assert_eq!(binop_result(BinOp::Shl, I32, 1.0, 40.0), Err(FaultKind::ShiftOutOfRange));
}

#[test]
fn casts_in_programs() {
    let a = buf("A", F32, &[2]);
    let c = buf("C", I8, &[2]);
    let i = var("i");
    let body = for_(&i, 2, store(&c, vec![ev(&i)], Expr::cast(I8, ld(&a, vec![ev(&i)]))));
    let f = func(vec![&a, &c], vec![], body);
    let run_with = |x: f64| {
        run_lazy(&f, &inputs(vec![("A", tensor_f32(&[-2.75, x])), ("C", tensor_of(I8, vec![2], &[0.0, 0.0]))], vec![]))
    };
    let r = run_with(127.5);
    completed(&r);
    assert_eq!(r.outputs["C"].to_i64_vec(), vec![-2, 127]);
    let r = run_with(128.0);
    let fault = fault_of(&r);
    assert_eq!(fault.kind, FaultKind::InvalidCast);
    assert_eq!(fault.message, "cast of 128.0 (float32) to int8 is out of range");
    assert_eq!(fault.loop_vars, vec![("i".to_string(), 1)]);
}

#[test]
fn vector_loads_and_stores_through_ramps() {
    let a = buf("A", F32, &[8]);
    let c = buf("C", F32, &[8]);
    let ramp = |base: i64| Expr::ramp(int(base), int(1), 4);
    let twice = ld(&a, vec![ramp(4)]) * Expr::broadcast(fl(2.0), 4);
    let body = seq(vec![store(&c, vec![ramp(0)], twice), store(&c, vec![ramp(4)], ld(&a, vec![ramp(0)]))]);
    let f = func(vec![&a, &c], vec![], body);
    let values: Vec<f64> = (0..8).map(f64::from).collect();
    let r = run_lazy(&f, &inputs(vec![("A", tensor_f32(&values)), ("C", tensor_f32(&[0.0; 8]))], vec![]));
    completed(&r);
    assert_eq!(out_f64(&r, "C"), vec![8.0, 10.0, 12.0, 14.0, 0.0, 1.0, 2.0, 3.0]);
}

#[test]
fn vector_element_buffers_follow_rfc39() {
    // A float32x4 alias of a float32 buffer: A4[1] is lanes 4..8; an N-lane index into an
    // M-lane buffer yields N*M lanes.
    let a = buf("A", F32, &[8]);
    let c = buf("C", F32, &[8]);
    let a4 = alias(&a, "A4", F32.with_lanes(4), &[2]);
    let c4 = alias(&c, "C4", F32.with_lanes(4), &[2]);
    let c8 = alias(&c, "C8", F32.with_lanes(8), &[1]);
    let body = decl(
        &a4,
        decl(
            &c4,
            decl(
                &c8,
                seq(vec![
                    store(&c4, vec![int(0)], ld(&a4, vec![int(1)])),
                    store(&c4, vec![int(1)], ld(&a4, vec![int(0)])),
                ]),
            ),
        ),
    );
    let f = func(vec![&a, &c], vec![], body);
    let values: Vec<f64> = (0..8).map(f64::from).collect();
    let r = run_lazy(&f, &inputs(vec![("A", tensor_f32(&values)), ("C", tensor_f32(&[0.0; 8]))], vec![]));
    completed(&r);
    assert_eq!(out_f64(&r, "C"), vec![4.0, 5.0, 6.0, 7.0, 0.0, 1.0, 2.0, 3.0]);

    let ramp2 = Expr::ramp(int(0), int(1), 2);
    let body = decl(&a4, decl(&c8, store(&c8, vec![int(0)], ld(&a4, vec![ramp2]))));
    let f = func(vec![&a, &c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("A", tensor_f32(&values)), ("C", tensor_f32(&[0.0; 8]))], vec![]));
    completed(&r);
    assert_eq!(out_f64(&r, "C"), values);
}

#[test]
fn lane_mismatches_are_interpreter_errors() {
    let a = buf("A", F32, &[8]);
    let body = store(&a, vec![Expr::ramp(int(0), int(1), 4)], fl(1.0));
    let f = func(vec![&a], vec![], body);
    let err = run(&f, &inputs(vec![("A", tensor_f32(&[0.0; 8]))], vec![]), &RunConfig::default()).unwrap_err();
    assert!(matches!(err, ExecError::IllFormed(m) if m.contains("float32x4")));
}

#[test]
fn if_then_else_evaluates_only_the_taken_arm() {
    let a = buf("A", F32, &[4]);
    let c = buf("C", F32, &[4]);
    let i = var("i");
    let safe = Expr::lt(ev(&i), int(4));
    let lazy = Expr::if_then_else(safe.clone(), ld(&a, vec![ev(&i)]), ld(&a, vec![ev(&i) + int(100)]));
    let f = func(vec![&a, &c], vec![], for_(&i, 4, store(&c, vec![ev(&i)], lazy)));
    let ins = inputs(vec![("A", tensor_f32(&[1.0, 2.0, 3.0, 4.0])), ("C", tensor_f32(&[0.0; 4]))], vec![]);
    let r = run_lazy(&f, &ins);
    completed(&r);
    assert_eq!(out_f64(&r, "C"), vec![1.0, 2.0, 3.0, 4.0]);

    let eager = Expr::select(safe, ld(&a, vec![ev(&i)]), ld(&a, vec![ev(&i) + int(100)]));
    let f = func(vec![&a, &c], vec![], for_(&i, 4, store(&c, vec![ev(&i)], eager)));
    let r = run_lazy(&f, &ins);
    assert_eq!(fault_of(&r).kind, FaultKind::OutOfBounds);
    assert_eq!(fault_of(&r).message, "out-of-bounds read of A[100] (shape [4])");
}

#[test]
fn vector_conditions_select_per_lane() {
    let a = buf("A", F32, &[4]);
    let c = buf("C", F32, &[4]);
    let ramp = Expr::ramp(int(0), int(1), 4);
    let cond = Expr::lt(ramp.clone(), Expr::broadcast(int(2), 4));
    let value = Expr::if_then_else(cond, ld(&a, vec![ramp.clone()]), Expr::broadcast(fl(-1.0), 4));
    let f = func(vec![&a, &c], vec![], store(&c, vec![ramp], value));
    let r = run_lazy(&f, &inputs(vec![("A", tensor_f32(&[1.0, 2.0, 3.0, 4.0])), ("C", tensor_f32(&[0.0; 4]))], vec![]));
    completed(&r);
    assert_eq!(out_f64(&r, "C"), vec![1.0, 2.0, -1.0, -1.0]);
}

#[test]
fn let_expressions_and_statements() {
    let a = buf("A", I32, &[1]);
    let (x, y) = (var("x"), var("y"));
    let value = Expr::let_in(x.clone(), int(5), ev(&x) * ev(&x));
    let body = let_(&y, value, store(&a, vec![int(0)], ev(&y) + int(1)));
    let f = func(vec![&a], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("A", tensor_of(I32, vec![1], &[0.0]))], vec![]));
    completed(&r);
    assert_eq!(r.outputs["A"].to_i64_vec(), vec![26]);
}

#[test]
fn intrinsics_and_unknown_calls() {
    let a = buf("A", F32, &[2]);
    let body = seq(vec![
        store(&a, vec![int(0)], call("T.sqrt", F32, vec![fl(16.0)])),
        store(&a, vec![int(1)], call("T.pow", F32, vec![fl(2.0), fl(3.0)])),
    ]);
    let f = func(vec![&a], vec![], body);
    let ins = inputs(vec![("A", tensor_f32(&[0.0, 0.0]))], vec![]);
    let r = run_lazy(&f, &ins);
    completed(&r);
    assert_eq!(out_f64(&r, "A"), vec![4.0, 8.0]);

    let f = func(vec![&a], vec![], store(&a, vec![int(0)], call("T.mystery", F32, vec![fl(1.0)])));
    let err = run(&f, &ins, &RunConfig::default()).unwrap_err();
    assert_eq!(err, ExecError::Unsupported("call to `T.mystery` (pure effect)".into()));
}

#[test]
fn aliases_share_storage() {
    let b = scoped("B", F32, &[16], "shared");
    let b2 = alias(&b, "B2", F32, &[4, 4]);
    let bi = alias(&b, "Bi", I32, &[16]);
    let c = buf("C", F32, &[2]);
    let ci = buf("Ci", I32, &[1]);
    let body = alloc(
        &b,
        decl(
            &b2,
            decl(
                &bi,
                seq(vec![
                    store(&b2, vec![int(2), int(3)], fl(7.5)),
                    store(&c, vec![int(0)], ld(&b, vec![int(11)])),
                    store(&b, vec![int(0)], fl(1.0)),
                    store(&ci, vec![int(0)], ld(&bi, vec![int(0)])),
                    store(&bi, vec![int(1)], int(0x4020_0000)),
                    store(&c, vec![int(1)], ld(&b, vec![int(1)])),
                ]),
            ),
        ),
    );
    let f = func(vec![&c, &ci], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("C", tensor_f32(&[0.0; 2])), ("Ci", tensor_of(I32, vec![1], &[0.0]))], vec![]));
    completed(&r);
    assert_eq!(out_f64(&r, "C"), vec![7.5, 2.5]);
    assert_eq!(r.outputs["Ci"].to_i64_vec(), vec![i64::from(1.0f32.to_bits())]);
}

#[test]
fn strides_and_element_offsets() {
    // A 2x2 view with strides (4, 2) starting at element 1 of an 8-element parameter.
    let a = buf("A", F32, &[8]);
    let mut spec = BufferSpec::new("V", F32, vec![int(2), int(2)], "global");
    spec.data = a.data().clone();
    spec.strides = vec![int(4), int(2)];
    spec.elem_offset = int(1);
    let v = spec.build();
    let c = buf("C", F32, &[1]);
    let body = decl(&v, store(&c, vec![int(0)], ld(&v, vec![int(1), int(1)])));
    let f = func(vec![&a, &c], vec![], body);
    let values: Vec<f64> = (0..8).map(f64::from).collect();
    let r = run_lazy(&f, &inputs(vec![("A", tensor_f32(&values)), ("C", tensor_f32(&[0.0]))], vec![]));
    completed(&r);
    assert_eq!(out_f64(&r, "C"), vec![7.0]);
}

#[test]
fn symbolic_shapes_use_scalar_parameters() {
    let n = var("n");
    let a = BufferSpec::new("A", F32, vec![ev(&n)], "global").build();
    let b = BufferSpec::new("B", F32, vec![ev(&n)], "global").build();
    let i = var("i");
    let body = for_e(&i, ev(&n), store(&b, vec![ev(&i)], ld(&a, vec![ev(&i)]) + fl(1.0)));
    let f = func(vec![&a, &b], vec![&n], body);
    let ins = random_inputs(&f, 3, &BTreeMap::from([("n".to_string(), ScalarValue::Int(5))])).unwrap();
    assert_eq!(ins.buffers["A"].shape, vec![5]);
    let r = run_lazy(&f, &ins);
    completed(&r);
    let a_vals = ins.buffers["A"].to_f64_vec();
    assert_eq!(out_f64(&r, "B"), a_vals.iter().map(|x| x + 1.0).collect::<Vec<_>>());

    // Without a value for `n`, random_inputs picks one in 1..=64 and reports it.
    let ins = random_inputs(&f, 4, &BTreeMap::new()).unwrap();
    let ScalarValue::Int(chosen) = ins.scalars["n"] else { panic!("n is an int") };
    assert!((1..=64).contains(&chosen));
    assert_eq!(ins.buffers["B"].len(), chosen as usize);
}

#[test]
fn random_inputs_are_seeded_and_exact() {
    let f = copy_func(32);
    let a = random_inputs(&f, 9, &BTreeMap::new()).unwrap();
    let b = random_inputs(&f, 9, &BTreeMap::new()).unwrap();
    let c = random_inputs(&f, 10, &BTreeMap::new()).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a.buffers["A"].to_f64_vec().iter().all(|v| (v * 4.0).fract() == 0.0 && v.abs() <= 4.0));
}

#[test]
fn input_errors_are_interpreter_errors() {
    let f = copy_func(4);
    let missing = inputs(vec![("A", tensor_f32(&[0.0; 4]))], vec![]);
    assert_eq!(run(&f, &missing, &RunConfig::default()).unwrap_err(), ExecError::MissingInput("B".into()));
    let wrong = inputs(vec![("A", tensor_f32(&[0.0; 4])), ("B", tensor_f32(&[0.0; 5]))], vec![]);
    assert!(matches!(
        run(&f, &wrong, &RunConfig::default()).unwrap_err(),
        ExecError::BadInput { name, .. } if name == "B"
    ));
    let wrong_type =
        inputs(vec![("A", tensor_f32(&[0.0; 4])), ("B", Tensor::from_i64(I32, vec![4], &[0; 4]).unwrap())], vec![]);
    assert!(run(&f, &wrong_type, &RunConfig::default()).is_err());
}

/// An S-TIR block `with T.sblock(): vi = T.axis.reduce(4, k); T.where(...)`.
fn block(
    iter_vars: Vec<IterVar>,
    predicate: Option<Expr>,
    allocs: Vec<BlockAlloc>,
    init: Option<Stmt>,
    body: Stmt,
) -> Stmt {
    Stmt::synthetic(StmtKind::Block(Box::new(Block {
        name: "b".into(),
        iter_vars,
        predicate,
        reads: None,
        writes: None,
        annotations: Default::default(),
        alloc_buffers: allocs,
        init,
        body,
    })))
}

#[test]
fn blocks_bind_iteration_variables_and_run_init_once() {
    // sum[0] = sum over k < 3 of A[k] (T.where(k < 3)), with an init on the first iteration.
    let a = buf("A", F32, &[4]);
    let s = buf("S", F32, &[1]);
    let (k, vk) = (var("k"), var("vk"));
    let iv = IterVar { var: vk.clone(), min: int(0), extent: int(4), kind: IterKind::Reduce, binding: ev(&k) };
    let init = store(&s, vec![int(0)], fl(0.0));
    let update = store(&s, vec![int(0)], ld(&s, vec![int(0)]) + ld(&a, vec![ev(&vk)]));
    let body = for_(&k, 4, block(vec![iv], Some(Expr::lt(ev(&k), int(3))), vec![], Some(init), update));
    let f = func(vec![&a, &s], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("A", tensor_f32(&[1.0, 2.0, 3.0, 4.0])), ("S", tensor_f32(&[100.0]))], vec![]));
    completed(&r);
    assert_eq!(out_f64(&r, "S"), vec![6.0]);
}

#[test]
fn block_allocations_are_fresh_and_poisoned() {
    let c = buf("C", F32, &[1]);
    let t = scoped("T", F32, &[1], "local");
    let alloc = BlockAlloc { buffer: t.clone(), annotations: Default::default() };
    let body = block(vec![], None, vec![alloc], None, store(&c, vec![int(0)], ld(&t, vec![int(0)])));
    let f = func(vec![&c], vec![], at(3, body));
    let r = run_lazy(&f, &inputs(vec![("C", tensor_f32(&[0.0]))], vec![]));
    assert_eq!(fault_of(&r).kind, FaultKind::ReadPoison);
}
