//! `.npy` inputs of `run` and `run --ptx` as a hostile or careless user gives them: headers
//! with extra or nested keys, claimed lengths of gigabytes, Fortran order, big-endian, object
//! elements, shapes that do not match. Both paths read through the one bounded reader; each
//! refusal names the file. Each test runs the built binary.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn corpus(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(path).display().to_string()
}

fn show(path: &Path) -> String {
    path.display().to_string()
}

/// Runs the binary through `sh -c` (for `ulimit`), killed after `limit`.
fn tirproof_within(limit: Duration, shell_prefix: &str, args: &[String]) -> Output {
    let mut command = Command::new("sh");
    command.arg("-c").arg(format!("{shell_prefix} exec \"$0\" \"$@\"")).arg(env!("CARGO_BIN_EXE_tirproof"));
    let mut child = command.args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the binary runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            child.kill().expect("kill");
            let _ = child.wait();
            panic!("tirproof {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn tirproof(args: &[String]) -> Output {
    tirproof_within(Duration::from_secs(60), "", args)
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A version-1.0 `.npy` file of `header` (padded as numpy pads it) and `data`.
fn npy(header: &str, data: &[u8]) -> Vec<u8> {
    let mut text = header.as_bytes().to_vec();
    while !(10 + text.len() + 1).is_multiple_of(64) {
        text.push(b' ');
    }
    text.push(b'\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&u16::try_from(text.len()).expect("short").to_le_bytes());
    bytes.extend_from_slice(&text);
    bytes.extend_from_slice(data);
    bytes
}

fn f32_le(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// The 64-element float32 copy kernel of `corpus/pipeline/vector_copy.py` as PTX, its output
/// buffer's file, and a scratch directory.
struct Copy {
    dir: tempfile::TempDir,
    ptx: PathBuf,
    output: PathBuf,
}

impl Copy {
    fn new() -> Copy {
        let dir = tempfile::Builder::new().prefix("tirproof-cli-npy-").tempdir().expect("scratch dir");
        let ptx = dir.path().join("k.ptx");
        let program = corpus("pipeline/vector_copy.py");
        let out = tirproof(&["ptx".into(), program.clone(), "-o".into(), show(&ptx)]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let out = tirproof(&["run".into(), program, "--output".into(), show(&dir.path().join("tir"))]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let output = dir.path().join("tir").join("C.npy");
        Copy { dir, ptx, output }
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.path().join(name);
        fs::write(&path, bytes).expect("write");
        path
    }

    /// `run --ptx` with `input` as the kernel's first buffer, the result in `out` (if given).
    fn ptx_args(&self, input: &Path, out: Option<&str>) -> Vec<String> {
        let mut args: Vec<String> = vec!["run".into(), "--ptx".into(), show(&self.ptx)];
        args.extend(["--input".into(), format!("A={}", show(input))]);
        args.extend(["--input".into(), format!("C={}", show(&self.output))]);
        if let Some(out) = out {
            args.extend(["--output".into(), show(&self.dir.path().join(out))]);
        }
        args
    }

    /// `run` of the TIR program with `input` as its buffer `A`.
    fn tir_args(&self, input: &Path) -> Vec<String> {
        vec!["run".into(), corpus("pipeline/vector_copy.py"), "--input".into(), format!("A={}", show(input))]
    }

    /// The kernel's output buffer after `run --ptx` wrote it into `out`.
    fn ptx_output(&self, out: &str) -> Vec<u8> {
        fs::read(self.dir.path().join(out).join("C.npy")).expect("the output")
    }
}

/// A 224-byte file whose header has an extra key with a value nested 30 deep took time
/// doubling with each level (npyz's parser: 35 s at 18 levels, still running at 30); the
/// extra key is now refused where it starts, on both paths.
#[test]
fn a_nested_extra_header_key_is_refused_at_once_on_both_paths() {
    let copy = Copy::new();
    let depth = 30;
    let header = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': (64,), 'x': {}{}}}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let file = copy.file("nested.npy", &npy(&header, &f32_le((0..64).map(|i| i as f32))));
    assert!(fs::metadata(&file).expect("stat").len() <= 512);
    for args in [copy.tir_args(&file), copy.ptx_args(&file, None)] {
        let out = tirproof_within(Duration::from_secs(20), "", &args);
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        let message = stderr(&out);
        assert!(message.contains(&show(&file)) && message.contains("unknown key 'x'"), "{message}");
    }
}

/// numpy writes a transposed array with `fortran_order: True`; it was read as C order (exit 0,
/// permuted values). A Fortran-order file and the C-order file of the same array now give the
/// kernel the same buffer, and so do big-endian and little-endian elements (big-endian was
/// refused).
#[test]
fn fortran_order_and_big_endian_files_give_the_values_they_hold() {
    let copy = Copy::new();
    let values: Vec<f32> = (0..64).map(|i| i as f32).collect();
    // The array a[i][j] = 8i + j of shape (8, 8), in C order and in Fortran order (j slowest).
    let c_order = copy
        .file("c.npy", &npy("{'descr': '<f4', 'fortran_order': False, 'shape': (8, 8), }", &f32_le(values.clone())));
    let fortran: Vec<f32> = (0..64).map(|k| ((k % 8) * 8 + k / 8) as f32).collect();
    let f_order =
        copy.file("f.npy", &npy("{'descr': '<f4', 'fortran_order': True, 'shape': (8, 8), }", &f32_le(fortran)));
    let big: Vec<u8> = values.iter().flat_map(|v| v.to_be_bytes()).collect();
    let big_endian = copy.file("be.npy", &npy("{'descr': '>f4', 'fortran_order': False, 'shape': (8, 8), }", &big));
    for (file, out) in [(&c_order, "c"), (&f_order, "f"), (&big_endian, "be")] {
        let run = tirproof(&copy.ptx_args(file, Some(out)));
        assert_eq!(code(&run), 0, "{}", stderr(&run));
    }
    assert!(copy.ptx_output("f") == copy.ptx_output("c"), "the Fortran-order input was misread");
    assert!(copy.ptx_output("be") == copy.ptx_output("c"), "the big-endian input was misread");
}

/// Object elements, a shape other than the buffer's and data shorter than the shape were
/// reported as "more data than the buffer" or "failed to fill whole buffer"; each refusal now
/// names the file and what was expected.
#[test]
fn files_that_do_not_hold_the_buffer_are_refused_saying_what_was_expected() {
    let copy = Copy::new();
    let data = f32_le((0..64).map(|i| i as f32));
    let cases = [
        (
            "object.npy",
            npy("{'descr': '|O', 'fortran_order': False, 'shape': (64,), }", &[0; 512]),
            "object arrays (descr '|O')",
        ),
        (
            "shape.npy",
            npy("{'descr': '<f4', 'fortran_order': False, 'shape': (65,), }", &data),
            "the file's shape is [65], the buffer's is [64]",
        ),
        (
            "short.npy",
            npy("{'descr': '<f4', 'fortran_order': False, 'shape': (64,), }", &data[..200]),
            "the data ends after 200 bytes, but shape [64] of float32 needs 256",
        ),
        (
            "type.npy",
            npy("{'descr': '<i4', 'fortran_order': False, 'shape': (64,), }", &data),
            "holds int32 elements (descr '<i4'), the buffer is float32",
        ),
    ];
    for (name, bytes, expected) in cases {
        let file = copy.file(name, &bytes);
        let out = tirproof(&copy.tir_args(&file));
        assert_eq!(code(&out), 2, "{name}: {}", stderr(&out));
        let message = stderr(&out);
        assert!(message.contains(&show(&file)) && message.contains(expected), "{name}: {message}");
    }
    let short =
        copy.file("short_ptx.npy", &npy("{'descr': '<f4', 'fortran_order': False, 'shape': (64,), }", &data[..8]));
    let out = tirproof(&copy.ptx_args(&short, None));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("the data ends after 8 bytes"), "{}", stderr(&out));
}

/// A version-2 header claiming 4 GiB was allocated on the `run --ptx` path (an abort under a
/// 2 GB address-space limit; the TIR path checked it): both paths now refuse it before reading.
#[cfg(unix)]
#[test]
fn a_header_claiming_gigabytes_is_refused_before_it_is_allocated_on_both_paths() {
    let copy = Copy::new();
    let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
    bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    bytes.push(b'{');
    let file = copy.file("huge.npy", &bytes);
    for args in [copy.ptx_args(&file, None), copy.tir_args(&file)] {
        let out = tirproof_within(Duration::from_secs(60), "ulimit -v 2000000;", &args);
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        let message = stderr(&out);
        assert!(
            message.contains(&show(&file)) && message.contains("4294967295 bytes long (at most 65536)"),
            "{message}"
        );
    }
}
