# test: error
# desc: an access with the wrong number of indices
# error: 10:5: error: wrong number of indices for `A`: expected 2 indices, found 1

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4, 4), "int32")):
    A[0] = 1
