# test: error
# desc: a subscript store to something that is not a buffer
# error: 10:5: error: cannot store to `x`: it is not a buffer: expected a buffer, found variable `x`

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32"), x: T.int32):
    x[0] = 1
