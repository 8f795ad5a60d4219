//! Criterion benchmarks of `cse` and `cse-semantic`: the seed's two worked examples and the
//! 60-function quality suite (`cse_suite/programs.rs`). `cargo bench --bench cse`; the quality table
//! (operations left, computations eliminated, time) is `cargo run --release --example
//! cse_quality`.

#[path = "cse_suite/programs.rs"]
mod programs;

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use tirproof_ir::PrimFunc;
use tirproof_passes::cse::{eliminate, Mode};
use tirproof_reader::parse_module;

fn parse(text: &str) -> Option<PrimFunc> {
    parse_module(text).ok()?.functions.into_iter().next()
}

fn bench(c: &mut Criterion) {
    for (name, text) in programs::seed_examples() {
        let Some(func) = parse(&text) else { continue };
        for (label, mode) in [("cse", Mode::Syntactic), ("cse-semantic", Mode::Semantic)] {
            c.bench_function(&format!("{label}/{name}"), |b| {
                b.iter_batched(|| func.clone(), |mut f| black_box(eliminate(&mut f, mode)), BatchSize::SmallInput)
            });
        }
    }
    let suite: Vec<PrimFunc> = programs::suite().iter().filter_map(|p| parse(&p.text)).collect();
    let mut group = c.benchmark_group("suite");
    group.sample_size(10);
    for (label, mode) in [("cse", Mode::Syntactic), ("cse-semantic", Mode::Semantic)] {
        group.bench_function(format!("{label}/60 functions"), |b| {
            b.iter_batched(
                || suite.clone(),
                |mut funcs| {
                    for f in &mut funcs {
                        black_box(eliminate(f, mode));
                    }
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
