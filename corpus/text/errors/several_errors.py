# test: error
# desc: independent errors on different lines are all reported
# error: 11:15: error: unexpected token: expected an expression, found end of line

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    A[0] = undefined_one
    A[1] = 2 +
    A[2] = undefined_two
