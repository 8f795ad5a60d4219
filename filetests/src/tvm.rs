//! `# test: tvm-finding` cases: a bug of TVM's pipeline pass, kept as a regression of the
//! audit (`corpus/tvm-findings/`). The case is the minimized input program, its `# tvm:` line
//! the class of TVM's failure ([`TvmClass`] key), and, when TVM produced an output, a trailing
//! block after `TVM_OUTPUT_MARKER` with what TVM printed.
//!
//! It checks, without TVM: tirproof's own pass refuses the program with located diagnostics,
//! or computes what it computes with every wait of its output proved (`pipeline`,
//! `equivalence`, `waits-tight`); TVM's
//! recorded output is judged as the `tvm` oracle judges it and fails with exactly the recorded
//! class (for a racy class, Z3 also refutes one of its waits). With TVM installed it also
//! gives the program to TVM again (the text `reproduce_tvm.py` holds) and checks that TVM
//! fails the same way; without TVM that step says it was skipped.

use std::time::Duration;

use tirproof_fuzz::oracle::waits::{self, Known};
use tirproof_fuzz::oracle::{Chain, ChainConfig, FailureClass, InputMode, OracleName, Outcome};
use tirproof_fuzz::peer::{self, PeerMode, TvmClass, TVM_OUTPUT_MARKER};
use tirproof_ir::IRModule;

use super::pipeline::split_commented_tail;
use super::{Case, Verdict};

const TIMEOUT: Duration = Duration::from_secs(10);

pub(super) fn run_tvm_finding(case: &Case) -> Verdict {
    let Some(expected) = case.tvm_class.as_deref() else {
        return Verdict::Fail("a tvm-finding case needs a `# tvm: CLASS` line".into());
    };
    let Some(class) = TvmClass::parse_key(expected) else {
        return Verdict::Fail(format!("`# tvm: {expected}` is not a class of TVM failure"));
    };
    let peer_mode = match case.peer.as_deref().map(str::parse::<PeerMode>) {
        None => PeerMode::Pipeline,
        Some(Ok(mode)) => mode,
        Some(Err(e)) => return Verdict::Fail(e.to_string()),
    };
    let (program, recorded) = split_commented_tail(case.body(), TVM_OUTPUT_MARKER);
    let input = match tirproof_reader::parse_module(program) {
        Ok(module) => module,
        Err(diags) => return Verdict::Fail(format!("the program does not parse: {diags}")),
    };
    // tirproof's own pass: accepted, equivalent, every wait proved.
    let oracles = vec![OracleName::Pipeline, OracleName::Equivalence, OracleName::WaitsTight];
    // It may refuse the program (with located diagnostics): what it accepts must be proved.
    let mode = InputMode::Unknown;
    let config = ChainConfig { oracles, timeout: TIMEOUT, seed: case.seed, mode, ..ChainConfig::default() };
    let ours = Chain { config: &config }.run(&input);
    if let Some(failure) = ours.failure() {
        return Verdict::Fail(format!("tirproof's own pass fails on the program: {failure}"));
    }
    let ours = ours.output;
    let known = Known::default();
    match (class.judges_output(), recorded) {
        (true, None) => {
            return Verdict::Fail(format!("a `{expected}` case needs TVM's output after `{TVM_OUTPUT_MARKER}`"))
        }
        (true, Some(text)) => {
            let theirs = match tirproof_reader::parse_module(&text) {
                Ok(module) => module,
                Err(diags) => return Verdict::Fail(format!("TVM's recorded output does not parse: {diags}")),
            };
            if let Err(why) = judged_as(&input, ours.as_ref(), &theirs, &class, case.seed) {
                return Verdict::Fail(why);
            }
        }
        (false, _) => {}
    }
    // With TVM here: TVM fails the same way today.
    match peer::run_tvm(&input, peer_mode) {
        Err(error) if !error.is_tvm_failure() => {
            eprintln!("{}: TVM not run again: {error}", case.path.display());
            Verdict::Pass
        }
        _ => match peer::check(&input, ours.as_ref(), peer_mode, case.seed, TIMEOUT, known) {
            Outcome::Fail(f) if f.class == class.failure_class() => Verdict::Pass,
            other => Verdict::Fail(format!("TVM no longer fails as `{expected}`: {}", describe(&other))),
        },
    }
}

/// Whether TVM's output `theirs` is judged as `class`, and Z3 refutes a wait of it when the
/// class is a race.
fn judged_as(
    input: &IRModule,
    ours: Option<&IRModule>,
    theirs: &IRModule,
    class: &TvmClass,
    seed: u64,
) -> Result<(), String> {
    let known = Known::default();
    match peer::judge(input, ours, theirs, seed, TIMEOUT, known) {
        Outcome::Fail(f) if f.class == class.failure_class() => {}
        other => return Err(format!("TVM's recorded output is not judged `{class}`: {}", describe(&other))),
    }
    if matches!(class, TvmClass::Racy { .. } | TvmClass::RacyProved) {
        match waits::tight(theirs, known, TIMEOUT).0 {
            Outcome::Fail(f) if f.class == FailureClass::WaitRefuted => {}
            other => return Err(format!("the verifier does not refute TVM's racy output: {}", describe(&other))),
        }
    }
    Ok(())
}

fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Pass => "it passes".into(),
        Outcome::Skip(why) => format!("skipped: {why}"),
        Outcome::Fail(f) => f.to_string(),
    }
}
