//! The command line under abuse: output files that are devices, links or read-only; stdout
//! that is a closed pipe or a full disk; durations, arguments and inputs out of range; exit
//! codes and summaries that must add up; SMT-LIB dumps that must not collide. Each test runs
//! the built binary as a user would.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{code, show, stderr, stdout};

fn tirproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).output().expect("the binary runs")
}

fn corpus(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(path).display().to_string()
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("tirproof-cli-reliability-").tempdir().expect("scratch dir")
}

/// Files whose name starts with a dot (the temporary files of an atomic write).
fn hidden_files(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .expect("list")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .collect()
}

/// `opt FILE --passes inject-software-pipeline -o OUT`.
fn opt_into(out: &Path) -> Output {
    tirproof(&["opt", &corpus("pipeline/rfc_a_async.py"), "--passes", "inject-software-pipeline", "-o", &show(out)])
}

#[cfg(unix)]
#[test]
fn output_onto_a_device_or_fifo_is_written_through_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let out = opt_into(Path::new("/dev/null"));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(fs::metadata("/dev/null").expect("stat").file_type().is_char_device());

    let dir = scratch();
    let fifo = dir.path().join("fifo.py");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            fs::File::open(&fifo).expect("open fifo").read_to_string(&mut text).expect("read fifo");
            text
        })
    };
    let out = opt_into(&fifo);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Checked before joining: a replaced FIFO never gets a writer, and its reader waits forever.
    assert!(fs::symlink_metadata(&fifo).expect("stat").file_type().is_fifo(), "the FIFO was replaced");
    assert!(reader.join().expect("reader").contains("async_commit_queue_scope"));
}

#[cfg(unix)]
#[test]
fn output_through_a_symlink_writes_its_target_and_keeps_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    let real = dir.path().join("real.py");
    fs::write(&real, "old").expect("write");
    fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).expect("chmod");
    let link = dir.path().join("link.py");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    let out = opt_into(&link);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(fs::symlink_metadata(&link).expect("stat").file_type().is_symlink(), "the link was replaced");
    assert!(fs::read_to_string(&real).expect("read").contains("async_commit_queue_scope"));
    assert_eq!(fs::metadata(&real).expect("stat").permissions().mode() & 0o777, 0o600);
    assert!(hidden_files(dir.path()).is_empty());
}

#[test]
fn a_failed_output_write_leaves_no_temporary_file() {
    let dir = scratch();
    let target = dir.path().join("taken");
    fs::create_dir(&target).expect("mkdir");
    let out = opt_into(&target);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot write"), "{}", stderr(&out));
    assert!(hidden_files(dir.path()).is_empty(), "{:?}", hidden_files(dir.path()));
}

/// Runs `args` with stdout a pipe whose reader is gone before the command starts.
fn with_closed_stdout(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_tirproof"))
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs")
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let seed_c = corpus("tvm/seed_c_after_pipeline.py");
    let pipeline = corpus("pipeline/rfc_a_async.py");
    for args in [
        vec!["corpus", &corpus("text/roundtrip")],
        vec!["fmt", &seed_c],
        vec!["opt", "--list"],
        vec!["opt", &pipeline, "--passes", "inject-software-pipeline"],
        vec!["verify", &seed_c],
        vec!["verify", "--json", &seed_c],
        vec!["run", &pipeline],
    ] {
        let out = with_closed_stdout(&args);
        assert!(!stderr(&out).contains("panicked"), "{args:?}: {}", stderr(&out));
        assert_eq!(code(&out), 141, "{args:?}: {}", stderr(&out));
        // `run` says the seed that replays it before it writes anything; nothing else.
        let said = stderr(&out);
        let quiet = said.is_empty() || (args[0] == "run" && said.lines().all(|l| l.starts_with("seed 0 ")));
        assert!(quiet || args[0] == "verify", "{args:?}: {said}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_on_stdout_is_an_error_and_exit_two() {
    let seed_c = corpus("tvm/seed_c_after_pipeline.py");
    for args in [vec!["fmt", seed_c.as_str()], vec!["verify", seed_c.as_str()], vec!["opt", "--list"]] {
        let full = fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
        let out = Command::new(env!("CARGO_BIN_EXE_tirproof"))
            .args(&args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .expect("the binary runs");
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("cannot write to standard output") && !err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn durations_that_are_not_finite_or_too_long_are_usage_errors() {
    let seed_c = corpus("tvm/seed_c_after_pipeline.py");
    let pipeline = corpus("pipeline/rfc_a_async.py");
    for bad in ["inf", "1e20", "NaN", "-1", "ten"] {
        for args in [
            vec!["verify".to_owned(), seed_c.clone(), format!("--timeout={bad}")],
            vec!["oracles".to_owned(), pipeline.clone(), format!("--timeout={bad}")],
            vec!["reduce".to_owned(), pipeline.clone(), format!("--budget={bad}")],
            vec!["fuzz".to_owned(), "--out=never-created".to_owned(), format!("--time={bad}")],
            vec!["fuzz".to_owned(), "--out=never-created".to_owned(), format!("--program-budget={bad}")],
            vec!["opt".to_owned(), pipeline.clone(), "--passes=cse".to_owned(), format!("--validate-timeout={bad}")],
        ] {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = tirproof(&args);
            assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
            assert!(stderr(&out).contains("invalid value") && !stderr(&out).contains("panicked"), "{args:?}");
        }
    }
    assert!(!Path::new("never-created").exists());
}

#[test]
fn scalar_arguments_must_name_a_parameter_and_fit_its_type() {
    let file = corpus("pipeline/several_writers_interleaved.py");
    let wraps = tirproof(&["run", &file, "--arg", "n=4294967300"]);
    assert_eq!(code(&wraps), 2, "{}", stderr(&wraps));
    assert!(stderr(&wraps).contains("out of the range") && stderr(&wraps).contains("int32"), "{}", stderr(&wraps));
    let unknown = tirproof(&["run", &file, "--arg", "zz=1"]);
    assert_eq!(code(&unknown), 2);
    assert!(stderr(&unknown).contains("no scalar parameter `zz`") && stderr(&unknown).contains(": n)"));
    let not_int = tirproof(&["run", &file, "--arg", "n=1.5"]);
    assert_eq!(code(&not_int), 2, "{}", stderr(&not_int));
    assert_eq!(code(&tirproof(&["run", &file, "--arg", "n=7"])), 0);
}

#[test]
fn inputs_are_read_no_further_than_the_buffer() {
    let dir = scratch();
    let input = corpus("pipeline/rfc_a_async.py");
    let out = tirproof(&["run", &input, "--output", &show(dir.path())]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let a = dir.path().join("A.npy");
    let mut bytes = fs::read(&a).expect("read");
    bytes.extend_from_slice(&[0; 4]);
    let longer = dir.path().join("longer.npy");
    fs::write(&longer, &bytes).expect("write");
    let out = tirproof(&["run", &input, "--input", &format!("A={}", show(&longer))]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("more data than the buffer"), "{}", stderr(&out));
    // A header that claims to be huge is refused before anything more is read.
    let mut header = bytes[..8].to_vec();
    header[6] = 2;
    header.extend_from_slice(&u32::MAX.to_le_bytes());
    let huge = dir.path().join("huge.npy");
    fs::write(&huge, &header).expect("write");
    let out = tirproof(&["run", &input, "--input", &format!("A={}", show(&huge))]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("header"), "{}", stderr(&out));
    let out = tirproof(&["run", &input, "--input", "A=/dev/zero"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

#[test]
fn verify_checks_first_and_follows_the_exit_code_table() {
    // The checker rejects a commit queue given as a list; the verifier used to ignore it.
    let ill_formed = corpus("lowering-errors/lower_block_list_annotation.py");
    let out = tirproof(&["verify", &ill_formed]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(stderr(&out).contains("must be an integer, found a list"), "{}", stderr(&out));
    assert!(!stdout(&out).contains("function main"), "{}", stdout(&out));
    let unparsable = corpus("text/errors/missing_colon.py");
    for command in ["verify", "oracles", "reduce"] {
        let out = tirproof(&[command, &unparsable]);
        assert_eq!(code(&out), 1, "{command}: {}", stderr(&out));
        assert!(stderr(&out).contains("missing `:`"), "{command}: {}", stderr(&out));
    }
    let out = tirproof(&["oracles", &ill_formed]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let out = tirproof(&["verify", "--func", "nope", &corpus("tvm/seed_c_after_pipeline.py")]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("no function `nope`") && stderr(&out).contains("main"), "{}", stderr(&out));
}

#[test]
fn a_directory_without_programs_is_a_usage_error() {
    let dir = scratch();
    fs::write(dir.path().join("notes.txt"), "not a program").expect("write");
    for command in ["verify", "check", "corpus"] {
        let out = tirproof(&[command, &show(dir.path())]);
        assert_eq!(code(&out), 2, "{command}: {}", stderr(&out));
        assert!(stderr(&out).contains("has no program files (.py, .ttgir, .mlir)"), "{command}: {}", stderr(&out));
    }
}

/// The numbers of a summary line (`3 waits: 1 ..., 2 ...`): the total and its parts.
fn total_and_parts(line: &str) -> (usize, usize) {
    let numbers: Vec<usize> = line.split(|c: char| !c.is_ascii_digit()).filter_map(|s| s.parse().ok()).collect();
    let (total, parts) = numbers.split_first().expect("a total");
    (*total, parts.iter().sum())
}

#[test]
fn verify_summaries_add_up_and_count_function_findings_apart() {
    let out = tirproof(&["verify", &corpus("faults"), &corpus("tvm")]);
    let text = stdout(&out);
    let waits: Vec<&str> = text.lines().filter(|l| l.contains(" wait: ") || l.contains(" waits: ")).collect();
    assert!(waits.len() > 10, "{text}");
    for line in &waits {
        let (total, parts) = total_and_parts(line.trim().trim_end_matches(" only"));
        assert_eq!(total, parts, "{line}");
        assert!(!line.trim().starts_with("1 waits"), "{line}");
    }
    let findings: Vec<&str> = text.lines().filter(|l| l.contains("function-level finding")).collect();
    assert!(!findings.is_empty(), "{text}");
    for line in findings {
        let (total, parts) = total_and_parts(line.replace("(not about one wait)", "").trim());
        assert_eq!(total, parts, "{line}");
    }
    assert!(text.contains("\ntotal: "), "{text}");
    let note = "note: data flow is not checked (no provenance in the input); race freedom is checked\n";
    assert_eq!(text.matches(note).count(), 1, "{text}");
}

#[test]
fn smtlib_dumps_of_same_named_inputs_do_not_collide_and_say_what_they_ask() {
    let dir = scratch();
    let program = fs::read_to_string(corpus("tvm/seed_c_after_pipeline.py")).expect("read");
    for sub in ["a", "b"] {
        fs::create_dir(dir.path().join(sub)).expect("mkdir");
        fs::write(dir.path().join(sub).join("x.py"), &program).expect("write");
    }
    let dumps = dir.path().join("dumps");
    let inputs = [show(&dir.path().join("a/x.py")), show(&dir.path().join("b/x.py"))];
    let out = tirproof(&["verify", &inputs[0], &inputs[1], "--smtlib", &show(&dumps)]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let files: Vec<(String, String)> = fs::read_dir(&dumps)
        .expect("list")
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), fs::read_to_string(e.path()).expect("read")))
        .collect();
    for input in &inputs {
        let of_input = files.iter().filter(|(_, text)| text.starts_with(&format!("; input: {input}\n"))).count();
        assert_eq!(of_input * 2, files.len(), "{input}");
    }
    let probes: Vec<&(String, String)> = files.iter().filter(|(name, _)| name.contains("tightness_probe")).collect();
    assert!(!probes.is_empty());
    for (name, text) in &files {
        assert!(text.contains("; function: main\n") && text.contains("; query: "), "{name}");
        assert_eq!(name.contains("tightness_probe"), text.contains("; kind: tightness probe"), "{name}");
    }
    // The refutation is the dump named and headed as one.
    assert!(files.iter().any(|(name, text)| name.contains("_check_refuted") && text.contains("; answer: sat")));
}

/// Runs `args` with the corpus file `program` as standard input.
fn with_stdin(args: &[&str], program: &str) -> Output {
    let file = fs::File::open(corpus(program)).expect("open");
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).stdin(file).output().expect("the binary runs")
}

#[test]
fn opt_list_needs_no_file_and_dash_reads_stdin() {
    let out = tirproof(&["opt", "--list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("inject-software-pipeline"));
    let out = with_stdin(&["fmt", "-"], "tvm/seed_a_after_flatten_cse.py");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("@I.ir_module"));
    let out = with_stdin(&["check", "-"], "text/errors/missing_colon.py");
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("<stdin>:10:22: error: missing `:`"), "{}", stderr(&out));
    // Corpus cases name other files in their expectations: standard input is not one.
    assert_eq!(code(&with_stdin(&["corpus", "-"], "text/errors/missing_colon.py")), 2);
}

#[test]
fn run_reference_says_one_line_on_success_and_each_fault_once() {
    let dir = scratch();
    let input = corpus("pipeline/rfc_c_interleaved.py");
    let out = tirproof(&["opt", &input, "--passes", "inject-software-pipeline"]);
    let good = dir.path().join("good.py");
    fs::write(&good, &out.stdout).expect("write");
    let out = tirproof(&["run", &show(&good), "--reference", &input]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    // The seed line, then the one line of the verdict.
    assert_eq!(stderr(&out).lines().count(), 2, "{}", stderr(&out));
    assert!(stderr(&out).starts_with("seed 0 "), "{}", stderr(&out));
    let printed = tirproof(&["run", &show(&good), "--reference", &input, "--print"]);
    assert!(stdout(&printed).lines().count() > 1, "{}", stdout(&printed));

    let bad = dir.path().join("bad.py");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let loose = fs::read_to_string(&good)
        .expect("read")
        .replace("\"async_wait_inflight_count\": 5", "\"async_wait_inflight_count\": 6");
    assert!(text.is_empty());
    fs::write(&bad, loose).expect("write");
    let out = tirproof(&["run", &show(&bad), "--reference", &input]);
    assert_eq!(code(&out), 1);
    assert_eq!(stderr(&out).matches("while an async write to it is pending").count(), 1, "{}", stderr(&out));
}

/// The corpus totals count each wait once under its verdict and the function-level findings
/// apart: the parts of each clause add up to its total.
#[test]
fn corpus_totals_add_up() {
    let out = tirproof(&["corpus", &corpus("verify")]);
    let text = stdout(&out);
    let line = text.lines().find(|l| l.starts_with("verified ")).expect("a totals line");
    let numbers = |clause: &str| -> Vec<usize> {
        clause.split(|c: char| !c.is_ascii_digit()).filter_map(|s| s.parse().ok()).collect()
    };
    let (waits, findings) = line.split_once("; ").expect("function-level findings apart from the waits");
    let (_, waits) = waits.split_once(": ").expect("`verified N programs: ...`");
    for clause in [waits, findings] {
        let n = numbers(clause);
        assert!(n.len() >= 3, "{clause}");
        assert_eq!(n[0], n[1..].iter().sum::<usize>(), "the parts add up: {clause}");
    }
}

/// `verify --budget` bounds the time per function: spent at once, every wait is unknown (not
/// refuted) and the exit code says the input was not proved; a generous one proves it.
#[test]
fn a_spent_verify_budget_leaves_waits_unknown_and_exits_one() {
    let seed = corpus("tvm/seed_a_after_pipeline.py");
    let spent = tirproof(&["verify", "--budget", "0s", &seed]);
    assert_eq!(code(&spent), 1, "{}", stdout(&spent));
    assert!(stdout(&spent).contains("0 refuted, 2 unknown"), "{}", stdout(&spent));
    let generous = tirproof(&["verify", "--budget", "10m", &seed]);
    assert_eq!(code(&generous), 0, "{}", stdout(&generous));
}

/// `verify --json` is one document with a schema version, a summary that adds up, and the
/// functions' reports.
#[test]
fn verify_json_has_a_schema_version_and_a_summary() {
    let out = tirproof(&[
        "verify",
        "--json",
        &corpus("tvm/seed_c_after_pipeline.py"),
        &corpus("tvm/seed_a_after_pipeline.py"),
    ]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["summary"]["files"], 2);
    assert_eq!(doc["summary"]["all_proved"], false, "seed c's count is refuted");
    assert_eq!(code(&out), 1);
    let functions = doc["functions"].as_array().expect("functions");
    assert_eq!(functions.len(), 2);
    let waits: u64 = functions.iter().map(|f| f["tally"]["waits"].as_u64().unwrap()).sum();
    assert_eq!(doc["summary"]["tally"]["waits"].as_u64(), Some(waits));
    assert!(functions.iter().all(|f| f["report"]["waits"].is_array()));
}
