//! The GPU against the TIR interpreter: every corpus program that lowers to PTX and runs
//! cleanly on the interpreter (and on the emulator, which guards each launch) runs on the
//! device with outputs bitwise equal to the interpreter's. Where there is no GPU the test
//! prints that it was skipped and why, and passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tirproof::source::{expand_paths, Source};
use tirproof_exec::{diff, Difference, Engine, EngineError, Execution, GpuEngine};
use tirproof_interp::{random_inputs, run, ScalarValue};
use tirproof_ir::func::PrimFunc;

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let dirs: Vec<PathBuf> = ["pipeline", "rfc", "tvm", "lowering", "verify", "regressions", "faults", "cse", "ptx"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    expand_paths(&dirs).expect("the corpus lists")
}

fn scalars(func: &PrimFunc) -> BTreeMap<String, ScalarValue> {
    func.scalar_params().map(|v| (v.name().to_string(), ScalarValue::Int(5))).collect()
}

#[test]
fn corpus_programs_run_on_the_gpu_equal_to_the_interpreter() {
    if let Some(why) = GpuEngine::unavailable() {
        println!("skipped: {why}");
        return;
    }
    let engine = GpuEngine::default();
    let config = GpuEngine::config(100_000_000);
    let (mut compared, mut skipped) = (0, 0);
    for file in corpus_files() {
        let Ok(module) = Source::read(&file).expect("reads").parse_and_check() else { continue };
        for func in &module.functions {
            let where_ = format!("{} `{}`", file.display(), func.name);
            let Ok(inputs) = random_inputs(func, 7, &scalars(func)) else { continue };
            let reference = run(func, &inputs, &config).expect("the interpreter runs");
            if !reference.outcome.is_completed() {
                continue;
            }
            let reference = Execution::Completed { outputs: reference.outputs };
            let device = engine.run(func, &inputs, &config);
            match &device {
                Execution::Failed(EngineError::Unsupported(why)) if why.contains("lowered") => continue,
                Execution::Failed(EngineError::Unsupported(why)) => {
                    println!("{where_}: not run: {why}");
                    skipped += 1;
                    continue;
                }
                Execution::Faulted { fault, .. } => {
                    println!("{where_}: not launched, its PTX faults on the emulator: {fault}");
                    skipped += 1;
                    continue;
                }
                Execution::Failed(error) => panic!("{where_}: {error}"),
                Execution::Completed { .. } => {}
            }
            match diff(&reference, &device) {
                Ok(Difference::Equal) => compared += 1,
                other => panic!("{where_}: {other:?}"),
            }
        }
    }
    println!("{compared} corpus functions ran on the GPU equal to the interpreter ({skipped} not run, said above)");
    assert!(compared >= 60, "only {compared} compared");
}
