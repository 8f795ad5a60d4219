//! Verifier timing: `cargo bench --bench verify`.
//!
//! * every wait of the nested (GEMM-shaped) pipeline of the corpus;
//! * the same two-stage async pipeline at extent 16, 1,000,000 and symbolic: the proof does
//!   not unroll, so its time should not grow with the extent — while the interpreter's
//!   bounded check (also measured, at 16 and 1,000,000) grows linearly.

use std::collections::BTreeMap;

use criterion::{criterion_group, criterion_main, Criterion};
use tirproof_interp::{random_inputs, run, RunConfig};
use tirproof_ir::IRModule;
use tirproof_passes::pipeline::InjectSoftwarePipeline;
use tirproof_passes::Pass;
use tirproof_reader::parse_module;
use tirproof_verify::waits::{verify_func, Options};

const NESTED: &str = include_str!("../corpus/pipeline/nested_pipelines.py");

fn two_stage(extent: &str) -> String {
    let (params, shape) = match extent.parse::<i64>() {
        Ok(n) => (String::new(), n.to_string()),
        Err(_) => (format!(", {extent}: T.int32"), extent.to_string()),
    };
    let buffers = if params.is_empty() {
        format!("A: T.Buffer(({shape},), \"float32\"), C: T.Buffer(({shape},), \"float32\")")
    } else {
        "a: T.handle, c: T.handle".to_string()
    };
    let matched = if params.is_empty() {
        String::new()
    } else {
        format!(
            "    A = T.match_buffer(a, ({shape},), \"float32\")\n    C = T.match_buffer(c, ({shape},), \"float32\")\n"
        )
    };
    format!(
        "@T.prim_func\ndef main({buffers}{params}):\n{matched}    for i in T.serial({extent}, annotations={{\"software_pipeline_stage\": [0, 1], \"software_pipeline_order\": [0, 1], \"software_pipeline_async_stages\": [0]}}):\n        B = T.alloc_buffer((1,), \"float32\", scope=\"shared\")\n        B[0] = A[i] + T.float32(1.0)\n        C[i] = B[0] + T.float32(1.0)\n"
    )
}

fn pipelined(text: &str) -> IRModule {
    let mut module = parse_module(text).expect("parses");
    InjectSoftwarePipeline.run(&mut module).expect("pipelines");
    module
}

fn bench_verify(c: &mut Criterion) {
    let mut group = c.benchmark_group("verify");
    group.sample_size(10);
    let options = Options::default();
    let nested = pipelined(NESTED);
    group.bench_function("nested GEMM-shaped pipeline, all waits", |b| {
        b.iter(|| verify_func(&nested.functions[0], &options).0.all_proved())
    });
    for extent in ["16", "1000000", "n"] {
        let module = pipelined(&two_stage(extent));
        let report = verify_func(&module.functions[0], &options).0;
        assert!(report.all_proved(), "extent {extent}: {:?}", report.waits);
        group.bench_function(format!("two-stage pipeline, extent {extent}"), |b| {
            b.iter(|| verify_func(&module.functions[0], &options).0.all_proved())
        });
    }
    for extent in ["16", "1000000"] {
        let module = pipelined(&two_stage(extent));
        let func = &module.functions[0];
        let inputs = random_inputs(func, 0, &BTreeMap::new()).expect("inputs");
        group.bench_function(format!("interpreter check (lazy), extent {extent}"), |b| {
            b.iter(|| run(func, &inputs, &RunConfig::default()).map(|r| r.outcome.is_completed()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_verify);
criterion_main!(benches);
