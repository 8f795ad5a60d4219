# test: error
# desc: an unexpected token in an expression
# error: 10:19: error: unexpected token: expected an expression, found `*`

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    A[0] = A[1] + * 2
