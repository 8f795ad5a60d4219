//! The bounds of docs/limits.md as a user meets them: an endless program text (bad input,
//! exit 4), and a program that holds more async stores in flight than the machine allows
//! (exit 2), each refused with a message naming the input or line and the limit.

use std::fs::File;
use std::process::{Command, Output, Stdio};

fn tirproof(args: &[&str], stdin: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).stdin(stdin).output().expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_endless_program_is_refused_at_the_limit_naming_it() {
    for args in [&["check", "/dev/zero"][..], &["run", "--ptx", "/dev/zero"][..]] {
        let out = tirproof(args, Stdio::null());
        assert_eq!(out.status.code(), Some(4), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("/dev/zero") && stderr(&out).contains("MAX_PROGRAM_BYTES"), "{}", stderr(&out));
    }
    let out = tirproof(&["check", "-"], Stdio::from(File::open("/dev/zero").expect("/dev/zero")));
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("<stdin>") && stderr(&out).contains("MAX_PROGRAM_BYTES"), "{}", stderr(&out));
}

#[test]
fn async_stores_past_the_bound_are_refused_at_their_line() {
    let bound = tirproof_machine::limit::MAX_ASYNC_STORES_IN_FLIGHT;
    let program = format!(
        "# from tvm.script import tirx as T\n\n@T.prim_func\n\
         def main(A: T.Buffer((1,), \"int8\"), C: T.Buffer((1,), \"int8\")):\n\
         \x20   B = T.alloc_buffer(({n},), \"int8\", scope=\"shared\")\n\
         \x20   for i in range({n}):\n\
         \x20       with T.attr({{\"async_commit_queue_scope\": 0, \"async_scope\": 1}}):\n\
         \x20           B[i] = A[0]\n\
         \x20   with T.attr({{\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": 0}}):\n\
         \x20       C[0] = B[0]\n",
        n = bound + 1
    );
    let dir = tempfile::tempdir().expect("scratch dir");
    let path = dir.path().join("stores.py");
    std::fs::write(&path, program).expect("write");
    let out = tirproof(&["run", &path.display().to_string()], Stdio::null());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let message = stderr(&out);
    assert!(message.contains("line 8: resource limit") && message.contains("MAX_ASYNC_STORES_IN_FLIGHT"), "{message}");
}
