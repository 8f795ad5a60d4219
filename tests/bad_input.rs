//! Malformed input files as the command line meets them: bytes that are not UTF-8, odd line
//! ends, control characters, directory trees with things that are not regular files, and
//! flat expressions far longer than anyone writes.
//! Each is the input's problem, so a located diagnostic and exit 4 (bad input), never a hang
//! or exit 2.

use std::path::Path;
use std::process::Output;

/// `tirproof check FILE` on a file holding `bytes`.
fn check_bytes(bytes: &[u8]) -> (Output, String) {
    let dir = tempfile::tempdir().expect("scratch dir");
    let file = dir.path().join("input.py");
    std::fs::write(&file, bytes).expect("scratch file");
    let out = check(&file);
    (out, file.display().to_string())
}

fn check(path: &Path) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tirproof")).arg("check").arg(path).output().expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn invalid_utf8_is_a_located_diagnostic() {
    let (out, file) = check_bytes(b"@T.prim_func\r\ndef main():\r    x = \"caf\xe9\"\n");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains(&format!("{file}:3:13: error: invalid UTF-8: expected UTF-8 text, found byte 0xe9")), "{err}");
}

#[test]
fn echoed_lines_carry_no_terminal_escapes() {
    let (out, _) = check_bytes(b"@T.prim_func\ndef main():\n    x = \"\x1b[2J\x1b]0;pwned\x07\" $\n");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
    assert!(err.contains(r#"x = "\x1b[2J\x1b]0;pwned\x07" $"#), "{err}");
}

/// Runs `check` on `path`, failing the test if it does not finish within ten seconds.
fn check_within_seconds(path: &Path) -> Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tirproof"))
        .arg("check")
        .arg(path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while child.try_wait().expect("wait").is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().expect("kill");
            panic!("check {} hangs", path.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

const CLEAN: &str = "@T.prim_func\ndef main(A: T.Buffer((4,), \"int32\")):\n    A[0] = 1\n";

#[cfg(unix)]
#[test]
fn directory_walks_skip_symlink_loops_and_refuse_fifos() {
    let dir = tempfile::tempdir().expect("scratch dir");
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).expect("mkdir");
    std::fs::write(sub.join("a.py"), CLEAN).expect("write");
    std::os::unix::fs::symlink(dir.path(), sub.join("loop")).expect("symlink");
    std::os::unix::fs::symlink(sub.join("a.py"), sub.join("b.py")).expect("symlink");
    let out = check_within_seconds(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("2 files checked"), "a link to a file counts: {}", stderr(&out));

    let fifo = sub.join("pipe.py");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let out = check_within_seconds(dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("{} is not a regular file", fifo.display())), "{}", stderr(&out));
}

#[test]
fn a_flat_chain_of_100000_terms_parses_checks_prints_and_runs() {
    let dir = tempfile::tempdir().expect("scratch dir");
    let file = dir.path().join("chain.py");
    let chain = vec!["a"; 100_000].join(" + ");
    let text = format!("@T.prim_func\ndef main(A: T.Buffer((1,), \"int32\"), a: T.int32):\n    A[0] = {chain}\n");
    std::fs::write(&file, text).expect("write");
    let started = std::time::Instant::now();
    let tirproof = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).arg(&file).output().expect("runs")
    };
    let out = tirproof(&["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = tirproof(&["fmt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("a + a + a"));
    let out = tirproof(&["run", "--arg", "a=3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("A: int32[1] = [300000]"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "linear, not quadratic: {:?}", started.elapsed());
}
