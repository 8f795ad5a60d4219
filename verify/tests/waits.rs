//! The wait verifier on programs printed by TVM 0.27: proofs and their refuted twins, and
//! SMT-LIB dumps that the z3 command line accepts.

use std::path::Path;
use std::process::Command;

use tirproof_ir::PrimFunc;
use tirproof_reader::parse_module;
use tirproof_verify::waits::{verify_func, DumpKind, DumpOutcome, Options, WaitCount, WaitRemark, WaitVerdict};

fn corpus(name: &str) -> PrimFunc {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus").join(name);
    parse_func(&std::fs::read_to_string(&path).expect("corpus file"))
}

fn with_count(func: &PrimFunc, from: &str, to: &str) -> PrimFunc {
    let text = tirproof_ir::print::print_func(func).replacen(from, to, 1);
    parse_module(&text).expect("still parses").functions.remove(0)
}

/// Every wait of `func` is proved tight, and with the first in-flight count `from` made `to`
/// (one more), a wait is refuted.
fn assert_tight_and_loosened_twin_refuted(func: &PrimFunc, from: u32, to: u32) {
    let (report, _) = verify_func(func, &Options::default());
    assert!(report.all_proved(), "{:?} {:?}", report.waits, report.findings);
    assert!(report.waits.iter().all(|w| w.verdict == WaitVerdict::ProvedTight), "{:?}", report.waits);
    let count = |n: u32| format!("\"async_wait_inflight_count\": {n}");
    let twin = with_count(func, &count(from), &count(to));
    let (report, _) = verify_func(&twin, &Options::default());
    let refuted = report.waits.iter().find(|w| matches!(w.verdict, WaitVerdict::Refuted { .. }));
    assert!(refuted.is_some(), "{:?}", report.waits);
}

#[test]
fn tvm_seed_a_is_proved_tight_and_its_loosened_twin_refuted() {
    assert_tight_and_loosened_twin_refuted(&corpus("tvm/seed_a_after_flatten_cse.py"), 1, 2);
}

#[test]
fn tvm_seed_c_count_five_is_refuted_with_a_counterexample() {
    let func = corpus("tvm/seed_c_after_pipeline.py");
    let (report, _) = verify_func(&func, &Options::default());
    let wait = report.waits.iter().find(|w| w.count == WaitCount::Constant(5)).expect("the body wait");
    let WaitVerdict::Refuted { reason, values } = &wait.verdict else { panic!("not refuted: {:?}", wait.verdict) };
    assert!(reason.contains("needs group") && reason.contains("complete"), "{reason}");
    assert!(!values.is_empty());
    // Its twin with the count that is right from the first iteration on is proved.
    let fixed = with_count(&func, "\"async_wait_inflight_count\": 5", "\"async_wait_inflight_count\": 2");
    let (report, _) = verify_func(&fixed, &Options::default());
    let wait = report.waits.iter().find(|w| w.count == WaitCount::Constant(2)).expect("the body wait");
    assert!(wait.verdict.is_proved(), "{:?}", wait.verdict);
}

#[test]
fn tvm_seed_b_negative_looking_count_is_proved_never_negative_but_a_missing_predicate_is_refuted() {
    let func = corpus("tvm/seed_b_after_flatten_cse.py");
    let (report, _) = verify_func(&func, &Options::default());
    assert!(report.all_proved(), "{:?} {:?}", report.waits, report.findings);
    // Without the predicate around it, `0 - i` runs as -1.
    let text = tirproof_ir::print::print_func(&func).replacen("if cse_v6 < 16:", "if True:", 1);
    let twin = parse_module(&text).expect("parses").functions.remove(0);
    let (report, _) = verify_func(&twin, &Options::default());
    assert!(report
        .waits
        .iter()
        .any(|w| matches!(&w.verdict, WaitVerdict::Refuted { reason, .. } if reason.contains("negative"))));
}

#[test]
fn every_dumped_query_is_accepted_by_the_z3_command_line() {
    let z3 = env!("TIRPROOF_Z3_BIN");
    let func = corpus("tvm/seed_c_after_flatten_cse.py");
    let options = Options { dump_smtlib: true, ..Options::default() };
    let (_, dumps) = verify_func(&func, &options);
    assert!(dumps.len() >= 3);
    let scratch = tempfile::Builder::new().prefix("tirproof-smt-").tempdir().expect("temp dir");
    let dir = scratch.path();
    for (i, dump) in dumps.iter().enumerate() {
        let path = dir.join(format!("{i}.smt2"));
        std::fs::write(&path, &dump.script).expect("write");
        let out = Command::new(z3).arg(&path).output().expect("z3 runs");
        let answer = String::from_utf8_lossy(&out.stdout);
        let first = answer.lines().next().unwrap_or("");
        // Each dump says what the verifier's own check answered: the command line agrees.
        let expected = match dump.outcome {
            DumpOutcome::Held => "unsat",
            DumpOutcome::Failed => "sat",
            DumpOutcome::Unknown => continue,
        };
        assert_eq!(first, expected, "{}: z3 answered {answer}", dump.name);
    }
    assert!(dumps.iter().any(|d| matches!(d.kind, DumpKind::TightnessProbe { .. })), "tightness probes are labelled");
    assert!(dumps.iter().any(|d| d.kind == DumpKind::AsWritten && d.outcome == DumpOutcome::Failed));
}

const MODULO_GUARDED: &str = r#"
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32"), n: T.int32):
    B = T.alloc_buffer((2,), "float32", scope="shared")
    for i in range(EXTENT):
        if EVEN:
            with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
                B[0] = A[i]
        if ODD:
            with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": COUNT}):
                C[i] = B[0]
"#;

/// Commits and waits under a condition that is not an interval of the loop variable: a
/// periodic one (`i % 2 == 0`) is counted exactly for every extent; any other (`i // 2 * 2
/// == i`, the same parity but not known to be periodic) by enumeration: exact for a loop of at most 64 iterations (16
/// here), a bounded check that is never a proof for a symbolic extent. The loosened twins are
/// refuted.
#[test]
fn non_interval_conditions_get_a_bounded_encoding() {
    for (even, odd) in [("i % 2 == 0", "i % 2 == 1"), ("i // 2 * 2 == i", "i // 2 * 2 + 1 == i")] {
        let parity = even;
        let parse = |extent: &str, count: &str| {
            let text = MODULO_GUARDED
                .replace("EVEN", even)
                .replace("ODD", odd)
                .replace("EXTENT", extent)
                .replace("COUNT", count);
            parse_module(&text).expect("parses").functions.remove(0)
        };
        let (report, _) = verify_func(&parse("16", "0"), &Options::default());
        assert!(report.all_proved(), "{parity}: {report:?}");
        // With `n` odd, the last commit is never waited for (a finding of its own).
        let (report, _) = verify_func(&parse("n", "0"), &Options::default());
        assert!(!report.all_proved(), "{parity}: {report:?}");
        let expected = |w: &tirproof_verify::waits::WaitReport| match parity {
            "i % 2 == 0" => matches!(w.verdict, WaitVerdict::ProvedTight),
            _ => matches!(w.verdict, WaitVerdict::ProvedBounded { iterations: 64 }),
        };
        assert!(report.waits.iter().all(expected), "{parity}: {report:?}");
        for extent in ["16", "n"] {
            let (report, _) = verify_func(&parse(extent, "1"), &Options::default());
            assert!(report.waits.iter().any(|w| matches!(w.verdict, WaitVerdict::Refuted { .. })), "{report:?}");
        }
    }
}

/// A queue drained at the end of each iteration of an enclosing loop or thread binding: proved;
/// with the drain loosened to 1, a group is left in flight when the function (or the launch)
/// ends, which must be refuted even though no later statement reads it. (The fuzzers found
/// this: the end of the function was not ordered after a function body that is one loop.)
#[test]
fn a_group_left_in_flight_under_an_enclosing_loop_is_refuted() {
    let ends = [
        ("for tx in range(2):", "the function ends"),
        ("for tx in T.thread_binding(2, thread=\"threadIdx.x\"):", "the launch at line 3 ends"),
    ];
    for (header, end) in ends {
        let text = format!(
            "@T.prim_func\ndef main(A: T.Buffer((2,), \"float32\"), Out: T.Buffer((2,), \"float32\")):\n    {header}\n        with T.attr({{\"async_commit_queue_scope\": 0, \"async_scope\": 1}}):\n            Out[tx] = A[tx] + T.float32(1.0)\n        T.attr({{\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": 0}})\n        T.evaluate(0)\n"
        );
        let func = parse_module(&text).expect("parses").functions.remove(0);
        let (report, _) = verify_func(&func, &Options::default());
        assert!(report.all_proved(), "{header}: {:?} {:?}", report.waits, report.findings);
        let twin = with_count(&func, "\"async_wait_inflight_count\": 0", "\"async_wait_inflight_count\": 1");
        let (report, _) = verify_func(&twin, &Options::default());
        let finding = report.findings.iter().find(|f| f.message.contains(&format!("complete when {end}")));
        assert!(finding.is_some(), "{header}: {:?} {:?}", report.waits, report.findings);
    }
}

/// `cuda_pipeline.h`'s idiom: a group every iteration, empty once the copies end, and no wait
/// after the loop. An empty group in flight at the end is no finding; a group holding a copy
/// there is, naming the store.
#[test]
fn only_groups_holding_a_store_must_be_complete_at_the_end() {
    let (report, _) = verify_func(&corpus("verify/pipeline_empty_group_at_end_clean.py"), &Options::default());
    assert!(report.all_proved(), "{:?} {:?}", report.waits, report.findings);
    let (report, _) = verify_func(&corpus("verify/pipeline_copy_in_flight_at_end_racy.py"), &Options::default());
    let finding = report.findings.iter().find(|f| f.message.contains("complete when the function ends"));
    let message = &finding.unwrap_or_else(|| panic!("{:?} {:?}", report.waits, report.findings)).message;
    assert!(
        message.contains("16 groups of queue 0 are committed but only 15 are complete")
            && message.contains("group 15 holds the async store B[(i + 1) % 2]"),
        "{message}"
    );
}

fn parse_func(text: &str) -> PrimFunc {
    parse_module(text).expect("parses").functions.remove(0)
}

/// The two branches of one `if` never both run in one iteration, but a branch of an earlier
/// iteration does run before the other branch of a later one: a group committed in the then
/// branch of iteration 0 must be complete when the else branch of iteration 1 reads it.
#[test]
fn branches_of_one_if_are_exclusive_only_within_one_iteration() {
    let text = "@T.prim_func\ndef main(A: T.Buffer((1,), \"float32\"), Out: T.Buffer((1,), \"float32\")):\n    S = T.alloc_buffer((1,), \"float32\", scope=\"shared\")\n    for i in range(2):\n        if i < 1:\n            with T.attr({\"async_commit_queue_scope\": 0, \"async_scope\": 1}):\n                S[0] = A[0]\n        else:\n            with T.attr({\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": 0}):\n                Out[0] = S[0]\n";
    assert_tight_and_loosened_twin_refuted(&parse_func(text), 0, 1);
}

/// Different threads may take different branches of one `if`: a thread that writes shared
/// memory asynchronously in the then branch races with another thread reading it in the else
/// branch. Refuted; its twin, with the wait and a barrier between the two `if`s, is proved.
#[test]
fn threads_on_different_branches_of_one_if_can_race() {
    let head = "@T.prim_func\ndef main(A: T.Buffer((1,), \"float32\"), Out: T.Buffer((1,), \"float32\")):\n    S = T.alloc_buffer((1,), \"float32\", scope=\"shared\")\n    for tx in T.thread_binding(2, thread=\"threadIdx.x\"):\n";
    let write = "            with T.attr({\"async_commit_queue_scope\": 0, \"async_scope\": 1}):\n                S[0] = A[0]\n            with T.attr({\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": 0}):\n                T.evaluate(0)\n";
    let racy = parse_func(&format!("{head}        if tx < 1:\n{write}        else:\n            Out[0] = S[0]\n"));
    let (report, _) = verify_func(&racy, &Options::default());
    let race = report.findings.iter().find(|f| f.message.contains("barrier"));
    assert!(race.is_some(), "{:?} {:?}", report.waits, report.findings);
    let synced = parse_func(&format!(
        "{head}        if tx < 1:\n{write}        T.tvm_storage_sync(\"shared\")\n        if tx >= 1:\n            Out[0] = S[0]\n"
    ));
    let (report, _) = verify_func(&synced, &Options::default());
    assert!(report.all_proved(), "{:?} {:?}", report.waits, report.findings);
}

#[test]
fn a_spent_function_budget_leaves_every_wait_unknown_and_a_generous_one_proves() {
    let func = corpus("tvm/seed_a_after_pipeline.py");
    let spent = Options { budget: Some(std::time::Duration::ZERO), ..Options::default() };
    let (report, _) = verify_func(&func, &spent);
    // Only what needs no solver can still be decided (an obligation that folds to `true`).
    assert!(!report.all_proved(), "not everything is proved once the budget is spent: {report:?}");
    assert!(
        report.waits.iter().all(|w| !matches!(w.verdict, WaitVerdict::Refuted { .. })),
        "a spent budget refutes nothing: {report:?}"
    );
    let generous = Options { budget: Some(std::time::Duration::from_secs(600)), ..Options::default() };
    assert!(verify_func(&func, &generous).0.all_proved());
}

#[test]
fn a_wait_in_a_loop_whose_extent_is_read_once_is_proved_tight() {
    // The extent is one value read before the loop: the wait's last instance is exact, so the
    // tightness probe's refutation is trusted, not left unknown.
    let (report, _) = verify_func(&corpus("verify/loop_extent_read_clean.py"), &Options::default());
    assert!(report.all_proved(), "{report:?}");
    assert!(report.waits.iter().all(|w| matches!(w.verdict, WaitVerdict::ProvedTight)), "{report:?}");
}

/// An access bounds its loop only under a condition that keeps holding: `i % 1 != 0` and
/// `(i * 65536) * 65536 != 0` (0 in int32 at every `i`) never hold, so the out-of-bounds
/// store under them says nothing about how long the loop runs, and the count `1` from
/// iteration 100 on leaves the copy of the iteration being read in flight: refuted. Their
/// twins, under conditions that hold every iteration or every other one, fault before
/// iteration 100 and are proved.
#[test]
fn a_condition_that_never_holds_does_not_bound_its_loop() {
    let program = |guard: &str| wrong_from_iteration_100(&format!("if {guard}:"));
    for never in ["i % 1 != 0", "i * 65536 * 65536 != 0", "i % 3 == 3"] {
        let (report, _) = verify_func(&program(never), &Options::default());
        assert!(
            report.waits.iter().any(|w| matches!(w.verdict, WaitVerdict::Refuted { .. })),
            "under `{never}`: {:?} {:?}",
            report.waits,
            report.findings
        );
    }
    for holding in ["i % 1 == 0", "(3 + i) % 3 != 0", "i * 3 != 5"] {
        let (report, _) = verify_func(&program(holding), &Options::default());
        assert!(report.all_proved(), "under `{holding}`: {:?} {:?}", report.waits, report.findings);
    }
}

/// A store under a range condition on the loop variable (`i < n`, `i + 1 < X`, `i > 5`)
/// bounds the loop by the iterations where the condition held: at `i >= 100` the count `1`
/// would leave the copy being read in flight, but the iterations before ran `Out[i]` out of
/// bounds (from `i = 4`, or from `i = 6` under `i > 5`). Proved. Twins whose condition stops
/// holding early (`i < 3`) or starts after iteration 100 (`i > 200`) do not bound it there:
/// refuted. So is `i + 1 < n + 5`, rightly: at `n = 2147483643`, `n + 5` wraps and the store
/// never runs.
#[test]
fn a_range_condition_bounds_its_loop_while_it_holds() {
    let program = |guard: &str| wrong_from_iteration_100(&format!("if {guard}:"));
    for holding in ["i < n", "i + 1 < n", "n > i", "i <= 1000", "i - 2 < 500000", "i > 5", "50 <= i"] {
        let (report, _) = verify_func(&program(holding), &Options::default());
        assert!(report.all_proved(), "under `{holding}`: {:?} {:?}", report.waits, report.findings);
    }
    for partial in ["i < 3", "i > 200", "i >= 150", "i + 1 < n + 5"] {
        let (report, _) = verify_func(&program(partial), &Options::default());
        assert!(
            report.waits.iter().any(|w| matches!(w.verdict, WaitVerdict::Refuted { .. })),
            "under `{partial}`: {:?} {:?}",
            report.waits,
            report.findings
        );
    }
}

/// An access in an inner loop that always runs (constant bounds, at least one iteration)
/// bounds the outer loop as a direct one does; an inner loop that may run no iteration
/// (`range(n - 2)`) does not.
#[test]
fn an_always_running_inner_loop_bounds_its_outer_loop() {
    let program = |inner: &str| wrong_from_iteration_100(&format!("for j in {inner}:"));
    let (report, _) = verify_func(&program("range(3)"), &Options::default());
    assert!(report.all_proved(), "{:?} {:?}", report.waits, report.findings);
    let (report, _) = verify_func(&program("range(n - 2)"), &Options::default());
    assert!(report.waits.iter().any(|w| matches!(w.verdict, WaitVerdict::Refuted { .. })), "{report:?}");
}

/// A loop whose wait leaves the copy being read in flight from iteration 100 on (count 1),
/// followed by `head` over the store `Out[i] = 1.0` (4 elements: out of bounds from `i = 4`).
fn wrong_from_iteration_100(head: &str) -> PrimFunc {
    parse_func(&format!(
        "@T.prim_func\ndef main(A: T.Buffer((256,), \"float32\"), Out: T.Buffer((4,), \"float32\"), n: T.int32):\n    S = T.alloc_buffer((1,), \"float32\", scope=\"shared\")\n    for i in range(n):\n        with T.attr({{\"async_commit_queue_scope\": 0, \"async_scope\": 1}}):\n            S[0] = A[0]\n        with T.attr({{\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": T.if_then_else(i < 100, 0, 1)}}):\n            Out[0] = S[0]\n        {head}\n            Out[i] = T.float32(1.0)\n"
    ))
}

/// Straight-line stores of separate groups into different constant elements of one buffer:
/// pairs at different elements need no query, but the pair at the element a read shares with
/// its store is still checked. Proved with the wait that completes the read's group; refuted
/// when that wait leaves the group in flight, and when the read moves onto an element a later
/// group writes; and through a differently shaped view of the same storage (a 2-D `B` over the
/// 1-D `S`), elements are not assumed apart.
#[test]
fn accesses_at_different_constant_elements_are_apart_and_the_same_element_is_checked() {
    let program = |read: &str, count: u32, view: bool| {
        let alias = if view { "    B = T.decl_buffer((2, 2), \"float32\", data=S.data)\n" } else { "" };
        let target = if view { "B[1, 0]" } else { "S[2]" };
        parse_func(&format!(
            "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), Out: T.Buffer((1,), \"float32\")):\n    S = T.alloc_buffer((4,), \"float32\", scope=\"shared\")\n{alias}    with T.attr({{\"async_commit_queue_scope\": 0, \"async_scope\": 1}}):\n        S[0] = A[0]\n    with T.attr({{\"async_commit_queue_scope\": 0, \"async_scope\": 1}}):\n        S[1] = A[1]\n    with T.attr({{\"async_commit_queue_scope\": 0, \"async_scope\": 1}}):\n        {target} = A[2]\n    with T.attr({{\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": {count}}}):\n        Out[0] = {read}\n    with T.attr({{\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": 0}}):\n        T.evaluate(0)\n"
        ))
    };
    let verdicts = |func: &PrimFunc| {
        let (report, _) = verify_func(func, &Options::default());
        (report.all_proved(), report.waits.iter().any(|w| matches!(w.verdict, WaitVerdict::Refuted { .. })))
    };
    // The read of S[0] needs only the first group: in flight at most 2 groups is enough.
    assert_eq!(verdicts(&program("S[0]", 2, false)), (true, false));
    assert_eq!(verdicts(&program("S[0]", 3, false)), (false, true));
    // S[2] is written by the last group: every group must be complete.
    assert_eq!(verdicts(&program("S[2]", 0, false)), (true, false));
    assert_eq!(verdicts(&program("S[2]", 1, false)), (false, true));
    // B[1, 0] is S[2]: a read of S[2] through the other view is still paired with its store.
    assert_eq!(verdicts(&program("S[2]", 1, true)), (false, true));
}

/// A commit under one condition on data and a wait under another: the choices made for them
/// apart cover every memory contents, so the clean program's safety is proved; its twin whose
/// wait leaves the group in flight is never proved (a counterexample resting on such a choice
/// is not trusted, so it is unknown or refuted).
#[test]
fn waits_and_commits_under_different_conditions_on_data_are_proved_clean_and_never_proved_racy() {
    let program = |count: u32| {
        format!(
            r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), K: T.Buffer((4,), "int32"), C: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((64,), "float32", scope="shared")
    for i in range(n):
        if A[i] > T.float32(0.5):
            with T.attr({{"async_commit_queue_scope": 0, "async_scope": 1}}):
                B[i] = A[i]
        if K[0] > 0:
            T.attr({{"async_wait_queue_scope": 0, "async_wait_inflight_count": {count}}})
            T.evaluate(0)
            C[i] = B[i]
    T.attr({{"async_wait_queue_scope": 0, "async_wait_inflight_count": 0}})
    T.evaluate(0)
"#
        )
    };
    let safety = Options { tightness: false, ..Options::default() };
    let clean = parse_func(&program(0));
    let (report, _) = verify_func(&clean, &safety);
    assert!(report.all_proved(), "{:?} {:?} {:?}", report.waits, report.findings, report.unknown);
    let racy = parse_func(&program(1));
    let (report, _) = verify_func(&racy, &safety);
    assert!(!report.all_proved(), "a racy program proved: {:?}", report.waits);
    assert!(
        report.waits.iter().all(|w| !w.verdict.is_proved() || w.count == WaitCount::Constant(0)),
        "{:?}",
        report.waits
    );
}

/// A wait on tokens alone leaves in flight what its tokens allow, followed through a ring
/// buffer of tokens from one iteration to the next: proved safe and tight. Its twin names the
/// group before the right one (the token minus one) and lets the read see a pending copy.
#[test]
fn a_wait_on_tokens_through_a_ring_buffer_is_proved_and_an_older_token_is_refuted() {
    let func = corpus("tokens/two_slot_pipeline.py");
    let report = verify_func(&func, &Options::default()).0;
    assert!(report.waits.iter().any(|w| matches!(w.count, WaitCount::Tokens(_))), "{:?}", report.waits);
    assert!(report.waits.iter().all(|w| w.verdict == WaitVerdict::ProvedTight), "{:?}", report.waits);
    assert!(report.all_proved(), "{:?} {:?}", report.findings, report.unknown);
    let older = with_count(
        &func,
        r#"T.attr(0, "async_wait_tokens", T.tvm_tuple(toks[i % 2]))"#,
        r#"T.attr(0, "async_wait_tokens", T.tvm_tuple(toks[i % 2] - T.int64(1)))"#,
    );
    let report = verify_func(&older, &Options::default()).0;
    assert!(report.waits.iter().any(|w| w.verdict.is_refuted()), "{:?}", report.waits);
}

/// The peers' token shapes with their counts taken out: each wait on tokens alone is proved
/// safe and tight, and naming one group earlier is refuted (the read may see its copy
/// pending, or the token names no group).
#[test]
fn the_peers_token_shapes_with_tokens_alone_are_tight_and_an_older_token_is_refuted() {
    for (name, count) in [
        ("tokens/triton_commits_in_both_arms.py", 1),
        ("tokens/triton_wait_inside_if.py", 1),
        ("tokens/triton_inner_loop_between.py", 3),
        ("tokens/triton_single_copy_token.py", 1),
        ("tokens/triton_token_out_of_loop.py", 3),
        ("tokens/triton_token_through_data_dependent_loop.py", 1),
        ("tokens/mlir_wait_on_copy_token.py", 2),
    ] {
        let written = format!("T.attr(0, \"async_wait_inflight_count\", {count})\n");
        let text = tirproof_ir::print::print_func(&corpus(name));
        let at = text.find(&written).unwrap_or_else(|| panic!("{name}: no count {count}"));
        let line_start = text[..at].rfind('\n').map_or(0, |k| k + 1);
        let tokens_alone = format!("{}{}", &text[..line_start], &text[at + written.len()..]);
        let func = parse_func(&tokens_alone);
        let report = verify_func(&func, &Options::default()).0;
        assert!(report.waits.iter().any(|w| matches!(w.count, WaitCount::Tokens(_))), "{name}: {tokens_alone}");
        assert!(report.waits.iter().all(|w| w.verdict == WaitVerdict::ProvedTight), "{name}: {:?}", report.waits);
        assert!(report.all_proved(), "{name}: {:?} {:?}", report.findings, report.unknown);
        // The wait's token, one group earlier: `..., "async_wait_tokens", t)` becomes `t - 1`.
        let key = "\"async_wait_tokens\", ";
        let from = tokens_alone.find(key).map(|k| k + key.len()).unwrap_or_else(|| panic!("{name}: no tokens"));
        let to = from + tokens_alone[from..].find(")\n").unwrap_or_else(|| panic!("{name}: no end"));
        let older = format!("{}{} - T.int64(1){}", &tokens_alone[..from], &tokens_alone[from..to], &tokens_alone[to..]);
        assert_ne!(older, tokens_alone, "{name}");
        let report = verify_func(&parse_func(&older), &Options::default()).0;
        assert!(report.waits.iter().any(|w| w.verdict.is_refuted()), "{name}: {:?}", report.waits);
    }
}

/// A count claimed to cover a token is checked against it even where no read needs the
/// group: 2 groups follow the named one, so 2 holds and 3 is refuted.
#[test]
fn a_claimed_count_is_checked_against_its_tokens_even_without_a_read() {
    let program = |count: u32| {
        format!(
            r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    with T.attr(0, "async_commit_queue_scope", 0):
        with T.attr(0, "async_scope", 1):
            S[0] = A[0]
    tok: T.int64 = T.call_extern("int64", "async_group_token", 0)
    for k in range(2):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                S[k + 1] = A[k + 1]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", {count}):
            with T.attr(0, "async_wait_tokens", tok):
                T.evaluate(0)
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.evaluate(0)
"#
        )
    };
    let report = verify_func(&parse_func(&program(2)), &Options::default()).0;
    assert!(report.waits.iter().all(|w| w.verdict.is_proved()), "{:?}", report.waits);
    let report = verify_func(&parse_func(&program(3)), &Options::default()).0;
    let refuted: Vec<_> = report.waits.iter().filter(|w| w.verdict.is_refuted()).collect();
    assert_eq!(refuted.len(), 1, "{:?}", report.waits);
    assert!(format!("{:?}", refuted[0].verdict).contains("claims more than the tokens allow"), "{:?}", refuted[0]);
}

/// Tokens that name no committed group are refuted where the interpreter faults: a copy's
/// token waited on before its commit, and the last committed group asked before any commit
/// (a finding at the call, whatever uses it). Their twins, with the commit first, are proved.
#[test]
fn tokens_of_groups_not_committed_are_refuted_and_their_committed_twins_proved() {
    let report = verify_func(&corpus("faults/token_wait_before_commit.py"), &Options::default()).0;
    assert!(
        report.waits.iter().any(|w| format!("{:?}", w.verdict).contains("has not committed yet")),
        "{:?}",
        report.waits
    );
    let report = verify_func(&corpus("faults/token_before_any_commit.py"), &Options::default()).0;
    assert!(report.findings.iter().any(|f| f.message.contains("runs before any commit")), "{:?}", report.findings);
    let committed_first = r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    with T.attr(0, "async_scope", 1):
        S[0] = A[0]
    tok: T.int64 = T.call_extern("int64", "async_copy_token", 0)
    with T.attr(0, "async_commit_queue_scope", 0):
        T.evaluate(0)
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_tokens", tok):
            C[0] = S[0]
"#;
    let report = verify_func(&parse_func(committed_first), &Options::default()).0;
    assert!(report.all_proved(), "{:?} {:?} {:?}", report.waits, report.findings, report.unknown);
}

/// A buffer of tokens that also holds something else is not followed: the wait on a token
/// loaded from it is unknown, never proved.
#[test]
fn tokens_in_memory_that_something_else_writes_are_not_followed() {
    let text = r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32"), x: T.int64):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    toks = T.alloc_buffer((1,), "int64", scope="local")
    with T.attr(0, "async_commit_queue_scope", 0):
        with T.attr(0, "async_scope", 1):
            S[0] = A[0]
    toks[0] = T.call_extern("int64", "async_group_token", 0)
    toks[0] = x
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_tokens", toks[0]):
            C[0] = S[0]
"#;
    let report = verify_func(&parse_func(text), &Options::default()).0;
    assert!(report.waits.iter().all(|w| matches!(w.verdict, WaitVerdict::Unknown { .. })), "{:?}", report.waits);
    assert!(!report.all_proved());
}

/// The peers' token shapes, written with the exact count next to their tokens: each count is
/// proved safe and tight (the count is what runs), and one more is refuted.
#[test]
fn exact_counts_of_the_peers_token_shapes_are_tight_and_one_more_is_refuted() {
    for (name, count) in [
        ("tokens/triton_commits_in_both_arms.py", 1),
        ("tokens/triton_wait_inside_if.py", 1),
        ("tokens/triton_inner_loop_between.py", 3),
        ("tokens/triton_single_copy_token.py", 1),
        ("tokens/triton_token_out_of_loop.py", 3),
        ("tokens/triton_token_through_data_dependent_loop.py", 1),
        ("tokens/mlir_wait_on_copy_token.py", 2),
    ] {
        let func = corpus(name);
        let report = verify_func(&func, &Options::default()).0;
        assert!(report.waits.iter().all(|w| w.verdict == WaitVerdict::ProvedTight), "{name}: {:?}", report.waits);
        assert!(report.all_proved(), "{name}: {:?} {:?}", report.findings, report.unknown);
        let written = |n: u32| format!("T.attr(0, \"async_wait_inflight_count\", {n})");
        let twin = with_count(&func, &written(count), &written(count + 1));
        let report = verify_func(&twin, &Options::default()).0;
        assert!(report.waits.iter().any(|w| w.verdict.is_refuted()), "{name}: {:?}", report.waits);
    }
}

/// A token-making call the model does not place where the interpreter evaluates it (inside a
/// float conversion here, before any commit: a fault) leaves every verdict of its function
/// unknown; without it the same function is proved.
#[test]
fn a_token_made_where_the_encoding_does_not_follow_it_leaves_the_function_unknown() {
    let program = |extra: &str| {
        format!(
            r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    {extra}
    with T.attr(0, "async_commit_queue_scope", 0):
        with T.attr(0, "async_scope", 1):
            S[0] = A[0]
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            C[0] = S[0]
"#
        )
    };
    let hidden = program(r#"C[1] = T.Cast("float32", T.call_extern("int64", "async_group_token", 0))"#);
    let report = verify_func(&parse_func(&hidden), &Options::default()).0;
    assert!(report.waits.iter().all(|w| matches!(w.verdict, WaitVerdict::Unknown { .. })), "{:?}", report.waits);
    assert!(!report.all_proved());
    let report = verify_func(&parse_func(&program("C[1] = A[1]")), &Options::default()).0;
    assert!(report.all_proved(), "{:?} {:?} {:?}", report.waits, report.findings, report.unknown);
}

/// Attention's over-coarse wait: K and V are copied, and the wait before the read of K names
/// both tokens. The uses are safe without V's token, which is named; its twin reads both
/// copies and needs both tokens: tight, no remark. A second wait on a token already complete
/// (no commit since) is redundant.
#[test]
fn an_over_coarse_token_set_and_a_redundant_wait_are_remarked_and_their_twins_are_not() {
    let program = |first_read: &str, second_wait_tokens: &str| {
        format!(
            r#"
@T.prim_func
def main(K: T.Buffer((8,), "float32"), V: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float32")):
    SK = T.alloc_buffer((8,), "float32", scope="shared")
    SV = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(8):
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                SK[i] = K[i]
        tk = T.call_extern("int64", "async_group_token", 0)
        with T.attr(0, "async_commit_queue_scope", 0):
            with T.attr(0, "async_scope", 1):
                SV[i] = V[i]
        tv = T.call_extern("int64", "async_group_token", 0)
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_tokens", T.tvm_tuple(tk, tv)):
                C[i] = {first_read}
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_tokens", T.tvm_tuple({second_wait_tokens})):
                D[i] = SV[i]
"#
        )
    };
    let coarse = verify_func(&parse_func(&program("SK[i]", "tv")), &Options::default()).0;
    assert!(coarse.all_proved(), "{:?} {:?}", coarse.findings, coarse.unknown);
    assert_eq!(coarse.waits[0].remarks, vec![WaitRemark::TokenNotNeeded { token: "tv".into() }], "{:?}", coarse.waits);
    assert_eq!(coarse.waits[1].remarks, vec![WaitRemark::Redundant], "{:?}", coarse.waits);
    let needed = verify_func(&parse_func(&program("SK[i] + SV[i]", "tk")), &Options::default()).0;
    assert!(needed.all_proved(), "{:?} {:?}", needed.findings, needed.unknown);
    assert_eq!(needed.waits[0].verdict, WaitVerdict::ProvedTight, "{:?}", needed.waits);
    assert!(needed.waits[0].remarks.is_empty(), "{:?}", needed.waits);
}

/// Triton's 0 for an inner loop between commit and wait: the count is proved, and the tokens
/// it claims to cover allow exactly 3 more on every path. With the exact count, no remark.
#[test]
fn a_claim_below_its_tokens_is_measured_exactly() {
    let func = corpus("tokens/triton_inner_loop_between.py");
    let written = |n: u32| format!("T.attr(0, \"async_wait_inflight_count\", {n})");
    let zero = with_count(&func, &written(3), &written(0));
    let report = verify_func(&zero, &Options::default()).0;
    assert!(report.all_proved(), "{:?} {:?}", report.findings, report.unknown);
    assert!(report.waits[0].remarks.contains(&WaitRemark::ClaimBelowTokens { by: 3 }), "{:?}", report.waits);
    let report = verify_func(&func, &Options::default()).0;
    assert!(report.waits[0].remarks.is_empty(), "{:?}", report.waits);
}

/// A buffer of tokens allocated inside a loop starts each iteration uninitialized: a load in
/// an iteration whose store did not run reads no token (a fault in the interpreter), though
/// an earlier iteration stored one. Allocated once, before the loop, the same token is
/// still there: proved.
#[test]
fn a_buffer_of_tokens_allocated_in_a_loop_holds_no_token_from_an_earlier_iteration() {
    let program = |inside: bool| {
        let (outer, inner) = if inside {
            ("", "toks = T.alloc_buffer((1,), \"int64\", scope=\"local\")")
        } else {
            ("toks = T.alloc_buffer((1,), \"int64\", scope=\"local\")", "")
        };
        format!(
            r#"
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    S = T.alloc_buffer((8,), "float32", scope="shared")
    {outer}
    for i in range(8):
        {inner}
        if i == 0:
            with T.attr(0, "async_commit_queue_scope", 0):
                with T.attr(0, "async_scope", 1):
                    S[i] = A[i]
            toks[0] = T.call_extern("int64", "async_group_token", 0)
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_tokens", toks[0]):
                C[i] = S[0]
"#
        )
    };
    let report = verify_func(&parse_func(&program(true)), &Options::default()).0;
    assert!(
        report.waits.iter().any(|w| format!("{:?}", w.verdict).contains("may hold no token")),
        "{:?}",
        report.waits
    );
    let report = verify_func(&parse_func(&program(false)), &Options::default()).0;
    assert!(report.all_proved(), "{:?} {:?} {:?}", report.waits, report.findings, report.unknown);
}

/// A buffer of tokens whose handle a call receives may be written by it: a token loaded
/// from it is not followed (unknown, never proved). Without the call, proved.
#[test]
fn tokens_in_a_buffer_a_call_may_write_are_not_followed() {
    let program = |call: &str| {
        format!(
            r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((4,), "float32", scope="shared")
    toks = T.alloc_buffer((1,), "int64", scope="local")
    with T.attr(0, "async_commit_queue_scope", 0):
        with T.attr(0, "async_scope", 1):
            S[0] = A[0]
    toks[0] = T.call_extern("int64", "async_group_token", 0)
    {call}
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_tokens", toks[0]):
            C[0] = S[0]
"#
        )
    };
    let called = program(r#"T.evaluate(T.call_extern("int32", "scribble", toks.data))"#);
    let report = verify_func(&parse_func(&called), &Options::default()).0;
    assert!(report.waits.iter().all(|w| matches!(w.verdict, WaitVerdict::Unknown { .. })), "{:?}", report.waits);
    let report = verify_func(&parse_func(&program("T.evaluate(0)")), &Options::default()).0;
    assert!(report.all_proved(), "{:?} {:?} {:?}", report.waits, report.findings, report.unknown);
}
