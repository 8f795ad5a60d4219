# test: error
# desc: a for statement without its colon
# error: 10:22: error: missing `:`: expected `:`, found end of line

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    for i in range(4)
        A[i] = 0
