# test: error
# desc: a T. function that does not exist

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    A[0] = T.frobnicate(A[1])
