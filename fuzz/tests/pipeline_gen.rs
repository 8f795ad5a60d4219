//! Properties of the pipeline program generator: every generated program (flat, nested or
//! irregular) is well formed; every program the pass must accept (`GenConfig::accepted`) it
//! accepts, its output is well formed too and computes exactly what the original computes
//! under the adversarial `lazy` schedule and the synchronous `eager` one; irregular programs
//! (which the pass may refuse) are marked so; and generation reaches every pattern.
//!
//! 200 flat-or-nested, 100 nested and 200 default-configuration cases by default; set
//! `TIRPROOF_PROPTEST_CASES` for longer runs (nested cases are a half of it).

use std::collections::BTreeSet;

use arbitrary::Unstructured;
use proptest::prelude::*;
use tirproof_exec::compare::{check_modules, Engines, Plan};
use tirproof_fuzz::gen::{
    expected_patterns, irregular_patterns, nested_pipeline_program, pipeline_program, GenConfig, Pattern, PipelineShape,
};
use tirproof_fuzz::oracle::{runs_cleanly, Chain, ChainConfig, FailureClass, InputMode, OracleName, Side};
use tirproof_interp::Schedule;
use tirproof_ir::check::check_module;
use tirproof_ir::print::print_module;
use tirproof_ir::IRModule;
use tirproof_passes::pipeline::InjectSoftwarePipeline;
use tirproof_passes::PassManager;

fn cases() -> u32 {
    std::env::var("TIRPROOF_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200)
}

/// Values of a symbolic extent: shorter than deep pipelines, exact fits, a steady state and
/// the largest the generator sizes arrays for.
const EXTENT_VALUES: [i64; 8] = [1, 2, 3, 4, 5, 7, 13, 64];

/// Both programs on the same seeded inputs for every value of the integer parameters, under
/// the lazy and eager schedules and two thread orders.
fn plan() -> Plan {
    Plan { scalar_values: EXTENT_VALUES.to_vec(), ..Plan::thorough(&[Schedule::Lazy, Schedule::Eager]) }
}

/// The generated program is well formed, pipelines, and its output is well formed and
/// equivalent to it.
fn check_pipelines_faithfully(module: &IRModule, shape: &PipelineShape) -> Result<(), String> {
    let diags = check_module(module);
    if diags.has_errors() {
        return Err(format!("{shape:?}: the generated program is ill formed: {diags}\n{}", print_module(module)));
    }
    let mut output = module.clone();
    if let Err(e) = PassManager::single(InjectSoftwarePipeline).run(&mut output) {
        return Err(format!("{shape:?}: the pass refuses:\n{}\n{}", e.diagnostics(), print_module(module)));
    }
    let diags = check_module(&output);
    if diags.has_errors() {
        return Err(format!("{shape:?}: the pass output is ill formed: {diags}\n{}", print_module(&output)));
    }
    check_modules(&plan(), Engines::interpreter(), module, &output).map_err(|e| {
        format!(
            "{shape:?}: {e}\n--- original ---\n{}--- pipelined ---\n{}",
            print_module(module),
            print_module(&output)
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_pipelines_are_accepted_and_compute_what_the_original_computes(bytes in proptest::collection::vec(any::<u8>(), 0..192)) {
        let (module, shape) = pipeline_program(&mut Unstructured::new(&bytes), &GenConfig::accepted()).expect("generation never fails");
        prop_assert!(!shape.may_be_refused());
        let verdict = check_pipelines_faithfully(&module, &shape);
        prop_assert!(verdict.is_ok(), "{}", verdict.err().unwrap_or_default());
    }

    /// With every switch on, irregular programs included, every program is well formed, and
    /// one with an irregular pattern says that the pass may refuse it.
    #[test]
    fn every_generated_program_is_well_formed(bytes in proptest::collection::vec(any::<u8>(), 0..192)) {
        let (module, shape) = pipeline_program(&mut Unstructured::new(&bytes), &GenConfig::default()).expect("generation never fails");
        let diags = check_module(&module);
        prop_assert!(!diags.has_errors(), "{shape:?}: the generated program is ill formed: {diags}\n{}", print_module(&module));
        let irregular = shape.patterns().into_iter().any(|p| irregular_patterns().contains(&p));
        prop_assert!(!irregular || shape.may_be_refused(), "{shape:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 2, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn nested_pipelines_are_accepted_and_compute_what_the_original_computes(bytes in proptest::collection::vec(any::<u8>(), 0..192)) {
        let (module, shape) = nested_pipeline_program(&mut Unstructured::new(&bytes), &GenConfig::default()).expect("generation never fails");
        prop_assert!(shape.is_nested());
        let verdict = check_pipelines_faithfully(&module, &shape);
        prop_assert!(verdict.is_ok(), "{}", verdict.err().unwrap_or_default());
    }
}

/// Deterministic pseudo-random bytes (xorshift), so the coverage check never flakes.
fn pseudo_random_bytes(state: &mut u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            (*state >> 24) as u8
        })
        .collect()
}

#[test]
fn generation_reaches_every_pattern() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut seen = BTreeSet::new();
    for _ in 0..1000 {
        let bytes = pseudo_random_bytes(&mut state, 192);
        let (module, shape) =
            pipeline_program(&mut Unstructured::new(&bytes), &GenConfig::default()).expect("generation");
        let diags = check_module(&module);
        assert!(!diags.has_errors(), "{shape:?}: ill formed: {diags}\n{}", print_module(&module));
        seen.extend(shape.patterns());
    }
    let missing: Vec<String> =
        expected_patterns().into_iter().filter(|p| !seen.contains(p)).map(|p| p.to_string()).collect();
    assert!(missing.is_empty(), "never generated: {}", missing.join(", "));
}

#[test]
fn no_bytes_give_the_smallest_flat_pipeline() {
    let (module, shape) = pipeline_program(&mut Unstructured::new(&[]), &GenConfig::default()).expect("generation");
    assert!(!shape.is_nested());
    assert_eq!(shape.stages.len(), 1);
    assert!(check_pipelines_faithfully(&module, &shape).is_ok());
}

/// Irregular programs run in the chain as inputs the pass may refuse: a refusal is no failure,
/// and an original that faults on its own (threads racing without their barriers, say) makes
/// the chain skip rather than blame the pass.
#[test]
fn an_irregular_original_that_faults_is_a_skip_not_a_failure() {
    let mut state = 0x51_7cc1_b727_220au64;
    let mut faulting_originals = 0;
    for _ in 0..400 {
        let bytes = pseudo_random_bytes(&mut state, 192);
        let (module, shape) =
            pipeline_program(&mut Unstructured::new(&bytes), &GenConfig::default()).expect("generation");
        if !shape.patterns().contains(&Pattern::ThreadExchangeWithoutBarriers) {
            continue;
        }
        let config = ChainConfig { mode: InputMode::Unknown, ..ChainConfig::only(OracleName::Equivalence) };
        let result = Chain { config: &config }.run(&module);
        let blamed_on_input = result.failure().is_some_and(|f| {
            matches!(
                f.class,
                FailureClass::Fault { side: Side::Original, .. }
                    | FailureClass::InterpreterError { side: Side::Original }
            )
        });
        assert!(!blamed_on_input, "{shape:?}: {:?}\n{}", result.failure(), print_module(&module));
        faulting_originals += usize::from(!runs_cleanly(&module));
    }
    assert!(faulting_originals > 0, "no racy original among the generated programs");
}
