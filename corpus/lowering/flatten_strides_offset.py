# test: pass
# passes: flatten-buffer
# desc: strides and elem_offset: the flat index is elem_offset + sum(index * stride); the alias spans every reachable element; a Ramp in the last dimension takes the last stride
# check: A_1 = T.decl_buffer((45,), "float32", data=A.data)
# check: B_1 = T.decl_buffer((24,), "float32", data=B.data)

# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4, 3), "float32", strides=(1, 16), elem_offset=9), B: T.Buffer((2, 3, 4), "float32")):
    for i in range(2):
        for j in range(3):
            B[i, j, T.Ramp(0, 1, 4)] = T.Broadcast(A[i, j], 4)
    B[1, 2, T.Ramp(0, 1, 3)] = A[3, T.Ramp(0, 1, 3)]

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(A: T.Buffer((4, 3), "float32", strides=(1, 16), elem_offset=9), B: T.Buffer((2, 3, 4), "float32")):
#     A_1 = T.decl_buffer((45,), "float32", data=A.data)
#     B_1 = B.view(24)
#     for i in range(2):
#         for j in range(3):
#             B_1[T.Ramp(i * 12 + j * 4, 1, 4)] = T.Broadcast(A_1[i + 9 + j * 16], 4)
#     B_1[T.Ramp(20, 1, 3)] = A_1[T.Ramp(12, 16, 3)]
