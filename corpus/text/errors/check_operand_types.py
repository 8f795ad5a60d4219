# test: error
# desc: operands of different integer types
# error: 10:5: error: operands of `+` have different types: int32 and int64

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32"), x: T.int32, y: T.int64):
    A[0] = x + y
