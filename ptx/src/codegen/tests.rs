//! Codegen unit tests: small TIR programs in, PTX text properties out.

use super::*;
use crate::module::print;

fn lower_text(src: &str) -> Result<(String, Vec<Note>), LowerError> {
    let mut module = tirproof_reader::parse_module(src).expect("parses");
    lower_tir(&mut module).expect("lowers");
    let lowered = lower_module(&module, Arch::Sm80)?;
    Ok((print(&lowered.module).expect("prints"), lowered.notes))
}

#[test]
fn elementwise_float_add() {
    let (ptx, notes) = lower_text(
        "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\"), C: T.Buffer((8,), \"float32\")):\n    for i in range(8):\n        C[i] = A[i] + T.float32(1.0)\n",
    )
    .unwrap();
    assert!(notes.is_empty());
    for expected in ["add.rn.f32", "ld.global.f32", "st.global.f32", "mad.lo.s64", "cvta.to.global.u64", "ret;"] {
        assert!(ptx.contains(expected), "missing {expected} in\n{ptx}");
    }
}

const UNBOUNDED_WAIT: &str = r#"# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32"), n: T.int32):
    B = T.alloc_buffer((4,), "float32", scope="shared")
    for i in range(4):
        with T.attr({"async_commit_queue_scope": 0, "async_scope": 1}):
            B[i] = A[i]
    with T.attr({"async_wait_queue_scope": 0, "async_wait_inflight_count": n}):
        for i in range(4):
            C[i] = B[i]
"#;

#[test]
fn a_count_without_an_upper_bound_becomes_the_longest_chain_with_a_note() {
    let (ptx, notes) = lower_text(UNBOUNDED_WAIT).unwrap();
    assert!(ptx.contains("cp.async.ca.shared.global"), "{ptx}");
    // One guarded wait per value up to the clamp: the largest k not above the count runs.
    for k in 0..=MAX_WAIT_CHAIN {
        assert_eq!(ptx.matches(&format!(" cp.async.wait_group {k};")).count(), 1, "k = {k}: {ptx}");
    }
    assert!(!ptx.contains(&format!("cp.async.wait_group {};", MAX_WAIT_CHAIN + 1)), "{ptx}");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].message.contains("no known upper bound") && notes[0].span.is_known(), "{notes:?}");
}

#[test]
fn a_bounded_count_becomes_one_guarded_wait_per_value() {
    let bounded = UNBOUNDED_WAIT
        .replace("\"async_wait_inflight_count\": n", "\"async_wait_inflight_count\": T.max(T.min(n, 2), 0)");
    let (ptx, notes) = lower_text(&bounded).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    // The largest k <= count runs: 0 for counts up to 0, k for k, 2 for 2 and more.
    for expected in ["setp.le.s32", "cp.async.wait_group 0;", "setp.eq.s32", "cp.async.wait_group 1;", "setp.ge.s32"] {
        assert!(ptx.contains(expected), "missing {expected} in\n{ptx}");
    }
    assert_eq!(ptx.matches("cp.async.wait_group").count(), 3, "{ptx}");
}

#[test]
fn unsupported_constructs_are_located_errors() {
    let call = UNBOUNDED_WAIT.replace("C[i] = B[i]", "C[i] = T.tanh(B[i])");
    let error = lower_text(&call).unwrap_err();
    assert_eq!(error.construct, "the call `tanh`");
    assert_eq!(error.span.line, 11, "{error}");
    let global = UNBOUNDED_WAIT.replace("scope=\"shared\"", "scope=\"global\"");
    let error = lower_text(&global).unwrap_err();
    assert!(error.reason.contains("only shared and local allocations"), "{error}");
}

/// `T.exp` lowers to the float64 sequence the interpreter computes (`exp_f32`): the emulator
/// gives its bits exactly, on the edges (NaN, infinities, overflow, underflow to subnormals
/// and zero) and in between, for float32 and for float16 through float32.
#[test]
fn exp_lowers_to_the_interpreters_sequence_bit_for_bit() {
    use tirproof_machine::arith::exp::exp_f32;
    use tirproof_machine::Tensor;

    use crate::emu::{run_kernel, EmuConfig, EmuOutcome, KernelArg};

    let mut inputs: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        88.72,
        88.73,
        -87.0,
        -100.0,
        -103.9,
        -104.5,
        1e-30,
        f32::MAX,
        f32::MIN,
    ];
    inputs.extend((0..48).map(|k| (k as f32 - 24.0) * 3.7 + 0.123));
    let n = inputs.len();
    for (dtype, from_f32, to_f32) in [
        (
            "float32",
            (|x: f32| u64::from(x.to_bits())) as fn(f32) -> u64,
            (|b: u64| f32::from_bits(b as u32)) as fn(u64) -> f32,
        ),
        (
            "float16",
            |x: f32| u64::from(half::f16::from_f32(x).to_bits()),
            |b: u64| half::f16::from_bits(b as u16).to_f32(),
        ),
    ] {
        let src = format!(
            "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer(({n},), \"{dtype}\"), C: T.Buffer(({n},), \"{dtype}\")):\n    for i in range({n}):\n        C[i] = T.exp(A[i])\n"
        );
        let mut module = tirproof_reader::parse_module(&src).expect("parses");
        lower_tir(&mut module).expect("lowers");
        let lowered = lower_module(&module, Arch::Sm80).expect("lowers to PTX");
        let data_type: tirproof_ir::dtype::DataType = dtype.parse().expect("a type");
        let bits: Vec<u64> = inputs.iter().map(|x| from_f32(*x)).collect();
        let args = vec![
            KernelArg::Buffer(Tensor::from_bits(data_type, vec![n], bits.clone()).expect("a tensor")),
            KernelArg::Buffer(Tensor::from_bits(data_type, vec![n], vec![0; n]).expect("a tensor")),
        ];
        let result = run_kernel(&lowered.module.kernels[0], None, &args, &EmuConfig::default()).expect("runs");
        assert_eq!(result.outcome, EmuOutcome::Completed);
        let out = result.buffers[1].as_ref().expect("the output").bits().to_vec();
        for (k, x) in bits.iter().enumerate() {
            let want = exp_f32(to_f32(*x));
            let want = from_f32(want);
            assert_eq!(out[k], want, "{dtype} exp({}) = {}, want {}", to_f32(*x), to_f32(out[k]), to_f32(want));
        }
    }
}

/// A block as TVM's ThreadSync leaves it: a block-level store, a first `threadIdx.x` scope
/// that writes shared memory, a second that starts with the barrier and reads it.
const SIBLING_SCOPES: &str = r#"# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((2,), "float32")):
    bx = T.launch_thread("blockIdx.x", 2)
    S = T.alloc_buffer((32,), "float32", scope="shared")
    C[bx] = A[bx]
    with T.launch_thread("threadIdx.x", 32) as tx:
        S[tx] = A[bx * 32 + tx]
    with T.launch_thread("threadIdx.x", EXTENT) as tx:
        T.tvm_storage_sync("shared")
        B[bx * 32 + tx] = S[31 - tx]
"#;

#[test]
fn block_level_code_and_sibling_thread_scopes_run_in_every_thread_with_no_barrier_added() {
    let (ptx, notes) = lower_text(&SIBLING_SCOPES.replace("EXTENT", "32")).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    // One barrier, the program's own; both scopes read the same `%tid.x`.
    assert_eq!(ptx.matches("bar.sync").count(), 1, "{ptx}");
    assert_eq!(ptx.matches("%tid.x;").count(), 2, "{ptx}");
    assert!(ptx.contains(".reqntid 32, 1, 1"), "{ptx}");
    // The block-level store comes first, unguarded: every thread executes it.
    let first_tid = ptx.find("%tid.x;").unwrap();
    let first_store = ptx.find("st.global.f32").unwrap();
    assert!(first_store < first_tid, "{ptx}");
    assert!(!ptx[..first_tid].contains("@%p"), "{ptx}");
}

#[test]
fn sibling_scopes_of_different_extents_and_host_code_are_refused() {
    let error = lower_text(&SIBLING_SCOPES.replace("EXTENT", "16")).unwrap_err();
    assert!(error.to_string().contains("another binding of the tag has extent 32"), "{error}");
    let host = "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\")):\n    A[0] = T.float32(1.0)\n    for tx in T.thread_binding(8, thread=\"threadIdx.x\"):\n        A[tx] = T.float32(2.0)\n";
    let error = lower_text(host).unwrap_err();
    assert!(error.to_string().contains("a store outside the function's thread bindings"), "{error}");
}

#[test]
fn instructions_follow_the_loc_of_their_statement_given_a_file() {
    let mut module = tirproof_reader::parse_module(UNBOUNDED_WAIT).expect("parses");
    lower_tir(&mut module).expect("lowers");
    let located = lower_module_from(&module, Arch::Sm80, Some("w.py")).expect("codegen").module;
    let kernel = &located.kernels[0];
    assert_eq!(kernel.source_file.as_deref(), Some("w.py"));
    let locs: Vec<SourceLoc> =
        kernel.body.iter().filter_map(|l| if let Line::Loc(loc) = l { Some(*loc) } else { None }).collect();
    // The copy loop's store (line 8) and the reading loop's store (line 11) at their columns.
    for (line, col) in [(8, 13), (11, 13)] {
        assert!(locs.contains(&SourceLoc { line, col }), "no .loc {line} {col} in {locs:?}");
    }
    assert!(locs.windows(2).all(|w| w[0] != w[1]), "a .loc repeats the position in effect: {locs:?}");
    let first_inst = kernel.body.iter().position(|l| matches!(l, Line::Inst(_))).expect("an instruction");
    assert!(kernel.source_at(first_inst).is_some(), "the first instruction has no position");
    let store = kernel.body.iter().position(|l| matches!(l, Line::Inst(i) if i.to_string().starts_with("st.global")));
    assert_eq!(kernel.source_at(store.expect("a store")), Some(SourceLoc { line: 11, col: 13 }));
    // The shared array says which TIR buffer it holds, in 4-byte elements.
    let origin = kernel.arrays[0].origin.as_ref().expect("an origin");
    assert_eq!((origin.buffer.as_str(), origin.element_bytes), ("B", 4));

    let unlocated = lower_module(&module, Arch::Sm80).expect("codegen").module;
    assert!(unlocated.kernels[0].body.iter().all(|l| !matches!(l, Line::Loc(_))));
    assert_eq!(unlocated.kernels[0].source_file, None);
}
