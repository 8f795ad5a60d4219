# test: error
# desc: chained comparisons have no TIR meaning
# error: 10:14: error: chained comparison: expected `and` between two comparisons, found `<`

from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "int32"), x: T.int32):
    if 0 < x < 4:
        A[0] = 1
