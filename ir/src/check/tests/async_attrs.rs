//! Tests of the async attribute rules: one per error class, on attributes and blocks.

use super::*;
use crate::buffer::Buffer;

/// `attr(key, value)` over a store to B, at line 2.
fn one_attr(key: &str, value: Expr) -> PrimFunc {
    with_ab(|_, b| attr(key, value, store(b, vec![int(0)], f32c(0.0))).at(2))
}

/// A chain of attributes (outermost first) over a store to B, at line 3.
fn chain(keys: &[(&str, Expr)]) -> PrimFunc {
    with_ab(|_, b| {
        let mut body = store(b, vec![int(0)], f32c(0.0));
        for (k, val) in keys.iter().rev() {
            body = attr(k, val.clone(), body);
        }
        body.at(3)
    })
}

#[test]
fn async_scope_value_must_be_one() {
    assert_errors(&one_attr("async_scope", int(1)), &[]);
    assert_errors(&one_attr("async_scope", int(2)), &[(2, "`async_scope` must have the value 1, found 2")]);
    assert_errors(&one_attr("async_scope", f32c(1.0)), &[(2, "`async_scope` must have the value 1, found float32")]);
}

#[test]
fn async_scope_must_contain_a_store() {
    let f = with_ab(|_, _| attr("async_scope", int(1), evaluate(int(0))).at(2));
    assert_errors(&f, &[(2, "`async_scope` must contain at least one buffer store")]);
    let i = i32v("i");
    let nested = with_ab(|_, b| attr("async_scope", int(1), serial(&i, 2, store(b, vec![v(&i)], f32c(0.0)))).at(2));
    assert_errors(&nested, &[]);
}

#[test]
fn queue_ids_are_integers() {
    assert_errors(
        &one_attr("async_commit_queue_scope", f32c(0.0)),
        &[(2, "queue of `async_commit_queue_scope` must be an integer, found float32")],
    );
    assert_errors(
        &one_attr("async_commit_queue_scope", int(-2)),
        &[(2, "negative queue id -2 in `async_commit_queue_scope`")],
    );
    let q = i32v("q");
    let symbolic =
        with_ab(|_, b| serial(&q, 2, attr("async_commit_queue_scope", v(&q), store(b, vec![int(0)], f32c(0.0)))).at(2));
    assert_errors(&symbolic, &[]);
}

#[test]
fn wait_needs_an_inflight_count() {
    let f = one_attr("async_wait_queue_scope", int(0));
    assert_errors(
        &f,
        &[(
            2,
            "`async_wait_queue_scope` must be directly followed by an `async_wait_inflight_count` or `async_wait_tokens` attribute",
        )],
    );
}

#[test]
fn inflight_count_needs_a_wait() {
    let f = one_attr("async_wait_inflight_count", int(0));
    assert_errors(&f, &[(2, "`async_wait_inflight_count` must directly follow an `async_wait_queue_scope` attribute")]);
}

#[test]
fn count_in_the_wrong_order_is_reported_twice() {
    let f = chain(&[("async_wait_inflight_count", int(1)), ("async_wait_queue_scope", int(0))]);
    assert_errors(
        &f,
        &[
            (3, "`async_wait_inflight_count` must directly follow an `async_wait_queue_scope` attribute"),
            (3, "`async_wait_queue_scope` must be directly followed by an `async_wait_inflight_count` or `async_wait_tokens` attribute"),
        ],
    );
}

#[test]
fn another_attribute_between_wait_and_count_ends_the_chain() {
    // TVM reads the count as the wait's direct body; the interpreter and the verifier decode
    // chains the same way (`async_op::decode_chain`), so the checker must reject this too.
    let f =
        chain(&[("async_wait_queue_scope", int(0)), ("pragma_note", int(7)), ("async_wait_inflight_count", int(1))]);
    assert_errors(
        &f,
        &[
            (3, "`async_wait_queue_scope` must be directly followed by an `async_wait_inflight_count` or `async_wait_tokens` attribute"),
            (3, "`async_wait_inflight_count` must directly follow an `async_wait_queue_scope` attribute"),
        ],
    );
}

#[test]
fn a_count_behind_a_statement_is_not_paired() {
    let f = with_ab(|_, b| {
        let x = i32v("x");
        attr(
            "async_wait_queue_scope",
            int(0),
            let_stmt(&x, int(0), attr("async_wait_inflight_count", int(1), store(b, vec![v(&x)], f32c(0.0))).at(4))
                .at(3),
        )
        .at(2)
    });
    assert_errors(
        &f,
        &[
            (2, "`async_wait_queue_scope` must be directly followed by an `async_wait_inflight_count` or `async_wait_tokens` attribute"),
            (4, "`async_wait_inflight_count` must directly follow an `async_wait_queue_scope` attribute"),
        ],
    );
}

#[test]
fn negative_inflight_count() {
    let f = chain(&[("async_wait_queue_scope", int(0)), ("async_wait_inflight_count", int(-1))]);
    assert_errors(&f, &[(3, "negative in-flight count -1")]);
}

#[test]
fn inflight_count_is_an_integer_expression() {
    let f = chain(&[("async_wait_queue_scope", int(0)), ("async_wait_inflight_count", f32c(1.0))]);
    assert_errors(&f, &[(3, "`async_wait_inflight_count` must be an integer, found float32")]);
    let i = i32v("i");
    let symbolic = with_ab(|_, b| {
        serial(
            &i,
            3,
            attr(
                "async_wait_queue_scope",
                int(0),
                attr("async_wait_inflight_count", int(2) - v(&i), store(b, vec![v(&i)], f32c(0.0))),
            ),
        )
        .at(2)
    });
    assert_errors(&symbolic, &[]);
}

/// A block at line 2 with the given annotations over a store to B.
fn annotated_block(b: &Buffer, entries: Vec<(&str, AnnValue)>) -> Stmt {
    let mut blk = block("", vec![], store(b, vec![int(0)], f32c(0.0)));
    blk.annotations = anns(entries);
    block_stmt(blk).at(2)
}

#[test]
fn block_annotations_follow_the_same_rules() {
    let ok = with_ab(|_, b| {
        annotated_block(
            b,
            vec![("async_wait_queue_scope", AnnValue::Int(0)), ("async_wait_inflight_count", AnnValue::Int(1))],
        )
    });
    assert_errors(&ok, &[]);
    let f = with_ab(|_, b| {
        annotated_block(
            b,
            vec![
                ("async_commit_queue_scope", AnnValue::Str("0".into())),
                ("async_scope", AnnValue::Int(1)),
                ("async_wait_queue_scope", AnnValue::Int(0)),
            ],
        )
    });
    assert_errors(
        &f,
        &[
            (2, "queue of `async_commit_queue_scope` must be an integer, found a string"),
            (2, "block annotation `async_wait_queue_scope` needs an `async_wait_inflight_count` or `async_wait_tokens` in the same block"),
        ],
    );
    let g = with_ab(|_, b| annotated_block(b, vec![("async_wait_inflight_count", AnnValue::Int(-1))]));
    assert_errors(
        &g,
        &[
            (2, "negative in-flight count -1"),
            (2, "block annotation `async_wait_inflight_count` needs an `async_wait_queue_scope` in the same block"),
        ],
    );
}

#[test]
fn block_async_scope_needs_a_store() {
    let f = with_ab(|_, _| {
        let mut blk = block("", vec![], evaluate(int(0)));
        blk.annotations = anns(vec![("async_scope", AnnValue::Int(1))]);
        block_stmt(blk).at(2)
    });
    assert_errors(&f, &[(2, "`async_scope` must contain at least one buffer store")]);
}

#[test]
fn tokens_are_int64_values_inside_a_wait() {
    use crate::async_op::{token_op, token_tuple, TokenOp};
    let token = token_op(TokenOp::LastCommitted, int(0));
    assert_errors(&chain(&[("async_wait_queue_scope", int(0)), ("async_wait_tokens", token.clone())]), &[]);
    let tuple = token_tuple(vec![token.clone(), token.clone()]);
    let claiming =
        [("async_wait_queue_scope", int(0)), ("async_wait_inflight_count", int(1)), ("async_wait_tokens", tuple)];
    assert_errors(&chain(&claiming), &[]);
    assert_errors(
        &chain(&[("async_wait_queue_scope", int(0)), ("async_wait_tokens", int(3))]),
        &[(3, "a token of `async_wait_tokens` is an int64 value, found int32 (3)")],
    );
    assert_errors(
        &one_attr("async_wait_tokens", token),
        &[(2, "`async_wait_tokens` must follow an `async_wait_queue_scope` attribute in its chain")],
    );
}
