# test: error
# desc: T.where belongs in a block header

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    for i in range(4):
        T.where(i < 2)
        A[i] = 0
