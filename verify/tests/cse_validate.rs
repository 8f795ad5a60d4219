//! Translation validation of CSE: real CSE output is proved; hand-made wrong rewrites (a
//! division moved out of a lazy arm or out of a loop that may not run, a changed binding, a
//! load reused across a store, a reassociated float sum) are refuted. Each proof has a twin
//! that must fail, and each refutation a twin that must be proved.

use std::time::Duration;

use tirproof_ir::{IRModule, PrimFunc};
use tirproof_passes::cse::{eliminate, Mode};
use tirproof_reader::parse_module;
use tirproof_verify::cse::{validate, ObligationKind, ValidationReport};
use tirproof_verify::Verdict;

/// Refuting a float reassociation bit-blasts FP32 additions: fast on an idle machine, but it
/// ran past 30 s on the 2-core development machine under load. The limit only bounds how long
/// a failure takes to report.
const TIMEOUT: Duration = Duration::from_secs(120);

fn func(text: &str) -> PrimFunc {
    let module: IRModule = parse_module(text).unwrap_or_else(|d| panic!("{}", d.render("<test>", text)));
    module.functions.into_iter().next().expect("one function")
}

fn cse(original: &PrimFunc, mode: Mode) -> PrimFunc {
    let mut out = original.clone();
    eliminate(&mut out, mode);
    out
}

/// Validates `rewritten` (written by hand) against `original`, pairing binders by name.
fn check(original: &str, rewritten: &str) -> ValidationReport {
    validate(&func(original), &func(rewritten), TIMEOUT)
}

fn refuted(report: &ValidationReport, kind: ObligationKind) -> bool {
    report.failures().any(|o| o.kind == kind && matches!(o.verdict, Verdict::Refuted(_)))
}

const HEADER: &str = "from tvm.script import tirx as T\n\n@T.prim_func\n";

fn program(body: &str) -> String {
    format!("{HEADER}def main(x: T.int32, y: T.int32, d: T.int32, n: T.int32, A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\")):\n{body}")
}

#[test]
fn the_seed_examples_are_proved() {
    let cascade = func(&format!(
        "{HEADER}def main(i1: T.int32, i2: T.int32, i3: T.int32, x: T.int32, y: T.int32, z: T.int32, buffer: T.Buffer((64,), \"int32\")):\n    buffer[i1] = x + y + z\n    buffer[i2] = x + y + z\n    buffer[i3] = x + y\n"
    ));
    for mode in [Mode::Syntactic, Mode::Semantic] {
        let report = validate(&cascade, &cse(&cascade, mode), TIMEOUT);
        assert!(report.is_proved(), "{report}");
        assert_eq!(report.obligations.iter().filter(|o| o.kind == ObligationKind::Binding).count(), 2, "{report}");
        assert_eq!(report.obligations.iter().filter(|o| o.kind == ObligationKind::Rewrite).count(), 3, "{report}");
    }
    // Twin: the same output with the inner binding changed is refuted.
    let mut wrong = cse(&cascade, Mode::Syntactic);
    let text = tirproof_ir::print::print_func(&wrong).replace("cse_v2 + z", "cse_v2 - z");
    wrong = func(&text);
    let report = validate(&cascade, &wrong, TIMEOUT);
    assert!(refuted(&report, ObligationKind::Rewrite), "{report}");
}

#[test]
fn a_division_moved_out_of_a_lazy_arm_is_refuted() {
    let original = program("    A[0] = T.if_then_else(d != 0, x // d, 0) + T.if_then_else(d != 0, x // d, 1)\n");
    let hoisted = program(
        "    cse_v1: T.let[T.int32] = x // d\n    A[0] = T.if_then_else(d != 0, cse_v1, 0) + T.if_then_else(d != 0, cse_v1, 1)\n",
    );
    let report = check(&original, &hoisted);
    assert!(refuted(&report, ObligationKind::Binding), "{report}");
    let o = report.failures().next().expect("a failure");
    assert!(o.verdict.counterexample().is_some_and(|c| c.get("d") == Some(0)), "{o}");
    // Twin: the same binding is fine when the division also runs unconditionally.
    let original = program("    A[0] = T.if_then_else(d != 0, x // d, 0) + x // d\n");
    let hoisted =
        program("    cse_v1: T.let[T.int32] = x // d\n    A[0] = T.if_then_else(d != 0, cse_v1, 0) + cse_v1\n");
    let report = check(&original, &hoisted);
    assert!(report.is_proved(), "{report}");
}

#[test]
fn an_arm_local_binding_is_proved_only_under_its_condition() {
    let original = program("    A[0] = T.if_then_else(d != 0, x // d * (x // d), 0)\n");
    let local = program("    A[0] = T.if_then_else(d != 0, T.Let(v * v, where={v: x // d}), 0)\n");
    assert!(check(&original, &local).is_proved());
    // Twin: the Let around the whole if_then_else computes the division on both paths.
    let outside = program("    A[0] = T.Let(T.if_then_else(d != 0, v * v, 0), where={v: x // d})\n");
    assert!(refuted(&check(&original, &outside), ObligationKind::Rewrite));
}

#[test]
fn a_division_moved_out_of_a_loop_that_may_not_run_is_refuted() {
    let body = |extent: &str, hoist: bool| {
        let (pre, use_) = if hoist { ("    cse_v1: T.let[T.int32] = x // d\n", "cse_v1") } else { ("", "x // d") };
        program(&format!("{pre}    for i in range({extent}):\n        A[i] = {use_} + {use_}\n"))
    };
    let report = check(&body("n", false), &body("n", true));
    assert!(refuted(&report, ObligationKind::Binding), "{report}");
    // Twin: a loop that surely runs performs the division anyway.
    let report = check(&body("4", false), &body("4", true));
    assert!(report.is_proved(), "{report}");
}

#[test]
fn a_load_reused_across_a_store_is_refuted() {
    let original = program("    A[0] = B[x] + 1\n    B[x] = 7\n    A[1] = B[x] + 1\n");
    let reused = program("    v: T.let[T.int32] = B[x] + 1\n    A[0] = v\n    B[x] = 7\n    A[1] = v\n");
    let report = check(&original, &reused);
    assert!(refuted(&report, ObligationKind::Rewrite), "{report}");
    // Twin: what CSE does (bind the index, keep the loads) is proved.
    let original = program("    A[0] = B[x * 2] + 1\n    B[x * 2] = 7\n    A[1] = B[x * 2] + 1\n");
    let report = validate(&func(&original), &cse(&func(&original), Mode::Syntactic), TIMEOUT);
    assert!(report.is_proved() && !report.obligations.is_empty(), "{report}");
}

#[test]
fn float_reassociation_is_refuted_and_commutation_proved() {
    let f = |body: &str| {
        format!("{HEADER}def main(f: T.float32, g: T.float32, h: T.float32, A: T.Buffer((4,), \"float32\")):\n{body}")
    };
    let report = check(&f("    A[0] = f + g + h\n"), &f("    A[0] = f + (g + h)\n"));
    assert!(refuted(&report, ObligationKind::Rewrite), "{report}");
    let report = check(&f("    A[0] = (f + g) * h\n"), &f("    A[0] = h * (g + f)\n"));
    assert!(report.is_proved(), "{report}");
}

#[test]
fn integer_rewrites_in_wrapping_arithmetic() {
    let report = check(&program("    A[0] = x * (y + d)\n"), &program("    A[0] = x * y + x * d\n"));
    assert!(report.is_proved(), "{report}");
    let report = check(&program("    A[0] = x * 4 // 4\n"), &program("    A[0] = x\n"));
    assert!(refuted(&report, ObligationKind::Rewrite), "{report}");
}

/// A float sum whose index expressions were rewritten (the shape `cse-semantic` makes of
/// pipelined loads): proved through its operands, each a small integer obligation. The twin
/// with a wrong index is refuted (by the whole expression, where congruence cannot prove it).
#[test]
fn rewritten_indices_inside_a_float_expression_are_proved_operand_by_operand() {
    let f = |body: &str| {
        format!("{HEADER}def main(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\"), C: T.Buffer((2,), \"float32\")):\n    for i in range(8):\n{body}")
    };
    let original = f("        A[i] = T.float32(4.0) + B[(3 + i + 1) * 2] + C[(3 + i - 2) % 2]\n");
    let rewritten = |second: &str| {
        f(&format!(
            "        cse_v1: T.let[T.int32] = (i + 4) * 2\n        cse_v2: T.let[T.int32] = {second}\n        A[i] = T.float32(4.0) + B[cse_v1] + C[cse_v2]\n"
        ))
    };
    let report = check(&original, &rewritten("(i + 1) % 2"));
    assert!(report.is_proved(), "{report}");
    let report = check(&original, &rewritten("(i + 2) % 2"));
    assert!(refuted(&report, ObligationKind::Rewrite), "{report}");
}
