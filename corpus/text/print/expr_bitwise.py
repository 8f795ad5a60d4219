# test: print
# desc: bitwise operators as used in swizzled shared-memory layouts

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "int32"), x: T.int32):
    A[0] = x & 7 | x >> 3 << 1
    A[1] = x ^ x & 3
    A[2] = (x | 1) & 6
