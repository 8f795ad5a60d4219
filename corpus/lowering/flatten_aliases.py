# test: pass
# passes: flatten-buffer
# desc: aliases over one data variable are each flattened in their own element type (a 2-D view and a vector-typed view of A; a 2-D allocation with a 2-D declaration over it)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), C: T.Buffer((4, 8), "float32")):
    A_2d = T.decl_buffer((4, 8), "float32", data=A.data)
    A_vec = T.decl_buffer((2, 4), "float32x4", data=A.data)
    S = T.alloc_buffer((4, 8), "float32", scope="shared")
    S_t = T.decl_buffer((8, 4), "float32", data=S.data, scope="shared")
    for i in range(4):
        for j in range(8):
            S[i, j] = A_2d[i, j] * T.float32(2.0)
    for j in range(8):
        for i in range(4):
            C[i, j] = S_t[j, i] + A[i * 8 + j]
    C[0, T.Ramp(0, 1, 4)] = A_vec[1, 1]

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((32,), "float32"), C: T.Buffer((4, 8), "float32")):
#     A_1 = A.view(32)
#     C_1 = C.view(32)
#     A_2d = A.view(32)
#     A_vec = T.decl_buffer((8,), "float32x4", data=A.data)
#     S = T.alloc_buffer((32,), "float32", scope="shared")
#     S_t = S.view(32)
#     for i in range(4):
#         for j in range(8):
#             S[i * 8 + j] = A_2d[i * 8 + j] * T.float32(2.0)
#     for j in range(8):
#         for i in range(4):
#             C_1[i * 8 + j] = S_t[j * 4 + i] + A_1[i * 8 + j]
#     C_1[T.Ramp(0, 1, 4)] = A_vec[5]
