//! Properties of the lowering passes (`lower-opaque-block`, `flatten-buffer`,
//! `vectorize-loop`, `vector-type-rewrite`): on random programs, each pass alone and the
//! chain after the pipeline pass keep the interpreter's results bitwise equal; every output
//! checks and round-trips through the printer.
//!
//! Programs come from `lowering_gen` (N-D buffers with strides and offsets, vectorized loops,
//! blocks) and from `tirproof_fuzz::gen::pipeline_program` (pipelined loops). Every corpus
//! pipeline case must survive the whole chain, and TVM's printed seeds must lower to the same
//! computation (the same fault, where TVM's own wait counts are wrong).
//!
//! 200 cases per property by default; set `TIRPROOF_PROPTEST_CASES` for longer runs.

mod lowering_gen;

use std::path::Path;

use arbitrary::Unstructured;
use proptest::prelude::*;
use tirproof::compare::{check_equivalent, standard_schedules};
use tirproof::source::{expand_paths, Source};
use tirproof_filetests::{Case, EXPECTED_MARKER};
use tirproof_fuzz::gen::{pipeline_program, GenConfig};
use tirproof_interp::{random_inputs, run, Outcome, RunConfig, Schedule};
use tirproof_ir::check::check_module;
use tirproof_ir::print::print_module;
use tirproof_ir::structural::{module_diff, module_eq};
use tirproof_ir::IRModule;
use tirproof_passes::lookup;
use tirproof_reader::parse_module;

/// The lowering chain after the pipeline pass, in the order TVM runs them.
const LOWERING: [&str; 4] = ["lower-opaque-block", "flatten-buffer", "vectorize-loop", "vector-type-rewrite"];

fn cases() -> u32 {
    std::env::var("TIRPROOF_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200)
}

/// Runs `passes` in order on a copy of `original`; after each one the output must check,
/// round-trip and compute what `original` computes under `schedules`.
fn run_chain(original: &IRModule, passes: &[&str], schedules: &[Schedule]) -> Result<IRModule, String> {
    let mut module = original.clone();
    for name in passes {
        let pass = lookup(name).ok_or_else(|| format!("no pass `{name}`"))?;
        pass.run(&mut module).map_err(|e| format!("`{name}` refuses:\n{e}"))?;
        let printed = print_module(&module);
        let diags = check_module(&module);
        if diags.has_errors() {
            return Err(format!("the checker rejects the output of `{name}`: {diags}\n{printed}"));
        }
        let reparsed =
            parse_module(&printed).map_err(|d| format!("`{name}`'s output does not parse: {d}\n{printed}"))?;
        if !module_eq(&module, &reparsed) {
            let diff = module_diff(&module, &reparsed).unwrap_or_default();
            return Err(format!("`{name}`'s output does not round-trip: {diff}\n{printed}"));
        }
        check_equivalent(original, &module, schedules).map_err(|e| format!("after `{name}`: {e}\n{printed}"))?;
    }
    Ok(module)
}

fn parse_checked(text: &str) -> IRModule {
    let src = Source::new("<generated>", text);
    src.parse_and_check()
        .unwrap_or_else(|d| panic!("the generator made an invalid program:\n{}\n{text}", src.render(&d)))
}

const QUICK: [Schedule; 2] = [Schedule::Lazy, Schedule::Eager];

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn nd_programs_compute_the_same_after_each_lowering_pass(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let text = lowering_gen::nd_program(&mut Unstructured::new(&bytes)).expect("generation never fails");
        let module = parse_checked(&text);
        let chain = run_chain(&module, &LOWERING, &QUICK);
        prop_assert!(chain.is_ok(), "{}\n--- program ---\n{text}", chain.err().unwrap_or_default());
        for alone in ["lower-opaque-block", "vectorize-loop", "vector-type-rewrite"] {
            let single = run_chain(&module, &[alone], &QUICK);
            prop_assert!(single.is_ok(), "{}\n--- program ---\n{text}", single.err().unwrap_or_default());
        }
    }

    #[test]
    fn pipelined_loops_compute_the_same_through_the_lowering_chain(bytes in proptest::collection::vec(any::<u8>(), 0..192)) {
        let mut u = Unstructured::new(&bytes);
        let (module, shape) = pipeline_program(&mut u, &GenConfig::accepted()).expect("generation never fails");
        let mut passes = vec!["inject-software-pipeline"];
        passes.extend(LOWERING);
        let chain = run_chain(&module, &passes, &QUICK);
        prop_assert!(chain.is_ok(), "{shape:?}: {}\n--- program ---\n{}", chain.err().unwrap_or_default(), print_module(&module));
    }
}

/// The program of a corpus case, without its expected-output section.
fn case_program(path: &Path) -> String {
    let case = Case::load(path).unwrap_or_else(|e| panic!("{e}"));
    let body = case.body();
    body.split(EXPECTED_MARKER).next().unwrap_or(body).to_string()
}

#[test]
fn every_pipeline_corpus_case_survives_the_whole_chain() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pipeline");
    let files = expand_paths(&[dir]).expect("the corpus is readable");
    assert!(files.len() >= 30, "found only {} pipeline cases", files.len());
    let mut passes = vec!["inject-software-pipeline"];
    passes.extend(LOWERING);
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let module = parse_checked(&case_program(path));
            match run_chain(&module, &passes, &standard_schedules()) {
                Err(e) => Some(format!("{}: {e}", path.display())),
                Ok(lowered) => unproved_waits(&lowered).map(|e| format!("{}: {e}", path.display())),
            }
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// After the whole chain every wait is still proved (safe) by the verifier.
fn unproved_waits(module: &IRModule) -> Option<String> {
    let options = tirproof_verify::waits::Options { tightness: false, ..Default::default() };
    for func in &module.functions {
        let (report, _) = tirproof_verify::waits::verify_func(func, &options);
        if !report.all_proved() {
            let lines: Vec<String> = report
                .waits
                .iter()
                .map(ToString::to_string)
                .chain(report.findings.iter().map(|f| f.message.clone()))
                .chain(report.unknown.iter().map(ToString::to_string))
                .collect();
            return Some(format!(
                "the verifier does not prove the lowered program:\n{}\n{}",
                lines.join("\n"),
                print_module(module)
            ));
        }
    }
    None
}

/// TVM's seeds after its pipeline pass, lowered and flattened, do what they did: the same
/// outputs where they complete, the same fault where TVM's wait counts are wrong (seed c
/// under the lazy schedule).
#[test]
fn tvm_seeds_lower_to_the_same_computation() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/tvm");
    for seed in ["a", "a_tx", "b", "c"] {
        let path = dir.join(format!("seed_{seed}_after_pipeline.py"));
        let original = parse_checked(&case_program(&path));
        let mut lowered = original.clone();
        for name in ["lower-opaque-block", "flatten-buffer"] {
            lookup(name).expect("registered").run(&mut lowered).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
        assert!(!check_module(&lowered).has_errors(), "seed {seed}: {}", check_module(&lowered));
        let (a, b) = (&original.functions[0], &lowered.functions[0]);
        let inputs = random_inputs(a, 0, &Default::default()).expect("inputs");
        for schedule in standard_schedules() {
            let config = RunConfig { schedule, ..RunConfig::default() };
            let (ra, rb) = (run(a, &inputs, &config).expect("runs"), run(b, &inputs, &config).expect("runs"));
            match (&ra.outcome, &rb.outcome) {
                (Outcome::Completed, Outcome::Completed) => {
                    assert_eq!(ra.outputs, rb.outputs, "seed {seed} under {schedule}")
                }
                (Outcome::Fault(fa), Outcome::Fault(fb)) => {
                    assert_eq!(fa.kind, fb.kind, "seed {seed} under {schedule}")
                }
                (x, y) => panic!("seed {seed} under {schedule}: {x:?} vs {y:?}"),
            }
        }
    }
}
