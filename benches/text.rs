//! Text-format throughput: parse and print a generated function of 10,000 statements.
//!
//! Run with `cargo bench --bench text`. The function mixes stores, lets, conditionals,
//! attributes and loops so every printer and parser path is exercised.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use tirproof_ir::print::print_module;
use tirproof_reader::parse_module;

/// A module whose function body holds `n` statements (counting every nested statement).
fn generated_source(n: usize) -> String {
    let mut body = String::new();
    let mut count = 0;
    let mut k = 0;
    while count < n {
        body.push_str(&format!(
            "        for i{k} in range(16):\n\
             \x20           v{k}: T.let[T.int32] = i{k} * 4 + {k} % 7\n\
             \x20           if v{k} < 60:\n\
             \x20               T.attr({{\"async_commit_queue_scope\": 0, \"async_scope\": 1}})\n\
             \x20               B[v{k} % 64] = A[v{k}] * T.float32(2.0) + T.float32(1.0)\n\
             \x20           else:\n\
             \x20               C[i{k}] = T.max(B[i{k}], A[i{k} + 1]) - T.float32(0.5)\n"
        ));
        count += 7;
        k += 1;
    }
    format!(
        "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((128,), \"float32\"), C: T.Buffer((16,), \"float32\")):\n    B = T.alloc_buffer((64,), \"float32\", scope=\"shared\")\n    for t in range(1):\n{body}"
    )
}

fn bench_text(c: &mut Criterion) {
    let source = generated_source(10_000);
    let module = parse_module(&source).expect("the generated program parses");
    c.bench_function("parse 10k statements", |b| {
        b.iter(|| parse_module(black_box(&source)).map(|m| m.functions.len()))
    });
    c.bench_function("print 10k statements", |b| b.iter(|| print_module(black_box(&module)).len()));
}

criterion_group!(benches, bench_text);
criterion_main!(benches);
