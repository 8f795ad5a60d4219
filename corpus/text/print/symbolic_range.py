# test: print
# desc: symbolic loop bounds and regions keep min and extent apart

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(a: T.handle, n: T.int32, m: T.int32):
    A = T.match_buffer(a, (n + m,), "float32")
    for i in range(m, m + n):
        with T.sblock(""):
            T.reads(A[i:i + 4])
            T.writes(A[m:m + n])
            A[i] = T.float32(0.0)
