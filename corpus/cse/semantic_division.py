# test: pass
# passes: cse-semantic
# desc: rules floordiv-nest (positive constants whose product fits), floormod-idem, floormod-add-multiple (a power of two, a term that cannot fault), floordiv-floormod-recombine (a positive constant): index arithmetic of flattened loops

# from tvm.script import tirx as T

@T.prim_func
def main(i: T.int32, j: T.int32, A: T.Buffer((64,), "int32")):
    A[0] = i // 4 // 2 + i // 8
    A[1] = i % 8 % 8 + i % 8
    A[2] = (i + j * 8) % 8 + i % 8
    A[3] = i // 4 * 4 + i % 4 + (i + 1)
    A[4] = i // 3 // 5 + i // 15

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(i: T.int32, j: T.int32, A: T.Buffer((64,), "int32")):
#     cse_v4: T.let[T.int32] = i % 8
#     cse_v3: T.let[T.int32] = i // 15
#     cse_v2: T.let[T.int32] = i // 8
#     cse_v1: T.let[T.int32] = cse_v4 + cse_v4
#     A[0] = cse_v2 + cse_v2
#     A[1] = cse_v1
#     A[2] = cse_v1
#     A[3] = i + (i + 1)
#     A[4] = cse_v3 + cse_v3
