//! The fuzzers against a known bug: with the pipeline pass's planted bug (one wait count one
//! too large when the producer is two or more stages earlier), a campaign finds it, the
//! minimizer shrinks it to at most 3 statements within 60 s, and the report is complete. A
//! second run of the same campaign resumes where the first stopped and does not report the
//! same signature again. Every line a report names is a line of the program it prints. A
//! campaign stopped during a minimization leaves the finding "in progress", and the resumed
//! campaign minimizes it to its end.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tirproof_fuzz::campaign::{run_campaign, CampaignConfig, CampaignEnd, Event};
use tirproof_fuzz::gen::GenConfig;
use tirproof_fuzz::oracle::{ChainConfig, OracleName, PassVariant};
use tirproof_fuzz::report::FILES;
use tirproof_ir::annotation::PIPELINE_STAGE;
use tirproof_ir::visit::{walk_stmt, Visitor};
use tirproof_ir::{AnnValue, Stmt, StmtKind};

const SIGNATURE: &str = "equivalence/fault:output:read-pending-async";

/// A path in a scratch directory (the directory is removed when the test ends); nothing is at
/// the path yet.
fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix("tirproof-fuzz-").tempdir().expect("scratch dir");
    let path = dir.path().join(name);
    (dir, path)
}

fn config(out: PathBuf, max_programs: u64) -> CampaignConfig {
    CampaignConfig {
        out,
        seed: 7,
        jobs: 2,
        duration: Some(Duration::from_secs(300)),
        max_programs: Some(max_programs),
        chain: ChainConfig {
            pass: PassVariant::PlantedBug,
            oracles: vec![OracleName::Pipeline, OracleName::Equivalence],
            ..ChainConfig::default()
        },
        gen: GenConfig::default(),
        reduce_budget: Duration::from_secs(60),
        program_budget: Duration::from_secs(60),
        mixed: true,
        generators: Vec::new(),
        stop: None,
        progress_every: Duration::MAX,
    }
}

/// Every `line N` in `text` is a line of `program` (N from 1 to its line count).
fn assert_real_lines(text: &str, program: &str) {
    let lines = program.lines().count();
    for (at, _) in text.match_indices("line ") {
        let after = &text[at + "line ".len()..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            assert!(!after.starts_with('?'), "an unlocated line in: {text}");
            continue;
        }
        let n: usize = digits.parse().expect("digits");
        assert!((1..=lines).contains(&n), "line {n} is not a line of the {lines}-line program: {text}\n{program}");
    }
}

fn report_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("readable")).expect("json")
}

/// The most statements of any pipelined loop in `text`.
fn pipelined_statements(text: &str) -> usize {
    struct Most(usize);
    impl Visitor for Most {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            if let StmtKind::For(f) = &stmt.kind {
                let n = f.annotations.get(PIPELINE_STAGE).and_then(AnnValue::as_int_list).map_or(0, |l| l.len());
                self.0 = self.0.max(n);
            }
            walk_stmt(self, stmt);
        }
    }
    let module = tirproof_reader::parse_module(text).expect("minimized programs parse");
    let mut most = Most(0);
    module.functions.iter().for_each(|f| most.visit_stmt(&f.body));
    most.0
}

#[test]
fn a_campaign_finds_the_planted_bug_and_minimizes_it() {
    let (_scratch, out) = scratch("planted");
    let events = Mutex::new(Vec::new());
    let summary = run_campaign(&config(out.clone(), 200), &|e| events.lock().expect("lock").push(e)).expect("runs");
    assert!(summary.new_findings.iter().any(|s| s == SIGNATURE), "{summary:#?}");
    let events = events.into_inner().expect("lock");
    let minimized = events
        .iter()
        .find_map(|e| match e {
            Event::Minimized { signature, dir, seconds, .. } if signature.to_string() == SIGNATURE => {
                Some((dir, *seconds))
            }
            _ => None,
        })
        .expect("the finding is minimized");
    let (dir, seconds) = minimized;
    assert!(seconds < 60.0, "minimizing took {seconds} s");
    for file in FILES {
        assert!(dir.join(file).is_file(), "the report lacks {file}");
    }
    let text = std::fs::read_to_string(dir.join("minimized.py")).expect("readable");
    let statements = pipelined_statements(&text);
    assert!((1..=3).contains(&statements), "{statements} statements left:\n{text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("readable")).expect("json");
    assert_eq!(report["oracle"], "equivalence");
    assert!(report["counterexample"].as_str().is_some_and(|c| c.contains("pending")), "{report}");
    assert!(report["reproduce"].as_str().is_some_and(|c| c.contains("--planted-bug")), "{report}");
    assert_eq!(report["minimization"], "done");
    for field in ["message", "counterexample"] {
        assert_real_lines(report[field].as_str().unwrap_or_default(), &text);
    }
    let md = std::fs::read_to_string(dir.join("REPORT.md")).expect("readable");
    assert!(md.contains("## Minimized program") && md.contains("## Counterexample"), "{md}");
    let regression = std::fs::read_to_string(dir.join("regression.py")).expect("readable");
    assert!(regression.starts_with("# test: fuzz\n# oracles: equivalence\n"), "{regression}");

    // Resuming: the second run starts where the first stopped and knows the signature.
    let again = run_campaign(&config(out.clone(), 260), &|_| {}).expect("resumes");
    assert_eq!(again.resumed_at, 200);
    assert_eq!(again.programs, 60);
    assert!(!again.new_findings.iter().any(|s| s == SIGNATURE), "{again:#?}");
}

/// Ctrl-C (the stop flag) in the middle of a minimization: the campaign stops at once, the
/// report says the minimization is in progress (not that its budget ran out), and the resumed
/// campaign minimizes it to its end.
#[test]
fn a_minimization_cut_short_is_finished_by_the_resumed_campaign() {
    let (_scratch, out) = scratch("cut");
    let stop = Arc::new(AtomicBool::new(false));
    let first = CampaignConfig { stop: Some(stop.clone()), ..config(out.clone(), 200) };
    let found = Mutex::new(None);
    let summary = run_campaign(&first, &|e| {
        if let Event::Finding { signature, dir, .. } = e {
            if signature.to_string() == SIGNATURE {
                *found.lock().expect("lock") = Some(dir);
                stop.store(true, Ordering::SeqCst);
            }
        }
    })
    .expect("runs");
    assert_eq!(summary.end, CampaignEnd::Stopped);
    let dir = found.into_inner().expect("lock").expect("the planted bug is found");
    assert_eq!(report_json(&dir)["minimization"], "in-progress");
    assert!(summary.unfinished_minimizations.iter().any(|s| s == SIGNATURE), "{summary:#?}");
    let md = std::fs::read_to_string(dir.join("REPORT.md")).expect("readable");
    assert!(!md.contains("time budget reached"), "{md}");

    let minimized = Mutex::new(false);
    let again = run_campaign(&config(out.clone(), summary.resumed_at + summary.programs), &|e| {
        if matches!(&e, Event::Minimized { signature, .. } if signature.to_string() == SIGNATURE) {
            *minimized.lock().expect("lock") = true;
        }
    })
    .expect("resumes");
    assert!(*minimized.lock().expect("lock"), "{again:#?}");
    assert_eq!(report_json(&dir)["minimization"], "done");
    assert!(again.unfinished_minimizations.is_empty(), "{again:#?}");
    let text = std::fs::read_to_string(dir.join("minimized.py")).expect("readable");
    assert!((1..=3).contains(&pipelined_statements(&text)), "{text}");
}
