//! Every fault kind, with its exact one-line summary, location and context.

use super::build::*;
use crate::{run, FaultKind, Outcome, RunConfig, Schedule};
use tirproof_ir::expr::{BinOp, Expr};

fn a_c(n: i64) -> (tirproof_ir::Buffer, tirproof_ir::Buffer) {
    (buf("A", F32, &[n]), buf("C", F32, &[n]))
}

fn zeros(n: usize) -> crate::Tensor {
    tensor_f32(&vec![0.0; n])
}

#[test]
fn out_of_bounds_reports_indices_shape_and_loop_values() {
    let (a, c) = a_c(4);
    let (i, j) = (var("i"), var("j"));
    let body =
        at(2, for_(&i, 2, at(3, for_(&j, 3, at(4, store(&c, vec![ev(&j)], ld(&a, vec![ev(&i) * int(2) + ev(&j)])))))));
    let f = func(vec![&a, &c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("A", zeros(4)), ("C", zeros(4))], vec![]));
    let fault = fault_of(&r);
    assert_eq!(fault.kind, FaultKind::OutOfBounds);
    assert_eq!(fault.to_string(), "line 4: out-of-bounds read of A[4] (shape [4]) at i = 1, j = 2");
    assert_eq!(fault.loop_vars, vec![("i".to_string(), 1), ("j".to_string(), 2)]);
    // The stores before the fault are in the history, with their lines.
    assert!(fault.details().contains("line 4: store to C (element 0)"), "{}", fault.details());
}

#[test]
fn out_of_bounds_write_and_storage_overrun() {
    let (a, c) = a_c(4);
    let f = func(vec![&a, &c], vec![], at(7, store(&c, vec![int(-1)], fl(1.0))));
    let r = run_lazy(&f, &inputs(vec![("A", zeros(4)), ("C", zeros(4))], vec![]));
    assert_eq!(fault_of(&r).to_string(), "line 7: out-of-bounds write of C[-1] (shape [4])");

    // An alias whose logical shape is larger than the storage it views.
    let big = alias(&a, "Abig", F32, &[8]);
    let f = func(vec![&a, &c], vec![], decl(&big, at(9, store(&c, vec![int(0)], ld(&big, vec![int(5)])))));
    let r = run_lazy(&f, &inputs(vec![("A", zeros(4)), ("C", zeros(4))], vec![]));
    assert_eq!(
        fault_of(&r).to_string(),
        "line 9: out-of-bounds read of Abig[5]: element 5 is outside the 4 elements of its storage"
    );
}

#[test]
fn division_by_zero_is_a_fault_not_a_panic() {
    let c = buf("C", I32, &[2]);
    let i = var("i");
    let body = at(2, for_(&i, 2, at(3, store(&c, vec![ev(&i)], bin(BinOp::FloorDiv, int(7), ev(&i) - int(1))))));
    let f = func(vec![&c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("C", tensor_of(I32, vec![2], &[0.0, 0.0]))], vec![]));
    assert_eq!(fault_of(&r).kind, FaultKind::DivisionByZero);
    assert_eq!(fault_of(&r).to_string(), "line 3: integer division by zero: 7 // 0 (int32) at i = 1");
    assert_eq!(r.outputs["C"].to_i64_vec(), vec![-7, 0]);
}

#[test]
fn reading_unwritten_memory_is_poison() {
    let c = buf("C", F32, &[1]);
    let b = scoped("B", F32, &[2], "shared");
    let body = alloc(
        &b,
        seq(vec![at(3, store(&b, vec![int(0)], fl(1.0))), at(4, store(&c, vec![int(0)], ld(&b, vec![int(1)])))]),
    );
    let f = func(vec![&c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("C", zeros(1))], vec![]));
    assert_eq!(fault_of(&r).kind, FaultKind::ReadPoison);
    assert_eq!(fault_of(&r).to_string(), "line 4: read of B[1] (element 1), which was allocated but never written");
}

#[test]
fn writing_a_location_with_a_pending_async_write() {
    let (a, c) = a_c(2);
    let b = scoped("B", F32, &[2], "shared");
    let body = alloc(
        &b,
        seq(vec![
            at(3, commit(0, async_scope(at(5, store(&b, vec![int(0)], ld(&a, vec![int(0)])))))),
            at(6, store(&b, vec![int(0)], fl(2.0))),
            at(7, wait(0, int(0), store(&c, vec![int(0)], ld(&b, vec![int(0)])))),
        ]),
    );
    let f = func(vec![&a, &c], vec![], body);
    let ins = inputs(vec![("A", zeros(2)), ("C", zeros(2))], vec![]);
    let r = run_lazy(&f, &ins);
    assert_eq!(fault_of(&r).kind, FaultKind::WritePendingAsync);
    assert_eq!(
        fault_of(&r).to_string(),
        "line 6: write to B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 3)"
    );
    // Eager landed the group at commit, so the plain write is fine there.
    completed(&run_sched(&f, &ins, Schedule::Eager));
}

#[test]
fn negative_wait_count() {
    let (a, c) = a_c(1);
    let f = func(vec![&a, &c], vec![], at(5, wait(0, int(-1), store(&c, vec![int(0)], fl(1.0)))));
    let r = run_lazy(&f, &inputs(vec![("A", zeros(1)), ("C", zeros(1))], vec![]));
    assert_eq!(fault_of(&r).kind, FaultKind::NegativeWait);
    assert_eq!(fault_of(&r).to_string(), "line 5: async_wait_inflight_count is -1 for queue 0; it must be at least 0");
}

#[test]
fn fuel_exhaustion() {
    let f = copy_func(100);
    let ins = inputs(vec![("A", zeros(100)), ("B", zeros(100))], vec![]);
    let config = RunConfig { fuel: 10, ..RunConfig::default() };
    let r = run(&f, &ins, &config).unwrap();
    let fault = fault_of(&r);
    assert_eq!(fault.kind, FaultKind::FuelExhausted);
    assert_eq!(fault.message, "fuel exhausted: the budget of 10 statements is spent");
    assert_eq!(fault.loop_vars, vec![("i".to_string(), 9)]);
    assert_eq!(r.stats.statements, 10);
}

#[test]
fn empty_loops_still_cost_fuel() {
    let i = var("i");
    let c = buf("C", F32, &[1]);
    let f = func(vec![&c], vec![], for_e(&i, int(i32::MAX.into()), seq(vec![])));
    let config = RunConfig { fuel: 1000, ..RunConfig::default() };
    let r = run(&f, &inputs(vec![("C", zeros(1))], vec![]), &config).unwrap();
    assert_eq!(fault_of(&r).kind, FaultKind::FuelExhausted);
}

#[test]
fn invalid_cast_and_bad_shift() {
    let c = buf("C", I32, &[1]);
    let f = func(vec![&c], vec![], at(2, store(&c, vec![int(0)], Expr::cast(I32, Expr::float(f64::NAN, F32)))));
    let ins = inputs(vec![("C", tensor_of(I32, vec![1], &[0.0]))], vec![]);
    assert_eq!(fault_of(&run_lazy(&f, &ins)).to_string(), "line 2: cast of NaN (float32) to int32");
    let f = func(vec![&c], vec![], at(2, store(&c, vec![int(0)], bin(BinOp::Shl, int(1), int(32)))));
    let r = run_lazy(&f, &ins);
    assert_eq!(fault_of(&r).kind, FaultKind::ShiftOutOfRange);
    assert_eq!(fault_of(&r).to_string(), "line 2: shift amount 32 out of range for int32 (must be in 0..32)");
}

#[test]
fn unwaited_groups_are_reported_and_still_land() {
    let (a, c) = a_c(2);
    let body = at(3, commit(0, async_scope(at(4, store(&c, vec![int(1)], ld(&a, vec![int(0)]) + fl(1.0))))));
    let f = func(vec![&a, &c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("A", tensor_f32(&[5.0, 0.0])), ("C", zeros(2))], vec![]));
    let fault = fault_of(&r);
    assert_eq!(fault.kind, FaultKind::UnwaitedGroup);
    assert_eq!(
        fault.to_string(),
        "line 3: async group never waited: group 0 of queue 0 (committed at line 3) is still in flight when the function ends, \
         holding its async store issued at line 4"
    );
    assert_eq!(out_f64(&r, "C"), vec![0.0, 6.0]);

    // An async store that is never committed.
    let body = async_scope(at(4, store(&c, vec![int(1)], fl(2.0))));
    let f = func(vec![&a, &c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("A", zeros(2)), ("C", zeros(2))], vec![]));
    assert_eq!(
        fault_of(&r).message,
        "async group never waited: an async store to `C` (element 1) issued at line 4 was never committed before the function ends"
    );
    assert_eq!(out_f64(&r, "C"), vec![0.0, 2.0]);
}

#[test]
fn faults_in_threads_name_the_thread() {
    let (a, c) = a_c(4);
    let tx = var("tx");
    let body =
        at(2, for_thread(&tx, "threadIdx.x", 4, at(3, store(&c, vec![ev(&tx)], ld(&a, vec![ev(&tx) + int(1)])))));
    let f = func(vec![&a, &c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("A", zeros(4)), ("C", zeros(4))], vec![]));
    assert_eq!(fault_of(&r).to_string(), "line 3: out-of-bounds read of A[4] (shape [4]) (threadIdx.x = 3)");
    assert_eq!(fault_of(&r).thread, vec![("threadIdx.x".to_string(), 3)]);
}

#[test]
fn every_fault_kind_has_a_test() {
    // The kinds exercised above and in async_model / threads / races; a new kind must get one.
    let covered = [
        FaultKind::OutOfBounds,
        FaultKind::DivisionByZero,
        FaultKind::ReadPoison,
        FaultKind::ReadPendingAsync,
        FaultKind::WritePendingAsync,
        FaultKind::CrossThreadRace,
        // races::block_level_code_runs_in_every_thread
        FaultKind::RedundantStore,
        FaultKind::CrossBlockRace,
        // The PTX emulator's alone (lanes of a warp): ptx/tests/warp_stores.rs
        FaultKind::WarpStoreConflict,
        FaultKind::NegativeWait,
        FaultKind::UnwaitedGroup,
        FaultKind::BarrierDivergence,
        FaultKind::FuelExhausted,
        FaultKind::InvalidCast,
        FaultKind::ShiftOutOfRange,
        // corpus/faults/negative_extent.py
        FaultKind::NegativeExtent,
        // corpus/faults/token_*.py
        FaultKind::TokenWait,
    ];
    assert_eq!(covered.len(), FaultKind::ALL.len());
    assert!(Outcome::Completed.fault().is_none());
}
