# test: run
# desc: a shift by at least the bit width
# run: lazy -> fault: line 9: shift amount 40 out of range for int32 (must be in 0..32)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "int32"), s: T.int32):
    A[0] = A[0] << 40
