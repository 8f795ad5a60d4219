# test: error
# desc: a string literal that never ends
# error: 9:28: error: unterminated string: expected a closing quote, found end of line

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32)):
    A[0] = 0
