# test: pass
# passes: flatten-buffer
# desc: a symbolic shape: the flattened alias's extent and the strides are expressions of n

# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, c: T.handle, n: T.int32):
    A = T.match_buffer(a, (n, 4), "float32")
    C = T.match_buffer(c, (4, n), "float32")
    for i in range(n):
        for j in range(4):
            C[j, i] = A[i, j] + T.float32(1.0)

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(a: T.handle, c: T.handle, n: T.int32):
#     A = T.match_buffer(a, (n, 4), "float32")
#     C = T.match_buffer(c, (4, n), "float32")
#     A_1 = A.view(n * 4)
#     C_1 = C.view(n * 4)
#     for i in range(n):
#         for j in range(4):
#             C_1[j * n + i] = A_1[i * 4 + j] + T.float32(1.0)
