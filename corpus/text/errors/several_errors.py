# test: error
# desc: independent syntax errors on different lines are all reported
# error: 11:15: error: unexpected token: expected an expression, found end of line
# error: 12:12: error: unclosed `(`: expected `)`, found end of file

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    A[0] = 2 +
    A[1] = (3
    A[2] = 4 * * 2
