//! Tests of structural equality and hashing: alpha-renamed trees are equal and hash equal,
//! single changes are detected, and `func_diff` names the path of the first difference.

use super::*;
use crate::annotation::{AnnValue, PIPELINE_ORDER, PIPELINE_STAGE};
use crate::check::testkit::*;
use crate::dtype::DataType;
use crate::expr::BinOp;
use crate::func::IRModule;
use crate::stmt::ForKind;

/// The one change a variant of the sample function makes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tweak {
    None,
    Operator,
    Constant,
    LoopKind,
    AnnotationValue,
    SwapAlias,
    SameVarTwice,
    Extent,
    ThreadTag,
    BlockName,
}

/// A function exercising every binding form: parameters, a buffer alias, an allocation, a
/// thread launch, an annotated loop, lets, async attributes and a block.
fn sample(t: Tweak) -> PrimFunc {
    let a = buf("A", F32, &[16]);
    let b = buf("B", F32, &[16]);
    let n = i32v("n");
    let a_v = alias("A_v", &a, F32.with_lanes(4), &[4]);
    let a_w = alias("A_w", &a, F32.with_lanes(4), &[4]);
    let s = shared("S", F32, &[2, 16]);
    let tx = i32v("tx");
    let i = i32v("i");
    let x = i32v("x");
    let y = var("y", F32);
    let op = if t == Tweak::Operator { BinOp::Sub } else { BinOp::Add };
    let two = f32c(if t == Tweak::Constant { 3.0 } else { 2.0 });
    let s_idx = vec![Expr::floormod(v(&i), int(2)), v(&i)];
    let produce = attr(
        "async_commit_queue_scope",
        int(0),
        attr("async_scope", int(1), store(&s, s_idx.clone(), load(&a, vec![Expr::floormod(v(&x), int(16))]) * two)),
    );
    let consume = attr(
        "async_wait_queue_scope",
        int(0),
        attr("async_wait_inflight_count", int(1), store(&b, vec![v(&i)], load(&s, s_idx) + f32c(1.0))),
    );
    let target = if t == Tweak::SwapAlias { &a_w } else { &a_v };
    let vector_store = store(target, vec![int(0)], Expr::let_in(y.clone(), f32c(0.5), Expr::broadcast(v(&y), 4)));
    let body = let_stmt(&x, Expr::binary(op, v(&i), int(1)), seq(vec![produce, consume, vector_store]));
    let stages = if t == Tweak::AnnotationValue { [0, 0] } else { [0, 1] };
    let ann = anns(vec![
        (PIPELINE_STAGE, int_list(&stages)),
        (PIPELINE_ORDER, int_list(&[0, 1])),
        ("note", AnnValue::Str("x".into())),
    ]);
    let kind = if t == Tweak::LoopKind { ForKind::Unrolled } else { ForKind::Serial };
    let extent = if t == Tweak::Extent { 15 } else { 16 };
    let mut main_loop = loop_of(kind, &i, int(extent), body);
    main_loop.annotations = ann;
    let (j, k) = (i32v("j"), i32v("k"));
    let second = if t == Tweak::SameVarTwice { &j } else { &k };
    let tail = seq(vec![
        serial(&j, 4, store(&b, vec![v(&j)], f32c(0.0))),
        serial(second, 4, store(&b, vec![v(second)], f32c(1.0))),
    ]);
    let vi = i32v("vi");
    let l = buf("L", F32, &[1]);
    let mut blk = block(
        if t == Tweak::BlockName { "c" } else { "b" },
        vec![iter_var(&vi, 16, Expr::floormod(v(&tx), int(16)))],
        store(&l, vec![int(0)], load(&a, vec![v(&vi)])),
    );
    blk.predicate = Some(Expr::lt(v(&vi), v(&n)));
    blk.reads = Some(vec![region(&a, vec![v(&vi)])]);
    blk.writes = Some(vec![region(&l, vec![int(0)])]);
    blk.alloc_buffers = vec![block_alloc(&l)];
    let tag = if t == Tweak::ThreadTag { "threadIdx.y" } else { "threadIdx.x" };
    let launched = launch(&tx, tag, int(32), seq(vec![for_stmt(main_loop), tail, block_stmt(blk)]));
    let body = decl_buffer(&a_v, decl_buffer(&a_w, alloc_buffer(&s, launched)));
    func(vec![bparam(&a), bparam(&b), sparam(&n)], body)
}

#[test]
fn alpha_renamed_functions_are_equal_and_hash_equal() {
    let f = sample(Tweak::None);
    let g = alpha_rename(&f);
    assert_eq!(func_diff(&f, &g), None);
    assert!(func_eq(&f, &g));
    assert_eq!(func_hash(&f), func_hash(&g));
}

#[test]
fn independently_built_functions_are_equal() {
    let (f, g) = (sample(Tweak::None), sample(Tweak::None));
    assert!(func_eq(&f, &g), "{:?}", func_diff(&f, &g));
    assert_eq!(func_hash(&f), func_hash(&g));
}

#[test]
fn every_single_change_is_a_difference() {
    let base = sample(Tweak::None);
    for t in [
        Tweak::Operator,
        Tweak::Constant,
        Tweak::LoopKind,
        Tweak::AnnotationValue,
        Tweak::SwapAlias,
        Tweak::SameVarTwice,
        Tweak::Extent,
        Tweak::ThreadTag,
        Tweak::BlockName,
    ] {
        let other = alpha_rename(&sample(t));
        assert!(!func_eq(&base, &other), "{t:?} should make the functions differ");
        assert!(!func_eq(&other, &base), "{t:?} should make the functions differ (reversed)");
        assert!(func_diff(&base, &other).is_some());
        assert_ne!(func_hash(&base), func_hash(&other), "{t:?} should change the hash");
    }
}

#[test]
fn diff_names_the_path_of_the_first_difference() {
    let i = i32v("i");
    let b = buf("B", F32, &[16]);
    let make = |extent| {
        let items = vec![
            store(&b, vec![int(0)], f32c(0.0)),
            store(&b, vec![int(1)], f32c(0.0)),
            serial(&i, extent, store(&b, vec![v(&i)], f32c(1.0))),
        ];
        func(vec![bparam(&b)], seq(items))
    };
    assert_eq!(func_diff(&make(15), &make(16)).as_deref(), Some("body.seq[2].for.extent: 15 vs 16"));
}

#[test]
fn diff_names_the_alias_a_store_uses() {
    let diff = func_diff(&sample(Tweak::None), &sample(Tweak::SwapAlias)).unwrap_or_default();
    assert!(
        diff.ends_with("store.buffer: buffer `A_v` vs buffer `A_w` (bound to different things)"),
        "unexpected diff: {diff}"
    );
    assert!(diff.starts_with("body.decl_buffer.body"), "unexpected diff: {diff}");
}

#[test]
fn diff_reports_a_variable_bound_twice_against_two_variables() {
    let diff = func_diff(&sample(Tweak::None), &sample(Tweak::SameVarTwice)).unwrap_or_default();
    assert!(
        diff.ends_with(
            "launch_thread.body.seq[2].for.var: binding of `k` vs binding of `j` (the variables do not correspond)"
        ),
        "unexpected diff: {diff}"
    );
}

#[test]
fn aliases_must_share_their_data_variable_on_both_sides() {
    let a = buf("A", F32, &[16]);
    let shared_alias = alias("A_v", &a, F32.with_lanes(4), &[4]);
    let own_data = buf("A_v", F32.with_lanes(4), &[4]);
    let make = |decl: &crate::buffer::Buffer| {
        func(vec![bparam(&a)], decl_buffer(decl, store(decl, vec![int(0)], Expr::broadcast(f32c(0.0), 4))))
    };
    let (f, g) = (make(&shared_alias), make(&own_data));
    assert!(!func_eq(&f, &g));
    let diff = func_diff(&f, &g).unwrap_or_default();
    assert!(diff.starts_with("body.decl_buffer.buffer.data:"), "unexpected diff: {diff}");
}

#[test]
fn sequences_compare_after_flattening() {
    let b = buf("B", F32, &[4]);
    let s = |k| store(&b, vec![int(k)], f32c(0.0));
    let nested = seq(vec![seq(vec![s(0), s(1)]), seq(vec![s(2)])]);
    let flat = seq(vec![s(0), s(1), s(2)]);
    assert!(stmt_eq(&nested, &flat));
    assert_eq!(stmt_hash(&nested), stmt_hash(&flat));
    assert!(stmt_eq(&seq(vec![s(0)]), &s(0)));
    assert_eq!(stmt_hash(&seq(vec![s(0)])), stmt_hash(&s(0)));
    assert!(!stmt_eq(&flat, &seq(vec![s(0), s(1)])));
}

#[test]
fn floats_compare_by_bit_pattern() {
    assert!(!expr_eq(&f32c(0.0), &f32c(-0.0)));
    assert!(expr_eq(&f32c(f64::NAN), &f32c(f64::NAN)));
    assert_eq!(expr_hash(&f32c(f64::NAN)), expr_hash(&f32c(f64::NAN)));
    assert!(!expr_eq(&f32c(1.0), &Expr::float(1.0, DataType::FLOAT16)));
}

#[test]
fn free_variables_compare_by_identity() {
    let (x, y) = (i32v("x"), i32v("x"));
    assert!(expr_eq(&(v(&x) + int(1)), &(v(&x) + int(1))));
    assert!(!expr_eq(&(v(&x) + int(1)), &(v(&y) + int(1))));
    let d = stmt_diff(&evaluate(v(&x)), &evaluate(v(&y))).unwrap_or_default();
    assert_eq!(d, "evaluate: variable `x` vs variable `x` (different free identities)");
    // Free variables hash by name and type, so equal names collide but stay deterministic.
    assert_eq!(expr_hash(&v(&x)), expr_hash(&v(&y)));
}

#[test]
fn let_bound_variables_compare_modulo_renaming() {
    let (x, y) = (i32v("x"), i32v("y"));
    let lx = Expr::let_in(x.clone(), int(1), v(&x) * int(2));
    let ly = Expr::let_in(y.clone(), int(1), v(&y) * int(2));
    assert!(expr_eq(&lx, &ly));
    assert_eq!(expr_hash(&lx), expr_hash(&ly));
    let other_type = var("z", DataType::INT64);
    let lz = Expr::let_in(other_type.clone(), int(1), v(&other_type) * int(2));
    assert!(!expr_eq(&lx, &lz));
}

#[test]
fn a_bound_variable_never_matches_a_free_one() {
    let (x, free) = (i32v("x"), i32v("f"));
    let bound = Expr::let_in(x.clone(), int(1), v(&x));
    let unbound = Expr::let_in(x.clone(), int(1), v(&free));
    assert!(!expr_eq(&bound, &unbound));
    assert!(!expr_eq(&unbound, &bound));
}

#[test]
fn modules_compare_function_by_function() {
    let m1 = IRModule { class_name: Some("Module".into()), functions: vec![sample(Tweak::None)] };
    let m2 = IRModule { class_name: Some("Module".into()), functions: vec![alpha_rename(&sample(Tweak::None))] };
    assert!(module_eq(&m1, &m2));
    assert_eq!(module_hash(&m1), module_hash(&m2));
    let m3 = IRModule { class_name: Some("Module".into()), functions: vec![sample(Tweak::Extent)] };
    assert!(!module_eq(&m1, &m3));
    let diff = module_diff(&m1, &m3).unwrap_or_default();
    assert!(diff.starts_with("functions[0].body."), "unexpected diff: {diff}");
    assert!(diff.ends_with("for.extent: 16 vs 15"), "unexpected diff: {diff}");
}

#[test]
fn names_and_spans_are_ignored() {
    use crate::check::testkit::At;
    let b = buf("B", F32, &[4]);
    let s1 = store(&b, vec![int(0)], f32c(0.0)).at(3);
    let s2 = store(&b, vec![int(0)], f32c(0.0)).at(9);
    assert!(stmt_eq(&s1, &s2));
    assert_eq!(stmt_hash(&s1), stmt_hash(&s2));
}

#[test]
fn long_interleaved_programs_compare_and_hash_without_recursion() {
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let build = |n: usize, last: f64| {
                let b = buf("B", F32, &[4]);
                let vars: Vec<_> = (0..n).map(|k| i32v(&format!("x{k}"))).collect();
                let mut body = store(&b, vec![int(0)], f32c(last));
                for (k, x) in vars.iter().enumerate().rev() {
                    let value = if k == 0 { int(0) } else { v(&vars[k - 1]) + int(1) };
                    body = seq(vec![store(&b, vec![int(0)], f32c(1.0)), let_stmt(x, value, body)]);
                }
                func(vec![bparam(&b)], body)
            };
            let (f, g, h) = (build(20_000, 0.0), build(20_000, 0.0), build(20_000, 2.0));
            let result = (
                func_eq(&f, &g),
                func_hash(&f) == func_hash(&g),
                func_hash(&f) == func_hash(&h),
                func_diff(&f, &h).map(|d| (d.len(), d.ends_with("store.value: 0.0 (float32) vs 2.0 (float32)"))),
            );
            // Dropping 20,000-deep trees recurses in the IR's drop glue; not under test here.
            std::mem::forget((f, g, h));
            result
        })
        .expect("spawn");
    let (eq, same_hash, collide, diff) = handle.join().expect("no stack overflow");
    assert!(eq && same_hash && !collide);
    let (len, names_the_leaf) = diff.unwrap_or_default();
    assert!(names_the_leaf && len > 20_000 * 10, "the path runs through every let");
}
