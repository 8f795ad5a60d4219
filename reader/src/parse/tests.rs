//! Tests of `parse_module` on valid input: every file TVM 0.27 printed parses, and the IR
//! it produces has the expected shape.

use super::parse_module;
use tirproof_ir::annotation::AnnValue;
use tirproof_ir::buffer::{Buffer, BufferRegion};
use tirproof_ir::expr::Expr;
use tirproof_ir::func::{IRModule, PrimFunc};
use tirproof_ir::stmt::{Stmt, StmtKind};

/// A compact, test-only rendering of IR (the real printer lives in `text::print`): variables
/// and buffers print as `name#id` so that identity is visible.
mod show {
    use super::*;

    pub fn expr(e: &Expr) -> String {
        match e {
            Expr::Int { value, dtype } => format!("{value}:{dtype}"),
            Expr::Float { value, dtype } => format!("{value:?}:{dtype}"),
            Expr::Str(s) => format!("{s:?}"),
            Expr::Var(v) => format!("{}#{}", v.name(), v.id().0),
            Expr::Binary { op, lhs, rhs } => format!("({} {op} {})", expr(lhs), expr(rhs)),
            Expr::Cmp { op, lhs, rhs } => format!("({} {op} {})", expr(lhs), expr(rhs)),
            Expr::Logic { op, lhs, rhs } => format!("({} {op} {})", expr(lhs), expr(rhs)),
            Expr::Not(v) => format!("not {}", expr(v)),
            Expr::Select { cond, on_true, on_false } => {
                format!("select({}, {}, {})", expr(cond), expr(on_true), expr(on_false))
            }
            Expr::IfThenElse { cond, on_true, on_false } => {
                format!("ite({}, {}, {})", expr(cond), expr(on_true), expr(on_false))
            }
            Expr::Cast { dtype, value } => format!("cast<{dtype}>({})", expr(value)),
            Expr::Ramp { base, stride, lanes } => format!("ramp({}, {}, {lanes})", expr(base), expr(stride)),
            Expr::Broadcast { value, lanes } => format!("bcast({}, {lanes})", expr(value)),
            Expr::Let { var, value, body } => format!("let {} = {} in {}", var.name(), expr(value), expr(body)),
            Expr::Load(load) => format!("{}[{}]", buffer(&load.buffer), list(&load.indices)),
            Expr::Call(call) => format!("{}:{}<{}>({})", call.name, call.dtype, call.effect, list(&call.args)),
        }
    }

    pub fn list(items: &[Expr]) -> String {
        items.iter().map(expr).collect::<Vec<_>>().join(", ")
    }

    pub fn buffer(b: &Buffer) -> String {
        format!("{}#{}", b.name(), b.id().0)
    }

    fn regions(regions: &Option<Vec<BufferRegion>>) -> String {
        let Some(regions) = regions else { return "-".to_string() };
        let one = |r: &BufferRegion| {
            let dims: Vec<_> = r.region.iter().map(|d| format!("{}+{}", expr(&d.min), expr(&d.extent))).collect();
            format!("{}[{}]", buffer(&r.buffer), dims.join(", "))
        };
        regions.iter().map(one).collect::<Vec<_>>().join(" ")
    }

    pub fn ann(value: &AnnValue) -> String {
        match value {
            AnnValue::Int(i) => i.to_string(),
            AnnValue::Float(f) => format!("{f:?}"),
            AnnValue::Bool(b) => b.to_string(),
            AnnValue::Str(s) => format!("{s:?}"),
            AnnValue::List(items) => format!("[{}]", items.iter().map(ann).collect::<Vec<_>>().join(", ")),
            AnnValue::Dict(d) => {
                format!("{{{}}}", d.iter().map(|(k, v)| format!("{k}: {}", ann(v))).collect::<Vec<_>>().join(", "))
            }
            AnnValue::Expr(e) => expr(e),
        }
    }

    pub fn stmt(s: &Stmt, indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent);
        let line = |out: &mut String, text: String| out.push_str(&format!("{pad}{text}\n"));
        match &s.kind {
            StmtKind::Store(st) => {
                line(out, format!("{}[{}] = {}", buffer(&st.buffer), list(&st.indices), expr(&st.value)))
            }
            StmtKind::Let { var, value, body } => {
                line(out, format!("let {}#{}: {} = {}", var.name(), var.id().0, var.dtype(), expr(value)));
                stmt(body, indent, out);
            }
            StmtKind::For(f) => {
                let anns: Vec<_> = f.annotations.iter().map(|(k, v)| format!("{k}={}", ann(v))).collect();
                line(
                    out,
                    format!(
                        "for {}#{}: {} in {:?}({}, {}) {:?} {}",
                        f.var.name(),
                        f.var.id().0,
                        f.var.dtype(),
                        f.kind,
                        expr(&f.min),
                        expr(&f.extent),
                        f.thread,
                        anns.join(" ")
                    ),
                );
                stmt(&f.body, indent + 1, out);
            }
            StmtKind::If { cond, then_case, else_case } => {
                line(out, format!("if {}", expr(cond)));
                stmt(then_case, indent + 1, out);
                if let Some(e) = else_case {
                    line(out, "else".to_string());
                    stmt(e, indent + 1, out);
                }
            }
            StmtKind::Seq(items) => {
                if items.is_empty() {
                    line(out, "pass".to_string());
                }
                items.iter().for_each(|i| stmt(i, indent, out));
            }
            StmtKind::Attr(a) => {
                let node = a.node.as_ref().map_or(String::new(), |n| format!("{} ", expr(n)));
                line(out, format!("attr {node}{} = {}", a.key, expr(&a.value)));
                stmt(&a.body, indent + 1, out);
            }
            StmtKind::Allocate(a) => {
                line(
                    out,
                    format!(
                        "allocate {}#{} {} [{}] {} if {}",
                        a.data.name(),
                        a.data.id().0,
                        a.dtype,
                        list(&a.extents),
                        a.scope,
                        expr(&a.condition)
                    ),
                );
                stmt(&a.body, indent, out);
            }
            StmtKind::AllocBuffer { buffer: b, annotations, body } => {
                let anns: Vec<_> = annotations.iter().map(|(k, v)| format!("{k}={}", ann(v))).collect();
                line(out, format!("alloc_buffer {} {}", decl(b), anns.join(" ")));
                stmt(body, indent, out);
            }
            StmtKind::DeclBuffer { buffer: b, body } => {
                line(out, format!("decl_buffer {}", decl(b)));
                stmt(body, indent, out);
            }
            StmtKind::Evaluate(e) => line(out, format!("evaluate {}", expr(e))),
            StmtKind::Barrier { scope } => line(out, format!("barrier {scope}")),
            StmtKind::LaunchThread { var, tag, extent, body } => {
                line(out, format!("launch {}#{}: {} {tag} {}", var.name(), var.id().0, var.dtype(), expr(extent)));
                stmt(body, indent, out);
            }
            StmtKind::Block(b) => {
                let iters: Vec<_> = b
                    .iter_vars
                    .iter()
                    .map(|iv| {
                        format!(
                            "{}#{}:{:?}({}, {})={}",
                            iv.var.name(),
                            iv.var.id().0,
                            iv.kind,
                            expr(&iv.min),
                            expr(&iv.extent),
                            expr(&iv.binding)
                        )
                    })
                    .collect();
                line(out, format!("block {:?} [{}]", b.name, iters.join(" ")));
                if let Some(p) = &b.predicate {
                    line(out, format!("  where {}", expr(p)));
                }
                line(out, format!("  reads {}", regions(&b.reads)));
                line(out, format!("  writes {}", regions(&b.writes)));
                for (k, v) in b.annotations.iter() {
                    line(out, format!("  ann {k}={}", ann(v)));
                }
                for a in &b.alloc_buffers {
                    line(out, format!("  alloc {}", decl(&a.buffer)));
                }
                if let Some(init) = &b.init {
                    line(out, "  init".to_string());
                    stmt(init, indent + 2, out);
                }
                stmt(&b.body, indent + 1, out);
            }
        }
    }

    pub fn decl(b: &Buffer) -> String {
        let n = b.node();
        format!(
            "{} {} [{}] data={}#{} scope={} strides=[{}] offset={}",
            buffer(b),
            n.dtype,
            list(&n.shape),
            n.data.name(),
            n.data.id().0,
            n.scope,
            list(&n.strides),
            expr(&n.elem_offset)
        )
    }

    pub fn func(f: &PrimFunc) -> String {
        let mut out = format!("func {} s_tir={} private={}\n", f.name, f.s_tir, f.private);
        for p in &f.params {
            let b = p.buffer.as_ref().map_or(String::new(), |b| format!(" -> {}", decl(b)));
            out.push_str(&format!("param {}#{}: {}{b}\n", p.var.name(), p.var.id().0, p.var.dtype()));
        }
        for (k, v) in f.attrs.iter() {
            out.push_str(&format!("attr {k}={}\n", ann(v)));
        }
        stmt(&f.body, 1, &mut out);
        out
    }

    pub fn module(m: &IRModule) -> String {
        let mut out = format!("module {:?}\n", m.class_name);
        m.functions.iter().for_each(|f| out.push_str(&func(f)));
        out
    }
}

/// Parses `source`, panicking with the rendered diagnostics on failure.
fn parse_ok(source: &str) -> IRModule {
    match parse_module(source) {
        Ok(m) => m,
        Err(d) => panic!("{}", d.render("test.py", source)),
    }
}

/// The first function of a module parsed from `source`.
fn func_of(source: &str) -> PrimFunc {
    parse_ok(source).functions.into_iter().next().expect("one function")
}

macro_rules! printed {
    ($name:literal) => {
        ($name, include_str!(concat!("../../../corpus/tvm/", $name)))
    };
}

const PRINTED: [(&str, &str); 12] = [
    printed!("seed_a_input.py"),
    printed!("seed_a_after_pipeline.py"),
    printed!("seed_a_after_flatten_cse.py"),
    printed!("seed_a_tx_input.py"),
    printed!("seed_a_tx_after_pipeline.py"),
    printed!("seed_a_tx_after_flatten_cse.py"),
    printed!("seed_b_input.py"),
    printed!("seed_b_after_pipeline.py"),
    printed!("seed_b_after_flatten_cse.py"),
    printed!("seed_c_input.py"),
    printed!("seed_c_after_pipeline.py"),
    printed!("seed_c_after_flatten_cse.py"),
];

#[test]
fn every_tvm_printed_file_parses() {
    for (name, source) in PRINTED {
        if let Err(diags) = parse_module(source) {
            panic!("{name}:\n{}", diags.render(name, source));
        }
    }
}

/// `show::func` of the first function, without the `#id` suffixes.
fn render(source: &str) -> String {
    strip_ids(&show::func(&func_of(source)))
}

fn strip_ids(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '#' && chars.peek().is_some_and(char::is_ascii_digit) {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Wraps statements (indented by 4) in a bare function with the usual buffers.
fn wrap(body: &str) -> String {
    format!(
        "@T.prim_func\ndef main(A: T.Buffer((16,), \"float32\"), B: T.Buffer((4, 8), \"int32\"), n: T.int32, x: T.float32):\n{body}"
    )
}

/// The rendered body lines of `wrap(body)` (without the function and parameter lines).
fn body_of(body: &str) -> String {
    let text = render(&wrap(body));
    text.lines().skip(5).map(|l| format!("{}\n", l.strip_prefix("  ").unwrap_or(l))).collect()
}

#[test]
fn seed_b_epilogue_wait_count_is_a_subtraction() {
    let (_, source) = PRINTED[8];
    let text = show::module(&parse_ok(source));
    assert!(strip_ids(&text).contains("attr async_wait_inflight_count = (0:int32 - i)"), "{text}");
    // Structurally: Sub(Int 0, Var i) where i is the epilogue loop's variable.
    let func = func_of(source);
    let mut found = false;
    let mut stack = vec![&func.body];
    while let Some(stmt) = stack.pop() {
        match &stmt.kind {
            StmtKind::Attr(attr) if attr.key == "async_wait_inflight_count" => {
                if let Expr::Binary { op: tirproof_ir::expr::BinOp::Sub, lhs, rhs } = &attr.value {
                    assert_eq!(**lhs, Expr::int(0));
                    assert_eq!(rhs.as_var().map(|v| v.name()), Some("i"));
                    found = true;
                }
                stack.push(&attr.body);
            }
            StmtKind::Seq(items) => stack.extend(items),
            StmtKind::If { then_case, .. } => stack.push(then_case),
            _ => stack.extend(stmt.body()),
        }
    }
    assert!(found);
}

#[test]
fn seed_a_input_loop_annotations_keep_order() {
    let func = func_of(PRINTED[0].1);
    let StmtKind::For(loop_) = &func.body.kind else { panic!("{:?}", func.body.kind) };
    let keys: Vec<_> = loop_.annotations.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["software_pipeline_stage", "software_pipeline_order", "software_pipeline_async_stages"]);
    let lists: Vec<_> = loop_.annotations.iter().map(|(_, v)| v.as_int_list()).collect();
    assert_eq!(lists, [Some(vec![0, 1]), Some(vec![0, 1]), Some(vec![0])]);
    assert!(
        matches!(loop_.annotations.get("software_pipeline_stage"), Some(AnnValue::List(items)) if matches!(items[0], AnnValue::Int(0)))
    );
    assert_eq!((loop_.min.clone(), loop_.extent.clone()), (Expr::int(0), Expr::int(16)));
    assert!(func.s_tir && !func.private);
}

#[test]
fn seed_a_tx_view_aliases_the_parameter_data() {
    let module = parse_ok(PRINTED[5].1);
    assert_eq!(module.class_name.as_deref(), Some("Module"));
    let func = &module.functions[0];
    let a = func.params[0].buffer.clone().expect("A is a buffer parameter");
    assert_eq!(func.params[0].var.name(), "A_handle");
    assert_eq!(a.data().name(), "A");
    let StmtKind::DeclBuffer { buffer: a1, body } = &func.body.kind else { panic!() };
    assert_eq!(a1.name(), "A_1");
    assert_eq!(a1.data(), a.data());
    assert_eq!(a1.shape(), [Expr::int(512)]);
    assert_eq!(a1.dtype(), a.dtype());
    assert_ne!(a1, &a);
    let StmtKind::DeclBuffer { buffer: c1, body } = &body.kind else { panic!() };
    assert_eq!(Some(c1.data()), func.params[1].buffer.as_ref().map(Buffer::data));
    assert!(
        matches!(&body.kind, StmtKind::LaunchThread { tag, extent, .. } if tag == "threadIdx.x" && *extent == Expr::int(32))
    );
}

#[test]
fn seed_flatten_cse_decl_buffer_and_alloc_shared() {
    let text = strip_ids(&show::module(&parse_ok(PRINTED[2].1)));
    assert!(text.contains("decl_buffer A_1 float32 [16:int32] data=A scope=global"), "{text}");
    assert!(text.contains("alloc_buffer B float32 [2:int32] data=B scope=shared strides=[] offset=0:int32 buffer_allocated_addr=[] buffer_data_alignment=64"), "{text}");
    assert!(text.contains("let cse_v1: int32 = (i + 1:int32)"), "{text}");
}

#[test]
fn seed_after_pipeline_blocks() {
    let text = strip_ids(&show::module(&parse_ok(PRINTED[1].1)));
    let expected = "      block \"\" []
        reads A[1:int32+15:int32] B[0:int32+2:int32, 0:int32+1:int32]
        writes B[0:int32+2:int32, 0:int32+1:int32] C[0:int32+15:int32]
        for i: int32 in Serial(0:int32, 15:int32) None 
          block \"\" []
            where ((i + 1:int32) < 16:int32)
            reads A[(i + 1:int32)+1:int32]
            writes B[((i + 1:int32) % 2:int32)+1:int32, 0:int32+1:int32]
            ann async_commit_queue_scope=0
            ann async_scope=1
            B[((i + 1:int32) % 2:int32), 0:int32] = (A[(i + 1:int32)] + 1.0:float32)
";
    assert!(text.contains(expected), "{text}");
    // `T.reads()` is an empty list; an absent `T.reads` is None.
    assert!(text.contains("block \"root\" []\n    reads \n    writes \n"), "{text}");
    let tx = strip_ids(&show::module(&parse_ok(PRINTED[3].1)));
    assert!(tx.contains("block \"\" []\n          reads -\n          writes -\n"), "{tx}");
}

#[test]
fn loop_bounds_follow_the_min_extent_rule() {
    let body = "    for i in range(2, 16):\n        A[i] = 1\n    for j in range(n, n + 4):\n        A[j] = x\n    for k in T.serial(n, 16):\n        A[k] = -x\n    for t in T.thread_binding(2, 34, thread=\"threadIdx.x\"):\n        B[0, t] = ~t\n";
    let expected = "for i: int32 in Serial(2:int32, 14:int32) None 
  A[i] = 1.0:float32
for j: int32 in Serial(n, 4:int32) None 
  A[j] = x
for k: int32 in Serial(n, (16:int32 - n)) None 
  A[k] = (0.0:float32 - x)
for t: int32 in ThreadBinding(2:int32, 32:int32) Some(\"threadIdx.x\") 
  B[0:int32, t] = (t ^ -1:int32)
";
    assert_eq!(body_of(body), expected);
}

#[test]
fn int64_loops_and_grids() {
    let body = "    for i in range(T.int64(8)):\n        A[i] = 1.5\n    for i, j in T.grid(4, 8):\n        B[i, j] = i * 8 + j\n    for v in T.vectorized(4):\n        for p in T.parallel(2):\n            for u in T.unroll(1, 3, annotations={\"pragma\": 1}):\n                pass\n";
    let expected = "for i: int64 in Serial(0:int64, 8:int64) None 
  A[i] = 1.5:float32
for i: int32 in Serial(0:int32, 4:int32) None 
  for j: int32 in Serial(0:int32, 8:int32) None 
    B[i, j] = ((i * 8:int32) + j)
for v: int32 in Vectorized(0:int32, 4:int32) None 
  for p: int32 in Parallel(0:int32, 2:int32) None 
    for u: int32 in Unrolled(1:int32, 2:int32) None pragma=1
      pass
";
    assert_eq!(body_of(body), expected);
}

#[test]
fn lets_branches_and_literal_typing() {
    let body = "    y: T.let[T.int32] = n + 1\n    z = y * 2\n    if z < 3:\n        A[0] = x + 1\n    elif z < 4:\n        pass\n    else:\n        A[1] = T.max(x, 0)\n    A[2] = T.Cast(\"float32\", z)\n    w: T.let[T.float32] = 2\n    A[3] = 1 + w\n    B[0, 0] = -5 + -n\n";
    let expected = "let y: int32 = (n + 1:int32)
let z: int32 = (y * 2:int32)
if (z < 3:int32)
  A[0:int32] = (x + 1.0:float32)
else
  if (z < 4:int32)
    pass
  else
    A[1:int32] = (x T.max 0.0:float32)
A[2:int32] = cast<float32>(z)
let w: float32 = 2.0:float32
A[3:int32] = (1.0:float32 + w)
B[0:int32, 0:int32] = (-5:int32 + (0:int32 - n))
";
    assert_eq!(body_of(body), expected);
}

#[test]
fn allocations_barriers_and_calls() {
    let body = "    buf = T.allocate([16], \"float32\", \"shared\")\n    S = T.decl_buffer((16,), data=buf)\n    S[0] = T.exp(S[1]) + T.pow(x, 2)\n    T.tvm_storage_sync(\"shared\")\n    T.evaluate(T.tvm_storage_sync(\"shared\"))\n    T.evaluate(T.call_extern(\"int32\", \"foo\", n, 1))\n    T.evaluate(T.call_pure_extern(\"float32\", \"bar\"))\n    with T.alloc_buffer((4,), \"int8\", scope=\"local\") as L:\n        L[0] = 3\n    D = T.decl_buffer(4, \"int32\")\n    D[0] = x ** 2\n";
    let expected = "allocate buf float32 [16:int32] shared if 1:bool
decl_buffer S float32 [16:int32] data=buf scope=global strides=[] offset=0:int32
S[0:int32] = (exp:float32<pure>(S[1:int32]) + pow:float32<pure>(x, 2.0:float32))
barrier shared
barrier shared
evaluate foo:int32<opaque>(n, 1:int32)
evaluate bar:float32<pure>()
alloc_buffer L int8 [4:int32] data=L scope=local strides=[] offset=0:int32 
L[0:int32] = 3:int8
decl_buffer D int32 [4:int32] data=D scope=global strides=[] offset=0:int32
D[0:int32] = pow:float32<pure>(x, 2.0:float32)
";
    assert_eq!(body_of(body), expected);
}

#[test]
fn thread_launches_and_attrs() {
    let body = "    with T.launch_thread(\"blockIdx.x\", 4) as bx:\n        tx = T.env_thread(\"threadIdx.x\")\n        T.launch_thread(tx, 32)\n        with T.attr(A.data, \"storage_alignment\", 128):\n            A[tx] = T.float32(bx)\n        T.attr({\"a\": 1, \"b\": T.if_then_else(bx < 2, 1, 0)})\n        A[0] = 0\n        A[1] = 1\n";
    let expected = "launch bx: int32 blockIdx.x 4:int32
launch tx: int32 threadIdx.x 32:int32
attr A storage_alignment = 128:int32
  A[tx] = cast<float32>(bx)
attr a = 1:int32
  attr b = ite((bx < 2:int32), 1:int32, 0:int32)
    A[0:int32] = 0.0:float32
    A[1:int32] = 1.0:float32
";
    assert_eq!(body_of(body), expected);
}

#[test]
fn block_headers() {
    let body = "    with T.sblock(\"b\"):\n        vi = T.axis.spatial(16, n)\n        vr = T.axis.reduce((2, 10), n)\n        T.where(vi < 8)\n        T.reads(A[vi], B[0:4, vr])\n        T.writes(A)\n        T.attr({\"k\": [1, 2.5, \"s\", True, {\"d\": 1}], \"e\": n + 1})\n        L = T.sblock_alloc_buffer((2,), \"int32\", scope=\"local\")\n        with T.init():\n            A[vi] = 0\n        A[vi] = A[vi] + 1\n    for i, j in T.grid(4, 8):\n        with T.sblock(\"c\"):\n            vi, vj = T.axis.remap(\"SR\", [i, j])\n            B[vi, vj] = B[vi, vj] + 1\n";
    let expected = "block \"b\" [vi:Spatial(0:int32, 16:int32)=n vr:Reduce(2:int32, 8:int32)=n]
  where (vi < 8:int32)
  reads A[vi+1:int32] B[0:int32+4:int32, vr+1:int32]
  writes A[0:int32+16:int32]
  ann k=[1, 2.5, \"s\", true, {d: 1}]
  ann e=(n + 1:int32)
  alloc L int32 [2:int32] data=L scope=local strides=[] offset=0:int32
  init
    A[vi] = 0.0:float32
  A[vi] = (A[vi] + 1.0:float32)
for i: int32 in Serial(0:int32, 4:int32) None 
  for j: int32 in Serial(0:int32, 8:int32) None 
    block \"c\" [vi:Spatial(0:int32, 4:int32)=i vj:Reduce(0:int32, 8:int32)=j]
      reads -
      writes -
      B[vi, vj] = (B[vi, vj] + 1:int32)
";
    assert_eq!(body_of(body), expected);
}

#[test]
fn vector_expressions() {
    let body = "    A[0] = T.Let(v * 2.0, where={v: x + 1})\n    A[T.ramp(0, 1, 4)] = T.broadcast(x, 4)\n    A[0:4] = A[4:8] + 1\n    A[1] = T.if_then_else(n < 2, 1, x)\n    A[2] = T.float32(\"inf\")\n    A[0:4] = 0\n    A[3] = T.Select(not n == 1 and True, T.float16(0.5), T.bool(True))\n";
    let expected = "A[0:int32] = let v = (x + 1.0:float32) in (v * 2.0:float32)
A[ramp(0:int32, 1:int32, 4)] = bcast(x, 4)
A[ramp(0:int32, 1:int32, 4)] = (A[ramp(4:int32, 1:int32, 4)] + bcast(1.0:float32, 4))
A[1:int32] = ite((n < 2:int32), 1.0:float32, x)
A[2:int32] = inf:float32
A[ramp(0:int32, 1:int32, 4)] = bcast(0.0:float32, 4)
A[3:int32] = select((not (n == 1:int32) and 1:bool), 0.5:float16, 1:bool)
";
    assert_eq!(body_of(body), expected);
}

#[test]
fn names_shadow_and_expire() {
    let body = "    for i in range(2):\n        A[i] = 0\n    for i in range(3):\n        A[i] = 1\n    y: T.let[T.int32] = 1\n    y: T.let[T.int32] = y + 1\n    B[0, 0] = y\n";
    let func = func_of(&wrap(body));
    let text = show::func(&func);
    // The two loops have distinct variables; the second `y` reads the first.
    let StmtKind::Seq(items) = &func.body.kind else { panic!("{text}") };
    let (StmtKind::For(a), StmtKind::For(b)) = (&items[0].kind, &items[1].kind) else { panic!() };
    assert_ne!(a.var, b.var);
    let StmtKind::Let { var: y1, body, .. } = &items[2].kind else { panic!() };
    let StmtKind::Let { var: y2, value, .. } = &body.kind else { panic!() };
    assert_ne!(y1, y2);
    assert_eq!(*value, Expr::var(y1) + Expr::int(1));
}

#[test]
fn function_level_forms() {
    let source = "# from tvm.script import tirx as T\nimport tvm\nfrom tvm.script import tir as T\n\n@T.prim_func(private=True)\ndef f(a: T.handle, n: T.int32, h: T.handle) -> None:\n    T.func_attr({\"global_symbol\": \"f\", \"tir.noalias\": True})\n    A = T.match_buffer(a, (n,), \"int32\", strides=(1,), elem_offset=0, scope=\"global\", align=64, offset_factor=1)\n    A[0] = n\n\n@T.prim_func\ndef g():\n    \"\"\"A docstring.\"\"\"\n    T.evaluate(0)\n";
    let module = parse_ok(source);
    assert_eq!(module.class_name, None);
    assert_eq!(module.functions.len(), 2);
    let f = &module.functions[0];
    assert!(f.private && !f.s_tir);
    assert_eq!(f.attrs.get("global_symbol"), Some(&AnnValue::Str("f".to_string())));
    assert_eq!(f.attrs.get("tir.noalias"), Some(&AnnValue::Bool(true)));
    let a = f.params[0].buffer.as_ref().expect("matched");
    assert_eq!(a.name(), "A");
    assert_eq!(a.shape(), [Expr::var(&f.params[1].var)]);
    assert_eq!((a.node().align, a.node().offset_factor), (64, 1));
    assert!(f.params[2].buffer.is_none());
    assert_eq!(strip_ids(&show::func(&module.functions[1])), "func g s_tir=false private=false\n  evaluate 0:int32\n");
}

#[test]
fn one_statement_is_not_a_sequence() {
    let func = func_of(&wrap("    A[0] = 1\n"));
    assert!(matches!(func.body.kind, StmtKind::Store(_)));
    let func = func_of(&wrap("    pass\n"));
    assert!(func.body.is_nop());
}

#[test]
fn deep_but_legal_nesting_parses() {
    // 198 nested parentheses and 60 nested loops are within the limits.
    let expr = format!("{}x{}", "(".repeat(198), ")".repeat(198));
    parse_ok(&wrap(&format!("    A[0] = {expr}\n")));
    let mut body = String::new();
    for depth in 0..60 {
        body.push_str(&format!("{}for i{depth} in range(2):\n", "    ".repeat(depth + 1)));
    }
    body.push_str(&format!("{}A[0] = x\n", "    ".repeat(61)));
    parse_ok(&wrap(&body));
}

#[test]
fn more_scoping_forms() {
    let body = "    with T.LetStmt(n + 1) as y:\n        B[0, 0] = y\n    with T.allocate([4], \"int32\", \"local\", n < 3, annotations={\"a\": 1}) as buf:\n        T.attr(0, \"pragma\", 1)\n        L = T.decl_buffer((4,), \"int32\", data=buf, scope=\"local\")\n        L[0] = T.if_then_else(n < 4, L[1], 0)\n    with T.decl_buffer((2, 2), \"float16\") as H:\n        H[0, 1] = 1\n    for i in T.thread_binding(0, 32, \"threadIdx.y\", annotations={\"x\": \"y\"}):\n        for j in range(0, 8, 1):\n            T.evaluate(T.likely(i < j))\n";
    // (`show` prints the bodies of lets, allocations and declarations unindented.)
    let expected = "let y: int32 = (n + 1:int32)
B[0:int32, 0:int32] = y
allocate buf int32 [4:int32] local if (n < 3:int32)
attr 0:int32 pragma = 1:int32
  decl_buffer L int32 [4:int32] data=buf scope=local strides=[] offset=0:int32
  L[0:int32] = ite((n < 4:int32), L[1:int32], 0:int32)
decl_buffer H float16 [2:int32, 2:int32] data=H scope=global strides=[] offset=0:int32
H[0:int32, 1:int32] = 1.0:float16
for i: int32 in ThreadBinding(0:int32, 32:int32) Some(\"threadIdx.y\") x=\"y\"
  for j: int32 in Serial(0:int32, 8:int32) None 
    evaluate likely:bool<pure>((i < j))
";
    assert_eq!(body_of(body), expected);
}

#[test]
fn alloc_buffer_ends_a_block_header() {
    let body = "    with T.sblock(\"b\"):\n        T.reads()\n        S = T.alloc_buffer((4,), scope=\"shared\")\n        T.attr({\"k\": 1})\n        S[0] = 1\n";
    let expected = "block \"b\" []
  reads 
  writes -
  alloc_buffer S float32 [4:int32] data=S scope=shared strides=[] offset=0:int32 
  attr k = 1:int32
    S[0:int32] = 1.0:float32
";
    assert_eq!(body_of(body), expected);
}

#[test]
fn symbolic_shapes_and_subscript_buffers() {
    let source = "@T.prim_func\ndef f(a: T.handle, B: T.Buffer[(8,), \"int8\"]):\n    n = T.int32()\n    A = T.match_buffer(a, (n,), \"float32\")\n    for i in range(n):\n        A[i] = T.Cast(\"float32\", B[0])\n";
    let func = func_of(source);
    let a = func.params[0].buffer.as_ref().expect("matched");
    let Some(n) = a.shape()[0].as_var() else { panic!("symbolic shape") };
    assert_eq!(n.name(), "n");
    let StmtKind::For(f) = &func.body.kind else { panic!() };
    assert_eq!(f.extent, Expr::var(n));
    assert_eq!(func.params[1].buffer.as_ref().map(|b| b.dtype()), Some(tirproof_ir::dtype::DataType::INT8));
}

/// An intrinsic's literal argument of another type than its sibling prints typed: the reader
/// would give a bare one the sibling's type (a mutated corpus file found `T.pow(f, 0)` reading
/// back as `T.pow(f, T.float32(0.0))`).
#[test]
fn intrinsic_literals_of_another_type_round_trip() {
    let source = wrap("    A[0] = T.pow(T.float32(2.0), T.int32(0))\n    A[1] = T.pow(x, T.int32(3))\n");
    let module = parse_ok(&source);
    let printed = tirproof_ir::print::print_module(&module);
    assert!(printed.contains("T.pow(T.float32(2.0), T.int32(0))"), "{printed}");
    let diff = tirproof_ir::structural::module_diff(&module, &parse_ok(&printed));
    assert!(diff.is_none(), "{diff:?}\n{printed}");
}

#[test]
fn root_block_allocations_at_function_level_are_the_implicit_root_blocks() {
    // TVM prints the implicit root block of an S-TIR function as a comment, with its
    // allocations at function level: the same function as the explicit block.
    let header = "@T.prim_func(s_tir=True)\ndef main(A: T.Buffer((4,), \"float32\")):\n";
    let implicit = format!(
        "{header}    # with T.sblock(\"root\"):\n    S = T.sblock_alloc_buffer((1,))\n    for i in range(4):\n        S[0] = A[i]\n        A[i] = S[0]\n"
    );
    let explicit = format!(
        "{header}    with T.sblock(\"root\"):\n        S = T.sblock_alloc_buffer((1,))\n        for i in range(4):\n            S[0] = A[i]\n            A[i] = S[0]\n"
    );
    assert_eq!(render(&implicit), render(&explicit));
    // Outside an S-TIR function there is no root block to allocate in.
    let plain = implicit.replace("(s_tir=True)", "");
    let errors = parse_module(&plain).err().map(|d| d.render("f.py", &plain)).unwrap_or_default();
    assert!(errors.contains("`T.sblock_alloc_buffer` outside a block"), "{errors}");
}

#[test]
fn tvm_scalars_are_one_element_buffers_their_names_stand_for() {
    // TVM 0.27 prints a one-element buffer as a scalar: declared `x: T.float32 = e`,
    // `x: T.float32` or `x = T.shared_scalar(T.float32)`, its name standing for its element.
    let header = "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), K: T.Buffer((1,), \"float32\")):\n    for i in range(4):\n";
    let sugar = format!(
        "{header}        S: T.float32 = A[i]\n        U = T.shared_scalar(T.float32)\n        U = S + K\n        V: T.float32\n        V = U\n        A[i] = V\n        K = V\n"
    );
    let explicit = format!(
        "{header}        S = T.alloc_buffer((1,), \"float32\", scope=\"local\")\n        S[0] = A[i]\n        U = T.alloc_buffer((1,), \"float32\", scope=\"shared\")\n        U[0] = S[0] + K[0]\n        V = T.alloc_buffer((1,), \"float32\", scope=\"local\")\n        V[0] = U[0]\n        A[i] = V[0]\n        K[0] = V[0]\n"
    );
    assert_eq!(render(&sugar), render(&explicit));
    // A let binding keeps `T.let`; a scalar of one type does not take a value of another.
    let let_binding = format!("{header}        y: T.let[T.int32] = i * 2\n        A[y % 4] = K\n");
    assert!(render(&let_binding).contains("let y: int32"), "{}", render(&let_binding));
    let mismatch = format!("{header}        S: T.float32 = A[i]\n        S = T.int64(2)\n");
    let errors = parse_module(&mismatch).err().map(|d| d.render("f.py", &mismatch)).unwrap_or_default();
    assert!(errors.contains("type mismatch in the store to `S`"), "{errors}");
}
