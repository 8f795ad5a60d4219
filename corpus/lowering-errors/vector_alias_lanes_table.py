# test: error
# desc: RFC 39's N*M table: a 2-lane index into a float32x4 alias gives float32x8, which a 4-lane store cannot take
# error: 10:5: error: store to `A` (float32 elements) with a 4-lane index gives float32x4, but the value is float32x8

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    A_vec = T.decl_buffer((4,), "float32x4", data=A.data)
    A[T.Ramp(0, 1, 4)] = A_vec[T.Ramp(0, 1, 2)]
