//! Tests of the typing rules and the lanes rule of docs/buffers-and-lanes.md: one per error class.

use super::*;
use crate::dtype::DataType;
use crate::expr::BinOp;
use crate::stmt::ForKind;

const I64: DataType = DataType::INT64;

/// `B[0] = value` as the whole body, at line 2.
fn store_value(value: Expr) -> PrimFunc {
    with_ab(|_, b| store(b, vec![int(0)], value).at(2))
}

/// `T.evaluate(value)` at line 2, for expressions whose own type does not matter.
fn eval(value: Expr) -> PrimFunc {
    with_ab(|_, _| evaluate(value).at(2))
}

#[test]
fn binary_operands_of_different_types() {
    let f = eval(int(1) + Expr::int_of(2, I64));
    assert_errors(&f, &[(2, "operands of `+` have different types: int32 and int64")]);
}

#[test]
fn bitwise_operator_on_floats() {
    let f = store_value(Expr::binary(BinOp::BitAnd, f32c(1.0), f32c(2.0)));
    assert_errors(&f, &[(2, "bitwise operator `&` is not defined on float32")]);
}

#[test]
fn float_floordiv_and_floormod_are_allowed() {
    assert_errors(&store_value(Expr::floormod(f32c(5.0), f32c(2.0))), &[]);
    assert_errors(&store_value(Expr::floordiv(f32c(5.0), f32c(2.0))), &[]);
    assert_errors(&eval(Expr::binary(BinOp::BitXor, Expr::bool(true), Expr::bool(false))), &[]);
}

#[test]
fn comparison_operands_of_different_types() {
    let f = eval(Expr::lt(int(1), f32c(1.0)));
    assert_errors(&f, &[(2, "operands of `<` have different types: int32 and float32")]);
}

#[test]
fn logic_operands_must_be_bool() {
    let f = eval(Expr::and(int(1), int(0)));
    assert_errors(&f, &[(2, "operands of `and` must be bool, found int32")]);
}

#[test]
fn not_operand_must_be_bool() {
    let f = eval(Expr::logical_not(int(1)));
    assert_errors(&f, &[(2, "operand of `not` must be bool, found int32")]);
}

#[test]
fn if_condition_must_be_bool() {
    let f = with_ab(|_, b| if_then(int(1), store(b, vec![int(0)], f32c(0.0)), None).at(3));
    assert_errors(&f, &[(3, "condition of `if` must be bool, found int32")]);
}

#[test]
fn select_condition_and_arms() {
    let f = eval(Expr::select(int(1), int(2), f32c(3.0)));
    assert_errors(
        &f,
        &[
            (2, "condition of `T.Select` must be bool, found int32"),
            (2, "arms of `T.Select` have different types: int32 and float32"),
        ],
    );
    let vector_cond = Expr::broadcast(Expr::bool(true), 4);
    let ok = eval(Expr::select(vector_cond.clone(), Expr::broadcast(int(1), 4), Expr::broadcast(int(2), 4)));
    assert_errors(&ok, &[]);
    let ite = eval(Expr::if_then_else(vector_cond, Expr::broadcast(int(1), 4), Expr::broadcast(int(2), 4)));
    assert_errors(&ite, &[(2, "condition of `T.if_then_else` must be bool, found boolx4")]);
}

#[test]
fn cast_keeps_the_lane_count() {
    let f = eval(Expr::cast(F32, Expr::ramp(int(0), int(1), 4)));
    assert_errors(&f, &[(2, "cast from int32x4 to float32 changes the number of lanes")]);
}

#[test]
fn ramp_base_stride_and_lanes() {
    assert_errors(
        &eval(Expr::ramp(f32c(0.0), f32c(1.0), 4)),
        &[(2, "base of `T.Ramp` must be a scalar integer, found float32")],
    );
    assert_errors(
        &eval(Expr::ramp(int(0), Expr::int_of(1, I64), 4)),
        &[(2, "stride of `T.Ramp` must have the base's type int32, found int64")],
    );
    assert_errors(&eval(Expr::ramp(int(0), int(1), 0)), &[(2, "`T.Ramp` must have at least 1 lane, found 0")]);
}

#[test]
fn broadcast_of_a_scalar() {
    assert_errors(
        &eval(Expr::broadcast(Expr::ramp(int(0), int(1), 4), 2)),
        &[(2, "value of `T.Broadcast` must be a scalar, found int32x4")],
    );
    assert_errors(&eval(Expr::broadcast(int(0), 0)), &[(2, "`T.Broadcast` must have at least 1 lane, found 0")]);
}

#[test]
fn let_value_has_the_variable_type() {
    let x = i32v("x");
    let f = with_ab(|_, b| let_stmt(&x, Expr::int_of(1, I64), store(b, vec![v(&x)], f32c(0.0))).at(2));
    assert_errors(&f, &[(2, "let variable `x` has type int32, but its value has type int64")]);
    let y = i32v("y");
    let g = eval(Expr::let_in(y.clone(), f32c(1.0), v(&y)));
    assert_errors(&g, &[(2, "let variable `y` has type int32, but its value has type float32")]);
}

#[test]
fn index_count_matches_rank() {
    let f = with_ab(|a, b| store(b, vec![int(0), int(1)], load(a, vec![])).at(2));
    assert_errors(
        &f,
        &[
            (2, "store to `B` has 2 indices, but the buffer has 1 dimension"),
            (2, "load from `A` has 0 indices, but the buffer has 1 dimension"),
        ],
    );
}

#[test]
fn indices_are_integers() {
    let f = with_ab(|_, b| store(b, vec![f32c(0.0)], f32c(0.0)).at(2));
    assert_errors(&f, &[(2, "index 0 of `B` must be an integer, found float32")]);
}

#[test]
fn only_the_last_index_may_be_a_vector() {
    let m = buf("M", F32, &[4, 4]);
    let f = func(
        vec![bparam(&m)],
        store(&m, vec![Expr::ramp(int(0), int(1), 4), int(0)], Expr::broadcast(f32c(0.0), 4)).at(2),
    );
    assert_errors(&f, &[(2, "index 0 of `M` is a vector (int32x4); only the last index may be a vector")]);
    let ok = func(
        vec![bparam(&m)],
        store(&m, vec![int(0), Expr::ramp(int(0), int(1), 4)], Expr::broadcast(f32c(0.0), 4)).at(2),
    );
    assert_errors(&ok, &[]);
}

#[test]
fn lanes_rule_n_lane_index_into_m_lane_buffer() {
    let vb = buf("B", F32.with_lanes(4), &[16]);
    let ramp = Expr::ramp(int(0), int(1), 4);
    let wrong = func(vec![bparam(&vb)], store(&vb, vec![ramp.clone()], Expr::broadcast(f32c(0.0), 4)).at(2));
    assert_errors(
        &wrong,
        &[(2, "store to `B` (float32x4 elements) with a 4-lane index gives float32x16, but the value is float32x4")],
    );
    let right = func(vec![bparam(&vb)], store(&vb, vec![ramp.clone()], Expr::broadcast(f32c(0.0), 16)).at(2));
    assert_errors(&right, &[]);
    let copy = func(vec![bparam(&vb)], store(&vb, vec![int(0)], load(&vb, vec![int(1)])).at(2));
    assert_errors(&copy, &[]);
    let vector_read = func(vec![bparam(&vb)], store(&vb, vec![int(0)], load(&vb, vec![ramp])).at(2));
    assert_errors(
        &vector_read,
        &[(2, "store to `B` (float32x4 elements) gives float32x4, but the value is float32x16")],
    );
}

#[test]
fn scalar_store_of_the_wrong_type() {
    let f = store_value(int(1));
    assert_errors(&f, &[(2, "store to `B` (float32 elements) gives float32, but the value is int32")]);
}

#[test]
fn loop_bounds_have_the_loop_variable_type() {
    let i = i32v("i");
    let f = with_ab(|_, b| {
        for_stmt(loop_of(ForKind::Serial, &i, Expr::int_of(4, I64), store(b, vec![v(&i)], f32c(0.0)))).at(2)
    });
    assert_errors(&f, &[(2, "extent of loop `i` has type int64, but the loop variable is int32")]);
    let x = var("x", F32);
    let g = with_ab(|_, b| {
        let mut l = loop_of(ForKind::Serial, &x, int(4), store(b, vec![int(0)], f32c(0.0)));
        l.min = int(0);
        for_stmt(l).at(3)
    });
    assert_errors(&g, &[(3, "loop variable `x` must be an integer, found float32")]);
}

#[test]
fn buffer_shapes_are_integers() {
    let s = crate::buffer::BufferSpec::new("S", F32, vec![f32c(4.0)], "shared").build();
    let f = with_ab(|_, _| alloc_buffer(&s, store(&s, vec![int(0)], f32c(0.0))).at(2));
    assert_errors(&f, &[(2, "extent 0 of buffer `S` must be an integer, found float32")]);
}

#[test]
fn allocation_extents_and_condition() {
    let data = var("p", DataType::HANDLE);
    let f = with_ab(|_, _| {
        let mut stmt = allocate(&data, F32, vec![f32c(4.0)], evaluate(int(0)));
        if let crate::stmt::StmtKind::Allocate(a) = &mut stmt.kind {
            a.condition = int(1);
        }
        stmt.at(2)
    });
    assert_errors(
        &f,
        &[
            (2, "extent 0 of allocation `p` must be an integer, found float32"),
            (2, "condition of allocation `p` must be bool, found int32"),
        ],
    );
}

#[test]
fn iteration_variable_binding_type() {
    let vi = i32v("vi");
    let f = with_ab(|_, b| {
        block_stmt(block("b", vec![iter_var(&vi, 4, Expr::int_of(0, I64))], store(b, vec![v(&vi)], f32c(0.0)))).at(2)
    });
    assert_errors(&f, &[(2, "binding of iteration variable `vi` has type int64, but the variable is int32")]);
}

#[test]
fn block_predicate_and_regions() {
    let f = with_ab(|a, b| {
        let mut blk = block("b", vec![], store(b, vec![int(0)], f32c(0.0)));
        blk.predicate = Some(int(1));
        blk.reads = Some(vec![region(a, vec![int(0), int(1)])]);
        blk.writes = Some(vec![region(b, vec![f32c(0.0)])]);
        block_stmt(blk).at(2)
    });
    assert_errors(
        &f,
        &[
            (2, "`T.where` predicate must be bool, found int32"),
            (2, "region of `A` has 2 ranges, but the buffer has 1 dimension"),
            (2, "start of range 0 of `B` must be an integer, found float32"),
        ],
    );
}

#[test]
fn launch_extent_is_an_integer() {
    let tx = i32v("tx");
    let f =
        with_ab(|_, b| launch(&tx, "threadIdx.x", Expr::var(&var("n", F32)), store(b, vec![v(&tx)], f32c(0.0))).at(2));
    let got = errors(&f);
    assert!(
        got.contains(&(2, "extent of thread launch `tx` must be an integer, found float32".to_string())),
        "{got:?}"
    );
}
