# test: pass
# passes: cse-semantic
# desc: rules add-comm, mul-comm, min-comm, max-comm, bitand-comm, bitor-comm, bitxor-comm, eq-comm, ne-comm: commuted duplicates share one variable, bound to the form written first

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, y: T.int32, A: T.Buffer((16,), "int32")):
    A[0] = x + y
    A[1] = y + x
    A[2] = x * y - y * x
    A[3] = T.min(x, y) + T.min(y, x)
    A[4] = T.max(x, y) + T.max(y, x)
    A[5] = (x & y) + (y & x)
    A[6] = (x | y) + (y | x)
    A[7] = (x ^ y) + (y ^ x)
    A[8] = T.Select(x == y, 1, 0) + T.Select(y == x, 2, 0)
    A[9] = T.Select(x != y, 1, 0) + T.Select(y != x, 2, 0)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, y: T.int32, A: T.Buffer((16,), "int32")):
#     cse_v9: T.let[T.int32] = x * y
#     cse_v8: T.let[T.bool] = x != y
#     cse_v7: T.let[T.bool] = x == y
#     cse_v6: T.let[T.int32] = x ^ y
#     cse_v5: T.let[T.int32] = x | y
#     cse_v4: T.let[T.int32] = x & y
#     cse_v3: T.let[T.int32] = T.max(x, y)
#     cse_v2: T.let[T.int32] = T.min(x, y)
#     cse_v1: T.let[T.int32] = x + y
#     A[0] = cse_v1
#     A[1] = cse_v1
#     A[2] = cse_v9 - cse_v9
#     A[3] = cse_v2 + cse_v2
#     A[4] = cse_v3 + cse_v3
#     A[5] = cse_v4 + cse_v4
#     A[6] = cse_v5 + cse_v5
#     A[7] = cse_v6 + cse_v6
#     A[8] = T.Select(cse_v7, 1, 0) + T.Select(cse_v7, 2, 0)
#     A[9] = T.Select(cse_v8, 1, 0) + T.Select(cse_v8, 2, 0)
