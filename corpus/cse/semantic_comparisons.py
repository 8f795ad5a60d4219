# test: pass
# passes: cse-semantic
# desc: rules lt-flip, gt-flip, le-flip, ge-flip, not-lt, not-le, not-not, and-comm, or-comm, and-assoc, or-assoc: a comparison and its mirror, or its negation, are one computation

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, y: T.int32, z: T.int32, A: T.Buffer((16,), "int32")):
    A[0] = T.Select(x < y, 1, 0) + T.Select(y > x, 2, 0)
    A[1] = T.Select(x > y, 1, 0) + T.Select(y < x, 2, 0)
    A[2] = T.Select(x <= y, 1, 0) + T.Select(y >= x, 2, 0)
    A[3] = T.Select(x >= z, 1, 0) + T.Select(z <= x, 2, 0)
    A[4] = T.Select(not x < z, 3, 0) + T.Select(x >= z, 4, 0)
    A[5] = T.Select(not x <= y + z, 1, 0) + T.Select(x > y + z, 2, 0)
    A[6] = T.Select(not (not x == z), 1, 0) + T.Select(x == z, 2, 0)
    A[7] = T.Select(x < 3 and y < 4, 1, 0) + T.Select(y < 4 and x < 3, 2, 0)
    A[8] = T.Select(x < 5 or y < 6, 1, 0) + T.Select(y < 6 or x < 5, 2, 0)
    A[9] = T.Select(x < 7 and y < 8 and z < 9, 1, 0) + T.Select(x < 7 and (y < 8 and z < 9), 2, 0)
    A[10] = T.Select(x < 10 or y < 11 or z < 12, 1, 0) + T.Select(x < 10 or (y < 11 or z < 12), 2, 0)

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, y: T.int32, z: T.int32, A: T.Buffer((16,), "int32")):
#     cse_v10: T.let[T.bool] = x == z
#     cse_v9: T.let[T.bool] = x >= z
#     cse_v8: T.let[T.bool] = x <= y
#     cse_v7: T.let[T.bool] = x > y
#     cse_v6: T.let[T.bool] = x < y
#     cse_v5: T.let[T.bool] = x > y + z
#     cse_v4: T.let[T.bool] = x < 5 or y < 6
#     cse_v3: T.let[T.bool] = x < 3 and y < 4
#     cse_v2: T.let[T.bool] = x < 10 or y < 11 or z < 12
#     cse_v1: T.let[T.bool] = x < 7 and y < 8 and z < 9
#     A[0] = T.Select(cse_v6, 1, 0) + T.Select(cse_v6, 2, 0)
#     A[1] = T.Select(cse_v7, 1, 0) + T.Select(cse_v7, 2, 0)
#     A[2] = T.Select(cse_v8, 1, 0) + T.Select(cse_v8, 2, 0)
#     A[3] = T.Select(cse_v9, 1, 0) + T.Select(cse_v9, 2, 0)
#     A[4] = T.Select(cse_v9, 3, 0) + T.Select(cse_v9, 4, 0)
#     A[5] = T.Select(cse_v5, 1, 0) + T.Select(cse_v5, 2, 0)
#     A[6] = T.Select(cse_v10, 1, 0) + T.Select(cse_v10, 2, 0)
#     A[7] = T.Select(cse_v3, 1, 0) + T.Select(cse_v3, 2, 0)
#     A[8] = T.Select(cse_v4, 1, 0) + T.Select(cse_v4, 2, 0)
#     A[9] = T.Select(cse_v1, 1, 0) + T.Select(cse_v1, 2, 0)
#     A[10] = T.Select(cse_v2, 1, 0) + T.Select(cse_v2, 2, 0)
