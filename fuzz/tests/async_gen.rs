//! Properties of the async program generator and of the `verify` oracle: every generated
//! program checks, round-trips through print and parse, and faults under the lazy interpreter
//! only for async-protocol reasons or races; generation reaches every pattern and makes both
//! clean and racy programs; the oracle passes when the verifier and the interpreter agree and
//! fails when they do not.

use std::collections::BTreeSet;

use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tirproof_fuzz::gen::{async_program, classes_of, AsyncClass, AsyncGenConfig, AsyncPattern, AsyncShape};
use tirproof_fuzz::oracle::verify::{
    is_race_or_async_fault, judge, late_assignments, InterpreterVerdict, VerifierVerdict,
};
use tirproof_fuzz::oracle::{
    round_trip, scalar_assignments, Chain, ChainConfig, InputMode, OracleName, Outcome, SkipReason, UndecidedKind,
};
use tirproof_interp::{random_inputs, run, FaultKind, RunConfig};
use tirproof_ir::check::check_module;
use tirproof_ir::print::print_module;
use tirproof_ir::IRModule;
use tirproof_verify::solver::Assignment;

/// Programs per property.
const PROGRAMS: u64 = 300;

fn generated(seed: u64) -> (IRModule, AsyncShape) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut bytes = vec![0u8; 512];
    rng.fill_bytes(&mut bytes);
    async_program(&mut Unstructured::new(&bytes), &AsyncGenConfig::default())
        .unwrap_or_else(|e| panic!("seed {seed}: the generator failed: {e}"))
}

/// The faults of the lazy interpreter on `module`, over the oracle's parameter values (those
/// of the fast plan and of the late probe).
fn lazy_faults(module: &IRModule) -> Vec<FaultKind> {
    let mut kinds = Vec::new();
    for func in &module.functions {
        for scalars in scalar_assignments(func).into_iter().chain(late_assignments(func)) {
            let inputs = random_inputs(func, 0, &scalars).unwrap_or_else(|e| panic!("inputs: {e}"));
            let result = run(func, &inputs, &RunConfig::default())
                .unwrap_or_else(|e| panic!("the interpreter cannot run it: {e}\n{}", print_module(module)));
            kinds.extend(result.outcome.fault().map(|f| f.kind));
        }
    }
    kinds
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
        if let Some(kind) = faults.iter().find(|k| !is_race_or_async_fault(**k)) {
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

/// Every class of [`AsyncClass`] appears among the first programs of a fixed seed, both in a
/// program the lazy interpreter runs clean and in one it faults on.
#[test]
fn generation_reaches_every_class_clean_and_faulty() {
    let (mut clean, mut faulty) = (BTreeSet::new(), BTreeSet::new());
    for seed in 0..PROGRAMS {
        let (module, _) = generated(seed);
        let classes = classes_of(&module);
        match lazy_faults(&module).is_empty() {
            true => clean.extend(classes),
            false => faulty.extend(classes),
        }
    }
    let missing =
        |seen: &BTreeSet<AsyncClass>| AsyncClass::ALL.into_iter().filter(|c| !seen.contains(c)).collect::<Vec<_>>();
    assert!(missing(&clean).is_empty(), "never generated clean: {:?}", missing(&clean));
    assert!(missing(&faulty).is_empty(), "never generated faulty: {:?}", missing(&faulty));
}

/// A loop that reads a slot with one group too many in flight: racy, and refuted.
const RACY: &str = include_str!("../../corpus/faults/read_pending_async.py");

/// Its twin with the right count: proved, and clean.
fn clean() -> String {
    RACY.replace("\"async_wait_inflight_count\": 2", "\"async_wait_inflight_count\": 1")
}

fn parsed(text: &str) -> IRModule {
    tirproof_reader::parse_module(text).unwrap_or_else(|e| panic!("{e}"))
}

/// A pipelined loop of one thread has none of the classes; a program with each construct has
/// exactly the classes of its constructs.
#[test]
fn classes_are_recognised_from_the_program() {
    assert_eq!(classes_of(&parsed(RACY)), BTreeSet::new());
    let several = r#"
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), K: T.Buffer((4,), "int32"), G: T.Buffer((64,), "float32"), n: T.int32, d: T.int32):
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        S = T.alloc_buffer((4,), "float32", scope="shared")
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            S[tx // 2] = A[tx]
        T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0})
        G[tx] = S[0]
    for i in range(n):
        with T.attr({"async_scope": 1}):
            G[i % 64] = A[i % d]
        if i % 4 == 1:
            with T.attr({"async_commit_queue_scope": 0}):
                G[0] = A[0]
        for j in range(K[i % 4]):
            if A[j] > T.float32(0.5):
                T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": K[0]})
                G[1] = A[1]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}):
        G[2] = A[2]
"#;
    let expected: BTreeSet<AsyncClass> = [
        AsyncClass::SharedElementOfThreads,
        AsyncClass::SyncOutsideThreads,
        AsyncClass::DataDependentSync,
        AsyncClass::PeriodicGuard,
        AsyncClass::LoadedLoopBound,
        AsyncClass::DivisionByParameter,
        AsyncClass::UncommittedStore,
    ]
    .into_iter()
    .collect();
    assert_eq!(classes_of(&parsed(several)), expected);
}

fn verify_outcome(module: &IRModule) -> Outcome {
    let config = ChainConfig { mode: InputMode::AsyncProgram, ..ChainConfig::default() };
    let result = Chain { config: &config }.run(module);
    let verify = result.outcomes.iter().find(|(o, _, _)| *o == OracleName::Verify);
    verify.map(|(_, outcome, _)| outcome.clone()).unwrap_or_else(|| panic!("verify did not run: {:?}", result.outcomes))
}

#[test]
fn a_proved_clean_program_passes() {
    let outcome = verify_outcome(&parsed(&clean()));
    assert!(matches!(outcome, Outcome::Pass), "{outcome:?}");
}

#[test]
fn a_refuted_racy_program_passes() {
    let module = parsed(RACY);
    assert!(!lazy_faults(&module).is_empty(), "the twin races");
    let outcome = verify_outcome(&module);
    assert!(matches!(outcome, Outcome::Pass), "{outcome:?}");
}

#[test]
fn asking_only_for_verify_runs_the_async_chain() {
    let config = ChainConfig::only(OracleName::Verify);
    let result = Chain { config: &config }.run(&parsed(&clean()));
    let ran: Vec<OracleName> = result.outcomes.iter().map(|(o, _, _)| *o).collect();
    assert_eq!(ran, vec![OracleName::Verify]);
}

#[test]
fn disagreements_fail_and_inconclusive_runs_skip() {
    let racy = InterpreterVerdict::Racy("read of pending async data".into());
    let refuted = VerifierVerdict::Refuted { refutation: "wait at line 3".into(), values: Assignment::new(), line: 3 };
    let class_of = |outcome: Outcome| outcome.failure().map(|f| f.signature().to_string());
    let proved_faulting = judge("main", &VerifierVerdict::Proved, &racy, None);
    assert_eq!(class_of(proved_faulting).as_deref(), Some("verify/proved-faulting"));
    let not_reproduced = judge("main", &refuted, &InterpreterVerdict::Clean, Some(&InterpreterVerdict::Clean));
    assert_eq!(class_of(not_reproduced).as_deref(), Some("verify/refutation-not-reproduced"));
    let unknown =
        VerifierVerdict::Unknown { why: "timeout".into(), budget_spent: false, kind: UndecidedKind::TimeLimit };
    let undecided = judge("main", &unknown, &racy, None);
    assert!(
        matches!(undecided, Outcome::Skip(SkipReason::VerifierUnknown(UndecidedKind::TimeLimit, _))),
        "{undecided:?}"
    );
    let stopped =
        VerifierVerdict::Unknown { why: "stopped".into(), budget_spent: true, kind: UndecidedKind::TimeLimit };
    assert!(matches!(judge("main", &stopped, &racy, None), Outcome::Skip(SkipReason::BudgetSpent { .. })));
    assert!(matches!(judge("main", &refuted, &InterpreterVerdict::Clean, Some(&racy)), Outcome::Pass));
    assert!(matches!(judge("main", &refuted, &racy, None), Outcome::Pass));
    assert!(matches!(judge("main", &VerifierVerdict::Proved, &InterpreterVerdict::Clean, None), Outcome::Pass));
    let inconclusive = InterpreterVerdict::Inconclusive("out of bounds".into());
    assert!(matches!(judge("main", &VerifierVerdict::Proved, &inconclusive, None), Outcome::Skip(_)));
}

/// The oracle has an answer for every generated program: the interpreter never stops at a
/// fault the generator should not make (the verifier may leave a program undecided).
#[test]
fn the_verify_oracle_decides_generated_programs() {
    for seed in 0..60 {
        let (module, shape) = generated(seed);
        match verify_outcome(&module) {
            // Undecided by the verifier, or refuted where only a huge extent wraps an index
            // (the `OverflowIndex` shape): the interpreter cannot run that far.
            Outcome::Skip(SkipReason::VerifierUnknown(..) | SkipReason::Unreplayable(_)) => {}
            Outcome::Skip(why) => panic!("seed {seed} {shape:?}: skipped: {why}\n{}", print_module(&module)),
            _ => {}
        }
    }
}
