//! `tirproof run --engine gpu` and the `gpu` oracle as a user meets them: without a GPU (or
//! with `TIRPROOF_GPU=off`) a clear "no GPU: ..." error with the reason, exit 2, never a
//! panic; the oracle a skip that says why; with a GPU, the device's outputs equal the
//! interpreter's bit for bit.

use std::path::Path;
use std::process::{Command, Output};

fn tirproof(args: &[&str], gpu_off: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tirproof"));
    if gpu_off {
        command.env("TIRPROOF_GPU", "off");
    }
    command.args(args).output().expect("the binary runs")
}

fn corpus(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(path).display().to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const PROGRAM: &str = "pipeline/vector_copy.py";

#[test]
fn without_a_gpu_the_gpu_engine_is_an_error_that_says_why() {
    let out = tirproof(&["run", "--engine", "gpu", &corpus(PROGRAM)], true);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), "error: no GPU: turned off by TIRPROOF_GPU=off\n");
    let out = tirproof(&["run", "--engine", "gpu", &corpus(PROGRAM), "--reference", &corpus(PROGRAM)], true);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("error: no GPU: "), "{}", stderr(&out));
}

#[test]
fn the_gpu_engine_refuses_a_schedule() {
    let out = tirproof(&["run", "--engine", "gpu", "--schedule", "eager", &corpus(PROGRAM)], true);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("the GPU decides its own schedule"), "{}", stderr(&out));
}

#[test]
fn without_a_gpu_the_gpu_oracle_is_a_skip_with_the_reason() {
    let out = tirproof(&["oracles", "--oracle", "ptx", "--oracle", "gpu", &corpus(PROGRAM)], true);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("ptx: pass"), "{stdout}");
    assert!(stdout.contains("gpu: skipped: not available here: no GPU: turned off by TIRPROOF_GPU=off"), "{stdout}");
    let default = tirproof(&["oracles", &corpus(PROGRAM)], true);
    assert!(!String::from_utf8_lossy(&default.stdout).contains("gpu"), "gpu is not a default oracle");
}

/// On this machine's GPU, or its absence: the device's outputs are the interpreter's, or the
/// error says why there is no GPU.
#[test]
fn the_gpu_engine_computes_the_interpreters_outputs_or_says_there_is_no_gpu() {
    let out = tirproof(&["run", "--engine", "gpu", &corpus(PROGRAM), "--reference", &corpus(PROGRAM)], false);
    let err = stderr(&out);
    match out.status.code() {
        Some(2) if err.starts_with("error: no GPU: ") => println!("skipped the device run: {}", err.trim_end()),
        Some(0) => assert!(err.contains("bitwise equal"), "{err}"),
        other => panic!("{other:?}: {err}"),
    }
    assert!(!err.contains("panicked"), "{err}");
}
