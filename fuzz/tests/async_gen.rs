//! Properties of the async program generator and of the `verify` oracle: every generated
//! program checks, round-trips through print and parse, and faults under the lazy interpreter
//! only for async-protocol reasons or races; generation reaches every pattern and makes both
//! clean and racy programs; the oracle passes when the verifier and the interpreter agree and
//! fails when they do not.

use std::collections::BTreeSet;

use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tirproof_fuzz::gen::{async_program, AsyncGenConfig, AsyncPattern, AsyncShape};
use tirproof_fuzz::oracle::{round_trip, scalar_assignments, Outcome};
use tirproof_interp::{random_inputs, run, FaultKind, RunConfig};
use tirproof_ir::check::check_module;
use tirproof_ir::print::print_module;
use tirproof_ir::IRModule;

/// Programs per property.
const PROGRAMS: u64 = 300;

fn generated(seed: u64) -> (IRModule, AsyncShape) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut bytes = vec![0u8; 512];
    rng.fill_bytes(&mut bytes);
    async_program(&mut Unstructured::new(&bytes), &AsyncGenConfig::default())
        .unwrap_or_else(|e| panic!("seed {seed}: the generator failed: {e}"))
}

/// The faults of the lazy interpreter on `module`, over the oracle's parameter values.
fn lazy_faults(module: &IRModule) -> Vec<FaultKind> {
    let mut kinds = Vec::new();
    for func in &module.functions {
        for scalars in scalar_assignments(func) {
            let inputs = random_inputs(func, 0, &scalars).unwrap_or_else(|e| panic!("inputs: {e}"));
            let result = run(func, &inputs, &RunConfig::default())
                .unwrap_or_else(|e| panic!("the interpreter cannot run it: {e}\n{}", print_module(module)));
            kinds.extend(result.outcome.fault().map(|f| f.kind));
        }
    }
    kinds
}

fn is_async_fault(kind: FaultKind) -> bool {
    use FaultKind::*;
    matches!(
        kind,
        ReadPendingAsync | WritePendingAsync | CrossThreadRace | CrossBlockRace | NegativeWait | UnwaitedGroup
    )
}

#[test]
fn every_program_checks_and_round_trips() {
    for seed in 0..PROGRAMS {
        let (module, shape) = generated(seed);
        let diags = check_module(&module);
        assert!(!diags.has_errors(), "seed {seed} {shape:?}: {diags}\n{}", print_module(&module));
        if let Outcome::Fail(failure) = round_trip(&module, "program") {
            panic!("seed {seed}: {failure}\n{}", print_module(&module));
        }
    }
}

#[test]
fn programs_fault_only_for_async_reasons_and_about_half_are_clean() {
    let mut clean = 0;
    for seed in 0..PROGRAMS {
        let (module, shape) = generated(seed);
        let faults = lazy_faults(&module);
        if let Some(kind) = faults.iter().find(|k| !is_async_fault(**k)) {
            panic!("seed {seed} {shape:?}: a {kind} fault\n{}", print_module(&module));
        }
        clean += u64::from(faults.is_empty());
    }
    let share = clean * 100 / PROGRAMS;
    assert!((30..=70).contains(&share), "{share}% of the programs are clean");
}

#[test]
fn generation_reaches_every_pattern() {
    let mut seen = BTreeSet::new();
    for seed in 0..PROGRAMS * 2 {
        seen.extend(generated(seed).1.patterns);
    }
    let missing: Vec<AsyncPattern> = AsyncPattern::ALL.into_iter().filter(|p| !seen.contains(p)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}
