//! The pipeline pass with waits on tokens (`inject-software-pipeline-tokens`) against the same
//! pass with counts, on every pipeline of the corpus: the verifier reads each token wait as
//! the count that completes the newest group it names, so both outputs get the same verdicts,
//! wait by wait (both proved tight where the counts are exact).

use std::path::Path;

use tirproof_passes::pipeline::{pipeline_func_with, WaitSpelling};
use tirproof_reader::parse_module;
use tirproof_verify::waits::{verify_func, FuncReport, Options, WaitCount, WaitVerdict};

/// The verdict of each wait without its reasons (counterexamples differ in their names).
fn verdicts(report: &FuncReport) -> Vec<(u32, &'static str)> {
    report
        .waits
        .iter()
        .map(|w| {
            let kind = match &w.verdict {
                WaitVerdict::ProvedTight => "tight",
                WaitVerdict::Proved => "proved",
                WaitVerdict::ProvedOverSynchronized { .. } => "over-synchronized",
                WaitVerdict::ProvedBounded { .. } => "bounded",
                WaitVerdict::Refuted { .. } => "refuted",
                WaitVerdict::Unknown { .. } => "unknown",
            };
            (w.queue.number() as u32, kind)
        })
        .collect()
}

#[test]
fn token_waits_of_the_pipeline_pass_get_the_verdicts_of_its_counts_on_every_corpus_pipeline() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/pipeline");
    let mut paths: Vec<_> = std::fs::read_dir(&dir).expect("corpus").map(|e| e.expect("entry").path()).collect();
    paths.sort();
    let mut token_waits = 0;
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "py")) {
        let text = std::fs::read_to_string(path).expect("read");
        let Ok(module) = parse_module(&text) else { continue };
        for func in &module.functions {
            let mut counted = func.clone();
            let mut tokened = func.clone();
            if !pipeline_func_with(&mut counted, WaitSpelling::Counts).is_empty() {
                continue;
            }
            let errors = pipeline_func_with(&mut tokened, WaitSpelling::Tokens);
            assert!(errors.is_empty(), "{}: {errors:?}", path.display());
            let options = Options::default();
            let (by_count, _) = verify_func(&counted, &options);
            let (by_token, _) = verify_func(&tokened, &options);
            token_waits += by_token.waits.iter().filter(|w| matches!(w.count, WaitCount::Tokens(_))).count();
            assert_eq!(
                verdicts(&by_count),
                verdicts(&by_token),
                "{}:\n{}\n{:?}",
                path.display(),
                tirproof_ir::print::print_func(&tokened),
                by_token.waits
            );
            assert_eq!(by_count.findings.len(), by_token.findings.len(), "{}: {:?}", path.display(), by_token.findings);
            assert_eq!(
                by_count.unknown.is_empty(),
                by_token.unknown.is_empty(),
                "{}: {:?}",
                path.display(),
                by_token.unknown
            );
        }
    }
    assert!(token_waits > 20, "only {token_waits} waits on tokens checked");
}
