//! Tests of the solver layer against the real Z3: proofs and their refuted twins, verdicts that
//! are not passes, time limits that fire without deadlocking, and SMT-LIB dumps replayed with
//! the `z3` command line tool.

use std::process::Command;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use tirproof_verify::solver::{checks_on_this_thread, watched, Outcome, Session};
use tirproof_verify::{
    Assignment, ObligationId, Query, QueryError, Signedness, UnknownReason, Verdict, DEFAULT_TIMEOUT,
};
use z3::ast::{Bool, Int, BV};

/// The assignment of `pairs`, in order.
fn values(pairs: &[(&str, i64)]) -> Assignment {
    pairs.iter().copied().collect()
}

/// Runs `f` on its own thread (Z3 terms are per thread) and fails instead of hanging when it
/// does not finish within `limit`: a solver that deadlocks must fail the test run.
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        // The receiver is gone only after the test has failed.
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit).unwrap_or_else(|_| panic!("the solver did not return within {limit:?}: deadlock?"))
}

/// `x + 1 > x`, over unbounded integers.
fn successor_over_int() -> Query {
    let mut query = Query::new("x + 1 > x over Int");
    let x = query.int("x").unwrap();
    query.require((&x + 1).gt(&x));
    query
}

/// `x + 1 > x`, over 32-bit two's complement bit-vectors.
fn successor_over_bv32() -> Query {
    let mut query = Query::new("x + 1 > x over int32");
    let x = query.bv("x", 32, Signedness::Signed).unwrap();
    query.require(x.bvadd(BV::from_i64(1, 32)).bvsgt(&x));
    query
}

/// Whether the 62-bit prime `p` has a factorization `x * y` with both factors in
/// `[2, 2^32 - 1]`, over 64-bit bit-vectors (the product cannot wrap). The obligation holds (`p`
/// is prime) but bit-blasting the multiplier makes it take Z3 far longer than a few seconds
/// (over 30 s with the z3 tool).
fn prime_has_no_factors() -> Query {
    const PRIME: u64 = 4_409_718_766_758_337_757;
    let mut query = Query::new("4409718766758337757 is prime");
    let x = query.bv("x", 64, Signedness::Unsigned).unwrap();
    let y = query.bv("y", 64, Signedness::Unsigned).unwrap();
    let two = BV::from_u64(2, 64);
    let max = BV::from_u64(u64::from(u32::MAX), 64);
    query.assume(x.bvuge(&two));
    query.assume(y.bvuge(&two));
    query.assume(x.bvule(&max));
    query.assume(y.bvule(&max));
    query.require(x.bvmul(&y).ne(BV::from_u64(PRIME, 64)));
    query
}

/// Runs the `z3` tool installed by scripts/setup.sh on `script` and returns its first line.
fn z3_tool(script: &str) -> String {
    let dir = tempdir();
    let path = dir.join("query.smt2");
    std::fs::write(&path, script).unwrap();
    let output = Command::new(env!("TIRPROOF_Z3_BIN")).arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(output.status.success(), "z3 rejected the script:\n{script}\n{stdout}");
    stdout.lines().next().unwrap_or_default().to_owned()
}

/// A fresh directory under the target directory's tmp.
fn tempdir() -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("solver-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn successor_is_greater_over_integers() {
    let verdict = successor_over_int().check();
    assert_eq!(verdict, Verdict::Proved);
    assert!(verdict.is_proved());
}

#[test]
fn successor_wraps_over_32_bit_integers() {
    let verdict = successor_over_bv32().check();
    assert_eq!(verdict, Verdict::Refuted(values(&[("x", 2_147_483_647)])));
    assert!(!verdict.is_proved());
    assert_eq!(verdict.to_string(), "refuted: x = 2147483647");
}

#[test]
fn counterexamples_read_bit_vectors_with_their_signedness() {
    let mut query = Query::new("x - 1 < x over int8");
    let x = query.bv("x", 8, Signedness::Signed).unwrap();
    query.require(x.bvsub(BV::from_i64(1, 8)).bvslt(&x));
    assert_eq!(query.check(), Verdict::Refuted(values(&[("x", -128)])));

    let mut query = Query::new("x + 1 > x over uint8");
    let x = query.bv("x", 8, Signedness::Unsigned).unwrap();
    query.require(x.bvadd(BV::from_u64(1, 8)).bvugt(&x));
    assert_eq!(query.check(), Verdict::Refuted(values(&[("x", 255)])));
}

#[test]
fn counterexamples_name_every_declared_variable_in_order() {
    let mut query = Query::new("a < b");
    let a = query.int("a").unwrap();
    let b = query.int("b").unwrap();
    query.assume(a.eq(Int::from_i64(7)));
    query.require(a.lt(&b));
    let verdict = query.check();
    let values = verdict.counterexample().expect("refuted");
    assert_eq!(values.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(values.get("a"), Some(7));
    assert!(values.get("b").is_some_and(|b| b <= 7), "{values}");
}

#[test]
fn unknown_and_vacuous_are_never_a_pass() {
    assert!(!Verdict::Unknown(UnknownReason::GaveUp("incomplete".to_owned())).is_proved());
    assert!(!Verdict::Vacuous.is_proved());
    assert!(!Verdict::Refuted(Assignment::new()).is_proved());
    assert!(Verdict::Proved.is_proved());
}

#[test]
fn contradictory_assumptions_are_vacuous() {
    let mut query = Query::new("x > 0 and x < 0");
    let x = query.int("x").unwrap();
    query.assume(x.gt(0));
    query.assume(x.lt(0));
    query.require(x.eq(42));
    let verdict = query.check();
    assert_eq!(verdict, Verdict::Vacuous);
    assert!(!verdict.is_proved());
}

#[test]
fn each_solver_check_is_counted_with_its_time() {
    // Counts are per thread: a thread of its own sees only these checks.
    let (proved, refuted) = within(Duration::from_secs(30), || {
        let mut query = Query::new("0 < x implies 0 < x + 1");
        let x = query.int("x").unwrap();
        query.assume(x.gt(0));
        query.require((&x + 1).gt(0));
        let before = checks_on_this_thread();
        assert_eq!(query.check(), Verdict::Proved);
        let proved = checks_on_this_thread().since(before);
        // The twin that must be refuted: no check of the assumptions follows a refutation.
        let before = checks_on_this_thread();
        assert!(successor_over_bv32().check().counterexample().is_some());
        (proved, checks_on_this_thread().since(before))
    });
    assert_eq!(proved.checks, 2, "the obligation, then whether the assumptions can hold");
    assert_eq!(refuted.checks, 1);
    assert!(proved.in_solver > Duration::ZERO && refuted.in_solver > Duration::ZERO);
}

#[test]
fn an_empty_query_is_proved() {
    assert_eq!(Query::new("nothing").check(), Verdict::Proved);
}

#[test]
fn timeouts_default_to_ten_seconds_and_are_configurable() {
    assert_eq!(Query::new("q").timeout(), DEFAULT_TIMEOUT);
    assert_eq!(DEFAULT_TIMEOUT, Duration::from_secs(10));
    assert_eq!(Query::new("q").with_timeout(Duration::from_millis(250)).timeout(), Duration::from_millis(250));
}

#[test]
fn a_query_too_hard_for_its_limit_is_unknown_within_the_limit() {
    let (verdict, elapsed) = within(Duration::from_secs(60), || {
        let query = prime_has_no_factors().with_timeout(Duration::from_secs(1));
        let start = Instant::now();
        let verdict = query.check();
        (verdict, start.elapsed())
    });
    eprintln!("1 s limit: {verdict} after {elapsed:?}");
    assert!(matches!(&verdict, Verdict::Unknown(UnknownReason::TimeLimit { .. })), "{verdict}");
    assert!(verdict.to_string().contains("timeout"), "{verdict}");
    assert!(!verdict.is_proved());
    assert!(elapsed >= Duration::from_millis(900), "Z3 answered before its limit: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "the 1 s limit took {elapsed:?}");
}

#[test]
fn repeated_short_timeouts_do_not_deadlock() {
    let elapsed = within(Duration::from_secs(60), || {
        let start = Instant::now();
        for _ in 0..5 {
            let verdict = prime_has_no_factors().with_timeout(Duration::from_millis(100)).check();
            assert!(matches!(verdict, Verdict::Unknown(_)), "{verdict}");
        }
        start.elapsed()
    });
    assert!(elapsed < Duration::from_secs(5), "five 100 ms limits took {elapsed:?}");
}

#[test]
fn declarations_are_checked() {
    let mut query = Query::new("q");
    query.int("x").unwrap();
    assert_eq!(query.int("x"), Err(QueryError::DuplicateVariable { query: "q".to_owned(), name: "x".to_owned() }));
    assert!(matches!(query.bv("x", 8, Signedness::Signed), Err(QueryError::DuplicateVariable { .. })));
    for name in ["", "a|b", "a\\b"] {
        let err = query.int(name).unwrap_err();
        assert_eq!(err, QueryError::InvalidName { query: "q".to_owned(), name: name.to_owned() });
    }
    for width in [0, 65] {
        let err = query.bv("y", width, Signedness::Unsigned).unwrap_err();
        assert_eq!(err, QueryError::UnsupportedWidth { query: "q".to_owned(), name: "y".to_owned(), width });
        assert!(err.to_string().contains("1 to 64"), "{err}");
    }
}

#[test]
fn smtlib_dumps_replay_with_the_z3_tool() {
    let proved = successor_over_int().to_smtlib();
    assert!(proved.starts_with("; tirproof query: x + 1 > x over Int\n"), "{proved}");
    assert!(proved.contains("(set-option :timeout 10000)"), "{proved}");
    assert!(proved.contains("(declare-fun v_x () Int)"), "{proved}");
    assert_eq!(z3_tool(&proved), "unsat");
    assert_eq!(z3_tool(&successor_over_bv32().to_smtlib()), "sat");
    let hard = prime_has_no_factors().with_timeout(Duration::from_millis(300)).to_smtlib();
    assert!(hard.contains("(set-option :timeout 300)"), "{hard}");
    assert_eq!(z3_tool(&hard), "unknown");
}

#[test]
fn names_that_need_quoting_survive_the_smtlib_dump() {
    let mut query = Query::new("odd names\non two lines");
    let names = ["and", "abs", "a b", "x!1", "$x20", "a!1", "déjà", "(x)"];
    let vars: Vec<Int> = names.iter().map(|name| query.int(name).unwrap()).collect();
    for (i, var) in vars.iter().enumerate() {
        query.assume(var.eq(Int::from_u64(i as u64)));
    }
    query.require(vars[7].lt(7));
    let verdict = query.check();
    let expected: Assignment = names.iter().copied().zip(0..).collect();
    assert_eq!(verdict, Verdict::Refuted(expected));
    let script = query.to_smtlib();
    assert!(script.starts_with("; tirproof query: odd names on two lines\n"), "{script}");
    assert_eq!(z3_tool(&script), "sat");
}

/// Two obligations over `x` in `[0, 10)`: `x < 10` holds, `x < 5` does not.
fn two_obligations() -> (Query, ObligationId, ObligationId) {
    let mut query = Query::new("x in [0, 10)");
    let x = query.int("x").unwrap();
    query.assume(x.ge(0));
    query.assume(x.lt(10));
    let holds = query.require(x.lt(10));
    let fails = query.require(x.lt(5));
    (query, holds, fails)
}

#[test]
fn a_session_checks_each_obligation_on_its_own() {
    watched(|watchdog| {
        let (query, holds, fails) = two_obligations();
        let session = Session::new(watchdog);
        let scope = session.open(&query, &[]);
        assert!(matches!(scope.check(holds), Outcome::Holds));
        let Outcome::Fails(found) = scope.check(fails) else { panic!("x < 5 is refuted") };
        assert_eq!(found.values().len(), 1);
        assert!(found.values().get("x").is_some_and(|x| (5..10).contains(&x)), "{}", found.values());
        assert_eq!(scope.assumptions(), Verdict::Proved);
        let (mut longer, _, _) = two_obligations();
        let missing = longer.require(Bool::from_bool(true));
        let outcome = scope.check(missing);
        assert!(matches!(outcome, Outcome::Unknown(UnknownReason::NoSuchObligation { .. })), "no such obligation");
        // The query as a whole agrees: it is refuted, and each check replays with the z3 tool.
        assert!(matches!(query.check(), Verdict::Refuted(_)));
        assert_eq!(z3_tool(&scope.to_smtlib(holds)), "unsat");
        assert_eq!(z3_tool(&scope.to_smtlib(fails)), "sat");
    });
}

#[test]
fn a_session_keeps_nothing_between_scopes_and_takes_extra_facts() {
    watched(|watchdog| {
        let (query, _, fails) = two_obligations();
        let session = Session::new(watchdog);
        let x = Int::new_const(format!("{}x", tirproof_verify::SYMBOL_PREFIX));
        {
            let scope = session.open(&query, &[x.lt(5)]);
            assert!(matches!(scope.check(fails), Outcome::Holds), "x < 5 is assumed here");
        }
        let scope = session.open(&query, &[]);
        assert!(matches!(scope.check(fails), Outcome::Fails(_)), "the extra fact is gone");
        drop(scope);
        let scope = session.open(&query, &[x.gt(20)]);
        assert!(matches!(scope.check(fails), Outcome::Holds));
        assert_eq!(scope.assumptions(), Verdict::Vacuous, "x > 20 contradicts x < 10");
    });
}

#[test]
fn a_session_honours_the_time_limit_and_recovers_after_it() {
    let (timed_out, elapsed, recovered) = within(Duration::from_secs(60), || {
        watched(|watchdog| {
            let session = Session::new(watchdog);
            let hard = prime_has_no_factors().with_timeout(Duration::from_millis(500));
            let first = hard.obligation_ids().next().expect("one obligation");
            let start = Instant::now();
            let timed_out =
                matches!(session.open(&hard, &[]).check(first), Outcome::Unknown(UnknownReason::TimeLimit { .. }));
            let elapsed = start.elapsed();
            let (easy, holds, _) = two_obligations();
            let recovered = matches!(session.open(&easy, &[]).check(holds), Outcome::Holds);
            (timed_out, elapsed, recovered)
        })
    });
    assert!(timed_out, "not a timeout");
    assert!(elapsed < Duration::from_secs(3), "the 500 ms limit took {elapsed:?}");
    assert!(recovered, "the session is usable after a timeout");
}

/// A hint only speeds up the check that the assumptions can hold: with a hint the assumptions
/// satisfy, with one they do not, or with none, a query proves the same obligations; and no
/// hint makes contradictory assumptions anything but vacuous.
#[test]
fn hints_never_change_whether_the_assumptions_can_hold() {
    let build = |hint: Option<i64>, contradictory: bool| {
        let mut query = Query::new("hinted");
        let x = query.int("x").unwrap();
        query.assume(x.ge(3));
        if contradictory {
            query.assume(x.lt(3));
        }
        let id = query.require(x.gt(0));
        if let Some(value) = hint {
            query.hint(x.eq(value));
        }
        (query, id)
    };
    for hint in [None, Some(5), Some(-1)] {
        assert_eq!(build(hint, false).0.check(), Verdict::Proved, "hint {hint:?}");
        assert_eq!(build(hint, true).0.check(), Verdict::Vacuous, "hint {hint:?}");
        let ((holds, id), (contradicts, _)) = (build(hint, false), build(hint, true));
        watched(|watchdog| {
            let session = Session::new(watchdog);
            let scope = session.open(&holds, &[]);
            assert!(matches!(scope.check(id), Outcome::Holds));
            assert_eq!(scope.assumptions(), Verdict::Proved, "hint {hint:?}");
            drop(scope);
            let scope = session.open(&contradicts, &[]);
            assert_eq!(scope.assumptions(), Verdict::Vacuous, "hint {hint:?}");
        });
    }
}
