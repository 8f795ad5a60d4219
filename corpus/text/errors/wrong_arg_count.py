# test: error
# desc: a call with the wrong number of arguments
# error: 10:12: error: wrong number of arguments to `T.if_then_else`: expected 3 arguments, found 2

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32"), x: T.int32):
    A[0] = T.if_then_else(x < 1, 2)
