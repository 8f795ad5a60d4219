# test: pass
# passes: vectorize-loop
# desc: extent 1 loses its loop (the variable becomes its minimum); vectorized loops nested in serial ones over vector-typed buffers (N*M lanes)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), V: T.Buffer((8,), "float32x2"), W: T.Buffer((8,), "float32x2")):
    for i in T.vectorized(3, 4):
        A[i] = A[i] + T.float32(1.0)
    for k in range(2):
        for i in T.vectorized(4):
            W[k * 4 + i] = V[k * 4 + i] * V[i]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((16,), "float32"), V: T.Buffer((8,), "float32x2"), W: T.Buffer((8,), "float32x2")):
#     A[3] = A[3] + T.float32(1.0)
#     for k in range(2):
#         W[T.Ramp(k * 4, 1, 4)] = V[T.Ramp(k * 4, 1, 4)] * V[T.Ramp(0, 1, 4)]
