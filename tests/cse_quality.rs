//! The quality contract of the CSE passes on the benchmark suite (`benches/cse_suite/programs.rs`):
//! `cse-semantic` never leaves more arithmetic operations than `cse`, and strictly fewer on
//! every function with commuted or reassociated duplicates; both outputs compute what the
//! input computes; and, in release builds, `cse` handles each of the seed's worked examples in
//! under 20 µs (median).

#[path = "../benches/cse_suite/programs.rs"]
mod programs;

use std::time::{Duration, Instant};

use tirproof::compare::check_equivalent;
use tirproof_ir::interp::Schedule;
use tirproof_ir::text::parse_module;
use tirproof_ir::{IRModule, PrimFunc};
use tirproof_passes::cse::metrics::operations;
use tirproof_passes::cse::{eliminate, Mode};

fn parse(text: &str) -> PrimFunc {
    let module: IRModule = parse_module(text).unwrap_or_else(|d| panic!("{}", d.render("<suite>", text)));
    module.functions.into_iter().next().expect("one function")
}

fn run(func: &PrimFunc, mode: Mode) -> PrimFunc {
    let mut out = func.clone();
    eliminate(&mut out, mode);
    out
}

#[test]
fn semantic_cse_never_leaves_more_operations_and_wins_on_commuted_and_reassociated_code() {
    let suite = programs::suite();
    assert!(suite.len() >= 50);
    for p in &suite {
        let func = parse(&p.text);
        let (syntactic, semantic) = (run(&func, Mode::Syntactic), run(&func, Mode::Semantic));
        let (before, a, b) = (operations(&func), operations(&syntactic), operations(&semantic));
        assert!(a <= before && b <= a, "{}: {before} operations, {a} after cse, {b} after cse-semantic", p.name);
        if programs::SEMANTIC_WINS.contains(&p.family) {
            assert!(b < a, "{}: cse-semantic leaves {b} operations, cse {a}", p.name);
        }
    }
}

#[test]
fn the_suite_keeps_its_meaning() {
    for p in programs::suite().iter().step_by(3) {
        let module = parse_module(&p.text).expect("parses");
        for mode in [Mode::Syntactic, Mode::Semantic] {
            let mut out = module.clone();
            tirproof_passes::cse::eliminate_module(&mut out, mode);
            let same = check_equivalent(&module, &out, &[Schedule::Lazy]);
            assert!(same.is_ok(), "{} ({mode:?}): {}", p.name, same.err().unwrap_or_default());
        }
    }
}

fn median_time(func: &PrimFunc, runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let mut copy = func.clone();
            let start = Instant::now();
            eliminate(&mut copy, Mode::Syntactic);
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

#[test]
fn cse_handles_the_seed_examples_in_under_20_microseconds() {
    if cfg!(debug_assertions) {
        return; // A timing contract for optimized builds (`cargo test --release`).
    }
    for (name, text) in programs::seed_examples() {
        let func = parse(&text);
        // The best of three medians, so that a busy machine does not fail the test.
        let best = (0..3).map(|_| median_time(&func, 201)).min().unwrap_or_default();
        assert!(best < Duration::from_micros(20), "{name}: median {best:?}");
    }
}
