//! Printer unit tests on hand-built IR (round trips through the parser live with the corpus).

use crate::annotation::{AnnValue, Annotations, ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_SCOPE};
use crate::buffer::BufferSpec;
use crate::dtype::DataType;
use crate::expr::{BinOp, Expr};
use crate::func::{IRModule, Param, PrimFunc};
use crate::stmt::{AttrStmt, BufferStore, For, ForKind, Stmt, StmtKind};
use crate::var::Var;

use super::{print_expr, print_module};

fn store(buffer: &crate::buffer::Buffer, index: Expr, value: Expr) -> Stmt {
    Stmt::synthetic(StmtKind::Store(BufferStore { buffer: buffer.clone(), indices: vec![index], value }))
}

fn attr(key: &str, value: i64, body: Stmt) -> Stmt {
    Stmt::synthetic(StmtKind::Attr(AttrStmt {
        node: None,
        key: key.into(),
        value: Expr::int(value),
        body: Box::new(body),
    }))
}

#[test]
fn prints_a_pipelined_loop() {
    let a = BufferSpec::new("A", DataType::FLOAT32, vec![Expr::int(16)], "global").build();
    let b = BufferSpec::new("B", DataType::FLOAT32, vec![Expr::int(2)], "shared").build();
    let i = Var::new("i", DataType::INT32);
    let one = Expr::float(1.0, DataType::FLOAT32);
    let copy = store(
        &b,
        Expr::floormod(Expr::var(&i) + Expr::int(1), Expr::int(2)),
        Expr::load(&a, vec![Expr::var(&i) + Expr::int(1)]) + one,
    );
    let mut ann = Annotations::new();
    ann.insert("software_pipeline_stage", AnnValue::List(vec![AnnValue::Int(0), AnnValue::Int(1)]));
    let body = Stmt::seq(vec![attr(ASYNC_COMMIT_QUEUE_SCOPE, 0, attr(ASYNC_SCOPE, 1, copy)), Stmt::nop()]);
    let lp = Stmt::synthetic(StmtKind::For(Box::new(For {
        var: i.clone(),
        min: Expr::int(0),
        extent: Expr::int(15),
        kind: ForKind::Serial,
        thread: None,
        annotations: ann,
        body,
    })));
    let alloc =
        Stmt::synthetic(StmtKind::AllocBuffer { buffer: b, annotations: Annotations::new(), body: Box::new(lp) });
    let func = PrimFunc {
        name: "main".into(),
        params: vec![Param { var: Var::new("A_handle", DataType::HANDLE), buffer: Some(a) }],
        attrs: Annotations::new(),
        body: alloc,
        s_tir: false,
        private: false,
        span: crate::span::Span::UNKNOWN,
    };
    let module = IRModule { class_name: Some("Module".into()), functions: vec![func] };
    let expected = r#"# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32")):
        B = T.alloc_buffer((2,), "float32", scope="shared")
        for i in T.serial(15, annotations={"software_pipeline_stage": [0, 1]}):
            T.attr({"async_commit_queue_scope": 0, "async_scope": 1})
            B[(i + 1) % 2] = A[i + 1] + T.float32(1.0)
"#;
    assert_eq!(print_module(&module), expected);
}

#[test]
fn parenthesizes_by_precedence() {
    let x = Var::new("x", DataType::INT32);
    let y = Var::new("y", DataType::INT32);
    let (vx, vy) = (Expr::var(&x), Expr::var(&y));
    assert_eq!(print_expr(&(vx.clone() - (vy.clone() - Expr::int(1)))), "x - (y - 1)");
    assert_eq!(print_expr(&((vx.clone() - vy.clone()) - Expr::int(1))), "x - y - 1");
    assert_eq!(print_expr(&((vx.clone() + vy.clone()) * Expr::int(2))), "(x + y) * 2");
    assert_eq!(print_expr(&Expr::binary(BinOp::Min, vx.clone(), Expr::int(-3))), "T.min(x, -3)");
    let cmp = Expr::eq(Expr::lt(vx.clone(), vy.clone()), Expr::bool(true));
    assert_eq!(print_expr(&cmp), "(x < y) == True");
    let logic = Expr::and(Expr::or(Expr::bool(true), Expr::bool(false)), Expr::logical_not(Expr::lt(vx, vy)));
    assert_eq!(print_expr(&logic), "(True or False) and not x < y");
}

#[test]
fn prints_typed_immediates() {
    assert_eq!(print_expr(&Expr::int_of(5, DataType::INT64)), "T.int64(5)");
    assert_eq!(print_expr(&Expr::float(0.5, DataType::FLOAT16)), "T.float16(0.5)");
    assert_eq!(print_expr(&Expr::float(f64::INFINITY, DataType::FLOAT32)), "T.float32(\"inf\")");
    assert_eq!(print_expr(&Expr::float(1e20, DataType::FLOAT64)), "T.float64(1e20)");
    assert_eq!(print_expr(&Expr::Str("a\"b".into())), "\"a\\\"b\"");
}
