# test: pass
# passes: cse
# desc: an if statement performs its condition and what both branches perform: x * y (in both) is bound before it; x + y (only in the then branch, twice) is bound inside that branch; x // y in both branches is performed on every path, so it may be bound before the if although it may trap

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, y: T.int32, c: T.int32, A: T.Buffer((8,), "int32")):
    if c > 2:
        A[0] = x * y + x // y
        A[1] = (x + y) * (x + y)
    else:
        A[2] = x * y - x // y

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, y: T.int32, c: T.int32, A: T.Buffer((8,), "int32")):
#     cse_v2: T.let[T.int32] = x // y
#     cse_v1: T.let[T.int32] = x * y
#     if c > 2:
#         cse_v3: T.let[T.int32] = x + y
#         A[0] = cse_v1 + cse_v2
#         A[1] = cse_v3 * cse_v3
#     else:
#         A[2] = cse_v1 - cse_v2
