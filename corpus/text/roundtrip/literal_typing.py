# test: roundtrip
# desc: bare literals take the type of the other operand
# check: x + T.int64(1)
# check: A[0] = T.float32(2.0)
# check: A[1] = A[0] * T.float32(3.0)
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float32"), I: T.Buffer((4,), "int64"), x: T.int64):
    I[0] = x + 1
    A[0] = 2
    A[1] = A[0] * 3
