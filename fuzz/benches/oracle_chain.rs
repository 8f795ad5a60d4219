//! The full oracle chain per program: generate, pipeline, check, run under the lazy, eager and
//! a random schedule, verify every wait (safe and tight), the agreement mutant, both CSE modes
//! validated by Z3 and run, print/parse round trip. `cargo bench -p tirproof-fuzz --bench
//! oracle_chain`; one iteration is the 10 programs of campaign seed 1, on one thread, so
//! programs per second per core = 10 / the reported time.

use criterion::{criterion_group, criterion_main, Criterion};
use tirproof_fuzz::campaign::program;
use tirproof_fuzz::gen::GenConfig;
use tirproof_fuzz::oracle::{Chain, ChainConfig};

const PROGRAMS: u64 = 10;

fn chain(c: &mut Criterion) {
    let gen = GenConfig::default();
    let mut group = c.benchmark_group("oracle_chain");
    group.sample_size(10);
    group.bench_function("10 programs", |b| {
        b.iter(|| {
            let mut failures = 0;
            for index in 0..PROGRAMS {
                let input = program(1, index, &gen);
                let config = ChainConfig { seed: index, ..ChainConfig::default() };
                failures += usize::from(Chain { config: &config }.run(&input).failure().is_some());
            }
            failures
        });
    });
    group.finish();
}

criterion_group!(benches, chain);
criterion_main!(benches);
