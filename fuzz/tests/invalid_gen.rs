//! Property: the pipeline pass refuses every program with broken pipeline annotations, with
//! diagnostics that point at a line and column, and never panics; every kind of defect is
//! generated.
//!
//! 200 cases by default; set `TIRPROOF_PROPTEST_CASES` for longer runs.

use std::collections::BTreeSet;

use arbitrary::Unstructured;
use proptest::prelude::*;
use tirproof_fuzz::gen::{invalid_annotation_program, Defect};
use tirproof_ir::print::print_module;
use tirproof_passes::pipeline::InjectSoftwarePipeline;
use tirproof_passes::PassManager;

fn cases() -> u32 {
    std::env::var("TIRPROOF_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn broken_annotations_are_refused_with_located_diagnostics(bytes in proptest::collection::vec(any::<u8>(), 0..192)) {
        let (module, defect) = invalid_annotation_program(&mut Unstructured::new(&bytes)).expect("generation never fails");
        let mut output = module.clone();
        let result = PassManager::single(InjectSoftwarePipeline).run(&mut output);
        prop_assert!(result.is_err(), "{defect:?}: the pass accepts\n{}", print_module(&module));
        let diagnostics = result.err().map(|e| e.diagnostics().clone()).unwrap_or_default();
        let unlocated: Vec<String> = diagnostics.0.iter().filter(|d| !d.span.is_known()).map(|d| d.message.clone()).collect();
        prop_assert!(!diagnostics.0.is_empty() && unlocated.is_empty(), "{defect:?}: diagnostics without a location: {unlocated:?}\n{}", print_module(&module));
    }
}

#[test]
fn every_defect_is_generated() {
    let mut state = 0x5851_f42d_4c95_7f2du64;
    let mut defects = BTreeSet::new();
    for _ in 0..500 {
        let bytes: Vec<u8> = (0..192)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        let (_, defect) = invalid_annotation_program(&mut Unstructured::new(&bytes)).expect("generation");
        defects.insert(defect);
    }
    assert_eq!(defects.len(), Defect::ALL.len(), "only {defects:?}");
}
