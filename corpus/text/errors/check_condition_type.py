# test: error
# desc: conditions must be bool
# error: 10:5: error: condition of `if` must be bool, found int32

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32"), x: T.int32):
    if x:
        A[0] = 1
