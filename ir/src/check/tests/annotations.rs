//! Tests of the software-pipeline annotation rules: one per error class.

use super::*;

/// A loop at line 2 with the given annotations over a trivial body.
fn annotated_loop(entries: Vec<(&str, AnnValue)>) -> PrimFunc {
    let i = i32v("i");
    with_ab(|_, b| annotated(&i, 4, anns(entries), store(b, vec![v(&i)], f32c(0.0))).at(2))
}

#[test]
fn well_formed_annotations_pass() {
    let f = annotated_loop(vec![
        (PIPELINE_STAGE, int_list(&[0, 0, 2, 3, 3])),
        (PIPELINE_ORDER, int_list(&[0, 1, 3, 2, 4])),
        (PIPELINE_ASYNC_STAGES, int_list(&[0])),
        ("pragma_unroll", AnnValue::Str("x".into())),
    ]);
    assert_errors(&f, &[]);
    let as_exprs =
        annotated_loop(vec![(PIPELINE_STAGE, AnnValue::List(vec![AnnValue::Expr(int(0)), AnnValue::Expr(int(1))]))]);
    assert_errors(&as_exprs, &[]);
}

#[test]
fn annotation_must_be_a_list() {
    let f = annotated_loop(vec![(PIPELINE_STAGE, AnnValue::Str("0, 1".into()))]);
    assert_errors(&f, &[(2, "annotation `software_pipeline_stage` must be a list of integers, found a string")]);
    let g = annotated_loop(vec![(PIPELINE_ASYNC_STAGES, AnnValue::Int(0))]);
    assert_errors(
        &g,
        &[(2, "annotation `software_pipeline_async_stages` must be a list of integers, found an integer")],
    );
}

#[test]
fn annotation_list_items_must_be_integers() {
    let f = annotated_loop(vec![(PIPELINE_ORDER, AnnValue::List(vec![AnnValue::Int(0), AnnValue::Float(1.0)]))]);
    assert_errors(
        &f,
        &[(2, "annotation `software_pipeline_order` must be a list of integers, found a list containing a float")],
    );
}

#[test]
fn stage_and_order_lengths_differ() {
    let f = annotated_loop(vec![(PIPELINE_STAGE, int_list(&[0, 1, 2])), (PIPELINE_ORDER, int_list(&[0, 1]))]);
    assert_errors(
        &f,
        &[(
            2,
            "`software_pipeline_stage` has 3 entries but `software_pipeline_order` has 2; both need one entry per statement",
        )],
    );
}

#[test]
fn negative_stage() {
    let f = annotated_loop(vec![(PIPELINE_STAGE, int_list(&[0, -1]))]);
    assert_errors(&f, &[(2, "pipeline stage -1 is negative; stages start at 0")]);
}

#[test]
fn stage_beyond_the_limit() {
    let f = annotated_loop(vec![(PIPELINE_STAGE, int_list(&[0, 300]))]);
    assert_errors(&f, &[(2, "pipeline stage 300 is larger than 256, the most supported")]);
}

#[test]
fn order_is_not_a_permutation() {
    let f = annotated_loop(vec![(PIPELINE_ORDER, int_list(&[0, 0, 2]))]);
    assert_errors(&f, &[(2, "`software_pipeline_order` [0, 0, 2] is not a permutation of 0..3")]);
    let g = annotated_loop(vec![(PIPELINE_ORDER, int_list(&[1, 2]))]);
    assert_errors(&g, &[(2, "`software_pipeline_order` [1, 2] is not a permutation of 0..2")]);
}

#[test]
fn async_stage_must_be_a_stage() {
    let f = annotated_loop(vec![(PIPELINE_STAGE, int_list(&[0, 1])), (PIPELINE_ASYNC_STAGES, int_list(&[2]))]);
    assert_errors(&f, &[(2, "async stage 2 has no statement (the stages are [0, 1])")]);
}
