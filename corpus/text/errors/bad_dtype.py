# test: error
# desc: a data type name that does not exist

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float31")):
    A[0] = A[1]
