//! Properties of the token program generator and its oracles: every program checks and
//! round-trips; a program without a planted mistake runs clean under every schedule with the
//! same outputs, and each planted mistake faults under the lazy schedule with its fault;
//! generation reaches every pattern and every mistake; the token oracles pass on correct
//! programs and fail on a program whose schedules disagree; a campaign of token programs runs
//! without findings.

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tirproof_fuzz::gen::{token_program, PlantedMistake, TokenGenConfig, TokenPattern, TokenShape};
use tirproof_fuzz::oracle::tokens::{schedules, token_lowering, LOWER_TOKENS_PASS};
use tirproof_fuzz::oracle::verify::late_assignments;
use tirproof_fuzz::oracle::{round_trip, scalar_assignments, Chain, ChainConfig, InputMode, Outcome, SkipReason};
use tirproof_interp::{random_inputs, run, FaultKind, RunConfig, Schedule};
use tirproof_ir::check::check_module;
use tirproof_ir::print::print_module;
use tirproof_ir::IRModule;
use tirproof_reader::parse_module;

/// Programs per property.
const PROGRAMS: u64 = 300;

fn generated(seed: u64) -> (IRModule, TokenShape) {
    let mut bytes = vec![0u8; 512];
    ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut bytes);
    token_program(&mut Unstructured::new(&bytes), &TokenGenConfig::default())
        .unwrap_or_else(|e| panic!("seed {seed}: the generator failed: {e}"))
}

/// The first fault of each run of `module` under `schedule`, over the oracles' parameter
/// values (the fast plan's and the late probe's).
fn faults(module: &IRModule, schedule: Schedule) -> Vec<Option<FaultKind>> {
    let func = &module.functions[0];
    let config = RunConfig { schedule, ..RunConfig::default() };
    scalar_assignments(func)
        .into_iter()
        .chain(late_assignments(func))
        .map(|scalars| {
            let inputs = random_inputs(func, 0, &scalars).unwrap_or_else(|e| panic!("inputs: {e}"));
            let result = run(func, &inputs, &config)
                .unwrap_or_else(|e| panic!("the interpreter cannot run it: {e}\n{}", print_module(module)));
            result.outcome.fault().map(|f| f.kind)
        })
        .collect()
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
        let text = print_module(&module);
        let parsed = parse_module(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert!(!check_module(&parsed).has_errors(), "seed {seed}: the parsed text does not check\n{text}");
    }
}

#[test]
fn correct_programs_run_clean_and_planted_mistakes_fault_with_their_fault() {
    let mut mistakes = BTreeMap::new();
    let mut correct = 0;
    for seed in 0..PROGRAMS {
        let (module, shape) = generated(seed);
        let lazy = faults(&module, Schedule::Lazy);
        match shape.mistake {
            None => {
                correct += 1;
                assert!(lazy.iter().all(Option::is_none), "seed {seed}: {lazy:?}\n{}", print_module(&module));
                if let Outcome::Fail(failure) = schedules(&module, seed) {
                    panic!("seed {seed}: {failure}\n{}", print_module(&module));
                }
            }
            Some(mistake) => {
                *mistakes.entry(mistake).or_insert(0) += 1;
                let expected = Some(mistake.fault());
                assert!(
                    lazy.iter().all(|f| *f == expected),
                    "seed {seed}: {mistake:?} should fault with {expected:?} in every run, not {lazy:?}\n{}",
                    print_module(&module)
                );
            }
        }
    }
    eprintln!("{correct} correct programs, mistakes {mistakes:?}");
    assert!(correct >= PROGRAMS as usize / 2, "{correct} correct programs of {PROGRAMS}");
    for mistake in PlantedMistake::ALL {
        assert!(mistakes.get(&mistake).copied().unwrap_or(0) > 0, "no program plants {mistake:?}");
    }
}

#[test]
fn generation_reaches_every_pattern() {
    let mut seen = BTreeSet::new();
    let mut queues = BTreeSet::new();
    for seed in 0..PROGRAMS {
        let (_, shape) = generated(seed);
        seen.extend(shape.patterns);
        queues.extend(shape.queues);
    }
    let missing: Vec<TokenPattern> = TokenPattern::ALL.into_iter().filter(|p| !seen.contains(p)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    assert_eq!(queues, BTreeSet::from([0, 1, 2]));
}

/// The corpus's two-slot token pipeline (clean under every schedule), or its twin whose last
/// wait claims a count of 1, which leaves the group its token names in flight: a fault.
fn pipeline(exact: bool) -> IRModule {
    let text = include_str!("../../corpus/tokens/two_slot_pipeline.py");
    let count = "\"async_wait_inflight_count\", 0";
    assert!(text.contains(count), "the corpus file's last wait claims a count of 0");
    let text = if exact { text.to_string() } else { text.replace(count, "\"async_wait_inflight_count\", 1") };
    parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn the_schedules_oracle_passes_a_correct_program_and_skips_one_that_faults_under_lazy() {
    assert!(matches!(schedules(&pipeline(true), 0), Outcome::Pass));
    // Faulting under lazy, the program promises nothing about the other schedules.
    match schedules(&pipeline(false), 0) {
        Outcome::Skip(SkipReason::NotApplicable(why)) => assert!(why.contains("lazy"), "{why}"),
        other => panic!("expected a skip, got {other:?}"),
    }
}

#[test]
fn the_lowering_oracle_passes_the_pass_and_judges_a_given_lowering() {
    let module = pipeline(true);
    // The pass is registered: it lowers this program to an equivalent one the verifier
    // judges wait by wait as it judges the tokens.
    assert!(tirproof_passes::lookup(LOWER_TOKENS_PASS).is_some());
    assert!(matches!(token_lowering(&module, 0), Outcome::Pass), "{:?}", token_lowering(&module, 0));
    use tirproof_fuzz::oracle::tokens::{lowering_equivalent, LoweringFailure};
    let identity = |m: &IRModule| Ok::<_, LoweringFailure>(m.clone());
    assert!(matches!(lowering_equivalent(&module, &identity, 0), Outcome::Pass));
    // A "lowering" whose last wait leaves the group it waits for in flight is caught.
    let broken = |_: &IRModule| Ok::<_, LoweringFailure>(pipeline(false));
    assert!(matches!(lowering_equivalent(&module, &broken, 0), Outcome::Fail(_)));
    let refused = |_: &IRModule| Err::<IRModule, _>(LoweringFailure::Refused("cannot lower".into()));
    assert!(matches!(lowering_equivalent(&module, &refused, 0), Outcome::Fail(_)));
}

/// A lowering whose count completes more than the tokens need (0 where 1 is exact) is
/// equivalent, but the verifier proves the wait on tokens tight and the lowered one
/// over-synchronized: the verdicts differ. The exact count keeps the verdict.
#[test]
fn a_lowering_that_changes_a_verdict_is_caught_and_the_exact_one_is_not() {
    use tirproof_fuzz::oracle::tokens::same_verdicts;
    use tirproof_fuzz::oracle::FailureClass;
    let module = pipeline(true);
    let tokens = r#"T.attr(0, "async_wait_tokens", T.tvm_tuple(toks[i % 2]))"#;
    let counted = |n: u32| {
        let text = tirproof_ir::print::print_module(&module);
        assert!(text.contains(tokens), "{text}");
        let with_count = format!(r#"T.attr(0, "async_wait_inflight_count", {n})"#);
        // The attributes of a chain print as statements at one indentation.
        let at = text.find(tokens).expect("the wait");
        let indent = &text[text[..at].rfind('\n').map_or(0, |k| k + 1)..at];
        let lowered = text.replacen(tokens, &format!("{with_count}\n{indent}{tokens}"), 1);
        parse_module(&lowered).unwrap_or_else(|e| panic!("{e}\n{lowered}"))
    };
    assert!(matches!(same_verdicts(&module, &counted(1)), Outcome::Pass));
    match same_verdicts(&module, &counted(0)) {
        Outcome::Fail(failure) => assert_eq!(failure.class, FailureClass::VerdictChanged, "{failure:?}"),
        other => panic!("expected a changed verdict, got {other:?}"),
    }
}

#[test]
fn the_chain_runs_the_token_oracles_on_token_programs() {
    // A few programs keep the verifier busy for minutes; a spent budget is a skip.
    let budget = Some(std::time::Duration::from_secs(5));
    let config = ChainConfig { mode: InputMode::TokenProgram, budget, ..ChainConfig::default() };
    let mut outcomes: BTreeMap<String, BTreeMap<&str, u64>> = BTreeMap::new();
    for seed in 0..40 {
        let (module, shape) = generated(seed);
        let result = Chain { config: &ChainConfig { seed, ..config.clone() } }.run(&module);
        if let Some(failure) = result.failure() {
            panic!(
                "seed {seed} ({:?}): {failure}\n{}\n{}",
                shape.mistake,
                failure.counterexample.as_deref().unwrap_or(""),
                print_module(&module)
            );
        }
        for (oracle, outcome, _) in &result.outcomes {
            let kind = match outcome {
                Outcome::Pass => "pass",
                Outcome::Skip(_) => "skip",
                Outcome::Fail(_) => "fail",
            };
            *outcomes.entry(oracle.to_string()).or_default().entry(kind).or_default() += 1;
        }
    }
    eprintln!("{outcomes:?}");
    for oracle in ["schedules", "verify", "round-trip"] {
        assert!(outcomes.get(oracle).and_then(|o| o.get("pass")).is_some(), "{oracle} never passed: {outcomes:?}");
    }
    assert!(outcomes.contains_key("token-lowering"), "{outcomes:?}");
}

#[test]
fn a_campaign_of_token_programs_runs_without_findings() {
    use std::time::Duration;
    use tirproof_fuzz::campaign::{run_campaign, CampaignConfig, Generator};
    use tirproof_fuzz::gen::GenConfig;
    use tirproof_fuzz::oracle::OracleName;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let config = CampaignConfig {
        out: dir.path().join("campaign"),
        seed: 1,
        jobs: 2,
        duration: Some(Duration::from_secs(600)),
        max_programs: Some(16),
        chain: ChainConfig::default(),
        gen: GenConfig::default(),
        reduce_budget: Duration::from_secs(30),
        // A few programs keep the verifier busy for a minute; a spent budget is a skip.
        program_budget: Duration::from_secs(10),
        mixed: true,
        generators: vec![Generator::Tokens],
        stop: None,
        progress_every: Duration::MAX,
    };
    let summary = run_campaign(&config, &|_| {}).expect("the campaign runs");
    assert_eq!(summary.programs, 16);
    assert_eq!(summary.generators.get("tokens"), Some(&16), "{:?}", summary.generators);
    assert!(summary.signatures.is_empty(), "findings: {:?}", summary.signatures);
    let schedules = &summary.oracles[OracleName::Schedules.name()];
    assert!(schedules.pass > 0, "{schedules:?}");
    let lowering = &summary.oracles[OracleName::TokenLowering.name()];
    assert_eq!(lowering.pass + lowering.skip, 16, "{lowering:?}");
    if tirproof_passes::lookup(LOWER_TOKENS_PASS).is_none() {
        assert!(lowering.skips.get("unavailable").is_some_and(|&n| n > 0), "{lowering:?}");
    }
}
