//! The CSE quality suite: 60 expression-heavy functions in six families, generated
//! deterministically (a fixed linear congruential generator), shared by the benchmark
//! (`benches/cse.rs`), the report (`examples/cse_quality.rs`) and the quality test
//! (`tests/cse_quality.rs`) through `#[path]`.
//!
//! Families: `pipelined` (index arithmetic of a software-pipelined, double-buffered loop, as
//! the pipeline pass emits it), `flattened` (2-D accesses flattened to 1-D, with the row-major
//! offset written in both operand orders), `commuted` (duplicates with operands swapped),
//! `reassociated` (sums and products regrouped), `nested_lets` (lets whose values share
//! subterms), `distributed` (products over sums, written factored and expanded).
//! Invariant: every function of `commuted` and `reassociated` has duplicates that only a
//! semantic grouping finds.

#![expect(dead_code, reason = "each target that includes the suite uses a different part of it")]

use std::fmt::Write as _;

/// One generated function.
pub struct BenchProgram {
    pub family: &'static str,
    pub name: String,
    pub text: String,
}

/// The families, in report order.
pub const FAMILIES: [&str; 6] = ["pipelined", "flattened", "commuted", "reassociated", "nested_lets", "distributed"];

/// Families where `cse-semantic` must leave strictly fewer operations than `cse`.
pub const SEMANTIC_WINS: [&str; 2] = ["commuted", "reassociated"];

/// A tiny deterministic generator.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below.max(1)
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.next(items.len() as u64) as usize]
    }
}

const HEADER: &str = "from tvm.script import tirx as T\n\n@T.prim_func\n";

/// All 60 functions.
pub fn suite() -> Vec<BenchProgram> {
    let mut out = Vec::new();
    for k in 0..10u64 {
        out.push(pipelined(k));
        out.push(flattened(k));
        out.push(commuted(k));
        out.push(reassociated(k));
        out.push(nested_lets(k));
        out.push(distributed(k));
    }
    out
}

fn program(family: &'static str, k: u64, params: &str, body: &str) -> BenchProgram {
    let name = format!("{family}_{k}");
    BenchProgram { family, name: name.clone(), text: format!("{HEADER}def {name}({params}):\n{body}") }
}

fn pipelined(k: u64) -> BenchProgram {
    let mut g = Lcg(k + 1);
    let (stride, vec) = (64 << g.next(3), 2 << g.next(2));
    let stages = 2 + g.next(2);
    let mut body =
        String::from("    for tx in T.thread_binding(16, thread=\"threadIdx.x\"):\n        for i in range(7):\n");
    for lane in 0..vec {
        // The copy of the next iteration into the next buffer version.
        let _ = writeln!(
            body,
            "            B[(i + 1) % {stages} * {stride} + tx * {vec} + {lane}] = A[(i + 1) * {stride} + tx * {vec} + {lane}]"
        );
    }
    let _ = writeln!(
        body,
        "            C[i * {stride} + tx * {vec}] = B[i % {stages} * {stride} + tx * {vec}] + B[i % {stages} * {stride} + tx * {vec} + 1]"
    );
    let params =
        "A: T.Buffer((8192,), \"float32\"), B: T.Buffer((8192,), \"float32\"), C: T.Buffer((8192,), \"float32\")";
    program("pipelined", k, params, &body)
}

fn flattened(k: u64) -> BenchProgram {
    let mut g = Lcg(k + 101);
    let width = 8 << g.next(3);
    let tile = 4 << g.next(2);
    let mut body = String::from("    for i in range(8):\n        for j in range(8):\n");
    let offsets = [format!("i * {width} + j"), format!("j + i * {width}")];
    for s in 0..3 {
        let a = &offsets[(s + k as usize) % 2];
        let b = &offsets[(s + 1 + k as usize) % 2];
        let _ =
            writeln!(body, "            B[({a}) // {tile} * {tile} + ({b}) % {tile} + {s}] = A[{a}] * A[{b} + {s}]");
    }
    program("flattened", k, "A: T.Buffer((4096,), \"int32\"), B: T.Buffer((4096,), \"int32\")", &body)
}

fn commuted(k: u64) -> BenchProgram {
    let mut g = Lcg(k + 201);
    let ops = ["+", "*"];
    let mut body = String::new();
    for s in 0..4 {
        let (o1, o2) = (g.pick(&ops), g.pick(&ops));
        let c = 1 + g.next(7);
        let first = format!("(x {o1} y) {o2} (z + {c})");
        let swapped = format!("({c} + z) {o2} (y {o1} x)");
        let _ = writeln!(body, "    A[{s}] = {first} - w");
        let _ = writeln!(body, "    A[{}] = w * ({swapped})", s + 4);
    }
    program("commuted", k, "x: T.int32, y: T.int32, z: T.int32, w: T.int32, A: T.Buffer((16,), \"int32\")", &body)
}

fn reassociated(k: u64) -> BenchProgram {
    let mut g = Lcg(k + 301);
    let mut body = String::new();
    for s in 0..4 {
        let c = 1 + g.next(9);
        let op = g.pick(&["+", "*"]);
        let _ = writeln!(body, "    A[{s}] = (x {op} y) {op} (z {op} {c}) + w");
        let _ = writeln!(body, "    A[{}] = x {op} (y {op} z {op} {c}) - w", s + 4);
        let _ = writeln!(body, "    A[{}] = (x {op} (y {op} z)) {op} {c} + w * 2", s + 8);
    }
    program("reassociated", k, "x: T.int32, y: T.int32, z: T.int32, w: T.int32, A: T.Buffer((16,), \"int32\")", &body)
}

fn nested_lets(k: u64) -> BenchProgram {
    let mut g = Lcg(k + 401);
    let c = 2 + g.next(5);
    let body = format!(
        "    a: T.let[T.int32] = x * y + z\n\
         \x20   b: T.let[T.int32] = (x * y + z) * {c} + (y * x + z)\n\
         \x20   c: T.let[T.int32] = a + b * (x * y)\n\
         \x20   A[0] = T.Let(v * (x * y + z) + v, where={{v: a + b}})\n\
         \x20   A[1] = c + (z + x * y) * (a + b)\n\
         \x20   A[2] = T.Let(u + u * {c}, where={{u: b * (y * x) + a}})\n"
    );
    program("nested_lets", k, "x: T.int32, y: T.int32, z: T.int32, A: T.Buffer((4,), \"int32\")", &body)
}

fn distributed(k: u64) -> BenchProgram {
    let mut g = Lcg(k + 501);
    let mut body = String::new();
    for s in 0..3 {
        let c = 2 + g.next(6);
        let _ = writeln!(body, "    A[{s}] = x * (y + {c}) + z * (y + {c})");
        let _ = writeln!(body, "    A[{}] = (x * y + x * {c}) * w", s + 3);
        let _ = writeln!(body, "    A[{}] = (x + z) * (y + {c}) - w", s + 6);
    }
    program("distributed", k, "x: T.int32, y: T.int32, z: T.int32, w: T.int32, A: T.Buffer((16,), \"int32\")", &body)
}

/// The two worked examples of the seed (TVM's test_cse and test_cse_cascade).
pub fn seed_examples() -> Vec<(&'static str, String)> {
    vec![
        (
            "test_cse",
            format!(
                "{HEADER}def main(i1: T.int32, i2: T.int32, z3: T.int32, buffer: T.Buffer((64,), \"int32\")):\n\
                 \x20   z1: T.let[T.int32] = 1\n    z2: T.let[T.int32] = 2\n    buffer[i1] = z1 + z2\n\
                 \x20   x: T.let[T.int32] = 1\n    y: T.let[T.int32] = 1\n    a: T.let[T.int32] = x + y + (z1 + z2)\n\
                 \x20   b: T.let[T.int32] = x + y + z3\n    buffer[i2] = a + b\n"
            ),
        ),
        (
            "test_cse_cascade",
            format!(
                "{HEADER}def main(i1: T.int32, i2: T.int32, i3: T.int32, x: T.int32, y: T.int32, z: T.int32, buffer: T.Buffer((64,), \"int32\")):\n\
                 \x20   buffer[i1] = x + y + z\n    buffer[i2] = x + y + z\n    buffer[i3] = x + y\n"
            ),
        ),
    ]
}
