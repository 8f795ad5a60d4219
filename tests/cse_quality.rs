//! The quality contract of the CSE passes on the benchmark suite (`benches/cse_suite/programs.rs`):
//! `cse-semantic` never leaves more arithmetic operations than `cse`, and strictly fewer on
//! every function with commuted or reassociated duplicates; and both outputs compute what the
//! input computes. Its speed is a benchmark (`cargo bench --bench cse`), not a test: a timed
//! test fails on a busy machine and proves nothing on an idle one.

#[path = "../benches/cse_suite/programs.rs"]
mod programs;

use tirproof::compare::check_equivalent;
use tirproof_interp::Schedule;
use tirproof_ir::{IRModule, PrimFunc};
use tirproof_passes::cse::metrics::operations;
use tirproof_passes::cse::{eliminate, Mode};
use tirproof_reader::parse_module;

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
