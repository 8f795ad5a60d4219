//! `tirproof run --engine ptx` and `tirproof run --ptx FILE.ptx`, run as a user runs them: the
//! PTX path computes the interpreter's outputs bitwise under every schedule, a loosened wait in
//! PTX text faults under lazy only, and bad PTX, kernel names, launch shapes and arguments are
//! errors at a `file:line:col` of the PTX (or naming the flag), never a panic; flags a mode
//! does not take are usage errors, and `--seed` orders the threads of PTX text too. The PTX of
//! a program file carries its TIR lines, so an engine fault names the interpreter's statement.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tirproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).output().expect("the binary runs")
}

fn corpus(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(path).display().to_string()
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("tirproof-ptx-run-").tempdir().expect("scratch dir")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn show(path: &Path) -> String {
    path.display().to_string()
}

/// Runs `tirproof` and asserts it succeeded.
fn succeeds(args: &[&str]) -> Output {
    let out = tirproof(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    out
}

/// Runs `tirproof`, asserts it failed with exit 1, and returns its stderr.
fn fails(args: &[&str]) -> String {
    let out = tirproof(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
    stderr(&out)
}

/// Runs `tirproof`, asserts it refused its input with exit 4 (bad input: PTX, a launch or a
/// program the lowering or the emulator does not take), and returns its stderr.
fn rejects(args: &[&str]) -> String {
    let out = tirproof(args);
    assert_eq!(out.status.code(), Some(4), "{args:?}: {}", stderr(&out));
    stderr(&out)
}

const PROGRAMS: [&str; 3] =
    ["pipeline/vector_copy.py", "pipeline/rfc_c_adjacent.py", "lowering/chain_pipelined_vector_copy.py"];
const SCHEDULES: [&str; 3] = ["lazy", "eager", "random:5"];

#[test]
fn the_ptx_engine_writes_the_interpreters_outputs_under_every_schedule() {
    let dir = scratch();
    for program in PROGRAMS {
        for schedule in SCHEDULES {
            let out = |engine: &str| {
                let out = dir.path().join(format!("{engine}-{schedule}"));
                let path = corpus(program);
                succeeds(&["run", &path, "--engine", engine, "--schedule", schedule, "--output", &show(&out)]);
                out
            };
            let (interpreted, emulated) = (out("interpreter"), out("ptx"));
            let mut files: Vec<PathBuf> =
                fs::read_dir(&interpreted).expect("outputs").map(|e| e.expect("an entry").path()).collect();
            files.sort();
            assert!(!files.is_empty());
            for file in files {
                let name = file.file_name().expect("a name");
                let same = fs::read(&file).ok() == fs::read(emulated.join(name)).ok();
                assert!(same, "{program} under {schedule}: {name:?} differs");
            }
            let reference = succeeds(&["run", &corpus(program), "--engine", "ptx", "--reference", &corpus(program)]);
            assert!(stderr(&reference).contains("bitwise equal"), "{}", stderr(&reference));
        }
    }
}

#[test]
fn a_program_that_cannot_be_lowered_is_a_located_error() {
    let dir = scratch();
    let file = dir.path().join("call.py");
    let text = "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    A[0] = T.tanh(A[1])\n";
    fs::write(&file, text).expect("writes");
    let message = rejects(&["run", &show(&file), "--engine", "ptx"]);
    assert!(message.contains("call.py:5:"), "{message}");
}

/// The PTX of `vector_copy.py`, the interpreter's outputs on it as kernel inputs, and a
/// scratch directory holding them.
struct Kernel {
    dir: tempfile::TempDir,
    ptx: PathBuf,
    text: String,
}

impl Kernel {
    fn new() -> Kernel {
        let dir = scratch();
        let ptx = dir.path().join("k.ptx");
        succeeds(&["ptx", &corpus("pipeline/vector_copy.py"), "-o", &show(&ptx)]);
        succeeds(&["run", &corpus("pipeline/vector_copy.py"), "--output", &show(&dir.path().join("tir"))]);
        let text = fs::read_to_string(&ptx).expect("reads");
        Kernel { dir, ptx, text }
    }

    fn tir_output(&self, name: &str) -> PathBuf {
        self.dir.path().join("tir").join(name)
    }

    /// `run --ptx FILE` with both parameters bound, and `extra` flags.
    fn args(&self, file: &Path, extra: &[&str]) -> Vec<String> {
        let mut args: Vec<String> = ["run", "--ptx", &show(file)].map(String::from).to_vec();
        for (param, buffer) in [("A", "A.npy"), ("C", "C.npy")] {
            args.extend(["--input".to_string(), format!("{param}={}", show(&self.tir_output(buffer)))]);
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    }

    /// This kernel's text with `from` replaced by `to`, written next to it.
    fn mutant(&self, name: &str, from: &str, to: &str) -> PathBuf {
        assert!(self.text.contains(from), "{from}");
        let path = self.dir.path().join(name);
        fs::write(&path, self.text.replacen(from, to, 1)).expect("writes");
        path
    }
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn ptx_text_runs_to_the_interpreters_outputs() {
    let kernel = Kernel::new();
    let out = kernel.dir.path().join("ptx");
    let args = kernel.args(&kernel.ptx, &["--grid", "1,1,1", "--block", "1,1,1", "--output", &show(&out)]);
    succeeds(&strs(&args));
    let emulated = fs::read(out.join("C.npy")).expect("the output");
    assert_eq!(Some(emulated), fs::read(kernel.tir_output("C.npy")).ok());
}

#[test]
fn a_loosened_wait_in_ptx_text_faults_under_lazy_at_its_line_and_passes_under_eager() {
    let kernel = Kernel::new();
    let loosened = kernel.mutant("loose.ptx", "cp.async.wait_group 1;", "cp.async.wait_group 2;");
    let message = fails(&strs(&kernel.args(&loosened, &[])));
    assert!(message.contains("read-pending-async") && message.contains("loose.ptx"), "{message}");
    assert!(message.contains("ld.shared"), "the read the wait no longer protects: {message}");
    succeeds(&strs(&kernel.args(&loosened, &["--schedule", "eager"])));
}

#[test]
fn bad_ptx_kernels_and_launch_shapes_are_located_errors() {
    let kernel = Kernel::new();
    let file = show(&kernel.ptx);
    let entry_line = kernel.text.lines().position(|l| l.contains(".entry")).expect("an entry") + 1;
    let at_entry = format!("k.ptx:{entry_line}:");
    let unknown = rejects(&strs(&kernel.args(&kernel.ptx, &["--kernel", "nope"])));
    assert!(unknown.contains("k.ptx:1:1: no kernel `nope` (the module has: main)"), "{unknown}");
    let block = rejects(&strs(&kernel.args(&kernel.ptx, &["--block", "2,1,1"])));
    assert!(block.contains(&at_entry) && block.contains("declared for blocks of 1,1,1"), "{block}");
    let grid = rejects(&strs(&kernel.args(&kernel.ptx, &["--grid", "1,70000,1"])));
    assert!(grid.contains(&at_entry) && grid.contains("does not fit"), "{grid}");
    let shared = rejects(&strs(&kernel.args(&kernel.ptx, &["--shared", "1000000"])));
    assert!(shared.contains(&at_entry) && shared.contains("shared memory"), "{shared}");
    let unbounded = kernel.mutant("free.ptx", ".reqntid 1, 1, 1", "");
    let too_big = rejects(&strs(&kernel.args(&unbounded, &["--block", "2048"])));
    assert!(too_big.contains("free.ptx:") && too_big.contains("does not fit"), "{too_big}");
    let garbage = kernel.mutant("bad.ptx", "cp.async.commit_group;", "cp.async.commit_group %r1 %r2;");
    let parse = rejects(&["run", "--ptx", &show(&garbage)]);
    assert!(parse.contains("bad.ptx:") && parse.split(':').nth(2).is_some_and(|l| l.parse::<u32>().is_ok()), "{parse}");
    let unbound = tirproof(&["run", "--ptx", &file]);
    assert!(stderr(&unbound).contains("`A`") && !unbound.status.success(), "{}", stderr(&unbound));
    let not_int = tirproof(&strs(&[kernel.args(&kernel.ptx, &[]), vec!["--arg".into(), "A=x".into()]].concat()));
    assert!(!not_int.status.success(), "{}", stderr(&not_int));
}

/// Four threads, each reading the shared element its neighbour writes, with no barrier between.
const NEIGHBOUR: &str = "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), Out: T.Buffer((4,), \"float32\")):\n    for tx in T.thread_binding(4, thread=\"threadIdx.x\"):\n        S = T.alloc_buffer((4,), \"float32\", scope=\"shared\")\n        S[tx] = A[tx]\n        Out[tx] = S[(tx + 1) % 4]\n";

/// The emulator runs a block's threads in the seed's order, the interpreter's: a read of a
/// neighbour's element no thread has written yet faults in whichever thread runs first, and
/// both engines name the same one for every seed (and not always the same across seeds).
#[test]
fn both_engines_run_the_threads_in_the_seeds_order() {
    let dir = scratch();
    let file = dir.path().join("neighbour.py");
    fs::write(&file, NEIGHBOUR).expect("writes");
    let faulting_thread = |engine: &str, seed: &str| {
        let text = fails(&["run", &show(&file), "--engine", engine, "--seed", seed]);
        let at = text.find("(threadIdx.x = ").unwrap_or_else(|| panic!("{engine}, seed {seed}: {text}"));
        text[at..].chars().skip(15).take_while(char::is_ascii_digit).collect::<String>()
    };
    let mut seen = std::collections::BTreeSet::new();
    for seed in ["0", "1", "3", "4"] {
        let interpreted = faulting_thread("interpreter", seed);
        assert_eq!(faulting_thread("ptx", seed), interpreted, "seed {seed}");
        seen.insert(interpreted);
    }
    assert!(seen.len() > 1, "every seed ran the same thread first: {seen:?}");
}

/// A kernel's `.maxntid` and the launch's own shape are checked too, at the kernel's entry:
/// a block with more threads than `.maxntid` allows, a grid with an empty dimension.
#[test]
fn the_launch_check_holds_maxntid_and_refuses_an_empty_grid() {
    let kernel = Kernel::new();
    let entry_line = kernel.text.lines().position(|l| l.contains(".entry")).expect("an entry") + 1;
    let bounded = kernel.mutant("bounded.ptx", ".reqntid 1, 1, 1", ".maxntid 4, 1, 1");
    let over = rejects(&strs(&kernel.args(&bounded, &["--block", "2,3,1"])));
    let at_entry = |file: &str| format!("{file}:{entry_line}:");
    assert!(over.contains(&at_entry("bounded.ptx")), "{over}");
    assert!(over.contains("kernel `main` allows at most 4 threads a block (`.maxntid 4,1,1`), not 2,3,1"), "{over}");
    let empty = kernel.mutant("empty.ptx", "// launch: grid 1, 1, 1", "// launch: grid 0, 1, 1");
    let message = rejects(&strs(&kernel.args(&empty, &[])));
    assert!(message.contains(&at_entry("empty.ptx")) && message.contains("a grid of 0,1,1 is empty"), "{message}");
}

/// Flags that `run --ptx` has no use for, and PTX launch flags without `--ptx`, are usage
/// errors (exit 2), never ignored.
#[test]
fn flags_a_mode_does_not_take_are_usage_errors() {
    let kernel = Kernel::new();
    let program = corpus("pipeline/vector_copy.py");
    for extra in [
        vec!["--func", "main"],
        vec!["--reference", program.as_str()],
        vec!["--engine", "ptx"],
        vec!["--engine", "interpreter"],
        vec!["--print"],
        vec![program.as_str()],
    ] {
        let out = tirproof(&strs(&kernel.args(&kernel.ptx, &extra)));
        assert_eq!(out.status.code(), Some(2), "run --ptx {extra:?}: {}", stderr(&out));
    }
    for launch in [["--kernel", "main"], ["--grid", "1,1,1"], ["--block", "1,1,1"], ["--shared", "0"]] {
        let out = tirproof(&["run", &program, launch[0], launch[1]]);
        assert_eq!(out.status.code(), Some(2), "run FILE {launch:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("--ptx"), "{}", stderr(&out));
    }
}

/// `run --ptx --seed N` runs a block's threads in the seed's order, as `run --engine ptx
/// --seed N` does on the program the PTX was lowered from: the same thread faults first for
/// every seed; without `--seed` the threads run in order.
#[test]
fn ptx_text_runs_the_threads_in_the_seeds_order() {
    use tirproof_ir::dtype::DataType;
    use tirproof_machine::Tensor;
    let dir = scratch();
    let file = dir.path().join("neighbour.py");
    fs::write(&file, NEIGHBOUR).expect("writes");
    let ptx = dir.path().join("neighbour.ptx");
    succeeds(&["ptx", &show(&file), "-o", &show(&ptx)]);
    let mut args: Vec<String> = ["run", "--ptx", &show(&ptx)].map(String::from).to_vec();
    for param in ["A", "Out"] {
        let path = dir.path().join(format!("{param}.npy"));
        let tensor = Tensor::from_f64(DataType::FLOAT32, vec![4], &[1.0, 2.0, 3.0, 4.0]).expect("a tensor");
        tirproof::npy::write(&path, &tensor).expect("writes");
        args.extend(["--input".into(), format!("{param}={}", show(&path))]);
    }
    let faulting_thread = |args: &[&str]| {
        let text = fails(args);
        let at = text.find("(threadIdx.x = ").unwrap_or_else(|| panic!("{args:?}: {text}"));
        text[at..].chars().skip(15).take_while(char::is_ascii_digit).collect::<String>()
    };
    assert_eq!(faulting_thread(&strs(&args)), "0", "threads in order without --seed");
    let mut seen = std::collections::BTreeSet::new();
    for seed in ["0", "1", "3", "4"] {
        let text_run = faulting_thread(&strs(&[args.clone(), vec!["--seed".into(), seed.into()]].concat()));
        assert_eq!(text_run, faulting_thread(&["run", &show(&file), "--engine", "ptx", "--seed", seed]), "seed {seed}");
        seen.insert(text_run);
    }
    assert!(seen.len() > 1, "every seed ran the same thread first: {seen:?}");
}

/// A Triton-compiled matmul (corpus/ptx-foreign) through `tirproof run --ptx` with `.npy`
/// buffers: its output is A @ B; with its first wait loosened by one, the run stops at the
/// `ldmatrix` that reads a tile still in flight and names the wait.
#[test]
fn a_triton_matmul_runs_from_the_command_line_and_its_loosened_wait_faults() {
    use tirproof_ir::dtype::DataType;
    use tirproof_machine::Tensor;
    let dir = scratch();
    let (m, n, k) = (64usize, 64usize, 128usize);
    let a: Vec<f64> = (0..m * k).map(|i| (i % 5) as f64 - 2.0).collect();
    let b: Vec<f64> = (0..k * n).map(|i| (i % 3) as f64 - 1.0).collect();
    let write = |name: &str, dtype: DataType, values: &[f64]| {
        let path = dir.path().join(name);
        let tensor = Tensor::from_f64(dtype, vec![values.len()], values).expect("a tensor");
        tirproof::npy::write(&path, &tensor).expect("writes");
        show(&path)
    };
    let inputs = [
        format!("matmul_param_0={}", write("a.npy", DataType::FLOAT16, &a)),
        format!("matmul_param_1={}", write("b.npy", DataType::FLOAT16, &b)),
        format!("matmul_param_2={}", write("c.npy", DataType::FLOAT32, &vec![0.0; m * n])),
    ];
    let scalars = ["3=64", "4=64", "5=128", "6=128", "7=64", "8=64", "9=0", "10=0"];
    let ptx = corpus("ptx-foreign/triton_matmul_s3.ptx");
    let out = dir.path().join("out");
    let mut args: Vec<String> =
        ["run", "--ptx", &ptx, "--grid", "2,2,1", "--block", "128,1,1", "--shared", "12288"].map(String::from).to_vec();
    for input in &inputs {
        args.extend(["--input".into(), input.clone()]);
    }
    for scalar in scalars {
        args.extend(["--arg".into(), format!("matmul_param_{scalar}")]);
    }
    let with_output = [args.clone(), vec!["--output".into(), show(&out)]].concat();
    succeeds(&strs(&with_output));
    let c = tirproof::npy::read_stored(&out.join("matmul_param_2.npy")).expect("the output");
    for (at, got) in c.to_f64_vec().into_iter().enumerate() {
        let (i, j) = (at / n, at % n);
        let want: f64 = (0..k).map(|x| a[i * k + x] * b[x * n + j]).sum();
        assert_eq!(got, want, "c[{i}][{j}]");
    }
    let text = fs::read_to_string(&ptx).expect("reads");
    let loosened = dir.path().join("loosened.ptx");
    fs::write(&loosened, text.replacen("cp.async.wait_group \t2;", "cp.async.wait_group \t3;", 1)).expect("writes");
    let mut mutant = args;
    mutant[2] = show(&loosened);
    let fault = fails(&strs(&mutant));
    assert!(fault.contains("ldmatrix") && fault.contains("is pending") && fault.contains("wait_group 3"), "{fault}");
}

/// What the emulator does not model, met while running PTX text, is reported at the file's
/// line and column of the instruction that met it, not at the kernel's `.entry`.
#[test]
fn an_unsupported_access_is_located_at_its_instruction() {
    let dir = scratch();
    let kernel = ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b16 %rs<2>;\n\t.reg .b64 %rd<2>;\n\n\tld.param.u64 %rd1, [k_param_0];\n\tld.global.u8 %rs1, [%rd1];\n\tret;\n}\n";
    let ptx = dir.path().join("k.ptx");
    fs::write(&ptx, kernel).expect("writes");
    let input = dir.path().join("a.npy");
    let words =
        tirproof_machine::Tensor::from_i64(tirproof_ir::DataType::INT32, vec![4], &[1, 2, 3, 4]).expect("a tensor");
    tirproof::npy::write(&input, &words).expect("writes");
    let input_arg = format!("k_param_0={}", show(&input));
    let err = rejects(&["run", "--ptx", &show(&ptx), "--input", &input_arg]);
    let line = kernel.lines().position(|l| l.contains("ld.global.u8")).expect("the load") + 1;
    let at = format!("{}:{line}:2: unsupported: ", show(&ptx));
    assert!(err.contains(&at), "{err}");
    assert!(!err.contains(":5:"), "located at the entry: {err}");
}

/// A token program lowered by `lower-async-tokens` to a counter of commits runs on the PTX
/// emulator as the token program runs on the interpreter, under every schedule.
#[test]
fn a_counted_token_program_runs_on_ptx_like_the_token_program() {
    let dir = scratch();
    for name in ["commit_in_one_arm", "trip_count_from_memory"] {
        let original = corpus(&format!("tokens/{name}.py"));
        let out = succeeds(&["opt", &original, "--passes", "lower-async-tokens"]);
        let lowered = dir.path().join(format!("{name}.py"));
        fs::write(&lowered, &out.stdout).expect("writes the lowered program");
        for schedule in ["lazy", "eager", "random:3"] {
            let out = succeeds(&[
                "run",
                &show(&lowered),
                "--engine",
                "ptx",
                "--reference",
                &original,
                "--schedule",
                schedule,
            ]);
            let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
            assert!(said.contains("bitwise equal"), "{name} under {schedule}: {said}");
        }
    }
}

/// Every program of corpus/tokens goes to PTX through the lowering pipeline (its waits on
/// tokens become counts, a closed form or the counter of commits, and the claims are dropped)
/// and the emulator computes the interpreter's outputs bitwise under the lazy schedule, on
/// seeded random inputs.
#[test]
fn every_token_program_runs_on_the_ptx_engine_as_the_interpreter_runs_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/tokens");
    let mut files: Vec<PathBuf> =
        fs::read_dir(&dir).expect("corpus/tokens").map(|e| e.expect("entry").path()).collect();
    files.sort();
    let mut ran = 0;
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "py")) {
        let path = show(file);
        let out = succeeds(&["run", &path, "--engine", "ptx", "--schedule", "lazy", "--reference", &path]);
        assert!(stderr(&out).contains("bitwise equal"), "{path}: {}", stderr(&out));
        ran += 1;
    }
    assert!(ran >= 12, "only {ran} token programs ran");
}

/// The TIR line of the interpreter's fault: `fault: line N: ...`.
fn interpreter_fault_line(stderr: &str) -> u32 {
    let rest = stderr.split("fault: line ").nth(1).unwrap_or_else(|| panic!("no fault line in\n{stderr}"));
    rest.split(':').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no line number in\n{stderr}"))
}

#[test]
fn a_fault_on_the_ptx_engine_names_the_tir_statement_the_interpreter_faults_at() {
    // A copy read while pending (the wait lets two groups stay in flight), and a read of the
    // shared slot another thread has not written yet (element 1 of float32s: byte 4).
    for (program, place) in [("faults/read_pending_async.py", "B[0]"), ("faults/cross_thread_poison.py", "B[1]")] {
        let path = corpus(program);
        let interpreted = fails(&["run", &path]);
        let line = interpreter_fault_line(&interpreted);
        let emulated = fails(&["run", &path, "--engine", "ptx"]);
        let source = format!("source: {path}:{line}:");
        assert!(emulated.contains(&source), "{program}: no `{source}` in\n{emulated}");
        let statement = fs::read_to_string(&path)
            .expect("reads")
            .lines()
            .nth(line as usize - 1)
            .expect("the line")
            .trim()
            .to_string();
        assert!(emulated.contains(&format!("\n  {statement}\n")), "{program}: no `{statement}` in\n{emulated}");
        assert!(
            emulated.contains(&format!("read of {place}")),
            "{program}: the shared place as `{place}` in\n{emulated}"
        );
        assert!(!emulated.contains("[byte"), "{program}: a shared place as bytes in\n{emulated}");
    }
}

#[test]
fn emitted_ptx_names_the_program_file_and_from_standard_input_has_no_lines() {
    let path = corpus("faults/read_pending_async.py");
    let named = String::from_utf8(succeeds(&["ptx", &path]).stdout).expect("utf-8");
    assert!(named.contains(&format!(".file 1 \"{path}\"\n")), "{named}");
    // The loop's body statement (line 16, `C[i] = B[i % 2]`) is located at its column.
    assert!(named.contains("\t.loc 1 16 13\n"), "{named}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tirproof"))
        .args(["ptx", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let text = fs::read(&path).expect("reads");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &text).expect("writes");
    let piped = String::from_utf8(child.wait_with_output().expect("runs").stdout).expect("utf-8");
    assert!(piped.contains(".entry main(") && !piped.contains(".loc") && !piped.contains(".file"), "{piped}");
    // Run as PTX text, the emitted kernel's fault names the TIR line through its `.loc`s; a
    // shared place there is a byte offset (the text does not say which TIR buffer it holds).
    let dir = scratch();
    let (ptx, launch) = (dir.path().join("k.ptx"), dir.path().join("launch.json"));
    let poison = corpus("faults/cross_thread_poison.py");
    succeeds(&["ptx", &poison, "-o", &show(&ptx)]);
    succeeds(&["run", "--ptx", &show(&ptx), "--write-launch", &show(&launch)]);
    let run = fails(&["run", "--ptx", &show(&ptx), "--launch", &show(&launch)]);
    assert!(run.contains(&format!("source: {poison}:15:13")), "{run}");
    assert!(run.contains("read of .shared B_0[byte 4]"), "{run}");
}
