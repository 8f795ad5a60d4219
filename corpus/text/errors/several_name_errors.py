# test: error
# desc: independent name errors in one function are all reported
# error: 12:12: error: undefined name `undefined_one`: expected a name defined earlier, found `undefined_one`
# error: 14:12: error: undefined name `undefined_two`: expected a name defined earlier, found `undefined_two`
# error: 14:28: error: unknown intrinsic `T.frobnicate`: expected a known intrinsic such as `T.exp`, found `T.frobnicate`

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    A[0] = undefined_one
    A[1] = 2
    A[2] = undefined_two + T.frobnicate(1)
