//! The nvgpu reader on corpus/nvgpu: every program gets the verdict its README states (safe:
//! every wait proved, nothing refuted; unsafe: something refuted), each safe program with a
//! raised `numGroups` that really is unsafe is refuted, the NVVM lowerings (no nvgpu ops left)
//! are refused at their first unmodelled use of workgroup memory, threads come from
//! `gpu.known_block_size`, and broken inputs give located errors, never a panic.

use std::fs;
use std::path::{Path, PathBuf};

use tirproof_foreign::{import, Dialect};
use tirproof_ir::Diagnostics;
use tirproof_verify::waits::{verify_func, FuncReport, Options};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/nvgpu").join(name)
}

fn read(name: &str) -> String {
    fs::read_to_string(corpus(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn verify(name: &str, text: &str) -> Vec<FuncReport> {
    let module = import(text, Dialect::Nvgpu).unwrap_or_else(|d| panic!("{name} imports: {}", d.render(name, text)));
    assert!(!module.module.functions.is_empty(), "{name}: no function");
    module
        .module
        .functions
        .iter()
        .map(|f| verify_func(f, &Options { tightness: false, ..Options::default() }).0)
        .collect()
}

/// The README's verdict of each file: `true` for safe.
fn expected_verdicts() -> Vec<(String, bool)> {
    let readme = read("README.md");
    let rows: Vec<(String, bool)> = readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let file = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let verdict = cells.get(3)?;
            let safe = if verdict.starts_with("Safe") {
                true
            } else if verdict.starts_with("Unsafe") {
                false
            } else {
                return None;
            };
            Some((file.to_owned(), safe))
        })
        .collect();
    assert!(rows.len() >= 10, "the README lists every file: {rows:?}");
    rows
}

/// Safe programs that end with groups still in flight: the verifier refutes that at the
/// function's end (zero-filling copies of the predicated pipeline that no wait follows), which
/// is a finding about the whole function, not about a wait.
const ENDS_IN_FLIGHT: &[&str] = &["copy_loop_pipelined_predicated.mlir"];

fn is_left_in_flight(message: &str) -> bool {
    message.contains("are committed but only") && message.contains("when the function ends")
}

fn assert_safe(name: &str, reports: &[FuncReport]) {
    for r in reports {
        assert!(!r.waits.is_empty(), "{name}: no wait");
        assert!(r.unknown.is_empty(), "{name}: undecided: {:?}", r.unknown);
        for w in &r.waits {
            assert!(w.verdict.is_proved(), "{name}: {w}");
        }
        if ENDS_IN_FLIGHT.contains(&name) {
            assert_eq!(r.findings.len(), 1, "{name}: {:?}", r.findings);
            assert!(is_left_in_flight(&r.findings[0].message), "{name}: {:?}", r.findings);
        } else {
            assert!(r.findings.is_empty(), "{name}: {:?}", r.findings);
        }
    }
}

fn refuted_waits(reports: &[FuncReport]) -> Vec<u32> {
    reports.iter().flat_map(|r| r.waits.iter().filter(|w| w.verdict.is_refuted()).map(|w| w.line)).collect()
}

#[test]
fn every_program_has_the_verdict_of_the_readme() {
    let mut files: Vec<String> = fs::read_dir(corpus(""))
        .expect("corpus/nvgpu")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".mlir") && !n.ends_with("_nvvm.mlir"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    let verdicts = expected_verdicts();
    for name in &files {
        let safe = verdicts.iter().find(|(f, _)| f == name).map(|(_, s)| *s);
        let safe = safe.unwrap_or_else(|| panic!("{name} is not in the README"));
        let reports = verify(name, &read(name));
        if safe {
            assert_safe(name, &reports);
        } else {
            let refuted = !refuted_waits(&reports).is_empty() || reports.iter().any(|r| !r.findings.is_empty());
            assert!(refuted, "{name} is unsafe but nothing is refuted: {reports:?}");
        }
    }
}

#[test]
fn the_copy_token_never_committed_is_refuted_at_its_wait() {
    let reports = verify("wait_copy_token.mlir", &read("wait_copy_token.mlir"));
    assert_eq!(refuted_waits(&reports), vec![7], "{reports:?}");
}

/// `text` with the wait on line `line` made to leave one more group in flight.
fn raise_wait(text: &str, line: usize) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let l = &mut lines[line - 1];
    assert!(l.contains("nvgpu.device_async_wait"), "line {line} is no wait: {l}");
    if let Some(at) = l.find("numGroups = ") {
        let rest = &l[at + "numGroups = ".len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let count: i64 = digits.parse().expect("a count");
        let end = at + "numGroups = ".len() + digits.len();
        *l = format!("{}numGroups = {}{}", &l[..at], count + 1, &l[end..]);
    } else {
        l.push_str(" {numGroups = 1 : i32}");
    }
    lines.join("\n") + "\n"
}

#[test]
fn each_proof_has_a_refuted_twin_with_one_more_group_in_flight() {
    // (file, line of a wait whose raised count lets a read see a copy in flight)
    let twins = [
        ("single_copy.mlir", 8),
        ("wait_copy_token_grouped.mlir", 8),
        ("copy_loop.mlir", 12),
        ("double_buffer_safe.mlir", 20),
        ("copy_loop_pipelined_peeled.mlir", 23),
        ("copy_loop_pipelined_peeled.mlir", 57),
        ("copy_loop_pipelined_peeled.mlir", 60),
        ("copy_loop_pipelined_predicated.mlir", 28),
    ];
    let verdicts = expected_verdicts();
    for (name, _) in verdicts.iter().filter(|(n, safe)| *safe && !n.ends_with("_nvvm.mlir")) {
        assert!(twins.iter().any(|(t, _)| t == name), "{name} has no refuted twin");
    }
    for (name, line) in twins {
        let text = read(name);
        assert_safe(name, &verify(name, &text));
        let mutant = raise_wait(&text, line);
        let reports = verify(name, &mutant);
        let refuted = refuted_waits(&reports);
        assert!(refuted.contains(&(line as u32)), "{name} with the wait at line {line} raised: {reports:?}");
    }
}

fn import_error(text: &str) -> Diagnostics {
    match import(text, Dialect::Nvgpu) {
        Ok(m) => panic!("imported, expected an error:\n{}", m.tir),
        Err(d) => d,
    }
}

fn first_line(d: &Diagnostics) -> u32 {
    let first = d.iter().next().expect("a diagnostic");
    first.span.line
}

#[test]
fn the_nvvm_lowerings_are_refused_at_their_first_use_of_workgroup_memory() {
    for (name, line) in [("double_buffer_safe_nvvm.mlir", 15), ("wait_copy_token_nvvm.mlir", 8)] {
        let text = read(name);
        let d = import_error(&text);
        assert_eq!(first_line(&d), line, "{name}: {}", d.render(name, &text));
        assert!(d.render(name, &text).contains("does not model"), "{name}: {}", d.render(name, &text));
    }
}

#[test]
fn broken_inputs_give_located_errors() {
    let text = read("double_buffer_safe.mlir");
    let lines: Vec<&str> = text.lines().collect();
    // Truncated in the middle of the loop.
    let truncated = lines[..18].join("\n");
    let d = import_error(&truncated);
    assert!(first_line(&d) >= 1, "{}", d.render("truncated", &truncated));
    // The loop's `}` deleted.
    let without_brace: Vec<&str> = lines.iter().enumerate().filter(|(i, _)| *i != 24).map(|(_, l)| *l).collect();
    assert_eq!(lines[24].trim(), "}");
    let without_brace = without_brace.join("\n");
    let d = import_error(&without_brace);
    assert!(first_line(&d) >= 1, "{}", d.render("brace", &without_brace));
    // An op tirproof does not know, on a workgroup memref.
    let mut with_unknown: Vec<&str> = lines.clone();
    with_unknown.insert(10, "    %u = mydialect.frob %alloc : memref<2x4xf32, #gpu.address_space<workgroup>> -> index");
    let with_unknown = with_unknown.join("\n");
    let d = import_error(&with_unknown);
    assert_eq!(first_line(&d), 11, "{}", d.render("unknown", &with_unknown));
    assert!(d.render("unknown", &with_unknown).contains("mydialect.frob"));
    // A copy of a dynamic shape.
    let dynamic = read("single_copy.mlir").replace("%arg0: memref<64xf32>", "%arg0: memref<?xf32>");
    let d = import_error(&dynamic);
    assert_eq!(first_line(&d), 3, "{}", d.render("dynamic", &dynamic));
}

const PER_THREAD: &str = r#"module {
  gpu.module @kernels {
    gpu.func @per_thread(%arg0: memref<1024xf32>) kernel attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
      %c4 = arith.constant 4 : index
      %alloc = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
      %tx = gpu.thread_id  x
      %i = arith.muli %tx, %c4 : index
      %0 = nvgpu.device_async_copy %arg0[%i], %alloc[%i], 4 : memref<1024xf32> to memref<128xf32, #gpu.address_space<workgroup>>
      %1 = nvgpu.device_async_create_group %0
      nvgpu.device_async_wait %1 {numGroups = 0 : i32}
      %2 = vector.load %alloc[%i] : memref<128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      gpu.return
    }
  }
}
"#;

#[test]
fn threads_come_from_the_known_block_size() {
    let module =
        import(PER_THREAD, Dialect::Nvgpu).unwrap_or_else(|d| panic!("{}", d.render("per_thread", PER_THREAD)));
    assert!(module.tir.contains("T.launch_thread(\"threadIdx.x\", 32)"), "{}", module.tir);
    assert_safe("per_thread", &verify("per_thread", PER_THREAD));
    let raised = raise_wait(PER_THREAD, 10);
    assert_eq!(refuted_waits(&verify("per_thread", &raised)), vec![10]);
    let unknown = PER_THREAD.replace(" attributes {gpu.known_block_size = array<i32: 32, 1, 1>}", "");
    let d = import_error(&unknown);
    assert_eq!(first_line(&d), 6, "{}", d.render("unknown", &unknown));
    assert!(d.render("unknown", &unknown).contains("block size is unknown"));
}
