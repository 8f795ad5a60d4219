//! Tests of the vector-type rewrite: which accesses are rewritten, into what, and why the
//! others are left alone.

use super::*;
use crate::Pass;
use tirproof_ir::check::check_module;
use tirproof_ir::print::print_module;
use tirproof_reader::parse_module;

fn rewrite(src: &str) -> (String, Vec<String>) {
    let mut m = parse_module(src).expect("parses");
    let notes = VectorTypeRewrite.run_explained(&mut m).expect("never fails");
    let diags = check_module(&m);
    assert!(!diags.has_errors(), "{diags}\n{}", print_module(&m));
    (print_module(&m), notes)
}

#[test]
fn multiples_of_the_lanes_become_scalar_indices() {
    let (out, notes) = rewrite(
        r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in range(15):
        C[T.Ramp((i + 1) * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] + T.Broadcast(T.float32(1.0), 4)
"#,
    );
    assert!(out.contains("A_vec = T.decl_buffer((16,), \"float32x4\", data=A.data)"), "{out}");
    assert!(out.contains("C_vec[i + 1] = A_vec[i] + T.Broadcast(T.float32(1.0), 4)"), "{out}");
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn wide_ramps_use_the_lanes_table() {
    let (out, _) = rewrite(
        r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in range(4):
        A[T.Ramp(i * 16, 1, 16)] = A[T.Ramp(i * 16, 1, 16)] + T.Broadcast(T.float32(1.0), 16)
"#,
    );
    assert!(out.contains("A_vec[T.Ramp(i * 4, 1, 4)] = A_vec[T.Ramp(i * 4, 1, 4)]"), "{out}");
}

#[test]
fn unprovable_bases_are_left_alone_with_a_note() {
    let (out, notes) = rewrite(
        r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), n: T.int32):
    for i in range(4):
        A[T.Ramp(i * 3, 1, 4)] = A[T.Ramp(n, 1, 4)]
"#,
    );
    assert!(out.contains("A[T.Ramp(i * 3, 1, 4)] = A[T.Ramp(n, 1, 4)]"), "{out}");
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].contains("the base `n` is not provably a multiple of 4"), "{notes:?}");
}

#[test]
fn allocations_get_their_alias_inside_and_rows_must_align() {
    let (out, notes) = rewrite(
        r#"
@T.prim_func
def main(A: T.Buffer((8, 6), "float32")):
    B = T.alloc_buffer((2, 8), "float32", scope="shared")
    B[1, T.Ramp(4, 1, 4)] = A[0, T.Ramp(0, 1, 4)]
    A[1, T.Ramp(0, 1, 4)] = B[1, T.Ramp(4, 1, 4)]
"#,
    );
    assert!(out.contains("B_vec = T.decl_buffer((2, 2), \"float32x4\", scope=\"shared\", data=B.data)"), "{out}");
    assert!(out.contains("B_vec[1, 1] = A[0, T.Ramp(0, 1, 4)]"), "{out}");
    assert!(notes.iter().all(|n| n.contains("its last extent is not a constant multiple of 4")), "{notes:?}");
}

#[test]
fn widths_are_powers_of_two_that_fit_sixteen_bytes() {
    assert_eq!(vector_width(DataType::FLOAT32, 4), Some(4));
    assert_eq!(vector_width(DataType::FLOAT32, 12), Some(4));
    assert_eq!(vector_width(DataType::FLOAT16, 16), Some(8));
    assert_eq!(vector_width(DataType::FLOAT64, 3), None);
    assert_eq!(vector_width(DataType::INT8, 65535), None);
}

#[test]
fn block_allocations_are_left_alone() {
    let (out, notes) = rewrite(
        r#"
@T.prim_func(s_tir=True)
def main(A: T.Buffer((8,), "float32")):
    with T.sblock("b"):
        S = T.sblock_alloc_buffer((8,), "float32", scope="shared")
        S[T.Ramp(0, 1, 4)] = A[T.Ramp(0, 1, 4)]
        A[T.Ramp(4, 1, 4)] = S[T.Ramp(0, 1, 4)]
"#,
    );
    assert!(out.contains("S[T.Ramp(0, 1, 4)] = A_vec[0]"), "{out}");
    assert!(notes.iter().any(|n| n.contains("`S`") && n.contains("no declaration to put an alias in")), "{notes:?}");
}
