//! Interpreter throughput: `cargo bench --bench interp`.
//!
//! - a 1-D loop of 10^6 iterations doing two loads, an add and a store (`C[i] = A[i] + B[i]`,
//!   float32) under the lazy schedule; one iteration executes one statement (the store), so
//!   statements per second is 10^6 divided by the time per run;
//! - programs with threads, where every access to memory shared by threads is checked for
//!   races: TVM's pipelined 32-thread kernel of the corpus (seed a_tx), a block of 32 threads
//!   exchanging data through shared memory with barriers, and a grid of 64 blocks of 32
//!   threads, each thread computing its own elements of global memory.

use std::collections::BTreeMap;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tirproof_interp::{random_inputs, run, RunConfig};
use tirproof_reader::parse_module;

const VECTOR_ADD: &str = r#"
@T.prim_func
def main(A: T.Buffer((1000000,), "float32"), B: T.Buffer((1000000,), "float32"), C: T.Buffer((1000000,), "float32")):
    for i in range(1000000):
        C[i] = A[i] + B[i]
"#;

const SEED_A_TX: &str = include_str!("../corpus/tvm/seed_a_tx_after_flatten_cse.py");

const SHARED_EXCHANGE: &str = r#"
@T.prim_func
def main(A: T.Buffer((32, 2048), "float32"), C: T.Buffer((32, 2048), "float32")):
    S = T.alloc_buffer((32,), "float32", scope="shared")
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        for i in range(2048):
            S[tx] = A[tx, i]
            T.tvm_storage_sync("shared")
            C[tx, i] = S[31 - tx] + S[tx]
            T.tvm_storage_sync("shared")
"#;

const GRID: &str = r#"
@T.prim_func
def main(A: T.Buffer((64, 32, 128), "float32"), B: T.Buffer((64, 32, 128), "float32"), C: T.Buffer((64, 32, 128), "float32")):
    for bx in T.thread_binding(64, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            for i in range(128):
                C[bx, tx, i] = A[bx, tx, i] + B[bx, tx, i]
"#;

/// One benchmark: the program's text, its name, and the statements one run executes.
fn bench_program(c: &mut Criterion, name: &str, text: &str) {
    let module = parse_module(text).expect("the benchmark program parses");
    let func = &module.functions[0];
    let inputs = random_inputs(func, 0, &BTreeMap::new()).expect("inputs");
    let config = RunConfig::default();
    let statements = run(func, &inputs, &config).expect("the benchmark program runs").stats.statements;
    let mut group = c.benchmark_group("interp");
    group.throughput(Throughput::Elements(statements));
    group.sample_size(20);
    group.bench_function(name, |b| b.iter(|| run(func, &inputs, &config).map(|r| r.stats.statements)));
    group.finish();
}

fn bench_interp(c: &mut Criterion) {
    bench_program(c, "1e6 x C[i] = A[i] + B[i] (lazy)", VECTOR_ADD);
    bench_program(c, "seed a_tx: 32 threads, async pipeline (lazy)", SEED_A_TX);
    bench_program(c, "32 threads x 2048 exchanges through shared memory with barriers (lazy)", SHARED_EXCHANGE);
    bench_program(c, "64 blocks x 32 threads x 128 x C = A + B (lazy)", GRID);
}

criterion_group!(benches, bench_interp);
criterion_main!(benches);
