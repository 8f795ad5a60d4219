//! The oracle chain on generated programs: the real passes pass every oracle; the planted bug
//! is caught, by the equivalence oracle (a fault under the lazy schedule) and by the verifier.
//!
//! 40 programs by default; `TIRPROOF_PROPTEST_CASES` for more.

use std::time::Instant;

use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tirproof_fuzz::gen::{pipeline_program, GenConfig};
use tirproof_fuzz::oracle::{Chain, ChainConfig, OracleName, PassVariant};
use tirproof_ir::text::print_module;

fn cases() -> usize {
    std::env::var("TIRPROOF_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(40)
}

fn program(seed: u64) -> tirproof_ir::IRModule {
    let mut bytes = vec![0u8; 256];
    ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut bytes);
    pipeline_program(&mut Unstructured::new(&bytes), &GenConfig::default()).expect("generation never fails").0
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
        assert_eq!(result.outcomes.len(), OracleName::ALL.len() - 1, "every oracle but no-panic ran");
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
