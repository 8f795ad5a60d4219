# test: pass
# passes: vector-type-rewrite
# desc: stride-1 Ramps whose base is a provable multiple of the lanes become scalar-index accesses into vector-typed aliases (a let-bound base too); wider Ramps use the N*M lanes table; other accesses are left alone

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), H: T.Buffer((64,), "float16"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((8,), "float32", scope="shared")
    for i in range(8):
        base: T.let[T.int32] = i * 8
        B[T.Ramp(0, 1, 8)] = A[T.Ramp(base, 1, 8)]
        C[T.Ramp(base, 1, 8)] = B[T.Ramp(0, 1, 8)] + T.Cast("float32x8", H[T.Ramp(base, 1, 8)])
    for i in range(15):
        C[T.Ramp(i * 4 + 2, 1, 4)] = A[T.Ramp(i * 4 + 2, 1, 4)]
        C[T.Ramp(i * 4, 2, 2)] = A[T.Ramp(i * 4, 1, 2)]

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((64,), "float32"), H: T.Buffer((64,), "float16"), C: T.Buffer((64,), "float32")):
#     A_vec = T.decl_buffer((16,), "float32x4", data=A.data)
#     A_vec_1 = T.decl_buffer((32,), "float32x2", data=A.data)
#     H_vec = T.decl_buffer((8,), "float16x8", data=H.data)
#     C_vec = T.decl_buffer((16,), "float32x4", data=C.data)
#     B = T.alloc_buffer((8,), "float32", scope="shared")
#     B_vec = T.decl_buffer((2,), "float32x4", scope="shared", data=B.data)
#     for i in range(8):
#         base: T.let[T.int32] = i * 8
#         B_vec[T.Ramp(0, 1, 2)] = A_vec[T.Ramp(base // 4, 1, 2)]
#         C_vec[T.Ramp(base // 4, 1, 2)] = B_vec[T.Ramp(0, 1, 2)] + T.Cast("float32x8", H_vec[base // 8])
#     for i in range(15):
#         C[T.Ramp(i * 4 + 2, 1, 4)] = A[T.Ramp(i * 4 + 2, 1, 4)]
#         C[T.Ramp(i * 4, 2, 2)] = A_vec_1[i * 2]
