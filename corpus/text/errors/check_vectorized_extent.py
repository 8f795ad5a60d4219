# test: error
# desc: a vectorized loop needs a constant extent
# error: 11:5: error: vectorized loop `i` needs a constant extent, found n

from tvm.script import tirx as T


@T.prim_func
def main(a: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    for i in T.vectorized(n):
        A[i] = A[i]
