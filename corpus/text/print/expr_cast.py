# test: print
# desc: casts between integer and float types

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int8"), x: T.int64):
    A[0] = T.Cast("float32", B[0]) + T.Cast("float32", x)
    B[1] = T.Cast("int8", A[1])
    A[2] = T.Cast("float32", T.Cast("float16", A[3]))
