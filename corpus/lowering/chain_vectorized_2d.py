# test: pass
# passes: lower-opaque-block,flatten-buffer,vectorize-loop,vector-type-rewrite
# desc: the whole lowering chain on a 2-D block program: blocks lowered, buffers flattened, the inner loop vectorized, the Ramps rewritten into float32x4 aliases

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
    for i in range(8):
        for jo in range(4):
            for ji in T.vectorized(4):
                with T.sblock("scale"):
                    vi = T.axis.spatial(8, i)
                    vj = T.axis.spatial(16, jo * 4 + ji)
                    T.reads(A[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func(s_tir=True)
# def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
#     A_1 = A.view(128)
#     A_vec = T.decl_buffer((32,), "float32x4", data=A.data)
#     C_1 = C.view(128)
#     C_vec = T.decl_buffer((32,), "float32x4", data=C.data)
#     for i in range(8):
#         for jo in range(4):
#             C_vec[jo + i * 4] = A_vec[jo + i * 4] * T.Broadcast(T.float32(2.0), 4) + T.Broadcast(T.float32(1.0), 4)
