//! Interpreter throughput: a 1-D loop of 10^6 iterations doing two loads, an add and a store
//! (`C[i] = A[i] + B[i]`, float32) under the lazy schedule: `cargo bench --bench interp`.
//! One iteration executes one statement (the store), so statements per second is
//! 10^6 divided by the time per run.

use std::collections::BTreeMap;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tirproof_interp::{random_inputs, run, RunConfig};
use tirproof_reader::parse_module;

const PROGRAM: &str = r#"
@T.prim_func
def main(A: T.Buffer((1000000,), "float32"), B: T.Buffer((1000000,), "float32"), C: T.Buffer((1000000,), "float32")):
    for i in range(1000000):
        C[i] = A[i] + B[i]
"#;

fn bench_interp(c: &mut Criterion) {
    let module = parse_module(PROGRAM).expect("the benchmark program parses");
    let func = &module.functions[0];
    let inputs = random_inputs(func, 0, &BTreeMap::new()).expect("inputs");
    let config = RunConfig::default();
    let mut group = c.benchmark_group("interp");
    group.throughput(Throughput::Elements(1_000_000));
    group.sample_size(20);
    group.bench_function("1e6 x C[i] = A[i] + B[i] (lazy)", |b| {
        b.iter(|| run(func, &inputs, &config).map(|r| r.stats.statements))
    });
    group.finish();
}

criterion_group!(benches, bench_interp);
criterion_main!(benches);
