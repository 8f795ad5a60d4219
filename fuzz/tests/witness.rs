//! Witnesses on memory contents: a race that needs particular contents is found by running
//! the program, the witness replays with exactly its inputs, and no contents are ever claimed
//! for a program that cannot fault.

use std::path::Path;

use tirproof_fuzz::witness::{search, verify_func, Limits};
use tirproof_interp::{run, FaultKind};
use tirproof_ir::PrimFunc;
use tirproof_verify::waits::Options;

fn program(name: &str) -> PrimFunc {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/witness").join(name);
    let text = std::fs::read_to_string(&path).expect("the test program is there");
    let module = tirproof_reader::parse_module(&text).expect("the test program parses");
    module.functions[0].clone()
}

/// The default runs, with time enough for a loaded machine: the search is then the same run
/// after run.
fn limits() -> Limits {
    Limits { time: std::time::Duration::from_secs(120), ..Limits::default() }
}

fn options() -> Options {
    Options { tightness: false, ..Options::default() }
}

#[test]
fn a_race_on_some_contents_is_refuted_with_a_witness_that_replays_exactly() {
    let func = program("contents_racy.py");
    let (symbolic, _) = tirproof_verify::waits::verify_func(&func, &options());
    assert!(symbolic.findings.is_empty() && !symbolic.all_proved(), "the solver alone leaves it open: {symbolic:?}");
    let (report, _, witness) = verify_func(&func, &options(), limits());
    let witness = witness.expect("contents under which the program races");
    assert_eq!(witness.fault.kind, FaultKind::WritePendingAsync, "{}", witness.fault);
    let finding = report.findings.iter().find(|f| f.witness.is_some()).expect("the witness is a finding");
    assert!(finding.message.starts_with("refuted for some memory contents: "), "{}", finding.message);
    assert_eq!(finding.line, 12, "the line of the faulting store");
    // The inputs of the witness are exactly those of the run: it faults again, identically.
    let replayed = run(&func, &witness.inputs(), &witness.config()).expect("the program runs");
    assert_eq!(replayed.outcome.fault(), Some(&witness.fault));
    // Shrunk: K is one value everywhere, and A differs from its base in at most the two
    // elements the race needs.
    let fill = |name: &str| witness.fills.iter().find(|f| f.buffer == name).expect("a fill per buffer").clone();
    assert!(fill("K").exceptions.is_empty(), "{}", fill("K"));
    assert!(fill("A").exceptions.len() <= 2, "{}", fill("A"));
}

#[test]
fn no_contents_are_claimed_for_a_program_that_cannot_fault() {
    let func = program("contents_clean.py");
    assert!(search(&func, None, limits()).is_none());
    let (report, _, witness) = verify_func(&func, &options(), limits());
    assert!(witness.is_none() && report.all_proved(), "{report:?}");
}

#[test]
fn the_search_is_deterministic() {
    let func = program("contents_racy.py");
    let first = search(&func, None, limits()).expect("a witness");
    let second = search(&func, None, limits()).expect("a witness");
    assert_eq!(first.fills, second.fills);
    assert_eq!(first.scalars, second.scalars);
    assert_eq!(first.fault, second.fault);
}

#[test]
fn a_spent_budget_finds_nothing_rather_than_guessing() {
    let func = program("contents_racy.py");
    assert!(search(&func, None, Limits { runs: 0, ..limits() }).is_none());
}

#[test]
fn a_fault_from_iteration_64_on_is_found_with_the_late_probes_values() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/verify/periodic_condition_late_fault_racy.py");
    let text = std::fs::read_to_string(&path).expect("the corpus program is there");
    let func = tirproof_reader::parse_module(&text).expect("it parses").functions[0].clone();
    let witness = search(&func, None, limits()).expect("the late probe shows the fault");
    assert_eq!(witness.scalars.get("n"), Some(&tirproof_interp::ScalarValue::Int(100)), "{:?}", witness.scalars);
    assert_eq!(witness.fault.kind, FaultKind::ReadPendingAsync, "{}", witness.fault);
}
