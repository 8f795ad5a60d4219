//! `lower-async-tokens` on the token corpus: the lowered program has no wait on tokens alone,
//! the closed-form counts are the exact counts each program's description states, the
//! lowering runs like the token program under lazy, eager and random schedules (the same
//! outputs, or both fault), programs without a closed form get a counter of commits, faults
//! stay faults or are refused at their line, and a count written by hand is kept.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use tirproof_interp::{random_inputs, run, RunConfig, ScalarValue, Schedule, Tensor};
use tirproof_ir::{IRModule, PrimFunc};
use tirproof_passes::tokens::{derive_counts, Derived};
use tirproof_passes::PassManager;

fn corpus(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(path)
}

fn parse(text: &str) -> IRModule {
    tirproof_reader::parse_module(text).expect("the program parses")
}

fn lower(module: &IRModule) -> Result<IRModule, String> {
    let mut lowered = module.clone();
    let manager = PassManager::from_names(&["lower-async-tokens"]).expect("the pass is registered");
    manager.run(&mut lowered).map(|_| lowered).map_err(|e| e.to_string())
}

fn token_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(corpus("tokens"))
        .expect("corpus/tokens")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    assert!(files.len() >= 9, "the token corpus has its programs: {files:?}");
    files
}

/// How a run ended: the outputs, or a fault.
#[derive(Debug, PartialEq)]
enum Ending {
    Outputs(BTreeMap<String, Tensor>),
    Fault,
}

fn ending(func: &PrimFunc, scalars: &BTreeMap<String, ScalarValue>, config: &RunConfig) -> Ending {
    let inputs = random_inputs(func, 11, scalars).expect("inputs");
    let result = run(func, &inputs, config).expect("the interpreter runs the program");
    if result.outcome.fault().is_some() {
        return Ending::Fault;
    }
    Ending::Outputs(result.outputs)
}

/// Runs both under lazy, eager and three random schedules, every integer scalar at -1, 0
/// and 1; they must end alike every time. Returns whether the token program faulted once.
fn runs_alike(original: &IRModule, lowered: &IRModule, what: &str) -> bool {
    let mut faulted = false;
    for func in &original.functions {
        let other = lowered.get(&func.name).expect("the function is kept");
        let ints: Vec<String> =
            func.scalar_params().filter(|v| v.dtype().is_integer()).map(|v| v.name().to_string()).collect();
        for value in [-1, 0, 1] {
            let scalars = ints.iter().map(|n| (n.clone(), ScalarValue::Int(value))).collect();
            for schedule in
                [Schedule::Lazy, Schedule::Eager, Schedule::Random(1), Schedule::Random(2), Schedule::Random(7)]
            {
                let config = RunConfig { schedule, ..RunConfig::default() };
                let (a, b) = (ending(func, &scalars, &config), ending(other, &scalars, &config));
                assert_eq!(a, b, "{what}: `{}` under {schedule} with {value}", func.name);
                faulted |= a == Ending::Fault;
            }
        }
    }
    faulted
}

/// Waits on tokens alone left in a module.
fn token_only_waits(module: &IRModule) -> usize {
    module.functions.iter().flat_map(derive_counts).filter(|w| w.written.is_none()).count()
}

#[test]
fn every_token_program_lowers_to_counts_and_runs_alike() {
    for path in token_files() {
        let name = path.display().to_string();
        let original = parse(&fs::read_to_string(&path).expect("readable"));
        let lowered = lower(&original).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(token_only_waits(&lowered), 0, "{name}: a wait on tokens alone is left");
        assert!(!runs_alike(&original, &lowered, &name), "{name}: the corpus program runs without a fault");
    }
}

/// The exact count a peer-shape program's description states ("the exact count is N").
fn stated_exact_count(text: &str) -> Option<i64> {
    let desc = text.lines().find(|l| l.starts_with("# desc:"))?;
    let (_, after) = desc.split_once("the exact count is ")?;
    after.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
}

/// `text` with every non-zero in-flight count next to tokens removed (its body dedented).
fn without_claimed_counts(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.contains("\"async_wait_inflight_count\", ") && !line.contains("inflight_count\", 0)") {
            let indent = line.len() - line.trim_start().len();
            i += 1;
            while i < lines.len() && lines[i].len() - lines[i].trim_start().len() > indent {
                out.push(lines[i][4..].to_string());
                i += 1;
            }
            continue;
        }
        out.push(line.to_string());
        i += 1;
    }
    out.join("\n")
}

#[test]
fn closed_form_counts_are_the_exact_counts_the_peer_shapes_state() {
    let mut checked = 0;
    for path in token_files() {
        let text = fs::read_to_string(&path).expect("readable");
        let Some(exact) = stated_exact_count(&text) else { continue };
        let name = path.display().to_string();
        // The claim written next to the tokens is derived exactly...
        let claimed = parse(&text);
        let derived: Vec<Derived> = claimed.functions.iter().flat_map(derive_counts).map(|w| w.derived).collect();
        let exact_expr = Derived::Static(tirproof_ir::Expr::int(exact));
        assert!(derived.contains(&exact_expr), "{name}: {derived:?}, the description says {exact}");
        // ... and with the count taken away, the pass writes it back.
        let bare = parse(&without_claimed_counts(&text));
        assert!(token_only_waits(&bare) > 0, "{name}: the count was removed");
        let lowered = lower(&bare).unwrap_or_else(|e| panic!("{name}: {e}"));
        let written: Vec<_> = lowered.functions.iter().flat_map(derive_counts).filter_map(|w| w.written).collect();
        assert!(written.contains(&tirproof_ir::Expr::int(exact)), "{name}: {written:?}, expected {exact}");
        runs_alike(&bare, &lowered, &name);
        checked += 1;
    }
    assert_eq!(checked, 7, "the seven peer shapes state their exact counts");
}

#[test]
fn ring_buffer_tokens_get_a_constant_count() {
    let text = fs::read_to_string(corpus("tokens/two_slot_pipeline.py")).expect("readable");
    let derived: Vec<Derived> = parse(&text).functions.iter().flat_map(derive_counts).map(|w| w.derived).collect();
    let one = tirproof_ir::Expr::int(1);
    assert_eq!(derived.first(), Some(&Derived::Static(one)), "{derived:?}");
}

#[test]
fn path_dependent_commits_lower_to_a_counter_and_run_alike() {
    for file in ["tokens/commit_in_one_arm.py", "tokens/trip_count_from_memory.py"] {
        let original = parse(&fs::read_to_string(corpus(file)).expect("readable"));
        let derived: Vec<Derived> = original.functions.iter().flat_map(derive_counts).map(|w| w.derived).collect();
        assert!(matches!(derived.as_slice(), [Derived::Dynamic(_)]), "{file}: {derived:?}");
        let lowered = lower(&original).unwrap_or_else(|e| panic!("{file}: {e}"));
        let text = tirproof_ir::print::print_module(&lowered);
        assert!(text.contains("committed_q0[0] + T.int64(1)"), "{file}: no counter of commits:\n{text}");
        assert!(!text.contains("async_group_token"), "{file}: a token call is left:\n{text}");
        assert!(!runs_alike(&original, &lowered, file));
    }
}

#[test]
fn faults_stay_faults_or_are_refused_at_their_line() {
    let refused = [("faults/token_before_any_commit.py", 9), ("faults/token_wait_before_commit.py", 13)];
    for (file, line) in refused {
        let error = lower(&parse(&fs::read_to_string(corpus(file)).expect("readable"))).expect_err(file);
        assert!(error.contains(&format!("{line}:")), "{file}: {error}");
    }
    // A wait on an older group than the read needs: lowered exactly, and the read still faults.
    let file = "faults/token_wait_wrong_group.py";
    let original = parse(&fs::read_to_string(corpus(file)).expect("readable"));
    let lowered = lower(&original).expect(file);
    assert_eq!(token_only_waits(&lowered), 0);
    assert!(runs_alike(&original, &lowered, file), "{file} faults");
}

#[test]
fn a_count_written_by_hand_is_kept() {
    // Triton's count of 2 on a single copy's token is wrong, and stays: the claim faults.
    for file in ["faults/token_copy_counted_twice.py", "faults/token_mlir_unsafe_numgroups.py"] {
        let original = parse(&fs::read_to_string(corpus(file)).expect("readable"));
        let lowered = lower(&original).expect(file);
        assert_eq!(lowered, original, "{file}: the pass changed a program without token-only waits");
        assert!(runs_alike(&original, &lowered, file), "{file} faults");
    }
    for path in fs::read_dir(corpus("pipeline")).expect("corpus/pipeline").map(|e| e.expect("an entry").path()) {
        let name = path.display().to_string();
        if !name.contains("rfc_") {
            continue;
        }
        // The pipeline pass writes counts; the token lowering keeps every one of them.
        let mut pipelined = parse(&fs::read_to_string(&path).expect("readable"));
        let pipeline = PassManager::from_names(&["inject-software-pipeline"]).expect("registered");
        pipeline.run(&mut pipelined).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(lower(&pipelined).expect(&name), pipelined, "{name}");
    }
}
