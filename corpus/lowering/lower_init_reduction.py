# test: pass
# passes: lower-opaque-block
# desc: a reduction block: T.init runs when every reduction variable is at its minimum (here k == 0 and j == 2)

# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8, 3), "float32"), S: T.Buffer((4,), "float32")):
    for i, k, j in T.grid(4, 8, 3):
        with T.sblock("sum"):
            vi = T.axis.spatial(4, i)
            vk = T.axis.reduce(8, k)
            vj = T.axis.reduce((2, 5), j + 2)
            T.reads(A[vi, vk, vj - 2])
            T.writes(S[vi])
            with T.init():
                S[vi] = T.float32(0.0)
            S[vi] = S[vi] + A[vi, vk, vj - 2]


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func(s_tir=True)
# def main(A: T.Buffer((4, 8, 3), "float32"), S: T.Buffer((4,), "float32")):
#     for i in range(4):
#         for k in range(8):
#             for j in range(3):
#                 if k == 0 and j + 2 == 2:
#                     S[i] = T.float32(0.0)
#                 S[i] = S[i] + A[i, k, j + 2 - 2]
