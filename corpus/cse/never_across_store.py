# test: pass
# passes: cse
# desc: never across a store: B[i] + 1 is read before and after B[i] changes, so no load is ever bound (its index i * 2 + 1, which no store can change, is)

# from tvm.script import tirx as T

@T.prim_func
def main(i: T.int32, A: T.Buffer((8,), "int32"), B: T.Buffer((64,), "int32")):
    A[0] = B[i * 2 + 1] + 1
    B[i * 2 + 1] = 7
    A[1] = B[i * 2 + 1] + 1


# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(i: T.int32, A: T.Buffer((8,), "int32"), B: T.Buffer((64,), "int32")):
#     cse_v1: T.let[T.int32] = i * 2 + 1
#     A[0] = B[cse_v1] + 1
#     B[cse_v1] = 7
#     A[1] = B[cse_v1] + 1
