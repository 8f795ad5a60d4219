# test: error
# desc: a vector-typed load combined with a scalar would need an implicit cast; the checker names both types, and the cast to float16x4 keeps lanes but the stored type differs
# error: 12:5: error: operands of `+` have different types: float32x4 and float32
# error: 13:5: error: store to `A_vec` (float32x4 elements) gives float32x4, but the value is float16x4

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), H: T.Buffer((16,), "float16")):
    A_vec = T.decl_buffer((4,), "float32x4", data=A.data)
    H_vec = T.decl_buffer((4,), "float16x4", data=H.data)
    A_vec[1] = A_vec[0] + A[0]
    A_vec[2] = H_vec[0]
    H_vec[1] = T.Cast("float16x4", A_vec[3])
