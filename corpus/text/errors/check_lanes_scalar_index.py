# test: error
# desc: a scalar store of a vector value

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    A[0] = A[T.Ramp(0, 1, 4)]
