# test: error
# desc: a string literal that never ends

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32)):
    A[0] = 0
