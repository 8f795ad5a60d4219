//! The pipeline pass on the RFC's three-statement example (two async stages, extent 16):
//! `cargo bench --bench pipeline`. Parsing is done once, outside the measurement; each
//! iteration clones the parsed module and runs the pass, as `tirproof opt --time` does.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use tirproof_passes::pipeline::InjectSoftwarePipeline;
use tirproof_passes::Pass;
use tirproof_reader::parse_module;

const RFC_THREE_STATEMENTS: &str = include_str!("../corpus/pipeline/rfc_b_two_queues.py");
const RFC_INTERLEAVED: &str = include_str!("../corpus/pipeline/rfc_c_interleaved.py");

fn bench_pipeline(c: &mut Criterion) {
    for (name, text) in [("rfc three statements", RFC_THREE_STATEMENTS), ("rfc interleaved", RFC_INTERLEAVED)] {
        let module = parse_module(text).expect("the corpus case parses");
        c.bench_function(&format!("inject-software-pipeline: {name}"), |b| {
            b.iter(|| {
                let mut m = module.clone();
                InjectSoftwarePipeline.run(black_box(&mut m)).map(|()| m.functions.len())
            })
        });
    }
}

criterion_group!(benches, bench_pipeline);
criterion_main!(benches);
