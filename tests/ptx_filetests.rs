//! `# ptx:` check lines of corpus cases: each line's text must occur in the PTX lowered from the
//! case's program, after the previous line's match (FileCheck's CHECK), in a case of any kind;
//! a missing or misordered line, or a program that cannot be lowered, fails the case.

use std::path::Path;

use tirproof_filetests::{Case, Verdict};

const PROGRAM: &str = "# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), \"float32\"), C: T.Buffer((64,), \"float32\")):
    for i in T.serial(16, annotations={\"software_pipeline_stage\": [0, 1], \"software_pipeline_order\": [0, 1], \"software_pipeline_async_stages\": [0]}):
        B = T.alloc_buffer((4,), \"float32\", scope=\"shared\")
        B[T.Ramp(0, 1, 4)] = A[T.Ramp(i * 4, 1, 4)]
        C[T.Ramp(i * 4, 1, 4)] = B[T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1.0), 4)
";

fn verdict(checks: &[&str], program: &str) -> Verdict {
    let header: String = checks.iter().map(|c| format!("# ptx: {c}\n")).collect();
    let text = format!("# test: roundtrip\n{header}\n{program}");
    Case::from_text(Path::new("case.py"), text).expect("a case").run(false)
}

fn fails_with(checks: &[&str], program: &str, expected: &str) {
    match verdict(checks, program) {
        Verdict::Fail(why) => assert!(why.contains(expected), "{why}"),
        other => panic!("{checks:?}: expected a failure, got {other:?}"),
    }
}

#[test]
fn lines_in_order_pass() {
    let checks = ["cp.async.commit_group;", "cp.async.wait_group 1;", "cp.async.wait_group 0;"];
    assert_eq!(verdict(&checks, PROGRAM), Verdict::Pass);
}

#[test]
fn a_missing_line_fails_naming_it() {
    fails_with(&["cp.async.wait_group 3;"], PROGRAM, "`# ptx: cp.async.wait_group 3;` not found");
}

#[test]
fn lines_out_of_order_fail() {
    let checks = ["cp.async.wait_group 0;", "cp.async.wait_group 1;"];
    fails_with(&checks, PROGRAM, "`# ptx: cp.async.wait_group 1;` not found in the PTX after line");
}

#[test]
fn a_program_that_cannot_be_lowered_fails_with_the_reason() {
    let call = "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    A[0] = T.tanh(A[1])\n";
    fails_with(&["ret;"], call, "no PTX");
}
