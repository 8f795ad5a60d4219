//! Every rule of `cse-semantic` is proved sound with Z3 for every type it is enabled for; every
//! proof has twins that must be refuted; a deliberately unsound rule is refuted with a
//! counterexample. `Unknown` (a time-out) fails these tests: it is never a pass.

use std::time::Duration;

use tirproof_ir::DataType;
use tirproof_passes::cse::semantic::rules::{Rule, Side, TypeClass, RULES};
use tirproof_verify::cse::rules::{check_instance, prove, rule_types, twins};
use tirproof_verify::Verdict;

/// `floormod-add-multiple` at int64 (64-bit multiplication under a modulus) takes 35 s on an
/// idle 16-core machine and about 55 s on the 2-core development machine, so a 60 s limit made
/// the suite fail whenever the machine was busy. The limit only bounds how long a failure takes
/// to report; making that proof fast belongs to the verifier's performance work.
const TIMEOUT: Duration = Duration::from_secs(240);

/// Proves the rules whose index modulo `of` is `part` (the tests split the table so the harness
/// runs them in parallel).
fn prove_part(part: usize, of: usize) {
    let mut failures = Vec::new();
    for rule in RULES.iter().skip(part).step_by(of) {
        for dtype in rule_types(rule) {
            match prove(rule, dtype, TIMEOUT) {
                Ok(Verdict::Proved) => {}
                Ok(other) => failures.push(format!("{} at {dtype}: {other}", rule.name)),
                Err(e) => failures.push(format!("{} at {dtype}: {e}", rule.name)),
            }
        }
    }
    assert!(failures.is_empty(), "rules not proved:\n{}", failures.join("\n"));
}

/// Refutes the twins of the same rules.
fn refute_part(part: usize, of: usize) {
    let mut failures = Vec::new();
    for rule in RULES.iter().skip(part).step_by(of) {
        for dtype in rule_types(rule) {
            let twins = twins(rule, dtype).unwrap_or_else(|e| panic!("{}: {e}", rule.name));
            assert!(!twins.is_empty(), "{} has no twin", rule.name);
            for twin in twins {
                match check_instance(&twin.what, &twin.instance, twin.sides, TIMEOUT) {
                    Ok(Verdict::Refuted(_)) => {}
                    Ok(other) => failures.push(format!("{} at {dtype}: {other}", twin.what)),
                    Err(e) => failures.push(format!("{} at {dtype}: {e}", twin.what)),
                }
            }
        }
    }
    assert!(failures.is_empty(), "twins not refuted:\n{}", failures.join("\n"));
}

#[test]
fn rules_are_sound_part_0() {
    prove_part(0, 3);
}

#[test]
fn rules_are_sound_part_1() {
    prove_part(1, 3);
}

#[test]
fn rules_are_sound_part_2() {
    prove_part(2, 3);
}

#[test]
fn twins_are_refuted_part_0() {
    refute_part(0, 3);
}

#[test]
fn twins_are_refuted_part_1() {
    refute_part(1, 3);
}

#[test]
fn twins_are_refuted_part_2() {
    refute_part(2, 3);
}

/// `(x * 2) // 2 -> x` is wrong for int32: `x * 2` wraps.
const MUL_DIV_CANCEL: Rule = Rule {
    name: "mul-div-cancel (unsound)",
    lhs: "(// (* ?x ?c) ?c)",
    rhs: "?x",
    sides: &[Side::ConstEq("?c", 2)],
    types: &[TypeClass::SignedInt],
};

#[test]
fn the_unsound_mul_div_cancel_rule_is_refuted_with_its_counterexample() {
    let verdict = prove(&MUL_DIV_CANCEL, DataType::INT32, TIMEOUT).expect("the rule can be checked");
    let Verdict::Refuted(values) = &verdict else { panic!("expected a refutation, got {verdict}") };
    let get = |name: &str| values.get(name).expect(name);
    let (x, c) = (get("x"), get("c"));
    assert_eq!(c, 2);
    let faults = get("x.faults") != 0 || get("c.faults") != 0;
    let lhs = (x as i32).wrapping_mul(2).div_euclid(2);
    assert!(faults || i64::from(lhs) != x, "the counterexample x = {x} must break the rule, got {verdict}");
    println!("{verdict}");
    // Its twin must be proved: the same division term with the product commuted (the encoding
    // does not refute everything about this term).
    let twin = Rule { name: "mul-div-commute", rhs: "(// (* ?c ?x) ?c)", ..MUL_DIV_CANCEL };
    assert_eq!(prove(&twin, DataType::INT32, TIMEOUT).expect("checkable"), Verdict::Proved);
}

#[test]
fn float_reassociation_is_refuted() {
    let assoc = RULES.iter().find(|r| r.name == "add-assoc-right").expect("the rule exists");
    for dtype in [DataType::FLOAT16, DataType::FLOAT32] {
        let verdict = prove(assoc, dtype, TIMEOUT).expect("checkable");
        assert!(matches!(verdict, Verdict::Refuted(_)), "float reassociation must be refuted, got {verdict}");
    }
    // Its twin: the same rule at an integer type is proved.
    assert_eq!(prove(assoc, DataType::INT32, TIMEOUT).expect("checkable"), Verdict::Proved);
}

#[test]
fn float_min_does_not_commute() {
    let comm = RULES.iter().find(|r| r.name == "min-comm").expect("the rule exists");
    assert!(matches!(prove(comm, DataType::FLOAT32, TIMEOUT), Ok(Verdict::Refuted(_))));
    assert_eq!(prove(comm, DataType::INT32, TIMEOUT).expect("checkable"), Verdict::Proved);
}
