# test: error
# desc: an access with the wrong number of indices

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4, 4), "int32")):
    A[0] = 1
