//! `tirproof oracles`, `reduce` and `fuzz` as a user meets them: exit codes, reports on disk,
//! a campaign that resumes, stops on Ctrl-C and ends on time.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn tirproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).output().expect("the binary runs")
}

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name).display().to_string()
}

/// A path in a scratch directory (the directory is removed when the test ends); nothing is at
/// the path yet.
fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix("tirproof-cli-fuzz-").tempdir().expect("scratch dir");
    let path = dir.path().join(name);
    (dir, path)
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn oracles_pass_on_the_real_pass_and_fail_on_the_planted_bug() {
    let file = data("two_stages_apart.py");
    let clean = tirproof(&["oracles", &file, "--oracle", "equivalence", "--oracle", "waits-tight"]);
    assert_eq!(code(&clean), 0, "{}", stdout(&clean));
    assert!(stdout(&clean).contains("waits-tight: pass"), "{}", stdout(&clean));
    let buggy = tirproof(&["oracles", &file, "--planted-bug"]);
    assert_eq!(code(&buggy), 1, "{}", stdout(&buggy));
    assert!(
        stdout(&buggy).contains("equivalence: FAIL equivalence/fault:output:read-pending-async"),
        "{}",
        stdout(&buggy)
    );
}

#[test]
fn reduce_writes_a_report_and_refuses_a_program_that_does_not_fail() {
    let file = data("two_stages_apart.py");
    let (_scratch, out_dir) = scratch("reduce");
    let dir = out_dir.display().to_string();
    let out = tirproof(&["reduce", &file, "--oracle", "waits-tight", "--planted-bug", "--out", &dir]);
    assert_eq!(code(&out), 1, "{}\n{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).contains("waits-tight/wait-refuted"), "{}", stdout(&out));
    let md = std::fs::read_to_string(out_dir.join("REPORT.md")).expect("REPORT.md");
    assert!(md.contains("tirproof oracles minimized.py --oracle waits-tight --planted-bug"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).expect("json")).expect("parses");
    assert_eq!(json["signature"]["class"], "wait-refuted");
    // The reproduce command, run where the report is, shows the failure again.
    let again = Command::new(env!("CARGO_BIN_EXE_tirproof"))
        .current_dir(&out_dir)
        .args(["oracles", "minimized.py", "--oracle", "waits-tight", "--planted-bug"])
        .output()
        .expect("runs");
    assert_eq!(code(&again), 1, "{}", stdout(&again));

    // A failure found with another seed says so: in the command and in the regression case.
    let seeded = tirproof(&["reduce", &file, "--oracle", "waits-tight", "--planted-bug", "--seed", "3", "--out", &dir]);
    assert_eq!(code(&seeded), 1, "{}", stdout(&seeded));
    let md = std::fs::read_to_string(out_dir.join("REPORT.md")).expect("REPORT.md");
    assert!(md.contains("tirproof oracles minimized.py --oracle waits-tight --planted-bug --seed 3"), "{md}");
    let regression = std::fs::read_to_string(out_dir.join("regression.py")).expect("regression.py");
    assert!(regression.lines().any(|l| l == "# seed: 3"), "{regression}");

    let clean = tirproof(&["reduce", &file, "--oracle", "equivalence", "--out", &dir]);
    assert_eq!(code(&clean), 2);
    assert!(String::from_utf8_lossy(&clean.stderr).contains("does not fail"));
}

#[test]
fn a_campaign_writes_its_summary_and_resumes() {
    let (_scratch, out_dir) = scratch("campaign");
    let dir = out_dir.display().to_string();
    let args = ["fuzz", "--out", &dir, "--jobs", "1", "--oracle", "pipeline", "--oracle", "equivalence"];
    let first = tirproof(&[&args[..], &["--programs", "6"]].concat());
    assert_eq!(code(&first), 0, "{}", stdout(&first));
    assert!(stdout(&first).contains("6 programs"), "{}", stdout(&first));
    let second = tirproof(&[&args[..], &["--programs", "10"]].concat());
    assert_eq!(code(&second), 0, "{}", stdout(&second));
    assert!(
        stdout(&second).contains("4 programs") && stdout(&second).contains("from program 6"),
        "{}",
        stdout(&second)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).expect("summary")).expect("json");
    assert_eq!(summary["resumed_at"], 6);
    let other_seed = tirproof(&[&args[..], &["--programs", "12", "--seed", "9"]].concat());
    assert_eq!(code(&other_seed), 2, "a campaign directory keeps its seed");
}

/// Runs a campaign in the background until `stopped_after`, then sends it `signal` (by the
/// `kill` command) unless it already ended; returns its output and how long it ran after the
/// signal (or after `stopped_after`).
fn campaign_signalled(args: &[&str], stopped_after: Duration, signal: Option<&str>) -> (Output, Duration) {
    use std::process::Stdio;
    let child = Command::new(env!("CARGO_BIN_EXE_tirproof"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    std::thread::sleep(stopped_after);
    let signalled = Instant::now();
    if let Some(signal) = signal {
        let sent = Command::new("kill").args([signal, &child.id().to_string()]).status().expect("kill runs");
        assert!(sent.success(), "the signal is sent");
    }
    let out = child.wait_with_output().expect("the campaign ends");
    (out, signalled.elapsed())
}

/// The first SIGINT (Ctrl-C) or SIGTERM stops a campaign while Z3 checks run, promptly: it
/// exits normally (not killed by the signal), with its state and summary written, and says how
/// to resume.
#[test]
fn a_campaign_stops_on_the_first_ctrl_c_and_says_how_to_resume() {
    for signal in ["-INT", "-TERM"] {
        let (_scratch, out_dir) = scratch("stopped");
        let dir = out_dir.display().to_string();
        let args = ["fuzz", "--out", &dir, "--jobs", "2", "--time", "10m", "--oracle", "waits-tight", "--seed", "3"];
        let (out, after) = campaign_signalled(&args, Duration::from_secs(3), Some(signal));
        let text = stdout(&out);
        assert!(out.status.code().is_some(), "{signal} killed it: {:?}\n{text}", out.status);
        assert!(after < Duration::from_secs(10), "{signal}: it ran {after:?} after the signal");
        assert!(text.contains("resume it with `tirproof fuzz --out"), "{text}");
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).expect("summary"))
                .expect("json");
        assert_eq!(summary["end"], "stopped", "{summary}");
        assert!(out_dir.join("campaign.json").is_file());
    }
}

/// A campaign ends within a few seconds of `--time`, even while it minimizes a finding (the
/// planted bug, with a minimization budget far longer than the campaign).
#[test]
fn a_campaign_ends_on_time_even_while_minimizing() {
    let (_scratch, out_dir) = scratch("on-time");
    let dir = out_dir.display().to_string();
    let time = Duration::from_secs(4);
    let args = [
        "fuzz",
        "--out",
        &dir,
        "--jobs",
        "2",
        "--time",
        "4s",
        "--planted-bug",
        "--reduce-budget",
        "300",
        "--seed",
        "7",
    ];
    let started = Instant::now();
    let (out, _) = campaign_signalled(&args, Duration::ZERO, None);
    let overrun = started.elapsed().saturating_sub(time);
    let text = stdout(&out);
    assert!(overrun < Duration::from_secs(5), "it ran {overrun:?} past --time\n{text}");
    assert!(text.contains("finding:"), "the planted bug is found: {text}");
}

/// A program stuck in a step that no deadline reaches (program 34 of seed 11 spends minutes
/// in the verifier's encoding) does not hold the campaign: it ends a few seconds after `--time`
/// with its state saved and the program left for a resumed campaign.
#[test]
fn a_campaign_does_not_wait_for_a_step_no_deadline_reaches() {
    let (_scratch, out_dir) = scratch("overdue");
    std::fs::create_dir_all(&out_dir).expect("campaign dir");
    std::fs::write(out_dir.join("campaign.json"), r#"{"seed": 11, "done_below": 34}"#).expect("state");
    let dir = out_dir.display().to_string();
    let args = ["fuzz", "--out", &dir, "--jobs", "1", "--time", "2s", "--seed", "11", "--oracle", "waits-tight"];
    let started = Instant::now();
    let (out, _) = campaign_signalled(&args, Duration::ZERO, None);
    let overrun = started.elapsed().saturating_sub(Duration::from_secs(2));
    assert!(overrun < Duration::from_secs(8), "it ran {overrun:?} past --time\n{}", stdout(&out));
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("campaign.json")).expect("state")).expect("json");
    assert!(state["done_below"].as_u64().is_some_and(|d| d >= 34), "{state}");
    assert!(out_dir.join("summary.json").is_file(), "{}", stdout(&out));
}

/// Whether TVM is installed for the peer (`scripts/setup_tvm.sh`); says so when it is not.
fn tvm_present() -> bool {
    let probe = tirproof(&["oracles", &data("two_stages_apart.py"), "--oracle", "tvm", "--peer", "tvm"]);
    let skipped = stdout(&probe).contains("tvm: skipped: TVM");
    if skipped {
        eprintln!("skipped: {}", stdout(&probe).trim());
    }
    !skipped
}

#[test]
fn a_campaign_against_tvm_finds_reports_and_tabulates_its_failures() {
    if !tvm_present() {
        return;
    }
    let (_scratch, out_dir) = scratch("tvm-campaign");
    let dir = out_dir.display().to_string();
    let args = [
        "fuzz",
        "--out",
        &dir,
        "--programs",
        "16",
        "--jobs",
        "1",
        "--seed",
        "201",
        "--valid-only",
        "--reduce-budget",
        "5",
    ];
    let out = tirproof(&[&args[..], &["--peer", "tvm", "--oracle", "pipeline", "--oracle", "tvm"]].concat());
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    assert!(text.contains("TVM's pass on"), "{text}");
    assert!(text.contains("| TVM and tirproof both clean |"), "{text}");
    // Program 13 of this campaign: TVM leaves a group in flight (see corpus/tvm-findings).
    let report = out_dir.join("findings/tvm--tvm_unwaited-group");
    let md = std::fs::read_to_string(report.join("REPORT.md")).expect("a report for the unwaited group");
    assert!(md.contains("Found with TVM 0.27.0.post1"), "{md}");
    assert!(md.contains("--peer tvm"), "{md}");
    let script = std::fs::read_to_string(report.join("reproduce_tvm.py")).expect("the reproduction script");
    assert!(script.contains("InjectSoftwarePipeline"), "{script}");
    let case = std::fs::read_to_string(report.join("regression.py")).expect("the corpus case");
    assert!(case.starts_with("# test: tvm-finding\n# tvm: unwaited-group\n"), "{case}");
}

#[test]
fn without_tvm_the_peer_is_skipped_with_the_reason() {
    let out = Command::new(env!("CARGO_BIN_EXE_tirproof"))
        .args(["oracles", &data("two_stages_apart.py"), "--oracle", "tvm", "--peer", "tvm"])
        .env("TIRPROOF_TVM_PYTHON", "/nonexistent/python")
        .output()
        .expect("the binary runs");
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(stdout(&out).contains("tvm: skipped: TVM is not installed"), "{}", stdout(&out));
}

/// `--jobs` is a number of worker threads the machine can hold: none, or far more than its
/// cores, is a usage error naming the bounds (not a campaign "at inf/s per job", nor gigabytes
/// of threads, nor a panic).
#[test]
fn jobs_outside_the_machines_bounds_are_usage_errors() {
    let (_scratch, out_dir) = scratch("jobs");
    let dir = out_dir.display().to_string();
    for jobs in ["0", "100000", "-1", "many"] {
        let flag = format!("--jobs={jobs}");
        let out = tirproof(&["fuzz", "--out", &dir, &flag, "--programs", "1", "--oracle", "pipeline"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(code(&out), 2, "--jobs {jobs}: {}\n{err}", stdout(&out));
        assert!(err.contains("from 1 to") && !err.contains("panicked"), "--jobs {jobs}: {err}");
        assert!(!out_dir.exists(), "--jobs {jobs} started a campaign");
    }
    let out = tirproof(&["fuzz", "--out", &dir, "--jobs", "1", "--programs", "1", "--oracle", "pipeline"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

/// A second campaign in a directory where one runs is refused (exit 2), naming the running
/// one; once that one is killed, its lock is stale and the next campaign takes it over, saying
/// so.
#[test]
fn a_campaign_directory_holds_one_campaign_at_a_time() {
    use std::process::Stdio;
    let (_scratch, out_dir) = scratch("locked");
    let dir = out_dir.display().to_string();
    let args = ["fuzz", "--out", &dir, "--jobs", "1", "--oracle", "pipeline", "--seed", "5"];
    let mut first = Command::new(env!("CARGO_BIN_EXE_tirproof"))
        .args([&args[..], &["--time", "10m"]].concat())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let lock = out_dir.join("campaign.lock");
    let started = Instant::now();
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.contains("pid")) {
        assert!(started.elapsed() < Duration::from_secs(30), "the first campaign never took its lock");
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = tirproof(&[&args[..], &["--programs", "1"]].concat());
    let err = String::from_utf8_lossy(&second.stderr).into_owned();
    let _ = first.kill();
    let _ = first.wait();
    assert_eq!(code(&second), 2, "{}\n{err}", stdout(&second));
    assert!(err.contains("in use by another campaign") && err.contains(&format!("process {}", first.id())), "{err}");
    let third = tirproof(&[&args[..], &["--programs", "1"]].concat());
    assert_eq!(code(&third), 0, "{}", stdout(&third));
    let text = stdout(&third);
    assert!(
        text.contains("taking over the lock of a campaign that was killed") && text.contains(&first.id().to_string()),
        "{text}"
    );
}

/// A campaign remembers the options that decide what it finds: resuming it with another one
/// is refused (exit 2) naming the option with both values.
#[test]
fn a_campaign_resumes_only_with_the_options_it_was_started_with() {
    let (_scratch, out_dir) = scratch("options");
    let dir = out_dir.display().to_string();
    let args = ["fuzz", "--out", &dir, "--jobs", "1", "--oracle", "pipeline", "--planted-bug"];
    let first = tirproof(&[&args[..], &["--programs", "2"]].concat());
    assert_eq!(code(&first), 0, "{}", stdout(&first));
    let without = tirproof(&["fuzz", "--out", &dir, "--jobs", "1", "--oracle", "pipeline", "--programs", "4"]);
    let err = String::from_utf8_lossy(&without.stderr);
    assert_eq!(code(&without), 2, "{}", stdout(&without));
    assert!(err.contains("--planted-bug: given") && err.contains("--planted-bug: not given"), "{err}");
    let other_oracles = tirproof(&[&args[..], &["--oracle", "equivalence", "--programs", "4"]].concat());
    let err = String::from_utf8_lossy(&other_oracles.stderr);
    assert_eq!(code(&other_oracles), 2, "{}", stdout(&other_oracles));
    assert!(err.contains("--oracle: no-panic, pipeline,") && err.contains("equivalence"), "{err}");
    let same = tirproof(&[&args[..], &["--programs", "4"]].concat());
    assert_eq!(code(&same), 0, "{}", stdout(&same));
    assert!(stdout(&same).contains("from program 2"), "{}", stdout(&same));
}

/// A truncated `report.json` does not block a resume: the finding is set aside (moved, not
/// removed) with a warning, and the campaign goes on.
#[test]
fn a_damaged_finding_is_set_aside_and_the_campaign_resumes() {
    let (_scratch, out_dir) = scratch("damaged");
    let dir = out_dir.display().to_string();
    let args = ["fuzz", "--out", &dir, "--jobs", "1", "--oracle", "pipeline"];
    let first = tirproof(&[&args[..], &["--programs", "1"]].concat());
    assert_eq!(code(&first), 0, "{}", stdout(&first));
    let finding = out_dir.join("findings/pipeline--refused");
    std::fs::create_dir_all(&finding).expect("a finding");
    std::fs::write(finding.join("report.json"), r#"{"signature": {"oracle": "pipel"#).expect("truncated");
    let second = tirproof(&[&args[..], &["--programs", "2"]].concat());
    let text = stdout(&second);
    assert_eq!(code(&second), 0, "{text}\n{}", String::from_utf8_lossy(&second.stderr));
    assert!(text.contains("report.json is damaged") && text.contains("set aside"), "{text}");
    let kept = out_dir.join("damaged/pipeline--refused/report.json");
    assert_eq!(std::fs::read_to_string(kept).expect("kept"), r#"{"signature": {"oracle": "pipel"#);
}

/// A Python without TVM given as TVM's interpreter is the "TVM is not installed" skip, with
/// the import's error, not a finding blaming TVM.
#[cfg(unix)]
#[test]
fn a_python_without_tvm_is_not_installed() {
    use std::os::unix::fs::PermissionsExt;
    let (scratch, _) = scratch("no-tvm");
    let package = scratch.path().join("tvm");
    std::fs::create_dir(&package).expect("the package");
    std::fs::write(package.join("__init__.py"), "raise ModuleNotFoundError(\"No module named 'tvm'\")\n")
        .expect("writes the package");
    let wrapper = scratch.path().join("python");
    let script = format!("#!/bin/sh\nPYTHONPATH={} exec python3 \"$@\"\n", scratch.path().display());
    std::fs::write(&wrapper, script).expect("writes the wrapper");
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("executable");
    let out = Command::new(env!("CARGO_BIN_EXE_tirproof"))
        .args(["oracles", &data("two_stages_apart.py"), "--oracle", "tvm", "--peer", "tvm"])
        .env("TIRPROOF_TVM_PYTHON", &wrapper)
        .output()
        .expect("the binary runs");
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}");
    assert!(text.contains("tvm: skipped: TVM is not installed") && text.contains("ModuleNotFoundError"), "{text}");
}
