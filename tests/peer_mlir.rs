//! MLIR's shared-memory copy pipeliner as a peer, end to end with the installed mlir-opt 22:
//! generated copy loops go through `transform.nvgpu.pipeline_shared_memory_copies`, every
//! answer is judged into the closed class set, some outputs are read back and verified, and a
//! shrunk case keeps its dedup key. Without mlir-opt 22 the tests print why and pass.

use std::collections::BTreeMap;

use tirproof_fuzz::mlir_peer::reduce::size;
use tirproof_fuzz::mlir_peer::{check, generate, reduce_keeping, reproduction, DedupKey, MlirClass, MlirOpt};

/// The installed mlir-opt, or `None` after saying on stderr why the test is skipped.
fn mlir_opt() -> Option<MlirOpt> {
    match MlirOpt::find() {
        Ok(mlir) => Some(mlir),
        Err(error) => {
            eprintln!("skipped: {error}");
            None
        }
    }
}

#[test]
fn generated_loops_through_the_pipeliner_get_closed_classes_and_some_are_read_back() {
    let Some(mlir) = mlir_opt() else { return };
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    let mut read_back = 0;
    for seed in 0..15 {
        let case = generate(seed);
        let outcome = check(&case, &mlir).unwrap_or_else(|skip| panic!("seed {seed}: {skip}"));
        match &outcome.class {
            MlirClass::Refused { diagnostic } => assert!(!diagnostic.is_empty(), "seed {seed}"),
            MlirClass::Crashed | MlirClass::Hung => {
                panic!(
                    "seed {seed}: mlir-opt {}: {}\n{}",
                    outcome.class,
                    outcome.message,
                    reproduction(&case.program, case.options)
                )
            }
            MlirClass::OutputUnreadable
            | MlirClass::Unsafe
            | MlirClass::GroupsInFlightAtEnd
            | MlirClass::OverSynchronized { .. }
            | MlirClass::Agree
            | MlirClass::Unknown => {}
        }
        if outcome.class.judges_output() {
            read_back += 1;
            let output = outcome.output.as_deref().unwrap_or_default();
            assert!(output.contains("nvgpu.device_async_wait"), "seed {seed}: {output}");
        }
        *classes.entry(outcome.class.key()).or_default() += 1;
    }
    eprintln!("classes of 15 cases: {classes:?}");
    assert!(read_back >= 1, "no pipelined output was read back: {classes:?}");
}

#[test]
fn a_dynamic_trip_count_is_refused_and_a_shrunk_case_keeps_its_key() {
    let Some(mlir) = mlir_opt() else { return };
    let refused = (0..200).map(generate).find(|c| c.program.trip == tirproof_fuzz::mlir_peer::gen::TripCount::Argument);
    let refused = refused.expect("a case with its trip count from an argument");
    let outcome = check(&refused, &mlir).expect("an outcome");
    assert_eq!(
        outcome.class,
        MlirClass::Refused { diagnostic: "pipelining preconditions failed".into() },
        "{outcome:?}"
    );

    let case = (0..200).map(generate).find(|c| c.program.copies.len() > 1 && c.program.read_earlier).expect("a case");
    let outcome = check(&case, &mlir).expect("an outcome");
    let key = DedupKey::of(&case, &outcome);
    let small = reduce_keeping(&case, &key, &mlir);
    let again = check(&small, &mlir).expect("an outcome");
    assert_eq!(DedupKey::of(&small, &again), key);
    assert!(size(&small) <= size(&case), "{small:?}");
}
