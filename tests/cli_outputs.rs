//! Where commands write, as a user meets it: a directory named for a report or for outputs is
//! written into or refused, never replaced or moved aside; an output is never one of the
//! inputs; names of written files are bounded and plain; verdicts come before dumps; flags
//! given twice or a zero timeout are usage errors. Each test runs the built binary.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{code, show, stderr, stdout};

fn tirproof_in(dir: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tirproof"));
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    command.args(args).output().expect("the binary runs")
}

fn tirproof(args: &[&str]) -> Output {
    tirproof_in(None, args)
}

fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tirproof"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().expect("stdin").write_all(input).expect("write stdin");
    child.wait_with_output().expect("the binary ends")
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(name)
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("tirproof-cli-outputs-").tempdir().expect("scratch dir")
}

/// Every entry under `dir`, recursively, relative to it, sorted (hidden ones included).
fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).expect("list").flatten() {
            let path = entry.path();
            out.push(path.strip_prefix(root).expect("below").display().to_string());
            if path.is_dir() {
                walk(root, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// `reduce` of a program that fails `waits-tight` under the planted bug, the report into `out`.
fn reduce_into(cwd: Option<&Path>, input: &Path, out: Option<&str>) -> Output {
    let input = show(input);
    let mut args = vec!["reduce", &input, "--oracle", "waits-tight", "--planted-bug", "--budget", "20"];
    if let Some(out) = out {
        args.extend(["--out", out]);
    }
    tirproof_in(cwd, &args)
}

#[test]
fn reduce_refuses_a_directory_that_holds_other_files_and_keeps_every_one() {
    let dir = scratch();
    let out = dir.path().join("work");
    fs::create_dir_all(out.join("nested")).expect("mkdir");
    let input = out.join("program.py");
    fs::copy(data("two_stages_apart.py"), &input).expect("copy");
    fs::write(out.join("nested/notes.txt"), "mine").expect("write");
    let before = tree(dir.path());
    let result = reduce_into(None, &input, Some(&show(&out)));
    assert_eq!(code(&result), 2, "{}", stderr(&result));
    assert!(stderr(&result).contains("program.py"), "the refusal names what is there: {}", stderr(&result));
    assert_eq!(tree(dir.path()), before, "nothing was added, removed or moved");
    assert_eq!(fs::read_to_string(out.join("nested/notes.txt")).expect("kept"), "mine");
}

#[test]
fn reduce_default_out_and_dot_refuse_a_directory_of_the_user() {
    let dir = scratch();
    let mine = dir.path().join("reduced");
    fs::create_dir(&mine).expect("mkdir");
    fs::write(mine.join("results.csv"), "1,2").expect("write");
    let input = dir.path().join("program.py");
    fs::copy(data("two_stages_apart.py"), &input).expect("copy");
    let before = tree(dir.path());
    let default = reduce_into(Some(dir.path()), &input, None);
    assert_eq!(code(&default), 2, "{}", stderr(&default));
    let dot = reduce_into(Some(dir.path()), &input, Some("."));
    assert_eq!(code(&dot), 2, "{}", stderr(&dot));
    assert_eq!(tree(dir.path()), before, "no staging directory or anything else is left behind");
}

#[test]
fn reduce_out_naming_a_regular_file_is_refused_and_the_file_stays() {
    let dir = scratch();
    let file = dir.path().join("report");
    fs::write(&file, "my file").expect("write");
    let before = tree(dir.path());
    let result = reduce_into(None, &data("two_stages_apart.py"), Some(&show(&file)));
    assert_eq!(code(&result), 2, "{}", stderr(&result));
    assert!(stderr(&result).contains("not a directory"), "{}", stderr(&result));
    assert_eq!(tree(dir.path()), before);
    assert_eq!(fs::read_to_string(&file).expect("kept"), "my file");
}

#[test]
fn reduce_writes_into_its_own_report_again_and_into_an_empty_directory() {
    let dir = scratch();
    let out = dir.path().join("reduced");
    fs::create_dir(&out).expect("mkdir");
    let first = reduce_into(None, &data("two_stages_apart.py"), Some(&show(&out)));
    assert_eq!(code(&first), 1, "{}", stderr(&first));
    let files = tree(&out);
    assert!(files.contains(&"REPORT.md".to_owned()), "{files:?}");
    fs::write(out.join("REPORT.md"), "stale").expect("write");
    let again = reduce_into(None, &data("two_stages_apart.py"), Some(&show(&out)));
    assert_eq!(code(&again), 1, "{}", stderr(&again));
    assert_eq!(tree(&out), files, "the same files, nothing hidden left");
    assert_ne!(fs::read_to_string(out.join("REPORT.md")).expect("report"), "stale");
    // Reducing the report's own minimized program into its directory would overwrite the input.
    let input = out.join("minimized.py");
    let onto_input = reduce_into(None, &input, Some(&show(&out)));
    assert_eq!(code(&onto_input), 2, "{}", stderr(&onto_input));
    assert!(stderr(&onto_input).contains("is an input"), "{}", stderr(&onto_input));
}

#[test]
fn generate_smtlib_and_run_output_refuse_a_directory_of_the_user() {
    let dir = scratch();
    let mine = dir.path().join("mine");
    fs::create_dir(&mine).expect("mkdir");
    fs::write(mine.join("keep.txt"), "mine").expect("write");
    let before = tree(dir.path());
    let target = show(&mine);
    let generate = tirproof(&["generate", "--count", "2", "--out", &target]);
    assert_eq!(code(&generate), 2, "{}", stderr(&generate));
    let program = show(&corpus("tvm/seed_c_after_pipeline.py"));
    let verify = tirproof(&["verify", &program, "--smtlib", &target, "--no-tightness"]);
    assert_eq!(code(&verify), 2, "{}", stderr(&verify));
    assert!(stdout(&verify).contains("waits:"), "verdicts come before the dumps fail: {}", stdout(&verify));
    let run = tirproof(&["run", &show(&corpus("pipeline/rfc_a_async.py")), "--output", &target]);
    assert_eq!(code(&run), 2, "{}", stderr(&run));
    assert_eq!(tree(dir.path()), before);
    // Into a directory of their own kind they write.
    let generated = dir.path().join("generated");
    let first = tirproof(&["generate", "--count", "4", "--out", &show(&generated)]);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let again = tirproof(&["generate", "--count", "4", "--out", &show(&generated)]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert!(tree(&generated).iter().all(|n| n.starts_with("program-")), "{:?}", tree(&generated));
}

#[test]
fn smtlib_dump_names_of_a_long_input_path_are_bounded() {
    let dir = scratch();
    let mut deep = dir.path().to_path_buf();
    // Each component is allowed; the whole path, made a file name, is not (over 255 bytes).
    for i in 0..6 {
        deep.push(format!("a_rather_long_directory_name_number_{i}_of_six"));
    }
    fs::create_dir_all(&deep).expect("mkdir");
    let input = deep.join("seed_c_after_pipeline.py");
    fs::copy(corpus("tvm/seed_c_after_pipeline.py"), &input).expect("copy");
    let dumps = dir.path().join("dumps");
    let out = tirproof_in(
        Some(dir.path()),
        &["verify", &show(input.strip_prefix(dir.path()).expect("below")), "--smtlib", &show(&dumps)],
    );
    assert!(stdout(&out).contains("waits:"), "{}\n{}", stdout(&out), stderr(&out));
    // The program has a refuted wait (exit 1); the dumps are written (not exit 2).
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let names = tree(&dumps);
    assert!(!names.is_empty());
    assert!(names.iter().all(|n| n.len() <= 200 && n.ends_with(".smt2")), "{names:?}");
    let unique: std::collections::BTreeSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len());
}

#[test]
fn verify_json_names_every_file_with_its_diagnostics() {
    let dir = scratch();
    let bad = dir.path().join("broken.py");
    fs::write(&bad, "this is not a program(\n").expect("write");
    let good = show(&corpus("tvm/seed_c_after_pipeline.py"));
    let out = tirproof(&["verify", "--json", "--no-tightness", &show(&bad), &good]);
    // A file that does not parse is bad input, which outweighs the other file's refuted wait.
    assert_eq!(code(&out), 4, "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let files = json["files"].as_array().expect("a files array");
    assert_eq!(files.len(), 2, "{json}");
    let rejected = files.iter().find(|f| f["file"] == show(&bad)).expect("an entry for the rejected file");
    assert_eq!(rejected["status"], "rejected", "{rejected}");
    let diagnostics = rejected["diagnostics"].as_array().expect("diagnostics");
    assert!(!diagnostics.is_empty() && diagnostics[0]["line"] == 1, "{rejected}");
    let accepted = files.iter().find(|f| f["file"] == good).expect("an entry for the good file");
    assert_eq!(accepted["status"], "verified", "{accepted}");
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = scratch();
    let source = dir.path().join("k.py");
    fs::copy(corpus("pipeline/rfc_a_async.py"), &source).expect("copy");
    let before = fs::read(&source).expect("read");
    let ptx = tirproof(&["ptx", &show(&source), "-o", &show(&source)]);
    assert_eq!(code(&ptx), 2, "{}", stderr(&ptx));
    assert!(stderr(&ptx).contains("is an input"), "{}", stderr(&ptx));
    let opt = tirproof(&["opt", &show(&source), "--passes", "inject-software-pipeline", "-o", &show(&source)]);
    assert_eq!(code(&opt), 2, "{}", stderr(&opt));
    assert_eq!(fs::read(&source).expect("read"), before);
}

/// A PTX kernel that stores 7 into its buffer parameter `a`, with `name` a second one.
fn store_kernel(name: &str) -> String {
    let second = if name == "a" { String::new() } else { format!(",\n\t.param .u64 {name}") };
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 a{second}\n)\n{{\n\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\tld.param.u64 %rd1, [a];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tmov.u32 %r1, 7;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}}\n"
    )
}

fn write_npy_u32(path: &Path) {
    let mut header = "{'descr': '<u4', 'fortran_order': False, 'shape': (1,), }".to_owned();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend(u16::try_from(header.len()).expect("short").to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes.extend(0u32.to_le_bytes());
    fs::write(path, bytes).expect("write npy");
}

#[test]
fn run_ptx_reads_standard_input_and_output_names_are_plain() {
    let dir = scratch();
    let buffer = dir.path().join("a.npy");
    write_npy_u32(&buffer);
    let input = format!("a={}", show(&buffer));
    let out_dir = dir.path().join("out");
    let out = with_stdin(
        &["run", "--ptx", "-", "--input", &input, "--output", &show(&out_dir)],
        store_kernel("a").as_bytes(),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(tree(&out_dir), ["a.npy"]);
    // A parameter whose name is not a plain file name makes no hidden file.
    let dot_ptx = dir.path().join("dot.ptx");
    fs::write(&dot_ptx, store_kernel(".")).expect("write");
    let dot_input = format!(".={}", show(&buffer));
    let dot_out = dir.path().join("dot");
    let dotted = tirproof(&[
        "run",
        "--ptx",
        &show(&dot_ptx),
        "--input",
        &input,
        "--input",
        &dot_input,
        "--output",
        &show(&dot_out),
    ]);
    assert!(stderr(&dotted).contains("not a plain file name"), "{}", stderr(&dotted));
    assert_ne!(code(&dotted), 0, "{}", stderr(&dotted));
    let hidden: Vec<String> = if dot_out.exists() { tree(&dot_out) } else { Vec::new() };
    assert!(hidden.is_empty(), "{hidden:?}");
}

#[test]
fn a_flag_given_twice_for_one_name_and_a_zero_timeout_are_usage_errors() {
    let program = show(&corpus("pipeline/rfc_a_async.py"));
    let twice = tirproof(&["run", &program, "--arg", "n=1", "--arg", "n=2"]);
    assert_eq!(code(&twice), 2, "{}", stderr(&twice));
    assert!(stderr(&twice).contains("twice"), "{}", stderr(&twice));
    let dir = scratch();
    let buffer = dir.path().join("a.npy");
    write_npy_u32(&buffer);
    let ptx = dir.path().join("k.ptx");
    fs::write(&ptx, store_kernel("a")).expect("write");
    let input = format!("a={}", show(&buffer));
    let inputs_twice = tirproof(&["run", "--ptx", &show(&ptx), "--input", &input, "--input", &input]);
    assert_eq!(code(&inputs_twice), 2, "{}", stderr(&inputs_twice));
    assert!(stderr(&inputs_twice).contains("twice"), "{}", stderr(&inputs_twice));
    for flag in [["verify", "--timeout"], ["oracles", "--timeout"]] {
        let out = tirproof(&[flag[0], &program, flag[1], "0"]);
        assert_eq!(code(&out), 2, "{flag:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("invalid value"), "{flag:?}: {}", stderr(&out));
    }
}

#[test]
fn errors_name_what_the_user_named_once_and_no_temporary_file() {
    let program = show(&corpus("pipeline/rfc_a_async.py"));
    let opt = tirproof(&["opt", &program, "--passes", "inject-software-pipeline", "-o", "/nonexistent/dir/out.py"]);
    assert_eq!(code(&opt), 2);
    assert!(!stderr(&opt).contains(".tmp"), "{}", stderr(&opt));
    assert_eq!(stderr(&opt).matches("os error").count(), 1, "{}", stderr(&opt));
    let ptx = tirproof(&["ptx", &program]);
    assert_eq!(code(&ptx), 0, "{}", stderr(&ptx));
    let lines: Vec<&str> = std::str::from_utf8(&ptx.stderr).expect("utf-8").lines().collect();
    let unique: std::collections::BTreeSet<&&str> = lines.iter().collect();
    assert_eq!(unique.len(), lines.len(), "a note repeats: {lines:?}");
}
