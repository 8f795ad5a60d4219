# test: pass
# passes: cse-semantic
# desc: rules mul-add-distribute, mul-add-factor, mul-sub-distribute, mul-sub-factor, add-sub-assoc, add-sub-assoc-rev, sub-sub, sub-sub-rev, sub-add-swap, sub-add-swap-rev: distributed and regrouped integer sums are one computation

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, y: T.int32, z: T.int32, A: T.Buffer((16,), "int32")):
    A[0] = x * (y + z) + (x * y + x * z)
    A[1] = x * (y - z) + (x * y - x * z)
    A[2] = x + y - z + (x + (y - z))
    A[3] = x - y - z + (x - (y + z))
    A[4] = x - y + z + (x + z - y)

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, y: T.int32, z: T.int32, A: T.Buffer((16,), "int32")):
#     cse_v6: T.let[T.int32] = x - y
#     cse_v5: T.let[T.int32] = x * (y - z)
#     cse_v4: T.let[T.int32] = x * (y + z)
#     cse_v3: T.let[T.int32] = cse_v6 + z
#     cse_v2: T.let[T.int32] = cse_v6 - z
#     cse_v1: T.let[T.int32] = x + y - z
#     A[0] = cse_v4 + cse_v4
#     A[1] = cse_v5 + cse_v5
#     A[2] = cse_v1 + cse_v1
#     A[3] = cse_v2 + cse_v2
#     A[4] = cse_v3 + cse_v3
