# test: error
# desc: a scalar store of a vector value
# error: 10:5: error: store to `A` (float32 elements) gives float32, but the value is float32x4

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    A[0] = A[T.Ramp(0, 1, 4)]
