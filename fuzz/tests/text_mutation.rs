//! Property: the parser never panics on mutated program text, and whatever parses and checks
//! prints to text that parses back to a structurally equal module.
//!
//! The texts mutated are generated pipelines (before and after the pipeline pass, which adds
//! async attributes) and the pipeline and round-trip corpus programs. 300 cases by default;
//! set `TIRPROOF_PROPTEST_CASES` for longer runs.

use std::path::Path;
use std::sync::OnceLock;

use arbitrary::Unstructured;
use proptest::prelude::*;
use tirproof_fuzz::gen::{mutated_text, pipeline_program, GenConfig};
use tirproof_ir::check::check_module;
use tirproof_ir::print::print_module;
use tirproof_ir::structural::module_eq;
use tirproof_passes::pipeline::InjectSoftwarePipeline;
use tirproof_passes::PassManager;
use tirproof_reader::parse_module;

fn cases() -> u32 {
    std::env::var("TIRPROOF_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
}

/// The corpus programs used as bases, read once.
fn corpus() -> &'static [String] {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
        let mut texts = Vec::new();
        for dir in ["pipeline", "text/roundtrip"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
            let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            paths.sort();
            texts.extend(
                paths
                    .iter()
                    .filter(|p| p.extension().is_some_and(|e| e == "py"))
                    .filter_map(|p| std::fs::read_to_string(p).ok()),
            );
        }
        texts
    })
}

/// A text to mutate: a generated program, its pipelined form, or a corpus program.
fn base_text(u: &mut Unstructured<'_>) -> String {
    let choice = u.int_in_range(0u8..=2).unwrap_or(0);
    if choice == 2 && !corpus().is_empty() {
        let k = u.choose_index(corpus().len()).unwrap_or(0);
        return corpus()[k].clone();
    }
    let (mut module, _) = pipeline_program(u, &GenConfig::default()).expect("generation never fails");
    if choice == 1 && PassManager::single(InjectSoftwarePipeline).run(&mut module).is_err() {
        return String::new();
    }
    print_module(&module)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_parser_survives_mutated_text_and_round_trips_what_it_accepts(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let mut u = Unstructured::new(&bytes);
        let base = base_text(&mut u);
        let text = mutated_text(&mut u, &base).expect("mutation never fails");
        let Ok(module) = parse_module(&text) else { return Ok(()) };
        if check_module(&module).has_errors() {
            return Ok(());
        }
        let printed = print_module(&module);
        let reparsed = parse_module(&printed);
        prop_assert!(reparsed.is_ok(), "the printed module does not parse: {}\n--- mutated ---\n{text}\n--- printed ---\n{printed}", reparsed.err().map(|d| d.to_string()).unwrap_or_default());
        let same = reparsed.is_ok_and(|m| module_eq(&module, &m));
        prop_assert!(same, "printing and parsing changes the module\n--- mutated ---\n{text}\n--- printed ---\n{printed}");
    }
}

#[test]
fn corpus_bases_are_found() {
    assert!(corpus().len() >= 30, "only {} corpus programs", corpus().len());
}
