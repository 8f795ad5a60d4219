//! `tirproof opt --explain`: the passes' notes on stderr (why a vectorized loop stayed
//! serial, which access the vector-type rewrite left alone), the program on stdout, and
//! nothing on stderr without the flag.

use std::path::Path;
use std::process::{Command, Output};

fn opt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).arg("opt").args(args).output().expect("the binary runs")
}

fn corpus(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(path).display().to_string()
}

#[test]
fn explain_says_why_each_loop_stays_serial() {
    let out = opt(&["--explain", "--passes", "vectorize-loop", &corpus("lowering/vectorize_serial_fallbacks.py")]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().filter(|l| l.starts_with("vectorize-loop: ")).count(), 8, "{err}");
    for reason in [
        "9:5: loop `i` in `main` stays serial: its body contains the loop `j`",
        "an `if` condition depends on the loop variable",
        "a `T.if_then_else` condition depends on the loop variable",
        "the attribute `async_commit_queue_scope`",
        "the store to `C` has an index that does not depend on the loop variable",
        "lanes would not match",
        "`C` is written in the loop and is accessed at [i + 1] and at [i]",
        "its index `i % 2` is not an affine function of `i`",
    ] {
        assert!(err.contains(reason), "missing `{reason}` in:\n{err}");
    }
    assert!(String::from_utf8_lossy(&out.stdout).contains("for i in range(4):"));
}

#[test]
fn explain_covers_the_chain_and_is_silent_without_the_flag() {
    let file = corpus("lowering/vector_type_rewrite.py");
    let out = opt(&["--explain", "--passes", "flatten-buffer,vector-type-rewrite", &file]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("vector-type-rewrite: ") && err.contains("is not provably a multiple of 4"), "{err}");
    let quiet = opt(&["--passes", "flatten-buffer,vector-type-rewrite", &file]);
    assert!(quiet.stderr.is_empty(), "{}", String::from_utf8_lossy(&quiet.stderr));
    assert_eq!(quiet.stdout, out.stdout);
}
