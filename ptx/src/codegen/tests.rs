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
