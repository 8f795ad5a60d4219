//! Triton as a peer, end to end: 20 generated TTGIR programs through Triton 3.9's wait-count
//! rule and tirproof's verifier. Skipped (with the reason) where Triton is not installed.
//! Checks that the summary is consistent: every program in one row, one finding per signature,
//! each finding's minimized program still showing its signature.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tirproof_fuzz::foreign_peer::campaign::{run, AuditConfig, Event};
use tirproof_fuzz::foreign_peer::{Signature, TritonAuditor, TritonClass};

#[test]
fn twenty_programs_through_triton_give_a_consistent_summary() {
    let triton = match TritonAuditor::start() {
        Ok(triton) => triton,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let config = AuditConfig {
        seed: 1,
        duration: Duration::from_secs(600),
        max_programs: Some(20),
        minimize_budget: Duration::from_secs(3),
        progress_every: Duration::from_secs(3600),
    };
    let mut found: Vec<(Signature, String, Option<String>)> = Vec::new();
    let mut observe = |event: Event<'_, TritonAuditor>| {
        if let Event::Finding(finding) = event {
            let audited = &finding.minimized;
            assert_eq!(audited.judged.signature, finding.signature, "minimizing kept the signature");
            assert!(audited.text.contains("tt.func"), "{}", audited.text);
            found.push((finding.signature.clone(), audited.text.clone(), audited.judged.output.clone()));
        }
    };
    let summary = run(&config, triton, &AtomicBool::new(false), &mut observe);
    assert_eq!(summary.skipped, None);
    assert_eq!(summary.version, "3.9.0");
    assert_eq!(summary.programs, 20);
    assert_eq!(summary.rows.values().map(|r| r.programs).sum::<u64>(), 20, "{:?}", summary.rows);
    let signatures: BTreeSet<&Signature> = summary.signatures.keys().collect();
    assert_eq!(signatures.len(), found.len(), "one finding per signature");
    assert!(found.iter().all(|(s, _, _)| signatures.contains(s)));
    for (row, counts) in &summary.rows {
        let in_row: Vec<_> = summary.signatures.iter().filter(|(s, _)| s.class.row() == *row).collect();
        assert_eq!(counts.findings as usize, in_row.len(), "{row}");
        assert_eq!(
            in_row.iter().map(|(_, n)| **n).sum::<u64>(),
            if TritonClass::parse_key(row).is_some_and(|c| !c.is_finding()) { 0 } else { counts.programs },
            "{row}"
        );
    }
    // Triton answered: some programs were judged on an output it gave.
    let judged: u64 =
        ["agree", "over-synchronized", "unsafe"].iter().filter_map(|r| summary.rows.get(r)).map(|r| r.programs).sum();
    assert!(judged > 0, "{:?}", summary.rows);
    for (signature, _, output) in &found {
        if signature.class == TritonClass::Unsafe || signature.class == TritonClass::OverSynchronized {
            // Judged on Triton's output, so tirproof's reader took it.
            let output = output.as_deref().expect("Triton's output is kept");
            assert!(tirproof_foreign::import(output, tirproof_foreign::Dialect::Ttgir).is_ok(), "{output}");
        }
    }
    let markdown = summary.markdown();
    assert!(markdown.contains("| outcome | programs | unique findings |"), "{markdown}");
}
