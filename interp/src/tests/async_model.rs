//! The async model (docs/async-semantics.md) under the lazy, eager and random schedules:
//! the RFC's pipelined example, commit grouping, waits, chains in any order, and the printed
//! TVM pipeline of seed b.

use super::build::*;
use crate::{FaultKind, Inputs, Outcome, Schedule};
use tirproof_ir::annotation::{
    ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_WAIT_QUEUE_SCOPE,
};
use tirproof_ir::expr::Expr;
use tirproof_ir::stmt::ForKind;

const SCHEDULES: [Schedule; 5] =
    [Schedule::Lazy, Schedule::Eager, Schedule::Random(0), Schedule::Random(1), Schedule::Random(77)];

/// The RFC's first example, pipelined with `B[i % 2]` double buffering:
/// ```text
/// 3  B = T.alloc_shared((2,))
/// 4  commit(0): async_scope: B[0] = A[0] + 1              (prologue)
/// 7  for i in range(15):
/// 8      commit(0): async_scope: B[(i + 1) % 2] = A[i + 1] + 1
/// 11     wait(0, count): C[i] = B[i % 2] + 1
/// 13 wait(0, 0): C[15] = B[1] + 1                         (epilogue, unless dropped)
/// ```
fn rfc_pipeline(count: i64, final_wait: bool) -> (tirproof_ir::PrimFunc, Inputs) {
    let a = buf("A", F32, &[16]);
    let c = buf("C", F32, &[16]);
    let b = scoped("B", F32, &[2], "shared");
    let i = var("i");
    let plus1 = |e: Expr| e + fl(1.0);
    let prologue = at(4, commit(0, at(5, async_scope(at(6, store(&b, vec![int(0)], plus1(ld(&a, vec![int(0)]))))))));
    let produce = at(
        8,
        commit(
            0,
            at(
                9,
                async_scope(at(
                    10,
                    store(&b, vec![Expr::floormod(ev(&i) + int(1), int(2))], plus1(ld(&a, vec![ev(&i) + int(1)]))),
                )),
            ),
        ),
    );
    let consume = at(
        11,
        wait(0, int(count), at(12, store(&c, vec![ev(&i)], plus1(ld(&b, vec![Expr::floormod(ev(&i), int(2))]))))),
    );
    let epilogue = at(13, wait(0, int(0), at(14, store(&c, vec![int(15)], plus1(ld(&b, vec![int(1)]))))));
    let mut stmts = vec![prologue, at(7, for_(&i, 15, seq(vec![produce, consume])))];
    if final_wait {
        stmts.push(epilogue);
    }
    let f = func(vec![&a, &c], vec![], at(3, alloc(&b, seq(stmts))));
    let values: Vec<f64> = (0..16).map(|k| f64::from(k) * 0.5).collect();
    let ins = inputs(vec![("A", tensor_f32(&values)), ("C", tensor_f32(&[0.0; 16]))], vec![]);
    (f, ins)
}

fn expected_c(ins: &Inputs) -> Vec<f64> {
    ins.buffers["A"].to_f64_vec().iter().map(|a| a + 2.0).collect()
}

#[test]
fn rfc_pipeline_with_count_1_is_correct_under_every_schedule() {
    let (f, ins) = rfc_pipeline(1, true);
    for schedule in SCHEDULES {
        let r = run_sched(&f, &ins, schedule);
        completed(&r);
        assert_eq!(out_f64(&r, "C"), expected_c(&ins), "{schedule}");
        assert_eq!(r.stats.commits, 16);
        assert_eq!(r.stats.async_stores, 16);
    }
}

#[test]
fn rfc_pipeline_with_count_2_reads_a_pending_write_under_lazy() {
    let (f, ins) = rfc_pipeline(2, true);
    let r = run_sched(&f, &ins, Schedule::Lazy);
    let fault = fault_of(&r);
    assert_eq!(fault.kind, FaultKind::ReadPendingAsync);
    assert_eq!(
        fault.to_string(),
        "line 12: read of B[0] (element 0) while an async write to it is pending (group 0 of queue 0, committed at line 4) at i = 0"
    );
    let details = fault.details();
    assert!(details.contains("line 6: async store to B (element 0) issued"), "{details}");
    assert!(details.contains("line 4: commit group 0 of queue 0"), "{details}");
    assert!(details.contains("line 11: wait on queue 0 until at most 2 in flight (nothing to retire)"), "{details}");

    // Eager lands every group at its commit, so the too-large count goes unnoticed.
    let r = run_sched(&f, &ins, Schedule::Eager);
    completed(&r);
    assert_eq!(out_f64(&r, "C"), expected_c(&ins));
}

#[test]
fn missing_final_wait_is_an_unwaited_group() {
    let (f, ins) = rfc_pipeline(1, false);
    for schedule in SCHEDULES {
        let r = run_sched(&f, &ins, schedule);
        let fault = fault_of(&r);
        assert_eq!(fault.kind, FaultKind::UnwaitedGroup, "{schedule}");
        assert_eq!(
            fault.message,
            "async group never waited: group 15 of queue 0 (committed at line 8) is still in flight when the function ends, \
             holding its async store issued at line 10"
        );
        // The last group still lands, so B[1] holds A[15] + 1 (not observable in C, but no
        // output is left undefined).
        assert_eq!(out_f64(&r, "C")[..15], expected_c(&ins)[..15]);
    }
}

/// `cuda_pipeline.h`'s idiom in TIR: the RFC pipeline with its produce step under
/// `if i + 1 < copies` (a group every iteration, empty once the copies end) and no final wait.
fn pipeline_idiom(copies: i64) -> tirproof_ir::PrimFunc {
    let a = buf("A", F32, &[16]);
    let c = buf("C", F32, &[16]);
    let b = scoped("B", F32, &[2], "shared");
    let i = var("i");
    let copy = |slot: Expr, from: Expr| at(6, async_scope(at(6, store(&b, vec![slot], ld(&a, vec![from])))));
    let prologue = at(4, commit(0, copy(int(0), int(0))));
    let next = ev(&i) + int(1);
    let produce = at(
        8,
        commit(0, at(9, if_(Expr::lt(next.clone(), int(copies)), copy(Expr::floormod(next.clone(), int(2)), next)))),
    );
    let consume =
        at(11, wait(0, int(1), at(12, store(&c, vec![ev(&i)], ld(&b, vec![Expr::floormod(ev(&i), int(2))])))));
    let body = seq(vec![prologue, at(7, for_(&i, 15, seq(vec![produce, consume])))]);
    func(vec![&a, &c], vec![], at(3, alloc(&b, body)))
}

#[test]
fn empty_groups_in_flight_at_the_end_are_no_fault() {
    let values: Vec<f64> = (0..16).map(f64::from).collect();
    let ins = inputs(vec![("A", tensor_f32(&values)), ("C", tensor_f32(&[0.0; 16]))], vec![]);
    let mut expected = values.clone();
    expected[15] = 0.0;
    for schedule in SCHEDULES {
        // The last iteration commits an empty group, which stays in flight: no fault.
        let r = run_sched(&pipeline_idiom(15), &ins, schedule);
        completed(&r);
        assert_eq!(out_f64(&r, "C"), expected, "{schedule}");
        // One copy more: the last group holds it at the end.
        let r = run_sched(&pipeline_idiom(16), &ins, schedule);
        let fault = fault_of(&r);
        assert_eq!(fault.kind, FaultKind::UnwaitedGroup, "{schedule}");
        assert_eq!(
            fault.message,
            "async group never waited: group 15 of queue 0 (committed at line 8) is still in flight when the function ends, \
             holding its async store issued at line 6"
        );
    }
}

#[test]
fn stores_outside_a_commit_join_the_next_commit() {
    let (a, c) = (buf("A", F32, &[2]), buf("C", F32, &[2]));
    let b = scoped("B", F32, &[2], "shared");
    let body = alloc(
        &b,
        seq(vec![
            at(3, async_scope(at(4, store(&b, vec![int(0)], ld(&a, vec![int(0)]))))),
            at(5, commit(0, async_scope(at(6, store(&b, vec![int(1)], ld(&a, vec![int(1)])))))),
            at(
                7,
                wait(
                    0,
                    int(0),
                    seq(vec![
                        store(&c, vec![int(0)], ld(&b, vec![int(0)])),
                        store(&c, vec![int(1)], ld(&b, vec![int(1)])),
                    ]),
                ),
            ),
        ]),
    );
    let f = func(vec![&a, &c], vec![], body);
    let ins = inputs(vec![("A", tensor_f32(&[3.0, 4.0])), ("C", tensor_f32(&[0.0; 2]))], vec![]);
    for schedule in SCHEDULES {
        let r = run_sched(&f, &ins, schedule);
        completed(&r);
        assert_eq!(out_f64(&r, "C"), vec![3.0, 4.0]);
        assert_eq!(r.stats.commits, 1, "both stores are one group");
    }
}

#[test]
fn empty_commits_are_groups() {
    // g0 = {B[0]}, g1 = {} (empty); wait(0, 1) retires g0 only, which is all that is read.
    let (a, c) = (buf("A", F32, &[1]), buf("C", F32, &[1]));
    let b = scoped("B", F32, &[1], "shared");
    let body = alloc(
        &b,
        seq(vec![
            at(3, commit(0, async_scope(store(&b, vec![int(0)], ld(&a, vec![int(0)]))))),
            at(4, commit(0, seq(vec![]))),
            at(5, wait(0, int(1), store(&c, vec![int(0)], ld(&b, vec![int(0)])))),
            at(6, wait(0, int(0), seq(vec![]))),
        ]),
    );
    let f = func(vec![&a, &c], vec![], body);
    let ins = inputs(vec![("A", tensor_f32(&[9.0])), ("C", tensor_f32(&[0.0]))], vec![]);
    let r = run_lazy(&f, &ins);
    completed(&r);
    assert_eq!(out_f64(&r, "C"), vec![9.0]);
    assert_eq!(r.stats.commits, 2);

    // With the empty group committed first, wait(0, 1) retires only the empty one.
    let body = alloc(
        &b,
        seq(vec![
            at(3, commit(0, async_scope(store(&b, vec![int(0)], ld(&a, vec![int(0)]))))),
            at(4, commit(1, seq(vec![]))),
            at(5, wait(0, int(1), store(&c, vec![int(0)], ld(&b, vec![int(0)])))),
        ]),
    );
    let f = func(vec![&a, &c], vec![], body);
    assert_eq!(fault_of(&run_lazy(&f, &ins)).kind, FaultKind::ReadPendingAsync);
}

#[test]
fn queues_are_independent() {
    let (a, c) = (buf("A", F32, &[2]), buf("C", F32, &[2]));
    let b = scoped("B", F32, &[2], "shared");
    let body = alloc(
        &b,
        seq(vec![
            commit(0, async_scope(store(&b, vec![int(0)], ld(&a, vec![int(0)])))),
            commit(1, async_scope(store(&b, vec![int(1)], ld(&a, vec![int(1)])))),
            at(5, wait(1, int(0), store(&c, vec![int(1)], ld(&b, vec![int(1)])))),
            at(6, store(&c, vec![int(0)], ld(&b, vec![int(0)]))),
            wait(0, int(0), seq(vec![])),
        ]),
    );
    let f = func(vec![&a, &c], vec![], body);
    let ins = inputs(vec![("A", tensor_f32(&[1.0, 2.0])), ("C", tensor_f32(&[0.0; 2]))], vec![]);
    let r = run_lazy(&f, &ins);
    assert_eq!(fault_of(&r).kind, FaultKind::ReadPendingAsync);
    assert_eq!(fault_of(&r).span.line, 6);
}

#[test]
fn chain_keys_in_any_order_with_the_count_inside_its_wait() {
    // commit(1){ wait(0, 0){ async_scope{ C[0] = B[0] } } } written in four orders; the count
    // is always nested inside its wait, as `async_op::decode_chain` requires.
    let orders: [[&str; 4]; 4] = [
        [ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_WAIT_QUEUE_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_SCOPE],
        [ASYNC_SCOPE, ASYNC_WAIT_QUEUE_SCOPE, ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT],
        [ASYNC_WAIT_QUEUE_SCOPE, ASYNC_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_COMMIT_QUEUE_SCOPE],
        [ASYNC_WAIT_QUEUE_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_SCOPE, ASYNC_COMMIT_QUEUE_SCOPE],
    ];
    let (a, d) = (buf("A", F32, &[1]), buf("D", F32, &[1]));
    let b = scoped("B", F32, &[1], "shared");
    let c = scoped("C", F32, &[1], "shared");
    for order in orders {
        let mut chain = store(&c, vec![int(0)], ld(&b, vec![int(0)]) + fl(1.0));
        for key in order.iter().rev() {
            let value = match *key {
                ASYNC_COMMIT_QUEUE_SCOPE => int(1),
                ASYNC_WAIT_QUEUE_SCOPE => int(0),
                ASYNC_WAIT_INFLIGHT_COUNT => int(0),
                _ => int(1),
            };
            chain = attr(key, value, chain);
        }
        let body = alloc(
            &b,
            alloc(
                &c,
                seq(vec![
                    commit(0, async_scope(store(&b, vec![int(0)], ld(&a, vec![int(0)])))),
                    chain,
                    wait(1, int(0), store(&d, vec![int(0)], ld(&c, vec![int(0)]))),
                ]),
            ),
        );
        let f = func(vec![&a, &d], vec![], body);
        let ins = inputs(vec![("A", tensor_f32(&[2.0])), ("D", tensor_f32(&[0.0]))], vec![]);
        for schedule in SCHEDULES {
            let r = run_sched(&f, &ins, schedule);
            completed(&r);
            assert_eq!(out_f64(&r, "D"), vec![3.0], "{order:?} {schedule}");
        }
    }
}

/// `T.attr({...})` of a flattened TVM program: a chain of attributes, outermost first.
fn chain(keys: &[(&str, Expr)], body: tirproof_ir::stmt::Stmt) -> tirproof_ir::stmt::Stmt {
    keys.iter().rev().fold(body, |acc, (k, v)| attr(k, v.clone(), acc))
}

fn unroll(v: &tirproof_ir::Var, extent: i64, body: tirproof_ir::stmt::Stmt) -> tirproof_ir::stmt::Stmt {
    let mut s = for_(v, extent, body);
    if let tirproof_ir::stmt::StmtKind::For(f) = &mut s.kind {
        f.kind = ForKind::Unrolled;
    }
    s
}

/// corpus/tvm/seed_b_after_flatten_cse.py: two async stages (queues 0 and 1), the
/// second both a consumer of queue 0 and a producer of queue 1, with per-iteration counts
/// in the epilogue.
fn seed_b() -> tirproof_ir::PrimFunc {
    let (a, d) = (buf("A", F32, &[16]), buf("D", F32, &[16]));
    let (b, c) = (scoped("B", F32, &[2], "shared"), scoped("C", F32, &[2], "shared"));
    let (a1, d1) = (alias(&a, "A_1", F32, &[16]), alias(&d, "D_1", F32, &[16]));
    let stage0 = |idx: Expr, src: Expr| {
        chain(
            &[(ASYNC_COMMIT_QUEUE_SCOPE, int(0)), (ASYNC_SCOPE, int(1))],
            store(&b, vec![idx], ld(&a1, vec![src]) * fl(2.0)),
        )
    };
    let stage1 = |count: Expr, v: &tirproof_ir::Var, value: Expr| {
        chain(
            &[
                (ASYNC_COMMIT_QUEUE_SCOPE, int(1)),
                (ASYNC_WAIT_QUEUE_SCOPE, int(0)),
                (ASYNC_WAIT_INFLIGHT_COUNT, count),
                (ASYNC_SCOPE, int(1)),
            ],
            let_(v, value, store(&c, vec![ev(v)], ld(&b, vec![ev(v)]) + fl(2.0))),
        )
    };
    let mod2 = |e: Expr| Expr::floormod(e, int(2));
    let (i0, i1, i2) = (var("i"), var("i"), var("i"));
    let (v1, v2, v3, v4, v5, v6, v7) =
        (var("cse_v1"), var("cse_v2"), var("cse_v3"), var("cse_v4"), var("cse_v5"), var("cse_v6"), var("cse_v7"));
    let prologue = unroll(
        &i0,
        2,
        seq(vec![
            if_(Expr::lt(ev(&i0), int(16)), stage0(ev(&i0), ev(&i0))),
            if_(
                Expr::and(Expr::eq(ev(&i0), int(1)), Expr::lt(ev(&i0) - int(1), int(16))),
                stage1(int(1), &v4, mod2(ev(&i0) + int(1))),
            ),
        ]),
    );
    let body = for_(
        &i1,
        14,
        let_(
            &v1,
            ev(&i1) + int(2),
            let_(
                &v2,
                mod2(ev(&i1)),
                seq(vec![
                    if_(Expr::lt(ev(&v1), int(16)), stage0(ev(&v2), ev(&v1))),
                    if_(Expr::lt(ev(&v1) - int(1), int(16)), stage1(int(1), &v5, mod2(ev(&i1) + int(1)))),
                    if_(
                        Expr::lt(ev(&v1) - int(2), int(16)),
                        chain(
                            &[(ASYNC_WAIT_QUEUE_SCOPE, int(1)), (ASYNC_WAIT_INFLIGHT_COUNT, int(1))],
                            store(&d1, vec![ev(&i1)], ld(&c, vec![ev(&v2)]) + fl(1.0)),
                        ),
                    ),
                ]),
            ),
        ),
    );
    let epilogue = unroll(
        &i2,
        2,
        let_(
            &v3,
            ev(&i2) + int(16),
            let_(
                &v6,
                ev(&v3) - int(1),
                seq(vec![
                    if_(Expr::lt(ev(&v6), int(16)), stage1(int(0) - ev(&i2), &v7, mod2(ev(&i2) + int(1)))),
                    if_(
                        Expr::lt(ev(&v3) - int(2), int(16)),
                        chain(
                            &[
                                (ASYNC_WAIT_QUEUE_SCOPE, int(1)),
                                (
                                    ASYNC_WAIT_INFLIGHT_COUNT,
                                    Expr::if_then_else(Expr::lt(ev(&v6), int(16)), int(1), int(0)),
                                ),
                            ],
                            store(&d1, vec![ev(&i2) + int(14)], ld(&c, vec![ev(&i2)]) + fl(1.0)),
                        ),
                    ),
                ]),
            ),
        ),
    );
    let body = decl(&a1, decl(&d1, alloc(&b, alloc(&c, seq(vec![prologue, body, epilogue])))));
    func(vec![&a, &d], vec![], body)
}

#[test]
fn tvm_printed_seed_b_runs_under_every_schedule() {
    let f = seed_b();
    let values: Vec<f64> = (0..16).map(|k| f64::from(k) * 0.25 - 2.0).collect();
    let ins = inputs(vec![("A", tensor_f32(&values)), ("D", tensor_f32(&[0.0; 16]))], vec![]);
    let expected: Vec<f64> = values.iter().map(|a| a * 2.0 + 3.0).collect();
    for schedule in SCHEDULES {
        let r = run_sched(&f, &ins, schedule);
        completed(&r);
        assert_eq!(out_f64(&r, "D"), expected, "{schedule}");
        assert_eq!(r.stats.commits, 32);
    }
}

#[test]
fn random_schedules_differ_in_timing_not_results() {
    let (f, ins) = rfc_pipeline(1, true);
    let histories: Vec<Outcome> = (0..8).map(|s| run_sched(&f, &ins, Schedule::Random(s)).outcome).collect();
    assert!(histories.iter().all(|o| *o == Outcome::Completed));
}

#[test]
fn random_schedule_lands_groups_between_commit_and_wait() {
    // A read right after the commit, before any wait: lazy always faults, eager never does,
    // and the random schedule does either, depending on the seed.
    let (a, c) = (buf("A", F32, &[1]), buf("C", F32, &[1]));
    let b = scoped("B", F32, &[1], "shared");
    let body = alloc(
        &b,
        seq(vec![
            commit(0, async_scope(store(&b, vec![int(0)], ld(&a, vec![int(0)])))),
            store(&c, vec![int(0)], fl(0.0)),
            store(&c, vec![int(0)], ld(&b, vec![int(0)])),
            wait(0, int(0), seq(vec![])),
        ]),
    );
    let f = func(vec![&a, &c], vec![], body);
    let ins = inputs(vec![("A", tensor_f32(&[1.0])), ("C", tensor_f32(&[0.0]))], vec![]);
    assert_eq!(fault_of(&run_lazy(&f, &ins)).kind, FaultKind::ReadPendingAsync);
    completed(&run_sched(&f, &ins, Schedule::Eager));
    let outcomes: Vec<bool> =
        (0..32).map(|s| run_sched(&f, &ins, Schedule::Random(s)).outcome == Outcome::Completed).collect();
    assert!(outcomes.iter().any(|ok| *ok) && outcomes.iter().any(|ok| !*ok), "{outcomes:?}");
}

/// `n` async stores to distinct elements of a shared buffer left uncommitted, or `n` empty
/// commits, never waited for:
/// ```text
/// 3  B = T.alloc_shared((n,))
/// 4  for i in range(n):
/// 5      commit(0): pass                       (empty_commits)
/// 6      async_scope: B[i] = A[0]              (otherwise)
/// ```
fn never_waited(n: i64, empty_commits: bool) -> tirproof_ir::PrimFunc {
    let a = buf("A", F32, &[1]);
    let b = scoped("B", F32, &[n], "shared");
    let i = var("i");
    let body = if empty_commits {
        at(5, commit(0, seq(vec![])))
    } else {
        at(6, async_scope(at(6, store(&b, vec![ev(&i)], ld(&a, vec![int(0)])))))
    };
    func(vec![&a], vec![], at(3, alloc(&b, at(4, for_(&i, n, body)))))
}

#[test]
fn async_stores_and_groups_in_flight_are_bounded_with_a_located_error() {
    use tirproof_machine::limit::{Limit, MAX_ASYNC_STORES_IN_FLIGHT, MAX_GROUPS_IN_FLIGHT};
    let ins = inputs(vec![("A", tensor_f32(&[1.0]))], vec![]);
    let cases = [
        (MAX_ASYNC_STORES_IN_FLIGHT, false, Limit::AsyncStoresInFlight, 6),
        (MAX_GROUPS_IN_FLIGHT, true, Limit::GroupsInFlight, 5),
    ];
    for (bound, empty_commits, limit, line) in cases {
        // At the bound the program runs (and faults where stores were never waited for; empty
        // groups in flight at the end are no fault).
        let at_bound = crate::run(&never_waited(bound as i64, empty_commits), &ins, &Default::default());
        match at_bound.map(|r| r.outcome) {
            Ok(Outcome::Completed) if empty_commits => {}
            Ok(Outcome::Fault(fault)) if !empty_commits => assert_eq!(fault.kind, FaultKind::UnwaitedGroup),
            other => panic!("{limit:?} at the bound: {other:?}"),
        }
        // One more is refused, at the statement that went past it, naming the bound.
        let past = crate::run(&never_waited(bound as i64 + 1, empty_commits), &ins, &Default::default());
        match past {
            Err(crate::ExecError::LimitExceeded { line: at, limit: hit }) => assert_eq!((at, hit), (line, limit)),
            other => panic!("{limit:?} past the bound: {:?}", other.map(|r| r.outcome)),
        }
        let message = crate::ExecError::LimitExceeded { line, limit }.to_string();
        assert!(message.starts_with(&format!("line {line}: ")) && message.contains(limit.name()), "{message}");
    }
}
