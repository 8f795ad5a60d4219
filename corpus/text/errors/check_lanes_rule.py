# test: error
# desc: RFC 39 lanes rule: a 4-lane index into a float32x4 buffer gives float32x16
# error: 10:5: error: store to `V` (float32x4 elements) with a 4-lane index gives float32x16, but the value is float32x4

from tvm.script import tirx as T


@T.prim_func
def main(V: T.Buffer((16,), "float32x4")):
    V[T.Ramp(0, 1, 4)] = V[0]
