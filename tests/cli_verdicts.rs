//! What `tirproof verify` says about a refuted wait: the violation a run meets first (the
//! counterexample minimized in execution order) and the `tirproof run` command that replays
//! it, checked by running that command.

use std::path::Path;
use std::process::{Command, Output};

fn tirproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).output().expect("the binary runs")
}

fn path(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative).display().to_string()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `(line, iteration)` of the first violation `verify` reports, and its replay command.
fn first_violation(report: &str) -> (String, String, String) {
    let line = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("first violation a run meets: "))
        .unwrap_or_else(|| panic!("no first violation in:\n{report}"));
    let (place, command) = line.split_once("; replay: ").expect("a replay command");
    let (at_line, iteration) = place.split_once(", ").expect("a line and an iteration");
    (at_line.trim_start_matches("line ").to_owned(), iteration.to_owned(), command.to_owned())
}

/// Runs a printed `tirproof ...` command (no argument of it has a space).
fn replay(command: &str) -> Output {
    let mut words = command.split_whitespace();
    assert_eq!(words.next(), Some("tirproof"), "{command}");
    let args: Vec<&str> = words.collect();
    tirproof(&args)
}

/// Checks that the reported first violation of `file` (a path) is where the replayed run
/// faults.
fn replay_faults_where_reported(file: &str) {
    let out = tirproof(&["verify", "--no-witness", file]);
    let report = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{report}");
    let (line, iteration, command) = first_violation(&report);
    let run = replay(&command);
    let fault = String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    let first = fault.lines().find(|l| l.starts_with("fault: ")).unwrap_or_else(|| panic!("no fault:\n{fault}"));
    assert!(first.starts_with(&format!("fault: line {line}: ")), "verify said line {line}:\n{report}\nrun: {first}");
    assert!(first.ends_with(&format!(" at {iteration}")), "verify said {iteration}:\n{report}\nrun: {first}");
    // The refuted wait is explained by the same instance.
    assert!(report.contains(&format!("refuted: at {iteration} ")), "{report}");
}

#[test]
fn the_counterexample_of_a_tvm_printed_pipeline_is_the_fault_a_run_meets() {
    // Seed a as TVM prints it, its loop's wait at 2 in flight: two violations, the read at
    // i = 0 of the first copy, and the copy at i = 1 over the slot of group 0; a run meets the
    // read first.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = with_count("corpus/tvm/seed_a_after_pipeline.py", 1, 2, dir.path());
    replay_faults_where_reported(&file);
    let report = stdout(&tirproof(&["verify", "--no-witness", &file]));
    assert!(report.contains("first violation a run meets: line 42, i = 0;"), "{report}");
}

#[test]
fn the_replay_command_fixes_the_parameters_the_fault_needs() {
    // Only n >= 70 reaches the faulting iteration: the command must say so.
    replay_faults_where_reported(&path("corpus/verify/periodic_condition_late_fault_racy.py"));
    let report =
        stdout(&tirproof(&["verify", "--no-witness", &path("corpus/verify/periodic_condition_late_fault_racy.py")]));
    assert!(report.contains("--arg n="), "{report}");
}

/// The `help:` line under the refuted wait of `file`.
fn help_line(file: &str) -> String {
    let report = stdout(&tirproof(&["verify", "--no-witness", file]));
    let help =
        report.lines().find_map(|l| l.trim().strip_prefix("help: ")).unwrap_or_else(|| panic!("no help:\n{report}"));
    help.to_owned()
}

/// `file` with its first wait count `from` written as `to`, in a temporary file.
fn with_count(file: &str, from: u32, to: u32, dir: &Path) -> String {
    let text = std::fs::read_to_string(path(file)).expect("readable");
    let key = "\"async_wait_inflight_count\": ";
    let changed = text.replacen(&format!("{key}{from}}}"), &format!("{key}{to}}}"), 1);
    assert_ne!(changed, text, "no count {from} in {file}");
    let out = dir.join(format!("count_{to}.py"));
    std::fs::write(&out, changed).expect("writable");
    out.display().to_string()
}

fn faults(file: &str) -> bool {
    let run = tirproof(&["run", file]);
    let said = String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    let fault = said.lines().any(|l| l.starts_with("fault: "));
    assert_eq!(run.status.success(), !fault, "{said}");
    fault
}

#[test]
fn a_refuted_wait_says_its_largest_safe_count_and_what_peeling_buys() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = "tests/data/verdicts/first_copy_read_every_iteration.py";
    assert_eq!(help_line(&path(file)), "0 is the largest safe constant here; 2 holds for i >= 2 (peel 2 iterations)");
    // The interpreter agrees: 0 runs clean, 1 faults.
    assert!(!faults(&with_count(file, 2, 0, dir.path())));
    assert!(faults(&with_count(file, 2, 1, dir.path())));

    // Two slots: no iteration makes 2 safe, and 1 (as TVM wrote it) is the largest safe count.
    let two = with_count("corpus/tvm/seed_a_after_pipeline.py", 1, 2, dir.path());
    assert_eq!(help_line(&two), "1 is the largest safe constant here");
    assert!(!faults(&path("corpus/tvm/seed_a_after_pipeline.py")));
}

#[test]
fn a_program_without_waits_says_so_and_that_the_pipeline_pass_runs_first() {
    let input = path("corpus/tvm/seed_a_input.py");
    let report = stdout(&tirproof(&["verify", "--no-witness", &input]));
    assert!(report.contains("no waits: this function has no async wait to verify"), "{report}");
    assert!(report.contains("--after inject-software-pipeline"), "{report}");
    // The pass's result is verified with its provenance: data flow is checked.
    let out = tirproof(&["verify", "--no-witness", "--after", "inject-software-pipeline", &input]);
    let report = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(report.contains("2 waits: 2 proved and tight"), "{report}");
    assert!(report.contains("note: data flow checked with the pass's provenance"), "{report}");
    assert!(!report.contains("data flow is not checked"), "{report}");
    // A program with waits and no pipeline annotations gets neither line.
    let report = stdout(&tirproof(&["verify", "--no-witness", &path("corpus/tvm/seed_a_after_pipeline.py")]));
    assert!(!report.contains("no waits") && !report.contains("--after"), "{report}");
}

#[test]
fn the_tvm_printed_pipeline_of_the_readme_is_reported_at_its_wait_and_first_fault() {
    let report = stdout(&tirproof(&["verify", "--no-witness", &path("corpus/tvm/seed_c_after_pipeline.py")]));
    assert!(report.contains("wait at line 50 (queue 0, in-flight 5): refuted: at i = 0 the read of"), "{report}");
    assert!(
        report.contains("help: 3 is the largest safe constant here; 5 holds for i >= 3 (peel 3 iterations)"),
        "{report}"
    );
    replay_faults_where_reported(&path("corpus/tvm/seed_c_after_pipeline.py"));
}

/// The quickstart program after the pipeline pass, as `opt` prints it, written in `dir`.
fn quickstart_pipelined(dir: &Path) -> String {
    let out = tirproof(&["opt", "--passes", "inject-software-pipeline", &path("examples/quickstart.py")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = dir.join("piped.py");
    std::fs::write(&file, &out.stdout).expect("writable");
    file.display().to_string()
}

/// `verify --fix -o OUT` of `file`: its exit code, what it printed, and the program written.
fn fix(file: &str, dir: &Path) -> (Option<i32>, String, String) {
    let fixed = dir.join("fixed.py").display().to_string();
    let out = tirproof(&["verify", "--no-witness", "--fix", "-o", &fixed, file]);
    let written = std::fs::read_to_string(&fixed).unwrap_or_else(|_| panic!("nothing written:\n{}", stdout(&out)));
    (out.status.code(), stdout(&out), written)
}

/// The pipelined quickstart with its first wait's count 2 written as `count`, fixed: the
/// program written is the pipeline pass's output again, and it verifies clean.
fn quickstart_fixed_back_from(count: u32) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let piped = quickstart_pipelined(dir.path());
    let changed = with_count(&piped, 2, count, dir.path());
    let (code, said, written) = fix(&changed, dir.path());
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains(&format!("function main: wait #0 at {changed}:14: in-flight {count} -> 2")), "{said}");
    assert!(said.contains("fixed: every wait of"), "{said}");
    assert_eq!(written, std::fs::read_to_string(&piped).expect("readable"));
    let again = tirproof(&["verify", "--no-witness", &dir.path().join("fixed.py").display().to_string()]);
    assert_eq!(again.status.code(), Some(0), "{}", stdout(&again));
}

#[test]
fn fix_lowers_a_refuted_count_to_the_largest_safe_one_and_the_result_verifies() {
    quickstart_fixed_back_from(3);
}

#[test]
fn fix_raises_an_over_synchronized_count_to_its_tight_one() {
    quickstart_fixed_back_from(1);
}

#[test]
fn fix_rewrites_a_wait_written_in_a_block_header() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let two = with_count("corpus/tvm/seed_a_after_pipeline.py", 1, 2, dir.path());
    let (code, said, written) = fix(&two, dir.path());
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("in-flight 2 -> 1"), "{said}");
    let key = "\"async_wait_inflight_count\": ";
    assert!(written.contains(&format!("{key}1}}")) && !written.contains(&format!("{key}2}}")), "{written}");
}

#[test]
fn fix_refuses_to_write_over_its_input() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let piped = quickstart_pipelined(dir.path());
    let loose = with_count(&piped, 2, 3, dir.path());
    let before = std::fs::read_to_string(&loose).expect("readable");
    let out = tirproof(&["verify", "--fix", "-o", &loose, &loose]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("it is an input of the command"));
    assert_eq!(std::fs::read_to_string(&loose).expect("readable"), before);
}

#[test]
fn fix_leaves_a_count_that_is_not_a_constant_names_it_and_does_not_call_the_result_fixed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (code, said, written) = fix(&path("corpus/faults/negative_wait.py"), dir.path());
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains(":14: left as written (in-flight 0 - i): its count is not a constant"), "{said}");
    assert!(said.contains("not fixed: 1 finding of") && !said.contains("\nfixed: "), "{said}");
    assert!(written.contains("\"async_wait_inflight_count\": 0 - i"), "{written}");
}
