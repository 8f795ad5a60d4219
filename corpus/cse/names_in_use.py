# test: pass
# passes: cse
# desc: new variables skip names the function already uses (cse_v1 is taken)

# from tvm.script import tirx as T

@T.prim_func
def main(cse_v1: T.int32, y: T.int32, A: T.Buffer((8,), "int32")):
    A[0] = (cse_v1 + y) * (cse_v1 + y)


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(cse_v1: T.int32, y: T.int32, A: T.Buffer((8,), "int32")):
#     cse_v2: T.let[T.int32] = cse_v1 + y
#     A[0] = cse_v2 * cse_v2
