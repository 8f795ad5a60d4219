# test: error
# desc: a T. function that does not exist
# error: 10:12: error: unknown intrinsic `T.frobnicate`: expected a known intrinsic such as `T.exp`, found `T.frobnicate`

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    A[0] = T.frobnicate(A[1])
