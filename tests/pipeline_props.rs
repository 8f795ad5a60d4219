//! Property: for random producer/consumer loops with random valid annotations, the pipeline
//! pass succeeds, the checker accepts its output, and the output computes exactly what the
//! original does under the adversarial `lazy` schedule (and the synchronous `eager` one).
//!
//! 500 cases by default; set `TIRPROOF_PROPTEST_CASES` for longer runs.

use arbitrary::Unstructured;
use proptest::prelude::*;
use tirproof::compare::check_equivalent;
use tirproof_fuzz::gen::{pipeline_program, GenConfig};
use tirproof_ir::check::check_module;
use tirproof_ir::interp::Schedule;
use tirproof_ir::text::print_module;
use tirproof_passes::pipeline::InjectSoftwarePipeline;
use tirproof_passes::Pass;

fn cases() -> u32 {
    std::env::var("TIRPROOF_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(500)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn pipelined_loops_compute_what_the_original_computes(bytes in proptest::collection::vec(any::<u8>(), 0..192)) {
        let mut u = Unstructured::new(&bytes);
        let (module, shape) = pipeline_program(&mut u, &GenConfig::default()).expect("generation never fails");
        let mut output = module.clone();
        let pass = InjectSoftwarePipeline.run(&mut output);
        prop_assert!(pass.is_ok(), "{shape:?}: the pass refuses:\n{}\n{}", pass.err().map(|e| e.to_string()).unwrap_or_default(), print_module(&module));
        let diags = check_module(&output);
        prop_assert!(!diags.has_errors(), "{shape:?}: the checker rejects the output: {diags}\n{}", print_module(&output));
        let verdict = check_equivalent(&module, &output, &[Schedule::Lazy, Schedule::Eager]);
        prop_assert!(verdict.is_ok(), "{shape:?}: {}\n--- original ---\n{}--- pipelined ---\n{}", verdict.err().unwrap_or_default(), print_module(&module), print_module(&output));
    }
}
