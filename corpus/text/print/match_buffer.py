# test: print
# desc: a buffer whose shape uses a scalar parameter is bound with T.match_buffer

# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    for i in range(n):
        A[i] = A[i] + T.float32(1.0)
