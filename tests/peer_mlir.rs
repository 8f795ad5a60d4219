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
            | MlirClass::OverSynchronized
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

/// A tiny `audit-peer --peer mlir` campaign through the library: every program in one row,
/// one finding per signature, each finding minimized with its signature kept and its files
/// named as the layout says.
#[test]
fn a_small_mlir_campaign_gives_a_consistent_summary() {
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use tirproof_fuzz::foreign_peer::campaign::{run, AuditConfig, Event};
    use tirproof_fuzz::foreign_peer::{Auditor, MlirAuditor, PeerClass, PeerSignature};

    let Ok(auditor) = MlirAuditor::start().map_err(|why| eprintln!("skipped: {why}")) else { return };
    let summary_of_twelve = AuditConfig::of_programs(1, 12, Duration::from_secs(5));
    let mut found = Vec::new();
    let mut observe = |event: Event<'_, MlirAuditor>| {
        if let Event::Finding(finding) = event {
            assert_eq!(finding.minimized.signature, finding.signature, "minimizing kept the signature");
            let files = MlirAuditor::finding_files(finding);
            assert!(files.iter().all(|(name, _)| MlirAuditor::FINDING_FILES.contains(name)));
            assert!(files
                .iter()
                .any(|(name, text)| *name == "report.md" && text.contains("tirproof verify mlir_output.mlir")));
            found.push(finding.signature.clone());
        }
    };
    let summary = run(&summary_of_twelve, auditor, &AtomicBool::new(false), &mut observe);
    assert_eq!(summary.programs, 12);
    assert_eq!(summary.rows.values().map(|r| r.programs).sum::<u64>(), 12, "{:?}", summary.rows);
    assert_eq!(summary.signatures.len(), found.len(), "one finding per signature");
    for (row, counts) in &summary.rows {
        let in_row = summary.signatures.keys().filter(|s| s.class().row() == *row).count();
        assert_eq!(counts.findings as usize, in_row, "{row}");
    }
    let judged: u64 = ["agree", "over-synchronized", "unsafe", "groups-in-flight-at-end"]
        .iter()
        .filter_map(|r| summary.rows.get(r))
        .map(|r| r.programs)
        .sum();
    assert!(judged > 0, "no output was judged: {:?}", summary.rows);
    let markdown = summary.markdown();
    assert!(markdown.starts_with("# Audit of mlir ") && markdown.contains("LLVM version 22"), "{markdown}");
}
