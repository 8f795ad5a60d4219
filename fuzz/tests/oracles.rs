//! The oracle chain on generated programs: the real passes pass every oracle; the planted bug
//! is caught, by the equivalence oracle (a fault under the lazy schedule) and by the verifier.
//!
//! The agreement oracle's two answers for a loosened wait (the tightness `waits-tight`
//! measured, and a verification of the loosened text) agree, and a report that claims the
//! opposite is caught.
//!
//! 40 programs by default; `TIRPROOF_PROPTEST_CASES` for more.

use std::time::Instant;

use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tirproof_fuzz::gen::{pipeline_program, GenConfig};
use tirproof_fuzz::oracle::waits::{self, Known, VERIFY_MUTANT_TEXT_EVERY};
use tirproof_fuzz::oracle::{waits_in, Chain, ChainConfig, FailureClass, OracleName, Outcome, PassVariant, SkipReason};
use tirproof_ir::print::print_module;
use tirproof_verify::waits::{FuncReport, WaitVerdict};

fn cases() -> usize {
    std::env::var("TIRPROOF_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(40)
}

fn program(seed: u64) -> tirproof_ir::IRModule {
    let mut bytes = vec![0u8; 256];
    ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut bytes);
    pipeline_program(&mut Unstructured::new(&bytes), &GenConfig::accepted()).expect("generation never fails").0
}

#[test]
fn the_real_passes_pass_every_oracle() {
    let config = ChainConfig::default();
    let start = Instant::now();
    for seed in 0..cases() as u64 {
        let input = program(seed);
        let result = Chain { config: &ChainConfig { seed, ..config.clone() } }.run(&input);
        if let Some(failure) = result.failure() {
            panic!(
                "seed {seed}: {failure}\n{}\n{}",
                failure.counterexample.as_deref().unwrap_or(""),
                print_module(&input)
            );
        }
        let pass_oracles = OracleName::DEFAULT.into_iter().filter(|o| o.applies_to_pass_inputs()).count();
        assert_eq!(result.outcomes.len(), pass_oracles - 1, "every oracle of pass inputs but no-panic ran");
    }
    eprintln!("{} programs in {:?}", cases(), start.elapsed());
}

#[test]
fn the_planted_bug_is_caught() {
    let oracles = vec![OracleName::Pipeline, OracleName::Equivalence, OracleName::WaitsTight];
    let config = ChainConfig { pass: PassVariant::PlantedBug, oracles, ..ChainConfig::default() };
    let mut caught = std::collections::BTreeMap::new();
    for seed in 0..60 {
        let result = Chain { config: &config }.run(&program(seed));
        if let Some(failure) = result.failure() {
            *caught.entry(failure.signature().to_string()).or_insert(0) += 1;
        }
    }
    eprintln!("{caught:?}");
    assert!(caught.keys().any(|s| s.starts_with("equivalence/fault:output:read-pending-async")), "{caught:?}");
}

/// Runs `agreement` on every wait of `output` it can reach with a seed that also verifies the
/// loosened text, with `reports` as what `waits-tight` measured; the classes of its failures.
fn agreement_failures(output: &tirproof_ir::IRModule, reports: &[FuncReport]) -> Vec<FailureClass> {
    let timeout = std::time::Duration::from_secs(10);
    let total = waits_in(output) as u64;
    let seeds = (0..total * VERIFY_MUTANT_TEXT_EVERY).step_by(VERIFY_MUTANT_TEXT_EVERY as usize);
    seeds
        .filter_map(|seed| waits::agreement(output, seed, timeout, Some(reports)).failure().map(|f| f.class.clone()))
        .collect()
}

/// Each `ProvedTight` turned into "not needed" and back.
fn flip_tightness(reports: &mut [FuncReport]) -> usize {
    let mut flipped = 0;
    for wait in reports.iter_mut().flat_map(|r| r.waits.iter_mut()) {
        wait.verdict = match wait.verdict {
            WaitVerdict::ProvedTight => WaitVerdict::ProvedOverSynchronized { best: None, by: None },
            WaitVerdict::ProvedOverSynchronized { .. } => WaitVerdict::ProvedTight,
            _ => continue,
        };
        flipped += 1;
    }
    flipped
}

#[test]
fn measured_tightness_agrees_with_the_loosened_text() {
    let known = Known { predicated: true, nested: true };
    let (mut checked, mut caught) = (0, 0);
    for seed in 0..12 {
        let pass = ChainConfig::only(OracleName::Pipeline);
        let Some(output) = Chain { config: &pass }.run(&program(seed)).output else { continue };
        let (outcome, mut reports) = waits::tight(&output, known, std::time::Duration::from_secs(10));
        assert!(matches!(outcome, Outcome::Pass), "seed {seed}: {outcome:?}");
        let failures = agreement_failures(&output, &reports);
        assert!(failures.is_empty(), "seed {seed}: {failures:?}");
        if flip_tightness(&mut reports) > 0 {
            checked += 1;
            let failures = agreement_failures(&output, &reports);
            caught += usize::from(failures.contains(&FailureClass::TightnessInconsistent));
        }
    }
    assert!(checked >= 5, "only {checked} programs had waits");
    assert_eq!(caught, checked, "every flipped report is caught");
}

/// A program whose verification takes far longer than its budget: the checks still running are
/// stopped, and the oracles stopped or not run are skips, never failures.
#[test]
fn a_spent_budget_stops_the_chain_with_skips() {
    // Program 49 of campaign seed 1: a six-stage pipeline over a symbolic extent, about half a
    // second of verification.
    let input = tirproof_fuzz::campaign::program(1, 49, &GenConfig::accepted());
    let config = ChainConfig { seed: 49, ..ChainConfig::default() };
    let deadline = Instant::now() + std::time::Duration::from_millis(20);
    let result = Chain { config: &config }.run_until(&input, Some(deadline));
    assert!(result.failure().is_none(), "{:?}", result.failure());
    assert!(result.stopped());
    let skipped = result.outcomes.iter().filter(|(_, o, _)| matches!(o, Outcome::Skip(SkipReason::BudgetSpent { .. })));
    assert!(skipped.count() >= 2, "{:?}", result.outcomes);
    // With no budget, the same program passes every oracle.
    let result = Chain { config: &config }.run(&input);
    assert!(result.failure().is_none() && !result.stopped());
}

/// A check the time budget stops is never a failure: with budgets so short that they end in
/// the middle of the verifier's checks, every failure the chain reports is one it reports
/// without a budget too (campaign seed 11, the mixed inputs of a campaign).
#[test]
fn a_budget_cut_check_never_turns_into_a_failure() {
    use std::time::Duration;
    use tirproof_fuzz::campaign::{input, Input};
    let budgets_us = [50, 200, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000];
    let mut cut = 0;
    // Programs 0 to 29: each decided in under a second without a budget (34 takes minutes).
    for index in 0..30 {
        let Input::Module(module, mode) = input(11, index, &GenConfig::default(), true) else { continue };
        let config = ChainConfig { seed: index, mode, ..ChainConfig::default() };
        let chain = Chain { config: &config };
        let full = chain.run(&module).failure().map(|f| f.signature());
        for us in budgets_us {
            let result = chain.run_until(&module, Some(Instant::now() + Duration::from_micros(us)));
            cut += usize::from(result.stopped());
            if let Some(failure) = result.failure() {
                assert_eq!(Some(failure.signature()), full, "program {index}, budget {us} µs: {failure}");
            }
        }
    }
    assert!(cut > 0, "some budget cut some program short");
}
