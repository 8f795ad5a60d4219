//! Races between threads of a block and between blocks of a kernel (docs/async-semantics.md,
//! "Hazards"): every pair of access kinds (read, write, asynchronous write waited at once)
//! under every relation between the two accessors, each racy case beside a clean twin, under
//! every schedule and several thread orders; the messages; what orders accesses (barriers,
//! waits, launches, the code around a block of threads) and what is never tracked.

use super::build::*;
use crate::{run, FaultKind, Inputs, RunConfig, RunResult, Schedule};
use tirproof_ir::expr::Expr;
use tirproof_ir::stmt::Stmt;
use tirproof_ir::{Buffer, PrimFunc, Var};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    /// Issued, committed and waited for at once by its own thread.
    AsyncWrite,
}

const KINDS: [Kind; 3] = [Kind::Read, Kind::Write, Kind::AsyncWrite];

/// How the second access's thread relates to the first's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Relation {
    /// The same thread of a block of two, a barrier in between.
    SameThread,
    /// The other thread of a block of two, a barrier in between.
    OtherThreadBarrier,
    /// The other thread of a block of two, in the same phase.
    OtherThreadNoBarrier,
    /// A thread of the other block of a kernel of two blocks of two threads, a
    /// `tvm_storage_sync` in between (which orders nothing between blocks).
    OtherBlock,
    /// The other block of a kernel of two blocks without `threadIdx` bindings.
    OtherBlockOneThread,
    /// The next kernel launch (a second `blockIdx` binding after the first).
    NextLaunch,
}

const RELATIONS: [Relation; 6] = [
    Relation::SameThread,
    Relation::OtherThreadBarrier,
    Relation::OtherThreadNoBarrier,
    Relation::OtherBlock,
    Relation::OtherBlockOneThread,
    Relation::NextLaunch,
];

const FIRST_LINE: u32 = 10;
const SECOND_LINE: u32 = 20;

/// The buffers of every case: `G` is the contended location (global and initialized, so
/// reads never see poison), `A` supplies written values, `C` receives read values.
struct Buffers {
    g: Buffer,
    a: Buffer,
    c: Buffer,
}

impl Buffers {
    fn new() -> Buffers {
        Buffers { g: buf("G", F32, &[4]), a: buf("A", F32, &[4]), c: buf("C", F32, &[4]) }
    }

    fn inputs(&self) -> Inputs {
        let ramp = tensor_f32(&[1.0, 2.0, 3.0, 4.0]);
        inputs(vec![("G", ramp.clone()), ("A", ramp), ("C", tensor_f32(&[0.0; 4]))], vec![])
    }

    /// Access number `n` (0 or 1) of `kind` to `G[0]` on `line`.
    fn access(&self, kind: Kind, n: i64, line: u32) -> Stmt {
        let write = || at(line, store(&self.g, vec![int(0)], ld(&self.a, vec![int(n)])));
        match kind {
            Kind::Read => at(line, store(&self.c, vec![int(n)], ld(&self.g, vec![int(0)]))),
            Kind::Write => write(),
            Kind::AsyncWrite => {
                seq(vec![at(line, commit(0, async_scope(write()))), at(line, wait(0, int(0), seq(vec![])))])
            }
        }
    }

    fn func(&self, body: Stmt) -> PrimFunc {
        func(vec![&self.g, &self.a, &self.c], vec![], body)
    }
}

fn is(v: &tirproof_ir::Var, value: i64) -> Expr {
    Expr::eq(ev(v), int(value))
}

/// The program in which `first` and then `second` access `G[0]` in `relation`.
fn program(first: Kind, second: Kind, relation: Relation) -> PrimFunc {
    let b = Buffers::new();
    let (tx, bx, bx2) = (var("tx"), var("bx"), var("bx2"));
    let one = b.access(first, 0, FIRST_LINE);
    let two = b.access(second, 1, SECOND_LINE);
    let block_of_two = |first_if: Expr, second_if: Expr, barrier_between: bool| {
        let mut body = vec![if_(first_if, one.clone())];
        if barrier_between {
            body.push(at(15, barrier()));
        }
        body.push(if_(second_if, two.clone()));
        for_thread(&tx, "threadIdx.x", 2, seq(body))
    };
    let body = match relation {
        Relation::SameThread => block_of_two(is(&tx, 0), is(&tx, 0), true),
        Relation::OtherThreadBarrier => block_of_two(is(&tx, 0), is(&tx, 1), true),
        Relation::OtherThreadNoBarrier => block_of_two(is(&tx, 0), is(&tx, 1), false),
        Relation::OtherBlock => for_thread(
            &bx,
            "blockIdx.x",
            2,
            block_of_two(Expr::and(is(&bx, 0), is(&tx, 0)), Expr::and(is(&bx, 1), is(&tx, 1)), true),
        ),
        Relation::OtherBlockOneThread => {
            for_thread(&bx, "blockIdx.x", 2, seq(vec![if_(is(&bx, 0), one), if_(is(&bx, 1), two)]))
        }
        Relation::NextLaunch => {
            seq(vec![for_thread(&bx, "blockIdx.x", 1, one), for_thread(&bx2, "blockIdx.x", 1, two)])
        }
    };
    b.func(body)
}

/// The fault every run of the pair must end in, `None` for a clean pair.
fn expected(first: Kind, second: Kind, relation: Relation) -> Option<FaultKind> {
    let writes = first != Kind::Read || second != Kind::Read;
    match relation {
        Relation::OtherThreadNoBarrier if writes => Some(FaultKind::CrossThreadRace),
        Relation::OtherBlock | Relation::OtherBlockOneThread if writes => Some(FaultKind::CrossBlockRace),
        _ => None,
    }
}

const SCHEDULES: [Schedule; 4] = [Schedule::Lazy, Schedule::Eager, Schedule::Random(1), Schedule::Random(7)];
const ORDERS: [Option<u64>; 5] = [None, Some(0), Some(1), Some(2), Some(3)];

fn run_with(f: &PrimFunc, ins: &Inputs, schedule: Schedule, order: Option<u64>) -> RunResult {
    let config = RunConfig { schedule, thread_order_seed: order, ..RunConfig::default() };
    run(f, ins, &config).expect("the interpreter runs the program")
}

#[test]
fn every_pair_of_accesses_races_exactly_when_nothing_orders_it() {
    let ins = Buffers::new().inputs();
    let mut wrong = Vec::new();
    for first in KINDS {
        for second in KINDS {
            for relation in RELATIONS {
                let f = program(first, second, relation);
                let want = expected(first, second, relation);
                for schedule in SCHEDULES {
                    for order in ORDERS {
                        let got = run_with(&f, &ins, schedule, order).outcome.fault().map(|fault| fault.kind);
                        if got != want {
                            wrong.push(format!(
                                "{first:?} then {second:?}, {relation:?}, {schedule}, order {order:?}: {got:?}, expected {want:?}"
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{} runs wrong:\n{}", wrong.len(), wrong.join("\n"));
}

/// The fault of the pair under the lazy schedule and thread order `order`, as printed.
fn message(first: Kind, second: Kind, relation: Relation, order: Option<u64>) -> String {
    let r = run_with(&program(first, second, relation), &Buffers::new().inputs(), Schedule::Lazy, order);
    fault_of(&r).to_string()
}

/// The first seed whose first phase runs thread 1 before thread 0.
fn reversed_order() -> Option<u64> {
    let f = program(Kind::Read, Kind::Write, Relation::OtherThreadNoBarrier);
    let ins = Buffers::new().inputs();
    (0..64)
        .map(Some)
        .find(|&seed| {
            let r = run_with(&f, &ins, Schedule::Lazy, seed);
            r.outcome.fault().is_some_and(|fault| fault.thread == vec![("threadIdx.x".to_string(), 0)])
        })
        .flatten()
}

#[test]
fn races_name_both_accesses_in_either_order() {
    use Kind::*;
    use Relation::*;
    let reversed = reversed_order();
    assert!(reversed.is_some());
    let cases = [
        (Read, Write, OtherThreadNoBarrier, None, "line 20: cross-thread write without barrier: threadIdx.x = 1 writes G[0] (element 0), read by threadIdx.x = 0 at line 10 with no barrier in between (threadIdx.x = 1)"),
        (Read, Write, OtherThreadNoBarrier, reversed, "line 10: cross-thread read without barrier: threadIdx.x = 0 reads G[0] (element 0), written by threadIdx.x = 1 at line 20 with no barrier in between (threadIdx.x = 0)"),
        (Write, AsyncWrite, OtherThreadNoBarrier, None, "line 20: cross-thread write without barrier: threadIdx.x = 1 writes G[0] (element 0) asynchronously, also written by threadIdx.x = 0 at line 10 with no barrier in between (threadIdx.x = 1)"),
        // The asynchronous write landed and was waited for, but no barrier follows the wait.
        (AsyncWrite, Read, OtherThreadNoBarrier, None, "line 20: cross-thread read without wait and barrier: threadIdx.x = 1 reads G[0] (element 0), written asynchronously by threadIdx.x = 0 at line 10 (group 0 of queue 0), and no barrier separates that thread's wait from this read (threadIdx.x = 1)"),
        (AsyncWrite, Write, OtherThreadNoBarrier, reversed, "line 10: cross-thread write without barrier: threadIdx.x = 0 writes G[0] (element 0) asynchronously, also written by threadIdx.x = 1 at line 20 with no barrier in between (threadIdx.x = 0)"),
        (Read, Write, OtherBlock, None, "line 20: cross-block race: blockIdx.x = 1 writes G[0] (element 0), read by blockIdx.x = 0 at line 10; nothing orders the blocks of one kernel (threadIdx.x = 1, blockIdx.x = 1)"),
        (AsyncWrite, Read, OtherBlockOneThread, None, "line 20: cross-block race: blockIdx.x = 1 reads G[0] (element 0), written asynchronously by blockIdx.x = 0 at line 10 (group 0 of queue 0); nothing orders the blocks of one kernel (blockIdx.x = 1)"),
    ];
    for (first, second, relation, order, expected) in cases {
        assert_eq!(message(first, second, relation, order), expected);
    }
}

#[test]
fn an_async_write_not_yet_waited_races_with_every_later_phase() {
    // Thread 0 issues at line 10 and waits only after three barriers; thread 1 reads after
    // two, whichever thread runs first in that phase.
    let b = Buffers::new();
    let tx = var("tx");
    let issue = at(FIRST_LINE, commit(0, async_scope(at(FIRST_LINE, store(&b.g, vec![int(0)], fl(9.0))))));
    let body = for_thread(
        &tx,
        "threadIdx.x",
        2,
        seq(vec![
            if_(is(&tx, 0), issue),
            at(11, barrier()),
            at(12, barrier()),
            if_(is(&tx, 1), at(SECOND_LINE, store(&b.c, vec![int(1)], ld(&b.g, vec![int(0)])))),
            at(13, barrier()),
            if_(is(&tx, 0), at(21, wait(0, int(0), seq(vec![])))),
        ]),
    );
    let f = b.func(body);
    for schedule in [Schedule::Eager, Schedule::Random(3)] {
        for order in ORDERS {
            let r = run_with(&f, &b.inputs(), schedule, order);
            assert!(
                fault_of(&r).message.ends_with("(group 0 of queue 0), which that thread has not waited for"),
                "{}",
                fault_of(&r)
            );
        }
    }
    // Under lazy the copy is still in flight.
    let r = run_with(&f, &b.inputs(), Schedule::Lazy, None);
    assert_eq!(fault_of(&r).kind, FaultKind::ReadPendingAsync);
}

#[test]
fn several_readers_are_remembered_for_a_writer_among_them() {
    // Threads 0, 1 and 2 read G[0] in one phase; then thread 0 writes it.
    let b = Buffers::new();
    let tx = var("tx");
    let body = for_thread(
        &tx,
        "threadIdx.x",
        3,
        seq(vec![
            at(FIRST_LINE, store(&b.c, vec![ev(&tx)], ld(&b.g, vec![int(0)]))),
            if_(is(&tx, 0), at(SECOND_LINE, store(&b.g, vec![int(0)], fl(5.0)))),
        ]),
    );
    let f = b.func(body);
    for order in ORDERS {
        let r = run_with(&f, &b.inputs(), Schedule::Lazy, order);
        assert_eq!(fault_of(&r).kind, FaultKind::CrossThreadRace, "order {order:?}");
    }
}

#[test]
fn block_level_code_runs_in_every_thread() {
    // In each block, the code outside its `threadIdx.x` loop fills shared S before the loop
    // reads it. Every thread of the block executes that store (as in the kernel TVM
    // generates), with no barrier between it and the loop: both threads storing the one
    // value `A[bx]` into `S[0]` is a redundant store by every thread.
    let b = Buffers::new();
    let s = scoped("S", F32, &[1], "shared");
    let (bx, tx) = (var("bx"), var("tx"));
    let threads = for_thread(
        &tx,
        "threadIdx.x",
        2,
        store(&b.c, vec![ev(&bx) * int(2) + ev(&tx)], ld(&s, vec![int(0)]) + ld(&b.a, vec![ev(&tx)])),
    );
    let block = alloc(&s, seq(vec![at(5, store(&s, vec![int(0)], ld(&b.a, vec![ev(&bx)]))), threads]));
    let f = b.func(for_thread(&bx, "blockIdx.x", 2, block));
    for order in ORDERS {
        let r = run_with(&f, &b.inputs(), Schedule::Lazy, order);
        let fault = fault_of(&r);
        assert_eq!(fault.kind, FaultKind::RedundantStore, "order {order:?}");
        assert!(fault.message.starts_with("redundant store by every thread: threadIdx.x = "), "{}", fault.message);
        assert!(fault.message.contains("at line 5 with no barrier in between"), "{}", fault.message);
        assert!(fault.thread.contains(&("blockIdx.x".to_string(), 0)), "{fault:?}");
        assert!(fault.thread.iter().any(|(tag, _)| tag == "threadIdx.x"), "{fault:?}");
    }
}

/// One block of two threads (a kernel of one block): a first `threadIdx.x` loop stores
/// `value(tx)` into `G[index(tx)]`, a second loop (of `extent` threads) reads `G[1 - t2]` into
/// `C[t2]`, with a barrier between them when `sync` (at block level, which every thread
/// reaches; TVM's ThreadSync puts it at the start of the second loop).
fn sibling_scopes(b: &Buffers, index: Expr, value: Expr, tx: &Var, sync: bool, extent: i64) -> PrimFunc {
    let t2 = var("t2");
    let read = for_thread(&t2, "threadIdx.x", extent, store(&b.c, vec![ev(&t2)], ld(&b.g, vec![int(1) - ev(&t2)])));
    let mut body = vec![for_thread(tx, "threadIdx.x", 2, store(&b.g, vec![index], value))];
    if sync {
        body.push(barrier());
    }
    body.push(read);
    b.func(for_thread(&var("bx"), "blockIdx.x", 1, seq(body)))
}

#[test]
fn sibling_thread_scopes_are_the_same_threads_with_no_barrier_between() {
    let b = Buffers::new();
    let tx = var("tx");
    let exchange = |sync| sibling_scopes(&b, ev(&tx), ld(&b.a, vec![ev(&tx)]), &tx, sync, 2);
    for order in ORDERS {
        // The second scope reads what the other thread wrote in the first: nothing orders them.
        let r = run_with(&exchange(false), &b.inputs(), Schedule::Lazy, order);
        assert_eq!(fault_of(&r).kind, FaultKind::CrossThreadRace, "order {order:?}");
        // `T.tvm_storage_sync("shared")` at the start of the second scope (what TVM's ThreadSync
        // inserts) orders them.
        let r = run_with(&exchange(true), &b.inputs(), Schedule::Lazy, order);
        completed(&r);
        assert_eq!(out_f64(&r, "C")[..2], [2.0, 1.0]);
    }
}

#[test]
fn one_element_stored_by_every_thread_is_redundant_with_one_value_and_a_race_with_two() {
    let b = Buffers::new();
    let tx = var("tx");
    for order in ORDERS {
        let same = sibling_scopes(&b, int(0), ld(&b.a, vec![int(0)]), &tx, true, 2);
        let r = run_with(&same, &b.inputs(), Schedule::Lazy, order);
        assert_eq!(fault_of(&r).kind, FaultKind::RedundantStore, "order {order:?}");
        let different = sibling_scopes(&b, int(0), ld(&b.a, vec![ev(&tx)]), &tx, true, 2);
        let r = run_with(&different, &b.inputs(), Schedule::Lazy, order);
        assert_eq!(fault_of(&r).kind, FaultKind::CrossThreadRace, "order {order:?}");
    }
}

#[test]
fn a_thread_scope_smaller_than_the_block_runs_in_the_threads_below_its_extent() {
    // The second scope binds one thread of the block's two: only thread 0 reads (`G[1]`).
    let b = Buffers::new();
    let tx = var("tx");
    let f = sibling_scopes(&b, ev(&tx), ld(&b.a, vec![ev(&tx)]), &tx, true, 1);
    let r = run_with(&f, &b.inputs(), Schedule::Lazy, None);
    completed(&r);
    let c = out_f64(&r, "C");
    assert_eq!(c, vec![2.0, 0.0, 0.0, 0.0]);
}

#[test]
fn shared_memory_is_per_block_wherever_it_is_allocated() {
    // Every block exchanges through its own S at the same indices; S is allocated inside the
    // threads, or once around the grid (as in an S-TIR root block), which still gives every
    // block its own copy on a GPU.
    let b = Buffers::new();
    let s = scoped("S", F32, &[2], "shared");
    let (bx, tx) = (var("bx"), var("tx"));
    let exchange = seq(vec![
        store(&s, vec![ev(&tx)], ld(&b.a, vec![ev(&bx) * int(2) + ev(&tx)])),
        barrier(),
        store(&b.c, vec![ev(&bx) * int(2) + ev(&tx)], ld(&s, vec![int(1) - ev(&tx)])),
        barrier(),
    ]);
    let grid = |body: Stmt| for_thread(&bx, "blockIdx.x", 2, for_thread(&tx, "threadIdx.x", 2, body));
    for body in [grid(alloc(&s, exchange.clone())), alloc(&s, grid(exchange))] {
        let f = b.func(body);
        for order in ORDERS {
            let r = run_with(&f, &b.inputs(), Schedule::Random(2), order);
            completed(&r);
            assert_eq!(out_f64(&r, "C"), vec![2.0, 1.0, 4.0, 3.0]);
        }
    }
}

#[test]
fn local_storage_is_never_tracked() {
    // One "local" allocation outside the threads: each thread's registers, never a race.
    let b = Buffers::new();
    let l = scoped("L", F32, &[1], "local");
    let tx = var("tx");
    let body = alloc(
        &l,
        for_thread(
            &tx,
            "threadIdx.x",
            2,
            seq(vec![
                store(&l, vec![int(0)], ld(&b.a, vec![ev(&tx)])),
                store(&b.c, vec![ev(&tx)], ld(&l, vec![int(0)])),
            ]),
        ),
    );
    let r = run_with(&b.func(body), &b.inputs(), Schedule::Lazy, None);
    completed(&r);
}

#[test]
fn a_block_of_one_thread_outside_a_grid_is_not_tracked() {
    let b = Buffers::new();
    let tx = var("tx");
    let body = for_thread(&tx, "threadIdx.x", 1, seq(vec![b.access(Kind::Write, 0, 3), b.access(Kind::Read, 1, 4)]));
    let r = run_with(&b.func(body), &b.inputs(), Schedule::Lazy, None);
    completed(&r);
}

#[test]
fn nested_block_bindings_name_every_coordinate() {
    // A 2 x 2 grid: block (x 1, y 0) reads G[0], block (x 0, y 1) then writes it.
    let b = Buffers::new();
    let (bx, by) = (var("bx"), var("by"));
    let at_block = |x: i64, y: i64| Expr::and(is(&bx, x), is(&by, y));
    let body = for_thread(
        &by,
        "blockIdx.y",
        2,
        for_thread(
            &bx,
            "blockIdx.x",
            2,
            seq(vec![
                if_(at_block(1, 0), b.access(Kind::Read, 0, FIRST_LINE)),
                if_(at_block(0, 1), b.access(Kind::Write, 1, SECOND_LINE)),
            ]),
        ),
    );
    let r = run_with(&b.func(body), &b.inputs(), Schedule::Lazy, None);
    assert_eq!(
        fault_of(&r).to_string(),
        "line 20: cross-block race: blockIdx.x = 0, blockIdx.y = 1 writes G[0] (element 0), read by blockIdx.x = 1, blockIdx.y = 0 at line 10; nothing orders the blocks of one kernel (blockIdx.x = 0, blockIdx.y = 1)"
    );
}
