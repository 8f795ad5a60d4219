//! Checker tests: one module per rule family, a well-formed baseline modelled on what TVM
//! prints for pipelined programs, error collection, and a property test on random IR.

mod annotations;
mod async_attrs;
mod fuzz;
mod loops;
mod scope;
mod types;

use super::testkit::*;
use super::{check_func, check_module};
use crate::annotation::{AnnValue, PIPELINE_ASYNC_STAGES, PIPELINE_ORDER, PIPELINE_STAGE};
use crate::expr::Expr;
use crate::func::{IRModule, PrimFunc};
use crate::stmt::Stmt;

/// The diagnostics of `f` as (line, message) pairs.
fn errors(f: &PrimFunc) -> Vec<(u32, String)> {
    check_func(f).iter().map(|d| (d.span.line, d.message.clone())).collect()
}

/// Asserts that `f` has exactly the given diagnostics, in order.
#[track_caller]
fn assert_errors(f: &PrimFunc, expected: &[(u32, &str)]) {
    let got = errors(f);
    let want: Vec<(u32, String)> = expected.iter().map(|(l, m)| (*l, m.to_string())).collect();
    assert_eq!(got, want);
}

/// Asserts that `f` has exactly one diagnostic, at `line`, whose message starts with `prefix`
/// (for messages that embed a printed expression, whose spelling the printer owns).
#[track_caller]
fn assert_one_starting(f: &PrimFunc, line: u32, prefix: &str) {
    let got = errors(f);
    assert_eq!(got.len(), 1, "expected one diagnostic, got {got:?}");
    assert_eq!(got[0].0, line, "wrong line: {got:?}");
    assert!(got[0].1.starts_with(prefix), "unexpected message: {got:?}");
}

/// A function of two float buffers whose body is `body` (so tests can name A and B).
fn with_ab(body: impl FnOnce(&crate::buffer::Buffer, &crate::buffer::Buffer) -> Stmt) -> PrimFunc {
    let a = buf("A", F32, &[16]);
    let b = buf("B", F32, &[16]);
    let body = body(&a, &b);
    func(vec![bparam(&a), bparam(&b)], body)
}

/// seed_a_tx after FlattenBuffer and CSE, as TVM prints it: a thread launch, a shared
/// allocation, flattened aliases, async attributes, lets and predicated stores.
fn seed_a_tx_flat() -> PrimFunc {
    let a = buf("A", F32, &[16, 32]);
    let c = buf("C", F32, &[16, 32]);
    let a1 = alias("A_1", &a, F32, &[512]);
    let c1 = alias("C_1", &c, F32, &[512]);
    let b = shared("B", F32, &[64]);
    let tx = i32v("tx");
    let i = i32v("i");
    let (v1, v2) = (i32v("cse_v1"), i32v("cse_v2"));
    let async_store = |index: Expr, src: Expr| {
        attr(
            "async_commit_queue_scope",
            int(0),
            attr("async_scope", int(1), store(&b, vec![index], load(&a1, vec![src]) * f32c(2.0))),
        )
    };
    let waited_store = |count: i64, dst: Expr, src: Expr| {
        attr(
            "async_wait_queue_scope",
            int(0),
            attr("async_wait_inflight_count", int(count), store(&c1, vec![dst], load(&b, vec![src]) + f32c(1.0))),
        )
    };
    let body = seq(vec![
        if_then(
            Expr::lt(v(&v1), int(16)),
            async_store(Expr::floormod(v(&v1), int(2)) * int(32) + v(&tx), v(&v2) + int(32)),
            None,
        )
        .at(10),
        if_then(
            Expr::lt(v(&v1) - int(1), int(16)),
            waited_store(1, v(&v2), Expr::floormod(v(&i), int(2)) * int(32) + v(&tx)),
            None,
        )
        .at(13),
    ]);
    let lets = let_stmt(&v1, v(&i) + int(1), let_stmt(&v2, v(&i) * int(32) + v(&tx), body).at(9)).at(8);
    let main_loop = serial(&i, 15, lets).at(7);
    let launched = launch(
        &tx,
        "threadIdx.x",
        int(32),
        alloc_buffer(
            &b,
            seq(vec![
                async_store(v(&tx), v(&tx)).at(5),
                main_loop,
                waited_store(0, v(&tx) + int(480), v(&tx) + int(32)).at(16),
            ]),
        )
        .at(4),
    )
    .at(3);
    func(vec![bparam(&a), bparam(&c)], decl_buffer(&a1, decl_buffer(&c1, launched).at(2)).at(1))
}

/// seed_b's input loop as S-TIR: pipeline annotations on a loop over a block that allocates
/// its staging buffers, with nested blocks reading and writing them.
fn seed_b_input() -> PrimFunc {
    let a = buf("A", F32, &[16]);
    let d = buf("D", F32, &[16]);
    let b = shared("B", F32, &[1]);
    let c = shared("C", F32, &[1]);
    let i = i32v("i");
    let stage = |dst: &crate::buffer::Buffer, src: &crate::buffer::Buffer, di: Expr, si: Expr| {
        let mut blk = block("", vec![], store(dst, vec![di.clone()], load(src, vec![si.clone()]) + f32c(1.0)));
        blk.reads = Some(vec![region(src, vec![si])]);
        blk.writes = Some(vec![region(dst, vec![di])]);
        block_stmt(blk)
    };
    let mut outer = block(
        "compute",
        vec![],
        seq(vec![stage(&b, &a, int(0), v(&i)), stage(&c, &b, int(0), int(0)), stage(&d, &c, v(&i), int(0))]),
    );
    outer.alloc_buffers = vec![block_alloc(&b), block_alloc(&c)];
    outer.reads = Some(vec![region(&a, vec![v(&i)])]);
    outer.writes = Some(vec![region(&d, vec![v(&i)])]);
    let ann = anns(vec![
        (PIPELINE_STAGE, int_list(&[0, 1, 2])),
        (PIPELINE_ORDER, int_list(&[0, 1, 2])),
        (PIPELINE_ASYNC_STAGES, int_list(&[0, 1])),
    ]);
    func(vec![bparam(&a), bparam(&d)], annotated(&i, 16, ann, block_stmt(outer)))
}

#[test]
fn tvm_printed_programs_are_well_formed() {
    assert_errors(&seed_a_tx_flat(), &[]);
    assert_errors(&seed_b_input(), &[]);
}

#[test]
fn three_independent_errors_give_three_diagnostics_in_source_order() {
    let f = with_ab(|a, b| {
        let x = i32v("x");
        let i = i32v("i");
        let bad = anns(vec![(PIPELINE_STAGE, AnnValue::Str("0, 1".into()))]);
        seq(vec![
            store(b, vec![int(0)], load(a, vec![v(&x)])).at(2),
            annotated(&i, 4, bad, store(b, vec![v(&i)], f32c(0.0))).at(3),
            attr(
                "async_wait_queue_scope",
                int(0),
                attr("async_wait_inflight_count", int(-1), store(b, vec![int(1)], f32c(0.0))),
            )
            .at(5),
        ])
    });
    assert_errors(
        &f,
        &[
            (2, "use of undefined variable `x`"),
            (3, "annotation `software_pipeline_stage` must be a list of integers, found a string"),
            (5, "negative in-flight count -1"),
        ],
    );
}

#[test]
fn module_check_concatenates_function_diagnostics() {
    let bad = with_ab(|_, b| store(b, vec![int(0)], int(1)).at(4));
    let module = IRModule { class_name: Some("Module".into()), functions: vec![seed_b_input(), bad.clone(), bad] };
    let diags = check_module(&module);
    assert_eq!(diags.len(), 2);
    assert!(diags.iter().all(|d| d.span.line == 4));
}

#[test]
fn synthetic_statements_report_at_the_nearest_known_span() {
    let f = with_ab(|_, b| {
        let x = i32v("x");
        seq(vec![serial(&i32v("i"), 4, store(b, vec![v(&x)], f32c(0.0))).at(6)])
    });
    assert_errors(&f, &[(6, "use of undefined variable `x`")]);
}

#[test]
fn deep_let_chains_are_walked_without_recursion() {
    let f = with_ab(|_, b| {
        let vars: Vec<_> = (0..20_000).map(|k| i32v(&format!("x{k}"))).collect();
        let mut body = store(b, vec![int(0)], f32c(0.0));
        for (k, x) in vars.iter().enumerate().rev() {
            let value = if k == 0 { int(0) } else { v(&vars[k - 1]) + int(1) };
            body = let_stmt(x, value, body);
        }
        body
    });
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let got = errors(&f);
            // Dropping a 20,000-deep tree recurses in the IR's drop glue, which is not what
            // this test is about.
            std::mem::forget(f);
            got
        })
        .expect("spawn");
    assert_eq!(handle.join().expect("no stack overflow"), vec![]);
}

/// `B[0] = 0; x0 = 0; B[0] = 1; x1 = x0 + 1; ...`: what TVM's "rest of the block" bodies
/// make of a long straight-line program, `Seq[store, Let(x, Seq[store, Let(..)])]`.
pub(super) fn interleaved_lets(n: usize) -> PrimFunc {
    with_ab(|_, b| {
        let vars: Vec<_> = (0..n).map(|k| i32v(&format!("x{k}"))).collect();
        let mut body = store(b, vec![int(0)], f32c(0.0));
        for (k, x) in vars.iter().enumerate().rev() {
            let value = if k == 0 { int(0) } else { v(&vars[k - 1]) + int(1) };
            body = seq(vec![store(b, vec![int(0)], f32c(1.0)), let_stmt(x, value, body)]);
        }
        body
    })
}

#[test]
fn long_interleaved_programs_are_walked_without_recursion() {
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let f = interleaved_lets(20_000);
            let got = errors(&f);
            std::mem::forget(f);
            got
        })
        .expect("spawn");
    assert_eq!(handle.join().expect("no stack overflow"), vec![]);
}

#[test]
fn too_deep_nesting_is_reported_once_not_overflowed() {
    let f = with_ab(|_, b| {
        let mut body = store(b, vec![int(0)], f32c(0.0));
        for _ in 0..1000 {
            body = if_then(Expr::bool(true), body, None);
        }
        body.at(2)
    });
    let handle = std::thread::Builder::new().stack_size(16 << 20).spawn(move || errors(&f)).expect("spawn");
    let got = handle.join().expect("no stack overflow");
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].1.starts_with("the program nests deeper than 400 levels"), "{got:?}");
}
