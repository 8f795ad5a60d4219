//! Tests of scoping and SSA: one per error class, each asserting the message and the span.

use super::*;
use crate::dtype::DataType;

#[test]
fn use_of_undefined_variable() {
    let x = i32v("x");
    let f = with_ab(|_, b| store(b, vec![v(&x)], f32c(0.0)).at(2));
    assert_errors(&f, &[(2, "use of undefined variable `x`")]);
}

#[test]
fn loop_variable_used_after_its_loop() {
    let i = i32v("i");
    let f = with_ab(|_, b| {
        seq(vec![serial(&i, 4, store(b, vec![v(&i)], f32c(0.0))).at(2), store(b, vec![v(&i)], f32c(1.0)).at(4)])
    });
    assert_errors(&f, &[(4, "variable `i` is used outside the scope that binds it")]);
}

#[test]
fn variable_used_before_the_let_that_binds_it() {
    let x = i32v("x");
    let f = with_ab(|_, b| {
        seq(vec![store(b, vec![v(&x)], f32c(0.0)).at(2), let_stmt(&x, int(1), store(b, vec![v(&x)], f32c(1.0))).at(3)])
    });
    assert_errors(&f, &[(2, "variable `x` is used outside the scope that binds it")]);
}

#[test]
fn let_expression_scopes_over_its_body_only() {
    let x = i32v("x");
    let f = with_ab(|_, b| {
        let inner = Expr::let_in(x.clone(), int(1), v(&x) + int(1));
        store(b, vec![inner + v(&x)], f32c(0.0)).at(2)
    });
    assert_errors(&f, &[(2, "variable `x` is used outside the scope that binds it")]);
}

#[test]
fn use_of_undeclared_buffer() {
    let c = buf("C", F32, &[4]);
    let f = with_ab(|_, b| store(b, vec![int(0)], load(&c, vec![int(0)])).at(3));
    assert_errors(&f, &[(3, "use of undeclared buffer `C`")]);
}

#[test]
fn buffer_used_outside_the_scope_that_declares_it() {
    let s = shared("S", F32, &[4]);
    let f = with_ab(|_, b| {
        seq(vec![
            alloc_buffer(&s, store(&s, vec![int(0)], f32c(0.0))).at(2),
            store(b, vec![int(0)], load(&s, vec![int(0)])).at(4),
        ])
    });
    assert_errors(&f, &[(4, "buffer `S` is used outside the scope that declares it")]);
}

#[test]
fn block_allocation_is_scoped_to_the_block() {
    let l = buf("L", F32, &[1]);
    let f = with_ab(|_, b| {
        let mut blk = block("b", vec![], store(&l, vec![int(0)], f32c(0.0)));
        blk.alloc_buffers = vec![block_alloc(&l)];
        seq(vec![block_stmt(blk).at(2), store(b, vec![int(0)], load(&l, vec![int(0)])).at(5)])
    });
    assert_errors(&f, &[(5, "buffer `L` is used outside the scope that declares it")]);
}

#[test]
fn region_of_undeclared_buffer() {
    let c = buf("C", F32, &[4]);
    let f = with_ab(|_, b| {
        let mut blk = block("b", vec![], store(b, vec![int(0)], f32c(0.0)));
        blk.reads = Some(vec![region(&c, vec![int(0)])]);
        block_stmt(blk).at(2)
    });
    assert_errors(&f, &[(2, "use of undeclared buffer `C`")]);
}

#[test]
fn alias_over_data_variable_out_of_scope() {
    let s = shared("S", F32, &[4]);
    let s_v = alias("S_v", &s, F32.with_lanes(4), &[1]);
    let f = with_ab(|_, b| {
        seq(vec![
            alloc_buffer(&s, store(&s, vec![int(0)], f32c(0.0))).at(2),
            decl_buffer(&s_v, store(b, vec![int(0)], f32c(0.0))).at(4),
        ])
    });
    assert_errors(&f, &[(4, "buffer `S_v` is declared over data variable `S`, which is not in scope")]);
}

#[test]
fn alias_of_parameter_buffer_is_well_formed() {
    let f = with_ab(|a, b| {
        let a_v = alias("A_v", a, F32.with_lanes(4), &[4]);
        decl_buffer(&a_v, store(b, vec![int(0)], f32c(0.0))).at(2)
    });
    assert_errors(&f, &[]);
}

#[test]
fn buffer_declared_twice() {
    let s = shared("S", F32, &[4]);
    let f = with_ab(|_, _| {
        seq(vec![
            alloc_buffer(&s, store(&s, vec![int(0)], f32c(0.0))).at(2),
            alloc_buffer(&s, store(&s, vec![int(0)], f32c(0.0))).at(4),
        ])
    });
    assert_errors(
        &f,
        &[
            (4, "variable `S` is bound twice (every variable must be bound exactly once)"),
            (4, "buffer `S` is declared twice"),
        ],
    );
}

#[test]
fn let_variable_bound_twice() {
    let x = i32v("x");
    let f = with_ab(|_, b| {
        seq(vec![
            let_stmt(&x, int(1), store(b, vec![v(&x)], f32c(0.0))).at(2),
            let_stmt(&x, int(2), store(b, vec![v(&x)], f32c(0.0))).at(4),
        ])
    });
    assert_errors(&f, &[(4, "variable `x` is bound twice (Let statements must be in SSA form)")]);
}

#[test]
fn loop_variable_bound_twice() {
    let i = i32v("i");
    let f = with_ab(|_, b| serial(&i, 4, serial(&i, 4, store(b, vec![v(&i)], f32c(0.0))).at(3)).at(2));
    assert_errors(&f, &[(3, "variable `i` is bound twice (every variable must be bound exactly once)")]);
}

#[test]
fn iteration_variable_bound_twice() {
    let vi = i32v("vi");
    let i = i32v("i");
    let f = with_ab(|_, b| {
        let inner = block_stmt(block("c", vec![iter_var(&vi, 4, v(&i))], store(b, vec![v(&vi)], f32c(0.0)))).at(4);
        let outer = block_stmt(block("b", vec![iter_var(&vi, 4, v(&i))], inner)).at(3);
        serial(&i, 4, outer).at(2)
    });
    assert_errors(&f, &[(4, "variable `vi` is bound twice (every variable must be bound exactly once)")]);
}

#[test]
fn a_thread_may_be_launched_again() {
    let tx = i32v("tx");
    let f = with_ab(|_, b| {
        seq(vec![
            launch(&tx, "threadIdx.x", int(16), store(b, vec![v(&tx)], f32c(0.0))).at(2),
            launch(&tx, "threadIdx.x", int(16), store(b, vec![v(&tx)], f32c(1.0))).at(4),
        ])
    });
    assert_errors(&f, &[]);
}

#[test]
fn iteration_binding_sees_outer_loops_but_not_the_block() {
    let vi = i32v("vi");
    let f =
        with_ab(|_, b| block_stmt(block("b", vec![iter_var(&vi, 4, v(&vi))], store(b, vec![v(&vi)], f32c(0.0)))).at(2));
    assert_errors(&f, &[(2, "variable `vi` is used outside the scope that binds it")]);
}

#[test]
fn parameter_buffer_shapes_define_their_variables() {
    let n = i32v("n");
    let a = crate::buffer::BufferSpec::new("A", F32, vec![v(&n)], "global").build();
    let i = i32v("i");
    let body = for_stmt(loop_of(crate::stmt::ForKind::Serial, &i, v(&n), store(&a, vec![v(&i)], f32c(0.0)))).at(2);
    assert_errors(&func(vec![bparam(&a)], body), &[]);
}

#[test]
fn declared_buffer_shapes_must_be_in_scope() {
    let n = i32v("n");
    let f = with_ab(|a, _| {
        let mut spec = a.to_spec();
        spec.name = "A_n".into();
        spec.shape = vec![v(&n)];
        let a_n = spec.build();
        decl_buffer(&a_n, store(&a_n, vec![int(0)], f32c(0.0))).at(2)
    });
    assert_errors(&f, &[(2, "use of undefined variable `n`")]);
}

#[test]
fn allocate_binds_its_data_variable() {
    let data = var("buf", DataType::HANDLE);
    let f = with_ab(|_, b| {
        let ptr = Expr::Call(crate::expr::Call {
            name: "tvm_access_ptr".into(),
            dtype: DataType::HANDLE,
            args: vec![v(&data)],
            effect: crate::expr::CallEffect::ReadState,
            external: false,
        });
        allocate(&data, F32, vec![int(4)], seq(vec![evaluate(ptr).at(3), store(b, vec![int(0)], f32c(0.0)).at(4)]))
            .at(2)
    });
    assert_errors(&f, &[]);
    let g = with_ab(|_, _| evaluate(v(&data)).at(5));
    assert_errors(&g, &[(5, "use of undefined variable `buf`")]);
}
