# test: error
# desc: a scalar stored into a vector-typed alias would need an implicit broadcast: a type error naming both types
# error: 10:5: error: store to `A_vec` (float32x4 elements) gives float32x4, but the value is float32

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    A_vec = T.decl_buffer((4,), "float32x4", data=A.data)
    A_vec[0] = A[0]
