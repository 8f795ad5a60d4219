//! Every corpus program the lowering pipeline accepts is lowered to PTX; the ones codegen
//! cannot lower are listed with their reason, and must be exactly the expected ones.
//! Every emitted module parses back to one that prints the same text. The `tirproof ptx`
//! command writes what codegen makes, for both architectures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tirproof::source::{expand_paths, Source};
use tirproof_ptx::module::{print, Line, Op};
use tirproof_ptx::parse::parse;
use tirproof_ptx::{lower_module, lower_tir, Arch};

/// Programs codegen refuses, by file name, with a word of the reason.
const NOT_LOWERED: [(&str, &str); 1] = [("calls_and_effects.py", "the call `sqrt`")];

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let dirs: Vec<PathBuf> = ["pipeline", "rfc", "tvm", "lowering", "cse"].iter().map(|d| root.join(d)).collect();
    expand_paths(&dirs).expect("the corpus lists")
}

#[test]
fn corpus_programs_lower_to_ptx_or_say_why() {
    let mut lowered = 0;
    let mut refused = Vec::new();
    for file in corpus_files() {
        let src = Source::read(&file).expect("reads");
        let Ok(mut module) = src.parse_and_check() else { continue };
        if lower_tir(&mut module).is_err() {
            continue;
        }
        match lower_module(&module, Arch::Sm80) {
            Ok(out) => {
                let text = print(&out.module).expect("sm_80 has every feature we use");
                assert!(text.contains(".target sm_80"), "{}", file.display());
                // print(parse(print(m))) == print(m)
                let parsed = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                assert_eq!(print(&parsed.module).expect("prints"), text, "{}", file.display());
                lowered += 1;
            }
            Err(error) => refused.push((file.file_name().unwrap_or_default().to_string_lossy().to_string(), error)),
        }
    }
    for (name, error) in &refused {
        println!("not lowered: {name}: {error}");
    }
    println!("{lowered} corpus programs lowered to PTX, {} not", refused.len());
    assert!(lowered >= 70, "only {lowered} programs lowered");
    let names: Vec<&str> = refused.iter().map(|(n, _)| n.as_str()).collect();
    let expected: Vec<&str> = NOT_LOWERED.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, expected);
    for ((_, error), (_, why)) in refused.iter().zip(NOT_LOWERED) {
        assert!(error.to_string().contains(why) && error.span.is_known(), "{error}");
    }
}

/// The wait counts of a kernel, in program order.
fn waits(file: &str) -> Vec<String> {
    let src = Source::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(file)).expect("reads");
    let mut module = src.parse_and_check().expect("checks");
    lower_tir(&mut module).expect("lowers");
    let out = lower_module(&module, Arch::Sm80).expect("codegen");
    let body = out.module.kernels.iter().flat_map(|k| k.body.iter());
    body.filter_map(|line| match line {
        Line::Inst(inst) if matches!(inst.op, Op::CpAsyncWaitGroup(_)) => Some(inst.to_string()),
        _ => None,
    })
    .collect()
}

#[test]
fn constant_waits_keep_their_counts_and_copies_become_cp_async() {
    assert_eq!(waits("pipeline/thread_binding_exchange.py"), ["cp.async.wait_group 1;", "cp.async.wait_group 0;"]);
    let ptx = ptx_cli(&["pipeline/vector_copy.py"]);
    let text = String::from_utf8_lossy(&ptx.stdout);
    assert!(text.contains("cp.async.cg.shared.global") && text.contains(", 16;"), "{text}");
}

#[test]
fn several_queues_wait_for_every_group() {
    // PTX has one group FIFO: a count of one TIR queue cannot be translated, so every wait
    // waits for all groups, never less.
    let waits = waits("pipeline/rfc_b_two_queues.py");
    assert!(!waits.is_empty() && waits.iter().all(|w| w == "cp.async.wait_group 0;"), "{waits:?}");
}

fn ptx_cli(args: &[&str]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut full: Vec<String> = vec!["ptx".into(), root.join(args[0]).display().to_string()];
    full.extend(args[1..].iter().map(|a| a.to_string()));
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(&full).output().expect("the binary runs")
}

#[test]
fn ptx_command_writes_the_target_and_reports_what_it_cannot_lower() {
    let dir = tempfile::tempdir().expect("scratch");
    let out_file = dir.path().join("out.ptx");
    let out_arg = out_file.display().to_string();
    let out = ptx_cli(&["tvm/seed_a_tx_after_pipeline.py", "--arch", "sm_90", "-o", &out_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&out_file).expect("written");
    assert!(text.contains(".version 7.8\n.target sm_90\n.address_size 64"), "{text}");
    assert!(text.contains(".reqntid 32, 1, 1") && text.contains("mov.u32 %r0, %tid.x;"), "{text}");

    let refused = ptx_cli(&["cse/calls_and_effects.py"]);
    // A statement the lowering cannot lower is bad input.
    assert_eq!(refused.status.code(), Some(4));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("calls_and_effects.py:10:5: error: cannot lower the call `sqrt` to PTX"), "{err}");

    let bad_arch = ptx_cli(&["pipeline/vector_copy.py", "--arch", "sm_70"]);
    assert_eq!(bad_arch.status.code(), Some(2));
}

#[test]
fn a_count_bounded_by_its_loops_becomes_a_saturating_chain() {
    // `T.min(...)` of a loop variable: at most 1, so `@p cp.async.wait_group 0` for counts up
    // to 0 and `@q cp.async.wait_group 1` for 1 and more; the emulator test runs it.
    let waits = waits("verify/inner_loop_waits_min_clean.py");
    assert!(waits.iter().any(|w| w.starts_with("@%p") && w.ends_with("cp.async.wait_group 0;")), "{waits:?}");
    assert!(waits.iter().any(|w| w.starts_with("@%p") && w.ends_with("cp.async.wait_group 1;")), "{waits:?}");
}
