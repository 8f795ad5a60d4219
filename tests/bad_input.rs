//! Malformed input files as the command line meets them: bytes that are not UTF-8, odd line
//! ends, control characters, and directory trees with things that are not regular files.
//! Each is the input's problem, so a located diagnostic and exit 1, never a hang or exit 2.

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
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("{file}:3:13: error: invalid UTF-8: expected UTF-8 text, found byte 0xe9")), "{err}");
}

#[test]
fn echoed_lines_carry_no_terminal_escapes() {
    let (out, _) = check_bytes(b"@T.prim_func\ndef main():\n    x = \"\x1b[2J\x1b]0;pwned\x07\" $\n");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
    assert!(err.contains(r#"x = "\x1b[2J\x1b]0;pwned\x07" $"#), "{err}");
}
