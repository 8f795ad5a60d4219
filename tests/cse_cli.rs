//! `tirproof opt --passes cse --validate`: CSE output is printed and validated with Z3; a
//! validation that cannot run (no CSE pass) is a usage error.

use std::path::Path;
use std::process::Command;

fn tirproof(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).output().expect("the CLI runs")
}

fn corpus(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(name).display().to_string()
}

#[test]
fn validate_proves_cse_and_prints_the_program() {
    for pass in ["cse", "cse-semantic"] {
        let out = tirproof(&["opt", &corpus("cse/seed_test_cse_cascade.py"), "--passes", pass, "--validate"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{pass}: {stderr}");
        assert!(stderr.contains(&format!("validated `{pass}` on `main`: 5 obligations proved")), "{stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("cse_v1: T.let[T.int32] = cse_v2 + z"), "{stdout}");
    }
}

#[test]
fn validate_after_the_pipeline_checks_only_cse() {
    let out = tirproof(&[
        "opt",
        &corpus("cse/pipelined_loop_body.py"),
        "--passes",
        "cse,inject-software-pipeline",
        "--validate",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("validated `cse`"), "{stderr}");
}

#[test]
fn validate_without_a_cse_pass_is_a_usage_error() {
    let out = tirproof(&["opt", &corpus("cse/seed_test_cse.py"), "--passes", "inject-software-pipeline", "--validate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--validate checks the CSE passes"));
}
