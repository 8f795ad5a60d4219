//! Unit tests of the placement, on programs written in TVMScript.

use tirproof_ir::print::print_module;
use tirproof_ir::IRModule;
use tirproof_reader::parse_module;

use super::{eliminate_module, Mode};

fn run(text: &str, mode: Mode) -> String {
    let mut module: IRModule = parse_module(text).expect("the test program parses");
    eliminate_module(&mut module, mode);
    print_module(&module)
}

const CASCADE: &str = "\
from tvm.script import tirx as T

@T.prim_func
def main(i1: T.int32, i2: T.int32, i3: T.int32, x: T.int32, y: T.int32, z: T.int32, buffer: T.Buffer((64,), \"int32\")):
    buffer[i1] = x + y + z
    buffer[i2] = x + y + z
    buffer[i3] = x + y
";

#[test]
fn cascade_binds_the_longer_computation_inside() {
    let out = run(CASCADE, Mode::Syntactic);
    let v2 = out.find("cse_v2: T.let[T.int32] = x + y").expect("cse_v2 bound");
    let v1 = out.find("cse_v1: T.let[T.int32] = cse_v2 + z").expect("cse_v1 bound");
    assert!(v2 < v1, "{out}");
}

const HEADER: &str = "from tvm.script import tirx as T\n\n@T.prim_func\n";

fn program(params: &str, body: &str) -> String {
    format!("{HEADER}def main({params}):\n{body}")
}

#[test]
fn impure_calls_and_what_contains_them_are_never_bound() {
    let text = program(
        "n: T.int32, A: T.Buffer((8,), \"int32\")",
        "    A[0] = T.call_extern(\"int32\", \"next_id\") + n * 2\n    A[1] = T.call_extern(\"int32\", \"next_id\") + n * 2\n",
    );
    for mode in [Mode::Syntactic, Mode::Semantic] {
        let out = run(&text, mode);
        assert!(out.contains("cse_v1: T.let[T.int32] = n * 2"), "{out}");
        assert_eq!(out.matches("T.call_extern").count(), 2, "{out}");
        assert!(!out.contains("cse_v2"), "{out}");
    }
}

#[test]
fn likely_stays_a_hint_around_its_bound_condition() {
    let text = program(
        "n: T.int32, A: T.Buffer((8,), \"int32\")",
        "    if T.likely(n < 4):\n        A[1] = n + 1\n    if T.likely(n < 4):\n        A[2] = n + 2\n",
    );
    let out = run(&text, Mode::Syntactic);
    assert!(out.contains("cse_v1: T.let[T.bool] = n < 4"), "{out}");
    assert_eq!(out.matches("if T.likely(cse_v1):").count(), 2, "{out}");
}

#[test]
fn a_second_run_changes_nothing() {
    for mode in [Mode::Syntactic, Mode::Semantic] {
        let once = run(CASCADE, mode);
        let twice = run(&once, mode);
        assert_eq!(once, twice);
    }
}

#[test]
fn both_passes_agree_on_the_seed_examples() {
    assert_eq!(run(CASCADE, Mode::Syntactic), run(CASCADE, Mode::Semantic));
}

#[test]
fn vector_computations_are_bound_with_vector_types() {
    let text = program(
        "i: T.int32, A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\")",
        "    A[T.Ramp(i, 1, 4) * T.Broadcast(2, 4)] = B[T.Ramp(i, 1, 4) * T.Broadcast(2, 4)]\n",
    );
    let out = run(&text, Mode::Syntactic);
    assert!(out.contains("cse_v1: T.let[T.int32x4] = T.Ramp(i, 1, 4) * T.Broadcast(2, 4)"), "{out}");
    let again = parse_module(&out).expect("the output parses");
    assert_eq!(print_module(&again), out);
}

/// The e-graph of `CASCADE` with `limits`: which limit it stopped at.
fn stopped_within(limits: super::semantic::Limits) -> Option<crate::stop::Limit> {
    let mut module: IRModule = parse_module(CASCADE).expect("the test program parses");
    super::semantic::eliminate(&mut module.functions[0], limits).1
}

#[test]
fn an_e_graph_cut_short_says_which_limit_stopped_it() {
    use super::semantic::Limits;
    use crate::stop::Limit;
    let nodes = stopped_within(Limits { nodes: 1, ..Limits::default() });
    assert!(matches!(nodes, Some(Limit::Nodes(n)) if n > 1), "{nodes:?}");
    let iterations = stopped_within(Limits { iterations: 1, ..Limits::default() });
    assert_eq!(iterations, Some(Limit::Iterations(1)));
    let time = stopped_within(Limits { time: std::time::Duration::ZERO, ..Limits::default() });
    assert!(matches!(time, Some(Limit::Time(_))), "{time:?}");
    // Room enough for these few terms: the e-graph saturates and reports no limit.
    let room = Limits { iterations: 1_000, ..Limits::default() };
    assert_eq!(stopped_within(room), None);
}

#[test]
fn the_pass_manager_records_the_functions_whose_e_graph_stopped() {
    let mut module: IRModule = parse_module(CASCADE).expect("the test program parses");
    let records =
        crate::PassManager::from_names(&["cse-semantic"]).expect("registered").run(&mut module).expect("runs");
    let limit = super::eliminate_reported(&mut parse_module(CASCADE).expect("parses").functions[0], Mode::Semantic).1;
    let expected: Vec<_> =
        limit.map(|limit| crate::stop::Stopped { function: "main".into(), limit }).into_iter().collect();
    assert_eq!(records[0].stopped, expected);
}
