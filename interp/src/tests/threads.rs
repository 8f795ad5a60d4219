//! Blocks of threads: barriers, thread order, divergence, races (plain and async),
//! per-block shared storage, several axes, launches and blocks of blocks.

use super::build::*;
use crate::{run, FaultKind, Inputs, RunConfig, Schedule};
use tirproof_ir::expr::Expr;

fn config(seed: Option<u64>, schedule: Schedule) -> RunConfig {
    RunConfig { schedule, thread_order_seed: seed, ..RunConfig::default() }
}

fn ramp_inputs(n: usize, names: &[&str]) -> Inputs {
    let values: Vec<f64> = (0..n).map(|k| k as f64 + 1.0).collect();
    let mut buffers = vec![("A", tensor_f32(&values))];
    buffers.extend(names.iter().map(|name| (*name, tensor_f32(&vec![0.0; n]))));
    inputs(buffers, vec![])
}

/// ```text
/// 2 for tx in T.thread_binding(8, "threadIdx.x"):
/// 3     S = T.alloc_shared((8,))
/// 4     S[tx] = A[tx] * 2
/// 5     T.tvm_storage_sync("shared")          (optional)
/// 6     C[tx] = S[(tx + 1) % 8]
/// ```
fn neighbour_exchange(with_barrier: bool) -> tirproof_ir::PrimFunc {
    let (a, c) = (buf("A", F32, &[8]), buf("C", F32, &[8]));
    let s = scoped("S", F32, &[8], "shared");
    let tx = var("tx");
    let mut body = vec![at(4, store(&s, vec![ev(&tx)], ld(&a, vec![ev(&tx)]) * fl(2.0)))];
    if with_barrier {
        body.push(at(5, barrier()));
    }
    let next = Expr::floormod(ev(&tx) + int(1), int(8));
    body.push(at(6, store(&c, vec![ev(&tx)], ld(&s, vec![next]))));
    let block = at(2, for_thread(&tx, "threadIdx.x", 8, at(3, alloc(&s, seq(body)))));
    func(vec![&a, &c], vec![], block)
}

#[test]
fn race_free_blocks_give_one_result_for_every_thread_order() {
    let f = neighbour_exchange(true);
    let ins = ramp_inputs(8, &["C"]);
    let expected: Vec<f64> = (0..8).map(|k| f64::from((k + 1) % 8 + 1) * 2.0).collect();
    for seed in [None, Some(0), Some(1), Some(2), Some(99)] {
        let r = run(&f, &ins, &config(seed, Schedule::Lazy)).unwrap();
        completed(&r);
        assert_eq!(out_f64(&r, "C"), expected, "seed {seed:?}");
        assert_eq!(r.stats.barriers, 1);
        assert_eq!(r.stats.max_threads, 8);
    }
}

#[test]
fn a_missing_barrier_reads_unwritten_memory_in_every_order() {
    // Whichever thread runs first reads its neighbour's element before anyone wrote it.
    let f = neighbour_exchange(false);
    let ins = ramp_inputs(8, &["C"]);
    for seed in [None, Some(0), Some(5)] {
        let r = run(&f, &ins, &config(seed, Schedule::Lazy)).unwrap();
        assert_eq!(fault_of(&r).kind, FaultKind::ReadPoison);
    }
    let r = run(&f, &ins, &config(None, Schedule::Lazy)).unwrap();
    assert_eq!(
        fault_of(&r).to_string(),
        "line 6: read of S[1] (element 1), which was allocated but never written (threadIdx.x = 0)"
    );
}

#[test]
fn races_on_initialized_shared_memory() {
    // S is written by the launching code, so every thread can read it; thread 1 then reads
    // thread 0's write of this phase.
    let (a, c) = (buf("A", F32, &[4]), buf("C", F32, &[4]));
    let s = scoped("S", F32, &[4], "shared");
    let (k, tx) = (var("k"), var("tx"));
    let init = for_(&k, 4, store(&s, vec![ev(&k)], fl(0.0)));
    let prev = Expr::floormod(ev(&tx) + int(3), int(4));
    let block = at(
        2,
        for_thread(
            &tx,
            "threadIdx.x",
            4,
            seq(vec![
                at(4, store(&s, vec![ev(&tx)], ld(&a, vec![ev(&tx)]))),
                at(5, store(&c, vec![ev(&tx)], ld(&s, vec![prev]))),
            ]),
        ),
    );
    let f = func(vec![&a, &c], vec![], alloc(&s, seq(vec![init, block])));
    let r = run(&f, &ramp_inputs(4, &["C"]), &RunConfig::default()).unwrap();
    assert_eq!(
        fault_of(&r).to_string(),
        "line 5: cross-thread read without barrier: threadIdx.x = 1 reads S[0] (element 0), written by threadIdx.x = 0 at line 4 with no barrier in between (threadIdx.x = 1)"
    );
}

/// Each thread copies A[tx] into S[tx] asynchronously, waits, and (optionally after a
/// barrier) reads its neighbour's element.
fn async_exchange(barrier_after_wait: bool, wait_before_read: bool) -> tirproof_ir::PrimFunc {
    let (a, c) = (buf("A", F32, &[4]), buf("C", F32, &[4]));
    let s = scoped("S", F32, &[4], "shared");
    let (k, tx) = (var("k"), var("tx"));
    let init = for_(&k, 4, store(&s, vec![ev(&k)], fl(0.0)));
    let next = Expr::floormod(ev(&tx) + int(3), int(4));
    let copy = at(3, commit(0, async_scope(at(4, store(&s, vec![ev(&tx)], ld(&a, vec![ev(&tx)]))))));
    let read = at(7, store(&c, vec![ev(&tx)], ld(&s, vec![next])));
    let mut body = vec![copy];
    if wait_before_read {
        body.push(at(5, wait(0, int(0), seq(vec![]))));
    }
    if barrier_after_wait {
        body.push(at(6, barrier()));
    }
    body.push(read);
    if !wait_before_read {
        body.push(at(8, wait(0, int(0), seq(vec![]))));
    }
    let block = at(2, for_thread(&tx, "threadIdx.x", 4, seq(body)));
    func(vec![&a, &c], vec![], alloc(&s, seq(vec![init, block])))
}

#[test]
fn async_data_is_visible_to_other_threads_after_wait_and_barrier() {
    let f = async_exchange(true, true);
    let ins = ramp_inputs(4, &["C"]);
    for schedule in [Schedule::Lazy, Schedule::Eager, Schedule::Random(5)] {
        for seed in [None, Some(3)] {
            let r = run(&f, &ins, &config(seed, schedule)).unwrap();
            completed(&r);
            assert_eq!(out_f64(&r, "C"), vec![4.0, 1.0, 2.0, 3.0]);
        }
    }
}

#[test]
fn async_data_without_barrier_after_the_wait_is_a_race() {
    let f = async_exchange(false, true);
    let r = run(&f, &ramp_inputs(4, &["C"]), &config(None, Schedule::Eager)).unwrap();
    assert_eq!(fault_of(&r).kind, FaultKind::CrossThreadRace);
    assert_eq!(
        fault_of(&r).message,
        "cross-thread read without wait and barrier: threadIdx.x = 1 reads S[0] (element 0), written asynchronously by threadIdx.x = 0 at line 4 (group 0 of queue 0), and no barrier separates that thread's wait from this read"
    );
}

#[test]
fn async_data_read_before_the_writer_waits_is_a_race_even_when_landed() {
    // Under eager the copy has landed, but thread 0 has not waited for it yet.
    let f = async_exchange(true, false);
    let r = run(&f, &ramp_inputs(4, &["C"]), &config(None, Schedule::Eager)).unwrap();
    assert_eq!(fault_of(&r).kind, FaultKind::CrossThreadRace);
    assert!(fault_of(&r).message.ends_with("(group 0 of queue 0), which that thread has not waited for"));
    // Under lazy it has not even landed.
    let r = run(&f, &ramp_inputs(4, &["C"]), &config(None, Schedule::Lazy)).unwrap();
    assert_eq!(fault_of(&r).kind, FaultKind::ReadPendingAsync);
    assert_eq!(
        fault_of(&r).to_string(),
        "line 7: read of S[3] (element 3) while an async write to it is pending by threadIdx.x = 3 (group 0 of queue 0, committed at line 3) (threadIdx.x = 0)"
    );
}

#[test]
fn divergent_barriers_fault() {
    let c = buf("C", F32, &[4]);
    let tx = var("tx");
    let body = at(
        2,
        for_thread(
            &tx,
            "threadIdx.x",
            4,
            seq(vec![
                at(3, if_(Expr::lt(ev(&tx), int(2)), at(4, barrier()))),
                at(5, store(&c, vec![ev(&tx)], fl(1.0))),
            ]),
        ),
    );
    let f = func(vec![&c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("C", tensor_f32(&[0.0; 4]))], vec![]));
    assert_eq!(fault_of(&r).kind, FaultKind::BarrierDivergence);
    assert_eq!(
        fault_of(&r).to_string(),
        "line 4: barrier divergence: threadIdx.x = 0 is at the barrier on line 4 but threadIdx.x = 2 has reached the end of the thread block (threadIdx.x = 0)"
    );

    // Two different barriers.
    let body = for_thread(
        &tx,
        "threadIdx.x",
        2,
        seq(vec![
            tirproof_ir::stmt::Stmt::synthetic(tirproof_ir::stmt::StmtKind::If {
                cond: Expr::eq(ev(&tx), int(0)),
                then_case: Box::new(at(4, barrier())),
                else_case: Some(Box::new(at(6, barrier()))),
            }),
            store(&c, vec![ev(&tx)], fl(1.0)),
        ]),
    );
    let f = func(vec![&c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("C", tensor_f32(&[0.0; 4]))], vec![]));
    assert!(fault_of(&r).message.ends_with("threadIdx.x = 1 is at the barrier on line 6"));
}

#[test]
fn unwaited_groups_at_the_end_of_a_block() {
    let (a, c) = (buf("A", F32, &[4]), buf("C", F32, &[4]));
    let tx = var("tx");
    let body = for_thread(
        &tx,
        "threadIdx.x",
        4,
        at(3, commit(2, async_scope(store(&c, vec![ev(&tx)], ld(&a, vec![ev(&tx)]))))),
    );
    let f = func(vec![&a, &c], vec![], body);
    let r = run_lazy(&f, &ramp_inputs(4, &["C"]));
    assert_eq!(
        fault_of(&r).to_string(),
        "line 3: async group never waited: group 0 of queue 2 (committed at line 3) is still in flight when the thread block ends, \
         holding its async store (threadIdx.x = 0)"
    );
    assert_eq!(out_f64(&r, "C"), vec![1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn seed_a_tx_pipeline_per_thread_columns() {
    // corpus/tvm/seed_a_tx_after_flatten_cse.py: 32 threads, each pipelining its
    // own column through a double-buffered shared B, with launch_thread.
    let (a, c) = (buf("A", F32, &[16, 32]), buf("C", F32, &[16, 32]));
    let (a1, c1) = (alias(&a, "A_1", F32, &[512]), alias(&c, "C_1", F32, &[512]));
    let b = scoped("B", F32, &[64], "shared");
    let (tx, i, v1, v2) = (var("tx"), var("i"), var("cse_v1"), var("cse_v2"));
    let prologue = commit(0, async_scope(store(&b, vec![ev(&tx)], ld(&a1, vec![ev(&tx)]) * fl(2.0))));
    let produce = if_(
        Expr::lt(ev(&v1), int(16)),
        commit(
            0,
            async_scope(store(
                &b,
                vec![Expr::floormod(ev(&v1), int(2)) * int(32) + ev(&tx)],
                ld(&a1, vec![ev(&v2) + int(32)]) * fl(2.0),
            )),
        ),
    );
    let consume = if_(
        Expr::lt(ev(&v1) - int(1), int(16)),
        wait(
            0,
            int(1),
            store(&c1, vec![ev(&v2)], ld(&b, vec![Expr::floormod(ev(&i), int(2)) * int(32) + ev(&tx)]) + fl(1.0)),
        ),
    );
    let body_loop =
        for_(&i, 15, let_(&v1, ev(&i) + int(1), let_(&v2, ev(&i) * int(32) + ev(&tx), seq(vec![produce, consume]))));
    let epilogue = wait(0, int(0), store(&c1, vec![ev(&tx) + int(480)], ld(&b, vec![ev(&tx) + int(32)]) + fl(1.0)));
    let kernel = launch(&tx, "threadIdx.x", 32, alloc(&b, seq(vec![prologue, body_loop, epilogue])));
    let f = func(vec![&a, &c], vec![], decl(&a1, decl(&c1, kernel)));
    let values: Vec<f64> = (0..512).map(|k| f64::from(k % 37) * 0.5).collect();
    let ins = inputs(
        vec![("A", tensor_of(F32, vec![16, 32], &values)), ("C", tensor_of(F32, vec![16, 32], &[0.0; 512]))],
        vec![],
    );
    let expected: Vec<f64> = values.iter().map(|v| v * 2.0 + 1.0).collect();
    for (seed, schedule) in [(None, Schedule::Lazy), (Some(4), Schedule::Eager), (Some(8), Schedule::Random(2))] {
        let r = run(&f, &ins, &config(seed, schedule)).unwrap();
        completed(&r);
        assert_eq!(out_f64(&r, "C"), expected);
        assert_eq!(r.stats.max_threads, 32);
    }
}

#[test]
fn two_axes_and_blocks_of_blocks() {
    // for bx in blockIdx.x(2): for ty in threadIdx.y(2): for tx in threadIdx.x(3):
    //     C[bx, ty, tx] = bx * 100 + ty * 10 + tx
    let c = buf("C", I32, &[2, 2, 3]);
    let (bx, ty, tx) = (var("bx"), var("ty"), var("tx"));
    let value = ev(&bx) * int(100) + ev(&ty) * int(10) + ev(&tx);
    let body = for_thread(
        &bx,
        "blockIdx.x",
        2,
        for_thread(
            &ty,
            "threadIdx.y",
            2,
            for_thread(&tx, "threadIdx.x", 3, store(&c, vec![ev(&bx), ev(&ty), ev(&tx)], value)),
        ),
    );
    let f = func(vec![&c], vec![], body);
    let ins = inputs(vec![("C", tensor_of(I32, vec![2, 2, 3], &[0.0; 12]))], vec![]);
    let r = run(&f, &ins, &config(Some(1), Schedule::Lazy)).unwrap();
    completed(&r);
    assert_eq!(r.outputs["C"].to_i64_vec(), vec![0, 1, 2, 10, 11, 12, 100, 101, 102, 110, 111, 112]);
    assert_eq!(r.stats.max_threads, 6);
}

#[test]
fn thread_faults_name_block_and_thread() {
    let c = buf("C", I32, &[2, 2]);
    let (bx, tx) = (var("bx"), var("tx"));
    let body = launch(
        &bx,
        "blockIdx.x",
        2,
        // Block 1's thread 1 writes C[1, 2]; in block 0 each thread writes its own element.
        launch(&tx, "threadIdx.x", 2, at(4, store(&c, vec![ev(&bx), ev(&tx) * (ev(&bx) + int(1))], int(1)))),
    );
    let f = func(vec![&c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("C", tensor_of(I32, vec![2, 2], &[0.0; 4]))], vec![]));
    assert_eq!(
        fault_of(&r).to_string(),
        "line 4: out-of-bounds write of C[1, 2] (shape [2, 2]) (threadIdx.x = 1, blockIdx.x = 1)"
    );
}

#[test]
fn shared_allocations_are_one_per_block_and_local_ones_per_thread() {
    // Thread 0 fills shared S; after a barrier every thread reads it. A local L per thread.
    let c = buf("C", F32, &[4]);
    let s = scoped("S", F32, &[1], "shared");
    let l = scoped("L", F32, &[1], "local");
    let tx = var("tx");
    let body = for_thread(
        &tx,
        "threadIdx.x",
        4,
        alloc(
            &s,
            alloc(
                &l,
                seq(vec![
                    if_(Expr::eq(ev(&tx), int(0)), store(&s, vec![int(0)], fl(5.0))),
                    store(&l, vec![int(0)], Expr::cast(F32, ev(&tx))),
                    barrier(),
                    store(&c, vec![ev(&tx)], ld(&s, vec![int(0)]) + ld(&l, vec![int(0)])),
                ]),
            ),
        ),
    );
    let f = func(vec![&c], vec![], body);
    for seed in [None, Some(7)] {
        let r = run(&f, &inputs(vec![("C", tensor_f32(&[0.0; 4]))], vec![]), &config(seed, Schedule::Lazy)).unwrap();
        completed(&r);
        assert_eq!(out_f64(&r, "C"), vec![5.0, 6.0, 7.0, 8.0]);
    }
}

#[test]
fn barriers_inside_loops() {
    // Two threads ping-pong through shared memory for three rounds.
    let c = buf("C", F32, &[2]);
    let s = scoped("S", F32, &[2], "shared");
    let (tx, r) = (var("tx"), var("r"));
    let other = int(1) - ev(&tx);
    let round = seq(vec![
        store(&s, vec![ev(&tx)], ld(&c, vec![ev(&tx)]) + fl(1.0)),
        barrier(),
        store(&c, vec![ev(&tx)], ld(&s, vec![other])),
        barrier(),
    ]);
    let body = for_thread(&tx, "threadIdx.x", 2, alloc(&s, for_(&r, 3, round)));
    let f = func(vec![&c], vec![], body);
    let r = run_lazy(&f, &inputs(vec![("C", tensor_f32(&[0.0, 10.0]))], vec![]));
    completed(&r);
    assert_eq!(out_f64(&r, "C"), vec![13.0, 3.0]);
    assert_eq!(r.stats.barriers, 6);
}

#[test]
fn oversized_blocks_are_a_resource_error() {
    let c = buf("C", F32, &[1]);
    let (tx, ty, tz) = (var("tx"), var("ty"), var("tz"));
    let huge = i64::from(i32::MAX);
    let body = for_thread(
        &tz,
        "threadIdx.z",
        huge,
        for_thread(&ty, "threadIdx.y", huge, for_thread(&tx, "threadIdx.x", huge, store(&c, vec![int(0)], fl(1.0)))),
    );
    let f = func(vec![&c], vec![], body);
    let err = run(&f, &inputs(vec![("C", tensor_f32(&[0.0]))], vec![]), &RunConfig::default()).unwrap_err();
    assert!(matches!(err, crate::ExecError::ResourceLimit(_)), "{err}");
}

/// An S-TIR block with optional `T.where` and `T.attr({...})` integer annotations.
fn sblock(
    predicate: Option<Expr>,
    attrs: &[(&str, i64)],
    allocs: Vec<tirproof_ir::Buffer>,
    body: tirproof_ir::stmt::Stmt,
) -> tirproof_ir::stmt::Stmt {
    let mut annotations = tirproof_ir::annotation::Annotations::new();
    for (k, v) in attrs {
        annotations.insert(*k, tirproof_ir::annotation::AnnValue::Int(*v));
    }
    tirproof_ir::stmt::Stmt::synthetic(tirproof_ir::stmt::StmtKind::Block(Box::new(tirproof_ir::stmt::Block {
        name: String::new(),
        iter_vars: Vec::new(),
        predicate,
        reads: None,
        writes: None,
        annotations,
        alloc_buffers: allocs
            .into_iter()
            .map(|buffer| tirproof_ir::stmt::BlockAlloc { buffer, annotations: Default::default() })
            .collect(),
        init: None,
        body,
    })))
}

#[test]
fn seed_a_tx_after_pipeline_with_block_annotations() {
    // corpus/tvm/seed_a_tx_after_pipeline.py: the async chains are block
    // annotations (`T.attr({"async_commit_queue_scope": 0, "async_scope": 1})`).
    use tirproof_ir::annotation::{ASYNC_COMMIT_QUEUE_SCOPE as COMMIT, ASYNC_SCOPE as SCOPE};
    use tirproof_ir::annotation::{ASYNC_WAIT_INFLIGHT_COUNT as COUNT, ASYNC_WAIT_QUEUE_SCOPE as WAIT};
    let (a, c) = (buf("A", F32, &[16, 32]), buf("C", F32, &[16, 32]));
    let b = scoped("B", F32, &[2, 1, 32], "shared");
    let (tx, i) = (var("tx"), var("i"));
    let fm = |e: Expr| Expr::floormod(e, int(2));
    let prologue = sblock(
        None,
        &[(COMMIT, 0), (SCOPE, 1)],
        vec![],
        store(&b, vec![fm(int(0)), int(0), ev(&tx)], ld(&a, vec![int(0), ev(&tx)]) * fl(2.0)),
    );
    let produce = sblock(
        Some(Expr::lt(ev(&i) + int(1), int(16))),
        &[(COMMIT, 0), (SCOPE, 1)],
        vec![],
        store(&b, vec![fm(ev(&i) + int(1)), int(0), ev(&tx)], ld(&a, vec![ev(&i) + int(1), ev(&tx)]) * fl(2.0)),
    );
    let consume = sblock(
        Some(Expr::lt(ev(&i) + int(1) - int(1), int(16))),
        &[(WAIT, 0), (COUNT, 1)],
        vec![],
        store(
            &c,
            vec![ev(&i) - int(1) + int(1), ev(&tx)],
            ld(&b, vec![fm(ev(&i) - int(1) + int(1)), int(0), ev(&tx)]) + fl(1.0),
        ),
    );
    let body = sblock(None, &[], vec![], for_(&i, 15, seq(vec![produce, consume])));
    let epilogue = sblock(
        None,
        &[(WAIT, 0), (COUNT, 0)],
        vec![],
        store(&c, vec![int(15), ev(&tx)], ld(&b, vec![fm(int(15)), int(0), ev(&tx)]) + fl(1.0)),
    );
    let kernel =
        for_thread(&tx, "threadIdx.x", 32, sblock(None, &[], vec![b.clone()], seq(vec![prologue, body, epilogue])));
    let f = func(vec![&a, &c], vec![], kernel);
    let values: Vec<f64> = (0..512).map(|k| f64::from(k % 19) - 4.0).collect();
    let ins = inputs(
        vec![("A", tensor_of(F32, vec![16, 32], &values)), ("C", tensor_of(F32, vec![16, 32], &[0.0; 512]))],
        vec![],
    );
    let expected: Vec<f64> = values.iter().map(|v| v * 2.0 + 1.0).collect();
    for (seed, schedule) in [(None, Schedule::Lazy), (Some(1), Schedule::Eager), (Some(2), Schedule::Random(9))] {
        let r = run(&f, &ins, &config(seed, schedule)).unwrap();
        completed(&r);
        assert_eq!(out_f64(&r, "C"), expected);
        assert_eq!(r.stats.commits, 16 * 32);
    }
}
