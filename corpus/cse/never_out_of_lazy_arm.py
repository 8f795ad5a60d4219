# test: pass
# passes: cse
# desc: never out of a lazy if_then_else arm: x // d runs only when d != 0, so it is not bound before the store (that could divide by zero); inside one arm it is bound in the arm; a whole if_then_else is a computation like any other

# from tvm.script import tirx as T

@T.prim_func
def main(x: T.int32, d: T.int32, c: T.int32, A: T.Buffer((8,), "int32")):
    A[0] = T.if_then_else(d != 0, x // d, 0) + T.if_then_else(d != 0, x // d, 1)
    A[1] = T.if_then_else(d != 0, x // d * (x // d), 0)
    A[2] = x % d
    A[3] = T.if_then_else(c > 0, x % d, 0)
    A[4] = T.if_then_else(c > 1, x + 1, 0) * T.if_then_else(c > 1, x + 1, 0)

# ---- expected output ----
# # from tvm.script import tirx as T
#
# @T.prim_func
# def main(x: T.int32, d: T.int32, c: T.int32, A: T.Buffer((8,), "int32")):
#     cse_v3 = T.int32()
#     cse_v2: T.let[T.bool] = d != 0
#     cse_v1: T.let[T.int32] = T.if_then_else(c > 1, x + 1, 0)
#     A[0] = T.if_then_else(cse_v2, x // d, 0) + T.if_then_else(cse_v2, x // d, 1)
#     A[1] = T.if_then_else(cse_v2, T.Let(cse_v3 * cse_v3, where={cse_v3: x // d}), 0)
#     A[2] = x % d
#     A[3] = T.if_then_else(c > 0, x % d, 0)
#     A[4] = cse_v1 * cse_v1
