//! The command line as a user meets it: exit codes, diagnostics on stderr, output on stdout.

use std::path::Path;
use std::process::{Command, Output};

fn tirproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).output().expect("the binary runs")
}

fn corpus(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(path).display().to_string()
}

/// A scratch directory, removed when the test ends.
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("tirproof-cli-{name}-")).tempdir().expect("scratch dir")
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

#[test]
fn fmt_prints_canonical_text_and_exits_zero() {
    let out = tirproof(&["fmt", &corpus("tvm/seed_a_after_flatten_cse.py")]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("@I.ir_module") && text.contains("T.alloc_buffer((2,), \"float32\", scope=\"shared\""));
}

#[test]
fn check_reports_diagnostics_with_location_and_exits_four() {
    let file = corpus("text/errors/undefined_name.py");
    let out = tirproof(&["check", &file]);
    assert_eq!(code(&out), 4);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{file}:11:18: error: undefined name `j`")), "{err}");
    assert!(err.contains("A[i] = A[j]") && err.contains('^'), "source line and caret: {err}");
}

#[test]
fn check_accepts_a_directory_of_clean_files() {
    let out = tirproof(&["check", &corpus("text/roundtrip")]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn usage_errors_exit_two_and_an_unreadable_input_four() {
    assert_eq!(code(&tirproof(&["check"])), 2, "missing argument");
    assert_eq!(code(&tirproof(&["frobnicate"])), 2, "unknown command");
    assert_eq!(code(&tirproof(&["fmt", "/nonexistent/file.py"])), 4, "unreadable file");
    let out = tirproof(&["opt", &corpus("pipeline/rfc_a_async.py"), "--passes", "no-such-pass"]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown pass `no-such-pass`"));
}

#[test]
fn help_documents_exit_codes() {
    let out = tirproof(&["--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Exit codes:") && text.contains("usage error"), "{text}");
}

#[test]
fn opt_pipelines_and_run_reference_agrees_under_every_schedule() {
    let scratch_dir = scratch("opt");
    let dir = scratch_dir.path();
    let out_file = dir.join("out.py");
    let input = corpus("pipeline/rfc_c_interleaved.py");
    let out = tirproof(&["opt", &input, "--passes", "inject-software-pipeline", "-o", &out_file.display().to_string()]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    for schedule in ["lazy", "eager", "random:7"] {
        let out = tirproof(&["run", &out_file.display().to_string(), "--reference", &input, "--schedule", schedule]);
        assert_eq!(code(&out), 0, "{schedule}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn run_reference_reports_a_fault_when_a_wait_is_too_loose() {
    let scratch_dir = scratch("loose");
    let dir = scratch_dir.path();
    let input = corpus("pipeline/rfc_c_interleaved.py");
    let out = tirproof(&["opt", &input, "--passes", "inject-software-pipeline"]);
    let text = String::from_utf8_lossy(&out.stdout)
        .replace("\"async_wait_inflight_count\": 5", "\"async_wait_inflight_count\": 6");
    let bad = dir.join("bad.py");
    std::fs::write(&bad, text).expect("write");
    let out = tirproof(&["run", &bad.display().to_string(), "--reference", &input, "--schedule", "lazy"]);
    assert_eq!(code(&out), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("while an async write to it is pending"));
}

#[test]
fn run_writes_npy_outputs_and_reads_them_back_as_inputs() {
    let scratch_dir = scratch("npy");
    let dir = scratch_dir.path();
    let input = corpus("pipeline/rfc_a_async.py");
    let out = tirproof(&["run", &input, "--output", &dir.display().to_string(), "--seed", "3"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let a = dir.join("A.npy");
    assert!(a.exists() && dir.join("C.npy").exists());
    let again = tirproof(&["run", &input, "--input", &format!("A={}", a.display())]);
    assert_eq!(code(&again), 0, "{}", String::from_utf8_lossy(&again.stderr));
    let bad = tirproof(&["run", &input, "--input", "Nope=x.npy"]);
    assert_eq!(code(&bad), 2);
}

#[test]
fn opt_time_reports_a_median() {
    let out = tirproof(&[
        "opt",
        &corpus("pipeline/rfc_b_two_queues.py"),
        "--passes",
        "inject-software-pipeline",
        "--time",
        "--repeat",
        "5",
        "--verify-each",
    ]);
    assert_eq!(code(&out), 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("median"));
}

#[test]
fn opt_provenance_prints_origins() {
    let out =
        tirproof(&["opt", &corpus("pipeline/rfc_a_async.py"), "--passes", "inject-software-pipeline", "--provenance"]);
    assert_eq!(code(&out), 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("# origin: statement 1, stage 1, iteration i"));
}

#[test]
fn opt_names_the_pass_that_refuses_the_module() {
    let out =
        tirproof(&["opt", &corpus("pipeline-errors/statement_count.py"), "--passes", "cse,inject-software-pipeline"]);
    // A pass that refuses the module is bad input.
    assert_eq!(code(&out), 4);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("`inject-software-pipeline` refuses the module:\n"), "{err}");
    assert!(err.contains("statement_count.py:9:5: error: the annotations describe 3 statements"), "{err}");
}

#[test]
fn verify_refutes_for_some_memory_contents_and_writes_a_witness_that_run_replays() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/witness/contents_racy.py");
    let program = program.display().to_string();
    let dir = scratch("witness");
    let witnesses = dir.path().join("inputs");
    let out = tirproof(&["verify", &program, "--witnesses", &witnesses.display().to_string()]);
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("refuted: line 12: refuted for some memory contents: write to S[1]"), "{text}");
    assert!(text.contains("    memory: K = 0 everywhere"), "{text}");
    let replay = text.lines().find_map(|l| l.trim().strip_prefix("replay: tirproof ")).expect("a replay command");
    // The command replays the fault exactly, from the written inputs.
    let out = tirproof(&replay.split(' ').collect::<Vec<_>>());
    let replayed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        replayed.contains("fault: line 12: write to S[1] (element 1) while an async write to it is pending"),
        "{replayed}"
    );
    // Without the search, the same program is only undecided.
    let out = tirproof(&["verify", &program, "--no-witness"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("refuted:") && text.contains("unknown:"), "{text}");
}
