# test: print
# desc: buffer parameters with every keyword, and scalar parameters

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4, 8), "float32", strides=(16, 1), elem_offset=4, align=64, offset_factor=1), B: T.Buffer((32,), "float16", scope="shared"), n: T.int32, alpha: T.float32):
    for i in range(4):
        B[i] = T.Cast("float16", A[i, 0] * alpha)
