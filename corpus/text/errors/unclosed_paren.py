# test: error
# desc: a parenthesis that is never closed
# error: 10:12: error: unclosed `(`: expected `)`, found end of file

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    A[0] = (A[1] + A[2]
