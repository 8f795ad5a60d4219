# test: error
# desc: a name that is not defined
# error: 11:18: error: undefined name `j`: expected a name defined earlier, found `j`

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[j]
