# test: pass
# passes: cse-semantic
# desc: rules add-assoc-left, add-assoc-right, mul-assoc-left, mul-assoc-right, min-assoc, max-assoc: reassociated integer duplicates share one variable (wrapping arithmetic makes this exact)

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, y: T.int32, z: T.int32, A: T.Buffer((16,), "int32")):
    A[0] = x + y + z
    A[1] = x + (y + z)
    A[2] = x * (y * z) - x * y * z
    A[3] = T.min(T.min(x, y), z) + T.min(x, T.min(y, z))
    A[4] = T.max(T.max(x, y), z) + T.max(x, T.max(y, z))
    A[5] = z + (x + y) + (y + x + z)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, y: T.int32, z: T.int32, A: T.Buffer((16,), "int32")):
#     cse_v4: T.let[T.int32] = x * (y * z)
#     cse_v3: T.let[T.int32] = T.max(T.max(x, y), z)
#     cse_v2: T.let[T.int32] = T.min(T.min(x, y), z)
#     cse_v1: T.let[T.int32] = x + y + z
#     A[0] = cse_v1
#     A[1] = cse_v1
#     A[2] = cse_v4 - cse_v4
#     A[3] = cse_v2 + cse_v2
#     A[4] = cse_v3 + cse_v3
#     A[5] = cse_v1 + cse_v1
