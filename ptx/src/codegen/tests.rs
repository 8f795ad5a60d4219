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
fn a_count_without_an_upper_bound_waits_for_everything_with_a_note() {
    let (ptx, notes) = lower_text(UNBOUNDED_WAIT).unwrap();
    assert!(ptx.contains("cp.async.ca.shared.global") && ptx.contains("\tcp.async.wait_group 0;"), "{ptx}");
    assert!(!ptx.contains("@%p") || !ptx.contains("cp.async.wait_group 1"), "{ptx}");
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
    let call = UNBOUNDED_WAIT.replace("C[i] = B[i]", "C[i] = T.exp(B[i])");
    let error = lower_text(&call).unwrap_err();
    assert_eq!(error.construct, "the call `exp`");
    assert_eq!(error.span.line, 11, "{error}");
    let global = UNBOUNDED_WAIT.replace("scope=\"shared\"", "scope=\"global\"");
    let error = lower_text(&global).unwrap_err();
    assert!(error.reason.contains("only shared and local allocations"), "{error}");
}
