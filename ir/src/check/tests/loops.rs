//! Tests of loop kinds, thread tags and their extents: one per error class.

use super::*;
use crate::stmt::{For, ForKind};

/// A loop of `kind` over `B[i] = 0` at line 2, adjusted by `edit`.
fn loop_with(kind: ForKind, extent: Expr, edit: impl FnOnce(&mut For)) -> PrimFunc {
    let i = i32v("i");
    with_ab(|_, b| {
        let mut l = loop_of(kind, &i, extent, store(b, vec![int(0)], f32c(0.0)));
        edit(&mut l);
        for_stmt(l).at(2)
    })
}

#[test]
fn thread_binding_needs_a_tag() {
    let f = loop_with(ForKind::ThreadBinding, int(32), |_| {});
    assert_errors(&f, &[(2, "thread-binding loop `i` has no thread tag")]);
}

#[test]
fn thread_tag_must_be_known() {
    let f = loop_with(ForKind::ThreadBinding, int(32), |l| l.thread = Some("threadIdx.w".into()));
    assert_errors(&f, &[(2, "unknown thread tag `threadIdx.w` on loop `i`")]);
    let bx = i32v("bx");
    let ok = with_ab(|_, b| thread_loop(&bx, "blockIdx.y", 4, store(b, vec![v(&bx)], f32c(0.0))).at(2));
    assert_errors(&ok, &[]);
}

#[test]
fn only_thread_binding_loops_have_tags() {
    let f = loop_with(ForKind::Serial, int(4), |l| l.thread = Some("threadIdx.x".into()));
    assert_errors(
        &f,
        &[(2, "`T.serial` loop `i` has a thread tag `threadIdx.x`; only `T.thread_binding` loops bind threads")],
    );
}

#[test]
fn thread_loop_extent_is_positive() {
    let f = loop_with(ForKind::ThreadBinding, int(0), |l| l.thread = Some("threadIdx.x".into()));
    assert_errors(&f, &[(2, "thread-binding loop `i` must have a positive extent, found 0")]);
}

#[test]
fn thread_loop_extent_is_a_constant_or_a_variable() {
    let n = i32v("n");
    let i = i32v("i");
    let f = with_ab(|_, b| {
        let mut l = loop_of(ForKind::ThreadBinding, &i, v(&n) + int(1), store(b, vec![int(0)], f32c(0.0)));
        l.thread = Some("threadIdx.x".into());
        for_stmt(l).at(2)
    });
    let f = PrimFunc { params: [f.params.clone(), vec![sparam(&n)]].concat(), ..f };
    assert_one_starting(&f, 2, "thread-binding loop `i` must have a constant or variable extent, found ");
    let symbolic = with_ab(|_, b| {
        let mut l = loop_of(ForKind::ThreadBinding, &i32v("j"), v(&n), store(b, vec![int(0)], f32c(0.0)));
        l.thread = Some("threadIdx.x".into());
        for_stmt(l).at(2)
    });
    let symbolic = PrimFunc { params: [symbolic.params.clone(), vec![sparam(&n)]].concat(), ..symbolic };
    assert_errors(&symbolic, &[]);
}

#[test]
fn vectorized_loop_needs_a_constant_positive_extent() {
    let zero = loop_with(ForKind::Vectorized, int(0), |_| {});
    assert_errors(&zero, &[(2, "vectorized loop `i` needs a positive extent, found 0")]);
    let n = i32v("n");
    let symbolic = loop_with(ForKind::Vectorized, v(&n), |_| {});
    let symbolic = PrimFunc { params: [symbolic.params.clone(), vec![sparam(&n)]].concat(), ..symbolic };
    assert_one_starting(&symbolic, 2, "vectorized loop `i` needs a constant extent, found ");
    assert_errors(&loop_with(ForKind::Vectorized, int(4), |_| {}), &[]);
}

#[test]
fn launch_thread_tag_must_be_known() {
    let tx = i32v("tx");
    let f = with_ab(|_, b| launch(&tx, "warpIdx", int(32), store(b, vec![int(0)], f32c(0.0))).at(2));
    assert_errors(&f, &[(2, "unknown thread tag `warpIdx` in `T.launch_thread`")]);
}

#[test]
fn launch_extent_is_positive() {
    let tx = i32v("tx");
    let f = with_ab(|_, b| launch(&tx, "threadIdx.x", int(-1), store(b, vec![int(0)], f32c(0.0))).at(2));
    assert_errors(&f, &[(2, "thread launch `tx` must have a positive extent, found -1")]);
}
